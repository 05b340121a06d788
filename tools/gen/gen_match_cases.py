#!/usr/bin/env python3
"""Record how real TorchScript resolves builtin calls, for Ember's schema matching tests
(compiler/src/frontend/schema_match_tests.rs): each case scripts a small function whose
parameters carry the argument types, and records the nodes PyTorch emitted for the call
(overload conversions, defaults, list packing, inlined builtin functions) or the error.

Run with the torch virtual environment:
    ~/.cache/torch-venv/bin/python tools/gen/gen_match_cases.py

Writes compiler/tests/data/match_cases.txt. A case:
    ## <the Python call>
    op <the symbol emitBuiltinCall resolves>
    args <ARG> ; <ARG> ; ...         ARG: a parameter type (schema syntax), `=LITERAL`, either
                                     prefixed `NAME=` for a keyword, or `self:TYPE`
    then either `graph` and one line per node:
      kind(INPUT, ...) -> TYPE, ...  INPUT: %aN (parameter N), %nK / %nK.J (output J of the
                                     K-th node listed), or a constant `TYPE VALUE`
      nested blocks are listed after their node, indented by two more spaces per level
    or `error "<PyTorch's message, JSON-escaped>"` (the text before the source excerpt).
"""

import argparse
import json
import os
import re
import warnings

import math  # noqa: F401  (the scripted cases resolve names in this module)
from typing import Dict, List, Optional, Tuple  # noqa: F401

import torch
from torch import Tensor  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "..", "compiler", "tests", "data", "match_cases.txt")

# Schema syntax of a parameter type -> Python annotation.
ANNOTATIONS = {
    "Tensor": "Tensor",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "Scalar": "number",
    "complex": "complex",
    "Device": "torch.device",
    "int[]": "List[int]",
    "float[]": "List[float]",
    "bool[]": "List[bool]",
    "str[]": "List[str]",
    "Tensor[]": "List[Tensor]",
    "Tensor?": "Optional[Tensor]",
    "int?": "Optional[int]",
    "(int, int)": "Tuple[int, int]",
    "(float, float)": "Tuple[float, float]",
    "(int, float)": "Tuple[int, float]",
    "(Tensor, Tensor)": "Tuple[Tensor, Tensor]",
    "Dict(str, int)": "Dict[str, int]",
    "int[][]": "List[List[int]]",
}

