"""Differential cases of the pointwise operators (runtime/src/ops/pointwise/).

For every op and overload: each dtype PyTorch has on CPU (errors recorded where it refuses
one), broadcasting, mixed dtypes, Python scalars and 0-dim tensors, non-contiguous inputs
(transposed, stepped slices, expanded), zero-size tensors, in-place forms (the mutated input
compared afterwards, also through a view), `out=` (resized, cast, refused) and error cases.

Each case's function is generated from source text (registered with linecache so that
`torch.jit.script` can read it) because the op name varies.
"""

import itertools
import linecache

import torch
from typing import List, Optional  # noqa: F401  (used by generated sources)

DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]
SHORT = {
    torch.bool: "b",
    torch.uint8: "u8",
    torch.int8: "i8",
    torch.int16: "i16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float32: "f32",
    torch.float64: "f64",
}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]

_count = itertools.count()


def has_overload(op, suffix="out"):
    """Whether `aten::<op>` has an overload whose name ends with `suffix` ("" for any)."""
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{op}")
    except RuntimeError:
        return False
    return any(s.overload_name.endswith(suffix) for s in schemas)


def script(sig, body):
    """A Python function `def case_N(<sig>): <body>` compiled from text."""
    name = f"case_{next(_count)}"
    lines = [f"def {name}({sig}):"] + ["    " + line for line in body.strip().split("\n")]
    src = "\n".join(lines) + "\n"
    filename = f"<pointwise/{name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"torch": torch, "Tensor": torch.Tensor, "Optional": Optional, "List": List, "__name__": "pointwise_cases"}
    exec(compile(src, filename, "exec"), ns)
    return ns[name]


# ---------------------------------------------------------------------------------------
# Sample values

GENERAL_FLOATS = [-2.5, -1.0, -0.0, 0.0, 0.5, 1.5, 3.0, -0.75, 2.0, 0.25, 7.0, -3.5]
SPECIAL_FLOATS = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.0]


def values(dtype, n, kind="general", seed=0):
    """`n` values of `dtype`: negatives where signed, specials (nan, inf, -0.0) for floats
    when `kind` is "special", no zeros when `kind` is "nonzero", small in [-1, 1] for
    "unit", positive for "positive"."""
    out = []
    for i in range(n):
        k = i + seed
        if dtype == torch.bool:
            v = True if kind in ("nonzero", "positive") else (k % 3 != 1)
        elif dtype == torch.uint8:
            v = [3, 1, 0, 7, 200, 2, 255, 5][k % 8]
            if kind in ("nonzero", "positive") and v == 0:
                v = 9
            if kind == "unit":
                v = k % 2
        elif dtype.is_floating_point:
            if kind == "special":
                v = SPECIAL_FLOATS[k % len(SPECIAL_FLOATS)]
            elif kind == "unit":
                v = [-0.9, -0.5, 0.0, 0.3, 0.75, 0.99, -0.2][k % 7]
            elif kind == "positive":
                v = [0.5, 1.5, 3.0, 0.25, 7.0, 2.0][k % 6]
            else:
                v = GENERAL_FLOATS[k % len(GENERAL_FLOATS)]
                if kind == "nonzero" and v == 0.0:
                    v = 1.25
        else:
            v = [3, -7, 0, 1, -1, 5, 2, -2][k % 8]
            if kind in ("nonzero", "positive") and v == 0:
                v = 4
            if kind == "positive":
                v = abs(v)
            if kind == "unit":
                v = [0, 1, -1][k % 3]
        out.append(v)
    return out


def tensor(dtype, shape=(2, 3), kind="general", seed=0):
    n = 1
    for s in shape:
        n *= s
    return torch.tensor(values(dtype, n, kind, seed), dtype=dtype).reshape(shape)


# ---------------------------------------------------------------------------------------
# Unary ops: (name, kind of sample values, has in-place form, has out= form)

UNARY = [
    ("abs", "general"),
    ("neg", "general"),
    ("sign", "general"),
    ("sgn", "general"),
    ("exp", "general"),
    ("exp2", "general"),
    ("expm1", "general"),
    ("log", "positive"),
    ("log2", "positive"),
    ("log10", "positive"),
    ("log1p", "positive"),
    ("sqrt", "positive"),
    ("rsqrt", "positive"),
    ("sin", "general"),
    ("cos", "general"),
    ("tan", "unit"),
    ("asin", "unit"),
    ("acos", "unit"),
    ("atan", "general"),
    ("sinh", "general"),
    ("cosh", "general"),
    ("tanh", "general"),
    ("asinh", "general"),
    ("acosh", "positive"),
    ("atanh", "unit"),
    ("erf", "general"),
    ("erfc", "general"),
    ("erfinv", "unit"),
    ("ceil", "general"),
    ("floor", "general"),
    ("round", "general"),
    ("trunc", "general"),
    ("frac", "general"),
    ("reciprocal", "nonzero"),
    ("square", "general"),
    ("sigmoid", "general"),
    ("nan_to_num", "special"),
    ("bitwise_not", "general"),
    ("logical_not", "general"),
]
# Tests: no in-place form.
UNARY_TESTS = ["isnan", "isinf", "isfinite", "signbit", "isposinf", "isneginf"]


