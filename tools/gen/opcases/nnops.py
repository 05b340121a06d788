"""Neural-network operators of real models beyond convolution and pooling: glu (conformer,
wav2vec), pixel_shuffle / pixel_unshuffle (super-resolution), im2col / col2im (F.unfold /
F.fold), grid_sampler in 2-d and 3-d (spatial transformers, optical flow), with PyTorch's
error messages."""

from typing import List

import torch
import torch.nn.functional as F


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    if dtype == torch.bool:
        return torch.randn(*shape) > 0
    return torch.randint(-3, 4, shape, dtype=dtype)


def glu_cases(c):
    def glu(x, dim: int):
        return torch._C._nn.glu(x, dim)

    def glu_functional(x):
        return F.glu(x), F.glu(x, 0)

    c.add("glu", glu, r(3, 4), -1)
    c.add("glu_dim0", glu, r(4, 3, 2), 0)
    c.add("glu_dim1", glu, r(2, 6, 5), 1)
    c.add("glu_noncontig", glu, r(4, 6).t(), 1)
    c.add("glu_float64", glu, r(2, 4, dtype=torch.float64), 1)
    c.add("glu_bfloat16", glu, r(2, 4, dtype=torch.bfloat16), 1)
    c.add("glu_float16", glu, r(2, 4, dtype=torch.float16), 1)
    c.add("glu_large", glu, r(8, 2048), 1)
    c.add("glu_extremes", glu, torch.tensor([[100.0, -100.0, float("inf"), float("nan"), 1.0, 1.0, -90.0, 90.0]]), 1)
    c.add("glu_empty", glu, r(0, 4), 1)
    c.add("glu_functional", glu_functional, r(4, 6), inline=True)
    c.add("glu_odd_error", glu, r(3, 5), 1)
    c.add("glu_scalar_error", glu, torch.tensor(1.0), 0)
    c.add("glu_dim_error", glu, r(2, 4), 2)
    c.add("glu_int_error", glu, r(2, 4, dtype=torch.int64), 1)


def shuffle_cases(c):
    def shuffle(x, f: int):
        return torch.pixel_shuffle(x, f)

    def unshuffle(x, f: int):
        return torch.pixel_unshuffle(x, f)

    c.add("pixel_shuffle", shuffle, r(1, 8, 3, 4), 2)
    c.add("pixel_shuffle_3", shuffle, r(2, 18, 2, 3), 3)
    c.add("pixel_shuffle_unbatched", shuffle, r(4, 3, 3), 2)
    c.add("pixel_shuffle_5d", shuffle, r(2, 2, 4, 2, 2), 2)
    c.add("pixel_shuffle_one", shuffle, r(1, 3, 2, 2), 1)
    c.add("pixel_shuffle_noncontig", shuffle, r(1, 3, 4, 8).permute(0, 3, 1, 2), 2)
    c.add("pixel_shuffle_int64", shuffle, r(1, 4, 2, 2, dtype=torch.int64), 2)
    c.add("pixel_shuffle_bool", shuffle, r(1, 4, 2, 2, dtype=torch.bool), 2)
    c.add("pixel_shuffle_empty", shuffle, r(0, 4, 2, 2), 2)
    c.add("pixel_shuffle_dim_error", shuffle, r(4, 4), 2)
    c.add("pixel_shuffle_factor_error", shuffle, r(1, 4, 2, 2), 0)
    c.add("pixel_shuffle_divisible_error", shuffle, r(1, 6, 2, 2), 2)
    c.add("pixel_unshuffle", unshuffle, r(1, 2, 6, 4), 2)
    c.add("pixel_unshuffle_3", unshuffle, r(2, 1, 6, 9), 3)
    c.add("pixel_unshuffle_unbatched", unshuffle, r(3, 4, 4), 2)
    c.add("pixel_unshuffle_noncontig", unshuffle, r(1, 4, 4, 2).permute(0, 3, 1, 2), 2)
    c.add("pixel_unshuffle_dim_error", unshuffle, r(4, 4), 2)
    c.add("pixel_unshuffle_factor_error", unshuffle, r(1, 4, 2, 2), -1)
    c.add("pixel_unshuffle_height_error", unshuffle, r(1, 1, 3, 4), 2)
    c.add("pixel_unshuffle_width_error", unshuffle, r(1, 1, 4, 3), 2)


