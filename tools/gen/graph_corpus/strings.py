"""Strings: format, split, join, slicing, methods."""

from typing import List

from .registry import scripted

C = "strings"


@scripted(C)
def str_concat(a: str, b: str) -> str:
    return a + " " + b


@scripted(C)
def str_format(name: str, n: int, x: float) -> str:
    return "{} has {} items weighing {}".format(name, n, x)


@scripted(C)
def str_fstring(name: str, n: int) -> str:
    return f"name={name} n={n}"


@scripted(C)
def str_percent_format(n: int) -> str:
    return "value: %d" % n


@scripted(C)
def str_split(s: str) -> List[str]:
    return s.split(",")


@scripted(C)
def str_split_whitespace(s: str) -> List[str]:
    return s.split()


@scripted(C)
def str_split_max(s: str) -> List[str]:
    return s.split(":", 1)


@scripted(C)
def str_join(parts: List[str]) -> str:
    return "-".join(parts)


@scripted(C)
def str_slicing(s: str):
    return s[1:], s[:3], s[::-1], s[-1], s[2:8:2]


@scripted(C)
def str_methods_case(s: str):
    return s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase()


@scripted(C)
def str_methods_strip(s: str):
    return s.strip(), s.lstrip(), s.rstrip(" x")


@scripted(C)
def str_methods_find(s: str, sub: str):
    return s.find(sub), s.rfind(sub), s.count(sub), s.startswith(sub), s.endswith(sub)


@scripted(C)
def str_methods_predicates(s: str):
    return s.isdigit(), s.isalpha(), s.isalnum(), s.isspace(), s.isupper(), s.islower()


@scripted(C)
def str_replace(s: str) -> str:
    return s.replace("a", "b").replace("cc", "d", 1)


@scripted(C)
def str_comparisons(a: str, b: str):
    return a == b, a != b, a < b, a >= b, a in b


@scripted(C)
def str_len_ord_chr(s: str):
    return len(s), ord(s[0]), chr(65)


@scripted(C)
def str_conversions(n: int, x: float, b: bool) -> str:
    return str(n) + str(x) + str(b)


@scripted(C)
def str_build_loop(n: int) -> str:
    out = ""
    for i in range(n):
        out += str(i)
        if i < n - 1:
            out += ","
    return out


@scripted(C)
def str_center_ljust(s: str):
    return s.center(10), s.ljust(8, "*"), s.rjust(8), s.zfill(6)


@scripted(C)
def str_partition_splitlines(s: str):
    return s.partition("="), s.splitlines()


@scripted(C)
def str_in_dict_key(s: str) -> int:
    table = {"one": 1, "two": 2, "three": 3}
    if s in table:
        return table[s]
    return 0


@scripted(C)
def str_print(s: str, n: int) -> None:
    print(s, n, "done")


@scripted(C)
def str_escapes() -> str:
    return "tab\there\nnewline \"quoted\" back\\slash \u00e9"


@scripted(C)
def str_hex_int_parse(s: str) -> int:
    return int(s) + len(hex(255)) + len(bin(5))
