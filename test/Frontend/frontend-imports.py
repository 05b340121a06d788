# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s 2 | FileCheck %s --check-prefix=OUT
# The imports users write resolve to built-in namespaces: torch, torch.nn.functional as F,
# `from torch import Tensor`, math, typing.
import math
import torch
import torch.nn.functional as F
from torch import Tensor
from typing import List, Optional


# CHECK-LABEL: # g
# CHECK: prim::CallFunction
def g(t: Tensor) -> Tensor:
    return F.relu(t)


# CHECK-LABEL: # f
# CHECK: %[[PI:.*]] : float = prim::Constant[value=3.14159
# CHECK: aten::floor(
# CHECK: aten::mul(%{{.*}}, %[[PI]])
# OUT: 6.28318
def f(x: float) -> float:
    return math.floor(x) * math.pi
