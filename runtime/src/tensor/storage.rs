//! Storage: the shared, mutable byte buffer behind tensors. Views share one storage, and
//! in-place writes through any of them are seen by all, as in PyTorch.

use std::alloc::{alloc, alloc_zeroed, Layout};
use std::ptr::NonNull;
use std::sync::Arc;

use super::arena::{self, Allocation};
use super::cache;
use super::error::{TensorError, TensorResult};

/// Alignment of every allocation: a cache line, enough for any SIMD load.
const ALIGN: usize = 64;

/// The most bytes one storage may hold unless raised with [`set_allocation_limit`]: large
/// enough for any model Ember runs on its machines, small enough that a hostile size in an
/// input is refused instead of exhausting memory.
static ALLOCATION_LIMIT: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(16 << 30);

/// The per-storage allocation cap (bytes).
pub fn allocation_limit() -> usize {
    ALLOCATION_LIMIT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Changes the per-storage allocation cap (bytes).
pub fn set_allocation_limit(bytes: usize) {
    ALLOCATION_LIMIT.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    /// The bytes allocated: `len` rounded up to its cache class (`cache::class`).
    cap: usize,
    /// Memory someone else owns (a NumPy array): kept alive as long as the buffer, and
    /// released by dropping it instead of freeing `ptr`.
    owner: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// Set for buffers allocated inside a compiled call's planned memory (`arena`), held for
    /// its drop: that records the free or releases the slot, after the memory is released.
    _tag: Option<arena::Tag>,
}

// SAFETY: the buffer is plain bytes owned by the Arc. Concurrent writes through aliasing
// tensors are the program's business, exactly as in PyTorch; Ember's own kernels never write
// a storage from two threads at the same byte.
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.cap > 0 && self.owner.is_none() {
            // SAFETY: allocated in `Storage::allocate` with `cap` bytes at ALIGN; the last
            // handle is gone, so nothing uses it after.
            unsafe { cache::give(self.ptr.as_ptr(), self.cap) }
        }
    }
}

/// A reference-counted buffer of bytes, zero-initialized, 64-byte aligned.
#[derive(Clone)]
pub struct Storage(Arc<Buffer>);

impl Storage {
    /// A storage over `len` bytes at `ptr` that `owner` owns (the memory of a NumPy array or
    /// torch tensor shared without a copy); `owner` lives as long as the storage.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes, aligned for the element type
    /// it is viewed as, for as long as `owner` is alive, and nothing else may free it.
    pub unsafe fn from_external(
        ptr: *mut u8,
        len: usize,
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> Storage {
        Storage(Arc::new(Buffer {
            ptr: NonNull::new(ptr).unwrap_or(NonNull::dangling()),
            len,
            cap: 0,
            owner: Some(owner),
            _tag: None,
        }))
    }

    /// A zeroed storage of `nbytes` bytes; refuses sizes over the allocation cap and reports
    /// allocation failure instead of aborting.
    pub fn zeroed(nbytes: usize) -> TensorResult<Storage> {
        Storage::allocate(nbytes, true)
    }

    /// A storage of `nbytes` bytes that the caller overwrites completely before anything
    /// reads it (kernel outputs): no zeroing pass, and warm heap memory instead of fresh
    /// zero pages for large buffers.
    pub fn for_overwrite(nbytes: usize) -> TensorResult<Storage> {
        Storage::allocate(nbytes, false)
    }

    fn allocate(nbytes: usize, zeroed: bool) -> TensorResult<Storage> {
        let limit = ALLOCATION_LIMIT.load(std::sync::atomic::Ordering::Relaxed);
        if nbytes > limit {
            return Err(TensorError::new(format!(
                "refusing to allocate {nbytes} bytes: over the limit of {limit} bytes"
            )));
        }
        if nbytes == 0 {
            // A well-aligned dangling pointer: never dereferenced, but typed views of an
            // empty tensor must still see an aligned address.
            let ptr = NonNull::new(ALIGN as *mut u8).unwrap();
            return Ok(Storage(Arc::new(Buffer {
                ptr,
                len: 0,
                cap: 0,
                owner: None,
                _tag: None,
            })));
        }
        let tag = match arena::allocation(nbytes) {
            Allocation::Usual => None,
            Allocation::Tagged(tag) => Some(tag),
            Allocation::Slot(ptr, tag) => {
                if zeroed {
                    // SAFETY: the slot holds `nbytes` bytes that this buffer alone uses.
                    unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, nbytes) };
                }
                // cap 0: the block owns the memory; the tag frees the slot.
                return Ok(Storage(Arc::new(Buffer {
                    ptr,
                    len: nbytes,
                    cap: 0,
                    owner: None,
                    _tag: Some(tag),
                })));
            }
        };
        // Large buffers come in size classes and return to the cache when dropped, so a
        // model's next call reuses them instead of faulting in fresh pages.
        let cap = cache::class(nbytes);
        let ptr = match cache::take(cap) {
            Some(p) => {
                if zeroed {
                    // SAFETY: a cached buffer of `cap >= nbytes` bytes that we own.
                    unsafe { std::ptr::write_bytes(p, 0, nbytes) };
                }
                p
            }
            None => {
                let layout = Layout::from_size_align(cap, ALIGN)
                    .map_err(|_| TensorError::new(format!("cannot allocate {nbytes} bytes")))?;
                // SAFETY: layout has non-zero size.
                unsafe {
                    if zeroed {
                        alloc_zeroed(layout)
                    } else {
                        alloc(layout)
                    }
                }
            }
        };
        let ptr = NonNull::new(ptr)
            .ok_or_else(|| TensorError::new(format!("out of memory allocating {nbytes} bytes")))?;
        Ok(Storage(Arc::new(Buffer {
            ptr,
            len: nbytes,
            cap,
            owner: None,
            _tag: tag,
        })))
    }

    /// A storage holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> TensorResult<Storage> {
        let s = Storage::zeroed(bytes.len())?;
        // SAFETY: fresh buffer of exactly this length, not yet shared.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), s.as_ptr(), bytes.len()) };
        Ok(s)
    }

    pub fn nbytes(&self) -> usize {
        self.0.len
    }

    /// The start of the buffer. Reads and writes through it must stay within `nbytes`.
    pub fn as_ptr(&self) -> *mut u8 {
        self.0.ptr.as_ptr()
    }

    /// Whether two storages are the same buffer (views of one another).
    pub fn same(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// How many tensors and views hold this storage.
    pub fn ref_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Storage({} bytes)", self.0.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_zeroed_aligned_and_refuses_huge() {
        let s = Storage::zeroed(100).unwrap();
        assert_eq!(s.as_ptr() as usize % ALIGN, 0);
        // SAFETY: within the 100 bytes.
        assert!(unsafe { std::slice::from_raw_parts(s.as_ptr(), 100) }
            .iter()
            .all(|&b| b == 0));
        assert!(Storage::zeroed(usize::MAX / 2).is_err());
        assert_eq!(Storage::zeroed(0).unwrap().nbytes(), 0);
        let t = s.clone();
        assert!(t.same(&s) && s.ref_count() == 2);
    }
}
