# torch.nn.modules.conv as Ember compiles it (see linear.py). ConvNd is a template: mod.rs
# makes Conv1d and Conv2d of it, with their rank (RANK), size tuple type (SIZES), items of a
# size tuple (ITEMS(name)) and operator (OP).
from typing import List, Optional, Tuple, Union

import torch
from torch import Tensor


class ConvNd(torch.nn.Module):
    bias: Optional[Tensor]

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Union[int, SIZES],
        stride: Union[int, SIZES] = 1,
        padding: Union[int, SIZES] = 0,
        dilation: Union[int, SIZES] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
    ):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise ValueError("Ember's ConvNd supports padding_mode='zeros' only")
        if isinstance(kernel_size, int):
            k = [kernel_size] * RANK
        else:
            k = ITEMS(kernel_size)
        if isinstance(stride, int):
            s = [stride] * RANK
        else:
            s = ITEMS(stride)
        if isinstance(padding, int):
            p = [padding] * RANK
        else:
            p = ITEMS(padding)
        if isinstance(dilation, int):
            d = [dilation] * RANK
        else:
            d = ITEMS(dilation)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = k
        self.stride = s
        self.padding = p
        self.dilation = d
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = torch.nn.Parameter(torch.empty([out_channels, in_channels // groups] + k))
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(out_channels))
        else:
            self.bias = None
        # reset_parameters, as PyTorch's.
        torch.nn.init._reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return torch.OP(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )
