"""Lists, tuples, named tuples and dicts."""

from typing import Any, Dict, List, NamedTuple, Tuple

import torch
from torch import Tensor

from .registry import scripted

C = "containers"


class Point(NamedTuple):
    x: float
    y: float


class Batch(NamedTuple):
    data: Tensor
    lengths: List[int]
    label: str


@scripted(C)
def list_literal_ops(a: int) -> List[int]:
    xs = [a, a + 1, a + 2]
    xs.append(10)
    xs.insert(0, -1)
    xs.extend([7, 8])
    return xs


@scripted(C)
def list_empty_typed() -> List[float]:
    xs: List[float] = []
    xs.append(1.0)
    return xs


@scripted(C)
def list_pop_remove_clear(xs: List[int]) -> int:
    a = xs.pop()
    b = xs.pop(0)
    xs.remove(3)
    n = len(xs)
    xs.clear()
    return a + b + n


@scripted(C)
def list_index_count_contains(xs: List[int], v: int):
    return xs.index(v), xs.count(v), v in xs, v not in xs


@scripted(C)
def list_slicing(xs: List[int]):
    return xs[1:], xs[:-1], xs[::2], xs[1:4:2], xs[-1]


@scripted(C)
def list_setitem_negative(xs: List[float]) -> List[float]:
    xs[0] = 1.0
    xs[-1] = 2.0
    return xs


@scripted(C)
def list_concat_repeat(a: List[int], b: List[int]) -> List[int]:
    return a + b + a * 2


@scripted(C)
def list_sort_reverse(xs: List[int]) -> List[int]:
    xs.sort()
    ys = sorted(xs)
    ys.reverse()
    xs.sort(reverse=True)
    return xs + ys


@scripted(C)
def list_min_max_sum(xs: List[int]):
    return min(xs), max(xs), sum(xs)


@scripted(C)
def list_copy_and_equality(xs: List[int]) -> bool:
    ys = xs.copy()
    ys.append(1)
    return xs == ys


@scripted(C)
def list_of_lists(n: int) -> List[List[int]]:
    m: List[List[int]] = []
    for i in range(n):
        m.append([i] * n)
    return m


@scripted(C)
def list_of_tensors(x: Tensor) -> List[Tensor]:
    return [x, x + 1, x * 2]


@scripted(C)
def list_of_str_bool(xs: List[str], flags: List[bool]) -> List[str]:
    out: List[str] = []
    for x, f in zip(xs, flags):
        if f:
            out.append(x)
    return out


@scripted(C)
def list_del(xs: List[int]) -> List[int]:
    del xs[0]
    return xs


@scripted(C)
def list_unpack(xs: List[int]) -> int:
    a, b, c = xs
    return a * b * c


@scripted(C)
def list_len_bool(xs: List[int]) -> bool:
    return len(xs) > 0 and bool(xs)


@scripted(C)
def tuple_construct_index(a: int, b: str, c: float):
    t = (a, b, c)
    return t[0], t[2], t


@scripted(C)
def tuple_unpack(t: Tuple[int, Tuple[float, str]]) -> str:
    a, (b, c) = t
    return c + str(a) + str(b)


@scripted(C)
def tuple_slice(t: Tuple[int, int, int, int]) -> Tuple[int, int]:
    return t[1:3]


@scripted(C)
def tuple_concat(a: Tuple[int, float], b: Tuple[str]) -> Tuple[int, float, str]:
    return a + b


@scripted(C)
def tuple_comparison(a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    return a == b or a[0] < b[0]


@scripted(C)
def tuple_swap(a: int, b: int) -> Tuple[int, int]:
    a, b = b, a
    return a, b


@scripted(C)
def tuple_of_tensors(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    return x + y, x - y, x * y


@scripted(C)
def tuple_nested_return(x: int):
    return (x, (x + 1, (x + 2, "deep")))


@scripted(C)
def tuple_in_list(ps: List[Tuple[int, str]]) -> List[str]:
    return [s for (i, s) in ps]


@scripted(C)
def namedtuple_construct(x: float, y: float) -> Point:
    return Point(x, y)


@scripted(C)
def namedtuple_fields(p: Point) -> float:
    return p.x * p.x + p.y * p.y


@scripted(C)
def namedtuple_index_unpack(p: Point) -> float:
    a, b = p
    return p[0] - a + b


@scripted(C)
def namedtuple_with_tensor(b: Batch) -> Tensor:
    out = b.data.sum()
    for n in b.lengths:
        out = out + n
    return out


@scripted(C)
def namedtuple_list(ps: List[Point]) -> Point:
    sx = 0.0
    sy = 0.0
    for p in ps:
        sx += p.x
        sy += p.y
    return Point(sx, sy)


@scripted(C)
def dict_literal_ops(k: str, v: int) -> Dict[str, int]:
    d = {"a": 1, "b": 2}
    d[k] = v
    d["c"] = d["a"] + d.get("b", 0)
    return d


@scripted(C)
def dict_empty_typed() -> Dict[int, List[float]]:
    d: Dict[int, List[float]] = {}
    d[0] = [1.0]
    return d


@scripted(C)
def dict_methods(d: Dict[str, int]):
    ks = list(d.keys())
    vs = list(d.values())
    its = list(d.items())
    n = len(d)
    return ks, vs, its, n


@scripted(C)
def dict_get_pop_setdefault(d: Dict[str, int]) -> int:
    a = d.get("x", 1)
    b = d.pop("y", 2)
    c = d.setdefault("z", 3)
    return a + b + c


@scripted(C)
def dict_contains_del(d: Dict[int, str], k: int) -> bool:
    if k in d:
        del d[k]
    return k not in d


@scripted(C)
def dict_update_copy_clear(a: Dict[str, float], b: Dict[str, float]) -> Dict[str, float]:
    c = a.copy()
    c.update(b)
    a.clear()
    return c


@scripted(C)
def dict_of_tensors(x: Tensor) -> Dict[str, Tensor]:
    return {"x": x, "double": x * 2, "neg": -x}


@scripted(C)
def dict_tensor_keys(d: Dict[Tensor, int], t: Tensor) -> int:
    return d[t]


@scripted(C)
def dict_nested(d: Dict[str, Dict[str, int]]) -> int:
    s = 0
    for _, inner in d.items():
        for _, v in inner.items():
            s += v
    return s


@scripted(C)
def dict_from_zip(keys: List[str], vals: List[int]) -> Dict[str, int]:
    return dict(zip(keys, vals))


@scripted(C)
def dict_counter(words: List[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


@scripted(C)
def list_any_all(xs: List[bool]):
    return any(xs), all(xs)


@scripted(C)
def list_of_optional(xs: List[int]) -> List[int]:
    out = list(xs)
    return out


@scripted(C)
def any_type_list(x: Any) -> Any:
    return x


@scripted(C)
def isinstance_refinement(x: Any) -> int:
    if isinstance(x, int):
        return x + 1
    elif isinstance(x, str):
        return len(x)
    return 0


@scripted(C)
def union_refinement(x: int | str) -> str:
    if isinstance(x, int):
        return str(x + 1)
    return x + "!"


@scripted(C)
def range_to_list(n: int) -> List[int]:
    return list(range(n))


@scripted(C)
def list_tensor_stack(xs: List[Tensor]) -> Tensor:
    return torch.stack(xs, dim=0).sum(0)
