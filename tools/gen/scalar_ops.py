"""Writes compiler/tests/data/scalar_ops.txt: what TorchScript's interpreter computes for scalar,
string and list ops on edge-case inputs, the oracle for Ember's constant folder.

Run with PyTorch installed: python tools/gen/scalar_ops.py > compiler/tests/data/scalar_ops.txt

Each line: KIND OUT_TYPE ARG... -> RESULT, where a value is int:N, float:REPR, bool:True,
str:HEX (UTF-8 bytes in hex), none, or ilist:N,N,... / flist:... / slist:HEX,...; RESULT is a value
or `raises`. Cases whose interpreter behaviour is undefined in C++ (INT64_MIN // -1, x % 0) are
left out: they crash the process.
"""
import math
import sys
import warnings

import torch

warnings.filterwarnings("ignore")

INF, NAN = float("inf"), float("nan")
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def enc(v, ty):
    if v is None:
        return "none"
    if ty == "bool":
        return f"bool:{v}"
    if ty == "int":
        return f"int:{v}"
    if ty == "float":
        return f"float:{v!r}"
    if ty == "str":
        return "str:" + v.encode().hex()
    if ty == "List[int]":
        return "ilist:" + ",".join(str(x) for x in v)
    if ty == "List[float]":
        return "flist:" + ",".join(repr(x) for x in v)
    if ty == "List[str]":
        return "slist:" + ",".join(x.encode().hex() for x in v)
    raise ValueError(ty)


def typeof(v):
    return {bool: "bool", int: "int", float: "float", str: "str"}[type(v)]


