"""Interpolation: every aten::upsample_* operator (nearest, nearest-exact, linear, bilinear,
bicubic, trilinear; 1-, 2- and 3-d; the explicit-size form with scales and the `.vec` form with
scale factors), the antialiased `_upsample_*_aa` forms, and F.interpolate scripted with every
mode, with PyTorch's error messages."""

from typing import List, Optional

import torch
import torch.nn.functional as F


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    return torch.randint(0, 256 if dtype == torch.uint8 else 100, shape, dtype=dtype)


# Cubic weights cancel (terms up to ~1.3 summing to ~1): PyTorch's compiled float32 kernel
# contracts multiply-adds where it vectorizes, so float32 bicubic agrees to ~2e-6, not 1e-6.
CUBIC = dict(rtol=1e-4, atol=1e-5)


def explicit_cases(c):
    """The explicit-size overloads: `output_size` and optional per-dim scales."""

    def nearest1d(x, size: List[int], s: Optional[float]):
        return torch._C._nn.upsample_nearest1d(x, size, s)

    def nearest2d(x, size: List[int], sh: Optional[float], sw: Optional[float]):
        return torch._C._nn.upsample_nearest2d(x, size, sh, sw)

    def nearest3d(x, size: List[int], sd: Optional[float], sh: Optional[float], sw: Optional[float]):
        return torch._C._nn.upsample_nearest3d(x, size, sd, sh, sw)

    def exact1d(x, size: List[int], s: Optional[float]):
        return torch._C._nn._upsample_nearest_exact1d(x, size, s)

    def exact2d(x, size: List[int], sh: Optional[float], sw: Optional[float]):
        return torch._C._nn._upsample_nearest_exact2d(x, size, sh, sw)

    def exact3d(x, size: List[int], sd: Optional[float], sh: Optional[float], sw: Optional[float]):
        return torch._C._nn._upsample_nearest_exact3d(x, size, sd, sh, sw)

    def linear1d(x, size: List[int], ac: bool, s: Optional[float]):
        return torch._C._nn.upsample_linear1d(x, size, ac, s)

    def bilinear2d(x, size: List[int], ac: bool, sh: Optional[float], sw: Optional[float]):
        return torch._C._nn.upsample_bilinear2d(x, size, ac, sh, sw)

    def bicubic2d(x, size: List[int], ac: bool, sh: Optional[float], sw: Optional[float]):
        return torch._C._nn.upsample_bicubic2d(x, size, ac, sh, sw)

    def trilinear3d(x, size: List[int], ac: bool, sd: Optional[float], sh: Optional[float], sw: Optional[float]):
        return torch._C._nn.upsample_trilinear3d(x, size, ac, sd, sh, sw)

    def bilinear2d_aa(x, size: List[int], ac: bool, sh: Optional[float], sw: Optional[float]):
        return torch._C._nn._upsample_bilinear2d_aa(x, size, ac, sh, sw)

    def bicubic2d_aa(x, size: List[int], ac: bool, sh: Optional[float], sw: Optional[float]):
        return torch._C._nn._upsample_bicubic2d_aa(x, size, ac, sh, sw)

    def lanczos2d_aa(x, size: List[int], ac: bool, sh: Optional[float], sw: Optional[float]):
        return torch.ops.aten._upsample_lanczos2d_aa(x, size, ac, sh, sw)

    x1, x2, x3 = r(2, 3, 7), r(2, 3, 5, 6), r(1, 2, 3, 4, 5)
    c.add("nearest1d_up", nearest1d, x1, [12], None)
    c.add("nearest1d_down", nearest1d, x1, [3], None)
    c.add("nearest1d_double", nearest1d, x1, [14], None)
    c.add("nearest1d_scale", nearest1d, x1, [10], 1.5)
    c.add("nearest1d_scale_ignored_zero", nearest1d, x1, [10], 0.0)
    c.add("nearest2d_up", nearest2d, x2, [9, 13], None, None)
    c.add("nearest2d_down", nearest2d, x2, [2, 4], None, None)
    c.add("nearest2d_scales", nearest2d, x2, [7, 8], 1.4, 1.3)
    c.add("nearest2d_uint8", nearest2d, r(1, 3, 4, 5, dtype=torch.uint8), [7, 9], None, None)
    c.add("nearest2d_float64", nearest2d, r(1, 2, 3, 4, dtype=torch.float64), [5, 7], None, None)
    c.add("nearest2d_float16", nearest2d, r(1, 2, 3, 4, dtype=torch.float16), [6, 5], None, None)
    c.add("nearest2d_bfloat16", nearest2d, r(1, 2, 3, 4, dtype=torch.bfloat16), [6, 5], None, None)
    c.add("nearest2d_noncontig", nearest2d, r(1, 5, 6, 3).permute(0, 3, 1, 2), [8, 8], None, None)
    c.add("nearest2d_channels_last", nearest2d, r(1, 6, 5, 4).contiguous(memory_format=torch.channels_last), [7, 9], None, None)
    c.add("nearest2d_large", nearest2d, r(2, 3, 40, 50), [97, 131], None, None)
    c.add("nearest2d_zero_batch", nearest2d, r(0, 3, 4, 4), [8, 8], None, None)
    c.add("nearest3d_up", nearest3d, x3, [5, 7, 9], None, None, None)
    c.add("nearest3d_scales", nearest3d, x3, [6, 6, 6], 2.0, 1.5, 1.2)
    c.add("exact1d_up", exact1d, x1, [10], None)
    c.add("exact1d_down", exact1d, x1, [4], None)
    c.add("exact2d", exact2d, x2, [8, 4], None, None)
    c.add("exact2d_scales", exact2d, x2, [8, 9], 1.6, 1.5)
    c.add("exact2d_uint8", exact2d, r(1, 3, 4, 5, dtype=torch.uint8), [7, 3], None, None)
    c.add("exact3d", exact3d, x3, [4, 3, 8], None, None, None)
    for ac in (False, True):
        tag = "_ac" if ac else ""
        c.add(f"linear1d_up{tag}", linear1d, x1, [12], ac, None)
        c.add(f"linear1d_down{tag}", linear1d, x1, [4], ac, None)
        c.add(f"bilinear2d_up{tag}", bilinear2d, x2, [9, 13], ac, None, None)
        c.add(f"bilinear2d_down{tag}", bilinear2d, x2, [3, 4], ac, None, None)
        c.add(f"bilinear2d_one{tag}", bilinear2d, x2, [1, 1], ac, None, None)
        c.add(f"bilinear2d_large{tag}", bilinear2d, r(1, 3, 30, 40), [77, 101], ac, None, None)
        c.add(f"bicubic2d_up{tag}", bicubic2d, x2, [9, 13], ac, None, None, **CUBIC)
        c.add(f"bicubic2d_down{tag}", bicubic2d, x2, [3, 4], ac, None, None, **CUBIC)
        c.add(f"trilinear3d_up{tag}", trilinear3d, x3, [5, 7, 9], ac, None, None, None)
        c.add(f"trilinear3d_down{tag}", trilinear3d, x3, [2, 3, 2], ac, None, None, None)
        c.add(f"bilinear2d_aa_down{tag}", bilinear2d_aa, r(1, 2, 17, 19), [5, 7], ac, None, None)
        c.add(f"bilinear2d_aa_up{tag}", bilinear2d_aa, x2, [9, 13], ac, None, None)
        c.add(f"bicubic2d_aa_down{tag}", bicubic2d_aa, r(1, 2, 17, 19), [5, 7], ac, None, None, **CUBIC)
        c.add(f"bicubic2d_aa_up{tag}", bicubic2d_aa, x2, [9, 13], ac, None, None, **CUBIC)
        c.add(f"lanczos2d_aa_down{tag}", lanczos2d_aa, r(1, 2, 17, 19), [5, 7], ac, None, None, rtol=1e-4, atol=1e-5)
        c.add(f"lanczos2d_aa_up{tag}", lanczos2d_aa, x2, [9, 13], ac, None, None, rtol=1e-4, atol=1e-5)
    c.add("bilinear2d_scales", bilinear2d, x2, [9, 10], False, 1.9, 1.7)
    c.add("bilinear2d_same_size", bilinear2d, x2, [5, 6], False, None, None)
    c.add("bilinear2d_one_row", bilinear2d, x2, [5, 9], False, None, None)
    c.add("bilinear2d_float64", bilinear2d, r(1, 2, 4, 5, dtype=torch.float64), [7, 3], False, None, None)
    c.add("bilinear2d_bfloat16", bilinear2d, r(1, 2, 4, 5, dtype=torch.bfloat16), [7, 3], False, None, None)
    c.add("bilinear2d_float16", bilinear2d, r(1, 2, 4, 5, dtype=torch.float16), [7, 3], True, None, None)
    c.add("bilinear2d_noncontig", bilinear2d, r(2, 5, 6, 3).permute(0, 3, 1, 2), [8, 7], False, None, None)
    c.add("bilinear2d_uint8", bilinear2d, r(1, 3, 9, 11, dtype=torch.uint8), [13, 7], False, None, None)
    c.add("bilinear2d_uint8_ac", bilinear2d, r(1, 3, 9, 11, dtype=torch.uint8), [13, 7], True, None, None)
    c.add("bilinear2d_uint8_channels", bilinear2d, r(1, 6, 9, 11, dtype=torch.uint8), [5, 17], False, None, None)
    c.add("bicubic2d_uint8", bicubic2d, r(1, 3, 9, 11, dtype=torch.uint8), [13, 7], False, None, None)
    c.add("bicubic2d_uint8_ac", bicubic2d, r(1, 1, 9, 11, dtype=torch.uint8), [13, 7], True, None, None)
    c.add("bicubic2d_scales", bicubic2d, x2, [8, 9], False, 1.7, 1.6, **CUBIC)
    c.add("bicubic2d_float64", bicubic2d, r(1, 2, 4, 5, dtype=torch.float64), [7, 3], True, None, None)
    c.add("bicubic2d_bfloat16", bicubic2d, r(1, 2, 4, 5, dtype=torch.bfloat16), [7, 3], False, None, None)
    c.add("bicubic2d_large", bicubic2d, r(1, 3, 30, 40), [77, 101], False, None, None, **CUBIC)
    c.add("trilinear3d_scales", trilinear3d, x3, [5, 6, 7], False, 1.9, 1.6, 1.5)
    c.add("trilinear3d_float64", trilinear3d, r(1, 2, 3, 3, 3, dtype=torch.float64), [4, 5, 6], False, None, None, None)
    c.add("bilinear2d_aa_scales", bilinear2d_aa, r(1, 2, 17, 19), [6, 7], False, 0.35, 0.4)
    c.add("bilinear2d_aa_float64", bilinear2d_aa, r(1, 2, 17, 19, dtype=torch.float64), [5, 7], False, None, None)
    c.add("bilinear2d_aa_uint8", bilinear2d_aa, r(1, 3, 17, 19, dtype=torch.uint8), [5, 7], False, None, None)
    c.add("bilinear2d_aa_uint8_channels", bilinear2d_aa, r(1, 5, 17, 19, dtype=torch.uint8), [5, 23], False, None, None)
    c.add("bicubic2d_aa_uint8", bicubic2d_aa, r(1, 3, 17, 19, dtype=torch.uint8), [5, 7], False, None, None)
    c.add("bilinear2d_aa_one_dim", bilinear2d_aa, r(1, 2, 17, 19), [17, 7], False, None, None)
    c.add("bilinear2d_aa_same", bilinear2d_aa, r(1, 2, 5, 6), [5, 6], False, None, None)
    c.add("lanczos2d_aa_uint8", lanczos2d_aa, r(1, 3, 17, 19, dtype=torch.uint8), [5, 7], False, None, None)

    # PyTorch's errors.
    c.add("nearest1d_rank_error", nearest1d, x2, [4], None)
    c.add("nearest1d_size_len_error", nearest1d, x1, [4, 4], None)
    c.add("nearest2d_zero_size_error", nearest2d, x2, [0, 4], None, None)
    c.add("nearest2d_empty_error", nearest2d, r(1, 0, 4, 4), [4, 4], None, None)
    c.add("nearest2d_zero_input_error", nearest2d, r(1, 2, 0, 4), [4, 4], None, None)
    c.add("nearest2d_int_error", nearest2d, r(1, 2, 3, 4, dtype=torch.int64), [4, 4], None, None)
    c.add("nearest2d_rank_error", nearest2d, x1, [4, 4], None, None)
    c.add("nearest3d_rank_error", nearest3d, x2, [4, 4, 4], None, None, None)
    c.add("nearest3d_zero_error", nearest3d, x3, [4, 0, 4], None, None, None)
    c.add("nearest1d_int_error", nearest1d, r(1, 2, 3, dtype=torch.int32), [4], None)
    c.add("nearest3d_int_error", nearest3d, r(1, 2, 3, 3, 3, dtype=torch.int16), [4, 4, 4], None, None, None)
    c.add("exact2d_int_error", exact2d, r(1, 2, 3, 4, dtype=torch.int64), [4, 4], None, None)
    c.add("linear1d_rank_error", linear1d, x2, [4], False, None)
    c.add("linear1d_zero_error", linear1d, x1, [0], False, None)
    c.add("linear1d_uint8_error", linear1d, r(1, 2, 3, dtype=torch.uint8), [4], False, None)
    c.add("bilinear2d_int_error", bilinear2d, r(1, 2, 3, 4, dtype=torch.int64), [4, 4], False, None, None)
    c.add("bilinear2d_rank_error", bilinear2d, x3, [4, 4], False, None, None)
    c.add("bilinear2d_zero_error", bilinear2d, x2, [4, -1], False, None, None)
    c.add("bicubic2d_int_error", bicubic2d, r(1, 2, 3, 4, dtype=torch.int8), [4, 4], False, None, None)
    c.add("trilinear3d_rank_error", trilinear3d, x2, [4, 4, 4], False, None, None, None)
    c.add("trilinear3d_uint8_error", trilinear3d, r(1, 1, 2, 3, 4, dtype=torch.uint8), [4, 4, 4], False, None, None, None)
    c.add("bilinear2d_aa_half_error", bilinear2d_aa, r(1, 2, 5, 6, dtype=torch.float16), [3, 3], False, None, None)
    c.add("bilinear2d_aa_rank_error", bilinear2d_aa, x1, [3, 3], False, None, None)
    c.add("bicubic2d_aa_int_error", bicubic2d_aa, r(1, 2, 5, 6, dtype=torch.int64), [3, 3], False, None, None)