def unary_cases(c):
    for op, kind in UNARY + [(t, "special") for t in UNARY_TESTS]:
        f = script("x", f"return torch.{op}(x)")
        for d in DTYPES:
            c.add(f"{op}_{SHORT[d]}", f, tensor(d, (2, 3), kind))
        # Specials (nan, inf, -0.0) in float32.
        c.add(f"{op}_special_f32", f, tensor(torch.float32, (6,), "special"))
        # Non-contiguous (transposed, stepped), 0-dim and zero-size inputs in one case.
        g = script(
            "x, s, e",
            f"return torch.{op}(x.t()), torch.{op}(x[:, ::2]), torch.{op}(s), torch.{op}(e)",
        )
        c.add(
            f"{op}_layouts",
            g,
            tensor(torch.float32, (3, 4), kind),
            tensor(torch.float32, (), kind, seed=4),
            torch.zeros(0, 3),
        )
        g = script("x", f"return torch.{op}(x.t())")
        c.add(f"{op}_layouts_i64", g, tensor(torch.int64, (3, 2), kind))
        # out=: resized from empty, cast into float64, refused into an integer tensor
        # where the result is floating.
        if not has_overload(op):
            continue
        g = script("x, o", f"return torch.{op}(x, out=o)")
        c.add(f"{op}_out_resize", g, tensor(torch.float32, (2, 3), kind), torch.empty(0))
        c.add(
            f"{op}_out_f64", g, tensor(torch.float32, (2, 3), kind), torch.zeros(2, 3, dtype=torch.float64)
        )
        c.add(
            f"{op}_out_i64", g, tensor(torch.int32, (2, 3), kind), torch.zeros(2, 3, dtype=torch.int64)
        )
        if not has_overload(op + "_", ""):
            continue
        # In place: the input compared afterwards; through a transposed view; on ints.
        g = script("x", f"return x.{op}_()")
        c.add(f"{op}_inplace_f32", g, tensor(torch.float32, (2, 3), kind))
        c.add(f"{op}_inplace_i32", g, tensor(torch.int32, (2, 3), kind))
        c.add(f"{op}_inplace_b", g, tensor(torch.bool, (2, 3), kind))
        g = script("x", f"y = x.t()\ny.{op}_()\nreturn x")
        c.add(f"{op}_inplace_view", g, tensor(torch.float32, (2, 3), kind))

    # round(decimals=), positive and negative.
    f = script("x, d: int", "return torch.round(x, decimals=d)")
    for d in DTYPES:
        c.add(f"round_decimals_{SHORT[d]}", f, tensor(d, (2, 3)) * (1 if d == torch.bool else 1), 1)
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, 1.25, 1234.5678, -0.125, 0.049])
    c.add("round_decimals_1", f, x, 1)
    c.add("round_decimals_2", f, x, 2)
    c.add("round_decimals_neg", f, x, -2)
    c.add("round_decimals_3_f64", f, x.double(), 3)
    g = script("x, d: int", "return x.round_(decimals=d)")
    c.add("round_decimals_inplace", g, x.clone(), 1)
    g = script("x, o, d: int", "return torch.round(x, decimals=d, out=o)")
    c.add("round_decimals_out", g, x.clone(), torch.empty(0), 1)
    # Half to even.
    r = script("x", "return torch.round(x)")
    for d in FLOATS:
        c.add(f"round_half_even_{SHORT[d]}", r, torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], dtype=d))

    # nan_to_num with explicit replacements, and the dtype limits of halves.
    f = script(
        "x, nan: Optional[float], posinf: Optional[float], neginf: Optional[float]",
        "return torch.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)",
    )
    for d in FLOATS:
        c.add(f"nan_to_num_args_{SHORT[d]}", f, tensor(d, (6,), "special"), 1.5, 100.0, -100.0)
        c.add(f"nan_to_num_defaults_{SHORT[d]}", f, tensor(d, (6,), "special"), None, None, None)
    c.add("nan_to_num_args_i32", f, tensor(torch.int32, (6,)), 1.5, None, -3.0)
    g = script("x", "return x.nan_to_num_(nan=2.0)")
    c.add("nan_to_num_inplace_nan", g, tensor(torch.float32, (6,), "special"))

    # Big integers are rounded to float32 before float math.
    f = script("x", "return torch.sqrt(x)")
    c.add("sqrt_big_i64", f, torch.tensor([16777217, 2**40 + 1, 9], dtype=torch.int64))
    # Values that stress the libraries: large and tiny arguments.
    for op in ["exp", "expm1", "log1p", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "asinh"]:
        f = script("x", f"return torch.{op}(x)")
        c.add(f"{op}_range_f32", f, torch.tensor([-90.0, -20.0, -1e-8, 1e-8, 1e-3, 20.0, 88.0]))
        c.add(f"{op}_range_f64", f, torch.tensor([-700.0, -20.0, -1e-300, 1e-12, 30.0, 700.0], dtype=torch.float64))
    f = script("x", "return torch.erfinv(x)")
    c.add("erfinv_edges", f, torch.tensor([-1.0, -0.999, -0.7, 0.7, 0.9999, 1.0, 1.5]))
    c.add("erfinv_edges_f64", f, torch.tensor([-1.0, -0.999999, -0.7, 0.7, 0.9999, 1.0, 1.5], dtype=torch.float64))
    # Integer overflow in abs/neg wraps.
    for op in ["abs", "neg"]:
        f = script("x", f"return torch.{op}(x)")
        c.add(f"{op}_wrap_i8", f, torch.tensor([-128, 127, 0], dtype=torch.int8))
        c.add(f"{op}_wrap_i64", f, torch.tensor([-(2**63), 2**63 - 1], dtype=torch.int64))


# ---------------------------------------------------------------------------------------
# Binary ops

# (name, other-sample kind, scalar other values, has in-place, self may be a Scalar)
BINARY = [
    ("add", "general", [2, 2.5], True, False),
    ("sub", "general", [2, 2.5], True, False),
    ("mul", "general", [2, 2.5], True, False),
    ("div", "nonzero", [2, 2.5], True, False),
    ("true_divide", "nonzero", [2, 2.5], True, False),
    ("floor_divide", "nonzero", [2, -2.5], True, False),
    ("remainder", "nonzero", [3, -2.5], True, True),
    ("fmod", "nonzero", [3, -2.5], True, False),
    ("pow", "unit", [2, 0.5, 3], True, True),
    ("atan2", "general", [], True, False),
    ("maximum", "general", [], False, False),
    ("minimum", "general", [], False, False),
    ("fmax", "general", [], False, False),
    ("fmin", "general", [], False, False),
    ("hypot", "general", [], True, False),
    ("copysign", "general", [-1.0, 2], True, False),
    ("logaddexp", "general", [], False, False),
    ("logaddexp2", "general", [], False, False),
    ("xlogy", "positive", [2.0], True, False),
    ("bitwise_and", "general", [3, True], True, True),
    ("bitwise_or", "general", [3], True, True),
    ("bitwise_xor", "general", [3], True, True),
    ("bitwise_left_shift", "shift", [2], True, True),
    ("bitwise_right_shift", "shift", [1], True, True),
    ("logical_and", "general", [], True, False),
    ("logical_or", "general", [], True, False),
    ("logical_xor", "general", [], True, False),
    ("eq", "general", [1, 1.5], True, False),
    ("ne", "general", [1, 1.5], True, False),
    ("lt", "general", [1, 1.5], True, False),
    ("le", "general", [1, 1.5], True, False),
    ("gt", "general", [1, 1.5], True, False),
    ("ge", "general", [1, 1.5], True, False),
]


def other_tensor(dtype, shape, kind, seed=3):
    if kind == "shift":
        if dtype == torch.bool or dtype.is_floating_point:
            return tensor(dtype, shape, "general", seed)
        vals = [0, 1, 3, 9, 2, 70 if dtype == torch.int64 else 7]
        if dtype != torch.uint8:
            vals[4] = -1
        n = 1
        for s in shape:
            n *= s
        return torch.tensor([vals[i % len(vals)] for i in range(n)], dtype=dtype).reshape(shape)
    return tensor(dtype, shape, kind, seed)


