"""Scalar arithmetic on int, float and bool; the math module; comparisons."""

import math

from .registry import scripted

C = "arith"


@scripted(C)
def int_add_sub_mul(a: int, b: int) -> int:
    return a + b - a * b


@scripted(C)
def int_div_floordiv_mod(a: int, b: int):
    return a / b, a // b, a % b


@scripted(C)
def int_pow_neg(a: int, b: int) -> float:
    return -(a ** 2) + b ** 3


@scripted(C)
def int_bitwise(a: int, b: int) -> int:
    return (a & b) | (a ^ b) | (a << 2) | (b >> 1)


@scripted(C)
def float_ops(x: float, y: float) -> float:
    return x * y + x / y - x ** y - y // x + x % y


@scripted(C)
def float_neg_abs(x: float) -> float:
    return abs(-x) + abs(x - 3.5)


@scripted(C)
def mixed_int_float(a: int, x: float) -> float:
    return a * x + x / a - a


@scripted(C)
def bool_logic(a: bool, b: bool, c: bool) -> bool:
    return (a and b) or (not c)


@scripted(C)
def bool_xor_eq(a: bool, b: bool) -> bool:
    return (a != b) == (a ^ b)


@scripted(C)
def bool_to_int(a: bool, b: bool) -> int:
    return int(a) + int(b) * 2


@scripted(C)
def int_comparisons(a: int, b: int):
    return a < b, a <= b, a > b, a >= b, a == b, a != b


@scripted(C)
def float_comparisons(x: float, y: float):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


@scripted(C)
def chained_comparison(a: int, b: int, c: int) -> bool:
    return a < b < c


@scripted(C)
def conversions(a: int, x: float, s: str):
    return float(a), int(x), bool(a), int(s), float(s), str(a)


@scripted(C)
def min_max_int(a: int, b: int, c: int) -> int:
    return max(min(a, b), c)


@scripted(C)
def min_max_float(x: float, y: float) -> float:
    return max(x, y) - min(x, y)


@scripted(C)
def round_trunc(x: float):
    return round(x), math.floor(x), math.ceil(x)


@scripted(C)
def divmod_int(a: int, b: int):
    q, r = divmod(a, b)
    return q * b + r


@scripted(C)
def augmented_assign(a: int, x: float):
    a += 1
    a -= 2
    a *= 3
    x += a
    x *= 0.5
    x /= 3.0
    return a, x


@scripted(C)
def ternary(a: int, b: int) -> int:
    return a if a > b else b


@scripted(C)
def math_exp_log(x: float):
    return math.exp(x), math.log(x), math.log10(x), math.log1p(x), math.expm1(x), math.log(x, 2.0)


@scripted(C)
def math_trig(x: float):
    return math.sin(x), math.cos(x), math.tan(x), math.asin(x), math.acos(x), math.atan(x)


@scripted(C)
def math_hyperbolic(x: float):
    return math.sinh(x), math.cosh(x), math.tanh(x), math.asinh(x), math.atanh(x)


@scripted(C)
def math_sqrt_pow(x: float, y: float):
    return math.sqrt(x), math.pow(x, y), math.atan2(y, x), math.fabs(x)


@scripted(C)
def math_constants(r: float) -> float:
    return math.pi * r * r + math.e - math.inf * 0.0 + math.tau


@scripted(C)
def math_predicates(x: float):
    return math.isnan(x), math.isinf(x), math.isfinite(x)


@scripted(C)
def math_gamma_erf(x: float):
    return math.gamma(x), math.lgamma(x), math.erf(x), math.erfc(x)


@scripted(C)
def math_copysign_fmod(x: float, y: float):
    return math.copysign(x, y), math.fmod(x, y), math.remainder(x, y)


@scripted(C)
def math_factorial_gcd(a: int, b: int):
    return math.factorial(a), math.gcd(a, b)


@scripted(C)
def math_degrees(x: float):
    return math.degrees(x), math.radians(x)


@scripted(C)
def short_circuit_side_effect(xs: list[int], i: int) -> bool:
    return i < len(xs) and xs[i] > 0


@scripted(C)
def int_float_constants() -> float:
    a = 7
    b = 2.5
    c = 1e-3
    d = -0.0
    e = 1e20
    return a * b + c + d + e


@scripted(C)
def is_comparisons(a: int, b: int) -> bool:
    return a is b or a is not b


@scripted(C)
def hex_oct_bin_literals() -> int:
    return 0xFF + 0o17 + 0b101


@scripted(C)
def unary_ops(a: int, x: float, b: bool):
    return -a, -x, not b


@scripted(C)
def abs_int_float(a: int, x: float):
    return abs(a), abs(x)


@scripted(C)
def scalar_type_number(a: int, x: float):
    n = a + x
    return n * 2


@scripted(C)
def polynomial_eval(x: float) -> float:
    return 3.0 * x ** 3 - 2.0 * x ** 2 + x - 7.0


@scripted(C)
def integer_sqrt_newton(n: int) -> int:
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


@scripted(C)
def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@scripted(C)
def gcd_loop(a: int, b: int) -> int:
    while b != 0:
        a, b = b, a % b
    return a
