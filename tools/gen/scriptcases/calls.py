"""Calls between functions of the same file (prim::CallFunction), defaults, keyword arguments,
`# type:` comments, torch.jit.annotate, Final and module constants."""

from scriptcases import t


def cases(c):
    c.add(
        "call_helper",
        """
        def square(x: int) -> int:
            return x * x


        def f(a: int) -> int:
            return square(a) + square(a + 1)
        """,
        (3,),
    )
    c.add(
        "call_tensor_helper",
        """
        def affine(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return x * w + b


        def f(x: torch.Tensor) -> torch.Tensor:
            return affine(x, x, torch.ones_like(x))
        """,
        (t(3),),
    )
    c.add(
        "call_chain",
        """
        def inc(x: int) -> int:
            return x + 1


        def twice_inc(x: int) -> int:
            return inc(inc(x))


        def f(x: int) -> int:
            return twice_inc(x) * 2
        """,
        (4,),
    )
    c.add(
        "call_recursive_style_loop",
        """
        def gcd(a: int, b: int) -> int:
            while b != 0:
                a, b = b, a % b
            return a


        def f(a: int, b: int) -> int:
            return gcd(a, b)
        """,
        (48, 18),
    )
    c.add(
        "call_with_defaults",
        """
        def scale(x: torch.Tensor, factor: float = 2.0, shift: int = 0) -> torch.Tensor:
            return x * factor + shift


        def f(x: torch.Tensor) -> torch.Tensor:
            return scale(x) + scale(x, 3.0) + scale(x, shift=1)
        """,
        (t(2),),
    )
    c.add(
        "call_kwargs",
        """
        def sub(a: int, b: int) -> int:
            return a - b


        def f(x: int, y: int) -> Tuple[int, int]:
            return sub(b=x, a=y), sub(x, b=y)
        """,
        (1, 10),
    )
    c.add(
        "call_returns_tuple",
        """
        def divmod_(a: int, b: int) -> Tuple[int, int]:
            return a // b, a % b


        def f(a: int, b: int) -> int:
            q, r = divmod_(a, b)
            return q * 100 + r
        """,
        (17, 5),
    )
    c.add(
        "call_optional_arg",
        """
        def pick(x: Optional[int], default: int) -> int:
            if x is None:
                return default
            return x


        def f(x: int) -> int:
            return pick(None, x) + pick(x, 0)
        """,
        (6,),
    )
    c.add(
        "call_list_arg_mutated",
        """
        def push(xs: List[int], v: int) -> None:
            xs.append(v)


        def f(n: int) -> List[int]:
            xs: List[int] = []
            for i in range(n):
                push(xs, i * 10)
            return xs
        """,
        (3,),
    )
    c.add(
        "defaults_entry",
        """
        def f(x: int, y: int = 5, z: float = 0.5, name: str = "a") -> str:
            return name + str(x + y) + str(z)
        """,
        (1,),
        (1, 2, 3.0, "b"),
    )
    c.error(
        "mutable_default_list",
        """
        def f(x: torch.Tensor, dims: List[int] = [0]) -> torch.Tensor:
            return x.sum(dims)
        """,
    )
    c.add(
        "default_tuple",
        """
        def f(x: torch.Tensor, shape: Tuple[int, int] = (1, 2)) -> torch.Tensor:
            return x.sum(0) + shape[0] * shape[1]
        """,
        (t(3, 2),),
    )
    c.add(
        "type_comment_signature",
        """
        def f(x, y):
            # type: (int, List[float]) -> float
            return x * y[0]
        """,
        (2, [1.5, 3.0]),
    )
    # `x = []  # type: List[int]` inside a def does not script from Python: torch.jit.frontend's
    # get_type_line takes any `# type:` line of the function for its signature comment.
    c.add(
        "type_comment_optional",
        """
        def f(x, flag):
            # type: (Optional[torch.Tensor], bool) -> torch.Tensor
            if x is None or not flag:
                return torch.zeros(1)
            return x
        """,
        (t(2), True),
        (None, True),
    )
    c.add(
        "unannotated_is_tensor",
        """
        def f(x, y):
            return x + y
        """,
        (t(2), t(2)),
    )
    c.add(
        "jit_annotate",
        """
        def f(n: int) -> Dict[str, int]:
            d = torch.jit.annotate(Dict[str, int], {})
            for i in range(n):
                d[str(i)] = i
            return d
        """,
        (3,),
    )
    c.add(
        "jit_annotate_list",
        """
        def f(x: torch.Tensor) -> List[Tuple[int, torch.Tensor]]:
            out = torch.jit.annotate(List[Tuple[int, torch.Tensor]], [])
            out.append((1, x))
            return out
        """,
        (t(2),),
    )
    c.add(
        "variable_annotation",
        """
        def f(x: int) -> Optional[int]:
            y: Optional[int] = None
            if x > 0:
                y = x
            return y
        """,
        (1,),
        (0,),
    )
    # Globals other than modules and math constants are not values in scripted functions.
    c.error(
        "module_constant_int",
        """
        import torch

        SCALE = 3
        OFFSET = 1.5


        def f(x: torch.Tensor) -> torch.Tensor:
            return x * SCALE + OFFSET
        """,
    )
    c.error(
        "module_constant_tuple_str",
        """
        from typing import List

        import torch

        NAMES = ("a", "b", "c")
        PREFIX = "item_"


        def f(i: int) -> str:
            return PREFIX + NAMES[i]
        """,
    )
    c.error(
        "final_module_constant",
        """
        import torch
        from typing import Final

        LIMIT: Final[int] = 4


        def f(x: int) -> int:
            return min(x, LIMIT)
        """,
    )
    c.add(
        "math_constants",
        """
        import math


        def f(r: float) -> float:
            return math.pi * r * r + math.e - math.inf * 0.0 * 0.0
        """,
        (2.0,),
    )
    c.add(
        "call_function_twice_different_values",
        """
        def clamp01(x: float) -> float:
            return max(0.0, min(1.0, x))


        def f(a: float, b: float) -> List[float]:
            return [clamp01(a), clamp01(b), clamp01(a + b)]
        """,
        (0.25, 1.5),
    )
    c.add(
        "call_inside_loop_and_if",
        """
        def is_even(x: int) -> bool:
            return x % 2 == 0


        def f(n: int) -> int:
            s = 0
            for i in range(n):
                if is_even(i):
                    s += i
            return s
        """,
        (7,),
    )
    c.add(
        "torch_jit_ignore_style_unused",
        """
        def helper(x: torch.Tensor, k: int = 2) -> torch.Tensor:
            return x.pow(k)


        def f(x: torch.Tensor) -> torch.Tensor:
            return helper(x) - helper(x, k=3)
        """,
        (t(3),),
    )
