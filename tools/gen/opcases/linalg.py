"""Matrix products and einsum: every matmul rank combination with broadcast batch dims, mm,
bmm, addmm/addmv/baddbmm with beta and alpha, mv, dot, outer, linear, einsum; dtypes,
non-contiguous operands, zero sizes, out= and in-place forms, PyTorch's error messages.

GEMM reassociates sums, so float32 products are compared with rtol 1e-4 where the
contraction is long (k >= 16); the short ones here hold at the default tolerance."""

from typing import List, Optional

import torch


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    if dtype == torch.uint8:
        return torch.randint(0, 5, shape, dtype=dtype)
    return torch.randint(-4, 5, shape, dtype=dtype)


def cases(c):
    def matmul(a, b):
        return torch.matmul(a, b)

    shapes = [
        ("1d_1d", (3,), (3,)),
        ("2d_1d", (2, 3), (3,)),
        ("1d_2d", (3,), (3, 4)),
        ("2d_2d", (2, 3), (3, 4)),
        ("3d_1d", (2, 2, 3), (3,)),
        ("3d_2d", (2, 2, 3), (3, 4)),
        ("1d_3d", (3,), (2, 3, 4)),
        ("2d_3d", (5, 3), (2, 3, 4)),
        ("3d_3d", (2, 2, 3), (2, 3, 4)),
        ("4d_3d_broadcast", (2, 1, 2, 3), (3, 3, 2)),
        ("4d_4d_broadcast", (1, 3, 2, 3), (2, 1, 3, 2)),
        ("4d_1d", (2, 2, 1, 3), (3,)),
        ("zero_k", (2, 0), (0, 3)),
        ("zero_m", (0, 3), (3, 2)),
        ("zero_batch", (0, 2, 3), (3, 2)),
    ]
    for name, sa, sb in shapes:
        c.add(f"matmul_{name}", matmul, r(*sa), r(*sb))
    c.add("matmul_long_k", matmul, r(3, 40), r(40, 5), rtol=1e-4, atol=1e-5)
    c.add("matmul_transposed", matmul, r(3, 2).t(), r(4, 3).t())
    c.add("matmul_stepped", matmul, r(2, 6)[:, ::2], r(3, 8)[:, 1::2])
    c.add("matmul_expanded", matmul, r(1, 3).expand(4, 3), r(3, 1).expand(3, 2))
    c.add("matmul_batched_permuted", matmul, r(3, 2, 4).permute(1, 0, 2), r(2, 4, 3))
    for dt in [torch.float64, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]:
        c.add(f"matmul_{str(dt)[6:]}", matmul, r(2, 3, dtype=dt), r(3, 2, dtype=dt))
        c.add(f"matmul_batched_{str(dt)[6:]}", matmul, r(2, 2, 3, dtype=dt), r(3, dtype=dt))
    c.add("matmul_float16", matmul, r(2, 3, dtype=torch.float16), r(3, 2, dtype=torch.float16))
    c.add("matmul_bfloat16", matmul, r(2, 3, dtype=torch.bfloat16), r(3, 2, dtype=torch.bfloat16))
    c.add("matmul_bool_error", matmul, r(2, 3) > 0, r(3, 2) > 0)
    c.add("matmul_0d_error", matmul, torch.tensor(1.0), r(3))
    c.add("matmul_1d_mismatch_error", matmul, r(3), r(4))
    c.add("matmul_2d_mismatch_error", matmul, r(2, 3), r(4, 5))
    c.add("matmul_batch_mismatch_error", matmul, r(2, 3, 4), r(3, 4, 2))
    c.add("matmul_batch_k_error", matmul, r(2, 3, 4), r(2, 5, 2))
    c.add("matmul_dtype_error", matmul, r(2, 3), r(3, 2, dtype=torch.float64))

    def matmul_out(a, b, out):
        return torch.matmul(a, b, out=out)

    c.add("matmul_out", matmul_out, r(2, 3), r(3, 4), torch.zeros(2, 4))
    c.add("matmul_out_resized", matmul_out, r(2, 2, 3), r(3, 4), torch.zeros(0))

    def mm(a, b):
        return torch.mm(a, b)

    c.add("mm", mm, r(2, 3), r(3, 4))
    c.add("mm_transposed", mm, r(3, 2).t(), r(3, 4))
    c.add("mm_int64", mm, r(2, 3, dtype=torch.int64), r(3, 2, dtype=torch.int64))
    c.add("mm_shape_error", mm, r(2, 3), r(4, 5))
    c.add("mm_self_1d_error", mm, r(3), r(3, 4))
    c.add("mm_mat2_1d_error", mm, r(2, 3), r(3))
    c.add("mm_dtype_error", mm, r(2, 3), r(3, 2, dtype=torch.float64))
    c.add("mm_bool_error", mm, r(2, 3) > 0, r(3, 2) > 0)

    def mm_out(a, b, out):
        return torch.mm(a, b, out=out)

    c.add("mm_out", mm_out, r(2, 3), r(3, 4), torch.zeros(2, 4))

    def bmm(a, b):
        return torch.bmm(a, b)

    c.add("bmm", bmm, r(2, 2, 3), r(2, 3, 4))
    c.add("bmm_permuted", bmm, r(3, 2, 2).transpose(0, 1), r(2, 3, 2))
    c.add("bmm_int32", bmm, r(2, 2, 3, dtype=torch.int32), r(2, 3, 2, dtype=torch.int32))
    c.add("bmm_float16", bmm, r(2, 2, 3, dtype=torch.float16), r(2, 3, 2, dtype=torch.float16))
    c.add("bmm_2d_error", bmm, r(2, 3), r(2, 3, 4))
    c.add("bmm_batch2_error", bmm, r(2, 2, 3), r(3, 4))
    c.add("bmm_size_error", bmm, r(2, 2, 3), r(3, 3, 4))
    c.add("bmm_dtype_error", bmm, r(2, 2, 3), r(2, 3, 4, dtype=torch.float64))

    def addmm(s, a, b, beta: float, alpha: float):
        return torch.addmm(s, a, b, beta=beta, alpha=alpha)

    c.add("addmm", addmm, r(2, 4), r(2, 3), r(3, 4), 1.0, 1.0)
    c.add("addmm_scaled", addmm, r(4), r(2, 3), r(3, 4), 0.5, 2.0)
    c.add("addmm_beta0_nan", addmm, torch.full((2, 4), float("nan")), r(2, 3), r(3, 4), 0.0, 1.0)
    c.add("addmm_broadcast_col", addmm, r(2, 1), r(2, 3), r(3, 4), 1.0, -1.0)
    c.add("addmm_self_error", addmm, r(3, 3), r(2, 3), r(3, 2), 1.0, 1.0)
    c.add("addmm_dtype_error", addmm, r(2, 2, dtype=torch.float64), r(2, 3), r(3, 2), 1.0, 1.0)

    def addmm_int(s, a, b, beta: int, alpha: int):
        return torch.addmm(s, a, b, beta=beta, alpha=alpha)

    c.add(
        "addmm_int64",
        addmm_int,
        r(2, 2, dtype=torch.int64),
        r(2, 3, dtype=torch.int64),
        r(3, 2, dtype=torch.int64),
        2,
        3,
    )

    def addmm_(s, a, b):
        return s.addmm_(a, b, beta=0.5, alpha=2)

    c.add("addmm_inplace", addmm_, r(2, 4), r(2, 3), r(3, 4))

    def addmm_out(s, a, b, out):
        return torch.addmm(s, a, b, out=out)

    c.add("addmm_out", addmm_out, r(4), r(2, 3), r(3, 4), torch.zeros(2, 4))

    c.add("mm_out_dtype_error", mm_out, r(2, 3), r(3, 4), torch.zeros(2, 4, dtype=torch.float64))

    def dot_out(a, b, out):
        return torch.dot(a, b, out=out)

    c.add("dot_out", dot_out, r(3), r(3), torch.zeros(()))
    c.add("dot_out_dtype_error", dot_out, r(3), r(3), torch.zeros((), dtype=torch.int64))

    def addmm_bad_(s, a, b):
        return s.addmm_(a, b)

    c.add("addmm_inplace_shape_error", addmm_bad_, r(4), r(2, 3), r(3, 4))

    def mv(a, b):
        return torch.mv(a, b)

    c.add("mv", mv, r(2, 3), r(3))
    c.add("mv_stepped", mv, r(2, 6)[:, ::2], r(6)[::2])
    c.add("mv_size_error", mv, r(2, 3), r(4))
    c.add("mv_dim_error", mv, r(3), r(3))

    def addmv(s, a, b, beta: float, alpha: float):
        return torch.addmv(s, a, b, beta=beta, alpha=alpha)

    c.add("addmv", addmv, r(2), r(2, 3), r(3), 0.5, 2.0)
    c.add("addmv_broadcast", addmv, r(1), r(2, 3), r(3), 1.0, 1.0)
    c.add("addmv_size_error", addmv, r(3), r(2, 3), r(3), 1.0, 1.0)

    def addmv_(s, a, b):
        return s.addmv_(a, b, alpha=3)

    c.add("addmv_inplace", addmv_, r(2), r(2, 3), r(3))

    def dot(a, b):
        return torch.dot(a, b)

    c.add("dot", dot, r(5), r(5))
    c.add("dot_int64", dot, r(4, dtype=torch.int64), r(4, dtype=torch.int64))
    c.add("dot_empty", dot, r(0), r(0))
    c.add("dot_size_error", dot, r(2), r(3))
    c.add("dot_dim_error", dot, r(2, 2), r(2))
    c.add("dot_dtype_error", dot, r(2), r(2, dtype=torch.int64))
    c.add("dot_bool_error", dot, r(2) > 0, r(2) > 0)

    def vdot(a, b):
        return torch.vdot(a, b)

    c.add("vdot", vdot, r(3), r(3))

    def outer(a, b):
        return torch.outer(a, b)

    c.add("outer", outer, r(3), r(2))
    c.add("outer_promoted", outer, r(3), r(2, dtype=torch.int64))
    c.add("outer_dim_error", outer, r(2, 2), r(2))

    def baddbmm(s, a, b, beta: float, alpha: float):
        return torch.baddbmm(s, a, b, beta=beta, alpha=alpha)

    c.add("baddbmm", baddbmm, r(2, 2, 4), r(2, 2, 3), r(2, 3, 4), 1.0, 1.0)
    c.add("baddbmm_broadcast", baddbmm, r(1, 4), r(2, 2, 3), r(2, 3, 4), 0.5, -2.0)
    c.add("baddbmm_beta0", baddbmm, torch.full((2, 2, 4), float("nan")), r(2, 2, 3), r(2, 3, 4), 0.0, 1.0)
    c.add("baddbmm_self_error", baddbmm, r(3, 2, 2), r(2, 2, 3), r(2, 3, 2), 1.0, 1.0)
    c.add("baddbmm_dtype_error", baddbmm, r(2, 2, 2, dtype=torch.float64), r(2, 2, 3), r(2, 3, 2), 1.0, 1.0)

    def baddbmm_(s, a, b):
        return s.baddbmm_(a, b, alpha=0.5)

    c.add("baddbmm_inplace", baddbmm_, r(2, 2, 4), r(2, 2, 3), r(2, 3, 4))

    def linear(x, w, b: Optional[torch.Tensor]):
        return torch.nn.functional.linear(x, w, b)

    c.add("linear", linear, r(2, 3), r(4, 3), r(4))
    c.add("linear_no_bias", linear, r(2, 3), r(4, 3), None)
    c.add("linear_3d", linear, r(2, 2, 3), r(4, 3), r(4))
    c.add("linear_3d_no_bias", linear, r(2, 2, 3), r(4, 3), None)
    c.add("linear_1d_input", linear, r(3), r(4, 3), r(4))
    c.add("linear_1d_weight", linear, r(2, 3), r(3), r(()))
    c.add("linear_float64", linear, r(2, 3, dtype=torch.float64), r(4, 3, dtype=torch.float64), r(4, dtype=torch.float64))
    c.add("linear_bfloat16", linear, r(2, 3, dtype=torch.bfloat16), r(4, 3, dtype=torch.bfloat16), r(4, dtype=torch.bfloat16))
    c.add("linear_long_k", linear, r(3, 64), r(5, 64), r(5), rtol=1e-4, atol=1e-5)
    c.add("linear_bias_error", linear, r(2, 3), r(4, 3), r(5))
    c.add("linear_shape_error", linear, r(2, 3), r(4, 5), None)
    c.add("linear_0d_error", linear, torch.tensor(1.0), r(4, 3), None)
    c.add("linear_dtype_error", linear, r(2, 3), r(4, 3, dtype=torch.float64), None)

    # The equation is a constant of each scripted function (the suite passes tensors and
    # numbers as inputs).
    def einsum_mm(a, b):
        return torch.einsum("ij,jk->ik", a, b)

    c.add("einsum_mm", einsum_mm, r(2, 3), r(3, 4))

    def einsum_implicit(a, b):
        return torch.einsum("ij,jk", a, b)

    c.add("einsum_implicit", einsum_implicit, r(2, 3), r(3, 4))

    def einsum_bmm(a, b):
        return torch.einsum("bij,bjk->bik", a, b)

    c.add("einsum_bmm", einsum_bmm, r(2, 2, 3), r(2, 3, 4))

    def einsum_attention(a, b):
        return torch.einsum("bhqd,bhkd->bhqk", a, b)

    c.add("einsum_attention", einsum_attention, r(1, 2, 3, 4), r(1, 2, 2, 4))

    def einsum_ellipsis(a, b):
        return torch.einsum("...ij,...jk->...ik", a, b)

    c.add("einsum_ellipsis", einsum_ellipsis, r(2, 2, 3), r(3, 4))

    def einsum_ellipsis_broadcast(a, b):
        return torch.einsum("...ij,...jk", a, b)

    c.add("einsum_ellipsis_broadcast", einsum_ellipsis_broadcast, r(2, 1, 2, 3), r(3, 3, 4))

    def einsum_outer(a, b):
        return torch.einsum("i,j->ij", a, b)

    c.add("einsum_outer", einsum_outer, r(3), r(2))

    def einsum_dot(a, b):
        return torch.einsum("i,i->", a, b)

    c.add("einsum_dot", einsum_dot, r(4), r(4))

    def einsum_hadamard(a, b):
        return torch.einsum("ij,ij->ij", a, b)

    c.add("einsum_hadamard", einsum_hadamard, r(2, 3), r(2, 3))

    def einsum_sum_both(a, b):
        return torch.einsum("ij,kl->", a, b)

    c.add("einsum_sum_both", einsum_sum_both, r(2, 3), r(2, 2))

    def einsum_broadcast_one(a, b):
        return torch.einsum("ij,jk->ik", a, b)

    c.add("einsum_broadcast_one", einsum_broadcast_one, r(2, 1), r(3, 2))

    def einsum_transpose(a):
        return torch.einsum("ij->ji", a)

    c.add("einsum_transpose", einsum_transpose, r(2, 3))

    def einsum_trace(a):
        return torch.einsum("ii", a)

    c.add("einsum_trace", einsum_trace, r(3, 3))

    def einsum_diag(a):
        return torch.einsum("ii->i", a)

    c.add("einsum_diag", einsum_diag, r(3, 3))

    def einsum_rowsum(a):
        return torch.einsum("ij->i", a)

    c.add("einsum_rowsum", einsum_rowsum, r(2, 3))

    def einsum_total(a):
        return torch.einsum("ijk->", a)

    c.add("einsum_total", einsum_total, r(2, 3, 2))

    def einsum_batch_diag(a):
        return torch.einsum("bii->bi", a)

    c.add("einsum_batch_diag", einsum_batch_diag, r(2, 3, 3))

    def einsum_spaces(a, b):
        return torch.einsum("i j , j k -> i k", a, b)

    c.add("einsum_spaces", einsum_spaces, r(2, 3), r(3, 2))

    def einsum_three(a, b, c):
        return torch.einsum("ij,jk,kl->il", a, b, c)

    c.add("einsum_three", einsum_three, r(2, 3), r(3, 4), r(4, 2))

    def einsum_three_outer(a, b, c):
        return torch.einsum("i,j,k->ijk", a, b, c)

    c.add("einsum_three_outer", einsum_three_outer, r(2), r(3), r(2))

    def einsum_int64(a, b):
        return torch.einsum("ij,jk->ik", a, b)

    c.add("einsum_int64", einsum_int64, r(2, 3, dtype=torch.int64), r(3, 2, dtype=torch.int64))

    def einsum_float64(a, b):
        return torch.einsum("bij,bkj->bik", a, b)

    c.add("einsum_float64", einsum_float64, r(2, 2, 3, dtype=torch.float64), r(2, 4, 3, dtype=torch.float64))

    def einsum_noncontig(a, b):
        return torch.einsum("ij,jk->ik", a, b)

    c.add("einsum_noncontig", einsum_noncontig, r(3, 2).t(), r(3, 8)[:, ::2])

    def einsum_size_error(a, b):
        return torch.einsum("ij,jk", a, b)

    c.add("einsum_size_error", einsum_size_error, r(2, 3), r(4, 5))

    def einsum_output_error(a):
        return torch.einsum("ij->ik", a)

    c.add("einsum_output_error", einsum_output_error, r(2, 3))

    def einsum_dims_error(a):
        return torch.einsum("ijk->i", a)

    c.add("einsum_dims_error", einsum_dims_error, r(2, 3))

    def einsum_operands_error(a):
        return torch.einsum("ij,jk->ik", a)

    c.add("einsum_operands_error", einsum_operands_error, r(2, 3))

    def einsum_repeat_error(a):
        return torch.einsum("ii->i", a)

    c.add("einsum_repeat_error", einsum_repeat_error, r(2, 3))

    def einsum_dtype_error(a, b):
        return torch.einsum("ij,jk->ik", a, b)

    c.add("einsum_dtype_error", einsum_dtype_error, r(2, 3), r(3, 5, dtype=torch.float64))