MIXED = [
    (torch.int32, torch.float32),
    (torch.uint8, torch.int8),
    (torch.bool, torch.int64),
    (torch.float16, torch.bfloat16),
    (torch.int64, torch.float16),
]


def binary_cases(c):
    for op, kind, scalars, inplace, scalar_self in BINARY:
        f = script("x, y", f"return torch.{op}(x, y)")
        # Same dtype on both sides, broadcasting [2, 3] with [3].
        for d in DTYPES:
            c.add(f"{op}_{SHORT[d]}", f, tensor(d, (2, 3)), other_tensor(d, (3,), kind))
        for a, b in MIXED:
            c.add(f"{op}_{SHORT[a]}_{SHORT[b]}", f, tensor(a, (2, 3)), other_tensor(b, (2, 3), kind))
        # 0-dim tensors take part in promotion below dimensioned ones.
        c.add(f"{op}_i32_0dim_f64", f, tensor(torch.int32, (2, 2)), other_tensor(torch.float64, (), kind))
        c.add(f"{op}_u8_0dim_i64", f, tensor(torch.uint8, (2, 2)), other_tensor(torch.int64, (), kind))
        c.add(f"{op}_f16_0dim_f64", f, tensor(torch.float16, (2, 2)), other_tensor(torch.float64, (), kind))
        # Specials against specials.
        c.add(
            f"{op}_special_f32",
            f,
            tensor(torch.float32, (6, 1), "special"),
            tensor(torch.float32, (1, 6), "special", seed=0),
        )
        # Non-contiguous, expanded and zero-size operands.
        g = script(
            "x, y, e",
            f"return torch.{op}(x.t(), y), torch.{op}(x[::2], y.t()[0]), "
            f"torch.{op}(x, y[0, :3].expand(4, 3)), torch.{op}(e, y.t()[0])",
        )
        c.add(
            f"{op}_layouts",
            g,
            tensor(torch.float32, (4, 3)),
            other_tensor(torch.float32, (3, 4), kind),
            torch.zeros(0, 3),
        )
        g = script("x, y", f"return torch.{op}(x.t(), y)")
        c.add(f"{op}_layouts_i32", g, tensor(torch.int32, (4, 3)), other_tensor(torch.int32, (3, 4), kind))
        # Shapes that do not broadcast (one shared path: a few ops suffice).
        if op in ("add", "div", "pow", "eq", "bitwise_and", "logical_or", "maximum"):
            c.add(f"{op}_broadcast_error", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (2,)))
        # Python scalars.
        for s in scalars:
            ty = type(s).__name__
            if isinstance(s, bool):
                # A bool argument would reach the op through aten::Int; TorchScript turns a
                # literal True into the int constant 1 itself.
                g = script("x, unused: int", f"return torch.{op}(x, {s})")
            else:
                g = script(f"x, s: {ty}", f"return torch.{op}(x, s)")
            for d in [torch.bool, torch.int32, torch.float16, torch.float32]:
                c.add(f"{op}_scalar_{ty}_{s}_{SHORT[d]}".replace(".", "p").replace("-", "m"), g, tensor(d, (2, 3)), int(s) if isinstance(s, bool) else s)
            if scalar_self:
                if isinstance(s, bool):
                    g = script("x, unused: int", f"return torch.{op}({s}, x)")
                else:
                    g = script(f"x, s: {ty}", f"return torch.{op}(s, x)")
                for d in [torch.int32, torch.float32]:
                    c.add(
                        f"{op}_scalar_self_{ty}_{s}_{SHORT[d]}".replace(".", "p").replace("-", "m"),
                        g,
                        other_tensor(d, (2, 3), kind),
                        int(s) if isinstance(s, bool) else s,
                    )
        # out=: resized, cast, refused.
        g = script("x, y, o", f"return torch.{op}(x, y, out=o)")
        c.add(f"{op}_out_resize", g, tensor(torch.float32, (2, 3)), other_tensor(torch.float32, (3,), kind), torch.empty(0))
        c.add(
            f"{op}_out_f64",
            g,
            tensor(torch.float32, (2, 3)),
            other_tensor(torch.float32, (3,), kind),
            torch.zeros(2, 3, dtype=torch.float64),
        )
        c.add(
            f"{op}_out_i64",
            g,
            tensor(torch.int32, (2, 3)),
            other_tensor(torch.int32, (3,), kind),
            torch.zeros(2, 3, dtype=torch.int64),
        )
        c.add(
            f"{op}_out_int_from_float",
            g,
            tensor(torch.float32, (2, 3)),
            other_tensor(torch.float32, (3,), kind),
            torch.zeros(2, 3, dtype=torch.int32),
        )
        if not inplace:
            continue
        # In place: mutated input checked; through a view; refused casts and growth.
        g = script("x, y", f"return x.{op}_(y)")
        for d in [torch.bool, torch.int32, torch.float16, torch.float32]:
            c.add(f"{op}_inplace_{SHORT[d]}", g, tensor(d, (2, 3)), other_tensor(d, (3,), kind))
        c.add(f"{op}_inplace_i32_f32", g, tensor(torch.int32, (2, 3)), other_tensor(torch.float32, (3,), kind))
        c.add(f"{op}_inplace_f32_i64", g, tensor(torch.float32, (2, 3)), other_tensor(torch.int64, (3,), kind))
        c.add(f"{op}_inplace_grow", g, tensor(torch.float32, (3,)), other_tensor(torch.float32, (2, 3), kind))
        g = script("x, y", f"z = x.t()\nz.{op}_(y)\nreturn x")
        c.add(f"{op}_inplace_view", g, tensor(torch.float32, (2, 3)), other_tensor(torch.float32, (2,), kind))
        g = script("x", f"z = x.expand(2, 3)\nreturn z.{op}_(z)")
        c.add(f"{op}_inplace_overlap", g, tensor(torch.float32, (3,)))
        if scalars:
            s = [v for v in scalars if not isinstance(v, bool)][-1]
            ty = type(s).__name__
            g = script(f"x, s: {ty}", f"return x.{op}_(s)")
            for d in [torch.int32, torch.float32]:
                c.add(f"{op}_inplace_scalar_{SHORT[d]}", g, tensor(d, (2, 3)), s)

    # Dunder operator forms, their in-place forms and the Python operators.
    for sym, name in [("&", "and"), ("|", "or"), ("^", "xor"), ("<<", "lshift"), (">>", "rshift")]:
        kind = "shift" if "shift" in name else "general"
        f = script("x, y", f"return x {sym} y")
        for d in [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float32]:
            c.add(f"__{name}___{SHORT[d]}", f, tensor(d, (2, 3)), other_tensor(d, (3,), kind))
        g = script("x, s: int", f"return x {sym} s")
        for d in [torch.bool, torch.int16, torch.int64]:
            c.add(f"__{name}___scalar_{SHORT[d]}", g, tensor(d, (2, 3)), 1)
        g = script("x, y", f"x {sym}= y\nreturn x")
        for d in [torch.bool, torch.int32]:
            c.add(f"__i{name}___{SHORT[d]}", g, tensor(d, (2, 3)), other_tensor(d, (3,), kind))
        g = script("x, y", f"return x.__{name}__(y)")
        c.add(f"__{name}___method_i32", g, tensor(torch.int32, (2, 3)), other_tensor(torch.int32, (3,), kind))
    # Shifts at and past the width, negative amounts.
    f = script("x, s: int", "return x << s, x >> s")
    for d in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
        for s in [-1, 7, 8, 31, 64]:
            c.add(f"shift_{SHORT[d]}_{s}".replace("-", "m"), f, tensor(d, (2, 4)), s)

    # Destinations that partly overlap an input are refused; the input itself or a disjoint
    # part of the same storage is fine.
    f = script("x", "return torch.add(x[1:], x[1:], out=x[:-1])")
    c.add("out_partial_overlap", f, tensor(torch.float32, (6,)))
    f = script("x", "return torch.exp(x[1:], out=x[:-1])")
    c.add("out_partial_overlap_unary", f, tensor(torch.float32, (6,)))
    # The generated Scalar_out overloads compute into a temporary: no overlap check.
    f = script("x", "return torch.add(x[1:], 1, out=x[:-1]), torch.mul(x[1:], 2, out=x[:-1])")
    c.add("out_partial_overlap_scalar", f, tensor(torch.float32, (6,)))
    f = script("x", "return x[:-1].add_(x[1:])")
    c.add("inplace_partial_overlap", f, tensor(torch.float32, (6,)))
    f = script("x", "return torch.exp(x[:3], out=x[3:]), x")
    c.add("out_disjoint_same_storage", f, tensor(torch.float32, (6,)))
    f = script("x", "return torch.mul(x, 2, out=x), x")
    c.add("out_is_input", f, tensor(torch.float32, (2, 3)))

    # Arithmetic operators and alpha.
    f = script("x, y, a: int", "return torch.add(x, y, alpha=a), torch.sub(x, y, alpha=a)")
    for d in [torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64]:
        c.add(f"add_sub_alpha_{SHORT[d]}", f, tensor(d, (2, 3)), tensor(d, (3,), seed=2), 3)
    f = script("x, y, a: float", "return torch.add(x, y, alpha=a)")
    c.add("add_alpha_float_f32", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)), 0.5)
    c.add("add_alpha_float_i32", f, tensor(torch.int32, (2, 3)), tensor(torch.int32, (3,)), 0.5)
    f = script("x, y", "return torch.add(x, y, alpha=True)")
    c.add("add_alpha_bool_b", f, tensor(torch.bool, (2, 3)), tensor(torch.bool, (3,)))
    c.add("add_alpha_bool_i32", f, tensor(torch.int32, (2, 3)), tensor(torch.int32, (3,)))
    f = script("x, s: float, a: float", "return torch.add(x, s, alpha=a), torch.sub(x, s, alpha=a)")
    c.add("add_sub_scalar_alpha_f32", f, tensor(torch.float32, (2, 3)), 1.5, 2.0)
    f = script("x, y, o, a: int", "return torch.sub(x, y, alpha=a, out=o)")
    c.add("sub_alpha_out", f, tensor(torch.int32, (2, 3)), tensor(torch.int32, (3,)), torch.empty(0, dtype=torch.int32), 2)
    f = script("x, y", "return x.sub_(y, alpha=2)")
    c.add("sub_alpha_inplace", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)))
    f = script("x, y", "return x - y")
    c.add("sub_bool_bool", f, tensor(torch.bool, (3,)), tensor(torch.bool, (3,)))
    c.add("sub_bool_i32", f, tensor(torch.bool, (3,)), tensor(torch.int32, (3,)))
    f = script("x, s: int", "return x - s")
    c.add("sub_bool_int", f, tensor(torch.bool, (3,)), 1)
    f = script("x, y, a: int", "return torch.rsub(x, y, alpha=a)")
    for d in [torch.int32, torch.float32, torch.bool]:
        c.add(f"rsub_{SHORT[d]}", f, tensor(d, (2, 3)), tensor(d, (3,), seed=1), 2)
    f = script("x, s: float", "return torch.rsub(x, s)")
    c.add("rsub_scalar_f32", f, tensor(torch.float32, (2, 3)), 1.5)
    c.add("rsub_scalar_i32", f, tensor(torch.int32, (2, 3)), 1.5)
    f = script("x, y", "return x + y, x - y, x * y, x / y, x // y, x % y, x ** y")
    c.add("operators_f32", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,), "nonzero"))
    c.add("operators_i64", f, tensor(torch.int64, (2, 3)), tensor(torch.int64, (3,), "positive"))
    f = script("x, s: int", "return x + s, s - x, x * s, s / x, x // s, x % s, x ** s, s ** x")
    c.add("operators_scalar_i32", f, tensor(torch.int32, (2, 3), "nonzero"), 2)
    f = script("x", "return -x, x.positive()")
    c.add("unary_operators_f32", f, tensor(torch.float32, (2, 3)))
    f = script("x", "return ~x")
    c.add("invert_b", f, tensor(torch.bool, (2, 3)))
    c.add("invert_i8", f, tensor(torch.int8, (2, 3)))
    # Out-of-range Python ints are cast to the tensor's dtype first.
    f = script("x, s: int", "return x + s, x == s, x * s")
    c.add("scalar_wraps_u8", f, torch.tensor([1, 44, 200], dtype=torch.uint8), 300)
    c.add("scalar_big_i64", f, torch.tensor([2**40, 2**40 + 1], dtype=torch.int64), 2**40)
    f = script("x, s: float", "return x == s, x < s")
    c.add("float_scalar_rounds_to_f32", f, torch.tensor([0.1, 0.2]), 0.1)
    c.add("float_scalar_rounds_to_f16", f, torch.tensor([0.1, 0.2], dtype=torch.float16), 0.1)

    # Division: rounding modes, zero divisors, integer semantics.
    for mode in ["trunc", "floor"]:
        f = script("x, y", f"return torch.div(x, y, rounding_mode='{mode}')")
        for d in DTYPES:
            c.add(f"div_{mode}_{SHORT[d]}", f, tensor(d, (2, 4)), tensor(d, (4,), "nonzero", seed=1))
        c.add(f"div_{mode}_special", f, tensor(torch.float32, (6, 1), "special"), tensor(torch.float32, (1, 6), "special"))
        c.add(f"div_{mode}_by_zero_f32", f, tensor(torch.float32, (2, 3)), torch.zeros(3))
        c.add(f"div_{mode}_by_zero_i32", f, tensor(torch.int32, (2, 3)), torch.tensor([1, 0, 2], dtype=torch.int32))
        c.add(f"div_{mode}_by_zero_empty", f, torch.zeros(0, 3, dtype=torch.int32), torch.tensor([1, 0, 2], dtype=torch.int32))
        g = script("x, s: int", f"return torch.div(x, s, rounding_mode='{mode}')")
        c.add(f"div_{mode}_scalar_i32", g, tensor(torch.int32, (2, 4)), -3)
        c.add(f"div_{mode}_scalar_zero_i32", g, tensor(torch.int32, (2, 4)), 0)
        g = script("x, y", f"return x.div_(y, rounding_mode='{mode}')")
        c.add(f"div_{mode}_inplace_i32", g, tensor(torch.int32, (2, 4)), tensor(torch.int32, (4,), "nonzero"))
        g = script("x, y, o", f"return torch.div(x, y, rounding_mode='{mode}', out=o)")
        c.add(f"div_{mode}_out", g, tensor(torch.float32, (2, 4)), tensor(torch.float32, (4,), "nonzero"), torch.empty(0))
    f = script("x, y, m: Optional[str]", "return torch.div(x, y, rounding_mode=m)")
    c.add("div_mode_none", f, tensor(torch.int32, (2, 3)), tensor(torch.int32, (3,), "nonzero"), None)
    f = script("x, y", "return torch.div(x, y, rounding_mode='round')")
    c.add("div_mode_bad", f, tensor(torch.int32, (2, 3)), tensor(torch.int32, (3,), "nonzero"))
    for op in ["floor_divide", "remainder", "fmod", "div"]:
        f = script("x, y", f"return torch.{op}(x, y)")
        c.add(f"{op}_by_zero_i64", f, tensor(torch.int64, (2, 3)), torch.tensor([1, 0, 2]))
        c.add(f"{op}_by_zero_f64", f, tensor(torch.float64, (2, 3)), torch.tensor([1.0, 0.0, -0.0], dtype=torch.float64))
        c.add(f"{op}_signs_i32", f, torch.tensor([7, -7, 7, -7, 0, 6], dtype=torch.int32), torch.tensor([2, 2, -2, -2, 3, -3], dtype=torch.int32))
        c.add(f"{op}_signs_f32", f, torch.tensor([7.5, -7.5, 7.5, -7.5, 0.0, -4.0, 4.0]), torch.tensor([2.0, 2.0, -2.0, -2.0, -3.0, 2.0, -2.0]))
        c.add(f"{op}_min_by_m1_i8", f, torch.tensor([-128, 127], dtype=torch.int8), torch.tensor([-1, -1], dtype=torch.int8))
        g = script("x, s: int", f"return torch.{op}(x, s)")
        c.add(f"{op}_scalar_zero_i64", g, tensor(torch.int64, (2, 3)), 0)
    f = script("x, s: int", "return torch.remainder(s, x)")
    c.add("remainder_scalar_self_zero", f, tensor(torch.int32, (2, 3)), 5)

    # pow: every overload, integer rules.
    f = script("x, s: int", "return torch.pow(x, s)")
    for d in DTYPES:
        c.add(f"pow_int_exp_{SHORT[d]}", f, tensor(d, (2, 3)), 3)
    c.add("pow_negative_int_exp_i32", f, tensor(torch.int32, (2, 3)), -2)
    c.add("pow_negative_int_exp_f32", f, tensor(torch.float32, (2, 3), "nonzero"), -2)
    c.add("pow_zero_exp_i32", f, tensor(torch.int32, (2, 3)), 0)
    f = script("x, s: float", "return torch.pow(x, s)")
    for s in [0.5, -0.5, 2.0, -1.0, 1.5, 0.0]:
        c.add(f"pow_float_exp_{s}".replace(".", "p").replace("-", "m"), f, tensor(torch.float32, (6,), "special"), s)
    c.add("pow_float_exp_i32", f, tensor(torch.int32, (2, 3)), 2.0)
    f = script("x, y", "return torch.pow(x, y)")
    c.add("pow_int_negative_tensor_exp", f, torch.tensor([3, -7, 1, -1, 2, 0], dtype=torch.int32), torch.tensor([1, -1, -3, -3, -2, 2], dtype=torch.int32))
    c.add("pow_i64_wraps", f, torch.tensor([3, -3, 2]), torch.tensor([40, 41, 63]))
    c.add("pow_special_f64", f, tensor(torch.float64, (6, 1), "special"), tensor(torch.float64, (1, 6), "special"))
    f = script("x, s: int", "return torch.pow(s, x)")
    for d in [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32]:
        c.add(f"pow_scalar_base_int_{SHORT[d]}", f, tensor(d, (2, 3)), 2)
    f = script("x, s: float", "return torch.pow(s, x)")
    for d in [torch.bool, torch.int32, torch.float32, torch.float64]:
        c.add(f"pow_scalar_base_float_{SHORT[d]}", f, tensor(d, (2, 3)), 2.5)
    f = script("x, s: int, o", "return torch.pow(s, x, out=o)")
    c.add("pow_scalar_base_out", f, tensor(torch.int32, (2, 3)), 2, torch.empty(0, dtype=torch.int32))
    f = script("x, s: int, o", "return torch.pow(x, s, out=o)")
    c.add("pow_scalar_exp_out", f, tensor(torch.float32, (2, 3)), 2, torch.empty(0))
    f = script("x, s: int", "return x.pow_(s)")
    c.add("pow_inplace_scalar_2_i32", f, tensor(torch.int32, (2, 3)), 2)
    c.add("pow_inplace_scalar_neg_i32", f, tensor(torch.int32, (2, 3)), -1)
    f = script("x", "return torch.float_power(x, 2)")
    c.add("float_power_i32", f, tensor(torch.int32, (2, 3)))
    c.add("float_power_f32", f, tensor(torch.float32, (2, 3)))
    f = script("x", "return x.float_power_(2)")
    c.add("float_power_inplace_f32", f, tensor(torch.float32, (2, 3)))
    c.add("float_power_inplace_f64", f, tensor(torch.float64, (2, 3)))

    # maximum/minimum propagate NaN, fmax/fmin ignore it; signed zeros.
    f = script("x, y", "return torch.maximum(x, y), torch.minimum(x, y), torch.fmax(x, y), torch.fmin(x, y)")
    c.add("extrema_nan", f, torch.tensor([1.0, float("nan"), 3.0, float("nan"), -1.0]), torch.tensor([2.0, 0.0, float("nan"), float("nan"), -1.0]))
    c.add("extrema_bool", f, tensor(torch.bool, (2, 3)), tensor(torch.bool, (3,), seed=1))
    # Comparisons between int64 and float beyond float precision.
    f = script("x, y", "return x == y, x < y")
    c.add("compare_i64_f32", f, torch.tensor([16777217, 16777216]), torch.tensor([16777216.0, 16777216.0]))


