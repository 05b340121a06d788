"""What the interpreter's register instructions compute: int wrapping, division and modulo
(by zero too), int/float mixing, bool operators, NaN comparisons, shifts, conversions, and
the branches and loops around them (carried values swapped, nested, while, break).
INT64_MIN // -1, INT64_MIN % -1 and x % 0 are left out: PyTorch's process dies of SIGFPE
(Ember raises "ZeroDivisionError: integer division or modulo by zero" for x % 0)."""

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
NAN, INF = float("nan"), float("inf")


def cases(c):
    c.add(
        "int_wrapping",
        """
        def f(a: int, b: int) -> Tuple[int, int, int, int]:
            return a + b, a - b, a * b, -a
        """,
        (I64_MAX, 1),
        (I64_MIN, 1),
        (2**62, 4),
        (I64_MIN, -1),
        (-7, 3),
    )
    c.add(
        "int_wrapping_in_loop",
        """
        def f(n: int) -> int:
            x = 1
            for i in range(n):
                x = x * 6364136223846793005 + 1442695040888963407
                x = x ^ (x >> 7)
            return x
        """,
        (0,),
        (1,),
        (1000,),
    )
    c.add(
        "floordiv_and_modulo_signs",
        """
        def f(a: int, b: int) -> Tuple[int, int, float, float, float]:
            return a // b, a % b, a / b, float(a) // float(b), float(a) % float(b)
        """,
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (6, 3),
        (I64_MIN, 3),
    )
    c.add(
        "int_division_by_zero",
        """
        def f(a: int, b: int) -> int:
            return a // b
        """,
        (7, 0),
        (7, 2),
    )
    c.add(
        "int_modulo",
        """
        def f(a: int, b: int) -> int:
            return a % b
        """,
        (7, 3),
        (-7, 3),
        (I64_MIN, 7),
    )
    c.add(
        "true_division_by_zero",
        """
        def f(a: int, b: int, x: float) -> Tuple[float, float, float, float]:
            return a / b, x / 0.0, x // 0.0, x % 0.0
        """,
        (1, 0, 1.5),
        (0, 0, -1.5),
        (-3, 0, 0.0),
    )
    c.add(
        "division_by_zero_in_loop_branch",
        """
        def f(n: int, d: int) -> int:
            s = 0
            for i in range(n):
                if i % 2 == 0:
                    s += i // (d - i)
                else:
                    s -= (i * 7) // (d - i)
            return s
        """,
        (6, 10),
        (6, 4),
        (6, 3),
    )
    c.add(
        "int_float_mixing",
        """
        def f(a: int, x: float) -> Tuple[float, float, float, float, float, bool, bool, bool]:
            return a + x, x - a, a * x, a / x, x // a, a < x, x >= a, a == x
        """,
        (3, 1.5),
        (-2, 0.25),
        (4, 4.0),
        (1, NAN),
        (-5, INF),
    )
    c.add(
        "float_accumulate_in_loop",
        """
        def f(n: int, x: float) -> float:
            acc = 0.0
            k = 0
            while k < n:
                if k % 3 == 0:
                    acc = acc * 0.5 + x
                else:
                    acc = acc - float(k) / 7.0
                k += 1
            return acc
        """,
        (10, 1.25),
        (0, 2.0),
        (31, -0.75),
    )
    c.add(
        "bool_operators",
        """
        def f(a: bool, b: bool) -> Tuple[bool, bool, bool, bool, bool, bool, bool, bool]:
            return a and b, a or b, not a, a == b, a != b, a & b, a | b, a ^ b
        """,
        (True, False),
        (False, False),
        (True, True),
    )
    c.add(
        "int_bitwise_and_shifts",
        """
        def f(a: int, b: int) -> Tuple[int, int, int, int, int]:
            return a & b, a | b, a ^ b, a << b, a >> b
        """,
        (12, 3),
        (-9, 1),
        (1, 63),
        (5, 64),
        (1, -1),
    )
    c.add(
        "nan_comparisons",
        """
        def f(x: float, y: float) -> Tuple[bool, bool, bool, bool, bool, bool, bool]:
            return x < y, x <= y, x > y, x >= y, x == y, x != y, x == x
        """,
        (NAN, 1.0),
        (1.0, 1.0),
        (-0.0, 0.0),
        (NAN, NAN),
    )
    c.add(
        "min_max_numbers",
        """
        def f(a: int, b: int, x: float) -> Tuple[int, int, float, float, float]:
            return min(a, b), max(a, b), min(x, 1.0), max(x, 1.0), min(a, x)
        """,
        (3, -2, 0.5),
        (I64_MIN, I64_MAX, NAN),
        (4, 4, INF),
    )
    c.add(
        "conversions",
        """
        def f(a: int, x: float, b: bool) -> Tuple[int, int, float, float, int, float]:
            return int(x), int(-x), float(a), float(b), int(b), -x
        """,
        (3, 3.75, True),
        (-8, 0.5, False),
        (I64_MIN, 1e10, True),
    )
    c.add(
        "loop_swaps_carried_values",
        """
        def f(n: int) -> Tuple[int, int]:
            a = 0
            b = 1
            for i in range(n):
                a, b = b, (a + b) % 1000000007
            return a, b
        """,
        (0,),
        (1,),
        (90,),
    )
    c.add(
        "loop_rotates_three_values",
        """
        def f(n: int) -> Tuple[int, int, int]:
            a = 1
            b = 2
            c = 3
            for i in range(n):
                a, b, c = c, a, b + i
            return a, b, c
        """,
        (0,),
        (4,),
        (7,),
    )
    c.add(
        "nested_loops_and_branches",
        """
        def f(n: int) -> int:
            total = 0
            for i in range(n):
                j = 0
                while j < i:
                    if (i + j) % 3 == 0:
                        total += i * j
                    elif (i - j) % 5 == 0:
                        total -= j
                    else:
                        total ^= i
                    j += 1
            return total
        """,
        (0,),
        (7,),
        (40,),
    )
    c.add(
        "loop_break_and_continue",
        """
        def f(n: int, stop: int) -> Tuple[int, int]:
            s = 0
            last = -1
            for i in range(n):
                if i % 4 == 1:
                    continue
                if i * i > stop:
                    break
                s += i
                last = i
            return s, last
        """,
        (20, 50),
        (20, 1000),
        (0, 5),
    )
    c.add(
        "range_with_start_and_step",
        """
        def f(a: int, b: int, step: int) -> int:
            s = 0
            for i in range(a, b, step):
                s = s * 3 + i
            return s
        """,
        (2, 30, 3),
        (30, 2, -4),
        (5, 5, 1),
    )
    c.add(
        "branch_on_int_comparisons",
        """
        def f(n: int) -> List[int]:
            out: List[int] = []
            for i in range(-n, n):
                if i < 0:
                    out.append(-i)
                elif i == 0:
                    out.append(100)
                elif i >= n - 1:
                    out.append(i * 1000)
                else:
                    out.append(i)
            return out
        """,
        (3,),
        (0,),
    )
    c.add(
        "calls_in_a_loop",
        """
        def step(x: float, k: int) -> float:
            if k % 2 == 0:
                return x * 0.5 + 1.0
            return x * 1.5 - 0.25


        def f(n: int) -> float:
            acc = 0.0
            for k in range(n):
                acc = step(acc, k)
            return acc
        """,
        (0,),
        (9,),
        (100,),
    )