# (symbol, call template, args). The template names the call: `torch.add` (function),
# `.add` (method on the `self:` argument), `{0} * {1}` (an expression over the arguments),
# `{0}.ndim` (property).
CASES = [
    # plain overloads, defaults filled in
    ("aten::add", "torch.add", ["Tensor", "Tensor"]),
    ("aten::add", "torch.add", ["Tensor", "=2.5"]),
    ("aten::add", "torch.add", ["Tensor", "=2"]),
    ("aten::add", "torch.add", ["Tensor", "Tensor", "alpha==2"]),
    ("aten::add", "torch.add", ["Tensor", "Scalar"]),
    ("aten::add", "torch.add", ["int", "int"]),
    ("aten::add", "torch.add", ["int", "float"]),
    ("aten::add", "torch.add", ["float", "int"]),
    ("aten::add", "torch.add", ["str", "str"]),
    ("aten::add", "torch.add", ["int[]", "int[]"]),
    ("aten::add", "torch.add", ["Scalar", "Scalar"]),
    ("aten::add", "torch.add", ["bool", "bool"]),
    ("aten::add", "torch.add", ["Tensor", "bool"]),
    ("aten::add", ".add", ["self:Tensor", "Tensor"]),
    ("aten::add_", ".add_", ["self:Tensor", "=1"]),
    ("aten::sub", "torch.sub", ["Tensor", "Tensor", "alpha==3"]),
    ("aten::mul", "torch.mul", ["Tensor", "float"]),
    ("aten::div", "torch.div", ["Tensor", "Tensor", 'rounding_mode=="floor"']),
    ("aten::div", "torch.div", ["int", "int"]),
    ("aten::relu", "torch.relu", ["Tensor"]),
    ("aten::relu", "torch.relu", ["input=Tensor"]),
    ("aten::relu", ".relu", ["self:Tensor"]),
    ("aten::sigmoid", "torch.sigmoid", ["Tensor"]),
    ("aten::tanh", "torch.tanh", ["Tensor"]),
    ("aten::neg", "torch.neg", ["int"]),
    ("aten::matmul", "torch.matmul", ["Tensor", "Tensor"]),
    ("aten::where", "torch.where", ["Tensor", "Tensor", "Tensor"]),
    ("aten::where", "torch.where", ["Tensor", "Tensor", "=0.0"]),
    ("aten::clamp", "torch.clamp", ["Tensor", "min==0.0"]),
    ("aten::clamp", "torch.clamp", ["Tensor", "=-1", "=1"]),
    ("aten::clamp", "torch.clamp", ["Tensor", "min=Tensor"]),
    ("aten::pow", "torch.pow", ["Tensor", "=2"]),
    ("aten::pow", "torch.pow", ["float", "Tensor"]),
    ("aten::pow", "torch.pow", ["int", "int"]),
    # reductions: int for int[1], optional lists, dtype
    ("aten::sum", "torch.sum", ["Tensor"]),
    ("aten::sum", "torch.sum", ["Tensor", "=1"]),
    ("aten::sum", "torch.sum", ["Tensor", "=[0, 1]"]),
    ("aten::sum", "torch.sum", ["Tensor", "int[]", "keepdim==True"]),
    ("aten::sum", "torch.sum", ["Tensor", "dtype==6"]),
    ("aten::sum", "torch.sum", ["int[]"]),
    ("aten::sum", "torch.sum", ["float[]"]),
    ("aten::sum", "torch.sum", ["Tensor", "=(0, 1)"]),
    ("aten::sum", "torch.sum", ["Tensor", "(int, int)"]),
    ("aten::sum", "torch.sum", ["Tensor", "dim=int?"]),
    ("aten::mean", "torch.mean", ["Tensor", "int[]", "dtype=int?"]),
    ("aten::mean", "torch.mean", ["Tensor", "=-1", "=True"]),
    ("aten::mean", ".mean", ["self:Tensor", "dim==1"]),
    ("aten::max", "torch.max", ["Tensor"]),
    ("aten::max", "torch.max", ["Tensor", "=0"]),
    ("aten::max", "torch.max", ["Tensor", "Tensor"]),
    ("aten::max", "torch.max", ["Tensor", "dim==1", "keepdim==True"]),
    ("aten::min", "torch.min", ["Tensor", "=1"]),
    ("aten::argmax", "torch.argmax", ["Tensor"]),
    ("aten::softmax", "torch.softmax", ["Tensor", "=1"]),
    ("aten::softmax", ".softmax", ["self:Tensor", "=-1"]),
    ("aten::log_softmax", "torch.log_softmax", ["Tensor", "int"]),
    ("aten::cumsum", "torch.cumsum", ["Tensor", "=0"]),
    ("aten::topk", "torch.topk", ["Tensor", "=3"]),
    ("aten::sort", "torch.sort", ["Tensor", "descending==True"]),
    # varargs gathered into lists, tuples to lists, ints repeated for int[N]
    ("aten::zeros", "torch.zeros", ["=2", "=3"]),
    ("aten::zeros", "torch.zeros", ["int", "int"]),
    ("aten::zeros", "torch.zeros", ["int[]"]),
    ("aten::zeros", "torch.zeros", ["=[2, 3]"]),
    ("aten::zeros", "torch.zeros", ["(int, int)"]),
    ("aten::zeros", "torch.zeros", ["=(2, 3)"]),
    ("aten::zeros", "torch.zeros", ["int", "dtype==6"]),
    ("aten::ones", "torch.ones", ["int", "int", "device=str"]),
    ("aten::ones", "torch.ones", ["int[]", "dtype==7", "device=Device"]),
    ("aten::full", "torch.full", ["int[]", "float"]),
    ("aten::empty", "torch.empty", ["=[1]"]),
    ("aten::randn", "torch.randn", ["int", "int"]),
    ("aten::zeros_like", "torch.zeros_like", ["Tensor"]),
    ("aten::arange", "torch.arange", ["int"]),
    ("aten::arange", "torch.arange", ["int", "int"]),
    ("aten::arange", "torch.arange", ["float", "float", "float"]),
    ("aten::arange", "torch.arange", ["=10", "dtype==6"]),
    ("aten::view", ".view", ["self:Tensor", "=-1"]),
    ("aten::view", ".view", ["self:Tensor", "=2", "=-1"]),
    ("aten::view", ".view", ["self:Tensor", "int[]"]),
    ("aten::view", ".view", ["self:Tensor", "(int, int)"]),
    ("aten::reshape", "torch.reshape", ["Tensor", "=(2, -1)"]),
    ("aten::reshape", ".reshape", ["self:Tensor", "int", "int"]),
    ("aten::permute", ".permute", ["self:Tensor", "=1", "=0"]),
    ("aten::permute", "torch.permute", ["Tensor", "=[1, 0]"]),
    ("aten::expand", ".expand", ["self:Tensor", "=2", "=3"]),
    ("aten::repeat", ".repeat", ["self:Tensor", "int", "int"]),
    ("aten::flatten", "torch.flatten", ["Tensor", "=1"]),
    ("aten::transpose", "torch.transpose", ["Tensor", "=0", "=1"]),
    ("aten::unsqueeze", ".unsqueeze", ["self:Tensor", "=0"]),
    ("aten::squeeze", "torch.squeeze", ["Tensor"]),
    ("aten::squeeze", "torch.squeeze", ["Tensor", "=1"]),
    ("aten::size", ".size", ["self:Tensor"]),
    ("aten::size", ".size", ["self:Tensor", "=0"]),
    ("aten::size", ".size", ["self:Tensor", "Tensor"]),
    ("aten::dim", ".dim", ["self:Tensor"]),
    ("aten::numel", ".numel", ["self:Tensor"]),
    ("aten::contiguous", ".contiguous", ["self:Tensor"]),
    ("aten::item", ".item", ["self:Tensor"]),
    ("aten::to", ".to", ["self:Tensor", "=6"]),
    ("aten::to", ".to", ["self:Tensor", "Device"]),
    ("aten::to", ".to", ["self:Tensor", "str"]),
    ("aten::to", ".to", ["self:Tensor", "Tensor"]),
    ("aten::to", ".to", ["self:Tensor", "dtype==6", "non_blocking==True"]),
    ("aten::type_as", ".type_as", ["self:Tensor", "Tensor"]),
    ("aten::cat", "torch.cat", ["Tensor[]"]),
    ("aten::cat", "torch.cat", ["Tensor[]", "=1"]),
    ("aten::cat", "torch.cat", ["Tensor[]", "dim==-1"]),
    ("aten::cat", "torch.cat", ["(Tensor, Tensor)"]),
    ("aten::stack", "torch.stack", ["Tensor[]"]),
    ("aten::split", "torch.split", ["Tensor", "=2"]),
    ("aten::split", ".split", ["self:Tensor", "int[]", "=1"]),
    ("aten::chunk", "torch.chunk", ["Tensor", "=2", "=1"]),
    ("aten::select", ".select", ["self:Tensor", "=0", "int"]),
    ("aten::index_select", "torch.index_select", ["Tensor", "=0", "Tensor"]),
    ("aten::masked_fill", ".masked_fill", ["self:Tensor", "Tensor", "=0.0"]),
    ("aten::masked_fill", ".masked_fill", ["self:Tensor", "Tensor", "float"]),
    ("aten::eq", "torch.eq", ["Tensor", "=0"]),
    ("aten::eq", "torch.eq", ["int", "int"]),
    ("aten::eq", "torch.eq", ["str", "str"]),
    ("aten::eq", "torch.eq", ["int[]", "int[]"]),
    ("aten::lt", "torch.lt", ["float", "int"]),
    ("aten::ne", "torch.ne", ["Tensor", "Tensor"]),
    ("aten::tensor", "torch.tensor", ["float"]),
    ("aten::tensor", "torch.tensor", ["int[]"]),
    ("aten::tensor", "torch.tensor", ["=[1.0, 2.0]", "dtype==6"]),
    ("aten::linear", "torch.nn.functional.linear", ["Tensor", "Tensor"]),
    ("aten::linear", "torch.nn.functional.linear", ["Tensor", "Tensor", "Tensor?"]),
    ("aten::conv2d", "torch.nn.functional.conv2d", ["Tensor", "Tensor"]),
    ("aten::conv2d", "torch.nn.functional.conv2d", ["Tensor", "Tensor", "stride==2", "padding==1"]),
    ("aten::conv2d", "torch.conv2d", ["Tensor", "Tensor", "Tensor", "=(2, 2)"]),
    ("aten::conv2d", "torch.conv2d", ["Tensor", "Tensor", "padding==\"same\""]),
    ("aten::gelu", "torch.nn.functional.gelu", ["Tensor"]),
    ("aten::gelu", "torch.nn.functional.gelu", ["Tensor", 'approximate=="tanh"']),
    ("aten::max_pool2d", "torch.max_pool2d", ["Tensor", "=2"]),
    ("aten::avg_pool2d", "torch._C._nn.avg_pool2d", ["Tensor", "=3"]),
    ("aten::dropout", "torch.dropout", ["Tensor", "=0.5", "=False"]),
    ("aten::layer_norm", "torch.layer_norm", ["Tensor", "int[]"]),
    ("aten::embedding", "torch.embedding", ["Tensor", "Tensor"]),
    ("aten::batch_norm", "torch.batch_norm", ["Tensor", "Tensor?", "Tensor?", "Tensor?", "Tensor?", "=False", "=0.1", "=1e-5", "=True"]),
    # implicit conversions
    ("aten::sqrt", "math.sqrt", ["float"]),
    ("aten::sqrt", "math.sqrt", ["int"]),
    ("aten::sqrt", "math.sqrt", ["bool"]),
    ("aten::sqrt", "math.sqrt", ["Tensor"]),
    ("aten::sqrt", "math.sqrt", ["Scalar"]),
    ("aten::floor", "math.floor", ["float"]),
    ("aten::floor", "math.floor", ["Scalar"]),
    ("aten::ceil", "math.ceil", ["float"]),
    ("aten::log", "math.log", ["float"]),
    ("aten::log", "math.log", ["float", "float"]),
    ("aten::exp", "math.exp", ["int"]),
    ("aten::pow", "math.pow", ["float", "int"]),
    ("aten::isnan", "math.isnan", ["float"]),
    ("aten::gcd", "math.gcd", ["int", "int"]),
    ("aten::factorial", "math.factorial", ["int"]),
    ("aten::atan2", "math.atan2", ["float", "float"]),
    ("aten::fabs", "math.fabs", ["float"]),
    ("aten::Int", "int", ["Tensor"]),
    ("aten::Int", "int", ["float"]),
    ("aten::Int", "int", ["str"]),
    ("aten::Int", "int", ["Scalar"]),
    ("aten::Int", "int", ["bool"]),
    ("aten::Float", "float", ["Tensor"]),
    ("aten::Float", "float", ["int"]),
    ("aten::Float", "float", ["str"]),
    ("aten::Bool", "bool", ["Tensor"]),
    ("aten::Bool", "bool", ["int"]),
    ("aten::str", "str", ["int"]),
    ("aten::str", "str", ["Tensor"]),
    ("aten::str", "str", ["int[]"]),
    ("aten::len", "len", ["int[]"]),
    ("aten::len", "len", ["Tensor"]),
    ("aten::len", "len", ["str"]),
    ("aten::len", "len", ["Dict(str, int)"]),
    ("aten::len", "len", ["Tensor[]"]),
    ("prim::min", "min", ["int", "int"]),
    ("prim::min", "min", ["float", "int"]),
    ("prim::min", "min", ["int[]"]),
    ("prim::min", "min", ["int[]", "int[]"]),
    ("prim::min", "min", ["Tensor", "Tensor"]),
    ("prim::max", "max", ["float", "float"]),
    ("prim::max", "max", ["int", "float"]),
    ("prim::abs", "abs", ["int"]),
    ("prim::abs", "abs", ["float"]),
    ("prim::abs", "abs", ["Tensor"]),
    ("prim::abs", "abs", ["Scalar"]),
    ("aten::round", "round", ["float"]),
    ("aten::round", "round", ["Tensor"]),
    ("aten::divmod", "divmod", ["int", "int"]),
    ("aten::divmod", "divmod", ["float", "int"]),
    ("aten::ord", "ord", ["str"]),
    ("aten::chr", "chr", ["int"]),
    ("aten::hash", "hash", ["str"]),
    ("aten::hash", "hash", ["int"]),
    ("aten::sorted", "sorted", ["int[]"]),
    ("aten::all", "all", ["bool[]"]),
    ("aten::any", "any", ["Tensor"]),
    ("aten::bin", "bin", ["int"]),
    ("aten::pow", "pow", ["int", "int"]),
    ("aten::pow", "pow", ["float", "float"]),
    ("aten::sum", "sum", ["int[]"]),
    ("aten::list", "list", ["str"]),
    ("aten::__range_length", "torch.ops.aten.__range_length", ["int", "int", "int"]),
    ("aten::device", "torch.device", ["str"]),
    ("aten::device", "torch.device", ["str", "int"]),
    # lists and strings through their methods
    ("aten::append", ".append", ["self:int[]", "int"]),
    ("aten::append", ".append", ["self:Tensor[]", "Tensor"]),
    ("aten::append", ".append", ["self:float[]", "int"]),
    ("aten::append", ".append", ["self:float[]", "float"]),
    ("aten::insert", ".insert", ["self:int[]", "=0", "int"]),
    ("aten::pop", ".pop", ["self:int[]"]),
    ("aten::index", ".index", ["self:int[]", "int"]),
    ("aten::extend", ".extend", ["self:int[]", "int[]"]),
    ("aten::__getitem__", "torch.ops.aten.__getitem__", ["int[]", "int"]),
    ("aten::__getitem__", "torch.ops.aten.__getitem__", ["str", "int"]),
    ("aten::__getitem__", "torch.ops.aten.__getitem__", ["Dict(str, int)", "str"]),
    ("aten::keys", ".keys", ["self:Dict(str, int)"]),
    ("aten::get", ".get", ["self:Dict(str, int)", "str", "int"]),
    ("aten::split", ".split", ["self:str", '=","']),
    ("aten::join", ".join", ["self:str", "str[]"]),
    ("aten::lower", ".lower", ["self:str"]),
    ("aten::startswith", ".startswith", ["self:str", "str"]),
    ("aten::format", ".format", ["self:str", "int", "Tensor"]),
    ("aten::strip", ".strip", ["self:str"]),
    ("aten::replace", ".replace", ["self:str", "str", "str"]),
    ("aten::find", ".find", ["self:str", "str"]),
    ("aten::__contains__", "{1} in {0}", ["str", "str"]),
    ("aten::__contains__", "{1} in {0}", ["int[]", "int"]),
    ("aten::__contains__", "{1} in {0}", ["Dict(str, int)", "str"]),
    # operators of the emitter, through builtin functions where PyTorch defines them
    ("aten::mul", "{0} * {1}", ["=2", "Tensor"]),
    ("aten::mul", "{0} * {1}", ["float", "Tensor"]),
    ("aten::mul", "{0} * {1}", ["Tensor", "float"]),
    ("aten::mul", "{0} * {1}", ["int[]", "int"]),
    ("aten::add", "{0} + {1}", ["int", "Tensor"]),
    ("aten::add", "{0} + {1}", ["Scalar", "Tensor"]),
    ("aten::add", "{0} + {1}", ["complex", "Tensor"]),
    ("aten::sub", "{0} - {1}", ["float", "Tensor"]),
    ("aten::div", "{0} / {1}", ["int", "Tensor"]),
    ("aten::div", "{0} / {1}", ["int", "int"]),
    ("aten::lt", "{0} < {1}", ["=2", "Tensor"]),
    ("aten::ge", "{0} >= {1}", ["float", "Tensor"]),
    ("aten::eq", "{0} == {1}", ["int", "Tensor"]),
    ("aten::ne", "{0} != {1}", ["float", "Tensor"]),
    ("aten::floordiv", "{0} // {1}", ["Tensor", "=2"]),
    ("aten::floordiv", "{0} // {1}", ["Tensor", "Tensor"]),
    ("aten::floordiv", "{0} // {1}", ["int", "int"]),
    ("aten::remainder", "{0} % {1}", ["Tensor", "int"]),
    ("aten::remainder", "{0} % {1}", ["int", "int"]),
    ("aten::pow", "{0} ** {1}", ["Tensor", "=2"]),
    ("aten::pow", "{0} ** {1}", ["int", "int"]),
    ("aten::neg", "-{0}", ["Tensor"]),
    ("aten::__and__", "{0} & {1}", ["Tensor", "Tensor"]),
    ("aten::__or__", "{0} | {1}", ["bool", "bool"]),
    ("aten::__xor__", "{0} ^ {1}", ["int", "int"]),
    ("aten::__lshift__", "{0} << {1}", ["int", "int"]),
    ("aten::matmul", "{0} @ {1}", ["Tensor", "Tensor"]),
    ("aten::bitwise_not", "~{0}", ["Tensor"]),
    ("aten::_assert", "torch._assert", ["bool", "str"]),
    ("aten::_assert", "torch._assert", ["Tensor", "str"]),
    ("aten::_pair", "torch.nn.modules.utils._pair", ["int"]),
    ("aten::_triple", "torch.nn.modules.utils._triple", ["float"]),
    ("aten::list_with_default", "torch.nn.modules.utils._list_with_default", ["int[]", "int[]"]),
    ("aten::type", ".type", ["self:Tensor", "=6"]),
    # properties
    ("prim::ndim", "{0}.ndim", ["Tensor"]),
    ("prim::shape", "{0}.shape", ["Tensor"]),
    ("prim::T", "{0}.T", ["Tensor"]),
    ("prim::H", "{0}.H", ["Tensor"]),
    ("aten::mT", "{0}.mT", ["Tensor"]),
    ("prim::dtype", "{0}.dtype", ["Tensor"]),
    ("prim::device", "{0}.device", ["Tensor"]),
    ("prim::requires_grad", "{0}.requires_grad", ["Tensor"]),
    ("prim::is_cuda", "{0}.is_cuda", ["Tensor"]),
    ("prim::layout", "{0}.layout", ["Tensor"]),
    ("aten::real", "{0}.real", ["Tensor"]),
    ("prim::type", "{0}.type", ["Device"]),
    ("prim::index", "{0}.index", ["Device"]),
    # errors
    ("aten::add", "torch.add", ["Tensor", '="a"']),
    ("aten::add", "torch.add", ["Tensor"]),
    ("aten::relu", "torch.relu", ["Tensor", "=1"]),
    ("aten::relu", "torch.relu", ["Tensor", "foo==1"]),
    ("aten::relu", "torch.relu", ["Tensor", "self=Tensor"]),
    ("aten::sum", "torch.sum", ["Tensor", '="a"']),
    ("aten::dim", ".dim", ["self:Tensor", "=1"]),
    ("aten::len", "len", ["int"]),
    ("prim::min", "min", ["str", "int"]),
    ("aten::zeros", "torch.zeros", ["str"]),
    ("aten::append", ".append", ["self:int[]", "str"]),
    ("aten::append", ".append", ["self:int[]", "float"]),
    ("aten::cat", "torch.cat", ["Tensor", "Tensor"]),
    ("aten::view", ".view", ["self:Tensor", "float"]),
    ("aten::Int", "int", ["int[]"]),
    ("aten::ord", "ord", ["int"]),
    ("aten::chr", "chr", ["int", "int"]),
    ("aten::eq", "torch.eq", ["Tensor", "str"]),
    ("aten::__getitem__", "torch.ops.aten.__getitem__", ["Dict(str, int)", "int"]),
    ("aten::add", "torch.add", ["Tensor", "Tensor", "other=Tensor"]),
    ("aten::add", "torch.add", ["int[]", "float[]"]),
    ("aten::add", "torch.add", ["Tensor", "Tensor", "alpha=str"]),
    ("aten::zeros", "torch.zeros", ["int", "float"]),
    ("aten::upper", ".upper", ["self:str", "=1"]),
    ("aten::keys", ".keys", ["self:Dict(str, int)", "=1"]),
    ("aten::clamp", "torch.clamp", ["Tensor", "min=str"]),
    ("aten::sum", "torch.sum", ["Tensor", "dim=(float, float)"]),
    ("aten::cat", "torch.cat", ["(int, int)"]),
    ("aten::len", "len", ["(int, int)"]),
    ("aten::reluu", "torch.reluu", ["Tensor"]),
    ("aten::nosuchop_zzz", "torch.nosuchop_zzz", ["Tensor"]),
]