# ---------------------------------------------------------------------------------------
# Ternary ops

def ternary_cases(c):
    cond = torch.tensor([[True, False, True], [False, False, True]])
    f = script("c, x, y", "return torch.where(c, x, y)")
    for d in DTYPES:
        c.add(f"where_{SHORT[d]}", f, cond, tensor(d, (2, 3)), tensor(d, (3,), seed=2))
    for a, b in MIXED:
        c.add(f"where_{SHORT[a]}_{SHORT[b]}", f, cond, tensor(a, (2, 3)), tensor(b, (2, 3)))
    c.add("where_broadcast_cond", f, torch.tensor([True, False, True]), tensor(torch.float32, (2, 1)), tensor(torch.float32, (2, 3)))
    c.add("where_cond_i32", f, cond.int(), tensor(torch.float32, (2, 3)), tensor(torch.float32, (2, 3)))
    c.add("where_cond_u8", f, cond.to(torch.uint8), tensor(torch.float32, (2, 3)), tensor(torch.float32, (2, 3)))
    c.add("where_empty", f, torch.zeros(0, 3, dtype=torch.bool), tensor(torch.float32, (3,)), tensor(torch.float32, (1, 3)))
    g = script("c, x, y", "return torch.where(c.t(), x.t(), y[::2])")
    c.add("where_layouts", g, cond.t().contiguous(), tensor(torch.float32, (3, 2)), tensor(torch.float32, (4, 3)))
    g = script("c, x, s: float", "return torch.where(c, x, s)")
    for d in [torch.int32, torch.float16, torch.float32]:
        c.add(f"where_scalar_other_{SHORT[d]}", g, cond, tensor(d, (2, 3)), 1.5)
    g = script("c, x, s: int", "return torch.where(c, s, x)")
    for d in [torch.uint8, torch.int32, torch.float32, torch.bool]:
        c.add(f"where_scalar_self_{SHORT[d]}", g, cond, tensor(d, (2, 3)), 7)
    g = script("c, a: int, b: float", "return torch.where(c, a, b)")
    c.add("where_scalars_int_float", g, cond, 1, 2.5)
    g = script("c, a: int, b: int", "return torch.where(c, a, b)")
    c.add("where_scalars_int_int", g, cond, 1, -2)
    g = script("c, x, y, o", "return torch.where(c, x, y, out=o)")
    c.add("where_out", g, cond, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)), torch.empty(0))
    c.add("where_out_cast_error", g, cond, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)), torch.empty(0, dtype=torch.int64))

    # clamp / clip / clamp_min / clamp_max with Scalar and Tensor bounds.
    f = script("x, lo: Optional[float], hi: Optional[float]", "return torch.clamp(x, lo, hi)")
    for d in DTYPES:
        c.add(f"clamp_float_bounds_{SHORT[d]}", f, tensor(d, (2, 3)), -1.0, 1.5)
    c.add("clamp_min_only", f, tensor(torch.float32, (2, 3), "special"), 0.5, None)
    c.add("clamp_max_only", f, tensor(torch.float32, (2, 3), "special"), None, 0.5)
    c.add("clamp_none", f, tensor(torch.float32, (2, 3)), None, None)
    c.add("clamp_min_above_max", f, tensor(torch.float32, (2, 3)), 2.0, 1.0)
    f = script("x, lo: Optional[int], hi: Optional[int]", "return torch.clamp(x, lo, hi)")
    for d in DTYPES:
        c.add(f"clamp_int_bounds_{SHORT[d]}", f, tensor(d, (2, 3)), -1, 2)
    c.add("clamp_int_min_only_b", f, tensor(torch.bool, (2, 3)), 0, None)
    f = script("x, lo: Optional[Tensor], hi: Optional[Tensor]", "return torch.clamp(x, lo, hi)")
    for d in DTYPES:
        c.add(f"clamp_tensor_bounds_{SHORT[d]}", f, tensor(d, (2, 3)), tensor(d, (3,), "unit"), tensor(d, (2, 1), "positive"))
    c.add("clamp_tensor_min_only", f, tensor(torch.float32, (2, 3)), torch.tensor([0.0, float("nan"), 1.0]), None)
    c.add("clamp_tensor_mixed", f, tensor(torch.int32, (2, 3)), torch.tensor(1.5), None)
    c.add("clamp_tensor_none", f, tensor(torch.float32, (2, 3)), None, None)
    f = script("x", "return torch.clip(x, -1, 1), torch.clamp_min(x, 0.5), torch.clamp_max(x, 0.5), x.t().clamp(0, 1)")
    c.add("clip_clamp_min_max", f, tensor(torch.float32, (2, 3)))
    f = script("x, lo", "return torch.clamp_min(x, lo), torch.clamp_max(x, lo)")
    c.add("clamp_min_max_tensor", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,), "unit"))
    f = script("x", "return x.clamp_(-1, 1)")
    c.add("clamp_inplace_f32", f, tensor(torch.float32, (2, 3)))
    c.add("clamp_inplace_i32", f, tensor(torch.int32, (2, 3)))
    f = script("x", "return x.clamp_(-0.5, 1)")
    c.add("clamp_inplace_i32_float_bound", f, tensor(torch.int32, (2, 3)))
    f = script("x", "return x.clamp_min_(0), x.clamp_max_(1)")
    c.add("clamp_min_max_inplace", f, tensor(torch.float32, (2, 3)))
    f = script("x, o", "return torch.clamp(x, 0, 1, out=o)")
    c.add("clamp_out", f, tensor(torch.float32, (2, 3)), torch.empty(0))
    f = script("x, lo, hi, o", "return torch.clamp(x, lo, hi, out=o)")
    c.add("clamp_tensor_out", f, tensor(torch.float32, (2, 3)), torch.tensor([0.0]), torch.tensor([1.0]), torch.empty(0))

    # lerp.
    f = script("x, e, w: float", "return torch.lerp(x, e, w)")
    for d in DTYPES:
        c.add(f"lerp_scalar_{SHORT[d]}", f, tensor(d, (2, 3)), tensor(d, (3,), seed=3), 0.25)
    c.add("lerp_scalar_far", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,), seed=3), 0.75)
    c.add("lerp_dtype_mismatch", f, tensor(torch.float32, (2, 3)), tensor(torch.float64, (3,), seed=3), 0.75)
    f = script("x, e, w", "return torch.lerp(x, e, w)")
    for d in FLOATS + [torch.int32]:
        c.add(f"lerp_tensor_{SHORT[d]}", f, tensor(d, (2, 3)), tensor(d, (3,), seed=3), tensor(d, (2, 1), "unit"))
    c.add("lerp_weight_dtype_mismatch", f, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)), tensor(torch.float64, (2, 1)))
    g = script("x, e, w", "return torch.lerp(x.t(), e, w), x.lerp_(e.t(), 0.5)")
    c.add("lerp_layouts_inplace", g, tensor(torch.float32, (3, 3)), tensor(torch.float32, (3, 3), seed=2), tensor(torch.float32, (3,), "unit"))
    g = script("x, e, o", "return torch.lerp(x, e, 0.5, out=o)")
    c.add("lerp_out", g, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)), torch.empty(0))

    # addcmul / addcdiv.
    for op in ["addcmul", "addcdiv"]:
        kind = "nonzero" if op == "addcdiv" else "general"
        f = script("x, a, b", f"return torch.{op}(x, a, b)")
        for d in DTYPES:
            c.add(f"{op}_{SHORT[d]}", f, tensor(d, (2, 3)), tensor(d, (3,), seed=1), tensor(d, (2, 1), kind, seed=2))
        c.add(f"{op}_mixed", f, tensor(torch.int32, (2, 3)), tensor(torch.float32, (3,)), tensor(torch.float16, (2, 1), kind))
        for v in [2, 0.5, True]:
            ty = type(v).__name__
            if isinstance(v, bool):
                g = script("x, a, b, unused: int", f"return torch.{op}(x, a, b, value={v})")
            else:
                g = script(f"x, a, b, v: {ty}", f"return torch.{op}(x, a, b, value=v)")
            for d in [torch.int32, torch.float32]:
                c.add(f"{op}_value_{ty}_{SHORT[d]}", g, tensor(d, (2, 3)), tensor(d, (3,)), tensor(d, (2, 1), kind, seed=2), int(v) if isinstance(v, bool) else v)
        g = script("x, a, b", f"return x.{op}_(a.t(), b, value=2)")
        c.add(f"{op}_inplace", g, tensor(torch.float32, (3, 2)), tensor(torch.float32, (2, 3)), tensor(torch.float32, (2,), kind, seed=2))
        g = script("x, a, b, o", f"return torch.{op}(x, a, b, out=o)")
        c.add(f"{op}_out", g, tensor(torch.float32, (2, 3)), tensor(torch.float32, (3,)), tensor(torch.float32, (2, 1), kind), torch.empty(0))

    # masked_fill.
    mask = torch.tensor([True, False, True])
    f = script("x, m, v: float", "return torch.masked_fill(x, m, v)")
    for d in DTYPES:
        c.add(f"masked_fill_{SHORT[d]}", f, tensor(d, (2, 3)), mask, 2.5)
    c.add("masked_fill_nan", f, tensor(torch.float32, (2, 3)), mask, float("nan"))
    c.add("masked_fill_mask_i32", f, tensor(torch.float32, (2, 3)), mask.int(), 2.5)
    c.add("masked_fill_mask_u8", f, tensor(torch.float32, (2, 3)), mask.to(torch.uint8), 2.5)
    c.add("masked_fill_mask_i64", f, tensor(torch.float32, (2, 3)), mask.long(), 2.5)
    c.add("masked_fill_grows", f, tensor(torch.float32, (3,)), torch.tensor([[True], [False]]), 2.5)
    f = script("x, m, v: int", "return torch.masked_fill(x, m, v)")
    for d in [torch.bool, torch.uint8, torch.int64, torch.float32]:
        c.add(f"masked_fill_int_{SHORT[d]}", f, tensor(d, (2, 3)), mask, 300)
    # Values the dtype cannot hold are refused (Scalar::to<T> is checked); infinities pass
    # into floating dtypes.
    f = script("x, m, v: float", "return torch.masked_fill(x, m, v)")
    for v, tag in [(-1e9, "m1e9"), (1e39, "1e39"), (float("-inf"), "minf")]:
        for d in [torch.float16, torch.bfloat16, torch.float32, torch.int32, torch.int64]:
            c.add(f"masked_fill_range_{tag}_{SHORT[d]}", f, tensor(d, (3,)), mask, v)
    f = script("x, m, v", "return torch.masked_fill(x, m, v)")
    c.add("masked_fill_tensor_value", f, tensor(torch.int32, (2, 3)), mask, torch.tensor(2.5))
    c.add("masked_fill_tensor_value_1d", f, tensor(torch.int32, (2, 3)), mask, torch.tensor([2, 2]))
    g = script("x, m", "return x.masked_fill_(m, -1.0)")
    c.add("masked_fill_inplace", g, tensor(torch.float32, (2, 3)), mask)
    c.add("masked_fill_inplace_grow", g, tensor(torch.float32, (3,)), torch.tensor([[True], [False]]))
    g = script("x, m", "y = x.t()\ny.masked_fill_(m, 9)\nreturn x")
    c.add("masked_fill_inplace_view", g, tensor(torch.int64, (3, 2)), torch.tensor([False, True, True]))
    # An expanded self is still accepted (deprecated): a shared location takes the value when
    # the mask is true at any element on it.
    g = script("x, m", "y = x.expand(2, 3)\ny.masked_fill_(m, 7.0)\nreturn x, y")
    c.add("masked_fill_inplace_expanded", g, torch.arange(3.0), torch.tensor([[True, False, False], [False, False, True]]))
    g = script("x, m, o", "return torch.masked_fill(x.t(), m, 0.5, out=o)")
    c.add("masked_fill_out_layouts", g, tensor(torch.float32, (3, 2)), mask, torch.empty(0))


