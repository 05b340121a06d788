//! The C ABI of kernels compiled by `emberc`, and what running them needs from the runtime.
//!
//! A kernel is `void NAME(ARGS..., float *OUT...)`: the fusion group's inputs in order (a
//! `const float *` to a contiguous row-major buffer per tensor, `double` per TorchScript float,
//! `int64_t` per int), then one `float *` per output. Shapes are static and stated in the
//! generated header (`NAME_NUMEL` is the element count). CPU objects need only libc and libm.
//! The PTX form of a kernel takes the same arguments as device pointers and runs one thread per
//! element of a 1-D grid, each thread checking its id against the element count, so any grid
//! of at least `NAME_NUMEL` threads is correct; [`ember_grid_size`] picks the block count.

/// Threads per block used when the caller has no better choice.
pub const DEFAULT_BLOCK_SIZE: u32 = 256;

/// The largest grid x-dimension CUDA allows.
pub const MAX_GRID_X: u64 = (1 << 31) - 1;

/// Blocks of `block` threads needed to cover `numel` elements, or `None` when `block` is 0 or
/// the grid would exceed CUDA's limit.
pub fn grid_size(numel: u64, block: u32) -> Option<u32> {
    if block == 0 {
        return None;
    }
    let blocks = numel.div_ceil(block as u64);
    (blocks <= MAX_GRID_X).then_some(blocks as u32)
}

/// C entry of [`grid_size`] for programs that launch PTX kernels: 0 means no valid launch.
#[no_mangle]
pub extern "C" fn ember_grid_size(numel: u64, block: u32) -> u32 {
    grid_size(numel, block).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_every_element() {
        for (numel, block, want) in [
            (0, 256, Some(0)),
            (1, 256, Some(1)),
            (256, 256, Some(1)),
            (257, 256, Some(2)),
            (6, 0, None),
            (MAX_GRID_X * 1024, 1024, Some(MAX_GRID_X as u32)),
            (MAX_GRID_X * 1024 + 1, 1024, None),
        ] {
            assert_eq!(grid_size(numel, block), want, "{numel} / {block}");
        }
        assert_eq!(ember_grid_size(6, 0), 0);
    }
}
