"""Control flow: if/elif/else, while, for over every iterable kind, break, continue, returns."""

from typing import Dict, List, Tuple

import torch
from torch import Tensor

from .registry import scripted

C = "control"


@scripted(C)
def if_else(a: int) -> int:
    if a > 0:
        b = a * 2
    else:
        b = -a
    return b


@scripted(C)
def if_without_else(a: int) -> int:
    b = 1
    if a > 3:
        b = a
    return b


@scripted(C)
def if_elif_else(x: float) -> str:
    if x < 0.0:
        return "negative"
    elif x == 0.0:
        return "zero"
    elif x < 1.0:
        return "small"
    else:
        return "large"


@scripted(C)
def nested_if(a: int, b: int) -> int:
    if a > 0:
        if b > 0:
            r = 1
        else:
            r = 2
    else:
        if b > 0:
            r = 3
        else:
            r = 4
    return r


@scripted(C)
def if_multiple_outputs(a: int, x: float):
    if a % 2 == 0:
        p = a + 1
        q = x * 2.0
        s = "even"
    else:
        p = a - 1
        q = x / 2.0
        s = "odd"
    return p, q, s


@scripted(C)
def if_on_tensor(x: Tensor) -> Tensor:
    if bool(x.sum() > 0):
        return x * 2
    return -x


@scripted(C)
def if_constant_condition(x: int) -> int:
    if True:
        x = x + 1
    if False:
        x = x * 100
    return x


@scripted(C)
def early_return(a: int) -> int:
    if a < 0:
        return 0
    if a > 100:
        return 100
    return a


@scripted(C)
def early_return_in_loop(xs: List[int], target: int) -> int:
    for i in range(len(xs)):
        if xs[i] == target:
            return i
    return -1


@scripted(C)
def early_return_nested_loop(m: List[List[int]], v: int) -> Tuple[int, int]:
    for i in range(len(m)):
        for j in range(len(m[i])):
            if m[i][j] == v:
                return i, j
    return -1, -1


@scripted(C)
def while_loop(n: int) -> int:
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


@scripted(C)
def while_true_break(n: int) -> int:
    i = 0
    while True:
        i += 3
        if i > n:
            break
    return i


@scripted(C)
def while_continue(n: int) -> int:
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


@scripted(C)
def while_tensor_condition(x: Tensor) -> Tensor:
    while bool(x.sum() < 100.0):
        x = x * 2 + 1
    return x


@scripted(C)
def for_range(n: int) -> int:
    s = 0
    for i in range(n):
        s += i * i
    return s


@scripted(C)
def for_range_start_stop_step(a: int, b: int) -> int:
    s = 0
    for i in range(a, b, 2):
        s += i
    for j in range(b, a, -1):
        s -= j
    return s


@scripted(C)
def for_list(xs: List[float]) -> float:
    s = 0.0
    for x in xs:
        s += x
    return s


@scripted(C)
def for_tuple(t: Tuple[int, float, str]) -> str:
    out = ""
    for x in t:
        out += str(x)
    return out


@scripted(C)
def for_tuple_literal(x: int) -> int:
    for k in (1, 2, 3):
        x = x * k
    return x


@scripted(C)
def for_dict_keys(d: Dict[str, int]) -> int:
    s = 0
    for k in d:
        s += d[k]
    return s


@scripted(C)
def for_dict_items(d: Dict[str, float]) -> List[str]:
    out: List[str] = []
    for k, v in d.items():
        if v > 0.5:
            out.append(k)
    return out


@scripted(C)
def for_dict_values(d: Dict[int, int]) -> int:
    m = 0
    for v in d.values():
        m = max(m, v)
    return m


@scripted(C)
def for_string(s: str) -> int:
    n = 0
    for ch in s:
        if ch == "a":
            n += 1
    return n


@scripted(C)
def for_tensor(x: Tensor) -> Tensor:
    acc = torch.zeros_like(x[0])
    for row in x:
        acc = acc + row
    return acc


@scripted(C)
def for_enumerate(xs: List[int]) -> int:
    s = 0
    for i, x in enumerate(xs):
        s += i * x
    return s


