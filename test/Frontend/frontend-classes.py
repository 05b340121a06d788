# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s --entry use_class 3 | FileCheck %s --check-prefix=CLASS
# RUN: ember-run %s --entry use_namedtuple 3 | FileCheck %s --check-prefix=TUPLE
# RUN: ember-run %s 1 | FileCheck %s --check-prefix=ENUM
# RUN: ember-run %s -- -1 | FileCheck %s --check-prefix=ENUM2
# Classes (__init__, attributes, methods, @property), NamedTuple and Enum, used from functions:
# objects are prim::CreateObject + __init__, methods prim::CallMethod, a property its getter.
# CLASS: 14
# TUPLE: 5.5
# ENUM: 3
# ENUM2: 2
import torch
from enum import Enum
from typing import NamedTuple, Optional


class Point:
    def __init__(self, x: int, y: int):
        self.x = x
        self.y = y
        self.tag: Optional[str] = None

    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)

    @property
    def double_x(self) -> int:
        return self.x * 2

    def shifted(self, d: int) -> "Point":
        return Point(self.x + d, self.y + d)


class Pair(NamedTuple):
    first: int
    second: float


class Color(Enum):
    RED = 1
    GREEN = 2


# CHECK-LABEL: # use_class
# CHECK: %p.1 : __torch__.Point = prim::CreateObject()
# CHECK: prim::CallMethod[name="__init__"](%p.1, %a.1,
# CHECK: %q.1 : __torch__.Point = prim::CallMethod[name="shifted"](%p.1,
# CHECK: prim::CallMethod[name="norm1"](%p.1)
# CHECK: prim::CallMethod[name="__double_x_getter"](%q.1)
def use_class(a: int) -> int:
    p = Point(a, -a)
    q = p.shifted(1)
    return p.norm1() + q.double_x


# CHECK-LABEL: # use_namedtuple
# CHECK: %[[F:.*]] : float = prim::Constant[value=2.5]()
# CHECK: aten::add(%a.1, %[[F]])
def use_namedtuple(a: int) -> float:
    p = Pair(a, 2.5)
    return p.first + p.second


# CHECK-LABEL: # use_enum
# CHECK-DAG: Enum<__torch__.Color> = prim::Constant[value=__torch__.Color.RED]()
# CHECK-DAG: Enum<__torch__.Color> = prim::Constant[value=__torch__.Color.GREEN]()
# CHECK: aten::eq(%k.1,
# CHECK: prim::EnumValue(%k.1)
# CHECK: prim::EnumName(%k.1)
def use_enum(c: int) -> int:
    k = Color.RED if c > 0 else Color.GREEN
    if k == Color.GREEN:
        return k.value
    return len(k.name)


# Methods are printed after the functions.
# CHECK-LABEL: # __torch__.Point.__init__
# CHECK: prim::SetAttr[name="x"](%self.1, %x.1)
# CHECK: prim::SetAttr[name="tag"]
# CHECK-LABEL: # __torch__.Point.norm1
# CHECK: prim::GetAttr[name="x"](%self.1)
# CHECK: prim::abs
# CHECK-LABEL: # __torch__.Point.__double_x_getter
# CHECK: aten::mul
