# RUN: ember-opt %s --dce | FileCheck %s
# Module constants: a class-level `Final` attribute of a module is folded into the code that
# reads it (PyTorch's module constants); a plain attribute stays a prim::GetAttr.
import torch
import torch.nn as nn
from typing import Final


class M(nn.Module):
    scale: Final[int] = 3

    def __init__(self):
        super().__init__()
        self.bias = 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale + self.bias


# CHECK-LABEL: # __torch__.M.forward
# CHECK: %[[THREE:.*]] : int = prim::Constant[value=3]()
# CHECK-NOT: prim::GetAttr[name="scale"]
# CHECK: aten::mul(%x.1, %[[THREE]])
# CHECK: prim::GetAttr[name="bias"](%self.1)
