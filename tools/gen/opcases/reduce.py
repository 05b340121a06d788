"""Reductions, scans, sorting and softmax: every overload over dim lists, keepdim, dtype=,
out=, non-contiguous and zero-size inputs, each CPU dtype PyTorch supports, NaN and ties,
and PyTorch's errors."""

from typing import List, Optional

import torch

F = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
I = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
ALL = F + I + [torch.bool]
# The integer codes TorchScript passes for ScalarType arguments.
CODE = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15,
}
NAME = {
    torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
    torch.int64: "i64", torch.float16: "f16", torch.float32: "f32", torch.float64: "f64",
    torch.bool: "b", torch.bfloat16: "bf16",
}
NAN = float("nan")
INF = float("inf")


def rand(shape, dtype):
    """Small deterministic samples: floats with two decimals, ints in a narrow range (ties)."""
    if dtype.is_floating_point:
        return (torch.randn(shape) * 3).round(decimals=2).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    lo = 0 if dtype == torch.uint8 else -5
    return torch.randint(lo, 6, shape).to(dtype)


def ties(shape, dtype):
    """Values from a handful of integers, so many are equal."""
    return torch.randint(0, 3, shape).to(dtype)


def t(values, dtype=torch.float32):
    return torch.tensor(values, dtype=dtype)


def cases(c):
    sum_mean(c)
    minmax(c)
    logical(c)
    stats(c)
    norms(c)
    logsumexp(c)
    scans(c)
    sorting(c)
    selection(c)
    softmax(c)
    more_outs(c)


def sum_mean(c):
    def sum_all(x):
        return torch.sum(x)

    def sum_dims(x, dims: List[int], keepdim: bool):
        return torch.sum(x, dims, keepdim)

    def sum_none(x, keepdim: bool):
        return torch.sum(x, None, keepdim)

    def sum_dtype(x, dims: List[int], dtype: int):
        return torch.sum(x, dims, dtype=dtype)

    def sum_all_dtype(x, dtype: int):
        return torch.sum(x, dtype=dtype)

    def sum_out(x, dims: List[int], out):
        return torch.sum(x, dims, out=out)

    def sum_out_dtype(x, dims: List[int], dtype: int, out):
        return torch.sum(x, dims, dtype=dtype, out=out)

    def sum_t(x, dims: List[int], keepdim: bool):
        return torch.sum(x.transpose(0, 1), dims, keepdim)

    def sum_step(x, dims: List[int]):
        return torch.sum(x[:, ::2], dims)

    def nansum_dims(x, dims: List[int], keepdim: bool):
        return torch.nansum(x, dims, keepdim)

    def nansum_all(x):
        return torch.nansum(x)

    def mean_all(x):
        return torch.mean(x)

    def mean_dims(x, dims: List[int], keepdim: bool):
        return torch.mean(x, dims, keepdim)

    def mean_dtype(x, dims: List[int], dtype: int):
        return torch.mean(x, dims, dtype=dtype)

    def mean_all_dtype(x, dtype: int):
        return torch.mean(x, dtype=dtype)

    def mean_out(x, dims: List[int], out):
        return torch.mean(x, dims, out=out)

    def mean_t(x, dims: List[int]):
        return torch.mean(x.t(), dims)

    def prod_all(x):
        return torch.prod(x)

    def prod_dim(x, dim: int, keepdim: bool):
        return torch.prod(x, dim, keepdim)

    def prod_dtype(x, dim: int, dtype: int):
        return torch.prod(x, dim, dtype=dtype)

    def prod_out(x, dim: int, out):
        return torch.prod(x, dim, out=out)

    def prod_t(x, dim: int):
        return torch.prod(x.t(), dim)

    for d in ALL:
        n = NAME[d]
        x = rand((2, 3, 4), d)
        c.add(f"sum_all_{n}", sum_all, x)
        c.add(f"sum_d1_{n}", sum_dims, x, [1], False)
        c.add(f"sum_d0m1_keep_{n}", sum_dims, x, [0, -1], True)
        c.add(f"prod_all_{n}", prod_all, rand((2, 3), d))
        c.add(f"prod_d1_{n}", prod_dim, rand((2, 3), d), 1, False)
        c.add(f"prod_dm2_keep_{n}", prod_dim, rand((2, 3), d), -2, True)
        c.add(f"nansum_d1_{n}", nansum_dims, rand((3, 4), d), [1], False)
        c.add(f"mean_all_{n}", mean_all, rand((3, 4), d))
    for d in F:
        n = NAME[d]
        c.add(f"mean_d1_{n}", mean_dims, rand((3, 4), d), [1], False)
        c.add(f"mean_d01_keep_{n}", mean_dims, rand((2, 3, 2), d), [0, 1], True)
        c.add(f"nansum_nan_{n}", nansum_all, t([[1.0, NAN, 2.5], [NAN, NAN, -1.0]], d))
        c.add(f"nansum_nan_d0_keep_{n}", nansum_dims, t([[1.0, NAN], [NAN, NAN]], d), [0], True)
    x = rand((3, 4), torch.float32)
    c.add("sum_empty_list_keep", sum_dims, x, [], True)
    c.add("sum_none", sum_none, x, False)
    c.add("sum_none_keep", sum_none, x, True)
    c.add("sum_t_d0", sum_t, x, [0], False)
    c.add("sum_t_dm1_keep", sum_t, x, [-1], True)
    c.add("sum_step_d1", sum_step, rand((3, 6), torch.int32), [1])
    c.add("sum_step_d0", sum_step, rand((3, 6), torch.float64), [0])
    c.add("sum_nan", sum_dims, t([[1.0, NAN], [2.0, 3.0]]), [1], False)
    c.add("sum_inf", sum_dims, t([[INF, -INF], [INF, 3.0]]), [1], False)
    c.add("sum_dtype_int_to_f64", sum_dtype, rand((3, 4), torch.int32), [1], CODE[torch.float64])
    c.add("sum_dtype_f32_to_i64", sum_dtype, x * 2.7, [0], CODE[torch.int64])
    c.add("sum_dtype_f64_to_f32", sum_dtype, rand((3, 4), torch.float64), [1], CODE[torch.float32])
    c.add("sum_dtype_to_bool", sum_all_dtype, rand((3, 4), torch.int64), CODE[torch.bool])
    c.add("sum_dtype_i64_to_i8", sum_all_dtype, t([100, 100, 100], torch.int64), CODE[torch.int8])
    c.add("sum_dtype_f32_to_f16", sum_all_dtype, x, CODE[torch.float16])
    c.add("sum_int8_overflow", sum_all, t([120, 120, 120], torch.int8))
    c.add("sum_out_empty", sum_out, x, [1], torch.empty(0))
    c.add("sum_out_f64", sum_out, x, [1], torch.zeros(3, dtype=torch.float64))
    c.add("sum_out_i64_from_float", sum_out, x * 2.5, [0], torch.empty(0, dtype=torch.int64))
    c.add("sum_out_int_to_f32", sum_out, rand((3, 4), torch.int32), [0], torch.zeros(4))
    c.add("sum_out_resize", sum_out, x, [1], torch.zeros(2, 2))
    c.add("sum_out_dtype_mismatch", sum_out_dtype, x, [1], CODE[torch.float32],
          torch.empty(0, dtype=torch.float64))
    c.add("sum_zero_size_all", sum_all, torch.zeros(0, 3))
    c.add("sum_zero_size_d0", sum_dims, torch.zeros(0, 3), [0], False)
    c.add("sum_zero_size_d1_keep", sum_dims, torch.zeros(0, 3), [1], True)
    c.add("sum_zero_size_int", sum_dims, torch.zeros(2, 0, dtype=torch.int32), [1], False)
    c.add("sum_0dim_d0", sum_dims, t(3.5), [0], False)
    c.add("sum_0dim_dm1_keep", sum_dims, t(3.5), [-1], True)
    c.add("sum_0dim_d1_error", sum_dims, t(3.5), [1], False)
    c.add("sum_0dim_dup_error", sum_dims, t(3.5), [0, 0], False)
    c.add("sum_dup_dims_error", sum_dims, x, [0, -2], False)
    c.add("sum_dim_range_error", sum_dims, x, [2], False)
    # Pairwise summation: 32768 float32 values (parallel path) agree within rtol 1e-5.
    big = (torch.rand(1 << 15) * 10).round(decimals=1) + 0.1
    c.add("sum_large_f32", sum_all, big)
    c.add("sum_large_cols_f32", sum_dims, big.reshape(-1, 8), [0], False)

    c.add("mean_empty_list", mean_dims, x, [], False)
    c.add("mean_t_d0", mean_t, x, [0])
    c.add("mean_dtype_int_to_f64", mean_dtype, rand((3, 4), torch.int32), [1], CODE[torch.float64])
    c.add("mean_dtype_f32_to_f16", mean_all_dtype, x, CODE[torch.float16])
    c.add("mean_dtype_int_error", mean_dtype, x, [1], CODE[torch.int64])
    c.add("mean_out", mean_out, x, [0], torch.empty(0))
    c.add("mean_out_f64", mean_out, x, [0], torch.empty(0, dtype=torch.float64))
    c.add("mean_out_int_error", mean_out, x, [0], torch.empty(0, dtype=torch.int64))
    c.add("mean_out_int_input_error", mean_out, rand((3, 4), torch.int64), [0], torch.empty(0))
    c.add("mean_zero_size_all", mean_all, torch.zeros(0, 3))
    c.add("mean_zero_size_d0", mean_dims, torch.zeros(0, 3), [0], False)
    c.add("mean_0dim", mean_dims, t(2.5), [0], True)
    c.add("nansum_int", nansum_all, rand((3, 4), torch.int32))
    c.add("nansum_zero_size", nansum_all, torch.zeros(0))

    c.add("prod_t_d0", prod_t, rand((3, 2), torch.float32), 0)
    c.add("prod_dtype_int_to_f64", prod_dtype, rand((3, 2), torch.int16), 1, CODE[torch.float64])
    c.add("prod_dtype_to_bool", prod_dtype, rand((3, 2), torch.int16), 0, CODE[torch.bool])
    c.add("prod_out", prod_out, rand((3, 2), torch.float32), 0, torch.empty(0, dtype=torch.float64))
    c.add("prod_zero_size", prod_all, torch.zeros(0, 2))
    c.add("prod_zero_size_d0", prod_dim, torch.zeros(0, 2, dtype=torch.int32), 0, False)
    c.add("prod_0dim", prod_dim, t(-3.0), -1, True)
    c.add("prod_int8_overflow", prod_all, t([100, 100, 3], torch.int8))
    c.add("prod_nan_inf", prod_dim, t([[NAN, 1.0], [INF, 0.0]]), 1, False)