# Calls of operators that do not exist only reach `emitBuiltinCall` through the native
# resolver (`torch` as a builtin module), which is how archives are compiled: these cases are
# recorded by loading an archive whose code calls the operator.
ARCHIVE_CASES = {"aten::reluu", "aten::nosuchop_zzz"}

LITERAL_TYPES = {bool: "bool", int: "int", float: "float", str: "str"}


def split_arg(spec):
    """(keyword or None, is_self, spec without prefix)."""
    if spec.startswith("self:"):
        return None, True, spec[len("self:"):]
    m = re.match(r"^(\w+)=(.*)$", spec)
    if m and not spec.startswith("="):
        return m.group(1), False, m.group(2)
    return None, False, spec


def build_source(template, args):
    params, positional, keyword, self_expr = [], [], [], None
    for i, spec in enumerate(args):
        kw, is_self, ty = split_arg(spec)
        if ty.startswith("="):
            expr = ty[1:]
        else:
            params.append(f"a{i}: {ANNOTATIONS[ty]}")
            expr = f"a{i}"
        if is_self:
            self_expr = expr
        elif kw is not None:
            keyword.append(f"{kw}={expr}")
        else:
            positional.append(expr)
    if "{" in template:
        call = template.format(*positional)
    elif template.startswith("."):
        call = f"{self_expr}{template}({', '.join(positional + keyword)})"
    else:
        call = f"{template}({', '.join(positional + keyword)})"
    src = (
        f"def f({', '.join(params)}):\n    return {call}\n"
    )
    return src, call


