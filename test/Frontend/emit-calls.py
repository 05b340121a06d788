# RUN: ember-opt %s --dce | FileCheck %s
# Calls between functions of a file are prim::CallFunction on a function constant that
# carries the callee's graph; classes are created with prim::CreateObject and their methods
# called with prim::CallMethod.
import torch
import torch.nn.functional as F


def helper(x: int, y: int = 2) -> int:
    return x * y


class Counter:
    def __init__(self, start: int):
        self.value = start

    def bump(self, by: int) -> int:
        self.value = self.value + by
        return self.value


# CHECK-LABEL: # calls
# CHECK-DAG: %[[F:.*]] : Function = prim::Constant{{.*}}[name="helper"]
# CHECK: %[[C:.*]] : __torch__.Counter = prim::CreateObject()
# CHECK: prim::CallMethod[name="__init__"](%[[C]], %n.1)
# CHECK: prim::CallFunction(%[[F]], %n.1, %{{.*}})
# CHECK: prim::CallMethod[name="bump"](%[[C]],
def calls(n: int) -> int:
    c = Counter(n)
    return helper(n) + c.bump(3)


# Functions of torch.nn.functional written in Python are called like functions of the file.
# CHECK-LABEL: # functional
# CHECK: %[[R:.*]] : Function = prim::Constant{{.*}}[name="relu"]
# CHECK: prim::CallFunction(%[[R]], %x.1, %{{.*}})
def functional(x: torch.Tensor) -> torch.Tensor:
    return F.relu(x)


# Methods follow the functions.
# CHECK-LABEL: # __torch__.Counter.__init__
# CHECK: prim::SetAttr[name="value"](%self
# CHECK-LABEL: # __torch__.Counter.bump
# CHECK: prim::GetAttr[name="value"](%self
