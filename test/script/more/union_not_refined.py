from typing import Union

import torch


def f(x: Union[int, str]) -> int:
    return x + 1
