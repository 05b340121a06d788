"""Strings: formatting ("{}".format, f-strings, %), methods, comparison, indexing, str() of
values."""

from scriptcases import t


def cases(c):
    c.add(
        "format_positional",
        """
        def f(a: int, b: float) -> str:
            return "a={} b={}".format(a, b)
        """,
        (3, 2.5),
    )
    c.add(
        "format_tensor",
        """
        def f(x: torch.Tensor) -> str:
            return "size {}".format(x.size())
        """,
        (t(2, 3),),
    )
    c.add(
        "fstring",
        """
        def f(name: str, n: int) -> str:
            return f"{name} has {n} items"
        """,
        ("box", 4),
    )
    c.add(
        "fstring_expressions",
        """
        def f(xs: List[int]) -> str:
            return f"first={xs[0]}, len={len(xs)}, sum={sum(xs)}"
        """,
        ([1, 2, 3],),
    )
    c.add(
        "percent_format",
        """
        def f(a: int, s: str) -> str:
            return "%d-%s" % (a, s)
        """,
        (7, "x"),
    )
    c.add(
        "percent_format_single",
        """
        def f(a: float) -> str:
            return "value: %s" % a
        """,
        (1.5,),
    )
    c.add(
        "str_methods",
        """
        def f(s: str) -> Tuple[str, str, str, bool, bool, int]:
            return (
                s.upper(),
                s.strip(),
                s.replace("a", "o"),
                s.startswith(" b"),
                s.endswith("  "),
                s.find("n"),
            )
        """,
        (" banana  ",),
    )
    c.add(
        "str_split_join",
        """
        def f(s: str) -> Tuple[List[str], str]:
            parts = s.split(",")
            return parts, "-".join(parts)
        """,
        ("a,b,,c",),
    )
    c.add(
        "str_concat_in_loop",
        """
        def f(n: int) -> str:
            s = ""
            for i in range(n):
                s += str(i)
            return s
        """,
        (5,),
    )
    c.add(
        "str_index_slice_len",
        """
        def f(s: str) -> Tuple[str, str, int]:
            return s[1], s[1:3], len(s)
        """,
        ("hello",),
    )
    c.add(
        "str_compare",
        """
        def f(a: str, b: str) -> Tuple[bool, bool, bool, bool]:
            return a == b, a != b, a < b, a in "xxabcxx"
        """,
        ("abc", "abd"),
    )
    c.add(
        "str_of_values",
        """
        def f(a: int, b: float, c: bool) -> str:
            return str(a) + "|" + str(b) + "|" + str(c) + "|" + str([a, a])
        """,
        (1, 0.25, True),
    )
    c.add(
        "str_to_number",
        """
        def f(s: str, g: str) -> Tuple[int, float]:
            return int(s), float(g)
        """,
        ("42", "2.5"),
    )
    c.error(
        "str_multiply",
        """
        def f(s: str, n: int) -> str:
            return s * n
        """,
    )
    c.add(
        "string_literal_forms",
        """
        def f() -> List[str]:
            return ['single', "double", '''triple''', "esc\\tape\\n", r"raw\\n", "con" "cat"]
        """,
        (),
    )
    c.add(
        "str_predicates",
        """
        def f(s: str) -> Tuple[bool, bool, bool, bool]:
            return s.isdigit(), s.isalpha(), s.islower(), s.isspace()
        """,
        ("abc",),
        ("123",),
    )
    c.add(
        "ord_chr",
        """
        def f(s: str) -> Tuple[int, str]:
            return ord(s[0]), chr(ord(s[0]) + 1)
        """,
        ("a",),
    )
    c.add(
        "print_statement",
        """
        def f(x: int) -> int:
            print("value", x)
            return x
        """,
        (2,),
    )