@scripted(C)
def for_enumerate_start(xs: List[str]) -> List[str]:
    out: List[str] = []
    for i, x in enumerate(xs, 1):
        out.append(str(i) + ":" + x)
    return out


@scripted(C)
def for_zip(a: List[int], b: List[float]) -> float:
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


@scripted(C)
def for_zip_three(a: List[int], b: List[int], c: List[int]) -> List[int]:
    out: List[int] = []
    for x, y, z in zip(a, b, c):
        out.append(x + y + z)
    return out


@scripted(C)
def for_zip_enumerate(a: List[int], b: List[int]) -> int:
    s = 0
    for i, (x, y) in enumerate(zip(a, b)):
        s += i * (x - y)
    return s


@scripted(C)
def for_reversed_range(n: int) -> List[int]:
    out: List[int] = []
    for i in range(n - 1, -1, -1):
        out.append(i)
    return out


@scripted(C)
def for_break(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            break
        s += x
    return s


@scripted(C)
def for_continue(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x % 2 == 0:
            continue
        s += x
    return s


@scripted(C)
def for_break_and_continue(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x == 0:
            continue
        if x > 100:
            break
        s += x
    return s


@scripted(C)
def nested_loops(n: int, m: int) -> int:
    s = 0
    for i in range(n):
        for j in range(m):
            s += i * j
    return s


@scripted(C)
def nested_loops_break(n: int) -> int:
    count = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            count += 1
    return count


@scripted(C)
def nested_while_for(n: int) -> int:
    total = 0
    k = 0
    while k < n:
        for i in range(k):
            if i % 2 == 1:
                continue
            total += i
        k += 1
    return total


@scripted(C)
def loop_carried_tensor(x: Tensor, n: int) -> Tensor:
    h = torch.zeros_like(x)
    for _ in range(n):
        h = torch.tanh(h + x)
    return h


@scripted(C)
def loop_carried_many(n: int):
    a = 0
    b = 1.0
    c = "x"
    d = False
    for i in range(n):
        a = a + i
        b = b * 1.5
        c = c + "y"
        d = not d
    return a, b, c, d


@scripted(C)
def loop_unused_index(n: int) -> int:
    x = 1
    for _ in range(n):
        x *= 2
    return x


@scripted(C)
def for_list_of_tensors(xs: List[Tensor]) -> Tensor:
    out = xs[0]
    for t in xs[1:]:
        out = out + t
    return out


@scripted(C)
def for_in_list_literal(x: int) -> int:
    for k in [2, 3, 5, 7]:
        if x % k == 0:
            return k
    return x


@scripted(C)
def list_comprehension(n: int) -> List[int]:
    return [i * i for i in range(n)]


@scripted(C)
def list_comprehension_over_list(xs: List[float]) -> List[float]:
    return [x * 2.0 for x in xs]


@scripted(C)
def dict_comprehension(keys: List[str]) -> Dict[str, int]:
    return {k: len(k) for k in keys}


@scripted(C)
def if_returns_in_both_branches(a: int) -> int:
    if a > 0:
        return a
    else:
        return -a


@scripted(C)
def return_in_while(n: int) -> int:
    i = 0
    while i < n:
        if i * i > n:
            return i
        i += 1
    return n


@scripted(C)
def pass_statement(a: int) -> int:
    if a > 0:
        pass
    else:
        a = 0
    for _ in range(a):
        pass
    return a


@scripted(C)
def with_no_grad(x: Tensor) -> Tensor:
    with torch.no_grad():
        y = x * 2
    return y + 1


@scripted(C)
def bubble_sort(xs: List[int]) -> List[int]:
    n = len(xs)
    for i in range(n):
        for j in range(n - i - 1):
            if xs[j] > xs[j + 1]:
                t = xs[j]
                xs[j] = xs[j + 1]
                xs[j + 1] = t
    return xs


@scripted(C)
def binary_search(xs: List[int], v: int) -> int:
    lo = 0
    hi = len(xs) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] == v:
            return mid
        elif xs[mid] < v:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@scripted(C)
def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@scripted(C)
def is_prime(n: int) -> bool:
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True
