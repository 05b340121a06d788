"""Graphs after PyTorch's constant propagation, whose constants PyTorch prints with a type:
`annotate(List[int], [])` (an empty list, e.g. a pooling call's default stride),
`annotate(Dict[str, int],{})`, `annotate(List[Optional[int]], [1, None])`, dict literals
and tuples holding them. Each function is scripted, its graph constant-propagated in place,
then recorded and run as any other case."""

from typing import Dict, List, Optional, Tuple

import torch


def propagated(fn):
    s = torch.jit.script(fn)
    torch._C._jit_pass_constant_propagation(s.graph)
    return s


def cases(c):
    def pool(x):
        return torch.max_pool2d(x, [2])

    def lists(x):
        a: List[int] = []
        b: List[Optional[int]] = [1, None]
        e: List[int] = []
        t: Tuple[List[int], int] = (e, 1)
        a.append(x.dim())
        return a, b, t

    def dicts(x):
        d: Dict[str, int] = {}
        e: Dict[int, List[int]] = {1: [2], 3: [4, 5]}
        f: Dict[str, float] = {"a": 1.5}
        g: Dict[int, List[int]] = {1: [2], 7: [8, 9]}
        return d, e[1], e[3], len(e), f["a"] * x.dim(), g

    c.add("empty_list_stride", propagated(pool), torch.randn(1, 2, 4, 4))
    c.add("annotated_lists", propagated(lists), torch.randn(2, 3))
    c.add("annotated_dicts", propagated(dicts), torch.randn(2, 3))