def describe_constant(node):
    ty = node.output().type()
    if isinstance(ty, torch.NoneType):
        return "None"
    v = node.output().toIValue()
    t = str(ty)
    if isinstance(v, str):
        return f"{t} {json.dumps(v)}"
    if isinstance(v, bool):
        return f"{t} {'True' if v else 'False'}"
    if isinstance(v, float):
        return f"{t} {repr(v)}"
    return f"{t} {v}"


def summarize(graph, params):
    """One line per non-constant node, blocks indented; see the module docstring."""
    names = {}
    for i, v in enumerate(graph.inputs()):
        names[v.unique()] = f"%a{params[i]}"
    lines = []
    counter = [0]

    def walk(block, depth):
        for n in block.nodes():
            if n.kind() == "prim::Constant":
                names[n.output().unique()] = describe_constant(n)
                continue
            k = counter[0]
            counter[0] += 1
            outs = list(n.outputs())
            for j, o in enumerate(outs):
                names[o.unique()] = f"%n{k}" if j == 0 else f"%n{k}.{j}"
            ins = ", ".join(names.get(v.unique(), "?") for v in n.inputs())
            types = ", ".join(str(o.type()) for o in outs)
            lines.append("  " * (depth + 1) + f"{n.kind()}({ins}) -> {types}".rstrip(" ->"))
            for b in n.blocks():
                lines.append("  " * (depth + 2) + "block")
                # block inputs are named by position
                for j, v in enumerate(b.inputs()):
                    names[v.unique()] = f"%b{j}"
                walk(b, depth + 2)

    walk(graph, 0)
    return lines


