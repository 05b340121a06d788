"""break, continue, early return (also from loops), raise and assert (blocks that always
throw), the exit transform's prim::Uninitialized."""

from scriptcases import t


def cases(c):
    c.add(
        "break_for",
        """
        def f(xs: List[int]) -> int:
            s = 0
            for x in xs:
                if x < 0:
                    break
                s += x
            return s
        """,
        ([1, 2, -1, 5],),
    )
    c.add(
        "continue_for",
        """
        def f(xs: List[int]) -> int:
            s = 0
            for x in xs:
                if x % 2 == 0:
                    continue
                s += x
            return s
        """,
        ([1, 2, 3, 4, 5],),
    )
    c.add(
        "break_while",
        """
        def f(n: int) -> int:
            i = 0
            while True:
                if i * i > n:
                    break
                i += 1
            return i
        """,
        (20,),
    )
    c.add(
        "continue_while",
        """
        def f(n: int) -> int:
            i = 0
            s = 0
            while i < n:
                i += 1
                if i % 3 == 0:
                    continue
                s += i
            return s
        """,
        (10,),
    )
    c.add(
        "break_and_continue",
        """
        def f(xs: List[int]) -> List[int]:
            out: List[int] = []
            for x in xs:
                if x == 0:
                    continue
                if x > 100:
                    break
                out.append(x)
            return out
        """,
        ([1, 0, 2, 0, 300, 4],),
    )
    c.add(
        "break_nested_inner",
        """
        def f(n: int) -> int:
            count = 0
            for i in range(n):
                for j in range(n):
                    if j > i:
                        break
                    count += 1
            return count
        """,
        (4,),
    )
    c.add(
        "early_return",
        """
        def f(x: int) -> int:
            if x < 0:
                return 0
            y = x * 2
            return y + 1
        """,
        (-3,),
        (3,),
    )
    c.add(
        "early_return_both_branches",
        """
        def f(x: torch.Tensor, c: bool) -> torch.Tensor:
            if c:
                return x + 1
            else:
                return x - 1
        """,
        (t(2), True),
        (t(2), False),
    )
    c.add(
        "return_in_for",
        """
        def f(xs: List[int], target: int) -> int:
            for i, x in enumerate(xs):
                if x == target:
                    return i
            return -1
        """,
        ([4, 5, 6], 5),
        ([4, 5, 6], 9),
    )
    c.add(
        "return_in_while",
        """
        def f(n: int) -> int:
            i = 1
            while i < 1000:
                if i >= n:
                    return i
                i *= 2
            return -1
        """,
        (37,),
    )
    c.add(
        "return_in_nested_loops",
        """
        def f(n: int) -> Tuple[int, int]:
            for i in range(n):
                for j in range(n):
                    if i * j == 6:
                        return i, j
            return -1, -1
        """,
        (5,),
        (2,),
    )
    c.add(
        "return_tensor_in_loop",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            for i in range(10):
                x = x * 2
                if bool(x.abs().max() > 4.0):
                    return x
            return x.neg()
        """,
        (t(3),),
    )
    c.add(
        "raise_in_branch",
        """
        def f(x: int) -> int:
            if x < 0:
                raise ValueError("negative")
            return x + 1
        """,
        (2,),
        (-2,),
    )
    c.add(
        "raise_runtime_error_format",
        """
        def f(x: int) -> int:
            if x > 3:
                raise RuntimeError("too big: {}".format(x))
            return x
        """,
        (1,),
        (7,),
    )
    c.add(
        "raise_both_paths_else",
        """
        def f(x: int) -> int:
            if x == 0:
                y = 10
            else:
                raise ValueError("nonzero")
            return y
        """,
        (0,),
        (1,),
    )
    c.add(
        "raise_in_loop",
        """
        def f(xs: List[int]) -> int:
            s = 0
            for x in xs:
                if x < 0:
                    raise ValueError("negative element")
                s += x
            return s
        """,
        ([1, 2],),
        ([1, -2],),
    )
    c.add(
        "assert_simple",
        """
        def f(x: int) -> int:
            assert x > 0
            return x
        """,
        (1,),
        (-1,),
    )
    c.add(
        "assert_message",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            assert x.dim() == 2, "expected a matrix"
            return x.t()
        """,
        (t(2, 3),),
        (t(3),),
    )
    c.add(
        "uninitialized_after_raise",
        """
        def f(c: bool) -> int:
            if c:
                v = 1
            else:
                raise Exception("no value")
            return v
        """,
        (True,),
        (False,),
    )
    c.add(
        "return_value_only_in_if",
        """
        def f(x: int) -> int:
            if x > 5:
                return 1
            elif x > 2:
                return 2
            return 3
        """,
        (6,),
        (3,),
        (0,),
    )
    c.add(
        "break_then_use_var",
        """
        def f(xs: List[int]) -> Tuple[int, bool]:
            found = False
            idx = 0
            for i in range(len(xs)):
                if xs[i] > 10:
                    found = True
                    idx = i
                    break
            return idx, found
        """,
        ([1, 20, 30],),
        ([1, 2],),
    )
    c.add(
        "continue_in_nested_if",
        """
        def f(n: int) -> int:
            s = 0
            for i in range(n):
                if i > 2:
                    if i % 2 == 1:
                        continue
                    s += 100
                s += i
            return s
        """,
        (8,),
    )
