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


def cases(c):
    conv_cases(c)
