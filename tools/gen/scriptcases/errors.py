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
    c.error(
        "undefined_function",
        """
        def f(x: int) -> int:
            return helper(x)
        """,
    )
    c.error(
        "use_before_assignment_in_branch",
        """
        def f(x: int) -> int:
            if x > 0:
                y = 1
            return y
        """,
    )
    c.error(
        "argument_type_mismatch",
        """
        def helper(x: int) -> int:
            return x + 1


        def f(s: str) -> int:
            return helper(s)
        """,
    )
    c.error(
        "too_many_arguments",
        """
        def helper(x: int) -> int:
            return x + 1


        def f(a: int) -> int:
            return helper(a, a)
        """,
    )
    c.error(
        "missing_argument",
        """
        def helper(x: int, y: int) -> int:
            return x + y


        def f(a: int) -> int:
            return helper(a)
        """,
    )
    c.error(
        "unknown_keyword_argument",
        """
        def helper(x: int) -> int:
            return x


        def f(a: int) -> int:
            return helper(a, z=3)
        """,
    )
    c.error(
        "return_type_mismatch",
        """
        def f(x: int) -> str:
            return x
        """,
    )
    c.error(
        "overload_no_match_tensor_op",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            return torch.add(x, "s")
        """,
    )
    c.error(
        "method_overload_no_match",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            return x.view("a", 2)
        """,
    )
    c.error(
        "list_append_wrong_type",
        """
        def f(xs: List[int]) -> List[int]:
            xs.append("s")
            return xs
        """,
    )
    c.error(
        "dict_key_type_mismatch",
        """
        def f(n: int) -> Dict[str, int]:
            d: Dict[str, int] = {}
            d[n] = n
            return d
        """,
    )
    c.error(
        "optional_not_refined",
        """
        def f(x: Optional[int]) -> int:
            return x + 1
        """,
    )
    c.error(
        "unpack_wrong_count",
        """
        def f(x: int) -> int:
            a, b = (x, x, x)
            return a + b
        """,
    )
    c.error(
        "unknown_attribute_of_class",
        """
        class Point:
            def __init__(self, x: int):
                self.x = x


        def f(a: int) -> int:
            p = Point(a)
            return p.y
        """,
    )
    c.error(
        "unknown_type_annotation",
        """
        def f(x):
            # type: (Foo) -> int
            return 1
        """,
    )
    c.error(
        "iterate_over_int",
        """
        def f(n: int) -> int:
            s = 0
            for i in n:
                s += i
            return s
        """,
    )
    c.error(
        "range_of_float",
        """
        def f(x: float) -> int:
            s = 0
            for i in range(x):
                s += i
            return s
        """,
    )
    c.error(
        "unknown_method_on_int",
        """
        def f(x: int) -> int:
            return x.bit_length()
        """,
    )
    c.error(
        "compare_str_int",
        """
        def f(s: str) -> bool:
            return s < 1
        """,
    )
    c.error(
        "subscript_int",
        """
        def f(x: int) -> int:
            return x[0]
        """,
    )
    c.error(
        "unsupported_lambda",
        """
        def f(x: int) -> int:
            g = lambda y: y + 1
            return g(x)
        """,
    )
    c.error(
        "unsupported_try_except",
        """
        def f(x: int) -> int:
            try:
                x = x + 1
            except Exception:
                x = 0
            return x
        """,
    )
    c.error(
        "unsupported_nested_def",
        """
        def f(x: int) -> int:
            def g(y: int) -> int:
                return y + 1
            return g(x)
        """,
    )
    c.error(
        "unsupported_global",
        """
        def f(x: int) -> int:
            global counter
            return x
        """,
    )
    c.error(
        "unsupported_varargs",
        """
        def f(*args: int) -> int:
            return 0
        """,
    )
    c.error(
        "unsupported_kwargs",
        """
        def f(x: int, **kwargs: int) -> int:
            return x
        """,
    )
    c.error(
        "unsupported_set_literal",
        """
        def f(x: int) -> int:
            s = {x, 1}
            return len(s)
        """,
    )
    c.error(
        "unsupported_yield",
        """
        def f(x: int) -> int:
            yield x
        """,
    )
    c.error(
        "unsupported_import_in_body",
        """
        def f(x: int) -> int:
            import os
            return x
        """,
    )
    c.error(
        "unsupported_walrus",
        """
        def f(x: int) -> int:
            if (y := x + 1) > 2:
                return y
            return 0
        """,
    )
    c.error(
        "unsupported_with_on_int",
        """
        def f(x: int) -> int:
            with x:
                pass
            return x
        """,
    )
    c.error(
        "return_list_as_int",
        """
        def f(xs: List[int]) -> int:
            for x in xs:
                pass
            if len(xs) > 0:
                return 1
            return xs
        """,
    )
    c.error(
        "tuple_index_out_of_range",
        """
        def f(x: int) -> int:
            t = (x, x)
            return t[2]
        """,
    )
    c.error(
        "tuple_index_not_constant",
        """
        def f(x: int, i: int) -> int:
            t = (x, "a")
            return t[i]
        """,
    )
    c.error(
        "builtin_too_many_arguments",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x, 1)
        """,
    )
    c.error(
        "class_method_wrong_arg",
        """
        class Acc:
            def __init__(self):
                self.total = 0

            def add(self, v: int) -> None:
                self.total += v


        def f(x: float) -> int:
            a = Acc()
            a.add(x)
            return a.total
        """,
    )
    c.error(
        "class_init_missing_arg",
        """
        class P:
            def __init__(self, x: int, y: int):
                self.x = x
                self.y = y


        def f(x: int) -> int:
            return P(x).x
        """,
    )
    c.error(
        "none_return_used",
        """
        def helper(x: int) -> None:
            pass


        def f(x: int) -> int:
            return helper(x) + 1
        """,
    )
    c.error(
        "float_to_int_param",
        """
        def helper(x: int) -> int:
            return x


        def f(a: float) -> int:
            return helper(a)
        """,
    )
    c.error(
        "string_format_on_non_string",
        """
        def f(x: int) -> str:
            return x.format(1)
        """,
    )
    c.error(
        "variable_type_change_in_branch",
        """
        def f(x: int) -> int:
            y = 1
            if x > 0:
                y = "s"
            return x
        """,
    )
    c.error(
        "branch_type_mismatch_used",
        """
        def f(c: bool) -> int:
            if c:
                y = 1
            else:
                y = "one"
            return y
        """,
    )