def minmax(c):
    def max_all(x):
        return torch.max(x)

    def min_all(x):
        return torch.min(x)

    def max_dim(x, dim: int, keepdim: bool):
        return torch.max(x, dim, keepdim)

    def min_dim(x, dim: int, keepdim: bool):
        return torch.min(x, dim, keepdim)

    def max_t(x, dim: int):
        return torch.max(x.t(), dim)

    def min_step(x, dim: int):
        return torch.min(x[:, ::2], dim)

    def max_other(x, y):
        return torch.max(x, y)

    def min_other(x, y):
        return torch.min(x, y)

    def max_other_out(x, y, out):
        return torch.max(x, y, out=out)

    def max_dim_out(x, dim: int, v, i):
        return torch.max(x, dim, False, max=v, max_values=i)

    def min_dim_out(x, dim: int, v, i):
        return torch.min(x, dim, True, min=v, min_indices=i)

    def amax(x, dims: List[int], keepdim: bool):
        return torch.amax(x, dims, keepdim)

    def amin(x, dims: List[int], keepdim: bool):
        return torch.amin(x, dims, keepdim)

    def amax_out(x, dims: List[int], out):
        return torch.amax(x, dims, out=out)

    def amin_t(x, dims: List[int]):
        return torch.amin(x.t(), dims)

    def argmax(x, dim: Optional[int], keepdim: bool):
        return torch.argmax(x, dim, keepdim)

    def argmin(x, dim: Optional[int], keepdim: bool):
        return torch.argmin(x, dim, keepdim)

    def argmax_out(x, dim: Optional[int], out):
        return torch.argmax(x, dim, out=out)

    def argmin_t(x, dim: int):
        return torch.argmin(x.t(), dim)

    def aminmax(x, dim: Optional[int], keepdim: bool):
        return torch.aminmax(x, dim=dim, keepdim=keepdim)

    def aminmax_out(x, dim: int, lo, hi):
        return torch.aminmax(x, dim=dim, keepdim=False, min=lo, max=hi)

    for d in ALL:
        n = NAME[d]
        x = rand((3, 4), d)
        c.add(f"max_all_{n}", max_all, x)
        c.add(f"min_all_{n}", min_all, x)
        c.add(f"max_d1_{n}", max_dim, ties((3, 4), d), 1, False)
        c.add(f"min_d0_keep_{n}", min_dim, ties((3, 4), d), 0, True)
        c.add(f"amax_d1_{n}", amax, x, [1], False)
        c.add(f"amin_d0m1_keep_{n}", amin, rand((2, 3, 2), d), [0, -1], True)
        c.add(f"aminmax_{n}", aminmax, x, None, False)
        c.add(f"aminmax_d0_{n}", aminmax, x, 0, True)
        c.add(f"max_other_{n}", max_other, x, rand((4,), d))
        if d != torch.bool:
            c.add(f"argmax_{n}", argmax, ties((3, 4), d), None, False)
            c.add(f"argmin_d1_{n}", argmin, ties((3, 4), d), 1, False)
            c.add(f"argmax_dm2_keep_{n}", argmax, ties((3, 4), d), -2, True)
    nanx = t([[1.0, NAN, 3.0, NAN], [2.0, 5.0, 5.0, -1.0]])
    c.add("max_nan_d1", max_dim, nanx, 1, False)
    c.add("min_nan_d1", min_dim, nanx, 1, False)
    c.add("max_nan_all", max_all, nanx)
    c.add("amin_nan", amin, nanx, [1], False)
    c.add("argmax_nan", argmax, nanx, 1, False)
    c.add("argmin_nan_flat", argmin, nanx, None, False)
    c.add("aminmax_nan", aminmax, nanx, 1, False)
    c.add("max_other_nan", max_other, t([1.0, NAN, 3.0]), t([2.0, 1.0, NAN]))
    c.add("min_other_nan", min_other, t([1.0, NAN, 3.0]), t([2.0, 1.0, NAN]))
    c.add("max_other_promote", max_other, t([1, 5], torch.int32), t([2.5, 1.0]))
    c.add("min_other_broadcast", min_other, rand((3, 1), torch.int64), rand((4,), torch.int16))
    c.add("max_other_out", max_other_out, t([1.0, 5.0]), t([2.5, 1.0]), torch.empty(0))
    c.add("max_other_out_int_error", max_other_out, t([1.0, 5.0]), t([2.5, 1.0]),
          torch.zeros(2, dtype=torch.int64))
    c.add("max_t_d0", max_t, rand((3, 4), torch.float32), 0)
    c.add("min_step_d1", min_step, rand((3, 6), torch.int32), 1)
    c.add("max_dim_out", max_dim_out, ties((3, 4), torch.float32), 1, torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("min_dim_out_keep", min_dim_out, ties((3, 4), torch.int32), 0,
          torch.empty(0, dtype=torch.int32), torch.empty(0, dtype=torch.int64))
    c.add("max_dim_out_values_dtype_error", max_dim_out, rand((3, 4), torch.float32), 1,
          torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
    c.add("max_dim_out_indices_dtype_error", max_dim_out, rand((3, 4), torch.float32), 1,
          torch.empty(0), torch.empty(0, dtype=torch.int32))
    c.add("max_empty_error", max_all, torch.zeros(0, 3))
    c.add("min_empty_error", min_all, torch.zeros(0, 3))
    c.add("max_empty_dim0_error", max_dim, torch.zeros(0, 3), 0, False)
    c.add("max_empty_dimm2_error", max_dim, torch.zeros(0, 3), -2, False)
    c.add("max_empty_dim1", max_dim, torch.zeros(0, 3), 1, False)
    c.add("max_0dim", max_dim, t(2.0), 0, True)
    c.add("max_0dim_range_error", max_dim, t(2.0), 1, False)
    c.add("max_dim_range_error", max_dim, rand((3, 4), torch.float32), 2, False)
    c.add("amax_empty_list", amax, rand((3, 4), torch.float32), [], True)
    c.add("amax_empty_error", amax, torch.zeros(0, 3), [], False)
    c.add("amax_empty_dim_error", amax, torch.zeros(0, 3), [-2], False)
    c.add("amax_empty_dim1", amax, torch.zeros(0, 3), [1], False)
    c.add("amax_0dim", amax, t(2.0), [0], False)
    c.add("amax_0dim_dup_error", amax, t(2.0), [0, 0], False)
    c.add("amax_out", amax_out, rand((3, 4), torch.float32), [0], torch.empty(0))
    c.add("amax_out_dtype_error", amax_out, rand((3, 4), torch.float32), [0],
          torch.empty(0, dtype=torch.float64))
    c.add("amin_t", amin_t, rand((3, 4), torch.float64), [0])
    c.add("argmax_out", argmax_out, rand((3, 4), torch.float32), 1,
          torch.empty(0, dtype=torch.int64))
    c.add("argmax_out_dtype_error", argmax_out, rand((3, 4), torch.float32), 1, torch.empty(0))
    c.add("argmin_t", argmin_t, ties((3, 4), torch.float32), 1)
    c.add("argmax_keepdim_flat", argmax, rand((2, 3), torch.float32), None, True)
    c.add("argmax_bool_error", argmax, rand((3,), torch.bool), None, False)
    c.add("argmax_empty_error", argmax, torch.zeros(0, 3), None, False)
    c.add("argmax_empty_dim_error", argmax, torch.zeros(0, 3), -2, False)
    c.add("argmin_empty_dim1", argmin, torch.zeros(0, 3), 1, False)
    c.add("argmax_0dim", argmax, t(5.0), 0, True)
    c.add("aminmax_empty_error", aminmax, torch.zeros(0, 3), None, False)
    c.add("aminmax_empty_dim_error", aminmax, torch.zeros(0, 3), -2, False)
    c.add("aminmax_0dim", aminmax, t(2.0), 0, False)
    c.add("aminmax_out", aminmax_out, rand((3, 4), torch.float32), 1, torch.empty(0),
          torch.empty(0))


def logical(c):
    def any_all(x):
        return torch.any(x)

    def all_all(x):
        return torch.all(x)

    def any_dim(x, dim: int, keepdim: bool):
        return torch.any(x, dim, keepdim)

    def all_dim(x, dim: int, keepdim: bool):
        return torch.all(x, dim, keepdim)

    def any_dims(x, dims: Optional[List[int]], keepdim: bool):
        return torch.any(x, dims, keepdim)

    def all_dims(x, dims: Optional[List[int]], keepdim: bool):
        return torch.all(x, dims, keepdim)

    def any_out(x, dim: int, out):
        return torch.any(x, dim, out=out)

    def all_out_all(x, out):
        return torch.all(x, out=out)

    def any_t(x, dim: int):
        return torch.any(x.t(), dim)

    for d in ALL:
        n = NAME[d]
        x = ties((3, 4), d) if d != torch.bool else rand((3, 4), d)
        c.add(f"any_{n}", any_all, x)
        c.add(f"all_{n}", all_all, x)
        c.add(f"any_d1_{n}", any_dim, x, 1, False)
        c.add(f"all_d0_keep_{n}", all_dim, x, 0, True)
    x = ties((2, 3, 2), torch.float32)
    c.add("any_dims", any_dims, x, [0, 2], False)
    c.add("all_dims_keep", all_dims, x, [-1, 0], True)
    c.add("any_dims_empty_list", any_dims, x, [], False)
    c.add("all_dims_none_keep", all_dims, x, None, True)
    c.add("any_nan", any_dim, t([[0.0, NAN], [0.0, 0.0]]), 1, False)
    c.add("all_nan", all_all, t([NAN, 1.0]))
    c.add("any_zero_size", any_all, torch.zeros(0))
    c.add("all_zero_size", all_all, torch.zeros(0))
    c.add("all_zero_size_d0", all_dim, torch.zeros(0, 2), 0, False)
    c.add("any_0dim", any_dim, t(0.0), 0, False)
    c.add("any_out_bool", any_out, x, 1, torch.empty(0, dtype=torch.bool))
    c.add("any_out_u8", any_out, x, 1, torch.empty(0, dtype=torch.uint8))
    c.add("any_out_float_error", any_out, x, 1, torch.empty(0))
    c.add("all_out_all", all_out_all, x, torch.empty(0, dtype=torch.bool))
    c.add("any_t", any_t, ties((3, 4), torch.int32), 0)
    c.add("any_dim_range_error", any_dim, x, 3, False)


def stats(c):
    def var_all(x, unbiased: bool):
        return torch.var(x, unbiased)

    def std_all(x, unbiased: bool):
        return torch.std(x, unbiased)

    def var_dim(x, dims: Optional[List[int]], unbiased: bool, keepdim: bool):
        return torch.var(x, dims, unbiased, keepdim)

    def std_dim(x, dims: Optional[List[int]], unbiased: bool, keepdim: bool):
        return torch.std(x, dims, unbiased, keepdim)

    def var_corr(x, dims: Optional[List[int]], correction: float, keepdim: bool):
        return torch.var(x, dims, correction=correction, keepdim=keepdim)

    def std_corr_int(x, dims: Optional[List[int]], correction: int):
        return torch.std(x, dims, correction=correction)

    def var_corr_none(x):
        return torch.var(x, None, correction=None)

    def var_out(x, dims: List[int], out):
        return torch.var(x, dims, out=out)

    def std_corr_out(x, dims: List[int], out):
        return torch.std(x, dims, correction=0, out=out)

    def var_mean_all(x, unbiased: bool):
        return torch.var_mean(x, unbiased)

    def var_mean_dim(x, dims: List[int], unbiased: bool, keepdim: bool):
        return torch.var_mean(x, dims, unbiased, keepdim)

    def std_mean_corr(x, dims: Optional[List[int]], correction: float, keepdim: bool):
        return torch.std_mean(x, dims, correction=correction, keepdim=keepdim)

    def var_mean_out(x, dims: List[int], a, b):
        return torch.var_mean(x, dims, correction=1, keepdim=False, out0=a, out1=b)

    def var_t(x, dims: List[int]):
        return torch.var(x.t(), dims)

    for d in F:
        n = NAME[d]
        x = rand((3, 4), d)
        c.add(f"var_all_{n}", var_all, x, True)
        c.add(f"std_all_biased_{n}", std_all, x, False)
        c.add(f"var_d1_{n}", var_dim, x, [1], True, False)
        c.add(f"std_d0_keep_{n}", std_dim, x, [0], False, True)
        c.add(f"var_mean_d1_{n}", var_mean_dim, x, [1], True, False)
        c.add(f"std_mean_corr_{n}", std_mean_corr, x, [0], 0.0, True)
    x = rand((2, 3, 4), torch.float32)
    c.add("var_dims_multi", var_dim, x, [0, 2], True, True)
    c.add("var_dims_empty_list", var_dim, x, [], True, False)
    c.add("var_dims_none", var_dim, x, None, False, False)
    c.add("var_corr_2", var_corr, x, [2], 2.0, False)
    c.add("var_corr_half", var_corr, x, [1], 0.5, True)
    c.add("var_corr_too_big", var_corr, x, [1], 5.0, False)
    c.add("std_corr_int", std_corr_int, x, [-1], 0)
    c.add("var_corr_none", var_corr_none, x)
    c.add("var_single", var_dim, t([[1.0], [2.0]]), [1], True, False)
    c.add("var_zero_size", var_all, torch.zeros(0), True)
    c.add("var_zero_size_d1", var_dim, torch.zeros(2, 0), [1], True, False)
    c.add("var_0dim", var_dim, t(2.0), [0], False, False)
    c.add("std_0dim_unbiased", std_all, t(2.0), True)
    c.add("var_nan", var_dim, t([[1.0, NAN], [1.0, 3.0]]), [1], True, False)
    c.add("var_out", var_out, x, [1], torch.empty(0))
    c.add("var_out_f64", var_out, x, [1], torch.empty(0, dtype=torch.float64))
    c.add("var_out_int_error", var_out, x, [1], torch.empty(0, dtype=torch.int64))
    c.add("std_corr_out", std_corr_out, x, [0], torch.empty(0))
    c.add("var_mean_all", var_mean_all, x, False)
    c.add("var_mean_out", var_mean_out, x, [0], torch.empty(0), torch.empty(0))
    c.add("var_t", var_t, rand((3, 4), torch.float64), [0])
    c.add("var_int_error", var_all, rand((3,), torch.int32), True)
    c.add("std_int_error", std_dim, rand((3,), torch.int64), [0], True, False)
    c.add("var_mean_int_error", var_mean_all, rand((3,), torch.int32), True)
    c.add("std_mean_int_error", std_mean_corr, rand((3,), torch.int32), None, 1.0, False)
    c.add("var_dup_dims_error", var_dim, x, [0, 0], True, False)
    big = (torch.rand(1 << 15) * 4).round(decimals=1) + 100.0
    c.add("var_large_f32", var_all, big, True)


def norms(c):
    # torch.norm is a scripted Python function; the method calls aten::norm itself.
    def norm_p(x, p: float):
        return x.norm(p)

    def norm_int_p(x, p: int):
        return x.norm(p)

    def norm_dim(x, p: Optional[float], dims: List[int], keepdim: bool):
        return x.norm(p, dims, keepdim)

    def norm_dim_dtype(x, p: Optional[float], dims: List[int], dtype: int):
        return x.norm(p, dims, False, dtype=dtype)

    def norm_dtype(x, p: Optional[float], dtype: int):
        return x.norm(p, dtype=dtype)

    def norm_out(x, dims: List[int], out):
        return torch.ops.aten.norm(x, 2.0, dims, False, out=out)

    def lvn(x, ord: float, dims: Optional[List[int]], keepdim: bool):
        return torch.linalg.vector_norm(x, ord, dims, keepdim)

    def lvn_dtype(x, ord: float, dtype: int):
        return torch.linalg.vector_norm(x, ord, dtype=dtype)

    def lvn_out(x, out):
        return torch.linalg.vector_norm(x, 2.0, out=out)

    def lvn_t(x, ord: float, dims: List[int]):
        return torch.linalg.vector_norm(x.t(), ord, dims)

    x = rand((3, 4), torch.float32)
    for p in [2.0, 1.0, INF, -INF, 0.0, 3.0, 0.5, -1.0, -0.5]:
        tag = str(p).replace("-", "m").replace(".", "p")
        c.add(f"norm_p{tag}", norm_p, x, p)
        c.add(f"lvn_p{tag}_d1", lvn, x, p, [1], False)
        c.add(f"lvn_p{tag}_zeros", lvn, t([[0.0, 2.0], [0.0, 0.0]]), p, [1], True)
    for d in F:
        n = NAME[d]
        c.add(f"norm_{n}", norm_p, rand((3, 4), d), 2.0)
        c.add(f"lvn_inf_{n}", lvn, rand((3, 4), d), INF, [0], False)
    c.add("norm_int_p", norm_int_p, x, 1)
    c.add("norm_dim_none_p", norm_dim, x, None, [0], True)
    c.add("norm_dims", norm_dim, rand((2, 3, 2), torch.float64), 2.0, [0, 2], False)
    c.add("norm_dims_empty_list", norm_dim, x, 2.0, [], False)
    c.add("norm_dim_dtype", norm_dim_dtype, x, 2.0, [1], CODE[torch.float64])
    c.add("norm_dtype", norm_dtype, rand((3, 4), torch.float16), 2.0, CODE[torch.float32])
    c.add("norm_dtype_narrowing_error", norm_dtype, x, 2.0, CODE[torch.float16])
    c.add("norm_dtype_int_error", norm_dtype, x, 2.0, CODE[torch.int64])
    c.add("norm_out", norm_out, x, [1], torch.empty(0))
    c.add("norm_out_dtype_error", norm_out, x, [1], torch.empty(0, dtype=torch.float64))
    c.add("norm_int_error", norm_p, rand((3,), torch.int64), 2.0)
    c.add("lvn_bool_error", lvn, rand((3,), torch.bool), 2.0, None, False)
    c.add("lvn_none_keep", lvn, x, 2.0, None, True)
    c.add("lvn_dtype", lvn_dtype, rand((3, 4), torch.float16), 2.0, CODE[torch.float64])
    c.add("lvn_out", lvn_out, x, torch.empty(0))
    c.add("lvn_t", lvn_t, x, 1.0, [0])
    c.add("lvn_nan", lvn, t([[1.0, NAN], [1.0, 2.0]]), INF, [1], False)
    c.add("lvn_nan_ord", lvn, t([1.0, 2.0]), NAN, None, False)
    c.add("lvn_zero_size", lvn, torch.zeros(0, 3), 2.0, None, False)
    c.add("lvn_zero_size_inf_error", lvn, torch.zeros(0, 3), INF, None, False)
    c.add("lvn_zero_size_neg_error", lvn, torch.zeros(0, 3), -1.0, None, False)
    c.add("lvn_zero_size_inf_dim_error", lvn, torch.zeros(0, 3), INF, [-2], False)
    c.add("lvn_zero_size_inf_dim1", lvn, torch.zeros(0, 3), INF, [1], False)
    c.add("lvn_0dim", lvn, t(-3.0), 1.0, None, False)


def logsumexp(c):
    def lse(x, dims: List[int], keepdim: bool):
        return torch.logsumexp(x, dims, keepdim)

    def lse_out(x, dims: List[int], out):
        return torch.logsumexp(x, dims, out=out)

    def lse_t(x, dims: List[int]):
        return torch.logsumexp(x.t(), dims)

    for d in ALL:
        n = NAME[d]
        c.add(f"lse_d1_{n}", lse, rand((3, 4), d), [1], False)
    x = rand((2, 3, 4), torch.float32)
    c.add("lse_dims_keep", lse, x, [0, -1], True)
    c.add("lse_large_values", lse, t([[1000.0, 1000.5], [-1000.0, -1001.0]]), [1], False)
    c.add("lse_inf", lse, t([[INF, INF], [-INF, -INF], [INF, -INF], [NAN, 1.0]]), [1], False)
    c.add("lse_zero_size", lse, torch.zeros(0), [0], False)
    c.add("lse_zero_size_d0", lse, torch.zeros(0, 3), [0], False)
    c.add("lse_empty_list_error", lse, x, [], False)
    c.add("lse_0dim_empty_list", lse, t(1.5), [], False)
    c.add("lse_out", lse_out, x, [1], torch.empty(0, dtype=torch.float64))
    c.add("lse_out_int_error", lse_out, x, [1], torch.empty(0, dtype=torch.int64))
    c.add("lse_t", lse_t, rand((3, 4), torch.float64), [0])


def scans(c):
    def cumsum(x, dim: int):
        return torch.cumsum(x, dim)

    def cumprod(x, dim: int):
        return torch.cumprod(x, dim)

    def cumsum_dtype(x, dim: int, dtype: int):
        return torch.cumsum(x, dim, dtype=dtype)

    def cumprod_dtype(x, dim: int, dtype: int):
        return torch.cumprod(x, dim, dtype=dtype)

    def cumsum_out(x, dim: int, out):
        return torch.cumsum(x, dim, out=out)

    def cumprod_out(x, dim: int, out):
        return torch.cumprod(x, dim, out=out)

    def cumsum_(x, dim: int):
        return x.cumsum_(dim)

    def cumprod_(x, dim: int):
        return x.cumprod_(dim)

    def cumsum_t(x, dim: int):
        return torch.cumsum(x.t(), dim)

    def cummax(x, dim: int):
        return torch.cummax(x, dim)

    def cummin(x, dim: int):
        return torch.cummin(x, dim)

    def cummax_out(x, dim: int, v, i):
        return torch.cummax(x, dim, values=v, indices=i)

    def cummin_t(x, dim: int):
        return torch.cummin(x.t(), dim)

    for d in ALL:
        n = NAME[d]
        c.add(f"cumsum_d1_{n}", cumsum, rand((3, 4), d), 1)
        c.add(f"cumprod_d0_{n}", cumprod, rand((3, 2), d), 0)
        c.add(f"cummax_d1_{n}", cummax, ties((3, 5), d), 1)
        c.add(f"cummin_dm2_{n}", cummin, ties((4, 3), d), -2)
    x = rand((3, 4), torch.float32)
    c.add("cumsum_dm1", cumsum, x, -1)
    c.add("cumsum_t", cumsum_t, x, 1)
    c.add("cumsum_dtype_int_to_f64", cumsum_dtype, rand((3, 4), torch.int32), 1, CODE[torch.float64])
    c.add("cumsum_dtype_f32_to_i32", cumsum_dtype, x * 3, 0, CODE[torch.int32])
    c.add("cumsum_dtype_bool_error", cumsum_dtype, x, 0, CODE[torch.bool])
    c.add("cumprod_dtype_int_to_f32", cumprod_dtype, rand((3, 2), torch.int64), 0, CODE[torch.float32])
    c.add("cumsum_out", cumsum_out, x, 0, torch.empty(0))
    c.add("cumsum_out_f64", cumsum_out, x, 0, torch.empty(0, dtype=torch.float64))
    c.add("cumsum_out_int_from_float", cumsum_out, x * 2, 1, torch.empty(0, dtype=torch.int64))
    c.add("cumprod_out", cumprod_out, rand((3, 2), torch.int32), 1, torch.empty(0, dtype=torch.int32))
    c.add("cumsum_inplace", cumsum_, rand((3, 4), torch.float32), 1)
    c.add("cumsum_inplace_int8", cumsum_, t([100, 100, 100], torch.int8), 0)
    c.add("cumprod_inplace", cumprod_, rand((2, 3), torch.float64), 0)
    c.add("cumsum_0dim", cumsum, t(2.5), 0)
    c.add("cumsum_zero_size", cumsum, torch.zeros(0, 3), 0)
    c.add("cumsum_range_error", cumsum, x, 2)
    c.add("cumsum_nan", cumsum, t([1.0, NAN, 2.0]), 0)
    c.add("cummax_nan", cummax, t([1.0, NAN, 3.0, NAN, 5.0]), 0)
    c.add("cummin_nan", cummin, t([[1.0, NAN, -3.0], [NAN, 0.0, -1.0]]), 1)
    c.add("cummax_0dim", cummax, t(2.0), 0)
    c.add("cummax_zero_size", cummax, torch.zeros(0, 3), -2)
    c.add("cummax_out", cummax_out, ties((3, 4), torch.float32), 1, torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("cummax_out_values_dtype_error", cummax_out, ties((3, 4), torch.float32), 1,
          torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
    c.add("cummax_out_indices_dtype_error", cummax_out, ties((3, 4), torch.float32), 1,
          torch.empty(0), torch.empty(0, dtype=torch.int32))
    c.add("cummin_t", cummin_t, ties((3, 4), torch.int32), 0)


def sorting(c):
    def sort(x, dim: int, descending: bool):
        return torch.sort(x, dim, descending)

    def sort_stable(x, stable: Optional[bool], dim: int, descending: bool):
        return torch.sort(x, stable=stable, dim=dim, descending=descending)

    def sort_out(x, dim: int, v, i):
        return torch.sort(x, dim, False, values=v, indices=i)

    def sort_t(x, dim: int, descending: bool):
        return torch.sort(x.t(), dim, descending)

    def argsort(x, dim: int, descending: bool):
        return torch.argsort(x, dim, descending)

    def argsort_stable(x, dim: int, descending: bool):
        return torch.argsort(x, stable=True, dim=dim, descending=descending)

    def argsort_out(x, out):
        return torch.argsort(x, stable=True, dim=-1, descending=False, out=out)

    def msort(x):
        return torch.msort(x)

    def msort_out(x, out):
        return torch.msort(x, out=out)

    def topk(x, k: int, dim: int, largest: bool, s: bool):
        return torch.topk(x, k, dim, largest, s)

    def topk_out(x, k: int, v, i):
        return torch.topk(x, k, -1, True, True, values=v, indices=i)

    def topk_t(x, k: int):
        return torch.topk(x.t(), k)

    for d in ALL:
        n = NAME[d]
        c.add(f"sort_{n}", sort, rand((3, 5), d), -1, False)
        c.add(f"sort_desc_d0_{n}", sort, rand((4, 3), d), 0, True)
        c.add(f"sort_stable_ties_{n}", sort_stable, ties((2, 20), d), True, 1, False)
        c.add(f"sort_stable_ties_desc_{n}", sort_stable, ties((2, 20), d), True, 1, True)
        c.add(f"argsort_{n}", argsort, ties((3, 6), d), 1, False)
        if d != torch.bool:
            c.add(f"topk_{n}", topk, rand((3, 6), d), 2, -1, True, True)
            c.add(f"topk_smallest_d0_{n}", topk, rand((6, 3), d), 3, 0, False, True)
    # Unstable sorts of more than 16 equal keys go through introsort's partitioning.
    for n_ in [8, 17, 40, 100]:
        x = ties((n_,), torch.float32)
        c.add(f"sort_ties_{n_}", sort, x, 0, False)
        c.add(f"sort_ties_desc_{n_}", sort, x, 0, True)
        c.add(f"argsort_ties_{n_}", argsort, x, 0, True)
        c.add(f"topk_ties_{n_}", topk, x, 3, 0, True, True)
        c.add(f"topk_ties_unsorted_{n_}", topk, x, 5, 0, False, False)
        c.add(f"topk_ties_smallest_{n_}", topk, x, 2, 0, False, True)
    x = ties((200,), torch.int32)
    c.add("topk_partial_sort_200", topk, x, 3, 0, True, True)
    c.add("topk_partial_sort_smallest_200", topk, x, 2, 0, False, True)
    c.add("topk_all_200", topk, x, 200, 0, True, False)
    nanx = t([[1.0, NAN, 3.0, -1.0, NAN], [2.0, 0.0, NAN, 2.0, 1.0]])
    c.add("sort_nan", sort, nanx, 1, False)
    c.add("sort_nan_desc", sort, nanx, 1, True)
    c.add("sort_stable_nan", sort_stable, nanx, True, 1, True)
    c.add("sort_stable_none", sort_stable, rand((3, 4), torch.float32), None, -1, False)
    c.add("argsort_nan", argsort, nanx, 1, True)
    c.add("topk_nan", topk, nanx, 2, 1, True, True)
    c.add("topk_nan_smallest", topk, nanx, 2, 1, False, True)
    c.add("sort_t", sort_t, rand((3, 4), torch.float32), 1, False)
    c.add("sort_0dim", sort, t(2.0), 0, False)
    c.add("sort_zero_size", sort, torch.zeros(0, 3), 1, False)
    c.add("sort_range_error", sort, rand((3,), torch.float32), 1, False)
    c.add("sort_out", sort_out, rand((3, 4), torch.float32), 1, torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("sort_out_indices_dtype_error", sort_out, rand((3, 4), torch.float32), 1,
          torch.empty(0), torch.empty(0, dtype=torch.int32))
    c.add("argsort_stable", argsort_stable, ties((2, 20), torch.float32), 1, True)
    c.add("argsort_out", argsort_out, ties((2, 5), torch.float32), torch.empty(0, dtype=torch.int64))
    c.add("argsort_out_dtype_error", argsort_out, ties((2, 5), torch.float32), torch.empty(0))
    c.add("msort", msort, rand((4, 3), torch.float32))
    c.add("msort_out", msort_out, rand((4, 3), torch.int32), torch.empty(0, dtype=torch.int32))
    c.add("topk_unsorted", topk, t([1.0, 5.0, 2.0, 4.0]), 3, 0, True, False)
    c.add("topk_k0", topk, rand((2, 3), torch.float32), 0, 1, True, True)
    c.add("topk_0dim", topk, t(2.0), 1, 0, True, True)
    c.add("topk_0dim_k0", topk, t(2.0), 0, 0, True, True)
    c.add("topk_k_error", topk, rand((2, 3), torch.float32), 4, 1, True, True)
    c.add("topk_k_neg_error", topk, rand((2, 3), torch.float32), -1, 1, True, True)
    c.add("topk_bool_error", topk, rand((4,), torch.bool), 1, 0, True, True)
    c.add("topk_zero_size", topk, torch.zeros(0, 3), 2, 1, True, True)
    c.add("topk_out", topk_out, rand((3, 4), torch.float32), 2, torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("topk_out_dtype_error", topk_out, rand((3, 4), torch.float32), 2,
          torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
    c.add("topk_t", topk_t, rand((3, 4), torch.float32), 2)


def selection(c):
    def kth(x, k: int, dim: int, keepdim: bool):
        return torch.kthvalue(x, k, dim, keepdim)

    def kth_out(x, k: int, v, i):
        return torch.kthvalue(x, k, -1, False, values=v, indices=i)

    def kth_t(x, k: int):
        return torch.kthvalue(x.t(), k)

    def median_all(x):
        return torch.median(x)

    def median_dim(x, dim: int, keepdim: bool):
        return torch.median(x, dim, keepdim)

    def median_out(x, out):
        return torch.median(x, out=out)

    def median_dim_out(x, dim: int, v, i):
        return torch.median(x, dim, False, values=v, indices=i)

    def nanmedian_all(x):
        return torch.nanmedian(x)

    def nanmedian_dim(x, dim: int, keepdim: bool):
        return torch.nanmedian(x, dim, keepdim)

    def median_t(x, dim: int):
        return torch.median(x.t(), dim)

    def mode(x, dim: int, keepdim: bool):
        return torch.mode(x, dim, keepdim)

    def mode_out(x, v, i):
        return torch.mode(x, -1, False, values=v, indices=i)

    for d in ALL:
        n = NAME[d]
        c.add(f"mode_{n}", mode, ties((3, 7), d), -1, False)
        if d != torch.bool:
            c.add(f"kth_{n}", kth, ties((3, 7), d), 3, -1, False)
            c.add(f"median_{n}", median_all, rand((3, 5), d))
            c.add(f"median_d1_{n}", median_dim, ties((3, 6), d), 1, False)
            c.add(f"median_d0_keep_{n}", median_dim, ties((5, 3), d), 0, True)
    for n_ in [5, 20, 41]:
        x = ties((n_,), torch.float32)
        c.add(f"kth_ties_{n_}", kth, x, n_ // 2, 0, False)
        c.add(f"median_ties_{n_}", median_dim, x, 0, False)
        c.add(f"mode_ties_{n_}", mode, x, 0, False)
    nanx = t([[2.0, NAN, 4.0, 3.0, NAN], [1.0, 0.0, 2.0, 2.0, 1.0], [NAN, NAN, NAN, NAN, NAN]])
    c.add("kth_nan", kth, nanx, 4, 1, False)
    c.add("median_nan", median_all, nanx)
    c.add("median_nan_d1", median_dim, nanx, 1, True)
    c.add("nanmedian_nan", nanmedian_all, nanx)
    c.add("nanmedian_nan_d1", nanmedian_dim, nanx, 1, False)
    c.add("nanmedian_all_nan", nanmedian_all, t([NAN, NAN]))
    c.add("nanmedian_int", nanmedian_dim, ties((3, 4), torch.int32), 1, False)
    c.add("mode_nan", mode, nanx, 1, False)
    c.add("kth_dm2_keep", kth, rand((4, 3), torch.float64), 2, -2, True)
    c.add("kth_t", kth_t, rand((3, 4), torch.float32), 2)
    c.add("kth_0dim", kth, t(2.0), 1, 0, False)
    c.add("kth_0dim_k_error", kth, t(2.0), 2, 0, False)
    c.add("kth_k_error", kth, rand((3, 4), torch.float32), 5, -1, False)
    c.add("kth_k0_error", kth, rand((3, 4), torch.float32), 0, 0, False)
    c.add("kth_bool_error", kth, rand((3,), torch.bool), 1, 0, False)
    c.add("kth_zero_size_error", kth, torch.zeros(0), 1, 0, False)
    c.add("kth_zero_size_other_dim", kth, torch.zeros(0, 3), 1, 1, False)
    c.add("kth_out", kth_out, rand((3, 4), torch.float32), 2, torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("kth_out_values_error", kth_out, rand((3, 4), torch.float32), 2,
          torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
    c.add("kth_out_indices_error", kth_out, rand((3, 4), torch.float32), 2, torch.empty(0),
          torch.empty(0, dtype=torch.int32))
    c.add("median_zero_size", median_all, torch.zeros(0))
    c.add("median_zero_size_dim_error", median_dim, torch.zeros(0, 3), -2, False)
    c.add("median_0dim", median_dim, t(2.0), 0, False)
    c.add("median_bool_error", median_all, rand((3,), torch.bool))
    c.add("median_dim_bool_error", median_dim, rand((3,), torch.bool), 0, False)
    c.add("median_out", median_out, rand((3, 4), torch.float32), torch.empty(0))
    c.add("median_dim_out", median_dim_out, rand((3, 4), torch.float32), 1, torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("median_dim_out_indices_error", median_dim_out, rand((3, 4), torch.float32), 1,
          torch.empty(0), torch.empty(0, dtype=torch.int32))
    c.add("median_dim_out_values_error", median_dim_out, rand((3, 4), torch.float32), 1,
          torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
    c.add("median_t", median_t, ties((3, 4), torch.float32), 1)
    c.add("mode_0dim", mode, t(3.0), 0, False)
    c.add("mode_zero_size_error", mode, torch.zeros(0), 0, False)
    c.add("mode_zero_size_other_dim", mode, torch.zeros(2, 0), 0, True)
    c.add("mode_d0_keep", mode, ties((5, 3), torch.int64), 0, True)
    c.add("mode_out", mode_out, ties((3, 5), torch.float32), torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("mode_out_values_error", mode_out, ties((3, 5), torch.float32),
          torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
    c.add("mode_out_indices_error", mode_out, ties((3, 5), torch.float32), torch.empty(0),
          torch.empty(0, dtype=torch.int32))


def softmax(c):
    def softmax_(x, dim: int):
        return torch.softmax(x, dim)

    def log_softmax_(x, dim: int):
        return torch.log_softmax(x, dim)

    def softmax_dtype(x, dim: int, dtype: int):
        return torch.softmax(x, dim, dtype=dtype)

    def log_softmax_dtype(x, dim: int, dtype: int):
        return torch.log_softmax(x, dim, dtype=dtype)

    def softmax_out(x, dim: int, out):
        return torch.softmax(x, dim, out=out)

    def log_softmax_out(x, dim: int, out):
        return torch.log_softmax(x, dim, out=out)

    def aten_softmax(x, dim: int, half_to_float: bool):
        return torch._softmax(x, dim, half_to_float)

    def aten_log_softmax(x, dim: int, half_to_float: bool):
        return torch._log_softmax(x, dim, half_to_float)

    def softmax_t(x, dim: int):
        return torch.softmax(x.t(), dim)

    for d in F:
        n = NAME[d]
        x = rand((3, 4), d)
        c.add(f"softmax_dm1_{n}", softmax_, x, -1)
        c.add(f"softmax_d0_{n}", softmax_, x, 0)
        c.add(f"log_softmax_dm1_{n}", log_softmax_, x, -1)
        c.add(f"log_softmax_d0_{n}", log_softmax_, x, 0)
    x = rand((2, 3, 4), torch.float32)
    c.add("softmax_d1_3d", softmax_, x, 1)
    c.add("log_softmax_d1_3d", log_softmax_, x, 1)
    c.add("softmax_t", softmax_t, rand((3, 4), torch.float32), 1)
    c.add("softmax_dtype_f64", softmax_dtype, rand((3, 4), torch.float32), 1, CODE[torch.float64])
    c.add("softmax_dtype_int_input", softmax_dtype, rand((3, 4), torch.int64), 1,
          CODE[torch.float32])
    c.add("log_softmax_dtype_bf16_to_f32", log_softmax_dtype, rand((3, 4), torch.bfloat16), 0,
          CODE[torch.float32])
    c.add("softmax_int_error", softmax_, rand((3, 4), torch.int64), 1)
    c.add("softmax_int_dim0_error", softmax_, rand((3, 4), torch.int64), 0)
    c.add("log_softmax_int_error", log_softmax_, rand((3, 4), torch.int32), -1)
    c.add("log_softmax_dtype_int_error", log_softmax_dtype, rand((3, 4), torch.float32), 0,
          CODE[torch.int64])
    c.add("softmax_bool_error", softmax_, rand((3,), torch.bool), 0)
    c.add("softmax_out", softmax_out, rand((3, 4), torch.float32), 1, torch.empty(0))
    c.add("softmax_out_dtype_error", softmax_out, rand((3, 4), torch.float32), 1,
          torch.empty(0, dtype=torch.float64))
    c.add("log_softmax_out", log_softmax_out, rand((3, 4), torch.float64), 0,
          torch.empty(0, dtype=torch.float64))
    c.add("aten_softmax", aten_softmax, rand((3, 4), torch.float32), 1, False)
    c.add("aten_log_softmax", aten_log_softmax, rand((3, 4), torch.float64), 0, False)
    c.add("aten_softmax_half_to_float_error", aten_softmax, rand((3,), torch.float16), 0, True)
    c.add("aten_log_softmax_half_to_float_error", aten_log_softmax, rand((3,), torch.float16),
          0, True)
    c.add("softmax_0dim", softmax_, t(2.0), 0)
    c.add("log_softmax_0dim", log_softmax_, t(2.0), -1)
    c.add("softmax_zero_size", softmax_, torch.zeros(0, 3), 0)
    c.add("softmax_inf", softmax_, t([[-INF, -INF], [INF, 1.0], [-INF, 1.0], [NAN, 1.0]]), 1)
    c.add("log_softmax_inf", log_softmax_, t([[-INF, -INF], [-INF, 1.0], [1000.0, 0.0]]), 1)
    c.add("softmax_range_error", softmax_, rand((3,), torch.float32), 1)


def more_outs(c):
    """The remaining out= overloads."""

    def sum_out_all(x, out):
        return torch.sum(x, dtype=None, out=out)

    def mean_out_all(x, out):
        return torch.mean(x, dtype=None, out=out)

    def nansum_out(x, dims: List[int], out):
        return torch.nansum(x, dims, out=out)

    def any_dims_out(x, dims: List[int], out):
        return torch.any(x, dims, False, out=out)

    def all_dim_out(x, dim: int, out):
        return torch.all(x, dim, True, out=out)

    def cummin_out(x, dim: int, v, i):
        return torch.cummin(x, dim, values=v, indices=i)

    def sort_values_stable(x, v, i):
        return torch.sort(x, stable=True, dim=1, descending=True, values=v, indices=i)

    def nanmedian_dim_out(x, dim: int, v, i):
        return torch.nanmedian(x, dim, False, values=v, indices=i)

    def nanmedian_out(x, out):
        return torch.nanmedian(x, out=out)

    def norm_dtype_out(x, out):
        return torch.ops.aten.norm(x, 2.0, [1], False, dtype=torch.float64, out=out)

    def norm_scalar_out(x, out):
        return torch.ops.aten.norm(x, 1.0, out=out)

    def aten_softmax_out(x, out):
        return torch.ops.aten._softmax(x, 1, False, out=out)

    def aten_log_softmax_out(x, out):
        return torch.ops.aten._log_softmax(x, 0, False, out=out)

    def var_corr_out(x, out):
        return torch.var(x, [1], correction=2, keepdim=True, out=out)

    def std_mean_out(x, a, b):
        return torch.std_mean(x, None, correction=0, keepdim=False, out0=a, out1=b)

    def cumprod_out_dtype(x, out):
        return torch.cumprod(x, 0, dtype=torch.float64, out=out)

    x = rand((3, 4), torch.float32)
    c.add("sum_out_all", sum_out_all, x, torch.empty(0))
    c.add("sum_out_all_int", sum_out_all, rand((3, 4), torch.int8), torch.empty(0, dtype=torch.int64))
    c.add("mean_out_all", mean_out_all, x, torch.empty(0))
    c.add("nansum_out", nansum_out, t([[1.0, NAN], [2.0, 3.0]]), [1], torch.empty(0))
    c.add("any_dims_out", any_dims_out, ties((3, 4), torch.int32), [0], torch.empty(0, dtype=torch.bool))
    c.add("all_dim_out", all_dim_out, ties((3, 4), torch.int32), 1, torch.empty(0, dtype=torch.bool))
    c.add("cummin_out", cummin_out, ties((3, 4), torch.int64), 0, torch.empty(0, dtype=torch.int64),
          torch.empty(0, dtype=torch.int64))
    c.add("sort_values_stable", sort_values_stable, ties((2, 20), torch.float32), torch.empty(0),
          torch.empty(0, dtype=torch.int64))
    c.add("nanmedian_dim_out", nanmedian_dim_out, t([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), 1,
          torch.empty(0), torch.empty(0, dtype=torch.int64))
    c.add("nanmedian_out", nanmedian_out, t([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), torch.empty(0))
    c.add("norm_dtype_out", norm_dtype_out, x, torch.empty(0, dtype=torch.float64))
    c.add("norm_scalar_out", norm_scalar_out, x, torch.empty(0))
    c.add("aten_softmax_out", aten_softmax_out, x, torch.empty(0))
    c.add("aten_log_softmax_out", aten_log_softmax_out, x, torch.empty(0))
    c.add("var_corr_out", var_corr_out, x, torch.zeros(2))
    c.add("std_mean_out", std_mean_out, x, torch.empty(0), torch.empty(0))
    c.add("cumprod_out_dtype", cumprod_out_dtype, rand((3, 2), torch.int32),
          torch.empty(0, dtype=torch.float64))
