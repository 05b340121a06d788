"""Whole scripted programs on Python values: loops over lists and dicts, string building,
exceptions raised with their messages."""

from typing import Dict, List, Tuple


def cases(c):
    def word_lengths(text: str) -> Tuple[Dict[str, int], List[str], str]:
        lengths: Dict[str, int] = {}
        for w in text.split():
            w = w.strip(".,").lower()
            if len(w) > 0 and w not in lengths:
                lengths[w] = len(w)
        longest = sorted(lengths.keys())
        summary = ", ".join([f"{k}={lengths[k]}" for k in longest])
        return lengths, longest, summary

    c.add("word_lengths", word_lengths, "The cat, the Dog. a CAT")

    def check_positive(x: int) -> int:
        if x <= 0:
            raise ValueError(f"expected a positive value, got {x}")
        return x * 2

    c.add("raise_value_error", check_positive, -3)
    c.add("no_raise", check_positive, 4)

    def lookup(key: str) -> int:
        table = {"one": 1, "two": 2}
        return table[key] * 10

    c.add("keyerror_in_program", lookup, "three")

    def assert_fail(x: int) -> int:
        assert x < 3, "x must be small"
        return x

    c.add("assert_message", assert_fail, 5)

    def running_stats(xs: List[float]) -> Tuple[float, float, float, int]:
        total = 0.0
        best = -1e30
        count = 0
        for x in xs:
            if x != x:
                continue
            total += x
            best = max(best, x)
            count += 1
        mean = total / count if count > 0 else 0.0
        return total, best, mean, count

    c.add("running_stats", running_stats, [1.5, float("nan"), -2.0, 4.25])

    def fizzbuzz(n: int) -> List[str]:
        out: List[str] = []
        for i in range(1, n + 1):
            s = ""
            if i % 3 == 0:
                s += "Fizz"
            if i % 5 == 0:
                s += "Buzz"
            out.append(s if s != "" else str(i))
        return out

    c.add("fizzbuzz", fizzbuzz, 15)

    def dict_loop(n: int) -> Tuple[List[int], int]:
        squares: Dict[int, int] = {}
        for i in range(n):
            squares[i] = i * i
        total = 0
        for k, v in squares.items():
            total += k * v
        evens: List[int] = []
        for v in squares.values():
            if v % 2 == 0:
                evens.append(v)
        return evens, total

    c.add("dict_loop", dict_loop, 6)

    def range_steps(a: int, b: int, s: int) -> List[int]:
        return [i for i in range(a, b, s)]

    c.add("range_negative_step", range_steps, 10, -3, -4)
    c.add("range_zero_step", range_steps, 0, 3, 0)

    def bubble(xs: List[int]) -> List[int]:
        n = len(xs)
        for i in range(n):
            for j in range(n - 1 - i):
                if xs[j] > xs[j + 1]:
                    xs[j], xs[j + 1] = xs[j + 1], xs[j]
        return xs

    c.add("bubble_sort", bubble, [5, -1, 3, 3, 0, 9])

    def enumerate_zip(a: List[str], b: List[int]) -> List[str]:
        out: List[str] = []
        for i, (s, n) in enumerate(zip(a, b)):
            out.append("{}:{}x{}".format(i, s, n))
        return out

    c.add("enumerate_zip", enumerate_zip, ["a", "b", "c"], [3, 2])
