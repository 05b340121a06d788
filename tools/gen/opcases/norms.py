"""Norms beyond the vector norm: linalg_matrix_norm (every order), linalg_norm (numeric and
string orders, with and without dim), torch.norm scripted (all overloads it reaches),
frobenius_norm, nuclear_norm, linalg_svdvals, renorm, dist, the weight-norm operators
(_weight_norm, _weight_norm_interface, norm_except_dim) and diff, with PyTorch's messages."""

from typing import List, Optional

import torch


def r(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    return torch.randint(-3, 4, shape, dtype=dtype)


def matrix_norm_cases(c):
    def mnorm(x, ord: float, dim: List[int], keepdim: bool):
        return torch.linalg.matrix_norm(x, ord, dim, keepdim)

    def mnorm_str(x, ord: str, dim: List[int], keepdim: bool):
        return torch.linalg.matrix_norm(x, ord, dim, keepdim)

    def mnorm_dtype(x):
        return torch.linalg.matrix_norm(x, 1.0, dtype=torch.float64)

    x = r(3, 4, 5)
    for ord in [1.0, -1.0, 2.0, -2.0, float("inf"), float("-inf")]:
        tag = str(ord).replace("-", "neg").replace(".0", "")
        c.add(f"matrix_norm_{tag}", mnorm, x, ord, [-2, -1], False)
        c.add(f"matrix_norm_{tag}_keepdim", mnorm, x, ord, [0, 2], True)
    c.add("matrix_norm_fro", mnorm_str, x, "fro", [-2, -1], False)
    c.add("matrix_norm_fro_dims", mnorm_str, x, "fro", [2, 0], True)
    c.add("matrix_norm_nuc", mnorm_str, x, "nuc", [-2, -1], False)
    c.add("matrix_norm_nuc_keepdim", mnorm_str, x, "nuc", [1, 0], True)
    c.add("matrix_norm_wide", mnorm, r(2, 7), 2.0, [0, 1], False)
    c.add("matrix_norm_rank1", mnorm, torch.outer(torch.arange(1.0, 4.0), torch.arange(1.0, 5.0)), -2.0, [0, 1], False)
    c.add("matrix_norm_float64", mnorm, r(2, 3, 3, dtype=torch.float64), 2.0, [-2, -1], False)
    c.add("matrix_norm_nuc_float64", mnorm_str, r(4, 6, dtype=torch.float64), "nuc", [0, 1], False)
    c.add("matrix_norm_dtype", mnorm_dtype, x)
    c.add("matrix_norm_large", mnorm, r(4, 40, 30), 2.0, [-2, -1], False)
    c.add("matrix_norm_order_error", mnorm, x, 3.0, [-2, -1], False)
    c.add("matrix_norm_str_error", mnorm_str, x, "max", [-2, -1], False)
    c.add("matrix_norm_dim_error", mnorm, x, 1.0, [0], False)
    c.add("matrix_norm_same_dim_error", mnorm, x, 1.0, [0, -3], False)
    c.add("matrix_norm_vector_error", mnorm, r(5), 1.0, [-2, -1], False)
    c.add("matrix_norm_int_error", mnorm, r(3, 3, dtype=torch.int64), 1.0, [-2, -1], False)
    c.add("matrix_norm_half_svd_error", mnorm, r(3, 3, dtype=torch.float16), 2.0, [-2, -1], False)


def linalg_norm_cases(c):
    def lnorm(x, ord: Optional[float], dim: Optional[List[int]], keepdim: bool):
        return torch.linalg.norm(x, ord, dim, keepdim)

    def lnorm_str(x, ord: str, dim: Optional[List[int]], keepdim: bool):
        return torch.linalg.norm(x, ord, dim, keepdim)

    x = r(3, 4)
    c.add("linalg_norm", lnorm, x, None, None, False)
    c.add("linalg_norm_3d", lnorm, r(2, 3, 4), None, None, False)
    c.add("linalg_norm_matrix_ord", lnorm, x, 2.0, None, False)
    c.add("linalg_norm_matrix_inf", lnorm, x, float("inf"), None, True)
    c.add("linalg_norm_vector_ord", lnorm, r(5), 3.0, None, False)
    c.add("linalg_norm_dim1", lnorm, r(2, 3, 4), 1.0, [1], False)
    c.add("linalg_norm_dim2", lnorm, r(2, 3, 4), -1.0, [2, 0], True)
    c.add("linalg_norm_str", lnorm_str, x, "fro", None, False)
    c.add("linalg_norm_str_dims", lnorm_str, r(2, 3, 4), "nuc", [0, 2], False)
    c.add("linalg_norm_dim_len_error", lnorm, x, None, [0, 1, 2], False)
    c.add("linalg_norm_3d_ord_error", lnorm, r(2, 3, 4), 2.0, None, False)
    c.add("linalg_norm_str_3d_error", lnorm_str, r(2, 3, 4), "fro", None, False)


def torch_norm_cases(c):
    def norm_p(x, p: float):
        return torch.norm(x, p)

    def norm_dim(x, p: float, dim: List[int], keepdim: bool):
        return torch.norm(x, p, dim, keepdim)

    def norm_str(x, p: str, dim: Optional[List[int]], keepdim: bool):
        return torch.norm(x, p, dim, keepdim)

    def norm_default(x):
        return torch.norm(x), torch.norm(x, dim=1), torch.norm(x, dtype=torch.float64)

    x = r(3, 4)
    c.add("torch_norm_default", norm_default, x, inline=True)
    c.add("torch_norm_p", norm_p, x, 3.0, inline=True)
    c.add("torch_norm_inf", norm_p, x, float("inf"), inline=True)
    c.add("torch_norm_dim", norm_dim, r(2, 3, 4), 1.0, [1, 2], True, inline=True)
    c.add("torch_norm_fro", norm_str, x, "fro", None, False, inline=True)
    c.add("torch_norm_fro_dim", norm_str, r(2, 3, 4), "fro", [0, 2], False, inline=True)
    c.add("torch_norm_nuc", norm_str, x, "nuc", None, False, inline=True)
    c.add("torch_norm_nuc_dim", norm_str, r(2, 3, 4), "nuc", [2, 1], True, inline=True)
    c.add("torch_norm_str_error", norm_str, x, "max", None, False, inline=True)

    def aten_norm_overloads(x):
        return (torch.ops.aten.norm(x, 2), torch.ops.aten.norm(x, None, [1], False),
                torch.ops.aten.norm(x, 1.5, [0], True, dtype=torch.float64),
                torch.ops.aten.norm(x, None, dtype=torch.float64))

    c.add("aten_norm_overloads", aten_norm_overloads, x)

    def frob(x, dim: List[int], keepdim: bool):
        return torch.frobenius_norm(x, dim, keepdim)

    def nuc(x, keepdim: bool):
        return torch.nuclear_norm(x, keepdim)

    def nuc_dim(x, dim: List[int], keepdim: bool):
        return torch.nuclear_norm(x, dim, keepdim)

    def svdvals(x):
        return torch.linalg.svdvals(x)

    c.add("frobenius_norm", frob, r(2, 3, 4), [1, 2], False)
    c.add("frobenius_norm_one_dim", frob, r(2, 3, 4), [1], True)
    c.add("nuclear_norm", nuc, x, False)
    c.add("nuclear_norm_keepdim", nuc, x, True)
    c.add("nuclear_norm_dim", nuc_dim, r(2, 3, 4), [0, 2], False)
    c.add("nuclear_norm_error", nuc, r(2, 3, 4), False)
    c.add("svdvals", svdvals, r(3, 5))
    c.add("svdvals_batched", svdvals, r(2, 6, 4))
    c.add("svdvals_float64", svdvals, r(5, 5, dtype=torch.float64))
    c.add("svdvals_empty", svdvals, r(0, 3))
    c.add("svdvals_vector_error", svdvals, r(4))


def misc_cases(c):
    def renorm(x, p: float, dim: int, maxnorm: float):
        return torch.renorm(x, p, dim, maxnorm)

    def dist(a, b, p: float):
        return torch.dist(a, b, p)

    c.add("renorm", renorm, r(3, 4), 2.0, 0, 1.0)
    c.add("renorm_dim1", renorm, r(3, 4, 2) * 3, 1.0, 1, 2.5)
    c.add("renorm_inf", renorm, r(3, 4), float("inf"), -1, 0.5)
    c.add("renorm_large_max", renorm, r(3, 4), 2.0, 0, 100.0)
    c.add("renorm_p_error", renorm, r(3, 4), -1.0, 0, 1.0)
    c.add("renorm_max_error", renorm, r(3, 4), 2.0, 0, -1.0)
    c.add("renorm_int_error", renorm, r(3, 4, dtype=torch.int64), 2.0, 0, 1.0)
    c.add("dist", dist, r(3, 4), r(3, 4), 2.0)
    c.add("dist_broadcast", dist, r(3, 4), r(4), 1.0)
    c.add("dist_inf", dist, r(3, 4), r(3, 4), float("inf"))
    c.add("dist_zero", dist, r(3, 4), r(3, 4), 0.0)

    def weight_norm(v, g, dim: int):
        return torch._weight_norm(v, g, dim)

    def weight_norm_interface(v, g, dim: int):
        return torch._weight_norm_interface(v, g, dim)

    def norm_except_dim(v, pow: int, dim: int):
        return torch.norm_except_dim(v, pow, dim)

    v = r(4, 3, 2)
    c.add("weight_norm", weight_norm, v, r(4, 1, 1), 0)
    c.add("weight_norm_dim2", weight_norm, v, r(1, 1, 2), 2)
    c.add("weight_norm_last", weight_norm, v, r(1, 1, 2), -1)
    c.add("weight_norm_all", weight_norm, v, r(1, 1, 1), -1)
    c.add("weight_norm_interface", weight_norm_interface, v, r(4, 1, 1), 0)
    c.add("weight_norm_float64", weight_norm, r(3, 5, dtype=torch.float64), r(3, 1, dtype=torch.float64), 0)
    c.add("weight_norm_dim_error", weight_norm, v, r(4, 1, 1), 3)
    c.add("norm_except_dim", norm_except_dim, v, 2, 0)
    c.add("norm_except_dim_1", norm_except_dim, v, 2, 1)
    c.add("norm_except_dim_last", norm_except_dim, v, 3, 2)
    c.add("norm_except_dim_all", norm_except_dim, v, 2, -1)

    def diff(x, n: int, dim: int, pre: Optional[torch.Tensor], app: Optional[torch.Tensor]):
        return torch.diff(x, n, dim, pre, app)

    x = r(3, 5)
    c.add("diff", diff, x, 1, -1, None, None)
    c.add("diff_dim0", diff, x, 1, 0, None, None)
    c.add("diff_n2", diff, x, 2, 1, None, None)
    c.add("diff_n_large", diff, x, 7, 1, None, None)
    c.add("diff_prepend", diff, x, 1, 1, r(3, 2), r(3, 1))
    c.add("diff_int", diff, r(6, dtype=torch.int64), 1, 0, None, None)
    c.add("diff_bool", diff, r(6) > 0, 1, 0, None, None)
    c.add("diff_bool_n2", diff, r(6) > 0, 2, 0, None, None)
    c.add("diff_uint8", diff, torch.tensor([3, 1, 200], dtype=torch.uint8), 1, 0, None, None)
    c.add("diff_n0", diff, x, 0, 0, None, None)
    c.add("diff_scalar_error", diff, torch.tensor(1.0), 1, 0, None, None)
    c.add("diff_negative_error", diff, x, -1, 0, None, None)
    c.add("diff_prepend_error", diff, x, 1, 1, r(2, 2), None)


def cases(c):
    matrix_norm_cases(c)
    linalg_norm_cases(c)
    torch_norm_cases(c)
    misc_cases(c)
