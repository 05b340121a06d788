# The functions of torch.nn.functional that PyTorch implements in Python and compiles from
# source when a scripted function calls them (a call is `prim::CallFunction`). Signatures are
# PyTorch's (2.x); bodies compute the same result with the operators they reach. Compiled by
# Ember's own frontend the first time a `.py` file calls one of them.
import torch
from torch import Tensor
from typing import List, Optional


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.relu_(input)
    else:
        result = torch.relu(input)
    return result


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.ops.aten.hardtanh_(input, 0.0, 6.0)
    else:
        result = torch.ops.aten.relu6(input)
    return result


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.ops.aten.leaky_relu_(input, negative_slope)
    else:
        result = torch.ops.aten.leaky_relu(input, negative_slope)
    return result


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[int] = None) -> Tensor:
    if dim is None:
        d = 0 if input.dim() in (0, 1, 3) else 1
    else:
        d = dim
    if dtype is None:
        ret = input.softmax(d)
    else:
        ret = input.softmax(d, dtype=dtype)
    return ret


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[int] = None) -> Tensor:
    if dim is None:
        d = 0 if input.dim() in (0, 1, 3) else 1
    else:
        d = dim
    if dtype is None:
        ret = input.log_softmax(d)
    else:
        ret = input.log_softmax(d, dtype=dtype)
    return ret


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[int] = None) -> Tensor:
    if dim is None:
        d = 0 if input.dim() in (0, 1, 3) else 1
    else:
        d = dim
    if dtype is None:
        ret = (-input).softmax(d)
    else:
        ret = (-input).softmax(d, dtype=dtype)
    return ret


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch.ops.aten.silu_(input)
    return torch.ops.aten.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch.ops.aten.mish_(input)
    return torch.ops.aten.mish(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch.ops.aten.hardswish_(input)
    return torch.ops.aten.hardswish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch.ops.aten.hardsigmoid_(input)
    return torch.ops.aten.hardsigmoid(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.ops.aten.elu_(input, alpha)
    else:
        result = torch.ops.aten.elu(input, alpha)
    return result


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.selu_(input)
    else:
        result = torch.selu(input)
    return result


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.ops.aten.hardtanh_(input, min_val, max_val)
    else:
        result = torch.ops.aten.hardtanh(input, min_val, max_val)
    return result


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def glu(input: Tensor, dim: int = -1) -> Tensor:
    return torch.ops.aten.glu(input, dim)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if inplace:
        result = torch.dropout_(input, p, training)
    else:
        result = torch.dropout(input, p, training)
    return result


def pad(input: Tensor, pad: List[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    return torch.ops.aten.pad(input, pad, mode, value)


def layer_norm(input: Tensor, normalized_shape: List[int], weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    return torch.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    return torch.group_norm(input, num_groups, weight, bias, eps, False)


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor], weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    return torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Optional[Tensor] = None) -> Tensor:
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def _max_pool1d(input: Tensor, kernel_size: BroadcastingList1[int], stride: Optional[BroadcastingList1[int]] = None, padding: BroadcastingList1[int] = 0, dilation: BroadcastingList1[int] = 1, ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    if stride is None:
        stride = torch.jit.annotate(List[int], [])
    return torch.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d(input: Tensor, kernel_size: BroadcastingList2[int], stride: Optional[BroadcastingList2[int]] = None, padding: BroadcastingList2[int] = 0, dilation: BroadcastingList2[int] = 1, ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    if stride is None:
        stride = torch.jit.annotate(List[int], [])
    return torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def adaptive_avg_pool2d(input: Tensor, output_size: BroadcastingList2[int]) -> Tensor:
    return torch.ops.aten.adaptive_avg_pool2d(input, output_size)


def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    r = 1
    if reduction == "none":
        r = 0
    elif reduction == "sum":
        r = 2
    return torch.ops.aten.mse_loss(input, target, r)


def l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    r = 1
    if reduction == "none":
        r = 0
    elif reduction == "sum":
        r = 2
    return torch.ops.aten.l1_loss(input, target, r)