def vec_cases(c):
    """The `.vec` overloads F.interpolate and traced models call: `output_size` or
    `scale_factors`."""

    def nearest1d(x, size: Optional[List[int]], sf: Optional[List[float]]):
        return torch._C._nn.upsample_nearest1d(x, size, sf)

    def nearest2d(x, size: Optional[List[int]], sf: Optional[List[float]]):
        return torch._C._nn.upsample_nearest2d(x, size, sf)

    def nearest3d(x, size: Optional[List[int]], sf: Optional[List[float]]):
        return torch._C._nn.upsample_nearest3d(x, size, sf)

    def exact2d(x, size: Optional[List[int]], sf: Optional[List[float]]):
        return torch._C._nn._upsample_nearest_exact2d(x, size, sf)

    def exact1d(x, size: Optional[List[int]], sf: Optional[List[float]]):
        return torch._C._nn._upsample_nearest_exact1d(x, size, sf)

    def exact3d(x, size: Optional[List[int]], sf: Optional[List[float]]):
        return torch._C._nn._upsample_nearest_exact3d(x, size, sf)

    def linear1d(x, size: Optional[List[int]], ac: bool, sf: Optional[List[float]]):
        return torch._C._nn.upsample_linear1d(x, size, ac, sf)

    def bilinear2d(x, size: Optional[List[int]], ac: bool, sf: Optional[List[float]]):
        return torch._C._nn.upsample_bilinear2d(x, size, ac, sf)

    def bicubic2d(x, size: Optional[List[int]], ac: bool, sf: Optional[List[float]]):
        return torch._C._nn.upsample_bicubic2d(x, size, ac, sf)

    def trilinear3d(x, size: Optional[List[int]], ac: bool, sf: Optional[List[float]]):
        return torch._C._nn.upsample_trilinear3d(x, size, ac, sf)

    def bilinear2d_aa(x, size: Optional[List[int]], ac: bool, sf: Optional[List[float]]):
        return torch._C._nn._upsample_bilinear2d_aa(x, size, ac, sf)

    def bicubic2d_aa(x, size: Optional[List[int]], ac: bool, sf: Optional[List[float]]):
        return torch._C._nn._upsample_bicubic2d_aa(x, size, ac, sf)

    x1, x2, x3 = r(2, 3, 7), r(2, 3, 5, 6), r(1, 2, 3, 4, 5)
    c.add("vec_nearest1d_size", nearest1d, x1, [11], None)
    c.add("vec_nearest1d_scale", nearest1d, x1, None, [1.7])
    c.add("vec_nearest2d_scale", nearest2d, x2, None, [2.0, 2.0])
    c.add("vec_nearest2d_scale_odd", nearest2d, x2, None, [1.3, 0.7])
    c.add("vec_nearest2d_size", nearest2d, x2, [4, 11], None)
    c.add("vec_nearest3d_scale", nearest3d, x3, None, [2.0, 1.5, 0.5])
    c.add("vec_exact1d_scale", exact1d, x1, None, [0.6])
    c.add("vec_exact2d_scale", exact2d, x2, None, [1.5, 2.5])
    c.add("vec_exact3d_scale", exact3d, x3, None, [1.5, 1.5, 1.5])
    c.add("vec_linear1d_scale", linear1d, x1, None, False, [1.5])
    c.add("vec_linear1d_scale_ac", linear1d, x1, None, True, [2.5])
    c.add("vec_bilinear2d_scale", bilinear2d, x2, None, False, [1.5, 2.25])
    c.add("vec_bilinear2d_size", bilinear2d, x2, [10, 3], False, None)
    c.add("vec_bilinear2d_scale_down", bilinear2d, r(1, 2, 9, 9), None, False, [0.3, 0.5])
    c.add("vec_bicubic2d_scale", bicubic2d, x2, None, False, [1.5, 2.25], **CUBIC)
    c.add("vec_bicubic2d_scale_ac", bicubic2d, x2, None, True, [1.5, 2.25], **CUBIC)
    c.add("vec_trilinear3d_scale", trilinear3d, x3, None, False, [1.5, 2.0, 0.8])
    c.add("vec_bilinear2d_aa_scale", bilinear2d_aa, r(1, 2, 17, 19), None, False, [0.3, 0.45])
    c.add("vec_bicubic2d_aa_scale", bicubic2d_aa, r(1, 2, 17, 19), None, False, [0.3, 0.45], **CUBIC)
    c.add("vec_both_error", nearest2d, x2, [4, 4], [2.0, 2.0])
    c.add("vec_neither_error", nearest2d, x2, None, None)
    c.add("vec_size_len_error", nearest2d, x2, [4], None)
    c.add("vec_scale_len_error", bilinear2d, x2, None, False, [2.0])
    c.add("vec_scale_zero_error", nearest2d, x2, None, [2.0, 0.1])
    c.add("vec_scale_overflow_error", nearest1d, x1, None, [1e300])
    c.add("vec_scale_nan_error", linear1d, x1, None, False, [float("nan")])
    c.add("vec_scale_negative_error", nearest1d, x1, None, [-2.0])


