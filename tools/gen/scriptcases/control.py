"""if / elif / else, conditional expressions, boolean operators, while loops."""

from scriptcases import t


def cases(c):
    c.add(
        "if_else",
        """
        def f(x: int) -> int:
            if x > 0:
                y = x * 2
            else:
                y = -x
            return y
        """,
        (3,),
        (-4,),
    )
    c.add(
        "if_no_else",
        """
        def f(x: int) -> int:
            y = 1
            if x > 2:
                y = x
            return y
        """,
        (5,),
        (1,),
    )
    c.add(
        "if_elif_else",
        """
        def f(x: int) -> str:
            if x < 0:
                s = "neg"
            elif x == 0:
                s = "zero"
            elif x < 10:
                s = "small"
            else:
                s = "big"
            return s
        """,
        (-1,),
        (0,),
        (4,),
        (12,),
    )
    c.add(
        "if_tensor_cond",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            if bool(x.sum() > 0):
                return x * 2
            else:
                return x - 1
        """,
        (t(2, 3),),
        (t(2, 3, scale=-1.0),),
    )
    c.add(
        "if_tensor_implicit_bool",
        """
        def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            if x.max() > y.max():
                z = x
            else:
                z = y
            return z + 1
        """,
        (t(3), t(3, scale=2.0)),
    )
    c.add(
        "nested_if",
        """
        def f(a: int, b: int) -> int:
            r = 0
            if a > 0:
                if b > 0:
                    r = 1
                else:
                    r = 2
            else:
                if b > 0:
                    r = 3
            return r
        """,
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    )
    c.add(
        "ternary",
        """
        def f(x: float) -> float:
            return x if x > 0.0 else -x
        """,
        (2.5,),
        (-1.5,),
    )
    c.add(
        "ternary_tensor",
        """
        def f(x: torch.Tensor, flag: bool) -> torch.Tensor:
            y = x.relu() if flag else x.neg()
            return y
        """,
        (t(4), True),
        (t(4), False),
    )
    c.add(
        "bool_ops",
        """
        def f(a: int, b: int) -> bool:
            return (a > 0 and b > 0) or not (a == b)
        """,
        (1, 2),
        (-1, -1),
        (0, 3),
    )
    c.add(
        "short_circuit",
        """
        def f(xs: List[int]) -> bool:
            return len(xs) > 0 and xs[0] == 1
        """,
        ([1, 2],),
        ([2],),
    )
    c.add(
        "chained_compare",
        """
        def f(x: int) -> bool:
            return 0 <= x < 10
        """,
        (5,),
        (10,),
    )
    c.add(
        "if_constant_true",
        """
        def f(x: int) -> int:
            if True:
                x = x + 1
            return x
        """,
        (1,),
    )
    c.add(
        "while_simple",
        """
        def f(n: int) -> int:
            i = 0
            total = 0
            while i < n:
                total += i
                i += 1
            return total
        """,
        (5,),
        (0,),
    )
    c.add(
        "while_tensor",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            while bool(x.sum() < 10.0):
                x = x * 2 + 1
            return x
        """,
        (t(3),),
    )
    c.add(
        "while_nested",
        """
        def f(n: int) -> int:
            count = 0
            i = 0
            while i < n:
                j = 0
                while j < i:
                    count += j
                    j += 1
                i += 1
            return count
        """,
        (5,),
    )
    c.add(
        "if_in_while",
        """
        def f(n: int) -> Tuple[int, int]:
            evens = 0
            odds = 0
            while n > 0:
                if n % 2 == 0:
                    evens += 1
                else:
                    odds += 1
                n -= 1
            return evens, odds
        """,
        (7,),
    )
    c.add(
        "var_defined_both_branches",
        """
        def f(x: torch.Tensor, c: bool) -> torch.Tensor:
            if c:
                a = x + 1
                b = x * 2
            else:
                a = x - 1
                b = x / 2
            return a * b
        """,
        (t(3), True),
        (t(3), False),
    )
    c.add(
        "pass_stmt",
        """
        def f(x: int) -> int:
            if x > 0:
                pass
            else:
                x = 0
            return x
        """,
        (2,),
        (-2,),
    )
