"""Neural-network operators: convolutions (1-d, 2-d, transposed, the aten::_convolution form
traced models use), pooling, normalization and embedding, with PyTorch's error messages."""

from typing import List, Optional

import torch
import torch.nn.functional as F


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    return torch.randint(-3, 4, shape, dtype=dtype)


def conv_cases(c):
    def conv2d(x, w, b: Optional[torch.Tensor], stride: List[int], padding: List[int], dilation: List[int], groups: int):
        return F.conv2d(x, w, b, stride, padding, dilation, groups)

    c.add("conv2d", conv2d, r(1, 3, 5, 5), r(4, 3, 3, 3), r(4), [1], [0], [1], 1)
    c.add("conv2d_pad_stride", conv2d, r(2, 3, 6, 5), r(4, 3, 3, 2), r(4), [2, 1], [1, 2], [1], 1)
    c.add("conv2d_dilation", conv2d, r(1, 2, 7, 7), r(3, 2, 3, 3), None, [1], [2], [2, 1], 1)
    c.add("conv2d_groups", conv2d, r(1, 4, 5, 5), r(6, 2, 3, 3), r(6), [1], [1], [1], 2)
    c.add("conv2d_depthwise", conv2d, r(2, 3, 5, 5), r(3, 1, 3, 3), r(3), [1], [1], [1], 3)
    c.add("conv2d_depthwise_mult", conv2d, r(1, 2, 6, 6), r(4, 1, 3, 3), None, [2], [1], [1], 2)
    c.add("conv2d_pointwise", conv2d, r(2, 4, 3, 3), r(5, 4, 1, 1), r(5), [1], [0], [1], 1)
    c.add("conv2d_pointwise_groups", conv2d, r(1, 4, 3, 3), r(4, 2, 1, 1), None, [1], [0], [1], 2)
    c.add("conv2d_pointwise_stride", conv2d, r(1, 4, 5, 5), r(3, 4, 1, 1), None, [2], [0], [1], 1)
    c.add("conv2d_long_reduction", conv2d, r(1, 8, 6, 6), r(4, 8, 3, 3), r(4), [1], [1], [1], 1, rtol=1e-4, atol=1e-5)
    c.add("conv2d_unbatched", conv2d, r(3, 5, 5), r(2, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv2d_noncontig", conv2d, r(1, 5, 5, 3).permute(0, 3, 1, 2), r(2, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv2d_float64", conv2d, r(1, 2, 4, 4, dtype=torch.float64), r(2, 2, 3, 3, dtype=torch.float64), r(2, dtype=torch.float64), [1], [1], [1], 1)
    c.add("conv2d_int64", conv2d, r(1, 2, 4, 4, dtype=torch.int64), r(2, 2, 3, 3, dtype=torch.int64), None, [1], [0], [1], 1)
    c.add("conv2d_bfloat16", conv2d, r(1, 2, 4, 4, dtype=torch.bfloat16), r(2, 2, 3, 3, dtype=torch.bfloat16), None, [1], [0], [1], 1)
    c.add("conv2d_float16", conv2d, r(1, 2, 4, 4, dtype=torch.float16), r(2, 2, 3, 3, dtype=torch.float16), r(2, dtype=torch.float16), [1], [1], [1], 1)
    c.add("conv2d_zero_batch", conv2d, r(0, 3, 5, 5), r(4, 3, 3, 3), r(4), [1], [0], [1], 1)
    c.add("conv2d_channels_error", conv2d, r(1, 2, 5, 5), r(4, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv2d_rank_error", conv2d, r(5, 5), r(4, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv2d_kernel_error", conv2d, r(1, 3, 2, 2), r(4, 3, 3, 3), None, [1], [0], [1], 1)
    c.add("conv2d_groups_error", conv2d, r(1, 4, 5, 5), r(3, 2, 3, 3), None, [1], [0], [1], 2)
    c.add("conv2d_bias_error", conv2d, r(1, 3, 5, 5), r(4, 3, 3, 3), r(3), [1], [0], [1], 1)
    c.add("conv2d_stride_error", conv2d, r(1, 3, 5, 5), r(4, 3, 3, 3), None, [0], [0], [1], 1)
    c.add("conv2d_padding_error", conv2d, r(1, 3, 5, 5), r(4, 3, 3, 3), None, [1], [-1], [1], 1)
    c.add("conv2d_dtype_error", conv2d, r(1, 3, 5, 5), r(4, 3, 3, 3, dtype=torch.float64), None, [1], [0], [1], 1)

    def conv2d_same(x, w, b: Optional[torch.Tensor]):
        return F.conv2d(x, w, b, 1, "same")

    def conv2d_same_dilated(x, w):
        return F.conv2d(x, w, None, 1, "same", 2)

    def conv2d_valid(x, w):
        return F.conv2d(x, w, None, 1, "valid")

    def conv2d_same_strided(x, w):
        return F.conv2d(x, w, None, 2, "same")

    c.add("conv2d_same", conv2d_same, r(1, 2, 5, 5), r(3, 2, 3, 3), r(3))
    c.add("conv2d_same_even_kernel", conv2d_same, r(1, 2, 5, 4), r(3, 2, 2, 4), None)
    c.add("conv2d_same_dilated", conv2d_same_dilated, r(1, 2, 6, 6), r(2, 2, 2, 3))
    c.add("conv2d_valid", conv2d_valid, r(1, 2, 5, 5), r(3, 2, 3, 3))
    c.add("conv2d_same_strided_error", conv2d_same_strided, r(1, 2, 5, 5), r(3, 2, 3, 3))

    def conv1d(x, w, b: Optional[torch.Tensor], stride: List[int], padding: List[int], dilation: List[int], groups: int):
        return F.conv1d(x, w, b, stride, padding, dilation, groups)

    c.add("conv1d", conv1d, r(2, 3, 7), r(4, 3, 3), r(4), [1], [0], [1], 1)
    c.add("conv1d_all", conv1d, r(1, 4, 9), r(4, 2, 3), r(4), [2], [2], [2], 2)
    c.add("conv1d_depthwise", conv1d, r(1, 3, 6), r(3, 1, 2), None, [1], [1], [1], 3)
    c.add("conv1d_unbatched", conv1d, r(3, 7), r(4, 3, 3), None, [1], [0], [1], 1)
    c.add("conv1d_rank_error", conv1d, r(1, 3, 5, 5), r(4, 3, 3), None, [1], [0], [1], 1)

    def conv1d_same(x, w):
        return F.conv1d(x, w, None, 1, "same")

    c.add("conv1d_same", conv1d_same, r(1, 2, 6), r(3, 2, 4))

    def conv_t2d(x, w, b: Optional[torch.Tensor], stride: List[int], padding: List[int], output_padding: List[int], groups: int, dilation: List[int]):
        return F.conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation)

    c.add("conv_transpose2d", conv_t2d, r(1, 3, 4, 4), r(3, 2, 3, 3), r(2), [1], [0], [0], 1, [1])
    c.add("conv_transpose2d_stride", conv_t2d, r(2, 2, 3, 4), r(2, 3, 3, 2), r(3), [2, 3], [1, 0], [1, 2], 1, [1])
    c.add("conv_transpose2d_groups", conv_t2d, r(1, 4, 3, 3), r(4, 2, 2, 2), None, [2], [0], [0], 2, [1])
    c.add("conv_transpose2d_dilation", conv_t2d, r(1, 2, 3, 3), r(2, 2, 3, 3), None, [1], [1], [0], 1, [2])
    c.add("conv_transpose2d_unbatched", conv_t2d, r(2, 3, 3), r(2, 2, 2, 2), None, [1], [0], [0], 1, [1])
    c.add("conv_transpose2d_channels_error", conv_t2d, r(1, 2, 5, 5), r(3, 4, 3, 3), None, [1], [0], [0], 1, [1])
    c.add("conv_transpose2d_outpad_error", conv_t2d, r(1, 3, 5, 5), r(3, 4, 3, 3), None, [1], [0], [1], 1, [1])

    def conv_t1d(x, w, b: Optional[torch.Tensor]):
        return F.conv_transpose1d(x, w, b, 2, 1, 1)

    c.add("conv_transpose1d", conv_t1d, r(1, 3, 5), r(3, 2, 3), r(2))

    # The forms traced models carry.
    def convolution(x, w, b: Optional[torch.Tensor], transposed: bool):
        return torch.ops.aten.convolution(x, w, b, [1, 1], [1, 1], [1, 1], transposed, [0, 0], 1)

    def _convolution(x, w, b: Optional[torch.Tensor]):
        return torch._convolution(x, w, b, [2, 2], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True)

    c.add("convolution", convolution, r(1, 2, 4, 4), r(3, 2, 3, 3), r(3), False)
    c.add("convolution_transposed", convolution, r(1, 2, 4, 4), r(2, 3, 3, 3), r(3), True)
    c.add("convolution_rank_error", convolution, r(2, 4, 4), r(3, 2, 3, 3), None, False)
    c.add("_convolution", _convolution, r(1, 2, 5, 5), r(3, 2, 3, 3), r(3))


def pool_cases(c):
    def max_pool2d(x, k: List[int], s: List[int], p: List[int], d: List[int], ceil: bool):
        return torch.max_pool2d(x, k, s, p, d, ceil)

    def max_pool2d_indices(x, k: List[int], s: List[int], p: List[int], d: List[int], ceil: bool):
        return torch.ops.aten.max_pool2d_with_indices(x, k, s, p, d, ceil)

    x = r(1, 2, 5, 5)
    c.add("max_pool2d", max_pool2d, r(2, 2, 4, 4), [2], [], [0], [1], False)
    c.add("max_pool2d_stride_pad", max_pool2d, x, [3, 2], [2, 1], [1, 1], [1], False)
    c.add("max_pool2d_ceil", max_pool2d, x, [2], [2], [0], [1], True)
    c.add("max_pool2d_ceil_pad", max_pool2d, r(1, 1, 6, 6), [3], [2], [1], [1], True)
    c.add("max_pool2d_dilation", max_pool2d, r(1, 1, 7, 7), [3], [1], [1], [2], False)
    c.add("max_pool2d_unbatched", max_pool2d, r(2, 4, 4), [2], [], [0], [1], False)
    c.add("max_pool2d_noncontig", max_pool2d, r(1, 4, 4, 2).permute(0, 3, 1, 2), [2], [1], [0], [1], False)
    nan = r(1, 1, 4, 4)
    nan[0, 0, 1, 1] = float("nan")
    c.add("max_pool2d_nan", max_pool2d_indices, nan, [2], [], [0], [1], False)
    c.add("max_pool2d_indices", max_pool2d_indices, x, [3], [2], [1], [1], True)
    c.add("max_pool2d_int64", max_pool2d, r(1, 1, 4, 4, dtype=torch.int64), [2], [], [0], [1], False)
    c.add("max_pool2d_float64", max_pool2d_indices, r(1, 1, 4, 4, dtype=torch.float64), [2], [1], [0], [1], False)
    c.add("max_pool2d_bfloat16", max_pool2d_indices, r(1, 2, 4, 4, dtype=torch.bfloat16), [2], [], [0], [1], False)
    c.add("max_pool2d_zero_batch", max_pool2d, r(0, 1, 4, 4), [2], [], [0], [1], False)
    c.add("max_pool2d_pad_error", max_pool2d, x, [3], [1], [2], [1], False)
    c.add("max_pool2d_small_error", max_pool2d, r(1, 2, 2), [3], [], [0], [1], False)
    c.add("max_pool2d_stride_error", max_pool2d, x, [2], [0], [0], [1], False)
    c.add("max_pool2d_kernel_error", max_pool2d, x, [2, 2, 2], [], [0], [1], False)
    c.add("max_pool2d_dim_error", max_pool2d, r(5, 5), [2], [], [0], [1], False)
    c.add("max_pool2d_empty_error", max_pool2d, r(1, 0, 4, 4), [2], [], [0], [1], False)
    c.add("max_pool2d_bool_error", max_pool2d, r(1, 1, 4, 4) > 0, [2], [], [0], [1], False)

    def avg_pool2d(x, k: List[int], s: List[int], p: List[int], ceil: bool, include: bool, div: Optional[int]):
        return F.avg_pool2d(x, k, s, p, ceil, include, div)

    c.add("avg_pool2d", avg_pool2d, r(2, 2, 4, 4), [2], [], [0], False, True, None)
    c.add("avg_pool2d_pad", avg_pool2d, x, [3], [2], [1], False, True, None)
    c.add("avg_pool2d_pad_exclude", avg_pool2d, x, [3], [2], [1], False, False, None)
    c.add("avg_pool2d_ceil", avg_pool2d, x, [2], [2], [0], True, True, None)
    c.add("avg_pool2d_ceil_pad", avg_pool2d, r(1, 1, 6, 6), [3], [2], [1], True, True, None)
    c.add("avg_pool2d_ceil_exclude", avg_pool2d, r(1, 1, 6, 6), [3], [2], [1], True, False, None)
    c.add("avg_pool2d_divisor", avg_pool2d, x, [2, 3], [1, 2], [1, 1], False, True, 5)
    c.add("avg_pool2d_unbatched", avg_pool2d, r(2, 4, 4), [2], [], [0], False, True, None)
    c.add("avg_pool2d_int64", avg_pool2d, r(1, 1, 4, 4, dtype=torch.int64) * 3, [2], [], [0], False, True, None)
    c.add("avg_pool2d_float64", avg_pool2d, r(1, 1, 4, 4, dtype=torch.float64), [3], [1], [1], False, False, None)
    c.add("avg_pool2d_float16", avg_pool2d, r(1, 2, 4, 4, dtype=torch.float16), [2], [], [0], False, True, None)
    c.add("avg_pool2d_divisor_error", avg_pool2d, x, [2], [], [0], False, True, 0)
    c.add("avg_pool2d_small_error", avg_pool2d, r(1, 2, 2), [3], [], [0], False, True, None)
    c.add("avg_pool2d_dim_error", avg_pool2d, r(5, 5), [2], [], [0], False, True, None)
    c.add("avg_pool2d_pad_error", avg_pool2d, x, [3], [1], [2], False, True, None)

    def adaptive_avg(x, o: List[int]):
        return torch._C._nn.adaptive_avg_pool2d(x, o)

    def adaptive_max(x, o: List[int]):
        return torch._C._nn.adaptive_max_pool2d(x, o)

    c.add("adaptive_avg_pool2d", adaptive_avg, r(1, 2, 5, 7), [3, 2])
    c.add("adaptive_avg_pool2d_global", adaptive_avg, r(2, 3, 4, 4), [1, 1])
    # 63 elements a plane: one whole group of the vector sum's lanes and a masked rest.
    c.add("adaptive_avg_pool2d_global_wide", adaptive_avg, r(1, 5, 7, 9), [1, 1])
    c.add("adaptive_avg_pool2d_whole_rows", adaptive_avg, r(1, 3, 7, 5), [3, 1])
    c.add("adaptive_avg_pool2d_upsample", adaptive_avg, r(1, 1, 2, 3), [4, 5])
    c.add("adaptive_avg_pool2d_unbatched", adaptive_avg, r(2, 5, 5), [2, 2])
    c.add("adaptive_avg_pool2d_float64", adaptive_avg, r(1, 1, 5, 5, dtype=torch.float64), [3, 3])
    c.add("adaptive_avg_pool2d_zero_out", adaptive_avg, r(1, 1, 4, 4), [0, 2])
    c.add("adaptive_avg_pool2d_dim_error", adaptive_avg, r(4, 4), [2, 2])
    c.add("adaptive_avg_pool2d_empty_error", adaptive_avg, r(1, 1, 0, 4), [2, 2])
    c.add("adaptive_max_pool2d", adaptive_max, r(1, 2, 5, 7), [3, 2])
    c.add("adaptive_max_pool2d_unbatched", adaptive_max, r(2, 4, 4), [2, 2])
    c.add("adaptive_max_pool2d_dim_error", adaptive_max, r(4, 4), [2, 2])
    c.add("adaptive_max_pool2d_int_error", adaptive_max, r(1, 1, 4, 4, dtype=torch.int64), [2, 2])

    def max_pool1d(x, k: int, s: int, p: int, d: int, ceil: bool):
        return torch.max_pool1d(x, k, s, p, d, ceil)

    def max_pool1d_indices(x, k: int, s: int):
        return torch.max_pool1d_with_indices(x, k, s)

    def avg_pool1d(x, k: int, s: int, p: int, ceil: bool, include: bool):
        return F.avg_pool1d(x, k, s, p, ceil, include)

    c.add("max_pool1d", max_pool1d, r(2, 3, 7), 3, 2, 1, 1, False)
    c.add("max_pool1d_ceil_dilation", max_pool1d, r(1, 2, 8), 2, 2, 0, 2, True)
    c.add("max_pool1d_unbatched", max_pool1d, r(2, 6), 2, 2, 0, 1, False)
    c.add("max_pool1d_indices", max_pool1d_indices, r(1, 2, 7), 3, 2)
    c.add("max_pool1d_size_error", max_pool1d, r(1, 4), 5, 5, 0, 1, False)
    c.add("max_pool1d_dim_error", max_pool1d, r(1, 1, 1, 4), 2, 2, 0, 1, False)
    c.add("avg_pool1d", avg_pool1d, r(2, 3, 7), 3, 2, 1, False, True)
    c.add("avg_pool1d_exclude_ceil", avg_pool1d, r(1, 2, 8), 3, 2, 1, True, False)
    c.add("avg_pool1d_size_error", avg_pool1d, r(1, 4), 5, 5, 0, False, True)
    c.add("avg_pool1d_dim_error", avg_pool1d, r(1, 1, 1, 4), 2, 2, 0, False, True)

    def adaptive_avg1d(x, o: int):
        return torch.adaptive_avg_pool1d(x, [o])

    def adaptive_max1d(x, o: int):
        return torch.adaptive_max_pool1d(x, [o])

    c.add("adaptive_avg_pool1d", adaptive_avg1d, r(1, 2, 7), 3)
    c.add("adaptive_max_pool1d", adaptive_max1d, r(1, 2, 7), 3)


def norm_cases(c):
    def batch_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor], rm: Optional[torch.Tensor], rv: Optional[torch.Tensor], training: bool, momentum: float, eps: float):
        return torch.batch_norm(x, w, b, rm, rv, training, momentum, eps, False)

    def stats(ch):
        return r(ch), torch.rand(ch) + 0.5

    m, v = stats(3)
    c.add("batch_norm_eval", batch_norm, r(2, 3, 2, 2), r(3), r(3), m, v, False, 0.1, 1e-5)
    c.add("batch_norm_eval_no_affine", batch_norm, r(2, 3, 4), None, None, m, v, False, 0.1, 1e-3)
    c.add("batch_norm_eval_2d", batch_norm, r(4, 3), r(3), r(3), m, v, False, 0.1, 1e-5)
    c.add("batch_norm_eval_noncontig", batch_norm, r(2, 2, 2, 3).permute(0, 3, 1, 2), r(3), None, m, v, False, 0.1, 1e-5)
    c.add("batch_norm_train", batch_norm, r(4, 3, 2, 2), r(3), r(3), m, v, True, 0.1, 1e-5)
    c.add("batch_norm_train_momentum", batch_norm, r(3, 3, 5), None, None, m, v, True, 0.3, 1e-5)
    c.add("batch_norm_train_no_stats", batch_norm, r(4, 3, 2), r(3), r(3), None, None, True, 0.1, 1e-5)
    m64, v64 = stats(3)
    c.add("batch_norm_float64", batch_norm, r(2, 3, 2, dtype=torch.float64), r(3, dtype=torch.float64), r(3, dtype=torch.float64), m64.double(), v64.double(), True, 0.1, 1e-5)
    c.add("batch_norm_bfloat16_mixed", batch_norm, r(2, 3, 2, dtype=torch.bfloat16), r(3), r(3), m, v, False, 0.1, 1e-5)
    c.add("batch_norm_zero_batch", batch_norm, r(0, 3, 2), r(3), r(3), m, v, False, 0.1, 1e-5)
    c.add("batch_norm_stats_error", batch_norm, r(2, 3), None, None, r(4), r(4), False, 0.1, 1e-5)
    c.add("batch_norm_weight_error", batch_norm, r(2, 3), r(4), None, m, v, False, 0.1, 1e-5)
    c.add("batch_norm_eval_undefined_error", batch_norm, r(2, 3), None, None, None, None, False, 0.1, 1e-5)
    c.add("batch_norm_int_error", batch_norm, r(2, 3, dtype=torch.int64), None, None, m, v, False, 0.1, 1e-5)
    c.add("batch_norm_mixed_error", batch_norm, r(2, 3, dtype=torch.float64), None, None, m, v, False, 0.1, 1e-5)

    def native_batch_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor], rm: Optional[torch.Tensor], rv: Optional[torch.Tensor], training: bool):
        return torch.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)

    c.add("native_batch_norm_eval", native_batch_norm, r(2, 3, 2), r(3), r(3), m, v, False)
    c.add("native_batch_norm_train", native_batch_norm, r(2, 3, 2), r(3), r(3), m, v, True)

    def bn_no_training(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor], rm, rv):
        return torch._native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 1e-5)

    c.add("native_batch_norm_legit_no_training", bn_no_training, r(2, 3, 2), r(3), r(3), m, v)

    def layer_norm(x, shape: List[int], w: Optional[torch.Tensor], b: Optional[torch.Tensor], eps: float):
        return torch.layer_norm(x, shape, w, b, eps, False)

    c.add("layer_norm", layer_norm, r(2, 3, 4), [4], r(4), r(4), 1e-5)
    c.add("layer_norm_two_dims", layer_norm, r(2, 3, 4), [3, 4], r(3, 4), None, 1e-5)
    c.add("layer_norm_no_affine", layer_norm, r(3, 5), [5], None, None, 1e-3)
    c.add("layer_norm_noncontig", layer_norm, r(4, 3).t(), [4], r(4), r(4), 1e-5)
    c.add("layer_norm_float64", layer_norm, r(2, 4, dtype=torch.float64), [4], r(4, dtype=torch.float64), r(4, dtype=torch.float64), 1e-5)
    c.add("layer_norm_bfloat16", layer_norm, r(2, 4, dtype=torch.bfloat16), [4], r(4, dtype=torch.bfloat16), r(4, dtype=torch.bfloat16), 1e-5)
    c.add("layer_norm_zero_rows", layer_norm, r(0, 4), [4], r(4), r(4), 1e-5)
    c.add("layer_norm_shape_error", layer_norm, r(2, 3), [4], None, None, 1e-5)
    c.add("layer_norm_weight_error", layer_norm, r(2, 3), [3], r(4), None, 1e-5)
    c.add("layer_norm_int_error", layer_norm, r(2, 3, dtype=torch.int64), [3], None, None, 1e-5)

    def native_layer_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor]):
        return torch.native_layer_norm(x, [2, 3], w, b, 1e-5)

    c.add("native_layer_norm", native_layer_norm, r(2, 2, 3), r(2, 3), r(2, 3))

    def group_norm(x, groups: int, w: Optional[torch.Tensor], b: Optional[torch.Tensor]):
        return torch.group_norm(x, groups, w, b, 1e-5, False)

    c.add("group_norm", group_norm, r(2, 6, 2, 2), 3, r(6), r(6))
    c.add("group_norm_one_group", group_norm, r(2, 4, 3), 1, None, None)
    c.add("group_norm_per_channel", group_norm, r(2, 4, 3), 4, r(4), None)
    c.add("group_norm_2d", group_norm, r(3, 4), 2, r(4), r(4))
    c.add("group_norm_float64", group_norm, r(2, 4, 3, dtype=torch.float64), 2, r(4, dtype=torch.float64), r(4, dtype=torch.float64))
    c.add("group_norm_groups_error", group_norm, r(2, 6, 2), 4, None, None)
    c.add("group_norm_weight_error", group_norm, r(2, 6, 2), 3, r(4), None)
    c.add("group_norm_dim_error", group_norm, r(6), 3, None, None)

    def native_group_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor]):
        return torch.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5)

    c.add("native_group_norm", native_group_norm, r(2, 4, 3), r(4), r(4))

    def instance_norm(x, w: Optional[torch.Tensor], b: Optional[torch.Tensor], rm: Optional[torch.Tensor], rv: Optional[torch.Tensor], use_input_stats: bool):
        return torch.instance_norm(x, w, b, rm, rv, use_input_stats, 0.1, 1e-5, False)

    c.add("instance_norm", instance_norm, r(2, 3, 2, 2), r(3), r(3), None, None, True)
    c.add("instance_norm_running", instance_norm, r(2, 3, 4), None, None, m, v, True)
    c.add("instance_norm_eval", instance_norm, r(2, 3, 4), r(3), r(3), m, v, False)


