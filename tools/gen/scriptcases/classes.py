"""TorchScript classes defined in the same file and used by the entry: __init__, attributes,
methods, @property, class methods calling each other, NamedTuple, Enum, with-statements on
script classes with __enter__/__exit__."""

from scriptcases import t


def cases(c):
    c.add(
        "basic_class",
        """
        class Counter:
            def __init__(self, start: int):
                self.value = start

            def bump(self, by: int) -> int:
                self.value = self.value + by
                return self.value


        def f(n: int) -> int:
            c = Counter(n)
            c.bump(2)
            return c.bump(3)
        """,
        (1,),
    )
    c.add(
        "class_tensor_attr",
        """
        class Linear:
            def __init__(self, w: torch.Tensor, b: torch.Tensor):
                self.w = w
                self.b = b

            def apply(self, x: torch.Tensor) -> torch.Tensor:
                return torch.matmul(x, self.w) + self.b


        def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            lin = Linear(w, torch.ones(2))
            return lin.apply(x)
        """,
        (t(3, 4), t(4, 2)),
    )
    c.add(
        "class_annotated_attrs",
        """
        class Box:
            def __init__(self):
                self.items: List[int] = []
                self.label: Optional[str] = None

            def add(self, v: int) -> None:
                self.items.append(v)


        def f(n: int) -> Tuple[List[int], bool]:
            b = Box()
            for i in range(n):
                b.add(i)
            return b.items, b.label is None
        """,
        (3,),
    )
    c.add(
        "class_property",
        """
        class Rect:
            def __init__(self, w: float, h: float):
                self.w = w
                self.h = h

            @property
            def area(self) -> float:
                return self.w * self.h


        def f(w: float, h: float) -> float:
            r = Rect(w, h)
            return r.area
        """,
        (2.0, 3.5),
    )
    c.add(
        "class_method_calls_method",
        """
        class Poly:
            def __init__(self, a: float, b: float, c: float):
                self.a = a
                self.b = b
                self.c = c

            def eval(self, x: float) -> float:
                return (self.a * x + self.b) * x + self.c

            def eval_many(self, xs: List[float]) -> List[float]:
                return [self.eval(x) for x in xs]


        def f(xs: List[float]) -> List[float]:
            return Poly(1.0, -2.0, 0.5).eval_many(xs)
        """,
        ([0.0, 1.0, 2.5],),
    )
    c.add(
        "class_returned_and_passed",
        """
        class Pair:
            def __init__(self, first: int, second: int):
                self.first = first
                self.second = second


        def make(a: int) -> Pair:
            return Pair(a, a * 2)


        def total(p: Pair) -> int:
            return p.first + p.second


        def f(a: int) -> int:
            return total(make(a))
        """,
        (5,),
    )
    # An attribute annotation in __init__ does not widen the attribute's type: PyTorch infers
    # NoneType from the value and refuses the later Tensor assignment.
    c.error(
        "class_attr_annotation_ignored",
        """
        class Cache:
            def __init__(self):
                self.value: Optional[torch.Tensor] = None

            def set(self, x: torch.Tensor) -> None:
                self.value = x


        def f(x: torch.Tensor) -> torch.Tensor:
            c = Cache()
            c.set(x)
            return x
        """,
    )
    c.add(
        "class_attr_refined_optional",
        """
        class Cache:
            def __init__(self):
                self.value = torch.jit.annotate(Optional[torch.Tensor], None)

            def get(self, x: torch.Tensor) -> torch.Tensor:
                v = self.value
                if v is None:
                    v = x * 2
                    self.value = v
                return v


        def f(x: torch.Tensor) -> torch.Tensor:
            c = Cache()
            a = c.get(x)
            return c.get(a)
        """,
        (t(2),),
    )
    c.add(
        "class_in_list",
        """
        class Item:
            def __init__(self, w: int):
                self.w = w


        def f(n: int) -> int:
            items: List[Item] = []
            for i in range(n):
                items.append(Item(i))
            return sum([it.w for it in items])
        """,
        (4,),
    )
    c.add(
        "class_setattr_in_loop",
        """
        class Acc:
            def __init__(self):
                self.total = 0.0
                self.count = 0


        def f(xs: List[float]) -> float:
            a = Acc()
            for x in xs:
                a.total += x
                a.count += 1
            return a.total / a.count
        """,
        ([1.0, 2.0, 4.5],),
    )
    c.add(
        "class_static_method",
        """
        class MathUtil:
            def __init__(self):
                pass

            @staticmethod
            def double(x: int) -> int:
                return x * 2


        def f(x: int) -> int:
            return MathUtil.double(x)
        """,
        (21,),
    )
    c.add(
        "class_magic_methods",
        """
        class Vec:
            def __init__(self, x: float, y: float):
                self.x = x
                self.y = y

            def __add__(self, other: "Vec") -> "Vec":
                return Vec(self.x + other.x, self.y + other.y)

            def __len__(self) -> int:
                return 2

            def __eq__(self, other: "Vec") -> bool:
                return self.x == other.x and self.y == other.y


        def f(a: float, b: float) -> Tuple[float, int, bool]:
            v = Vec(a, b) + Vec(1.0, 1.0)
            return v.x + v.y, len(v), v == Vec(a + 1.0, b + 1.0)
        """,
        (0.5, 2.0),
    )
    c.add(
        "class_getitem",
        """
        class Table:
            def __init__(self, values: List[int]):
                self.values = values

            def __getitem__(self, i: int) -> int:
                return self.values[i] * 10


        def f(xs: List[int]) -> int:
            t = Table(xs)
            return t[0] + t[2]
        """,
        ([1, 2, 3],),
    )
    c.add(
        "namedtuple_basic",
        """
        from typing import NamedTuple

        import torch


        class Point(NamedTuple):
            x: float
            y: float


        def f(a: float, b: float) -> float:
            p = Point(a, b)
            return p.x * p.y + p[0]
        """,
        (2.0, 3.0),
    )
    c.add(
        "namedtuple_return",
        """
        from typing import NamedTuple

        import torch


        class Stats(NamedTuple):
            mean: torch.Tensor
            count: int


        def f(x: torch.Tensor) -> Stats:
            return Stats(x.mean(), x.numel())
        """,
        (t(2, 3),),
    )
    c.add(
        "namedtuple_unpack",
        """
        from typing import NamedTuple

        import torch


        class Span(NamedTuple):
            start: int
            end: int


        def length(s: Span) -> int:
            a, b = s
            return b - a


        def f(a: int, b: int) -> int:
            return length(Span(a, b)) + length(Span(start=0, end=b))
        """,
        (2, 9),
    )
    c.add(
        "enum_value",
        """
        from enum import Enum

        import torch


        class Color(Enum):
            RED = 1
            GREEN = 2


        def f(x: int) -> int:
            c = Color.RED if x > 0 else Color.GREEN
            if c == Color.RED:
                return c.value * 10
            return c.value
        """,
        (1,),
        (-1,),
    )
    c.add(
        "enum_name_and_param",
        """
        from enum import Enum

        from typing import Tuple

        import torch


        class Mode(Enum):
            SUM = "sum"
            MEAN = "mean"


        def reduce(x: torch.Tensor, mode: Mode) -> torch.Tensor:
            if mode == Mode.SUM:
                return x.sum()
            return x.mean()


        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, str]:
            return reduce(x, Mode.SUM), reduce(x, Mode.MEAN), Mode.MEAN.name
        """,
        (t(4),),
    )
    c.add(
        "with_context_manager_class",
        """
        from typing import Any, List, Tuple

        import torch


        class Recorder:
            def __init__(self):
                self.log: List[str] = []

            def __enter__(self):
                self.log.append("enter")

            def __exit__(self, a: Any, b: Any, c: Any):
                self.log.append("exit")


        def f(x: int) -> List[str]:
            r = Recorder()
            with r:
                r.log.append(str(x))
            return r.log
        """,
        (3,),
    )
    c.add(
        "with_as_value",
        """
        from typing import Any, List, Tuple

        import torch


        class Resource:
            def __init__(self, v: int):
                self.v = v
                self.open = False

            def __enter__(self) -> int:
                self.open = True
                return self.v * 2

            def __exit__(self, a: Any, b: Any, c: Any):
                self.open = False


        def f(x: int) -> Tuple[int, bool]:
            res = Resource(x)
            with res as doubled:
                y = doubled + 1
            return y, res.open
        """,
        (4,),
    )
    c.add(
        "with_no_grad",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                y = x * 2
            return y + 1
        """,
        (t(3),),
    )
    c.add(
        "with_return_inside",
        """
        from typing import Any, List, Tuple

        import torch


        class Guard:
            def __init__(self):
                self.depth = 0

            def __enter__(self):
                self.depth += 1

            def __exit__(self, a: Any, b: Any, c: Any):
                self.depth -= 1


        def f(x: int) -> int:
            g = Guard()
            with g:
                if x > 0:
                    return x
            return -g.depth
        """,
        (2,),
        (-2,),
    )
