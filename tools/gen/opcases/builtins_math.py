"""The math module and scalar builtins under TorchScript: C semantics for domain errors,
floor/ceil to int, pow/abs/min/max/round/divmod, shifts and int64 wrapping."""

import math
from typing import Tuple


def cases(c):
    def unary(x: float) -> Tuple[float, float, float, float, float, float, float, float]:
        return (math.sqrt(x), math.exp(x), math.log(x), math.log10(x), math.log1p(x),
                math.expm1(x), math.fabs(x), math.degrees(x))

    for tag, x in [("pos", 2.5), ("zero", 0.0), ("neg", -1.5)]:
        c.add(f"unary_{tag}", unary, x)

    def trig(x: float) -> Tuple[float, float, float, float, float, float, float, float, float]:
        return (math.sin(x), math.cos(x), math.tan(x), math.asin(x), math.acos(x), math.atan(x),
                math.sinh(x), math.cosh(x), math.tanh(x))

    c.add("trig", trig, 0.3)
    c.add("trig_out_of_domain", trig, 2.0)

    def hyper(x: float) -> Tuple[float, float, float, float]:
        return math.asinh(x), math.acosh(x), math.atanh(x), math.radians(x)

    c.add("inverse_hyperbolic", hyper, 0.5)
    c.add("inverse_hyperbolic_big", hyper, 1.5)

    def special(x: float) -> Tuple[float, float, float, float]:
        return math.erf(x), math.erfc(x), math.gamma(x), math.lgamma(x)

    c.add("special_half", special, 0.5)
    c.add("special_five", special, 5.0)
    c.add("special_negative", special, -2.5)

    def binary(x: float, y: float) -> Tuple[float, float, float, float, float, float]:
        return (math.atan2(x, y), math.fmod(x, y), math.copysign(x, y), math.pow(x, y),
                math.log(x, y), math.remainder(x, y))

    c.add("binary", binary, 7.5, 2.0)
    c.add("binary_negative", binary, -7.5, -2.0)
    c.add("binary_zero_divisor", binary, 1.0, 0.0)

    def preds(x: float) -> Tuple[bool, bool, bool]:
        return math.isnan(x), math.isinf(x), math.isfinite(x)

    c.add("predicates_nan", preds, float("nan"))
    c.add("predicates_inf", preds, float("-inf"))
    c.add("predicates_finite", preds, 1.0)

    def floor_ceil(x: float) -> Tuple[int, int]:
        return math.floor(x), math.ceil(x)

    c.add("floor_ceil", floor_ceil, -1.5)
    c.add("floor_ceil_inf", floor_ceil, float("inf"))

    def int_math(a: int, b: int) -> Tuple[int, int, int, int]:
        return math.gcd(a, b), math.factorial(b), math.floor(a), math.ceil(b)

    c.add("gcd_factorial", int_math, -12, 18)
    c.add("factorial_wraps", int_math, 0, 21)
    c.add("factorial_negative", int_math, 1, -1)

    def pow_int(a: int, b: int) -> float:
        return a ** b

    c.add("pow_int", pow_int, 2, 10)
    c.add("pow_int_negative_exponent", pow_int, 2, -2)
    c.add("pow_zero_negative", pow_int, 0, -1)

    def pow_float(a: float, b: float) -> float:
        return a ** b

    c.add("pow_float_nan", pow_float, -8.0, 0.5)

    def absmm(a: int, x: float) -> Tuple[int, float, float, float, int, int]:
        return abs(a), abs(x), min(a, x), max(a, x), min(a, 3), max(a, -a)

    c.add("abs_min_max", absmm, -5, -0.25)
    c.add("abs_int_min", absmm, -9223372036854775808, 2.0)

    def rounding(x: float) -> Tuple[float, float, float]:
        return round(x), round(x + 1.0), round(-x)

    c.add("round_half_even", rounding, 0.5)
    c.add("round_general", rounding, 2.675)

    def divmods(a: int, b: int) -> Tuple[int, int]:
        return divmod(a, b)

    c.add("divmod_int", divmods, -7, 2)
    c.add("divmod_int_zero", divmods, 1, 0)

    def fdivmods(a: float, b: float) -> Tuple[float, float]:
        return divmod(a, b)

    c.add("divmod_float", fdivmods, 7.5, -2.0)
    c.add("divmod_float_zero", fdivmods, 1.0, 0.0)

    def shifts(a: int, b: int) -> Tuple[int, int, int, int, int]:
        return a << b, a >> b, a & b, a | b, a ^ b

    c.add("shifts_bitwise", shifts, -9, 3)
    c.add("shift_by_64", shifts, 1, 64)

    def overflow(a: int) -> Tuple[int, int, int]:
        return a * a, a + 9223372036854775807, -a - 9223372036854775807

    c.add("int_overflow_wraps", overflow, 1 << 40)
