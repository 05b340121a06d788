"""More TorchScript features on Python values: Optional refinement and unwrapping, tuples
(comparison, slicing, concatenation, unpacking), exception classes and assert messages, math
constants, lists and dicts holding tensors, warnings."""

import math
import warnings
from typing import Dict, List, Optional, Tuple

import torch


def cases(c):
    def optional_int(x: Optional[int], d: int) -> Tuple[int, bool, bool]:
        y = x if x is not None else d
        return y, x is None, x is not None

    c.add("optional_none", optional_int, None, 7)
    c.add("optional_value", optional_int, 3, 7)

    def unwrap(x: Optional[float]) -> float:
        assert x is not None
        return x * 2.0

    c.add("unwrap_value", unwrap, 1.25)
    c.add("unwrap_none_asserts", unwrap, None)

    def tuples(a: int, b: int) -> Tuple[bool, bool, bool, bool, Tuple[int, int], Tuple[int, int, int, str]]:
        t = (a, b, 3)
        u = (a, b + 1, 0)
        head = t[:2]
        both = t + ("x",)
        return t == u, t != u, t[0] == u[0], t[-1] > u[-1], head, both

    c.add("tuple_compare_slice_concat", tuples, 1, 2)

    def tuple_len_unpack(a: List[int]) -> Tuple[int, int, int]:
        t = (a[0], a[1], len(a))
        x, y, z = t
        return len(t), x + y, z

    c.add("tuple_len_unpack", tuple_len_unpack, [4, 5, 6])

    def nested(n: int) -> List[Tuple[int, str]]:
        out: List[Tuple[int, str]] = []
        for i in range(n):
            out.append((i, str(i)))
        out.sort(reverse=True)
        return out

    c.add("sort_tuples", nested, 3)

    def raise_runtime(x: int) -> int:
        if x > 1:
            raise RuntimeError("runtime went wrong: " + str(x))
        return x

    c.add("raise_runtime_error", raise_runtime, 5)

    def raise_plain(x: int) -> int:
        if x > 1:
            raise Exception("plain exception")
        return x

    c.add("raise_exception", raise_plain, 5)

    def raise_key(x: str) -> int:
        if x != "ok":
            raise KeyError(x)
        return 0

    c.add("raise_key_error", raise_key, "missing")

    def assert_bare(x: int) -> int:
        assert x == 0
        return x

    c.add("assert_without_message", assert_bare, 2)

    def constants(x: float) -> Tuple[float, float, float, bool]:
        return math.pi * x, math.e + x, -math.inf, math.isnan(math.nan)

    c.add("math_constants", constants, 2.0)

    def tensor_list(a: torch.Tensor, b: torch.Tensor) -> Tuple[List[torch.Tensor], int, int]:
        l = [b, a, b]
        l.sort()
        n = l.index(a)
        k = l.count(b)
        return l, n, k

    c.add("tensor_list_sort_index_count", tensor_list, torch.tensor([1.5]), torch.tensor([3.0]))

    def tensor_dict(a: torch.Tensor, b: torch.Tensor) -> Tuple[torch.Tensor, int, List[str]]:
        d: Dict[str, torch.Tensor] = {"a": a}
        d["b"] = b
        d["c"] = d["a"]
        d["a"] = d["b"]
        return d["a"], len(d), list(d.keys())

    c.add("tensor_dict", tensor_dict, torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5]))

    def warn_and_return(x: int) -> int:
        if x < 0:
            warnings.warn("negative input")
        return -x

    c.add("warn_does_not_fail", warn_and_return, -4)

    def mixed_arith(a: int, b: float) -> Tuple[float, float, float, int, float]:
        return a + b, a * b, a / 2, a // 3, b // 0.5

    c.add("mixed_int_float", mixed_arith, 7, 2.5)

    def int_list_minmax(a: List[int], b: List[int]) -> Tuple[int, int, List[int]]:
        return max(a), min(b), max(a, b)

    c.add("int_list_minmax", int_list_minmax, [3, 9, 1], [4, 2])

    def list_range(n: int) -> Tuple[List[int], List[int]]:
        r = list(range(n))
        s = [i * 2 for i in range(1, n, 2)]
        return r, s

    c.add("list_of_range", list_range, 5)

    def bool_ops(a: bool, b: bool) -> Tuple[bool, bool, bool, bool, int]:
        return a and b, a or b, not a, a != b, int(a) + int(b)

    c.add("bool_logic", bool_ops, True, False)

    def tensor_str(x: torch.Tensor) -> str:
        return str(x)

    for tag, t in [
        ("float_column", torch.tensor([1.5, 2.0, -3.25])),
        ("long_matrix", torch.tensor([[1, 2], [3, 40]])),
        ("scalar", torch.tensor(2.5)),
        ("bool", torch.tensor([True, False])),
        ("wide_range", torch.tensor([1e-5, 1e5])),
        ("empty", torch.zeros(0, 3)),
        ("cube", torch.arange(24.0).reshape(2, 3, 4)),
        ("double", torch.tensor([1.0, 2.0], dtype=torch.float64)),
        ("scaled_large", torch.tensor([1234567.5, 2.25e6])),
        ("scaled_small", torch.tensor([0.001, 0.0025])),
        ("big_ints", torch.tensor([1234567, 3])),
        ("non_finite", torch.tensor([float("nan"), float("inf"), -1.5])),
        ("wide_matrix", torch.arange(30.0).reshape(1, 30) / 7),
        ("int8_scaled_cube", torch.tensor([[[0.5, 1e6]]])),
    ]:
        c.add(f"str_tensor_{tag}", tensor_str, t)

    def print_tensor_fstring(x: torch.Tensor, n: int) -> str:
        return f"x={x} n={n}"

    c.add("fstring_tensor", print_tensor_fstring, torch.tensor([1, 2]), 3)

    def complex_math(a: float, b: float) -> Tuple[str, float, str]:
        z = complex(a, b)
        w = z * z + 1 - z / complex(0.0, 2.0)
        return str(z), abs(w), str(-w)

    c.add("complex_arithmetic", complex_math, 1.5, -2.0)

    def isinstance_optional(x: Optional[int]) -> int:
        if isinstance(x, int):
            return x + 1
        return -1

    c.add("isinstance_optional_value", isinstance_optional, 4)
    c.add("isinstance_optional_none", isinstance_optional, None)

    def isinstance_list(x: List[int]) -> bool:
        y: Optional[List[int]] = x
        return isinstance(y, List[int])

    c.add("isinstance_list", isinstance_list, [1])
