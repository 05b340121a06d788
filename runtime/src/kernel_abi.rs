//! The C ABI of kernels compiled by `emberc` and by the JIT ([`JitKernelFn`]), and what
//! running them needs from the runtime.
//!
//! A kernel is `void NAME(ARGS..., float *OUT...)`: the fusion group's inputs in order (a
//! `const float *` to a contiguous row-major buffer per tensor, `double` per TorchScript float,
//! `int64_t` per int), then one `float *` per output. Shapes are static and stated in the
//! generated header (`NAME_NUMEL` is the element count). CPU objects need only libc and libm.
//! The PTX form of a kernel takes the same arguments as device pointers and runs one thread per
//! element of a 1-D grid, each thread checking its id against the element count, so any grid
//! of at least `NAME_NUMEL` threads is correct; [`ember_grid_size`] picks the block count.

/// A kernel compiled in process at run time (the optimizing executor's fused groups):
///
/// ```c
/// void kernel(int64_t row_begin, int64_t row_end, int64_t col_begin, int64_t col_end,
///             const int64_t *sizes, void *const *ptrs, const int64_t *strides,
///             const int64_t *scalars);
/// ```
///
/// The kernel is built for an iteration space of a fixed rank `R` (the group's largest input
/// rank, at least 1). `sizes[0..R]` are its sizes; the last dimension is the row, the others
/// are unravelled (last fastest) from the row index. `sizes[R]` is the sweep to compute (the
/// results of one shape; see `kernel_launch::PointwiseKernel::sweeps`), read only by kernels
/// of several sweeps. `ptrs` holds element 0 of every tensor
/// operand: the group's tensor inputs in order, then its outputs. `strides[t * R + d]` is the
/// stride in elements of operand `t` in dimension `d` (0 where it broadcasts); inputs whose
/// type fixes every size to 1 are read at element 0 and their strides are ignored. `scalars`
/// holds the group's int, float and bool inputs in order as 64-bit patterns (`int64_t`, the
/// bits of a `double`, 0 or 1). A call computes rows `[row_begin, row_end)` and within each the
/// columns `[col_begin, col_end)`, so disjoint ranges may run on different threads. Outputs
/// must not overlap inputs or each other. Bools are bytes (0 or 1); float16/bfloat16 are
/// computed in float32 and rounded after each operation.
pub type JitKernelFn = unsafe extern "C" fn(
    row_begin: i64,
    row_end: i64,
    col_begin: i64,
    col_end: i64,
    sizes: *const i64,
    ptrs: *const *mut u8,
    strides: *const i64,
    scalars: *const i64,
);

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
