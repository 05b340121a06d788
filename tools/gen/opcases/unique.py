"""unique and friends: _unique2 (torch.unique without dim, what detection models' batched NMS
calls), _unique, unique_consecutive (flattened and along a dim), unique_dim and
unique_dim_consecutive, with inverse indices and counts, NaN, empty and error cases."""

from typing import Optional

import torch


def r(*shape, dtype=torch.float32, lo=-3, hi=4):
    return torch.randint(lo, hi, shape).to(dtype)


def cases(c):
    def unique2(x, s: bool, inv: bool, counts: bool):
        return torch._unique2(x, s, inv, counts)

    def unique_old(x, s: bool, inv: bool):
        return torch._unique(x, s, inv)

    def unique_fn(x):
        a = torch.unique(x)
        b, i = torch.unique(x, return_inverse=True)
        d, i2, n = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
        return a, b, i, d, i2, n

    def consecutive(x, inv: bool, counts: bool, dim: Optional[int]):
        return torch.ops.aten.unique_consecutive(x, inv, counts, dim)

    def unique_dim(x, dim: int, s: bool, inv: bool, counts: bool):
        return torch.ops.aten.unique_dim(x, dim, s, inv, counts)

    def dim_consecutive(x, dim: int, inv: bool, counts: bool):
        return torch.ops.aten.unique_dim_consecutive(x, dim, inv, counts)

    x = r(3, 5)
    c.add("unique2", unique2, x, True, False, False)
    c.add("unique2_all", unique2, x, True, True, True)
    c.add("unique2_unsorted", unique2, r(7), False, True, True)
    c.add("unique2_int64", unique2, r(4, 4, dtype=torch.int64), True, True, True)
    c.add("unique2_int32", unique2, r(9, dtype=torch.int32), True, True, False)
    c.add("unique2_uint8", unique2, r(9, dtype=torch.uint8, lo=0), True, False, True)
    c.add("unique2_bool", unique2, r(2, 5, lo=0, hi=2, dtype=torch.bool), True, True, True)
    c.add("unique2_bool_one_value", unique2, torch.ones(4, dtype=torch.bool), True, True, True)
    c.add("unique2_float64", unique2, r(6, dtype=torch.float64), True, True, True)
    c.add("unique2_bfloat16", unique2, r(6, dtype=torch.bfloat16), True, True, True)
    c.add("unique2_float16", unique2, r(6, dtype=torch.float16), True, True, True)
    c.add("unique2_nan", unique2, torch.tensor([1.0, float("nan"), 0.0, float("nan"), 1.0, -0.0, float("inf")]), True, True, True)
    c.add("unique2_scalar", unique2, torch.tensor(3.0), True, True, True)
    c.add("unique2_empty", unique2, torch.zeros(0, 3), True, True, True)
    c.add("unique2_noncontig", unique2, r(4, 3).t(), True, True, True)
    c.add("unique2_large", unique2, r(5000, lo=0, hi=300, dtype=torch.int64), True, True, True)
    c.add("unique_old", unique_old, x, True, True)
    c.add("unique_functional", unique_fn, r(2, 6), inline=True)
    c.add("consecutive", consecutive, torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), True, True, None)
    c.add("consecutive_2d_flat", consecutive, r(3, 4, lo=0, hi=2), True, True, None)
    c.add("consecutive_plain", consecutive, torch.tensor([4.0, 4.0, float("nan"), float("nan"), 2.0]), False, False, None)
    c.add("consecutive_dim0", consecutive, torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), True, True, 0)
    c.add("consecutive_dim1", consecutive, torch.tensor([[1, 1, 2, 1], [3, 3, 4, 3]]), True, True, 1)
    c.add("consecutive_empty", consecutive, torch.zeros(0), True, True, None)
    c.add("consecutive_bool", consecutive, torch.tensor([True, True, False, True]), True, True, None)
    c.add("consecutive_dim_error", consecutive, x, False, False, 2)
    c.add("unique_dim0", unique_dim, torch.tensor([[1, 2], [3, 4], [1, 2], [0, 5]]), 0, True, True, True)
    c.add("unique_dim1", unique_dim, torch.tensor([[1, 3, 1, 2], [2, 4, 2, 0]]), 1, True, True, True)
    c.add("unique_dim_3d", unique_dim, r(3, 2, 2, lo=0, hi=2), 1, True, True, True)
    c.add("unique_dim_float", unique_dim, r(4, 3, lo=0, hi=2), 0, True, False, True)
    c.add("unique_dim_negative", unique_dim, r(2, 5, lo=0, hi=2), -1, True, True, False)
    c.add("unique_dim_bool", unique_dim, r(4, 2, lo=0, hi=2, dtype=torch.bool), 0, True, True, True)
    c.add("unique_dim_empty", unique_dim, torch.zeros(0, 3), 0, True, True, True)
    c.add("unique_dim_empty_other", unique_dim, torch.zeros(3, 0), 0, True, True, True)
    c.add("unique_dim_error", unique_dim, x, 3, True, False, False)
    c.add("unique_dim_empty_error", unique_dim, torch.zeros(0, 3), 1, True, False, False)
    c.add("dim_consecutive", dim_consecutive, torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), 0, True, True)
