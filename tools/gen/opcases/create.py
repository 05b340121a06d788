"""Creation operators: zeros/ones/full/empty and their _like/new_ forms, arange (every
overload), linspace, logspace, eye, tensors from Python values. Random ops appear here only
for shapes, dtypes and errors; their seeded values are compared with PyTorch's in the
`random` area (tools/gen/opcases/random.py)."""

from typing import List

import torch


def cases(c):
    def zeros(s: List[int]):
        return torch.zeros(s), torch.ones(s), torch.zeros(s, dtype=torch.int32), torch.ones(s, dtype=torch.bool)

    c.add("zeros_ones", zeros, [2, 3])
    c.add("zeros_ones_empty", zeros, [0, 3])
    c.add("zeros_ones_scalar", zeros, [])
    c.add("zeros_negative", zeros, [2, -1])

    def zeros_device(s: List[int]):
        return torch.zeros(s, dtype=torch.float64, device="cpu", layout=torch.strided, pin_memory=False)

    c.add("zeros_options", zeros_device, [2])

    def empty(s: List[int]):
        e = torch.empty(s)
        e2 = torch.empty(s, dtype=torch.int8)
        return e.size(), e.dtype, e2.dtype

    c.add("empty_meta", empty, [2, 3])

    def full(s: List[int], v: float):
        return torch.full(s, v), torch.full(s, v, dtype=torch.int64), torch.full(s, 3), torch.full(s, True)

    c.add("full", full, [2, 2], 2.5)
    c.add("full_negative", full, [2], -7.9)

    def full_out(o):
        return torch.zeros([3], out=o), torch.full([2], 1.5, out=o)

    c.add("zeros_full_out", full_out, torch.ones(1, dtype=torch.float64))

    def likes(x):
        return (
            torch.zeros_like(x),
            torch.ones_like(x),
            torch.full_like(x, 2.7),
            torch.ones_like(x, dtype=torch.float16),
            torch.empty_like(x).size(),
        )

    c.add("likes_float", likes, torch.rand(2, 3))
    c.add("likes_int", likes, torch.tensor([[1, 2, 3]], dtype=torch.int32))
    c.add("likes_bool", likes, torch.tensor([True, False]))

    def new(x):
        return x.new_zeros([2]), x.new_ones([1, 2]), x.new_full([2], 3.5), x.new_empty([3]).size(), x.new_zeros([2], dtype=torch.float64)

    c.add("new_forms", new, torch.tensor([1, 2], dtype=torch.int16))

    # --- arange -------------------------------------------------------------------------------
    def arange_end(e: int):
        return torch.arange(e)

    c.add("arange_end", arange_end, 5)
    c.add("arange_end_zero", arange_end, 0)
    c.add("arange_end_negative", arange_end, -3)

    def arange_end_f(e: float):
        return torch.arange(e)

    c.add("arange_end_float", arange_end_f, 2.5)

    def arange_se(s: int, e: int):
        return torch.arange(s, e)

    c.add("arange_start_end", arange_se, -2, 3)

    def arange_ses(s: int, e: int, st: int):
        return torch.arange(s, e, st)

    c.add("arange_step", arange_ses, 1, 10, 3)
    c.add("arange_step_negative", arange_ses, 5, -3, -2)
    c.add("arange_step_exact", arange_ses, 0, 9, 3)
    c.add("arange_step_zero", arange_ses, 0, 9, 0)
    c.add("arange_step_sign", arange_ses, 0, 9, -1)

    def arange_f(s: float, e: float, st: float):
        return torch.arange(s, e, st)

    c.add("arange_float", arange_f, 0.0, 1.0, 0.1)
    c.add("arange_float_neg", arange_f, 1.0, -1.0, -0.25)
    c.add("arange_float_round", arange_f, 1.0, 2.0, 0.3)
    c.add("arange_float_inf", arange_f, 0.0, float("inf"), 1.0)

    def arange_mixed(s: int, e: float, st: int):
        return torch.arange(s, e, st)

    c.add("arange_mixed", arange_mixed, 0, 3.5, 1)

    def arange_dtype(s: float, e: float, st: float):
        return (
            torch.arange(s, e, st, dtype=torch.int64),
            torch.arange(s, e, st, dtype=torch.int32),
            torch.arange(s, e, st, dtype=torch.float64),
            torch.arange(s, e, st, dtype=torch.float16),
        )

    c.add("arange_dtypes", arange_dtype, 0.5, 7.9, 1.5)

    def arange_out(o):
        return torch.arange(0, 5, 2, out=o)

    c.add("arange_out", arange_out, torch.zeros(1, dtype=torch.int64))

    # --- linspace / logspace / eye ----------------------------------------------------------
    def linspace(s: float, e: float, n: int):
        return torch.linspace(s, e, n), torch.linspace(s, e, n, dtype=torch.float64)

    c.add("linspace", linspace, 0.0, 1.0, 5)
    c.add("linspace_long", linspace, -3.0, 11.0, 20)
    c.add("linspace_one", linspace, 2.0, 5.0, 1)
    c.add("linspace_zero", linspace, 2.0, 5.0, 0)
    c.add("linspace_negative", linspace, 2.0, 5.0, -1)

    def linspace_int(s: int, e: int, n: int):
        return torch.linspace(s, e, n), torch.linspace(s, e, n, dtype=torch.int64)

    c.add("linspace_int", linspace_int, 0, 10, 4)

    def linspace_t(s, e):
        return torch.linspace(s, e, 3)

    c.add("linspace_tensors", linspace_t, torch.tensor(1.0), torch.tensor(2.0))

    def logspace(s: float, e: float, n: int, b: float):
        return torch.logspace(s, e, n, b), torch.logspace(s, e, n, b, dtype=torch.float64)

    c.add("logspace", logspace, 0.0, 2.0, 3, 10.0)
    c.add("logspace_base2", logspace, -1.0, 3.0, 5, 2.0)

    def eye(n: int):
        return torch.eye(n), torch.eye(n, dtype=torch.int64)

    c.add("eye", eye, 3)
    c.add("eye_zero", eye, 0)
    c.add("eye_negative", eye, -1)

    def eye_m(n: int, m: int):
        return torch.eye(n, m), torch.eye(n, m, dtype=torch.bool)

    c.add("eye_rect", eye_m, 2, 4)
    c.add("eye_rect_m_negative", eye_m, 2, -4)

    # --- tensors from Python values -------------------------------------------------------
    def tensor_ints():
        return torch.tensor([[1, 2], [3, 4]]), torch.tensor([1.5, 2.5]), torch.tensor([True, False])

    c.add("tensor_literals", tensor_ints)

    def tensor_list(l: List[int]):
        return torch.tensor(l), torch.tensor(l, dtype=torch.float16), torch.tensor(l, dtype=torch.uint8)

    c.add("tensor_from_list", tensor_list, [3, -1, 300])
    c.add("tensor_from_empty_list", tensor_list, [])

    def tensor_nested(a: float):
        return torch.tensor([[1.0, a, 3.0], [4.0, 5.0, 6.0]]), torch.tensor([[[1, 2]], [[3, 4]]], dtype=torch.float64)

    c.add("tensor_nested", tensor_nested, 2.5)

    def tensor_nested_ragged(a: int):
        return torch.tensor([[1, 2], [a]])

    c.add("tensor_nested_ragged", tensor_nested_ragged, 3)

    def tensor_scalars(a: int, b: float, d: bool):
        return torch.tensor(a), torch.tensor(b), torch.tensor(d), torch.tensor(b, dtype=torch.int32)

    c.add("tensor_scalars", tensor_scalars, 7, -2.5, True)

    def scalar_tensor(a: int, b: float):
        return torch.scalar_tensor(a), torch.scalar_tensor(b, dtype=torch.float64)

    c.add("scalar_tensor", scalar_tensor, 3, 0.1)

    def as_tensor(x, l: List[float]):
        return torch.as_tensor(x), torch.as_tensor(x, dtype=torch.float64), torch.as_tensor(l)

    c.add("as_tensor", as_tensor, torch.tensor([1, 2]), [0.5, 1.5])

    def as_tensor_alias(x):
        y = torch.as_tensor(x)
        y[0] = 9
        return x

    c.add("as_tensor_alias", as_tensor_alias, torch.tensor([1, 2]))

    def rand_like_int(x):
        return torch.rand_like(x)

    c.add("rand_like_int_error", rand_like_int, torch.tensor([1, 2]))

    def randn_int():
        return torch.randn([2], dtype=torch.int64)

    c.add("randn_int_error", randn_int)

    def randint_empty_range():
        return torch.randint(5, 5, [3])

    c.add("randint_empty_range", randint_empty_range)

    def randperm_negative(n: int):
        return torch.randperm(n)

    c.add("randperm_negative", randperm_negative, -1)

    def random_shapes():
        a = torch.rand([2, 3])
        b = torch.randn([4], dtype=torch.float64)
        d = torch.randint(0, 3, [5])
        e = torch.randperm(4)
        return a.size(), a.dtype, b.size(), b.dtype, d.dtype, e.size(), e.dtype

    c.add("random_shapes_and_dtypes", random_shapes)

    # --- diag / one_hot / tril_indices --------------------------------------------------------
    def diag(x, k: int):
        return torch.diag(x, k)

    c.add("diag_vector", diag, torch.tensor([1.0, 2.0, 3.0]), 0)
    c.add("diag_vector_offset", diag, torch.tensor([1, 2]), -1)
    c.add("diag_matrix", diag, torch.arange(12.0).reshape(3, 4), 1)
    c.add("diag_matrix_neg", diag, torch.arange(12.0).reshape(3, 4), -2)
    c.add("diag_3d", diag, torch.zeros(1, 1, 1), 0)

    def one_hot(x, n: int):
        return torch.nn.functional.one_hot(x, n)

    c.add("one_hot", one_hot, torch.tensor([[0, 2], [1, 0]]), 3)
    c.add("one_hot_infer", one_hot, torch.tensor([3, 1]), -1)
    c.add("one_hot_too_small", one_hot, torch.tensor([3, 1]), 3)
    c.add("one_hot_negative", one_hot, torch.tensor([-1]), 3)
    c.add("one_hot_empty_infer", one_hot, torch.zeros(0, dtype=torch.int64), -1)
    c.add("one_hot_not_long", one_hot, torch.tensor([1], dtype=torch.int32), 3)

    def tri_indices(r: int, cc: int, o: int):
        return torch.tril_indices(r, cc, o), torch.triu_indices(r, cc, o)

    c.add("tri_indices", tri_indices, 3, 4, 0)
    c.add("tri_indices_offset", tri_indices, 4, 3, -1)
    c.add("tri_indices_positive", tri_indices, 3, 3, 2)

    def diag_embed(x, o: int, a: int, b: int):
        return torch.diag_embed(x, o, a, b)

    c.add("diag_embed", diag_embed, torch.arange(6.0).reshape(2, 3), 0, -2, -1)
    c.add("diag_embed_offset", diag_embed, torch.arange(6.0).reshape(2, 3), 1, 0, 2)
    c.add("diag_embed_neg", diag_embed, torch.arange(3.0), -1, 1, 0)
    c.add("diag_embed_same", diag_embed, torch.arange(3.0), 0, 0, 0)

    # --- every dtype through the factories ----------------------------------------------------
    def zeros_i8():
        return torch.zeros([2], dtype=torch.int8), torch.ones([2], dtype=torch.int8), torch.full([2], -3, dtype=torch.int8), torch.arange(0, 6, 2, dtype=torch.int8), torch.eye(2, dtype=torch.int8), torch.linspace(0, 5, 3, dtype=torch.int8)

    def zeros_u8():
        return torch.zeros([2], dtype=torch.uint8), torch.ones([2], dtype=torch.uint8), torch.full([2], 300, dtype=torch.uint8), torch.arange(0, 6, 2, dtype=torch.uint8), torch.eye(2, dtype=torch.uint8), torch.linspace(0, 5, 3, dtype=torch.uint8)

    def zeros_i16():
        return torch.zeros([2], dtype=torch.int16), torch.ones([2], dtype=torch.int16), torch.full([2], -3, dtype=torch.int16), torch.arange(0, 6, 2, dtype=torch.int16), torch.eye(2, dtype=torch.int16), torch.linspace(0, 5, 3, dtype=torch.int16)

    def zeros_i32():
        return torch.zeros([2], dtype=torch.int32), torch.ones([2], dtype=torch.int32), torch.full([2], -3, dtype=torch.int32), torch.arange(0, 6, 2, dtype=torch.int32), torch.eye(2, dtype=torch.int32), torch.linspace(0, 5, 3, dtype=torch.int32)

    def zeros_f16():
        return torch.zeros([2], dtype=torch.float16), torch.ones([2], dtype=torch.float16), torch.full([2], 0.1, dtype=torch.float16), torch.arange(0, 1, 0.25, dtype=torch.float16), torch.eye(2, dtype=torch.float16), torch.linspace(0, 1, 7, dtype=torch.float16)

    def zeros_bf16():
        return torch.zeros([2], dtype=torch.bfloat16), torch.ones([2], dtype=torch.bfloat16), torch.full([2], 0.1, dtype=torch.bfloat16), torch.arange(0, 1, 0.25, dtype=torch.bfloat16), torch.eye(2, dtype=torch.bfloat16), torch.linspace(0, 1, 7, dtype=torch.bfloat16)

    def zeros_bool():
        return torch.zeros([2], dtype=torch.bool), torch.ones([2], dtype=torch.bool), torch.full([2], 2, dtype=torch.bool), torch.eye(2, dtype=torch.bool)

    for name, fn in [("int8", zeros_i8), ("uint8", zeros_u8), ("int16", zeros_i16), ("int32", zeros_i32), ("float16", zeros_f16), ("bfloat16", zeros_bf16), ("bool", zeros_bool)]:
        c.add(f"factories_{name}", fn)

    def arange_bool():
        return torch.arange(3, dtype=torch.bool)

    c.add("arange_bool_error", arange_bool)

    def full_overflow(v: float):
        return torch.full([2], v, dtype=torch.float16)

    c.add("full_f16_overflow", full_overflow, 1e6)
    c.add("full_f16_inf", full_overflow, float("inf"))

    def fill_overflow(x, v: int):
        return x.fill_(v)

    c.add("fill_int8_overflow", fill_overflow, torch.zeros(2, dtype=torch.int8), 128)
    c.add("fill_uint8_negative", fill_overflow, torch.zeros(2, dtype=torch.uint8), -3)
    c.add("fill_int32_ok", fill_overflow, torch.zeros(2, dtype=torch.int32), -2**31)

    def fill_float_int(x, v: float):
        return x.fill_(v)

    c.add("fill_int8_float_overflow", fill_float_int, torch.zeros(2, dtype=torch.int8), 300.5)
    c.add("fill_int8_float_nan", fill_float_int, torch.zeros(2, dtype=torch.int8), float("nan"))
