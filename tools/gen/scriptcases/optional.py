"""Optional refinement: `is None`, `is not None`, isinstance, across early returns and in
boolean expressions; unchecked_cast; Optional defaults."""

from scriptcases import t


def cases(c):
    c.add(
        "is_not_none",
        """
        def f(x: Optional[int]) -> int:
            if x is not None:
                return x + 1
            return 0
        """,
        (4,),
        (None,),
    )
    c.add(
        "is_none_else",
        """
        def f(x: Optional[torch.Tensor]) -> torch.Tensor:
            if x is None:
                y = torch.zeros(2)
            else:
                y = x * 2
            return y
        """,
        (t(2),),
        (None,),
    )
    c.add(
        "early_return_refines",
        """
        def f(x: Optional[int]) -> int:
            if x is None:
                return -1
            return x * 3
        """,
        (5,),
        (None,),
    )
    c.add(
        "raise_refines",
        """
        def f(x: Optional[float]) -> float:
            if x is None:
                raise ValueError("x is required")
            return x / 2.0
        """,
        (3.0,),
        (None,),
    )
    c.add(
        "assert_refines",
        """
        def f(x: Optional[int]) -> int:
            assert x is not None
            return x - 1
        """,
        (5,),
        (None,),
    )
    c.add(
        "and_refines",
        """
        def f(x: Optional[int], y: Optional[int]) -> int:
            if x is not None and y is not None:
                return x + y
            return 0
        """,
        (1, 2),
        (1, None),
    )
    c.add(
        "or_refines",
        """
        def f(x: Optional[int]) -> int:
            if x is None or x < 0:
                return 0
            return x
        """,
        (None,),
        (-3,),
        (3,),
    )
    c.add(
        "isinstance_refines",
        """
        def f(x: Optional[torch.Tensor]) -> int:
            if isinstance(x, torch.Tensor):
                return x.numel()
            return -1
        """,
        (t(2, 3),),
        (None,),
    )
    c.add(
        "optional_default_none",
        """
        def f(x: torch.Tensor, scale: Optional[float] = None) -> torch.Tensor:
            if scale is not None:
                x = x * scale
            return x
        """,
        (t(3), 2.0),
        (t(3),),
    )
    c.add(
        "optional_assigned_in_loop",
        """
        def f(xs: List[int]) -> int:
            best: Optional[int] = None
            for x in xs:
                if best is None or x > best:
                    best = x
            if best is None:
                return -1
            return best
        """,
        ([3, 9, 2],),
    )
    c.add(
        "optional_return",
        """
        def f(x: int) -> Optional[int]:
            if x > 0:
                return x
            return None
        """,
        (2,),
        (-2,),
    )
    c.add(
        "unchecked_cast",
        """
        def f(x: Optional[int]) -> int:
            y = x
            if y is None:
                y = 10
            return y
        """,
        (None,),
        (2,),
    )
    c.add(
        "optional_list",
        """
        def f(xs: Optional[List[int]]) -> int:
            if xs is None:
                return 0
            return len(xs)
        """,
        ([1, 2, 3],),
        (None,),
    )
    c.add(
        "refine_attribute_of_tuple",
        """
        def f(a: Optional[torch.Tensor], b: Optional[torch.Tensor]) -> torch.Tensor:
            if a is None:
                a = torch.ones(2)
            if b is None:
                b = torch.zeros(2)
            return a + b
        """,
        (t(2), None),
        (None, t(2)),
    )
    c.add(
        "is_none_constant_false",
        """
        def f(x: int) -> int:
            if x is None:
                return 0
            return x
        """,
        (3,),
    )
    c.add(
        "ternary_refines",
        """
        def f(x: Optional[int]) -> int:
            return x if x is not None else 7
        """,
        (1,),
        (None,),
    )
    c.add(
        "isinstance_union_of_types",
        """
        def f(x: int) -> bool:
            return isinstance(x, (int, float))
        """,
        (1,),
    )
    c.add(
        "not_is_none",
        """
        def f(x: Optional[str]) -> str:
            if not x is None:
                return x + "!"
            return "none"
        """,
        ("hi",),
        (None,),
    )
