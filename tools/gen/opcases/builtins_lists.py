"""List builtins under TorchScript: indexing with PyTorch's messages, slicing with steps,
mutation seen through aliases, sorting, min/max/sum, and list equality/containment."""

from typing import List, Tuple


def cases(c):
    def getitem(l: List[int], i: int) -> int:
        return l[i]

    c.add("getitem", getitem, [1, 2, 3], 1)
    c.add("getitem_negative", getitem, [1, 2, 3], -3)
    c.add("getitem_out_of_range", getitem, [1, 2, 3], 3)
    c.add("getitem_negative_out_of_range", getitem, [1, 2, 3], -4)

    def setitem(l: List[int], i: int, v: int) -> List[int]:
        alias = l
        alias[i] = v
        return l

    c.add("setitem_negative", setitem, [1, 2, 3], -1, 9)
    c.add("setitem_out_of_range", setitem, [1, 2, 3], 5, 9)

    def slicing(l: List[int], a: int, b: int, s: int) -> Tuple[List[int], List[int], List[int], List[int]]:
        return l[a:b:s], l[a:], l[:b], l[::-1]

    c.add("slice_step", slicing, [0, 1, 2, 3, 4, 5, 6], 1, 6, 2)
    c.add("slice_negative_step", slicing, [0, 1, 2, 3, 4, 5, 6], -1, 1, -2)
    c.add("slice_clamped", slicing, [0, 1, 2], -10, 10, 1)

    def mutate(l: List[int]) -> Tuple[List[int], List[int], int, int]:
        alias = l
        alias.append(10)
        alias.insert(0, -1)
        alias.insert(-1, 7)
        alias.insert(100, 11)
        p = alias.pop()
        q = alias.pop(1)
        alias.remove(7)
        alias.extend([4, 4])
        alias.reverse()
        return l, alias, p, q

    c.add("mutation_through_alias", mutate, [1, 2, 3])

    def pop_empty(l: List[int]) -> int:
        return l.pop()

    c.add("pop_empty", pop_empty, [])

    def pop_bad(l: List[int], i: int) -> int:
        return l.pop(i)

    c.add("pop_out_of_range", pop_bad, [1], 7)

    def remove_missing(l: List[int], x: int) -> List[int]:
        l.remove(x)
        return l

    c.add("remove_missing", remove_missing, [1, 2], 5)

    def sort_ints(l: List[int]) -> Tuple[List[int], List[int], List[int]]:
        s = sorted(l)
        l.sort(reverse=True)
        d = l.copy()
        l.sort()
        return s, d, l

    c.add("sort_ints", sort_ints, [3, -1, 2, 2, 0])

    def sort_floats(l: List[float]) -> Tuple[List[float], List[float]]:
        s = sorted(l)
        l.sort(reverse=True)
        return s, l

    c.add("sort_floats", sort_floats, [0.5, -2.0, 3.25, 1.0])

    def sort_strs(l: List[str]) -> List[str]:
        l.sort()
        return l

    c.add("sort_strs", sort_strs, ["pear", "Apple", "apple", "banana"])

    def sort_bools(l: List[bool]) -> List[bool]:
        l.sort(reverse=True)
        return l

    c.add("sort_bools", sort_bools, [False, True, False])

    def search(l: List[int], x: int) -> Tuple[int, int, bool, bool]:
        return l.index(x), l.count(x), x in l, 100 in l

    c.add("index_count_contains", search, [5, 3, 5, 1], 5)
    c.add("index_missing", search, [5, 3], 7)

    def str_search(l: List[str], x: str) -> Tuple[int, int, bool]:
        return l.index(x), l.count(x), x in l

    c.add("str_index_count_contains", str_search, ["a", "b", "a"], "a")
    c.add("str_index_missing", str_search, ["a"], "zz")

    def arith(a: List[int], b: List[int], n: int) -> Tuple[List[int], List[int], List[int], bool, bool]:
        return a + b, a * n, n * b, a == b, a != b

    c.add("concat_repeat_equal", arith, [1, 2], [3], 3)
    c.add("repeat_negative", arith, [1, 2], [1, 2], -1)

    def reductions(l: List[int]) -> Tuple[int, int, int, bool, bool]:
        return min(l), max(l), sum(l), any([x > 2 for x in l]), all([x > 0 for x in l])

    c.add("min_max_sum_int", reductions, [4, -2, 9, 1])

    def freductions(l: List[float]) -> Tuple[float, float, float]:
        return min(l), max(l), sum(l)

    c.add("min_max_sum_float", freductions, [0.5, -2.25, 9.0])

    def empty_min(l: List[int]) -> int:
        return min(l)

    c.add("min_empty", empty_min, [])

    def pairwise(a: List[int], b: List[int]) -> Tuple[List[int], List[int]]:
        return min(a, b), max(a, b)

    c.add("min_max_of_lists", pairwise, [1, 2, 3], [1, 3])

    def clear_del(l: List[int]) -> Tuple[List[int], int]:
        k = l.copy()
        del k[0]
        del k[-1]
        n = len(k)
        l.clear()
        return k, n

    c.add("clear_and_del", clear_del, [1, 2, 3, 4])

    def list_of_lists(n: int) -> List[List[int]]:
        rows: List[List[int]] = []
        for i in range(n):
            rows.append([i] * (i + 1))
        rows[1].append(9)
        return rows

    c.add("list_of_lists", list_of_lists, 3)

    def in_place_ops(l: List[int]) -> List[int]:
        alias = l
        l += [7, 8]
        return alias

    c.add("iadd_extends_alias", in_place_ops, [1])

    def comprehension(l: List[int]) -> List[int]:
        return [x * x for x in l]

    c.add("comprehension", comprehension, [1, 2, 3, 4, 5])

    def float_lists(l: List[float], x: float) -> Tuple[int, bool, float, float, int]:
        return l.count(x), x in l, min(l), max(l), l.index(x)

    c.add("float_list_search", float_lists, [0.5, 2.0, 0.5], 0.5)
    c.add("float_list_nan_min_max", float_lists, [float("nan"), 1.0, 0.5], 1.0)
    c.add("float_list_index_missing", float_lists, [1.0], 2.5)

    def bool_lists(l: List[bool]) -> Tuple[int, bool, bool, bool, bool, int]:
        return sum(l), any(l), all(l), min(l), max(l), l.count(True)

    c.add("bool_list_reductions", bool_lists, [True, False, True])

    def str_any(l: List[str]) -> Tuple[bool, List[str]]:
        return any(l), sorted(l)

    c.add("str_list_any_sorted", str_any, ["", "b", "a"])

    def pops(l: List[int]) -> Tuple[int, int, List[int]]:
        a = l.pop(-2)
        del l[-1]
        b = l.pop(0)
        return a, b, l

    c.add("pop_and_del_negative", pops, [1, 2, 3, 4, 5])

    def del_out_of_range(l: List[int], i: int) -> List[int]:
        del l[i]
        return l

    c.add("del_out_of_range", del_out_of_range, [1, 2], -3)

    def extend_self(l: List[int]) -> List[int]:
        l.extend(l)
        return l

    c.add("extend_with_itself", extend_self, [1, 2])

    def list_copy_independent(l: List[int]) -> Tuple[List[int], List[int], bool]:
        k = list(l)
        k.append(0)
        return l, k, l == k

    c.add("list_copy_independent", list_copy_independent, [3, 4])

    def imul(l: List[int], n: int) -> List[int]:
        alias = l
        l *= n
        return alias

    c.add("imul_repeats_alias", imul, [1, 2], 3)

    def sort_nan(l: List[float]) -> Tuple[List[float], List[float], List[float]]:
        a = sorted(l)
        b = l.copy()
        b.sort(reverse=True)
        l.sort()
        return a, b, l

    nan = float("nan")
    c.add("sort_with_nan_short", sort_nan, [3.0, nan, 1.0, 2.0])
    # Longer lists with NaN send PyTorch's unguarded std::sort loops past the list's end
    # (an internal assert or a crash), so they have no oracle; std_sort.rs bounds those loops.