# (expression over a, b, ..., argument types, argument tuples)
CASES = [
    ("a + b", "int int", [(1, 2), (I64_MAX, 1), (-5, 3)]),
    ("a - b", "int int", [(1, 2), (I64_MIN, 1)]),
    ("a * b", "int int", [(6, 7), (2**62, 4), (-3, 5)]),
    ("a / b", "int int", [(7, 2), (-7, 2), (1, 0), (0, 0)]),
    ("a // b", "int int", [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (7, 0), (I64_MIN, 2)]),
    ("a % b", "int int", [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (I64_MIN, 3)]),
    ("a ** b", "int int", [(2, 3), (2, -1), (0, -1), (0, 0), (-2, 63), (3, 40), (-8, 3)]),
    ("a + b", "float float", [(0.1, 0.2), (-0.0, 0.0), (-0.0, -0.0), (INF, -INF), (NAN, 1.0)]),
    ("a - b", "float float", [(0.3, 0.1), (0.0, 0.0), (-0.0, 0.0)]),
    ("a * b", "float float", [(1.5, 2.0), (-1.0, 0.0), (INF, 0.0)]),
    ("a / b", "float float", [(1.0, 3.0), (1.0, 0.0), (-1.0, INF)]),
    ("a // b", "float float", [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (0.1, 0.01), (-5.0, INF), (1.0, 0.0), (-0.0, 1.0)]),
    ("a % b", "float float", [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (0.1, 0.01), (5.0, INF), (-0.0, 1.0), (1.0, 0.0)]),
    ("a ** b", "float float", [(2.0, 0.5), (-8.0, 1.0 / 3.0), (0.0, -1.0), (0.0, 0.0), (NAN, 0.0)]),
    ("a + b", "int float", [(1, 0.5), (2**53 + 1, 0.0)]),
    ("a * b", "float int", [(0.5, 3), (NAN, 0)]),
    ("a // b", "int float", [(7, 2.0), (7, 0.0)]),
    ("a < b", "int int", [(1, 2), (2, 1), (2, 2)]),
    ("a <= b", "int int", [(2, 2), (3, 2)]),
    ("a > b", "int int", [(3, 2), (2, 2)]),
    ("a >= b", "int int", [(2, 2), (1, 2)]),
    ("a == b", "int int", [(2, 2), (1, 2)]),
    ("a != b", "int int", [(2, 2), (1, 2)]),
    ("a < b", "float float", [(1.0, 2.0), (NAN, 1.0), (-0.0, 0.0)]),
    ("a == b", "float float", [(NAN, NAN), (-0.0, 0.0), (1.0, 1.0)]),
    ("a != b", "float float", [(NAN, NAN), (1.0, 1.0)]),
    ("a >= b", "float float", [(NAN, NAN), (2.0, 1.0)]),
    ("a < b", "int float", [(2**53 + 1, float(2**53)), (1, 1.5)]),
    ("a == b", "int float", [(1, 1.0), (2**53 + 1, float(2**53))]),
    ("a == b", "bool bool", [(True, True), (True, False)]),
    ("a == b", "str str", [("ab", "ab"), ("ab", "ac")]),
    ("a < b", "str str", [("ab", "ac"), ("b", "ab"), ("", "a")]),
    ("a & b", "bool bool", [(True, False), (True, True)]),
    ("a | b", "bool bool", [(True, False), (False, False)]),
    ("a ^ b", "bool bool", [(True, True), (True, False)]),
    ("a & b", "int int", [(12, 10), (-1, 5)]),
    ("a | b", "int int", [(12, 10)]),
    ("a ^ b", "int int", [(12, 10)]),
    ("not a", "bool", [(True,), (False,)]),
    ("-a", "int", [(5,), (I64_MIN,)]),
    ("-a", "float", [(0.0,), (-1.5,), (NAN,)]),
    ("abs(a)", "int", [(-5,), (I64_MIN,)]),
    ("abs(a)", "float", [(-0.0,), (-2.5,)]),
    ("min(a, b)", "int int", [(1, 2), (3, -3)]),
    ("max(a, b)", "int int", [(1, 2)]),
    ("min(a, b)", "float float", [(NAN, 1.0), (1.0, NAN), (-0.0, 0.0), (0.0, -0.0)]),
    ("max(a, b)", "float float", [(NAN, 1.0), (1.0, NAN), (-0.0, 0.0)]),
    ("int(a)", "float", [(2.7,), (-2.7,), (NAN,), (INF,), (1e30,), (-(2.0**63),)]),
    ("int(a)", "bool", [(True,)]),
    ("float(a)", "int", [(3,), (2**53 + 1,)]),
    ("float(a)", "bool", [(True,)]),
    ("bool(a)", "int", [(0,), (-2,)]),
    ("bool(a)", "float", [(0.0,), (-0.0,), (NAN,)]),
    ("str(a)", "int", [(-12,)]),
    ("str(a)", "bool", [(True,)]),
    ("len(a)", "str", [("abc",), ("héllo",), ("",)]),
    ("a[b]", "str int", [("abc", 1), ("abc", -1), ("abc", 3), ("abc", -4), ("héllo", 1), ("héllo", 0)]),
    ("a + b", "str str", [("ab", "cd"), ("", "")]),
    ("len(a)", "List[int]", [([1, 2, 3],), ([],)]),
    ("a[b]", "List[int] int", [([1, 2, 3], 0), ([1, 2, 3], -1), ([1, 2, 3], 3)]),
    ("b in a", "List[int] int", [([1, 2, 3], 2), ([1, 2, 3], 5)]),
    ("b in a", "List[float] float", [([1.0, NAN], NAN), ([0.0], -0.0)]),
    ("a == b", "List[int] List[int]", [([1, 2], [1, 2]), ([1, 2], [1, 3]), ([1], [1, 2])]),
    ("a == b", "List[float] List[float]", [([NAN], [NAN])]),
    ("min(a)", "List[int]", [([3, 1, 2],), ([],)]),
    ("max(a)", "List[float]", [([1.0, NAN, 3.0],), ([NAN, 1.0],)]),
    ("'{} and {}'.format(a, b)", "int str", [(1, "x")]),
    ("'{}'.format(a)", "bool", [(False,)]),
]


def main():
    out = sys.stdout
    print("# Generated by tools/gen/scalar_ops.py from PyTorch", torch.__version__, "- do not edit.", file=out)
    for expr, types, arg_sets in CASES:
        tys = types.split()
        names = "abcd"[: len(tys)]
        params = ", ".join(f"{n}: {t}" for n, t in zip(names, tys))
        src = f"def f({params}):\n    return {expr}\n"
        fn = torch.jit.CompilationUnit(src).f
        nodes = [n for n in fn.graph.nodes() if n.kind() != "prim::Constant"]
        if len(nodes) != 1:
            raise SystemExit(f"{expr}: expected one op, got {[n.kind() for n in nodes]}")
        node = nodes[0]
        kind = node.kind()
        out_ty = str(node.output().type())
        # Inputs in the node's order (the format string, then the arguments).
        for args in arg_sets:
            encoded = []
            for v in node.inputs():
                if v.node().kind() == "prim::Constant":
                    encoded.append(enc(v.toIValue(), str(v.type())))
                else:
                    i = names.index(v.debugName().split(".")[0])
                    encoded.append(enc(args[i], tys[i]))
            try:
                r = fn(*args)
                res = enc(r, typeof(r) if not isinstance(r, list) else out_ty)
            except Exception:
                res = "raises"
            print(kind, out_ty, *encoded, "->", res, file=out)


if __name__ == "__main__":
    main()