def interpolate_cases(c):
    """F.interpolate scripted (inlined): Python-level argument handling in the graph, then the
    aten op of each mode."""

    def interp_size(x, size: List[int], mode: str, ac: Optional[bool], aa: bool):
        return F.interpolate(x, size=size, mode=mode, align_corners=ac, antialias=aa)

    def interp_scale(x, scale: List[float], mode: str, ac: Optional[bool], recompute: Optional[bool]):
        return F.interpolate(x, scale_factor=scale, mode=mode, align_corners=ac, recompute_scale_factor=recompute)

    def interp_one_scale(x, scale: float, mode: str):
        return F.interpolate(x, scale_factor=scale, mode=mode)

    x1, x2, x3 = r(2, 3, 7), r(2, 3, 5, 6), r(1, 2, 3, 4, 5)
    for mode, x, ac in [
        ("nearest", x1, None), ("nearest", x2, None), ("nearest", x3, None),
        ("nearest-exact", x1, None), ("nearest-exact", x2, None), ("nearest-exact", x3, None),
        ("area", x1, None), ("area", x2, None), ("area", x3, None),
        ("linear", x1, False), ("linear", x1, True),
        ("bilinear", x2, False), ("bilinear", x2, True),
        ("bicubic", x2, False), ("bicubic", x2, True),
        ("trilinear", x3, False), ("trilinear", x3, True),
    ]:
        tol = CUBIC if mode == "bicubic" else {}
        size = [5, 9, 4][: x.dim() - 2]
        tag = f"{mode.replace('-', '_')}_{x.dim() - 2}d{'_ac' if ac else ''}"
        c.add(f"interpolate_size_{tag}", interp_size, x, size, mode, ac, False, inline=True, **tol)
        scale = [1.5, 0.75, 2.0][: x.dim() - 2]
        c.add(f"interpolate_scale_{tag}", interp_scale, x, scale, mode, ac, None, inline=True, **tol)
        c.add(f"interpolate_recompute_{tag}", interp_scale, x, [1.7, 1.3, 0.6][: x.dim() - 2], mode, ac, True, inline=True, **tol)
    c.add("interpolate_antialias_bilinear", interp_size, r(1, 3, 20, 18), [7, 5], "bilinear", False, True, inline=True)
    c.add("interpolate_antialias_bicubic", interp_size, r(1, 3, 20, 18), [7, 5], "bicubic", False, True, inline=True, **CUBIC)
    c.add("interpolate_antialias_lanczos", interp_size, r(1, 3, 20, 18), [7, 5], "lanczos", False, True, inline=True, rtol=1e-4, atol=1e-5)
    c.add("interpolate_one_scale", interp_one_scale, x2, 2.0, "nearest", inline=True)
    c.add("interpolate_one_scale_bilinear", interp_one_scale, x2, 0.5, "bilinear", inline=True)
    c.add("interpolate_mode_error", interp_size, x2, [4, 4], "linear", False, False, inline=True)
    c.add("interpolate_align_error", interp_size, x2, [4, 4], "nearest", True, False, inline=True)
    c.add("interpolate_antialias_error", interp_size, x3, [4, 4, 4], "trilinear", False, True, inline=True)
    c.add("interpolate_size_error", interp_size, x2, [4, 4, 4], "nearest", None, False, inline=True)
    c.add("interpolate_recompute_error", interp_scale, x2, [2.0], "nearest", None, None, inline=True)
    c.add("interpolate_unknown_mode_error", interp_size, x2, [4, 4], "cubic", None, False, inline=True)


def cases(c):
    explicit_cases(c)
    vec_cases(c)
    interpolate_cases(c)