def fold_cases(c):
    def im2col(x, k: List[int], d: List[int], p: List[int], s: List[int]):
        return torch._C._nn.im2col(x, k, d, p, s)

    def col2im(x, o: List[int], k: List[int], d: List[int], p: List[int], s: List[int]):
        return torch._C._nn.col2im(x, o, k, d, p, s)

    def unfold_fold(x):
        u = F.unfold(x, 3, padding=1)
        return u, F.fold(u, (5, 6), 3, padding=1)

    c.add("im2col", im2col, r(2, 3, 5, 6), [2, 3], [1, 1], [0, 0], [1, 1])
    c.add("im2col_all", im2col, r(1, 2, 7, 8), [3, 2], [2, 1], [1, 2], [2, 3])
    c.add("im2col_unbatched", im2col, r(2, 4, 4), [2, 2], [1, 1], [1, 1], [1, 1])
    c.add("im2col_noncontig", im2col, r(1, 5, 6, 2).permute(0, 3, 1, 2), [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_int64", im2col, r(1, 2, 3, 3, dtype=torch.int64), [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_float64", im2col, r(1, 2, 3, 3, dtype=torch.float64), [2, 2], [1, 1], [1, 0], [1, 1])
    c.add("im2col_zero_batch", im2col, r(0, 2, 3, 3), [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_kernel_error", im2col, r(1, 2, 3, 3), [0, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_dilation_error", im2col, r(1, 2, 3, 3), [2, 2], [0, 1], [0, 0], [1, 1])
    c.add("im2col_padding_error", im2col, r(1, 2, 3, 3), [2, 2], [1, 1], [-1, 0], [1, 1])
    c.add("im2col_stride_error", im2col, r(1, 2, 3, 3), [2, 2], [1, 1], [0, 0], [1, 0])
    c.add("im2col_dim_error", im2col, r(1, 1, 2, 3, 3), [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_empty_error", im2col, r(1, 0, 3, 3), [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_small_error", im2col, r(1, 2, 3, 3), [4, 2], [1, 1], [0, 0], [1, 1])
    c.add("im2col_len_error", im2col, r(1, 2, 3, 3), [2], [1, 1], [0, 0], [1, 1])
    c.add("col2im", col2im, r(2, 6, 16), [5, 6], [2, 3], [1, 1], [0, 0], [1, 1])
    c.add("col2im_all", col2im, r(1, 12, 12), [7, 8], [3, 2], [2, 1], [1, 2], [2, 3])
    c.add("col2im_unbatched", col2im, r(8, 25), [4, 4], [2, 2], [1, 1], [1, 1], [1, 1])
    c.add("col2im_noncontig", col2im, r(1, 12, 4).transpose(1, 2).contiguous().transpose(1, 2), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_int64", col2im, r(1, 8, 4, dtype=torch.int64), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_float64", col2im, r(1, 8, 4, dtype=torch.float64), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_divisible_error", col2im, r(1, 7, 4), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_blocks_error", col2im, r(1, 8, 5), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_dim_error", col2im, r(8), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_kernel_error", col2im, r(1, 8, 4), [3, 3], [0, 2], [1, 1], [0, 0], [1, 1])
    c.add("col2im_stride_error", col2im, r(1, 8, 4), [3, 3], [2, 2], [1, 1], [0, 0], [0, 1])
    c.add("col2im_output_error", col2im, r(1, 8, 4), [3], [2, 2], [1, 1], [0, 0], [1, 1])
    c.add("unfold_fold", unfold_fold, r(2, 3, 5, 6), inline=True)


def grid_cases(c):
    def grid_sampler(x, g, mode: int, pad: int, ac: bool):
        return torch.grid_sampler(x, g, mode, pad, ac)

    def grid_sample(x, g, mode: str, pad: str, ac: bool):
        return F.grid_sample(x, g, mode, pad, ac)

    def grid(*shape, spread=1.3, dtype=torch.float32):
        return ((torch.rand(*shape) * 2 - 1) * spread).to(dtype)

    x2, x3 = r(2, 3, 5, 6), r(1, 2, 3, 4, 5)
    g2, g3 = grid(2, 4, 7, 2), grid(1, 3, 4, 2, 3)
    # Grid points on pixel centres and exact halves: ties and clamping.
    ticks = torch.linspace(-1.5, 1.5, 13)
    g_exact = torch.stack(torch.meshgrid(ticks, ticks[:7], indexing="xy"), -1).unsqueeze(0)
    for mode, mname in enumerate(["bilinear", "nearest", "bicubic"]):
        for pad, pname in enumerate(["zeros", "border", "reflection"]):
            for ac in (False, True):
                tag = f"{mname}_{pname}{'_ac' if ac else ''}"
                # Bicubic weights cancel; PyTorch's compiled kernel contracts their
                # multiply-adds differently in places (1-ulp weights, 1e-6 results).
                tol = dict(atol=1e-5) if mname == "bicubic" else {}
                c.add(f"grid2d_{tag}", grid_sampler, x2, g2, mode, pad, ac, **tol)
                c.add(f"grid2d_exact_{tag}", grid_sampler, r(1, 2, 4, 5), g_exact, mode, pad, ac, **tol)
                if mode < 2:
                    c.add(f"grid3d_{tag}", grid_sampler, x3, g3, mode, pad, ac)
    c.add("grid2d_float64", grid_sampler, r(1, 2, 4, 5, dtype=torch.float64), grid(1, 3, 3, 2, dtype=torch.float64), 0, 0, False)
    c.add("grid2d_bicubic_float64", grid_sampler, r(1, 2, 4, 5, dtype=torch.float64), grid(1, 3, 3, 2, dtype=torch.float64), 2, 2, True)
    c.add("grid3d_float64", grid_sampler, r(1, 2, 3, 4, 5, dtype=torch.float64), grid(1, 2, 2, 2, 3, dtype=torch.float64), 0, 1, False)
    c.add("grid2d_noncontig", grid_sampler, r(1, 5, 6, 3).permute(0, 3, 1, 2), grid(1, 2, 4, 3)[..., :2], 0, 0, False)
    c.add("grid2d_far", grid_sampler, x2, grid(2, 4, 7, 2, spread=9.0), 0, 2, False)
    c.add("grid2d_far_bicubic", grid_sampler, x2, grid(2, 4, 7, 2, spread=9.0), 2, 2, True, atol=1e-5)
    c.add("grid2d_nan", grid_sampler, x2, torch.full((2, 1, 2, 2), float("nan")), 0, 0, False)
    c.add("grid2d_large", grid_sampler, r(2, 8, 40, 50), grid(2, 30, 60, 2), 0, 0, False)
    c.add("grid2d_large_nearest", grid_sampler, r(2, 8, 40, 50), grid(2, 30, 60, 2), 1, 1, False)
    c.add("grid2d_empty_grid", grid_sampler, x2, grid(2, 0, 3, 2), 0, 0, False)
    c.add("grid2d_single_pixel", grid_sampler, r(1, 1, 1, 1), g_exact, 0, 2, True)
    c.add("grid_sample_functional", grid_sample, x2, g2, "bilinear", "border", False, inline=True)
    c.add("grid_sample_functional_nearest", grid_sample, x3, g3, "nearest", "reflection", True, inline=True)
    c.add("grid_batch_error", grid_sampler, x2, grid(1, 4, 7, 2), 0, 0, False)
    c.add("grid_last_dim_error", grid_sampler, x2, grid(2, 4, 7, 3), 0, 0, False)
    c.add("grid_rank_error", grid_sampler, x2, grid(2, 4, 7, 1, 2), 0, 0, False)
    c.add("grid_empty_error", grid_sampler, r(2, 3, 0, 6), g2, 0, 0, False)
    c.add("grid_dtype_error", grid_sampler, x2, g2.double(), 0, 0, False)
    for mode in range(3):
        c.add(f"grid2d_float16_{mode}", grid_sampler, x2.half(), g2.half(), mode, 1, False)
        c.add(f"grid2d_bfloat16_{mode}", grid_sampler, x2.bfloat16(), g2.bfloat16(), mode, 2, True)
    for mode in range(2):
        c.add(f"grid3d_float16_{mode}", grid_sampler, x3.half(), g3.half(), mode, 1, False)
        c.add(f"grid3d_bfloat16_{mode}", grid_sampler, x3.bfloat16(), g3.bfloat16(), mode, 2, True)
    c.add("grid3d_nan_border", grid_sampler, x3, torch.full((1, 1, 1, 2, 3), float("nan")), 0, 1, False)
    c.add("grid3d_nan_zeros", grid_sampler, x3, torch.full((1, 1, 1, 2, 3), float("nan")), 0, 0, False)
    c.add("grid2d_nan_border", grid_sampler, x2, torch.full((2, 1, 2, 2), float("nan")), 0, 1, False)
    c.add("grid2d_nan_nearest", grid_sampler, x2, torch.full((2, 1, 2, 2), float("nan")), 1, 0, False)
    c.add("grid2d_int_error", grid_sampler, x2.long(), g2.long(), 0, 0, False)
    c.add("grid3d_int_error", grid_sampler, x3.long(), g3.long(), 0, 0, False)
    c.add("grid_sample_mode_error", grid_sample, x2, g2, "cubic", "zeros", False, inline=True)


def cases(c):
    glu_cases(c)
    shuffle_cases(c)
    fold_cases(c)
    grid_cases(c)
