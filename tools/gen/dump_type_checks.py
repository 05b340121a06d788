#!/usr/bin/env python3
"""Record what real PyTorch answers about types and overloads, for Ember's differential tests.

Run with the torch virtual environment:
    ~/.cache/torch-venv/bin/python tools/gen/dump_type_checks.py

Writes dialects/data/type_checks.txt, one check a line, fields separated by " | ":
    sub     A | B | true|false          A.isSubtypeOf(B)
    unify   A | B | T|none              torch._C.unify_type_list([A, B])
    repr    A | R                       A.annotation_str (the spelling of error messages)
    resolve KIND | T1 ; T2 ; ... | S    the overload (`aten::add.Tensor`) Node::schema() picks for
                                        a node of KIND with inputs of those types, "(no schema)"
                                        if none
Types are written in schema syntax, which Ember's schema parser reads.
"""

import argparse
import os

import torch
import torchvision  # noqa: F401  (its operators are in the catalogue too)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "..", "dialects", "data", "type_checks.txt")

TYPES = [
    "int", "float", "complex", "bool", "str", "NoneType", "Scalar", "Tensor", "Any", "Device",
    "Generator", "Storage", "Stream", "Capsule", "QScheme", "AnyClassType", "AnyEnumType",
    "SymBool", "int?", "Scalar?", "Tensor?", "str?", "Any?", "int[]", "float[]", "Scalar[]",
    "Tensor[]", "Tensor?[]", "int[]?", "int?[]", "(int, int)", "(int, float)", "(Scalar, Scalar)",
    "(int, NoneType)", "(int, str)", "(int, str?)", "()", "(Tensor, Tensor?)", "Dict(str, int)",
    "Dict(str, Scalar)", "Dict(str, Tensor)", "Dict(int, Tensor)", "Future(int)",
    "Future(Scalar)", "Future(NoneType)", "RRef(int)", "Await(int)", "Union(int, str)",
    "Union(int, str)?", "Union(int, float, complex)", "Union(int, float, str)",
    "Union(int, NoneType, str)", "Union(Tensor, int)", "t", "t1", "t[]", "t?", "Dict(str, t)",
    "__torch__.torch.classes.quantized.Conv2dPackedParamsBase",
]


def schema_str(t):
    """A type in schema syntax. (`Type.str()` from Python spells futures `Future[int]`,
    which schemas do not.)"""
    kind = t.kind()
    if kind == "OptionalType":
        return schema_str(t.getElementType()) + "?"
    if kind == "ListType":
        return schema_str(t.getElementType()) + "[]"
    if kind == "TupleType":
        return "(" + ", ".join(schema_str(e) for e in t.elements()) + ")"
    if kind == "DictType":
        return f"Dict({schema_str(t.getKeyType())}, {schema_str(t.getValueType())})"
    if kind == "UnionType":
        return "Union(" + ", ".join(schema_str(e) for e in t.containedTypes()) + ")"
    for name in ("Future", "RRef", "Await"):
        if kind == name + "Type":
            return f"{name}({schema_str(t.containedTypes()[0])})"
    return t.str()


def parse_type(text):
    return torch._C.parse_schema(f"a::b({text} x) -> ()").arguments[0].type


def relations(types):
    out = []
    for a in types:
        ta = parse_type(a)
        out.append(f"repr {a} | {ta.annotation_str}")
        for b in types:
            tb = parse_type(b)
            out.append(f"sub {a} | {b} | {'true' if ta.isSubtypeOf(tb) else 'false'}")
            try:
                u = schema_str(torch._C.unify_type_list([ta, tb]))
            except RuntimeError:
                u = "none"
            out.append(f"unify {a} | {b} | {u}")
    return out


def substitute(t, var, opt):
    """The type with type variables replaced by `var` and, when `opt` is False, optionals
    replaced by their element."""
    kind = t.kind()
    if kind == "VarType":
        return var
    if kind == "ListType":
        return torch._C.ListType(substitute(t.getElementType(), var, opt))
    if kind == "OptionalType":
        inner = substitute(t.getElementType(), var, opt)
        return torch._C.OptionalType(inner) if opt else inner
    if kind == "TupleType":
        return torch._C.TupleType([substitute(e, var, opt) for e in t.elements()])
    if kind == "DictType":
        return torch._C.DictType(substitute(t.getKeyType(), var, opt), substitute(t.getValueType(), var, opt))
    return t


NONE = torch._C.NoneType.get()
INT = torch._C.IntType.get()
FLOAT = torch._C.FloatType.get()
BOOL = torch._C.BoolType.get()
TENSOR = torch._C.TensorType.get()


def variants(schema):
    """A few input-type lists a node of this schema's kind might have."""
    formals = [a.type for a in schema.arguments]
    yield [substitute(t, INT, False) for t in formals]
    yield [substitute(t, TENSOR, True) for t in formals]
    # Scalars as ints and floats, optionals as None.
    yield [NONE if t.kind() == "OptionalType" else
           (INT if t.kind() == "NumberType" else substitute(t, FLOAT, False)) for t in formals]
    yield [FLOAT if t.kind() == "NumberType" else substitute(t, INT, True) for t in formals]
    # Near misses: bools for scalars, ints for tensors.
    yield [BOOL if t.kind() == "NumberType" else
           (INT if t.kind() == "TensorType" else substitute(t, INT, False)) for t in formals]


def resolutions():
    out = []
    seen = set()
    for schema in torch._C._jit_get_all_schemas():
        text = str(schema)
        if "..." in text.split(" -> ")[0] or "PyObject" in text:
            continue
        for inputs in variants(schema):
            texts = [schema_str(t) for t in inputs]
            key = (schema.name, tuple(texts))
            if key in seen:
                continue
            seen.add(key)
            g = torch._C.Graph()
            values = []
            for t in inputs:
                v = g.addInput()
                v.setType(t)
                values.append(v)
            n = g.create(schema.name, values, 1)
            g.insertNode(n)
            chosen = n.schema()
            if chosen != "(no schema)":
                chosen = chosen.split("(", 1)[0]
            out.append(f"resolve {schema.name} | {' ; '.join(texts)} | {chosen}")
    out.sort()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    lines = relations(TYPES) + resolutions()
    header = [
        "# DO NOT EDIT: generated by tools/gen/dump_type_checks.py",
        f"# torch {torch.__version__}, torchvision {torchvision.__version__}",
    ]
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(header + lines) + "\n")
    print(f"wrote {len(lines)} checks to {os.path.normpath(args.out)}")


if __name__ == "__main__":
    main()
