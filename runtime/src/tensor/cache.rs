//! A size-bucketed cache of freed tensor buffers, so that a model called again reuses the
//! memory of its last call instead of faulting in fresh pages (glibc returns large blocks to
//! the kernel on free, and every new page costs a fault and a kernel memset).
//!
//! Buffers of [`MIN_BYTES`] or more are allocated in size classes (eight per power of two, at
//! most 12.5% slack) and, when their storage is dropped, kept by class up to a total of
//! `EMBER_BUFFER_CACHE_MB` megabytes (default 1024; 0 turns the cache off). Smaller buffers go
//! straight to the allocator, whose own free lists already serve them without faults.

use std::alloc::{dealloc, Layout};
use std::sync::{Mutex, OnceLock};

use hashbrown::HashMap;

/// Buffers below this many bytes are not cached.
pub const MIN_BYTES: usize = 1 << 14;

/// Alignment of every cached buffer (that of every storage).
const ALIGN: usize = 64;

struct Cache {
    /// Free buffers (addresses) by class size.
    free: HashMap<usize, Vec<usize>>,
    bytes: usize,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(|| {
        Mutex::new(Cache {
            free: HashMap::new(),
            bytes: 0,
        })
    })
}

/// The most bytes the cache holds.
fn limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mb = std::env::var("EMBER_BUFFER_CACHE_MB")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(1024);
        mb.saturating_mul(1 << 20)
    })
}

/// The size class of a request of `n` bytes: `n` rounded up to an eighth of its power of two
/// (`n` itself below [`MIN_BYTES`], or when caching is off).
pub fn class(n: usize) -> usize {
    if n < MIN_BYTES || limit() == 0 {
        return n;
    }
    let step = 1usize << (usize::BITS - 1 - n.leading_zeros()).saturating_sub(3);
    n.div_ceil(step).saturating_mul(step)
}

/// A buffer of exactly `class` bytes (a value [`class`] returned) from the cache, if one is
/// free.
pub fn take(class: usize) -> Option<*mut u8> {
    if class < MIN_BYTES {
        return None;
    }
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    let p = c.free.get_mut(&class)?.pop()?;
    c.bytes -= class;
    Some(p as *mut u8)
}

/// Frees a buffer of `class` bytes allocated with the storages' layout: into the cache while
/// it has room, otherwise back to the allocator.
///
/// # Safety
/// `p` was allocated with `Layout::from_size_align(class, 64)` and is not used afterwards.
pub unsafe fn give(p: *mut u8, class: usize) {
    if class >= MIN_BYTES {
        let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
        if c.bytes + class <= limit() {
            c.bytes += class;
            c.free.entry(class).or_default().push(p as usize);
            return;
        }
    }
    dealloc(p, Layout::from_size_align_unchecked(class, ALIGN));
}

/// Bytes the cache holds now.
pub fn cached_bytes() -> usize {
    cache().lock().unwrap_or_else(|e| e.into_inner()).bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_by_an_eighth() {
        assert_eq!(class(100), 100);
        assert_eq!(class(MIN_BYTES), MIN_BYTES);
        assert_eq!(class(MIN_BYTES + 1), MIN_BYTES + MIN_BYTES / 8);
        let n = 3 << 20;
        assert!(class(n) >= n && class(n) <= n + n / 8);
        assert_eq!(class(class(n + 7)), class(n + 7));
    }

    #[test]
    fn freed_buffers_are_reused() {
        // A class no other test allocates.
        let c = class((5 << 20) + 12_345);
        // SAFETY: a non-zero size with the storages' alignment.
        let p = unsafe { std::alloc::alloc(Layout::from_size_align(c, ALIGN).unwrap()) };
        assert!(!p.is_null());
        // SAFETY: allocated above with the storages' layout, not used after.
        unsafe { give(p, c) };
        assert!(cached_bytes() >= c);
        assert_eq!(take(c), Some(p));
        // SAFETY: as above.
        unsafe { give(p, c) };
    }
}
