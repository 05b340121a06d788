"""Ember's fused operators (dialects/data/ember_schemas.txt): ember::conv2d_fused,
ember::conv1d_fused and ember::linear_fused. The schemas are registered with torch.library from
that file, implemented in Python as the unfused composition (F.conv2d / F.conv1d / F.linear,
then + residual, then the activation), so a scripted call prints the ember:: node and PyTorch
computes the reference. Errors come from the composition (torch.clamp with no bound) or, for an
unknown activation, from the implementation below with Ember's message.

Convolutions sum dozens of products in another order than PyTorch's: rtol 1e-4, atol 1e-5."""

import os
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import Tensor

from .common import REPO

ACTIVATIONS = ["none", "relu", "clamp", "hardswish", "hardsigmoid", "silu", "sigmoid", "tanh", "gelu"]
TOL = dict(rtol=1e-4, atol=1e-5)


def _epilogue(y, residual, activation, lo, hi, in_place=False):
    if residual is not None:
        y = y.add_(residual) if in_place else y + residual
    if activation == "none":
        return y
    if activation == "relu":
        return torch.relu(y)
    if activation == "clamp":
        return torch.clamp(y, lo, hi)
    if activation == "hardswish":
        return F.hardswish(y)
    if activation == "hardsigmoid":
        return F.hardsigmoid(y)
    if activation == "silu":
        return F.silu(y)
    if activation == "sigmoid":
        return torch.sigmoid(y)
    if activation == "tanh":
        return torch.tanh(y)
    if activation == "gelu":
        return F.gelu(y)
    raise RuntimeError(f'unknown activation "{activation}": expected one of {", ".join(ACTIVATIONS)}')


def _conv2d(x, w, b, stride, padding, dilation, groups, residual=None, activation="none", lo=None, hi=None, in_place=False, input_scale=None):
    if input_scale is not None:
        x = x * input_scale
    return _epilogue(F.conv2d(x, w, b, stride, padding, dilation, groups), residual, activation, lo, hi, in_place)


def _conv1d(x, w, b, stride, padding, dilation, groups, residual=None, activation="none", lo=None, hi=None, in_place=False):
    return _epilogue(F.conv1d(x, w, b, stride, padding, dilation, groups), residual, activation, lo, hi, in_place)


def _linear(x, w, b, residual=None, activation="none", lo=None, hi=None, in_place=False):
    return _epilogue(F.linear(x, w, b), residual, activation, lo, hi, in_place)


