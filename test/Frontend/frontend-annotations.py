# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-opt %s --emit=code | FileCheck %s --check-prefix=CODE
# RUN: ember-run %s --entry defaults 3 | FileCheck %s --check-prefix=DEFAULTS
# RUN: ember-run %s --entry defaults 3 4 | FileCheck %s --check-prefix=GIVEN
# RUN: not ember-run %s --entry defaults 2>&1 | FileCheck %s --check-prefix=MISSING
# RUN: ember-run %s --entry kwargs_call 1 | FileCheck %s --check-prefix=KWARGS
# Signatures: `# type:` comments on defs and assignments, defaults, keyword arguments,
# torch.jit.annotate and Final locals.
import torch
from typing import Dict, List, Optional, Tuple
from typing import Final


# CHECK-LABEL: # type_comment
# CHECK-NEXT: graph(%x.1 : Tensor,
# CHECK-NEXT:       %n.1 : int):
# CHECK: aten::mul(%x.1, %n.1)
# CODE-LABEL: # type_comment
# CODE-NEXT: def type_comment(x: Tensor,
# CODE-NEXT:     n: int) -> Tensor:
# CODE-NEXT:   return torch.mul(x, n)
def type_comment(x, n):
    # type: (Tensor, int) -> Tensor
    return x * n


# CHECK-LABEL: # assign_comment
# CHECK: %xs.1 : int[] = prim::ListConstruct()
# CHECK: aten::append(%xs.1,
def assign_comment() -> List[int]:
    xs = []  # type: List[int]
    xs.append(1)
    return xs


# CHECK-LABEL: # defaults
# CHECK-NEXT: graph(%x.1 : int,
# CHECK-NEXT:       %y.1 : int,
# CHECK-NEXT:       %s : str,
# CHECK-NEXT:       %f : float?):
# CODE-LABEL: # defaults
# CODE: s: str="hi",
# CODE: f: Optional[float]=None) -> int:
# ember-run fills the parameters after the last ARG with their defaults; x has none.
# DEFAULTS: 5
# GIVEN: 7
# MISSING: expected 4 arguments (x.1: int, y.1: int, s: str, f: float?), got 0
# KWARGS: 6
def defaults(x: int, y: int = 2, s: str = "hi", f: Optional[float] = None) -> int:
    return x + y


# Keyword arguments are matched to the callee's parameters; the rest take their defaults.
# CHECK-LABEL: # kwargs_call
# CHECK-DAG: %[[NONE:.*]] : NoneType = prim::Constant()
# CHECK-DAG: %[[NO:.*]] : str = prim::Constant[value="no"]()
# CHECK-DAG: %[[FIVE:.*]] : int = prim::Constant[value=5]()
# CHECK: prim::CallFunction(%{{.*}}, %a.1, %[[FIVE]], %[[NO]], %[[NONE]])
def kwargs_call(a: int) -> int:
    return defaults(a, s="no", y=5)


# CHECK-LABEL: # annotate
# CHECK: %d.1 : Dict(str, int) = prim::DictConstruct()
# CHECK: return (%d.1)
def annotate() -> Dict[str, int]:
    d = torch.jit.annotate(Dict[str, int], {})
    e: List[Tensor] = []
    return d


# CHECK-LABEL: # final_local
# CHECK: %k.1 : int = prim::Constant[value=4]()
# CHECK: aten::add(%x.1, %k.1)
def final_local(x: int) -> int:
    k: Final[int] = 4
    return x + k
