# torch.nn.modules.pooling as Ember compiles it (see linear.py).
from typing import List, Optional, Tuple, Union

import torch
from torch import Tensor


class MaxPool2d(torch.nn.Module):
    def __init__(
        self,
        kernel_size: Union[int, Tuple[int, int]],
        stride: Optional[Union[int, Tuple[int, int]]] = None,
        padding: Union[int, Tuple[int, int]] = 0,
        dilation: Union[int, Tuple[int, int]] = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ):
        super().__init__()
        if return_indices:
            raise ValueError("Ember's MaxPool2d does not return indices")
        if isinstance(kernel_size, int):
            k = [kernel_size, kernel_size]
        else:
            k = [kernel_size[0], kernel_size[1]]
        if stride is None:
            s = k
        elif isinstance(stride, int):
            s = [stride, stride]
        else:
            s = [stride[0], stride[1]]
        if isinstance(padding, int):
            p = [padding, padding]
        else:
            p = [padding[0], padding[1]]
        if isinstance(dilation, int):
            d = [dilation, dilation]
        else:
            d = [dilation[0], dilation[1]]
        self.kernel_size = k
        self.stride = s
        self.padding = p
        self.dilation = d
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return torch.max_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode
        )


class AvgPool2d(torch.nn.Module):
    def __init__(
        self,
        kernel_size: Union[int, Tuple[int, int]],
        stride: Optional[Union[int, Tuple[int, int]]] = None,
        padding: Union[int, Tuple[int, int]] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Optional[int] = None,
    ):
        super().__init__()
        if isinstance(kernel_size, int):
            k = [kernel_size, kernel_size]
        else:
            k = [kernel_size[0], kernel_size[1]]
        if stride is None:
            s = k
        elif isinstance(stride, int):
            s = [stride, stride]
        else:
            s = [stride[0], stride[1]]
        if isinstance(padding, int):
            p = [padding, padding]
        else:
            p = [padding[0], padding[1]]
        self.kernel_size = k
        self.stride = s
        self.padding = p
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return torch.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AdaptiveAvgPool2d(torch.nn.Module):
    def __init__(self, output_size: Union[int, Tuple[int, int]]):
        super().__init__()
        if isinstance(output_size, int):
            size = [output_size, output_size]
        else:
            size = [output_size[0], output_size[1]]
        self.output_size = size

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.adaptive_avg_pool2d(input, self.output_size)