def embedding_cases(c):
    def embedding(w, idx, padding_idx: int):
        return torch.embedding(w, idx, padding_idx, False, False)

    w = r(5, 3)
    c.add("embedding", embedding, w, torch.tensor([[0, 2], [4, 1]]), -1)
    c.add("embedding_padding_idx", embedding, w, torch.tensor([1, 0, 1]), 0)
    c.add("embedding_int32", embedding, w, torch.tensor([3, 3], dtype=torch.int32), -1)
    c.add("embedding_scalar_index", embedding, w, torch.tensor(2), -1)
    c.add("embedding_empty", embedding, w, torch.zeros(0, dtype=torch.int64), -1)
    c.add("embedding_float64", embedding, r(3, 2, dtype=torch.float64), torch.tensor([2, 0]), -1)
    c.add("embedding_bfloat16", embedding, r(4, 2, dtype=torch.bfloat16), torch.tensor([3, 1]), -1)
    c.add("embedding_noncontig", embedding, r(3, 5).t(), torch.tensor([4, 0, 2]), -1)
    c.add("embedding_range_error", embedding, w, torch.tensor([5]), -1)
    c.add("embedding_negative_error", embedding, w, torch.tensor([-1]), -1)
    c.add("embedding_dtype_error", embedding, w, torch.tensor([1.0]), -1)
    c.add("embedding_weight_error", embedding, r(5), torch.tensor([1]), -1)


def global_pool_cases(c):
    # Appended after the others, so their random inputs stay as they were.
    def adaptive_avg(x, o: List[int]):
        return torch._C._nn.adaptive_avg_pool2d(x, o)

    # Enough planes to be split over the threads (uneven shares of 7x7 planes), float64
    # planes, and a batch of none.
    c.add("adaptive_avg_pool2d_global_many", adaptive_avg, r(2, 347, 7, 7), [1, 1])
    c.add("adaptive_avg_pool2d_global_float64", adaptive_avg, r(3, 5, 6, 6, dtype=torch.float64), [1, 1])
    c.add("adaptive_avg_pool2d_global_zero_batch", adaptive_avg, r(0, 3, 4, 4), [1, 1])


def cases(c):
    conv_cases(c)
    pool_cases(c)
    norm_cases(c)
    embedding_cases(c)
    global_pool_cases(c)