# ---------------------------------------------------------------------------------------
# Activations

# Called as aten ops: the functional wrappers become prim::CallFunction, whose bodies are not
# part of the graph text the suite stores.
A = "torch.ops.aten."
ACTIVATIONS = [
    ("relu", "torch.relu(x)", "torch.relu_(x)"),
    ("relu6", A + "relu6(x)", A + "relu6_(x)"),
    ("hardtanh", A + "hardtanh(x, -0.5, 2.0)", A + "hardtanh_(x, -0.5, 2.0)"),
    ("gelu", A + "gelu(x)", A + "gelu_(x)"),
    ("gelu_tanh", A + "gelu(x, approximate='tanh')", A + "gelu_(x, approximate='tanh')"),
    ("silu", A + "silu(x)", A + "silu_(x)"),
    ("hardswish", A + "hardswish(x)", A + "hardswish_(x)"),
    ("hardsigmoid", A + "hardsigmoid(x)", A + "hardsigmoid_(x)"),
    ("leaky_relu", A + "leaky_relu(x, 0.2)", A + "leaky_relu_(x, 0.2)"),
    ("elu", A + "elu(x, 0.7)", A + "elu_(x, 0.7)"),
    ("selu", "torch.selu(x)", "torch.selu_(x)"),
    ("celu", "torch.celu(x, 1.5)", "torch.celu_(x, 1.5)"),
    ("softplus", A + "softplus(x, 2.0, 3.0)", None),
    ("mish", A + "mish(x)", A + "mish_(x)"),
    ("logsigmoid", A + "log_sigmoid(x)", None),
    ("threshold", "torch.threshold(x, 0.5, -2.0)", "torch.threshold_(x, 0.5, -2.0)"),
]


