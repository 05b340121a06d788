from enum import Enum

from typing import Dict, Tuple

import torch


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


def pick(x: int) -> Color:
    if x > 0:
        return Color.RED
    if x == 0:
        return Color.GREEN
    return Color.BLUE


def f(x: int) -> Tuple[int, str, Dict[str, int]]:
    c = pick(x)
    by_name = {Color.RED.name: 10, Color.GREEN.name: 20, Color.BLUE.name: 30}
    by_value = {Color.RED.value: "r", Color.GREEN.value: "g", Color.BLUE.value: "b"}
    by_name[c.name] += 1
    return by_name[c.name], by_value[c.value], by_name
