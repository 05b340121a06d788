# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s --entry f 2 | FileCheck %s --check-prefix=OUT
# RUN: not ember-run %s --entry f -- -2 2>&1 | FileCheck %s --check-prefix=UNUSED
# Module methods through `self`, @torch.jit.export, and @torch.jit.unused: PyTorch compiles an
# unused method with its body replaced by `raise RuntimeError("Cannot call @unused methods")` and
# its parameters typed Any, so code calling it compiles and fails only when the call runs. An
# unused free function it never compiles: a call raises where it is (Ember's unit keeps a
# raising function by that name, its annotations kept).
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 2

    def helper(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.k

    @torch.jit.export
    def exported(self, x: torch.Tensor) -> torch.Tensor:
        return self.helper(x) + 1

    @torch.jit.unused
    def unused(self, x: torch.Tensor) -> torch.Tensor:
        return x.numpy()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.exported(x)


# CHECK-LABEL: # python_only
# CHECK-NEXT: graph(%x : int):
# CHECK-DAG: %[[MSG:.*]] : str = prim::Constant[value="Cannot call @unused methods"]()
# CHECK-DAG: %[[CLS:.*]] : str = prim::Constant[value="builtins.RuntimeError"]()
# CHECK: prim::RaiseException(%[[MSG]], %[[CLS]])
@torch.jit.unused
def python_only(x: int) -> int:
    import numpy
    return numpy.abs(x)


# CHECK-LABEL: # f
# CHECK: %[[DROPPED:.*]] : str = prim::Constant[value="This Python function is annotated to be ignored and cannot be run"]()
# CHECK-NOT: prim::CallFunction
# CHECK: prim::RaiseException(%[[DROPPED]], %{{.*}})
# CHECK-NOT: prim::CallFunction
# CHECK: return (%x.1)
# OUT: 2
# UNUSED: error: {{.*}}This Python function is annotated to be ignored and cannot be run
# UNUSED: in prim::RaiseException
def f(x: int) -> int:
    if x < 0:
        return python_only(x)
    return x


# CHECK-LABEL: # __torch__.Scale.helper
# CHECK: prim::GetAttr[name="k"](%self.1)
# CHECK-LABEL: # __torch__.Scale.exported
# CHECK: prim::CallMethod[name="helper"](%self.1, %x.1)
# CHECK-LABEL: # __torch__.Scale.unused
# CHECK-NEXT: graph(%self : __torch__.Scale,
# CHECK-NEXT: %x : Any):
# CHECK: prim::RaiseException
# CHECK-LABEL: # __torch__.Scale.forward
# CHECK: prim::CallMethod[name="exported"](%self.1, %x.1)
