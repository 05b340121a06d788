# RUN: ember-run %s %S/Inputs/x.npy | FileCheck %s --check-prefix=OUT
# RUN: ember-run %s --no-freeze %S/Inputs/x.npy 2.0 | FileCheck %s --check-prefix=TWO
# RUN: ember-opt %s -o %t.pt && ember-run %t.pt %S/Inputs/x.npy | FileCheck %s --check-prefix=OUT
# RUN: ember-opt %s --dce | FileCheck %s --check-prefix=CODE
# RUN: not ember-run %s --method backward %S/Inputs/x.npy 2>&1 | FileCheck %s --check-prefix=NOMETHOD
# RUN: not ember-run %S/Inputs/acc.py --method forward 2>&1 | FileCheck %s --check-prefix=NOMODULE
# A .py that defines nn.Module classes is a module model: Ember constructs its root module
# (the last module class no other holds) by running __init__ with no arguments, with no
# Python; ember-run runs its forward (frozen by default, as for a .pt), and ember-opt -o writes
# it as torch.jit.script(Scaled()).save() would, with no __init__ in the archive. ember-opt
# without -o prints the code of the file, __init__ included, and runs none of it.
import torch
import torch.nn as nn


def shift(x: torch.Tensor) -> torch.Tensor:
    return x + 1


class Affine(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.full([n], 2.0))
        self.register_buffer("bias", torch.arange(n).float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.weight + self.bias


class Scaled(nn.Module):
    def __init__(self, n: int = 3):
        super().__init__()
        self.affine = Affine(n)

    def forward(self, x: torch.Tensor, k: float = 1.0) -> torch.Tensor:
        return shift(self.affine(x)) * k


# OUT:      tensor({{\[\[}} 4.0000, -2.0000,  9.5000],
# OUT-NEXT:         [ 1.0000, 10.0000, 13.0000]])
# TWO:      tensor({{\[\[}} 8., -4., 19.],
# TWO-NEXT:         [ 2., 20., 26.]])
# CODE-LABEL: # __torch__.Affine.__init__
# CODE: prim::SetAttr[name="training"]
# CODE-LABEL: # __torch__.Scaled.__init__
# CODE: prim::CreateObject()
# CODE: prim::CallMethod[name="__init__"]
# NOMETHOD: no function or method of the module (__torch__.Scaled) named 'backward'
# NOMODULE: --method chooses a method of a module, and the file defines no nn.Module
