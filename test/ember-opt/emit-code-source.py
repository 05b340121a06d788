# RUN: ember-opt --emit=code %s | FileCheck %s --match-full-lines --strict-whitespace
# TorchScript source to code: each function, then each method of each class (methods print
# `self` without its type).

from typing import List


class Counter:
    def __init__(self, start: int):
        self.value = start

    def bump(self, by: int) -> int:
        self.value = self.value + by
        return self.value


def total(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            continue
        s += x
    return s

# CHECK:# total
# CHECK-NEXT:def total(xs: List[int]) -> int:
# CHECK:  return s
# CHECK:# __torch__.Counter.__init__
# CHECK-NEXT:def __init__(self,
# CHECK-NEXT:    start: int) -> NoneType:
# CHECK:  self.value = start
# CHECK:  return None
# CHECK:# __torch__.Counter.bump
# CHECK-NEXT:def bump(self,
# CHECK-NEXT:    by: int) -> int:
