from typing import NamedTuple

import torch


class Span(NamedTuple):
    start: int
    end: int


def length(s: Span) -> int:
    a, b = s
    return b - a


def f(a: int, b: int) -> int:
    return length(Span(a, b)) + length(Span(start=0, end=b))
