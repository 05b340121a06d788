"""Less common constructs: decorators (@torch.jit.ignore/unused/export, @torch.jit.script
helpers), Union and Any, torch.jit.is_scripting, list and dict methods, del of items,
for with else, raise without a message, nested comprehensions, chained methods."""

from scriptcases import t


def cases(c):
    c.add(
        "jit_unused_helper",
        """
        @torch.jit.unused
        def debug_only(x: torch.Tensor) -> torch.Tensor:
            return x * 100


        def f(x: torch.Tensor, debug: bool) -> torch.Tensor:
            if debug:
                return debug_only(x)
            return x + 1
        """,
        (t(2), False),
    )
    c.add(
        "jit_script_decorated_helper",
        """
        @torch.jit.script
        def double(x: int) -> int:
            return x * 2


        def f(x: int) -> int:
            return double(x) + 1
        """,
        (4,),
    )
    c.add(
        "is_scripting",
        """
        def f(x: int) -> int:
            if torch.jit.is_scripting():
                return x + 1
            return x - 1
        """,
        (1,),
    )
    c.add(
        "union_refinement",
        """
        from typing import Union

        import torch


        def f(x: Union[int, str]) -> str:
            if isinstance(x, int):
                return str(x + 1)
            return x + "!"
        """,
        (3,),
        ("a",),
    )
    c.add(
        "any_list",
        """
        from typing import Any, List

        import torch


        def f(n: int) -> int:
            xs: List[Any] = [n, "a", 1.5]
            return len(xs)
        """,
        (2,),
    )
    c.add(
        "list_remove_index_del",
        """
        def f(xs: List[int]) -> Tuple[List[int], int]:
            xs.remove(3)
            i = xs.index(5)
            del xs[0]
            return xs, i
        """,
        ([1, 3, 5, 7],),
    )
    c.error(
        "dict_setdefault_keys_in",
        """
        def f(words: List[str]) -> Tuple[Dict[str, List[int]], bool]:
            d: Dict[str, List[int]] = {}
            for i, w in enumerate(words):
                d.setdefault(w, []).append(i)
            return d, "b" in d.keys()
        """,
    )
    c.add(
        "dict_items_comprehension",
        """
        def f(n: int) -> Dict[str, int]:
            d = {"a": n, "b": n * 2}
            return {k + k: v + 1 for k, v in d.items()}
        """,
        (3,),
    )
    c.error(
        "nested_list_comprehension",
        """
        def f(n: int) -> List[int]:
            return [i * j for i in range(n) for j in range(i)]
        """,
    )
    c.error(
        "comprehension_with_if",
        """
        def f(xs: List[int]) -> List[int]:
            return [x for x in xs if x % 2 == 1]
        """,
    )
    c.add(
        "raise_without_message",
        """
        def f(x: int) -> int:
            if x == 0:
                raise ValueError
            return 10 // x
        """,
        (2,),
        (0,),
    )
    c.add(
        "assert_fstring_message",
        """
        def f(x: int) -> int:
            assert x < 5, f"x is {x}"
            return x
        """,
        (3,),
        (9,),
    )
    c.add(
        "chained_tensor_methods",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            return x.abs().add(1).mul(2).sum(dim=0).neg()
        """,
        (t(2, 3),),
    )
    c.add(
        "shape_arith",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            n, m = x.shape[0], x.shape[1]
            return x.reshape(n * m).view(m, n)
        """,
        (t(2, 3),),
    )
    c.add(
        "min_max_of_list_floats",
        """
        def f(xs: List[float]) -> Tuple[float, float, float]:
            return min(xs), max(xs), sum(xs)
        """,
        ([1.5, -2.0, 4.0],),
    )
    c.add(
        "float_inf_and_nan",
        """
        def f(x: float) -> Tuple[float, bool, bool]:
            big = float("inf")
            return min(x, big), math.isnan(float("nan")), x < big
        """,
        (3.0,),
    )
    c.add(
        "while_with_complex_condition",
        """
        def f(xs: List[int]) -> int:
            i = 0
            while i < len(xs) and xs[i] != 0:
                i += 1
            return i
        """,
        ([3, 4, 0, 5],),
        ([1, 2],),
    )
    c.add(
        "early_return_in_elif_chain",
        """
        def f(x: int) -> str:
            if x < 0:
                return "neg"
            elif x == 0:
                return "zero"
            elif x < 10:
                pass
            else:
                return "big"
            return "small"
        """,
        (-1,),
        (0,),
        (5,),
        (50,),
    )
    c.add(
        "optional_tensor_list",
        """
        def f(xs: List[torch.Tensor], use: bool) -> List[Optional[torch.Tensor]]:
            out: List[Optional[torch.Tensor]] = []
            for x in xs:
                out.append(x if use else None)
            return out
        """,
        ([t(2), t(2, scale=2.0)], True),
    )
    c.add(
        "tuple_return_of_call_unpacked_in_loop",
        """
        def step(a: int, b: int) -> Tuple[int, int]:
            return b, a + b


        def f(n: int) -> int:
            a, b = 0, 1
            for _ in range(n):
                a, b = step(a, b)
            return a
        """,
        (10,),
    )
    c.add(
        "class_with_tensor_list_and_method_loop",
        """
        class Stack:
            def __init__(self):
                self.items: List[torch.Tensor] = []

            def push(self, x: torch.Tensor) -> None:
                self.items.append(x)

            def total(self) -> torch.Tensor:
                out = torch.zeros(2)
                for x in self.items:
                    out = out + x
                return out


        def f(x: torch.Tensor) -> torch.Tensor:
            s = Stack()
            for i in range(3):
                s.push(x * i)
            return s.total()
        """,
        (t(2),),
    )
    c.add(
        "string_join_comprehension",
        """
        def f(xs: List[int]) -> str:
            return ", ".join([str(x) for x in xs])
        """,
        ([1, 2, 3],),
    )
    c.add(
        "tensor_from_list_and_dtype",
        """
        def f(xs: List[int]) -> torch.Tensor:
            return torch.tensor(xs, dtype=torch.float32) / 2
        """,
        ([1, 2, 3],),
    )
    c.add(
        "negative_index_and_step_slice",
        """
        def f(x: torch.Tensor, xs: List[int]) -> Tuple[torch.Tensor, List[int]]:
            return x[-2:], xs[-1:0:-1]
        """,
        (t(4), [1, 2, 3, 4]),
    )
    c.add(
        "break_in_while_true_with_tensor",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
            steps = 0
            while True:
                x = x * 0.5
                steps += 1
                if bool(x.abs().max() < 0.1):
                    break
            return x, steps
        """,
        (t(3, scale=4.0),),
    )
    c.add(
        "if_inside_comprehension_call",
        """
        def sign(x: int) -> int:
            if x > 0:
                return 1
            elif x < 0:
                return -1
            return 0


        def f(xs: List[int]) -> List[int]:
            return [sign(x) for x in xs]
        """,
        ([3, -2, 0],),
    )
    c.error(
        "for_else_unsupported",
        """
        def f(xs: List[int]) -> int:
            for x in xs:
                if x == 0:
                    break
            else:
                return -1
            return 0
        """,
    )
    # `while ... else` makes PyTorch's own frontend fail inside pybind (no TorchScript message).
    c.error(
        "union_not_refined",
        """
        from typing import Union

        import torch


        def f(x: Union[int, str]) -> int:
            return x + 1
        """,
    )
    c.error(
        "entry_calls_helper_with_too_many_args",
        """
        def f(x: int) -> int:
            if x > 0:
                return x
            return -x


        def g(x: int) -> int:
            return f(x, x)
        """,
    )
    c.error(
        "call_undefined_method_on_class",
        """
        class A:
            def __init__(self):
                self.x = 1


        def f(n: int) -> int:
            a = A()
            return a.missing(n)
        """,
    )
    c.error(
        "wrong_return_count",
        """
        def f(x: int) -> Tuple[int, int]:
            return x
        """,
    )
    c.error(
        "list_of_optional_without_annotation",
        """
        def f(x: Optional[int]) -> List[int]:
            return [x]
        """,
    )
