"""What PyTorch accepts although it looks wrong: implicit conversions, unions inferred for
mixed literals, rebinding a name with another type, unused names of different types in two
branches, generator expressions, del of a name."""


def cases(c):
    c.add(
        "rebind_with_other_type",
        """
        def f(x: int) -> int:
            y = 1
            y = "s"
            return x
        """,
        (3,),
    )
    c.add(
        "branches_assign_different_types_unused",
        """
        def f(c: bool) -> int:
            if c:
                y = 1
            else:
                y = "one"
            return 0
        """,
        (True,),
        (False,),
    )
    c.add(
        "len_of_int_is_len_of_list",
        """
        def f(x: int) -> int:
            return len(x)
        """,
        (3,),
    )
    c.add(
        "generator_expression_in_sum",
        """
        def f(xs: List[int]) -> int:
            return sum(x * 2 for x in xs)
        """,
        ([1, 2, 3],),
    )
    c.add(
        "del_name",
        """
        def f(x: int) -> int:
            y = x
            del y
            return x
        """,
        (4,),
    )
    c.add(
        "list_of_mixed_types_is_union",
        """
        def f(x: int) -> int:
            xs = [x, "a"]
            return 0
        """,
        (2,),
    )
    c.add(
        "dict_of_mixed_values_is_union",
        """
        def f(x: int) -> int:
            d = {"a": x, "b": "c"}
            return 0
        """,
        (2,),
    )
