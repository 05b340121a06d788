from enum import Enum

import torch


class Format(str, Enum):
    NCHW = "NCHW"
    NHWC = "NHWC"
    NLC = "NLC"


def nchw_to(x: torch.Tensor, fmt: Format) -> torch.Tensor:
    if torch.eq(fmt, Format.NHWC):
        x = x.permute(0, 2, 3, 1)
    elif torch.eq(fmt, Format.NLC):
        x = x.flatten(2).transpose(1, 2)
    return x


def f(x: torch.Tensor, flat: bool) -> torch.Tensor:
    fmt = Format.NLC if flat else Format.NHWC
    if torch.ne(fmt, Format.NCHW):
        x = nchw_to(x, fmt)
    return x