def activation_cases(c):
    big = torch.tensor([-30.0, -5.0, -3.0, -1.0, -0.0, 0.0, 0.5, 2.9, 3.0, 6.5, 25.0, float("nan")])
    for name, expr, inplace in ACTIVATIONS:
        f = script("x", f"return {expr}")
        for d in DTYPES:
            c.add(f"{name}_{SHORT[d]}", f, tensor(d, (2, 3)))
        c.add(f"{name}_range_f32", f, big)
        c.add(f"{name}_range_f64", f, big.double())
        c.add(f"{name}_range_bf16", f, big.bfloat16())
        g = script("x, e", f"y = x.t()\nz = e\nreturn {expr.replace('(x', '(y')}, {expr.replace('(x', '(z')}")
        c.add(f"{name}_layouts", g, tensor(torch.float32, (3, 2)), torch.zeros(0, 2))
        if inplace:
            g = script("x", f"return {inplace}")
            c.add(f"{name}_inplace", g, tensor(torch.float32, (2, 3)))
            c.add(f"{name}_inplace_i32", g, tensor(torch.int32, (2, 3)))
            g = script("x", f"y = x[:, ::2]\n{inplace.replace('(x', '(y')}\nreturn x")
            c.add(f"{name}_inplace_view", g, tensor(torch.float32, (2, 4)))
    # out= forms.
    f = script("x, o", "return torch.sigmoid(x, out=o)")
    c.add("sigmoid_out", f, tensor(torch.float32, (2, 3)), torch.empty(0))
    f = script("x, o", "return torch.tanh(x, out=o)")
    c.add("tanh_out", f, tensor(torch.float32, (2, 3)), torch.empty(0, dtype=torch.float64))
    for op in ["gelu", "silu", "hardswish", "hardsigmoid", "mish", "log_sigmoid", "elu", "leaky_relu", "softplus", "hardtanh"]:
        f = script("x, o", f"return torch._C._nn.{op}(x, out=o)")
        c.add(f"{op}_out", f, tensor(torch.float32, (2, 3)), torch.empty(0))
        c.add(f"{op}_out_int_error", f, tensor(torch.float32, (2, 3)), torch.empty(0, dtype=torch.int32))
    f = script("x", "return torch.ops.aten.gelu(x, approximate='bad')")
    c.add("gelu_bad_approximate", f, tensor(torch.float32, (2, 3)))
    f = script("x", "return torch.celu(x, 0.0)")
    c.add("celu_zero_alpha", f, tensor(torch.float32, (2, 3)))
    f = script("x, a: float, s: float, i: float", "return torch.ops.aten.elu(x, a, s, i)")
    c.add("elu_scales", f, big, 0.5, 2.0, 1.5)
    f = script("x, b: float, t: float", "return torch.ops.aten.softplus(x, b, t)")
    c.add("softplus_beta_threshold", f, big, 0.5, 1.0)
    c.add("softplus_beta_threshold_f64", f, big.double(), 3.0, 20.0)
    f = script("x, lo: float, hi: float", "return torch.ops.aten.hardtanh(x, lo, hi)")
    c.add("hardtanh_i32_float_bounds", f, tensor(torch.int32, (2, 3)), -1.5, 2.5)
    f = script("x, t: float, v: float", "return torch.threshold(x, t, v)")
    c.add("threshold_args_i64", f, tensor(torch.int64, (2, 3)), 1.0, 5.0)
    c.add("threshold_args_f16", f, tensor(torch.float16, (2, 3)), 0.25, -1.5)

    # Dropout in evaluation mode is the identity (the same tensor comes back).
    for op in ["dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"]:
        f = script("x, p: float, train: bool", f"y = torch.{op}(x, p, train)\nreturn y, y is x")
        for d in [torch.float32, torch.int32, torch.float16]:
            c.add(f"{op}_eval_{SHORT[d]}", f, tensor(d, (2, 3)), 0.5, False)
        c.add(f"{op}_p_too_big", f, tensor(torch.float32, (2, 3)), 1.5, False)
        c.add(f"{op}_p_negative", f, tensor(torch.float32, (2, 3)), -0.1, False)
        c.add(f"{op}_train_p0", f, tensor(torch.float32, (2, 3)), 0.0, True)
        c.add(f"{op}_train_empty", f, torch.zeros(0, 3), 0.5, True)
        g = script("x, p: float, train: bool", f"return torch.{op}_(x, p, train)")
        c.add(f"{op}_inplace_eval", g, tensor(torch.float32, (2, 3)), 0.5, False)
    f = script("x", "return torch.dropout(x, 1.0, True)")
    c.add("dropout_train_p1", f, tensor(torch.float32, (2, 3), "special"))
    f = script("x", "return torch.dropout(x, 0.5, False), torch.feature_dropout(x, 0.3, False)")
    c.add("dropout_3d_eval", f, tensor(torch.float32, (2, 3, 2)))


def cases(c):
    unary_cases(c)
    binary_cases(c)
    ternary_cases(c)
    activation_cases(c)