def _register():
    lib = torch.library.Library("ember", "DEF")
    with open(os.path.join(REPO, "dialects", "data", "ember_schemas.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                lib.define(line.split("::", 1)[1].strip())
    for name, fn in [("conv2d_fused", _conv2d), ("conv1d_fused", _conv1d), ("linear_fused", _linear)]:
        lib.impl(name, fn, "CompositeExplicitAutograd")
    return lib


_LIB = _register()


def conv2d(x: Tensor, w: Tensor, b: Optional[Tensor], stride: List[int], padding: List[int],
           dilation: List[int], groups: int, residual: Optional[Tensor], activation: str,
           lo: Optional[float], hi: Optional[float]):
    return torch.ops.ember.conv2d_fused(x, w, b, stride, padding, dilation, groups, residual, activation, lo, hi)


def conv1d(x: Tensor, w: Tensor, b: Optional[Tensor], stride: List[int], padding: List[int],
           dilation: List[int], groups: int, residual: Optional[Tensor], activation: str,
           lo: Optional[float], hi: Optional[float]):
    return torch.ops.ember.conv1d_fused(x, w, b, stride, padding, dilation, groups, residual, activation, lo, hi)


def linear(x: Tensor, w: Tensor, b: Optional[Tensor], residual: Optional[Tensor], activation: str,
           lo: Optional[float], hi: Optional[float]):
    return torch.ops.ember.linear_fused(x, w, b, residual, activation, lo, hi)


def conv2d_in_place(x: Tensor, w: Tensor, b: Optional[Tensor], residual: Tensor, activation: str):
    return torch.ops.ember.conv2d_fused(x, w, b, [1, 1], [1, 1], [1, 1], 1, residual, activation, None, None, True)


def linear_in_place(x: Tensor, w: Tensor, b: Optional[Tensor], residual: Tensor, activation: str):
    return torch.ops.ember.linear_fused(x, w, b, residual, activation, None, None, True)


def conv2d_scaled(x: Tensor, w: Tensor, b: Optional[Tensor], padding: List[int], groups: int,
                  residual: Optional[Tensor], activation: str, scale: Tensor):
    return torch.ops.ember.conv2d_fused(x, w, b, [1, 1], padding, [1, 1], groups, residual, activation, None, None, False, scale)


def conv2d_defaults(x: Tensor, w: Tensor, b: Optional[Tensor]):
    return torch.ops.ember.conv2d_fused(x, w, b, [1, 1], [1, 1], [1, 1], 1)


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    return torch.randint(-3, 4, shape, dtype=dtype)


def _out2d(x, w, stride, padding, dilation):
    n = [x.shape[0]] if x.dim() == 4 else []
    hw = [(x.shape[-2 + d] + 2 * padding[d] - dilation[d] * (w.shape[2 + d] - 1) - 1) // stride[d] + 1 for d in range(2)]
    return n + [w.shape[0]] + hw


def conv2d_cases(c):
    # (name, input, weight, stride, padding, dilation, groups): direct, strided, dilated,
    # grouped, depthwise (with a channel multiplier), 1x1 and unbatched shapes.
    shapes = [
        ("plain", (1, 8, 10, 10), (16, 8, 3, 3), [1, 1], [1, 1], [1, 1], 1),
        ("batch_stride2", (2, 6, 11, 9), (10, 6, 3, 3), [2, 2], [1, 1], [1, 1], 1),
        ("dilated", (1, 4, 12, 12), (6, 4, 3, 3), [1, 1], [2, 2], [2, 2], 1),
        ("grouped", (1, 8, 7, 7), (12, 4, 3, 3), [1, 1], [1, 1], [1, 1], 2),
        ("depthwise", (2, 12, 9, 9), (12, 1, 3, 3), [1, 1], [1, 1], [1, 1], 12),
        ("depthwise_stride2", (1, 16, 15, 15), (16, 1, 3, 3), [2, 2], [1, 1], [1, 1], 16),
        ("depthwise_5x5_mult", (1, 4, 8, 8), (8, 1, 5, 5), [1, 1], [2, 2], [1, 1], 4),
        ("pointwise", (2, 16, 6, 6), (24, 16, 1, 1), [1, 1], [0, 0], [1, 1], 1),
        ("pointwise_stride2", (1, 16, 8, 8), (8, 16, 1, 1), [2, 2], [0, 0], [1, 1], 1),
        ("stem_7x7", (1, 3, 20, 20), (8, 3, 7, 7), [2, 2], [3, 3], [1, 1], 1),
        ("unbatched", (6, 9, 9), (4, 6, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ]
    for name, xs, ws, stride, padding, dilation, groups in shapes:
        x, w, b = r(*xs), r(*ws), r(ws[0])
        res = r(*_out2d(x, w, stride, padding, dilation))
        for act in ACTIVATIONS:
            lo, hi = (-0.5, 1.5) if act == "clamp" else (None, None)
            c.add(f"conv2d_{name}_{act}", conv2d, x, w, b, stride, padding, dilation, groups, res, act, lo, hi, **TOL)
        c.add(f"conv2d_{name}_no_bias_no_residual_relu", conv2d, x, w, None, stride, padding, dilation, groups, None, "relu", None, None, **TOL)
        c.add(f"conv2d_{name}_residual_only", conv2d, x, w, None, stride, padding, dilation, groups, res, "none", None, None, **TOL)

    x, w, b = r(1, 8, 10, 10), r(16, 8, 3, 3), r(16)
    out = [1, 16, 10, 10]
    common = ([1, 1], [1, 1], [1, 1], 1)
    c.add("conv2d_relu6", conv2d, x, w, b, *common, r(*out), "clamp", 0.0, 6.0, **TOL)
    c.add("conv2d_clamp_min_only", conv2d, x, w, b, *common, None, "clamp", 0.25, None, **TOL)
    c.add("conv2d_clamp_max_only", conv2d, x, w, b, *common, None, "clamp", None, -0.25, **TOL)
    c.add("conv2d_clamp_no_bounds_error", conv2d, x, w, b, *common, None, "clamp", None, None)
    c.add("conv2d_unknown_activation_error", conv2d, x, w, b, *common, None, "swish", None, None)
    # Residuals that broadcast: per channel, per row, and one that grows the result.
    c.add("conv2d_residual_per_channel", conv2d, x, w, b, *common, r(16, 1, 1), "silu", None, None, **TOL)
    c.add("conv2d_residual_row", conv2d, x, w, b, *common, r(10), "relu", None, None, **TOL)
    c.add("conv2d_residual_grows_result", conv2d, x, w, b, *common, r(2, 16, 10, 10), "relu", None, None, **TOL)
    c.add("conv2d_residual_noncontiguous", conv2d, x, w, b, *common, r(1, 16, 10, 10).transpose(2, 3), "hardswish", None, None, **TOL)
    c.add("conv2d_residual_shape_error", conv2d, x, w, b, *common, r(1, 16, 9, 10), "relu", None, None)
    # Other dtypes run the unfused operators, with PyTorch's promotion.
    x64, w64, b64 = r(1, 4, 6, 6, dtype=torch.float64), r(5, 4, 3, 3, dtype=torch.float64), r(5, dtype=torch.float64)
    c.add("conv2d_float64_gelu", conv2d, x64, w64, b64, *common, r(1, 5, 6, 6, dtype=torch.float64), "gelu", None, None)
    c.add("conv2d_float32_float64_residual", conv2d, x, w, b, *common, r(1, 16, 10, 10, dtype=torch.float64), "sigmoid", None, None, **TOL)
    # The residual added in place (`out += identity`): the result keeps the convolution's
    # shape and dtype; a residual that would grow it is PyTorch's in-place error.
    c.add("conv2d_residual_in_place_relu", conv2d_in_place, x, w, b, r(*out), "relu", **TOL)
    c.add("conv2d_residual_in_place_per_channel", conv2d_in_place, x, w, b, r(16, 1, 1), "none", **TOL)
    c.add("conv2d_residual_in_place_float64", conv2d_in_place, x, w, b, r(*out, dtype=torch.float64), "relu", **TOL)
    c.add("conv2d_residual_in_place_grows_error", conv2d_in_place, x, w, b, r(2, 16, 10, 10), "relu")
    c.add("linear_residual_in_place_silu", linear_in_place, r(3, 8), r(5, 8), r(5), r(3, 5), "silu", **TOL)
    c.add("linear_residual_in_place_float64", linear_in_place, r(3, 8), r(5, 8), r(5), r(3, 5, dtype=torch.float64), "none", **TOL)
    xi, wi = r(1, 2, 5, 5, dtype=torch.int64), r(3, 2, 3, 3, dtype=torch.int64)
    c.add("conv2d_int64_relu", conv2d, xi, wi, None, *common, r(1, 3, 5, 5, dtype=torch.int64), "relu", None, None)
    c.add("conv2d_int64_sigmoid", conv2d, xi, wi, None, *common, None, "sigmoid", None, None, **TOL)
    c.add("conv2d_int64_hardswish_error", conv2d, xi, wi, None, *common, None, "hardswish", None, None)
    x16, w16 = r(1, 4, 6, 6, dtype=torch.bfloat16), r(4, 4, 3, 3, dtype=torch.bfloat16)
    c.add("conv2d_bfloat16_silu", conv2d, x16, w16, None, *common, r(1, 4, 6, 6, dtype=torch.bfloat16), "silu", None, None)
    c.add("conv2d_defaults", conv2d_defaults, x, w, b, **TOL)
    c.add("conv2d_channels_error", conv2d, r(1, 3, 10, 10), w, b, *common, None, "relu", None, None)
    c.add("conv2d_zero_batch", conv2d, r(0, 8, 10, 10), w, b, *common, None, "relu", None, None)


def conv1d_cases(c):
    shapes = [
        ("plain", (2, 6, 20), (8, 6, 3), [1], [1], [1], 1),
        ("stride2_dilated", (1, 4, 31), (6, 4, 5), [2], [4], [2], 1),
        ("depthwise", (1, 8, 16), (8, 1, 3), [1], [1], [1], 8),
        ("pointwise", (3, 10, 7), (5, 10, 1), [1], [0], [1], 1),
    ]
    for name, xs, ws, stride, padding, dilation, groups in shapes:
        x, w, b = r(*xs), r(*ws), r(ws[0])
        y = F.conv1d(x, w, b, stride, padding, dilation, groups)
        res = r(*y.shape)
        for act in ACTIVATIONS:
            lo, hi = (-0.5, 1.5) if act == "clamp" else (None, None)
            c.add(f"conv1d_{name}_{act}", conv1d, x, w, b, stride, padding, dilation, groups, res, act, lo, hi, **TOL)
        c.add(f"conv1d_{name}_no_bias_no_residual", conv1d, x, w, None, stride, padding, dilation, groups, None, "none", None, None, **TOL)


def linear_cases(c):
    shapes = [
        ("batch1", (1, 40), (24, 40)),
        ("batch", (5, 40), (24, 40)),
        ("3d", (2, 3, 16), (8, 16)),
        ("vector", (16,), (8, 16)),
    ]
    for name, xs, ws in shapes:
        x, w, b = r(*xs), r(*ws), r(ws[0])
        res = r(*F.linear(x, w, b).shape)
        for act in ACTIVATIONS:
            lo, hi = (-0.5, 1.5) if act == "clamp" else (None, None)
            c.add(f"linear_{name}_{act}", linear, x, w, b, res, act, lo, hi, **TOL)
        c.add(f"linear_{name}_no_bias_relu", linear, x, w, None, None, "relu", None, None, **TOL)
    x, w, b = r(4, 40), r(24, 40), r(24)
    c.add("linear_residual_broadcast", linear, x, w, b, r(24), "gelu", None, None, **TOL)
    c.add("linear_residual_grows_result", linear, x, w, b, r(3, 4, 24), "tanh", None, None, **TOL)
    c.add("linear_float64_hardsigmoid", linear, x.double(), w.double(), b.double(), r(4, 24, dtype=torch.float64), "hardsigmoid", None, None)
    c.add("linear_unknown_activation_error", linear, x, w, b, None, "Relu", None, None)
    c.add("linear_shape_error", linear, r(4, 39), w, b, None, "relu", None, None)


def conv2d_input_scale_cases(c):
    # conv(x * s): a per-channel scale folded into the weights where they are fewer than the
    # input's elements (the squeeze-and-excitation 1x1, a 3x3 on a batch), either factor the
    # scale; other scales (the whole input, a row, a batch that grows the result, more
    # weights than input, groups) multiply the input as aten::mul does.
    x, w, b = r(1, 24, 14, 14), r(16, 24, 1, 1), r(16)
    s = torch.sigmoid(r(1, 24, 1, 1))
    c.add("conv2d_input_scale_se", conv2d_scaled, x, w, b, [0, 0], 1, None, "none", s, **TOL)
    c.add("conv2d_input_scale_first", conv2d_scaled, s, w, b, [0, 0], 1, None, "none", x, **TOL)
    c.add("conv2d_input_scale_residual_silu", conv2d_scaled, x, w, None, [0, 0], 1, r(1, 16, 14, 14), "silu", s, **TOL)
    c.add("conv2d_input_scale_3x3_batch", conv2d_scaled, r(2, 8, 10, 10), r(6, 8, 3, 3), r(6), [1, 1], 1, None, "relu", r(8, 1, 1), **TOL)
    c.add("conv2d_input_scale_more_weights", conv2d_scaled, r(1, 32, 3, 3), r(64, 32, 1, 1), r(64), [0, 0], 1, None, "none", r(1, 32, 1, 1), **TOL)
    c.add("conv2d_input_scale_whole_input", conv2d_scaled, x, w, b, [0, 0], 1, None, "none", r(1, 24, 14, 14), **TOL)
    c.add("conv2d_input_scale_row", conv2d_scaled, x, w, b, [0, 0], 1, None, "none", r(14), **TOL)
    c.add("conv2d_input_scale_grows_batch", conv2d_scaled, x, w, b, [0, 0], 1, None, "none", r(2, 24, 1, 1), **TOL)
    c.add("conv2d_input_scale_grouped", conv2d_scaled, x, r(16, 12, 1, 1), b, [0, 0], 2, None, "none", s, **TOL)
    c.add("conv2d_input_scale_shape_error", conv2d_scaled, x, w, b, [0, 0], 1, None, "none", r(1, 23, 1, 1))
    c.add("conv2d_input_scale_empty_kernel_error", conv2d_scaled, x, r(16, 24, 0, 1), None, [0, 0], 1, None, "none", s)


def cases(c):
    conv2d_cases(c)
    conv1d_cases(c)
    linear_cases(c)
    conv2d_input_scale_cases(c)
