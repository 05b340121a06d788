# torch.nn.init as Ember compiles it when a module's __init__ calls it: the same computations
# of fans, gains and bounds as PyTorch's Python (2.x), and the same in-place draws, so seeded
# initial values equal PyTorch's. The tensor is Optional because Ember types a module's
# attributes once for all its instances (Linear's bias may be None). Compiled by Ember's own
# frontend the first time a file calls one of them.
import math
from typing import List, Optional, Tuple

import torch
from torch import Tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> Tuple[int, int]:
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    fan_in = num_input_fmaps * receptive_field_size
    fan_out = num_output_fmaps * receptive_field_size
    return fan_in, fan_out


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode != "fan_in" and mode != "fan_out":
        raise ValueError("Mode {} not supported, please use one of fan_in, fan_out".format(mode))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1.0
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        negative_slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + negative_slope**2))
    elif nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError("Unsupported nonlinearity {}".format(nonlinearity))


def _xavier_std(tensor: Tensor, gain: float) -> float:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / float(fan_in + fan_out))


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return gain / math.sqrt(fan)


def zeros_(tensor: Optional[Tensor]) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.zero_()


def ones_(tensor: Optional[Tensor]) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.fill_(1.0)


def constant_(tensor: Optional[Tensor], val: float) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.fill_(val)


def uniform_(tensor: Optional[Tensor], a: float = 0.0, b: float = 1.0) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.uniform_(a, b)


def normal_(tensor: Optional[Tensor], mean: float = 0.0, std: float = 1.0) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.normal_(mean, std)


def xavier_uniform_(tensor: Optional[Tensor], gain: float = 1.0) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    a = math.sqrt(3.0) * _xavier_std(tensor, gain)
    return tensor.uniform_(-a, a)


def xavier_normal_(tensor: Optional[Tensor], gain: float = 1.0) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.normal_(0.0, _xavier_std(tensor, gain))


def kaiming_uniform_(
    tensor: Optional[Tensor], a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor.uniform_(-bound, bound)


def kaiming_normal_(
    tensor: Optional[Tensor], a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    return tensor.normal_(0.0, _kaiming_std(tensor, a, mode, nonlinearity))


def _reset_weight_and_bias(weight: Tensor, bias: Optional[Tensor]) -> None:
    # reset_parameters of nn.Linear and nn.ConvNd (the same code in PyTorch's two classes).
    kaiming_uniform_(weight, a=math.sqrt(5.0))
    if bias is not None:
        fan_in = _calculate_fan_in_and_fan_out(weight)[0]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        uniform_(bias, -bound, bound)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(
    tensor: Optional[Tensor], mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0
) -> Tensor:
    if tensor is None:
        raise ValueError("cannot initialize None (a module's missing bias)")
    # PyTorch's rejection sampling: normals redrawn where they fall outside [a, b] when those
    # bounds keep most of the mass, else uniform candidates accepted by the normal's density.
    p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    if p > 0.3:
        lo = float(torch.tensor(a, dtype=tensor.dtype).item())
        hi = float(torch.tensor(b, dtype=tensor.dtype).item())
        result = tensor.normal_(mean, std)
        while True:
            mask = (result < lo) | (result > hi)
            if not bool(mask.any()):
                break
            result = torch.where(mask, torch.empty_like(result).normal_(mean, std), result)
        tensor.copy_(result)
        return tensor
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = torch.empty_like(tensor)
    accept_buf = torch.empty_like(tensor)
    tensor.uniform_(a, b)
    candidates.copy_(tensor)
    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
    pending = accept_buf.uniform_().log_().gt(candidates)
    if bool(pending.any()):
        result = tensor
        while True:
            candidates.uniform_(a, b)
            result = torch.where(pending, candidates, result)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = torch.where(pending, accept_buf.uniform_().log_().gt(candidates), pending)
            if not bool(pending.any()):
                break
        tensor.copy_(result)
    return tensor