def archive_error(call):
    """The error of loading an archive whose forward returns `call` (over `x`)."""
    import io
    import zipfile

    class M(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x)

    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(M()), buf)
    zin = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.endswith(".py"):
                data = data.replace(b"torch.relu(x)", call.encode())
            zout.writestr(item, data)
    try:
        torch.jit.load(io.BytesIO(out.getvalue()))
    except Exception as e:
        return str(e)
    raise RuntimeError(f"{call} loaded")


def run_case(symbol, template, args):
    src, call = build_source(template, args)
    if symbol in ARCHIVE_CASES:
        call = call.replace("a0", "x")
    param_indices = [i for i, s in enumerate(args) if not split_arg(s)[2].startswith("=")]
    head = [f"## {call}", f"op {symbol}", "args " + " ; ".join(args)]
    try:
        if symbol in ARCHIVE_CASES:
            raise RuntimeError(archive_error(call))
        cu = torch.jit.CompilationUnit(src)
    except Exception as e:
        msg = str(e)
        # The text before PyTorch's source excerpt.
        msg = msg.split(":\n  File \"")[0]
        if msg.startswith("\n"):
            msg = msg[1:]
        return head + ["error " + json.dumps(msg)]
    lines = summarize(cu.f.graph, param_indices)
    if not lines:
        return None
    return head + ["graph"] + lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    out = [
        "# DO NOT EDIT: generated by tools/gen/gen_match_cases.py",
        f"# torch {torch.__version__}",
    ]
    count = 0
    for case in CASES:
        rec = run_case(*case)
        if rec is None:
            print("folded, left out:", case)
            continue
        out.append("")
        out.extend(rec)
        count += 1
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {count} cases to {os.path.normpath(args.out)}")


if __name__ == "__main__":
    main()
