"""int()/float()/bool()/str() and hex/oct/bin under TorchScript, including str(float)'s own
formatting (`1.`, 17 significant digits) and the parse errors of int(str)/float(str)."""

from typing import List, Tuple


def cases(c):
    def str_float(x: float) -> str:
        return str(x)

    for tag, x in [("tenth", 0.1), ("integral", 1.0), ("big", 1e16), ("bigger", 1e20),
                   ("tiny", 1e-5), ("pi", 3.14159265358979), ("neg_zero", -0.0),
                   ("huge", 1.5e300), ("nan", float("nan")), ("neg_inf", float("-inf")),
                   ("third", 1.0 / 3.0), ("neg_half", -0.5)]:
        c.add(f"str_float_{tag}", str_float, x)

    def str_values(a: int, b: bool, l: List[float]) -> Tuple[str, str, str, str]:
        return str(a), str(b), str(l), str((a, b, "s"))

    c.add("str_values", str_values, -12, True, [1.0, 2.5])

    def from_str_int(s: str) -> int:
        return int(s)

    for tag, s in [("plain", "12"), ("signed", "-3"), ("plus", "+7"), ("lead_space", "  5"),
                   ("trail_space", " 12 "), ("float_text", "1.5"), ("garbage", "abc"),
                   ("empty", "")]:
        c.add(f"int_of_str_{tag}", from_str_int, s)

    def from_str_float(s: str) -> float:
        return float(s)

    for tag, s in [("plain", "1.5"), ("exp", "1e3"), ("inf", "inf"), ("neg", "-0.25"),
                   ("trail_space", " 2 "), ("garbage", "abc"), ("underscore", "1_0")]:
        c.add(f"float_of_str_{tag}", from_str_float, s)

    def numbers(x: float, a: int, b: bool) -> Tuple[int, float, bool, bool, int, float]:
        return int(x), float(a), bool(a), bool(x), int(b), float(b)

    c.add("numeric_conversions", numbers, -1.9, 0, True)
    c.add("numeric_conversions_nonzero", numbers, 2.5, 3, False)

    def int_of_nan(x: float) -> int:
        return int(x)

    c.add("int_of_nan", int_of_nan, float("nan"))
    c.add("int_of_huge", int_of_nan, 1e30)

    def radix(i: int) -> Tuple[str, str, str]:
        return hex(i), oct(i), bin(i)

    c.add("hex_oct_bin", radix, 255)
    c.add("hex_oct_bin_negative", radix, -5)
    c.add("hex_oct_bin_zero", radix, 0)
