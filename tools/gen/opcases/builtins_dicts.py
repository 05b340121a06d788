"""Dict builtins under TorchScript: insertion order, shared mutation, get/pop defaults,
KeyError messages."""

from typing import Dict, List, Tuple


def cases(c):
    def build(k: str, v: int) -> Dict[str, int]:
        d = {"b": 1, "a": 2}
        d[k] = v
        d["b"] = 5
        return d

    c.add("construct_setitem_order", build, "c", 3)

    def getitem(k: str) -> int:
        d = {"a": 1}
        return d[k]

    c.add("getitem", getitem, "a")
    c.add("getitem_keyerror", getitem, "zz")

    def getitem_int(k: int) -> float:
        d = {1: 1.5, -2: 2.5}
        return d[k]

    c.add("getitem_int_key", getitem_int, -2)
    c.add("getitem_int_keyerror", getitem_int, 5)

    def get(k: str) -> Tuple[int, int]:
        d = {"a": 1}
        x = d.get(k)
        return (x if x is not None else -1), d.get(k, 42)

    c.add("get_default", get, "q")
    c.add("get_present", get, "a")

    def views(n: int) -> Tuple[List[str], List[int], List[Tuple[str, int]]]:
        d: Dict[str, int] = {}
        for i in range(n):
            d[str(i)] = i * i
        return list(d.keys()), list(d.values()), list(d.items())

    c.add("keys_values_items", views, 4)

    def pops(k: str) -> Tuple[int, int, Dict[str, int]]:
        d = {"a": 1, "b": 2, "c": 3}
        x = d.pop("b")
        y = d.pop(k, -7)
        return x, y, d

    c.add("pop_default", pops, "missing")
    c.add("pop_present", pops, "c")

    def pop_missing(k: str) -> int:
        d = {"a": 1}
        return d.pop(k)

    c.add("pop_keyerror", pop_missing, "zz")

    def popitem(n: int) -> Tuple[str, int, int]:
        d = {"x": 1, "y": 2}
        for i in range(n):
            d.popitem()
        k, v = d.popitem()
        return k, v, len(d)

    c.add("popitem", popitem, 0)
    c.add("popitem_empty", popitem, 2)

    def mutate(k: str) -> Tuple[Dict[str, int], Dict[str, int], int, bool, bool]:
        d = {"a": 1}
        alias = d
        alias.update({"b": 2, "a": 3})
        s = alias.setdefault(k, 10)
        t = alias.setdefault("a", 99)
        e = d.copy()
        d.clear()
        return e, d, s + t, k in e, "zz" in e

    c.add("update_setdefault_copy_clear", mutate, "k")

    def delete(k: str) -> Dict[str, int]:
        d = {"a": 1, "b": 2}
        del d[k]
        return d

    c.add("del_key", delete, "a")
    c.add("del_keyerror", delete, "q")

    def counter(words: List[str]) -> Dict[str, int]:
        counts: Dict[str, int] = {}
        for w in words:
            if w in counts:
                counts[w] += 1
            else:
                counts[w] = 1
        return counts

    c.add("word_counter", counter, ["a", "b", "a", "c", "a"])

    def comprehension(n: int) -> Dict[int, str]:
        return {i: str(i * 1.5) for i in range(n)}

    c.add("comprehension_float_keys_str", comprehension, 3)

    def zipped(keys: List[str], vals: List[int]) -> Dict[str, int]:
        return dict(zip(keys, vals))

    c.add("dict_from_zip", zipped, ["x", "y"], [1, 2])

    def length(n: int) -> Tuple[int, str]:
        d = {"a": [1, 2], "b": [n]}
        d["b"].append(5)
        return len(d), str(d)

    c.add("len_and_str", length, 7)

    def int_keys(k: int) -> Tuple[List[int], bool, bool, float]:
        d = {3: 1.0, -1: 2.0}
        d[k] = 0.5
        return list(d.keys()), k in d, 7 in d, d.get(42, -1.0)

    c.add("int_keys", int_keys, 9)

    def float_bool_keys(x: float, b: bool) -> Tuple[List[float], str, int]:
        f = {0.5: "a"}
        f[x] = "b"
        g = {True: 1, False: 0}
        return list(f.keys()), f[x], g[b]

    c.add("float_and_bool_keys", float_bool_keys, 1.25, False)

    def nested_dicts(k: str) -> Tuple[int, List[str]]:
        outer: Dict[str, Dict[str, int]] = {"x": {"a": 1}}
        empty: Dict[str, int] = {}
        inner = outer.setdefault(k, empty)
        inner["z"] = 26
        outer["x"]["b"] = 2
        return outer[k]["z"] + outer["x"]["b"], list(outer.keys())

    c.add("nested_dict_aliasing", nested_dicts, "y")

    def update_self(n: int) -> Dict[str, int]:
        d = {"a": n}
        d.update(d)
        return d

    c.add("update_with_itself", update_self, 2)
