"""Lists, dicts and tuples: literals, indexing, slicing, list and dict comprehensions, tuple
and starred unpacking, augmented assignment (in place for tensors and lists, as Python does)."""

from scriptcases import t


def cases(c):
    c.add(
        "list_literal_ops",
        """
        def f(x: int) -> Tuple[List[int], int, int]:
            xs = [x, x + 1, x + 2]
            xs.append(7)
            xs.insert(0, -1)
            y = xs.pop()
            return xs, len(xs), y
        """,
        (3,),
    )
    c.add(
        "list_index_slice",
        """
        def f(xs: List[int]) -> Tuple[int, int, List[int], List[int]]:
            return xs[0], xs[-1], xs[1:3], xs[::2]
        """,
        ([5, 6, 7, 8, 9],),
    )
    c.add(
        "list_setitem",
        """
        def f(xs: List[float]) -> List[float]:
            xs[0] = 10.0
            xs[-1] = xs[1] * 2
            return xs
        """,
        ([1.0, 2.0, 3.0],),
    )
    c.add(
        "list_concat_and_repeat",
        """
        def f(a: List[int], b: List[int]) -> List[int]:
            return a + b + [0] * 2
        """,
        ([1, 2], [3]),
    )
    c.add(
        "list_in_and_count",
        """
        def f(xs: List[int], v: int) -> Tuple[bool, bool, int]:
            return v in xs, v not in xs, xs.count(v)
        """,
        ([1, 2, 2, 3], 2),
    )
    c.add(
        "list_comprehension",
        """
        def f(n: int) -> List[int]:
            return [i * i for i in range(n)]
        """,
        (5,),
    )
    c.add(
        "list_comprehension_over_list",
        """
        def f(xs: List[float]) -> List[float]:
            return [x / 2.0 for x in xs]
        """,
        ([1.0, 3.0],),
    )
    c.add(
        "list_comprehension_tensors",
        """
        def f(x: torch.Tensor) -> List[torch.Tensor]:
            return [x * i for i in range(3)]
        """,
        (t(2),),
    )
    c.add(
        "list_comprehension_over_tensor",
        """
        def f(x: torch.Tensor) -> List[torch.Tensor]:
            return [row.sum() for row in x]
        """,
        (t(3, 2),),
    )
    c.add(
        "dict_comprehension",
        """
        def f(xs: List[str]) -> Dict[str, int]:
            return {x: len(x) for x in xs}
        """,
        (["a", "bbb", "cc"],),
    )
    c.add(
        "dict_literal_ops",
        """
        def f(k: str, v: int) -> Tuple[Dict[str, int], int, bool, List[str]]:
            d = {"a": 1, "b": 2}
            d[k] = v
            x = d.get("zz", -1)
            del d["a"]
            return d, x, "b" in d, list(d.keys())
        """,
        ("c", 3),
    )
    c.add(
        "dict_int_keys_tensor_values",
        """
        def f(x: torch.Tensor) -> Dict[int, torch.Tensor]:
            d: Dict[int, torch.Tensor] = {}
            for i in range(3):
                d[i] = x + i
            return d
        """,
        (t(2),),
    )
    c.add(
        "dict_pop_update",
        """
        def f(n: int) -> Tuple[int, List[int]]:
            d = {1: 10, 2: 20}
            d.update({3: n})
            v = d.pop(1)
            return v, list(d.values())
        """,
        (30,),
    )
    c.add(
        "tuple_literal_index",
        """
        def f(x: torch.Tensor, n: int) -> Tuple[int, torch.Tensor]:
            tup = (n, x, "s")
            return tup[0], tup[1]
        """,
        (t(2), 4),
    )
    c.add(
        "tuple_slice",
        """
        def f(a: int, b: int, c: int) -> Tuple[int, int]:
            tup = (a, b, c)
            return tup[1:]
        """,
        (1, 2, 3),
    )
    c.add(
        "tuple_unpack",
        """
        def f(a: int, b: int) -> Tuple[int, int]:
            x, y = b, a
            (p, q), r = (x, y), 3
            return p + r, q
        """,
        (1, 2),
    )
    c.add(
        "swap",
        """
        def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            a, b = b, a
            return a - b
        """,
        (t(2), t(2, scale=2.0)),
    )
    c.error(
        "starred_unpack",
        """
        def f(x: torch.Tensor) -> Tuple[int, int, int]:
            a, *rest = x.size()
            return a, rest[0], rest[1]
        """,
    )
    c.add(
        "starred_middle",
        """
        def f(xs: List[int]) -> Tuple[int, List[int], int]:
            first, *mid, last = xs[0], xs[1], xs[2], xs[3]
            return first, mid, last
        """,
        ([1, 2, 3, 4],),
    )
    c.add(
        "starred_call_args",
        """
        def add3(a: int, b: int, c: int) -> int:
            return a + b * 10 + c * 100


        def f(x: int) -> int:
            tup = (x, x + 1)
            return add3(*tup, 5)
        """,
        (1,),
    )
    c.add(
        "unpack_list",
        """
        def f(xs: List[int]) -> int:
            a, b = xs
            return a - b
        """,
        ([9, 4],),
        ([1, 2, 3],),
    )
    c.error(
        "unpack_tensor",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            a, b = x
            return a * b
        """,
    )
    c.error(
        "aug_assign_int",
        """
        def f(x: int) -> int:
            x += 3
            x -= 1
            x *= 4
            x //= 3
            x %= 5
            return x
        """,
    )
    c.add(
        "aug_assign_int_supported",
        """
        def f(x: int) -> int:
            x += 3
            x -= 1
            x *= 4
            return x
        """,
        (7,),
    )
    # `x %= 5` on an int gives a float in TorchScript (augmented % emits aten::fmod, whose
    # scalar overload returns float), so the int return type is refused.
    c.error(
        "aug_assign_mod_int",
        """
        def f(x: int) -> int:
            x %= 5
            return x
        """,
    )
    c.add(
        "starred_unpack_tuple",
        """
        def f(x: torch.Tensor) -> Tuple[int, int, int]:
            a, *rest = x.shape[0], x.shape[1], x.shape[2]
            return a, rest[0], rest[1]
        """,
        (t(2, 3, 1),),
    )
    c.add(
        "aug_assign_float",
        """
        def f(x: float) -> float:
            x += 1.5
            x /= 2.0
            x **= 2.0
            return x
        """,
        (3.0,),
    )
    c.add(
        "aug_assign_tensor_inplace",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            y = x
            y += 1
            y *= 2
            return x, y
        """,
        (t(3),),
    )
    c.add(
        "aug_assign_list_inplace",
        """
        def f(xs: List[int]) -> Tuple[List[int], List[int]]:
            ys = xs
            ys += [4, 5]
            return xs, ys
        """,
        ([1, 2],),
    )
    c.add(
        "aug_assign_subscript",
        """
        def f(xs: List[int], x: torch.Tensor) -> Tuple[List[int], torch.Tensor]:
            xs[0] += 10
            x[1] += 5.0
            return xs, x
        """,
        ([1, 2], t(3)),
    )
    c.add(
        "aug_assign_dict",
        """
        def f(words: List[str]) -> Dict[str, int]:
            counts: Dict[str, int] = {}
            for w in words:
                if w in counts:
                    counts[w] += 1
                else:
                    counts[w] = 1
            return counts
        """,
        (["a", "b", "a"],),
    )
    c.add(
        "aug_assign_bitwise",
        """
        def f(x: int) -> int:
            x |= 8
            x &= 12
            x ^= 1
            x <<= 2
            x >>= 1
            return x
        """,
        (5,),
    )
    c.add(
        "nested_containers",
        """
        def f(n: int) -> Dict[str, List[Tuple[int, float]]]:
            out: Dict[str, List[Tuple[int, float]]] = {}
            out["a"] = [(i, i / 2.0) for i in range(n)]
            return out
        """,
        (2,),
    )
    c.add(
        "list_sort_and_builtins",
        """
        def f(xs: List[int]) -> Tuple[List[int], List[int], int, int]:
            ys = sorted(xs)
            xs.sort(reverse=True)
            return ys, xs, min(xs), max(xs)
        """,
        ([3, 1, 2],),
    )
    c.add(
        "list_of_lists_index",
        """
        def f(n: int) -> int:
            grid = [[i * 3 + j for j in range(3)] for i in range(n)]
            return grid[n - 1][2]
        """,
        (3,),
    )
    c.add(
        "empty_list_of_tensors_default",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            xs = []
            xs.append(x)
            xs.append(x * 2)
            return torch.cat(xs)
        """,
        (t(2),),
    )
    c.add(
        "list_clear_extend_reverse",
        """
        def f(xs: List[int]) -> List[int]:
            ys = xs.copy()
            ys.extend([7, 8])
            ys.reverse()
            xs.clear()
            return ys + xs
        """,
        ([1, 2],),
    )
    c.add(
        "tuple_compare_and_len",
        """
        def f(a: int, b: int) -> Tuple[bool, int]:
            t1 = (a, b)
            t2 = (b, a)
            return t1 == t2, len(t1)
        """,
        (1, 1),
        (1, 2),
    )
