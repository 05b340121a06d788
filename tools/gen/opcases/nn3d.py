"""Volumetric (3-d) neural-network operators of video and medical models: conv3d and
conv_transpose3d (the functional forms and aten::convolution / _convolution with 3-d
weights), max/avg pooling and adaptive pooling in 3-d, and batch/instance/group norm on 5-d
inputs, with PyTorch's error messages."""

from typing import List, Optional

import torch
import torch.nn.functional as F


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    return torch.randint(-3, 4, shape, dtype=dtype)


# Convolutions sum C*k^3 products: float32 sums of up to ~100 terms differ from PyTorch's
# blocked order in the last bits.
SUM = dict(rtol=1e-4, atol=1e-5)


def conv_cases(c):
    def conv3d(x, w, b: Optional[torch.Tensor], stride: List[int], padding: List[int], dilation: List[int], groups: int):
        return F.conv3d(x, w, b, stride, padding, dilation, groups)

    c.add("conv3d", conv3d, r(1, 3, 5, 6, 7), r(4, 3, 3, 3, 3), r(4), [1], [0], [1], 1, **SUM)
    c.add("conv3d_pad_stride", conv3d, r(2, 2, 6, 5, 7), r(3, 2, 3, 2, 3), r(3), [2, 1, 2], [1, 0, 1], [1], 1, **SUM)
    c.add("conv3d_dilation", conv3d, r(1, 2, 7, 7, 7), r(2, 2, 3, 3, 3), None, [1], [2], [2, 1, 2], 1, **SUM)
    c.add("conv3d_groups", conv3d, r(1, 4, 4, 5, 5), r(6, 2, 3, 3, 3), r(6), [1], [1], [1], 2, **SUM)
    c.add("conv3d_depthwise", conv3d, r(2, 3, 4, 5, 5), r(3, 1, 3, 3, 3), r(3), [1], [1], [1], 3, **SUM)
    c.add("conv3d_pointwise", conv3d, r(2, 4, 3, 3, 3), r(5, 4, 1, 1, 1), r(5), [1], [0], [1], 1, **SUM)
    c.add("conv3d_temporal", conv3d, r(1, 4, 6, 5, 5), r(3, 4, 3, 1, 1), None, [1], [1, 0, 0], [1], 1, **SUM)
    c.add("conv3d_spatial", conv3d, r(1, 4, 3, 8, 8), r(3, 4, 1, 3, 3), None, [1, 2, 2], [0, 1, 1], [1], 1, **SUM)
    c.add("conv3d_unbatched", conv3d, r(3, 4, 5, 5), r(2, 3, 3, 3, 3), None, [1], [0], [1], 1, **SUM)
    c.add("conv3d_noncontig", conv3d, r(1, 4, 5, 5, 2).permute(0, 4, 1, 2, 3), r(2, 2, 3, 3, 3), None, [1], [1], [1], 1, **SUM)
    c.add("conv3d_float64", conv3d, r(1, 2, 4, 4, 4, dtype=torch.float64), r(2, 2, 3, 3, 3, dtype=torch.float64), r(2, dtype=torch.float64), [1], [1], [1], 1)
    c.add("conv3d_bfloat16", conv3d, r(1, 2, 4, 4, 4, dtype=torch.bfloat16), r(2, 2, 2, 2, 2, dtype=torch.bfloat16), None, [1], [0], [1], 1)
    c.add("conv3d_zero_batch", conv3d, r(0, 3, 5, 5, 5), r(4, 3, 3, 3, 3), r(4), [1], [0], [1], 1)
    c.add("conv3d_large", conv3d, r(1, 16, 8, 28, 28), r(16, 16, 3, 3, 3), r(16), [1], [1], [1], 1, **SUM)
    c.add("conv3d_channels_error", conv3d, r(1, 2, 5, 5, 5), r(4, 3, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv3d_rank_error", conv3d, r(5, 5), r(4, 3, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv3d_kernel_error", conv3d, r(1, 3, 2, 5, 5), r(4, 3, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv3d_stride_error", conv3d, r(1, 3, 5, 5, 5), r(4, 3, 3, 3, 3), None, [0], [0], [1], 1)
    c.add("conv3d_param_len_error", conv3d, r(1, 3, 5, 5, 5), r(4, 3, 3, 3, 3), None, [1, 1], [0], [1], 1)

    def conv3d_same(x, w):
        return F.conv3d(x, w, None, 1, "same")

    c.add("conv3d_same", conv3d_same, r(1, 2, 5, 6, 4), r(3, 2, 3, 2, 4), **SUM)

    def conv_t3d(x, w, b: Optional[torch.Tensor], stride: List[int], padding: List[int], output_padding: List[int], groups: int, dilation: List[int]):
        return F.conv_transpose3d(x, w, b, stride, padding, output_padding, groups, dilation)

    c.add("conv_transpose3d", conv_t3d, r(1, 3, 3, 4, 4), r(3, 2, 3, 3, 3), r(2), [1], [0], [0], 1, [1], **SUM)
    c.add("conv_transpose3d_stride", conv_t3d, r(2, 2, 3, 3, 4), r(2, 3, 3, 2, 2), r(3), [2, 1, 2], [1, 0, 0], [1, 0, 1], 1, [1], **SUM)
    c.add("conv_transpose3d_groups", conv_t3d, r(1, 4, 3, 3, 3), r(4, 2, 2, 2, 2), None, [2], [0], [0], 2, [1], **SUM)
    c.add("conv_transpose3d_dilation", conv_t3d, r(1, 2, 3, 3, 3), r(2, 2, 2, 3, 2), None, [1], [1], [0], 1, [2], **SUM)
    c.add("conv_transpose3d_unbatched", conv_t3d, r(2, 3, 3, 3), r(2, 2, 2, 2, 2), None, [1], [0], [0], 1, [1], **SUM)
    c.add("conv_transpose3d_outpad_error", conv_t3d, r(1, 3, 3, 3, 3), r(3, 4, 3, 3, 3), None, [1], [0], [1], 1, [1])

    def convolution(x, w, b: Optional[torch.Tensor], transposed: bool):
        return torch.ops.aten.convolution(x, w, b, [1, 1, 1], [1, 1, 1], [1, 1, 1], transposed, [0, 0, 0], 1)

    def _convolution(x, w, b: Optional[torch.Tensor]):
        return torch._convolution(x, w, b, [2, 2, 2], [1, 1, 1], [1, 1, 1], False, [0, 0, 0], 1, False, False, True, True)

    c.add("convolution3d", convolution, r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3), r(3), False, **SUM)
    c.add("convolution3d_transposed", convolution, r(1, 2, 4, 4, 4), r(2, 3, 3, 3, 3), r(3), True, **SUM)
    c.add("_convolution3d", _convolution, r(1, 2, 5, 5, 5), r(3, 2, 3, 3, 3), r(3), **SUM)


def pool_cases(c):
    def max_pool3d(x, k: List[int], s: List[int], p: List[int], d: List[int], ceil: bool):
        return torch.max_pool3d(x, k, s, p, d, ceil)

    def max_pool3d_functional(x):
        return F.max_pool3d(x, 3, 2, 1, ceil_mode=True), F.max_pool3d(x, 2, return_indices=True)

    def max_pool3d_indices(x, k: List[int], s: List[int], p: List[int], d: List[int], ceil: bool):
        return torch.ops.aten.max_pool3d_with_indices(x, k, s, p, d, ceil)

    x = r(1, 2, 5, 6, 7)
    c.add("max_pool3d", max_pool3d, r(2, 2, 4, 4, 4), [2], [], [0], [1], False)
    c.add("max_pool3d_stride_pad", max_pool3d, x, [3, 2, 3], [2, 1, 2], [1, 1, 1], [1], False)
    c.add("max_pool3d_ceil", max_pool3d, x, [2], [2], [0], [1], True)
    c.add("max_pool3d_dilation", max_pool3d, r(1, 1, 7, 7, 7), [3], [1], [1], [2], False)
    c.add("max_pool3d_temporal", max_pool3d, x, [1, 3, 3], [1, 2, 2], [0, 1, 1], [1], False)
    c.add("max_pool3d_unbatched", max_pool3d, r(2, 4, 4, 4), [2], [], [0], [1], False)
    c.add("max_pool3d_noncontig", max_pool3d, r(1, 4, 4, 4, 2).permute(0, 4, 1, 2, 3), [2], [1], [0], [1], False)
    nan = r(1, 1, 4, 4, 4)
    nan[0, 0, 1, 1, 1] = float("nan")
    c.add("max_pool3d_nan", max_pool3d_indices, nan, [2], [], [0], [1], False)
    c.add("max_pool3d_indices", max_pool3d_indices, x, [3], [2], [1], [1], True)
    c.add("max_pool3d_int64", max_pool3d, r(1, 1, 4, 4, 4, dtype=torch.int64), [2], [], [0], [1], False)
    c.add("max_pool3d_float64", max_pool3d_indices, r(1, 1, 4, 4, 4, dtype=torch.float64), [2], [1], [0], [1], False)
    c.add("max_pool3d_bfloat16", max_pool3d, r(1, 2, 4, 4, 4, dtype=torch.bfloat16), [2], [], [0], [1], False)
    c.add("max_pool3d_pad_error", max_pool3d, x, [3], [1], [2], [1], False)
    c.add("max_pool3d_small_error", max_pool3d, r(1, 2, 2, 2), [3], [], [0], [1], False)
    c.add("max_pool3d_functional", max_pool3d_functional, x, inline=True)
    c.add("max_pool3d_stride_error", max_pool3d, x, [2], [0], [0], [1], False)
    c.add("max_pool3d_kernel_error", max_pool3d, x, [2, 2], [], [0], [1], False)
    c.add("max_pool3d_dim_error", max_pool3d, r(5, 5), [2], [], [0], [1], False)
    c.add("max_pool3d_bool_error", max_pool3d, r(1, 1, 4, 4, 4) > 0, [2], [], [0], [1], False)

    def avg_pool3d(x, k: List[int], s: List[int], p: List[int], ceil: bool, include: bool, div: Optional[int]):
        return F.avg_pool3d(x, k, s, p, ceil, include, div)

    c.add("avg_pool3d", avg_pool3d, r(2, 2, 4, 4, 4), [2], [], [0], False, True, None)
    c.add("avg_pool3d_pad", avg_pool3d, x, [3], [2], [1], False, True, None)
    c.add("avg_pool3d_pad_exclude", avg_pool3d, x, [3], [2], [1], False, False, None)
    c.add("avg_pool3d_ceil", avg_pool3d, x, [2], [2], [0], True, True, None)
    c.add("avg_pool3d_ceil_exclude", avg_pool3d, r(1, 1, 6, 6, 6), [3], [2], [1], True, False, None)
    c.add("avg_pool3d_divisor", avg_pool3d, x, [2, 3, 2], [1, 2, 2], [1, 1, 0], False, True, 5)
    c.add("avg_pool3d_temporal", avg_pool3d, x, [2, 1, 1], [2, 1, 1], [0], False, True, None)
    c.add("avg_pool3d_unbatched", avg_pool3d, r(2, 4, 4, 4), [2], [], [0], False, True, None)
    c.add("avg_pool3d_float64", avg_pool3d, r(1, 1, 4, 4, 4, dtype=torch.float64), [3], [1], [1], False, False, None)
    c.add("avg_pool3d_float16", avg_pool3d, r(1, 2, 4, 4, 4, dtype=torch.float16), [2], [], [0], False, True, None)
    c.add("avg_pool3d_int64", avg_pool3d, r(1, 1, 4, 4, 4, dtype=torch.int64) * 3, [2], [], [0], False, True, None)
    c.add("avg_pool3d_divisor_error", avg_pool3d, x, [2], [], [0], False, True, 0)
    c.add("avg_pool3d_small_error", avg_pool3d, r(1, 2, 2, 2), [3], [], [0], False, True, None)
    c.add("avg_pool3d_dim_error", avg_pool3d, r(5, 5), [2], [], [0], False, True, None)
    c.add("avg_pool3d_pad_error", avg_pool3d, x, [3], [1], [2], False, True, None)

    def adaptive_avg(x, o: List[int]):
        return torch._C._nn.adaptive_avg_pool3d(x, o)

    def adaptive_max(x, o: List[int]):
        return torch._C._nn.adaptive_max_pool3d(x, o)

    c.add("adaptive_avg_pool3d", adaptive_avg, r(1, 2, 5, 7, 6), [3, 2, 4])
    c.add("adaptive_avg_pool3d_global", adaptive_avg, r(2, 3, 4, 4, 4), [1, 1, 1])
    c.add("adaptive_avg_pool3d_upsample", adaptive_avg, r(1, 1, 2, 3, 2), [4, 5, 3])
    c.add("adaptive_avg_pool3d_unbatched", adaptive_avg, r(2, 5, 5, 5), [2, 2, 2])
    c.add("adaptive_avg_pool3d_float64", adaptive_avg, r(1, 1, 5, 5, 5, dtype=torch.float64), [3, 3, 3])
    c.add("adaptive_avg_pool3d_bfloat16", adaptive_avg, r(1, 1, 5, 5, 5, dtype=torch.bfloat16), [3, 2, 3])
    c.add("adaptive_avg_pool3d_zero_out", adaptive_avg, r(1, 1, 4, 4, 4), [0, 2, 2])
    c.add("adaptive_avg_pool3d_dim_error", adaptive_avg, r(4, 4), [2, 2, 2])
    c.add("adaptive_avg_pool3d_empty_error", adaptive_avg, r(1, 1, 0, 4, 4), [2, 2, 2])
    c.add("adaptive_avg_pool3d_size_error", adaptive_avg, r(1, 1, 4, 4, 4), [2, 2])
    c.add("adaptive_avg_pool3d_int_error", adaptive_avg, r(1, 1, 4, 4, 4, dtype=torch.int64), [2, 2, 2])
    c.add("adaptive_max_pool3d", adaptive_max, r(1, 2, 5, 7, 6), [3, 2, 4])
    c.add("adaptive_max_pool3d_unbatched", adaptive_max, r(2, 4, 4, 4), [2, 2, 2])
    c.add("adaptive_max_pool3d_dim_error", adaptive_max, r(4, 4), [2, 2, 2])
    c.add("adaptive_max_pool3d_int_error", adaptive_max, r(1, 1, 4, 4, 4, dtype=torch.int64), [2, 2, 2])

    def module_pools(x):
        a = F.adaptive_avg_pool3d(x, (1, 2, 2))
        m, i = F.adaptive_max_pool3d(x, 2, return_indices=True)
        return a, m, i

    c.add("adaptive_pool3d_functional", module_pools, r(1, 2, 4, 5, 6), inline=True)


def norm_cases(c):
    def batch_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor], rm: Optional[torch.Tensor], rv: Optional[torch.Tensor], training: bool):
        return torch.batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5, False)

    m, v = r(3), torch.rand(3) + 0.5
    c.add("batch_norm3d_eval", batch_norm, r(2, 3, 2, 3, 4), r(3), r(3), m, v, False)
    c.add("batch_norm3d_train", batch_norm, r(2, 3, 2, 3, 4), r(3), r(3), m, v, True)
    c.add("batch_norm3d_noncontig", batch_norm, r(2, 2, 3, 4, 3).permute(0, 4, 1, 2, 3), None, None, m, v, False)

    def instance_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor]):
        return torch.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False)

    c.add("instance_norm3d", instance_norm, r(2, 3, 2, 3, 4), r(3), r(3))

    def group_norm(x, groups: int, w: Optional[torch.Tensor], b: Optional[torch.Tensor]):
        return torch.group_norm(x, groups, w, b, 1e-5, False)

    c.add("group_norm3d", group_norm, r(2, 6, 2, 3, 2), 3, r(6), r(6))

    def modules(x):
        return F.instance_norm(F.batch_norm(x, torch.zeros(3), torch.ones(3)))

    c.add("norm3d_functional", modules, r(2, 3, 2, 2, 3), inline=True)


def cases(c):
    conv_cases(c)
    pool_cases(c)
    norm_cases(c)
