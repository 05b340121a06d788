from typing import List

import torch

NAMES = ("a", "b", "c")
PREFIX = "item_"


def f(i: int) -> str:
    return PREFIX + NAMES[i]
