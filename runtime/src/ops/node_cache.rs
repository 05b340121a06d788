//! What a graph node derives once from a constant weight (GEMM panels, Winograd transforms)
//! and reuses on every call.

use std::sync::{Arc, Mutex};

use crate::tensor::Tensor;

/// The value one node derived from its weights, kept across calls while the weights are the
/// same tensor with the same layout (nodes whose weights are graph constants, which nothing
/// writes).
pub struct NodeCache<T> {
    slot: Mutex<Option<(Key, Arc<T>)>>,
}

impl<T> Default for NodeCache<T> {
    fn default() -> Self {
        NodeCache {
            slot: Mutex::new(None),
        }
    }
}

impl<T> std::fmt::Debug for NodeCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeCache")
    }
}

/// What identifies the weights: their address and layout, and what the value was derived
/// for (a panel width).
#[derive(PartialEq, Eq)]
struct Key {
    ptr: usize,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    variant: usize,
}

impl<T> NodeCache<T> {
    /// The value derived from `w` for `variant`: the cached one while `w` is the same tensor
    /// layout and `variant` the same, else `derive()`, kept.
    pub(crate) fn get(&self, w: &Tensor, variant: usize, derive: impl FnOnce() -> T) -> Arc<T> {
        let key = Key {
            ptr: w.data_ptr() as usize,
            sizes: w.sizes().to_vec(),
            strides: w.strides().to_vec(),
            variant,
        };
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, value)) = slot.as_ref() {
            if *k == key {
                return value.clone();
            }
        }
        let value = Arc::new(derive());
        *slot = Some((key, value.clone()));
        value
    }
}
