# RUN: ember-run %s 3 "[1, 2, 3, 4]" | FileCheck %s
# RUN: ember-run %s --entry helper 5 3 | FileCheck %s --check-prefix=HELPER
# ember-run runs the last def of a .py file (or --entry); calls to other functions run as calls.
import torch
from typing import List


def helper(x: int, y: int = 2) -> int:
    return x * y


# CHECK: 7
# HELPER: 15
def f(n: int, xs: List[int]) -> int:
    s = 0
    for i, x in enumerate(xs):
        if x > 2:
            continue
        s += helper(i * x)
    return s + n
