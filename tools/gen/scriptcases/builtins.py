"""Python builtins (len, range, enumerate, zip, min, max, abs, int, float, bool, str,
isinstance, getattr, hasattr, sum, any, all, round, divmod, pow) and math.*."""

from scriptcases import t


def cases(c):
    c.add(
        "len_of_things",
        """
        def f(xs: List[int], s: str, x: torch.Tensor) -> Tuple[int, int, int, int]:
            d = {"a": 1}
            return len(xs), len(s), len(x), len(d)
        """,
        ([1, 2, 3], "hey", t(4, 2)),
    )
    c.add(
        "min_max_ints",
        """
        def f(a: int, b: int) -> Tuple[int, int, int, int]:
            return min(a, b), max(a, b), min([a, b, 0]), max(a, b, 100)
        """,
        (3, -2),
    )
    c.add(
        "min_max_floats_mixed",
        """
        def f(a: float, b: int) -> Tuple[float, float]:
            return min(a, float(b)), max(a, 2.0)
        """,
        (1.5, 1),
    )
    c.add(
        "abs_values",
        """
        def f(a: int, b: float, x: torch.Tensor) -> Tuple[int, float, torch.Tensor]:
            return abs(a), abs(b), abs(x)
        """,
        (-3, -2.5, t(3)),
    )
    c.add(
        "conversions",
        """
        def f(a: float, b: int, x: torch.Tensor) -> Tuple[int, float, bool, bool, int, float]:
            return int(a), float(b), bool(b), bool(a), int(x.sum()), float(x[0])
        """,
        (2.75, 0, t(3)),
    )
    c.add(
        "int_of_bool_and_str",
        """
        def f(c: bool) -> Tuple[int, float, int]:
            return int(c), float(c), int("12")
        """,
        (True,),
    )
    c.add(
        "isinstance_checks",
        """
        def f(x: torch.Tensor, n: int) -> Tuple[bool, bool, bool, bool]:
            xs = [n]
            return (
                isinstance(x, torch.Tensor),
                isinstance(n, float),
                isinstance(xs, List[int]),
                isinstance(n, (float, int)),
            )
        """,
        (t(1), 3),
    )
    c.add(
        "getattr_hasattr_class",
        """
        class Config:
            def __init__(self, size: int):
                self.size = size


        def f(n: int) -> Tuple[int, bool, bool]:
            c = Config(n)
            return getattr(c, "size"), hasattr(c, "size"), hasattr(c, "missing")
        """,
        (4,),
    )
    c.add(
        "sum_any_all",
        """
        def f(xs: List[int], bs: List[bool]) -> Tuple[int, bool, bool]:
            return sum(xs), any(bs), all(bs)
        """,
        ([1, 2, 3], [True, False]),
    )
    c.add(
        "round_divmod_pow",
        """
        def f(a: float, b: int) -> Tuple[float, int, int, float]:
            q, r = divmod(b, 3)
            return round(a), q, r, pow(a, 2)
        """,
        (2.6, 11),
    )
    c.add(
        "range_len_and_index",
        """
        def f(n: int) -> Tuple[int, List[int]]:
            r = [i for i in range(0, n, 2)]
            return len(r), r
        """,
        (7,),
    )
    c.add(
        "enumerate_zip_list",
        """
        def f(xs: List[str]) -> List[str]:
            out: List[str] = []
            for i, (a, b) in enumerate(zip(xs, xs[1:])):
                out.append(str(i) + a + b)
            return out
        """,
        (["a", "b", "c"],),
    )
    c.add(
        "math_functions",
        """
        def f(x: float) -> List[float]:
            return [
                math.sqrt(x),
                math.exp(x),
                math.log(x),
                math.sin(x),
                math.cos(x),
                math.tanh(x),
                math.floor(x) * 1.0,
                math.ceil(x) * 1.0,
                math.fabs(-x),
                math.pow(x, 3.0),
                math.atan2(x, 1.0),
            ]
        """,
        (1.7,),
    )
    c.add(
        "math_int_functions",
        """
        def f(a: int, b: int) -> Tuple[int, int, bool, bool]:
            return math.gcd(a, b), math.factorial(5), math.isnan(float(a)), math.isinf(math.inf)
        """,
        (12, 18),
    )
    c.add(
        "arith_int_float_mix",
        """
        def f(a: int, b: float) -> Tuple[float, float, int, float, bool]:
            return a + b, a / 2, a // 2, b ** 2, a == 2.0
        """,
        (3, 0.5),
    )
    c.add(
        "int_division_semantics",
        """
        def f(a: int, b: int) -> Tuple[int, int, float]:
            return a // b, a % b, a / b
        """,
        (-7, 2),
    )
    c.error(
        "bitwise_and_shifts",
        """
        def f(a: int, b: int) -> Tuple[int, int, int, int, int, int]:
            return a & b, a | b, a ^ b, a << 2, a >> 1, ~a
        """,
    )
    c.add(
        "bitwise_ints",
        """
        def f(a: int, b: int) -> Tuple[int, int, int, int, int]:
            return a & b, a | b, a ^ b, a << 2, a >> 1
        """,
        (12, 10),
    )
    c.add(
        "bool_arith",
        """
        def f(a: bool, b: bool) -> Tuple[bool, bool, int]:
            return a and b, a or b, int(a) + int(b)
        """,
        (True, False),
    )
    c.add(
        "unary_ops",
        """
        def f(a: int, b: float, x: torch.Tensor) -> Tuple[int, float, torch.Tensor, bool]:
            return -a, -b, -x, not a
        """,
        (3, 1.5, t(2), ),
    )
    c.add(
        "is_and_is_not",
        """
        def f(x: Optional[int]) -> Tuple[bool, bool]:
            return x is None, x is not None
        """,
        (None,),
        (1,),
    )
    c.add(
        "hash_and_id_free",
        """
        def f(xs: List[int]) -> List[int]:
            return list(range(len(xs)))
        """,
        ([5, 6, 7],),
    )
    c.add(
        "float_special",
        """
        def f(s: str) -> Tuple[bool, bool]:
            x = float(s)
            return math.isinf(x), x > 1e308
        """,
        ("inf",),
    )
