"""Enums as PyTorch's emitter takes them: compared with ==, !=, torch.eq and torch.ne against
members (int, float and str values, and a str-mixin Enum as timm's Format), held by classes,
passed to functions, in lists and dict values, and as dict keys through .name and .value;
an Enum itself as a dict key is refused with PyTorch's message."""

from scriptcases import t


def cases(c):
    c.add(
        "enum_compare_ops",
        """
        from enum import Enum

        from typing import List

        import torch


        class Color(Enum):
            RED = 1
            GREEN = 2


        def f(x: int) -> List[bool]:
            c = Color.RED if x > 0 else Color.GREEN
            return [
                c == Color.RED,
                c != Color.RED,
                torch.eq(c, Color.GREEN),
                torch.ne(c, Color.GREEN),
                Color.GREEN == c,
                Color.GREEN != c,
            ]
        """,
        (1,),
        (-1,),
    )
    c.add(
        "enum_str_mixin_torch_ne",
        """
        from enum import Enum

        import torch


        class Format(str, Enum):
            NCHW = "NCHW"
            NHWC = "NHWC"
            NLC = "NLC"


        def nchw_to(x: torch.Tensor, fmt: Format) -> torch.Tensor:
            if torch.eq(fmt, Format.NHWC):
                x = x.permute(0, 2, 3, 1)
            elif torch.eq(fmt, Format.NLC):
                x = x.flatten(2).transpose(1, 2)
            return x


        def f(x: torch.Tensor, flat: bool) -> torch.Tensor:
            fmt = Format.NLC if flat else Format.NHWC
            if torch.ne(fmt, Format.NCHW):
                x = nchw_to(x, fmt)
            return x
        """,
        (t(1, 2, 3, 4), True),
        (t(1, 2, 3, 4), False),
    )
    c.add(
        "enum_class_attribute",
        """
        from enum import Enum

        from typing import Tuple

        import torch


        class Mode(Enum):
            FAST = 0.5
            SLOW = 2.0


        class Runner:
            def __init__(self, fast: bool):
                self.mode = Mode.FAST if fast else Mode.SLOW

            def scale(self, x: torch.Tensor) -> torch.Tensor:
                if torch.ne(self.mode, Mode.SLOW):
                    return x * self.mode.value
                return x / self.mode.value


        def f(x: torch.Tensor, fast: bool) -> Tuple[torch.Tensor, bool, str]:
            r = Runner(fast)
            return r.scale(x), r.mode == Mode.FAST, r.mode.name
        """,
        (t(3), True),
        (t(3), False),
    )
    c.add(
        "enum_dict_keys_by_name_and_value",
        """
        from enum import Enum

        from typing import Dict, Tuple

        import torch


        class Color(Enum):
            RED = 1
            GREEN = 2
            BLUE = 3


        def pick(x: int) -> Color:
            if x > 0:
                return Color.RED
            if x == 0:
                return Color.GREEN
            return Color.BLUE


        def f(x: int) -> Tuple[int, str, Dict[str, int]]:
            c = pick(x)
            by_name = {Color.RED.name: 10, Color.GREEN.name: 20, Color.BLUE.name: 30}
            by_value = {Color.RED.value: "r", Color.GREEN.value: "g", Color.BLUE.value: "b"}
            by_name[c.name] += 1
            return by_name[c.name], by_value[c.value], by_name
        """,
        (1,),
        (0,),
        (-1,),
    )
    c.add(
        "enum_in_containers",
        """
        from enum import Enum

        from typing import Dict, List

        import torch


        class Color(Enum):
            RED = 1
            GREEN = 2


        def f(x: int) -> List[int]:
            colors = [Color.RED, Color.GREEN, Color.RED]
            names: Dict[str, Color] = {"a": Color.GREEN, "b": Color.RED}
            out: List[int] = []
            for c in colors:
                if c == names["a"] or torch.eq(c, names["b"]):
                    out.append(c.value * x)
            return out
        """,
        (3,),
    )
    c.error(
        "enum_dict_key",
        """
        from enum import Enum

        import torch


        class Color(Enum):
            RED = 1
            GREEN = 2


        def f(x: int) -> int:
            d = {Color.RED: 1, Color.GREEN: 2}
            return d[Color.GREEN] + x
        """,
    )
    c.error(
        "enum_dict_key_annotated",
        """
        from enum import Enum

        from typing import Dict

        import torch


        class Color(Enum):
            RED = 1
            GREEN = 2


        def f(x: int) -> int:
            d = torch.jit.annotate(Dict[Color, int], {})
            return len(d) + x
        """,
    )
