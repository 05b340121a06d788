"""for loops over range, lists, tuples, dicts, strings, tensors, enumerate, zip, reversed."""

from scriptcases import t


def cases(c):
    c.add(
        "range_one_arg",
        """
        def f(n: int) -> int:
            s = 0
            for i in range(n):
                s += i * i
            return s
        """,
        (6,),
    )
    c.add(
        "range_start_stop",
        """
        def f(a: int, b: int) -> List[int]:
            out: List[int] = []
            for i in range(a, b):
                out.append(i)
            return out
        """,
        (2, 7),
    )
    c.add(
        "range_step",
        """
        def f(n: int) -> List[int]:
            out: List[int] = []
            for i in range(n, 0, -2):
                out.append(i)
            return out
        """,
        (9,),
    )
    c.add(
        "range_tensor_accumulate",
        """
        def f(x: torch.Tensor, n: int) -> torch.Tensor:
            y = torch.zeros_like(x)
            for _ in range(n):
                y = y + x
            return y
        """,
        (t(2, 2), 3),
    )
    c.add(
        "for_list",
        """
        def f(xs: List[int]) -> int:
            total = 0
            for x in xs:
                total = total + x
            return total
        """,
        ([1, 2, 3, 4],),
    )
    c.add(
        "for_list_of_tensors",
        """
        def f(xs: List[torch.Tensor]) -> torch.Tensor:
            acc = torch.zeros(2)
            for x in xs:
                acc += x
            return acc
        """,
        ([t(2), t(2, scale=3.0)],),
    )
    c.add(
        "for_tuple",
        """
        def f(x: torch.Tensor) -> List[torch.Tensor]:
            out: List[torch.Tensor] = []
            for v in (x, x + 1, x * 2):
                out.append(v.sum())
            return out
        """,
        (t(3),),
    )
    c.add(
        "for_tuple_heterogeneous",
        """
        def f(x: int) -> str:
            s = ""
            for v in (x, "a", 2.5):
                s = s + str(v) + ","
            return s
        """,
        (4,),
    )
    c.add(
        "for_dict_keys",
        """
        def f(n: int) -> int:
            d = {"a": 1, "b": 2, "c": n}
            total = 0
            for k in d:
                total += d[k]
            return total
        """,
        (10,),
    )
    c.add(
        "for_dict_items",
        """
        def f(n: int) -> List[str]:
            d: Dict[str, int] = {"x": n, "y": n + 1}
            out: List[str] = []
            for k, v in d.items():
                out.append(k + str(v))
            return out
        """,
        (3,),
    )
    c.add(
        "for_dict_values",
        """
        def f(n: int) -> int:
            d = {1: n, 2: n * 2}
            total = 0
            for v in d.values():
                total += v
            return total
        """,
        (5,),
    )
    c.add(
        "for_string",
        """
        def f(s: str) -> int:
            n = 0
            for ch in s:
                if ch == "a":
                    n += 1
            return n
        """,
        ("banana",),
    )
    c.add(
        "for_tensor",
        """
        def f(x: torch.Tensor) -> List[float]:
            out: List[float] = []
            for row in x:
                out.append(float(row.sum()))
            return out
        """,
        (t(3, 2),),
    )
    c.add(
        "for_enumerate",
        """
        def f(xs: List[int]) -> int:
            s = 0
            for i, x in enumerate(xs):
                s += i * x
            return s
        """,
        ([3, 1, 4, 1, 5],),
    )
    c.add(
        "for_enumerate_start",
        """
        def f(xs: List[str]) -> List[str]:
            out: List[str] = []
            for i, x in enumerate(xs, 1):
                out.append(str(i) + x)
            return out
        """,
        (["a", "b"],),
    )
    c.add(
        "for_zip",
        """
        def f(a: List[int], b: List[float]) -> float:
            s = 0.0
            for x, y in zip(a, b):
                s += x * y
            return s
        """,
        ([1, 2, 3], [0.5, 1.5, 2.5, 9.0]),
    )
    c.add(
        "for_zip_three",
        """
        def f(a: List[int], b: List[int], c: List[int]) -> List[int]:
            out: List[int] = []
            for x, y, z in zip(a, b, c):
                out.append(x + y * z)
            return out
        """,
        ([1, 2], [3, 4], [5, 6]),
    )
    # reversed() over a list or range does not script (see errors/reversed_*): slice instead.
    c.add(
        "for_slice_reversed",
        """
        def f(xs: List[int]) -> List[int]:
            out: List[int] = []
            for x in xs[::-1]:
                out.append(x)
            return out
        """,
        ([1, 2, 3],),
    )
    c.add(
        "for_nested",
        """
        def f(n: int, m: int) -> List[List[int]]:
            rows: List[List[int]] = []
            for i in range(n):
                row: List[int] = []
                for j in range(m):
                    row.append(i * m + j)
                rows.append(row)
            return rows
        """,
        (2, 3),
    )
    c.add(
        "for_enumerate_zip",
        """
        def f(a: List[int], b: List[int]) -> int:
            s = 0
            for i, (x, y) in enumerate(zip(a, b)):
                s += i * (x - y)
            return s
        """,
        ([5, 6, 7], [1, 1, 1]),
    )
    c.add(
        "for_tuple_unpack_in_list",
        """
        def f(pairs: List[Tuple[int, int]]) -> int:
            s = 0
            for a, b in pairs:
                s += a * b
            return s
        """,
    )
    c.add(
        "loop_carried_tensor",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            h = torch.zeros(3)
            for i in range(4):
                h = torch.tanh(h + x * i)
            return h
        """,
        (t(3),),
    )
    c.add(
        "for_list_modified_in_loop",
        """
        def f(n: int) -> List[int]:
            xs = [1]
            for i in range(n):
                xs.append(xs[-1] * 2)
            return xs
        """,
        (5,),
    )
    c.add(
        "for_range_of_len",
        """
        def f(xs: List[float]) -> float:
            best = xs[0]
            for i in range(1, len(xs)):
                if xs[i] > best:
                    best = xs[i]
            return best
        """,
        ([0.5, 3.5, -1.0, 2.0],),
    )
