"""str methods and operators under TorchScript: bytes-based indexing, C character classes,
PyTorch's own split/strip/format rules, and their error messages."""

from typing import List, Tuple


def cases(c):
    def length_index(s: str, i: int) -> Tuple[int, str]:
        return len(s), s[i]

    c.add("len_getitem", length_index, "hello", 1)
    c.add("getitem_negative", length_index, "hello", -1)
    c.add("getitem_out_of_range", length_index, "abc", 3)

    def slicing(s: str, a: int, b: int, step: int) -> Tuple[str, str, str, str]:
        return s[a:b:step], s[a:], s[:b], s[::-1]

    c.add("slice_step", slicing, "abcdefgh", 1, 7, 2)
    c.add("slice_negative_step", slicing, "abcdefgh", -1, 0, -2)
    c.add("slice_out_of_bounds", slicing, "abc", -100, 100, 1)
    c.add("slice_zero_step", slicing, "abc", 0, 3, 0)

    def concat_compare(a: str, b: str) -> Tuple[str, bool, bool, bool, bool, bool]:
        return a + b, a in b, a < b, a == b, a != b, a >= b

    c.add("concat_compare", concat_compare, "ab", "xaby")
    c.add("compare_equal", concat_compare, "q", "q")

    def fmt(a: int, b: float, s: str, l: List[int]) -> str:
        return "{} and {} and {}! {} {}".format(a, b, s, l, None)

    c.add("format_fields", fmt, 7, 2.5, "x", [1, 2])
    c.add("format_float_digits", fmt, -1, 0.1, "", [])

    def fstring(x: float, n: int, t: bool) -> str:
        return f"x={x} n={n} t={t} pair={(n, x)} one={(n,)}"

    c.add("fstring", fstring, 1e16, 3, True)
    c.add("fstring_small", fstring, 1.5e-7, -3, False)

    def too_few(a: int) -> str:
        return "{} {}".format(a)

    c.add("format_too_few", too_few, 1)

    def split_ws(s: str) -> List[str]:
        return s.split()

    c.add("split_whitespace", split_ws, "  a b\tc\n d  ")

    def split_sep(s: str, sep: str, n: int) -> Tuple[List[str], List[str], List[str]]:
        return s.split(sep), s.split(sep, n), s.rsplit(sep, n)

    c.add("split_separator", split_sep, "a,b,,c,d", ",", 2)
    c.add("split_multichar", split_sep, "a::b::c", "::", 1)
    c.add("split_maxsplit_zero", split_sep, "a,b", ",", 0)
    c.add("split_empty_separator", split_sep, "a,b", "", 1)

    def strip(s: str, chars: str) -> Tuple[str, str, str, str, str, str]:
        return s.strip(), s.lstrip(), s.rstrip(), s.strip(chars), s.lstrip(chars), s.rstrip(chars)

    c.add("strip_family", strip, " \t xxhixx \n", " x")
    c.add("strip_keeps_cr", strip, "\r ab \r", "ab")

    def affixes(s: str, p: str) -> Tuple[bool, bool, bool, bool]:
        return s.startswith(p), s.endswith(p), s.startswith(p, 1), s.endswith(p, 0, 3)

    c.add("startswith_endswith", affixes, "abcab", "ab")

    def replace(s: str, old: str, new: str, n: int) -> Tuple[str, str]:
        return s.replace(old, new), s.replace(old, new, n)

    c.add("replace_count", replace, "aaaa", "a", "bb", 2)
    c.add("replace_delete", replace, "abcb", "b", "", 1)

    def case(s: str) -> Tuple[str, str, str, str, str]:
        return s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase()

    c.add("case_methods", case, "hello wORLD 3x it's")

    def preds(s: str) -> Tuple[bool, bool, bool, bool, bool, bool]:
        return s.isdigit(), s.isalpha(), s.isalnum(), s.isspace(), s.islower(), s.isupper()

    for tag, s in [("digits", "123"), ("empty", ""), ("alpha", "abc"), ("mixed", "aB1"),
                   ("space", " \t"), ("upper", "ABC1")]:
        c.add(f"predicates_{tag}", preds, s)

    def finds(s: str, t: str) -> Tuple[int, int, int, int, int]:
        return s.find(t), s.rfind(t), s.count(t), s.find(t, 2, 6), s.rfind(t, -4, -1)

    c.add("find_family", finds, "abcabcabc", "bc")
    c.add("find_missing", finds, "abc", "x")
    # An empty substring makes PyTorch's count() loop forever: find/rfind only.
    def finds_empty(s: str) -> Tuple[int, int]:
        return s.find(""), s.rfind("")

    c.add("find_empty", finds_empty, "abc")

    def index(s: str, t: str) -> int:
        return s.index(t)

    c.add("index_found", index, "abcabc", "ca")
    c.add("index_missing", index, "abc", "x")

    def padding(s: str, n: int) -> Tuple[str, str, str, str, str]:
        return s.zfill(n), s.center(n), s.ljust(n), s.rjust(n), s.center(n, "*")

    c.add("padding_odd", padding, "ab", 7)
    c.add("padding_even", padding, "ab", 6)
    c.add("padding_narrow", padding, "abc", 2)

    def bad_fill(s: str) -> str:
        return s.ljust(5, "xy")

    c.add("padding_bad_fill", bad_fill, "a")

    def lines(s: str) -> Tuple[List[str], List[str]]:
        return s.splitlines(), s.splitlines(True)

    c.add("splitlines", lines, "a\nb\r\nc\rd\n")

    def partition(s: str, t: str) -> Tuple[str, str, str, str, str, str]:
        a, b, c = s.partition(t)
        d, e, f = s.rpartition(t)
        return a, b, c, d, e, f

    c.add("partition_found", partition, "a=b=c", "=")
    c.add("partition_missing", partition, "abc", "=")

    def join(sep: str, items: List[str]) -> Tuple[str, int]:
        return sep.join(items), len(items)

    c.add("join", join, ", ", ["a", "b", "c"])

    def str_list(s: str) -> List[str]:
        return list(s)

    c.add("list_of_str", str_list, "abc")

    def ordchr(s: str, i: int) -> Tuple[int, str]:
        return ord(s), chr(i)

    c.add("ord_chr", ordchr, "A", 122)
    c.add("ord_too_long", ordchr, "ab", 65)
    c.add("chr_out_of_range", ordchr, "a", -1)

    def percent(a: int, b: float, s: str) -> str:
        return "%d|%s|%s" % (a, b, s)

    c.add("percent_format", percent, 3, 2.5, "z")

    def expand(s: str) -> str:
        return s.expandtabs(4)

    c.add("expandtabs", expand, "a\tbc\td")

    def percent_all(a: int, b: float) -> str:
        return "%d|%s|%f|%e|%E|%c|%i|%F|%%" % (a, b, b, b, b, a, a, b)

    c.add("percent_format_specifiers", percent_all, 65, 1e10 + 0.123)

    def percent_float_as_int(a: float) -> str:
        return "%d %s" % (a, "c")

    c.add("percent_float_as_int", percent_float_as_int, -5.7)

    def percent_too_many(a: int) -> str:
        return "%s %s" % (a, a, a)

    c.add("percent_too_many", percent_too_many, 1)

    def percent_incomplete(a: int) -> str:
        return "abc %" % (a,)

    c.add("percent_incomplete", percent_incomplete, 1)

    def percent_bad_specifier(a: int) -> str:
        return "%5d" % (a,)

    c.add("percent_bad_specifier", percent_bad_specifier, 1)

    def format_manual_fields(a: int) -> str:
        # PyTorch's format fills only `{}`: other fields stay as written.
        return "{0}-{}-{x} {".format(a, 2)

    c.add("format_manual_fields", format_manual_fields, 1)

    def more_preds(s: str) -> Tuple[bool, bool, bool]:
        return s.isidentifier(), s.istitle(), s.isprintable()

    c.add("identifier_title_printable", more_preds, "Ab_1")
    c.add("title_words", more_preds, "Hello World")
    c.add("not_printable", more_preds, "a\tb")

    def rindex(s: str, t: str) -> int:
        return s.rindex(t)

    c.add("rindex_found", rindex, "abcabc", "b")
    c.add("rindex_missing", rindex, "abc", "z")

    def rsplit_default(s: str) -> List[str]:
        return s.rsplit()

    c.add("rsplit_default", rsplit_default, "a b  c")

    def affix_ranges(s: str, p: str, a: int, b: int) -> Tuple[bool, bool, int]:
        return s.startswith(p, a, b), s.endswith(p, a, b), s.count(p, a, b)

    c.add("affix_ranges", affix_ranges, "xxabcab", "ab", 2, -1)
    c.add("affix_negative_ranges", affix_ranges, "abab", "ab", -2, -1)

    def str_of_containers(n: int) -> Tuple[str, str, str]:
        d = {"k": [1.5, 2.0]}
        return str(d), str([str(n), "b"]), str((1.0,))

    c.add("str_of_containers", str_of_containers, 4)
