"""Programs PyTorch refuses to script: type errors, undefined names, unsupported syntax, wrong
argument counts, failed overload resolution. PyTorch's message is stored in NAME.error."""


def cases(c):
    c.error(
        "undefined_name",
        """
        def f(x: int) -> int:
            return x + y
        """,
    )
    c.error(
        "empty_list_defaults_to_tensor",
        """
        def f(n: int) -> List[int]:
            out = []
            for i in range(n):
                out.append(i)
            return out
        """,
    )
    c.error(
        "reversed_list",
        """
        def f(xs: List[int]) -> List[int]:
            out: List[int] = []
            for x in reversed(xs):
                out.append(x)
            return out
        """,
    )
    c.error(
        "reversed_range",
        """
        def f(n: int) -> List[int]:
            out: List[int] = []
            for i in reversed(range(n)):
                out.append(i)
            return out
        """,
    )
