from typing import Union

import torch


def f(x: Union[int, str]) -> str:
    if isinstance(x, int):
        return str(x + 1)
    return x + "!"
