"""Indexing: advanced indexing reads and writes (integer tensors, masks, None, ellipsis),
index_select, masked_select, gather, scatter, take, nonzero, where(cond), copy_, fill_."""

import torch


def t(*shape, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    x = torch.arange(n, dtype=torch.float64).reshape(shape) - n // 3
    if dtype == torch.bool:
        return (x.long() % 3) == 0
    return x.to(dtype)


def li(*v):
    return torch.tensor(v, dtype=torch.int64)


def cases(c):
    # --- aten::index --------------------------------------------------------------------
    def idx1(x, i):
        return x[i]

    c.add("index_1d", idx1, t(5), li(4, 0, -1, 2))
    c.add("index_rows", idx1, t(4, 3), li(3, 1))
    c.add("index_2d_index", idx1, t(4, 3), torch.tensor([[0, 1], [3, -4]]))
    c.add("index_int32", idx1, t(4), torch.tensor([1, 3], dtype=torch.int32))
    c.add("index_empty_index", idx1, t(4, 3), li())
    c.add("index_out_of_bounds", idx1, t(3), li(5))
    c.add("index_negative_out_of_bounds", idx1, t(3), li(-4))
    c.add("index_mask", idx1, t(2, 3), t(2, 3, dtype=torch.bool))
    c.add("index_mask_rows", idx1, t(3, 2), torch.tensor([True, False, True]))
    c.add("index_mask_shape_error", idx1, t(3, 2), torch.tensor([True, False]))
    c.add("index_uint8_mask", idx1, t(3), torch.tensor([1, 0, 1], dtype=torch.uint8))
    c.add("index_float_error", idx1, t(3), torch.tensor([1.0]))
    c.add("index_empty_dim", idx1, t(0, 3), li(0))
    c.add("index_empty_dim_empty_index", idx1, t(0, 3), li())
    for d in [torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int8, torch.uint8, torch.bool]:
        c.add(f"index_src_{str(d)[6:]}", idx1, t(4, dtype=d), li(3, 0, 0))

    def idx_cols(x, i):
        return x[:, i]

    c.add("index_cols", idx_cols, t(3, 4), li(3, 0))
    c.add("index_cols_out_of_bounds", idx_cols, t(3, 4), li(4))

    def idx_two(x, i, j):
        return x[i, j]

    c.add("index_two_broadcast", idx_two, t(3, 4), li(0, 2).reshape(2, 1), li(1, 3, 0))
    c.add("index_two_mismatch", idx_two, t(3, 4), li(0, 2), li(1, 3, 0))

    def idx_sep(x, i, j):
        return x[i, :, j]

    c.add("index_separated_to_front", idx_sep, t(2, 3, 4), li(1, 0), li(3, -4))

    def idx_mid(x, i, j):
        return x[:, i, j]

    c.add("index_adjacent_mid", idx_mid, t(2, 3, 4), li(1, 2), li(0, 3))

    def idx_ellipsis(x, i):
        return x[i, ..., 1]

    c.add("index_ellipsis", idx_ellipsis, t(2, 3, 4), li(2, 0))

    def idx_none(x, i):
        return x[None, i, None]

    c.add("index_with_none", idx_none, t(3, 2), li(1, 2))

    def idx_noncontig(x, i):
        return x.t()[i]

    c.add("index_noncontiguous", idx_noncontig, t(3, 4), li(1, 3))

    def idx_too_many(x, i):
        return x[i, i, i]

    c.add("index_too_many", idx_too_many, t(3, 2), li(0))

    def idx_mask_sep(x, m, i):
        return x[m, :, i]

    c.add("index_mask_and_int", idx_mask_sep, t(2, 3, 4), torch.tensor([True, True]), li(0, 3))

    # --- index_put / index_put_ ---------------------------------------------------------
    def setitem(x, i, v):
        x[i] = v
        return x

    c.add("setitem_index", setitem, t(5), li(4, 0), torch.tensor([10.0, 20.0]))
    c.add("setitem_broadcast_value", setitem, t(3, 2), li(2, 0), torch.tensor([7.0, 8.0]))
    c.add("setitem_mask", setitem, t(2, 3), t(2, 3, dtype=torch.bool), torch.tensor(5.0))
    c.add("setitem_shape_mismatch", setitem, t(5), li(4, 0), torch.tensor([1.0, 2.0, 3.0]))
    c.add("setitem_out_of_bounds", setitem, t(5), li(5), torch.tensor(1.0))
    c.add("setitem_dtype_mismatch", setitem, t(5), li(1), torch.tensor([1.0], dtype=torch.float64))

    def setitem_scalar(x, i, v: float):
        x[i] = v
        return x

    c.add("setitem_scalar", setitem_scalar, t(2, 3, dtype=torch.int64), li(1), 2.7)

    def setitem_view(x, i):
        y = x[:, 1:]
        y[i] = 0.0
        return x

    c.add("setitem_through_view", setitem_view, t(3, 3), li(2, 0))

    def index_put_acc(x, i, v, acc: bool):
        return x.index_put_([i], v, acc)

    c.add("index_put_accumulate", index_put_acc, t(4), li(0, 2, 0, 0), torch.tensor([1.0, 2.0, 3.0, 4.0]), True)
    c.add("index_put_no_accumulate", index_put_acc, t(4), li(1, 2), torch.tensor([1.0, 2.0]), False)

    def index_put_two(x, i, j, v):
        return torch.index_put(x, [i, j], v)

    c.add("index_put_out_of_place", index_put_two, t(3, 4), li(0, 2), li(3, 1), torch.tensor(9.0))

    def index_put_none(x, i, v):
        return x.index_put_([None, i], v)

    c.add("index_put_none_first", index_put_none, t(3, 4), li(3, 1), torch.tensor([[1.0, 2.0]]))

    # --- index_select / masked_select / take / nonzero / where ----------------------------
    def index_select(x, d: int, i):
        return torch.index_select(x, d, i)

    c.add("index_select", index_select, t(3, 4), 1, li(3, 0, 3))
    c.add("index_select_dim0", index_select, t(3, 4), -2, li(2))
    c.add("index_select_scalar_index", index_select, t(3, 4), 0, torch.tensor(1))
    c.add("index_select_int32", index_select, t(3, 4), 0, torch.tensor([2, 1], dtype=torch.int32))
    c.add("index_select_oob", index_select, t(3, 4), 0, li(3))
    c.add("index_select_neg", index_select, t(3, 4), 0, li(-1))
    c.add("index_select_2d_index", index_select, t(3, 4), 0, li(0, 1).reshape(1, 2))
    c.add("index_select_float_index", index_select, t(3, 4), 0, torch.tensor([0.0]))
    c.add("index_select_empty", index_select, t(3, 4), 1, li())

    def index_select_nc(x, i):
        return torch.index_select(x.t(), 0, i)

    c.add("index_select_noncontiguous", index_select_nc, t(3, 4), li(1, 3))

    def masked_select(x, m):
        return torch.masked_select(x, m)

    c.add("masked_select", masked_select, t(2, 3), t(2, 3, dtype=torch.bool))
    c.add("masked_select_broadcast", masked_select, t(2, 3), torch.tensor([True, False, True]))
    c.add("masked_select_not_bool", masked_select, t(2, 3), torch.tensor([1, 0, 1], dtype=torch.uint8))
    c.add("masked_select_bad_shape", masked_select, t(2, 3), torch.tensor([True, False]))

    def take(x, i):
        return torch.take(x, i)

    c.add("take", take, t(2, 3), torch.tensor([[0, 5], [-1, 2]]))
    c.add("take_oob", take, t(2, 3), li(6))
    c.add("take_int32", take, t(2, 3), torch.tensor([0], dtype=torch.int32))

    def take_nc(x, i):
        return torch.take(x.t(), i)

    c.add("take_noncontiguous", take_nc, t(2, 3), li(0, 1, 2))

    def nonzero(x):
        return torch.nonzero(x)

    c.add("nonzero", nonzero, torch.tensor([[0.0, 1.5], [float("nan"), 0.0]]))
    c.add("nonzero_int", nonzero, torch.tensor([0, 3, 0, -1]))
    c.add("nonzero_0d", nonzero, torch.tensor(2.0))
    c.add("nonzero_empty", nonzero, torch.zeros(0, 2))

    def argwhere(x):
        return torch.argwhere(x)

    c.add("argwhere", argwhere, t(2, 3, dtype=torch.bool))

    def where1(x):
        return torch.where(x)

    c.add("where_cond", where1, t(2, 3, dtype=torch.bool))
    c.add("where_cond_float", where1, torch.tensor([0.0, 2.0, -1.0]))

    # --- gather / scatter -------------------------------------------------------------------
    def gather(x, d: int, i):
        return torch.gather(x, d, i)

    c.add("gather", gather, t(3, 4), 1, torch.tensor([[0, 3], [1, 1], [2, 0]]))
    c.add("gather_dim0", gather, t(3, 4), 0, torch.tensor([[2, 0, 1, 1]]))
    c.add("gather_neg_dim", gather, t(3, 4), -1, torch.tensor([[3], [2], [1]]))
    c.add("gather_oob", gather, t(3, 4), 1, torch.tensor([[4]]))
    c.add("gather_negative_index", gather, t(3, 4), 1, torch.tensor([[-1]]))
    c.add("gather_int32_index", gather, t(3, 4), 1, torch.tensor([[0]], dtype=torch.int32))
    c.add("gather_too_big", gather, t(3, 4), 1, torch.zeros(4, 1, dtype=torch.int64))
    c.add("gather_ndim", gather, t(3, 4), 1, li(0))

    def gather_nc(x, i):
        return torch.gather(x.t(), 0, i)

    c.add("gather_noncontiguous", gather_nc, t(3, 4), torch.tensor([[2, 0, 1]]))

    def scatter(x, d: int, i, s):
        return torch.scatter(x, d, i, s)

    c.add("scatter", scatter, t(3, 4), 1, torch.tensor([[0, 3], [1, 1], [2, 0]]), t(3, 2) * 10)
    c.add("scatter_dim0", scatter, t(3, 4), 0, torch.tensor([[2, 0, 1, 1]]), t(1, 4) * 10)
    c.add("scatter_oob", scatter, t(3, 4), 1, torch.tensor([[4]]), t(1, 1))
    c.add("scatter_dtype_mismatch", scatter, t(3, 4), 1, torch.tensor([[0]]), t(1, 1, dtype=torch.float64))
    c.add("scatter_too_big", scatter, t(3, 4), 1, torch.zeros(4, 1, dtype=torch.int64), t(4, 1))
    c.add("scatter_src_too_small", scatter, t(3, 4), 1, torch.zeros(2, 2, dtype=torch.int64), t(2, 1))

    def scatter_value(x, d: int, i, v: float):
        return torch.scatter(x, d, i, v)

    c.add("scatter_value", scatter_value, t(3, 4), 0, torch.tensor([[2, 0]]), -1.5)

    def reduce_add(x, i, s):
        return x.scatter_(1, i, s, reduce="add")

    def reduce_multiply(x, i, s):
        return x.scatter_(1, i, s, reduce="multiply")

    def reduce_max(x, i, s):
        return x.scatter_(1, i, s, reduce="max")

    c.add("scatter_reduce_add", reduce_add, t(2, 3), torch.tensor([[0, 0, 2]]), t(1, 3))
    c.add("scatter_reduce_multiply", reduce_multiply, t(2, 3), torch.tensor([[0, 0, 2]]), t(1, 3))
    c.add("scatter_reduce_bad", reduce_max, t(2, 3), torch.tensor([[0]]), t(1, 3))
    c.add("scatter_int32_index", scatter, t(3, 4), 1, torch.tensor([[0]], dtype=torch.int32), t(1, 1))

    def scatter_add(x, i, s):
        return torch.scatter_add(x, 0, i, s)

    c.add("scatter_add", scatter_add, t(3, 2), torch.tensor([[0, 1], [0, 2], [0, 0]]), t(3, 2))

    def scatter_add_(x, i, s):
        x.scatter_add_(1, i, s)
        return x

    c.add("scatter_add_inplace", scatter_add_, t(2, 3, dtype=torch.int64), torch.tensor([[1, 1], [0, 2]]), t(2, 2, dtype=torch.int64))

    def sr_sum(x, i, s, inc: bool):
        return torch.scatter_reduce(x, 0, i, s, "sum", include_self=inc)

    def sr_prod(x, i, s, inc: bool):
        return torch.scatter_reduce(x, 0, i, s, "prod", include_self=inc)

    def sr_mean(x, i, s, inc: bool):
        return torch.scatter_reduce(x, 0, i, s, "mean", include_self=inc)

    def sr_amax(x, i, s, inc: bool):
        return torch.scatter_reduce(x, 0, i, s, "amax", include_self=inc)

    def sr_amin(x, i, s, inc: bool):
        return torch.scatter_reduce(x, 0, i, s, "amin", include_self=inc)

    def sr_bad(x, i, s, inc: bool):
        return torch.scatter_reduce(x, 0, i, s, "max", include_self=inc)

    reducers = {"sum": sr_sum, "prod": sr_prod, "mean": sr_mean, "amax": sr_amax, "amin": sr_amin}
    for r, fn in reducers.items():
        for inc in [True, False]:
            c.add(f"scatter_reduce_{r}_{'self' if inc else 'noself'}", fn, t(3, 2), torch.tensor([[0, 1], [0, 2], [0, 0]]), t(3, 2) + 2, inc)
    c.add("scatter_reduce_mean_int", sr_mean, t(3, 2, dtype=torch.int64), torch.tensor([[0, 1], [0, 2], [0, 0]]), t(3, 2, dtype=torch.int64), True)
    c.add("scatter_reduce_two_bad", sr_bad, t(3, 2), torch.tensor([[0]]), t(3, 2), True)

    # --- copy_ / fill_ / zero_ / index_fill --------------------------------------------------
    def copy_(x, y):
        x.copy_(y)
        return x

    c.add("copy_broadcast", copy_, t(2, 3), t(3))
    c.add("copy_convert", copy_, t(2, 3, dtype=torch.int32), torch.tensor([1.7, -2.7, 3.5]))
    c.add("copy_to_bool", copy_, t(3, dtype=torch.bool), torch.tensor([0.0, 0.5, -2.0]))
    c.add("copy_bad_shape", copy_, t(3), t(2, 3))

    def copy_view(x):
        x[:, 0].copy_(x[:, 1])
        x.t()[0].copy_(torch.tensor([5.0, 6.0]))
        return x

    c.add("copy_through_views", copy_view, t(2, 3))

    def copy_expanded(x, y):
        x.expand(2, 3).copy_(y)
        return x

    c.add("copy_into_expanded", copy_expanded, t(3), t(2, 3))

    # Writes into an expanded view (elements sharing memory) are refused.
    def scatter_expanded(x, i):
        return x.expand(2, 3).scatter_(1, i, 5.0)

    def scatter_add_expanded(x, i):
        return x.expand(2, 3).scatter_add_(1, i, torch.ones(2, 1))

    def scatter_reduce_expanded(x, i):
        return x.expand(2, 3).scatter_reduce_(1, i, torch.ones(2, 1), "sum")

    def index_add_expanded(x, i):
        return x.expand(2, 3).index_add_(1, i[0], torch.ones(2, 1))

    def index_copy_expanded(x, i):
        return x.expand(2, 3).index_copy_(1, i[0], torch.ones(2, 1))

    def masked_scatter_expanded(x, m):
        return x.expand(2, 3).masked_scatter_(m, torch.ones(6))

    column = torch.tensor([[0], [1]])
    c.add("scatter_into_expanded", scatter_expanded, t(3), column)
    c.add("scatter_add_into_expanded", scatter_add_expanded, t(3), column)
    c.add("scatter_reduce_into_expanded", scatter_reduce_expanded, t(3), column)
    c.add("index_add_into_expanded", index_add_expanded, t(3), column)
    c.add("index_copy_into_expanded", index_copy_expanded, t(3), column)
    c.add("masked_scatter_into_expanded", masked_scatter_expanded, t(3), torch.ones(2, 3, dtype=torch.bool))

    def copy_overlap(x):
        x.copy_(x.t())
        return x

    c.add("copy_overlap", copy_overlap, t(3, 3))

    def fill(x, v: float):
        x[1:].fill_(v)
        return x

    c.add("fill_float", fill, t(3, 2), 2.5)
    c.add("fill_int_tensor", fill, t(3, 2, dtype=torch.int64), -2.5)

    def fill_t(x, v):
        return x.fill_(v)

    c.add("fill_tensor_value", fill_t, t(3), torch.tensor(4))
    c.add("fill_tensor_value_bad", fill_t, t(3), torch.tensor([4]))

    def zero(x):
        x.t()[1].zero_()
        return x

    c.add("zero_through_view", zero, t(2, 3))

    def index_fill(x, i, v: float):
        return x.index_fill(1, i, v)

    c.add("index_fill", index_fill, t(2, 3), li(0, 2), -1.0)

    # --- every dtype, out= forms, zero-size ---------------------------------------------------
    dtypes = [torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool]

    def many(x, i, m):
        return (
            x[i],
            torch.index_select(x, 0, i),
            torch.gather(x, 0, i),
            torch.masked_select(x, m),
            torch.take(x, i),
            torch.nonzero(x),
            x.index_put([i], x[:2], True) if x.dtype != torch.bool else x.index_put([i], x[:2]),
            torch.scatter(x, 0, i, x),
        )

    for d in dtypes:
        c.add(f"many_{str(d)[6:]}", many, t(4, dtype=d), li(3, 1), torch.tensor([True, False, True, True]))

    def outs(x, i, o):
        torch.index_select(x, 1, i, out=o)
        return o

    c.add("index_select_out", outs, t(2, 3), li(2, 0), torch.zeros(0))

    def gather_out(x, i, o):
        return torch.gather(x, 1, i, out=o)

    c.add("gather_out_resized", gather_out, t(2, 3), torch.tensor([[2], [0]]), torch.zeros(5))

    def masked_out(x, m, o):
        return torch.masked_select(x, m, out=o)

    c.add("masked_select_out", masked_out, t(2, 2), torch.tensor([True, False]), torch.zeros(0))

    def zero_size(x, i):
        return x[i], torch.index_select(x, 1, i), torch.gather(x, 0, torch.zeros(0, 0, dtype=torch.int64)), torch.nonzero(x)

    c.add("zero_size", zero_size, torch.zeros(0, 3), li())

    # --- index_add / index_copy / masked_scatter / *_scatter ----------------------------------
    def index_add(x, i, s, a: float):
        return x.index_add(0, i, s, alpha=a)

    c.add("index_add", index_add, t(3, 2), li(0, 2, 0), t(3, 2) * 10, 0.5)
    c.add("index_add_bad_count", index_add, t(3, 2), li(0), t(3, 2), 1.0)
    c.add("index_add_oob", index_add, t(3, 2), li(3, 0, 0), t(3, 2), 1.0)

    def index_add_(x, i, s):
        x.index_add_(1, i, s)
        return x

    c.add("index_add_inplace_int", index_add_, t(2, 3, dtype=torch.int64), li(2, 2), t(2, 2, dtype=torch.int64))

    def index_copy(x, i, s):
        return x.index_copy(0, i, s)

    c.add("index_copy", index_copy, t(3, 2), li(2, 0), t(2, 2) * 10)

    def masked_scatter(x, m, s):
        return x.masked_scatter(m, s)

    c.add("masked_scatter", masked_scatter, t(2, 3), t(2, 3, dtype=torch.bool), t(6) * 10)
    c.add("masked_scatter_broadcast", masked_scatter, t(2, 3), torch.tensor([True, False, True]), t(6) * 10)
    c.add("masked_scatter_short_source", masked_scatter, t(2, 3), torch.ones(2, 3, dtype=torch.bool), t(2))

    def select_scatter(x, s):
        return torch.select_scatter(x, s, 1, -1)

    c.add("select_scatter", select_scatter, t(2, 3), torch.tensor([9.0, 8.0]))
    c.add("select_scatter_bad", select_scatter, t(2, 3), torch.tensor([9.0, 8.0, 7.0]))

    def slice_scatter(x, s):
        return torch.slice_scatter(x, s, 1, 0, None, 2)

    c.add("slice_scatter", slice_scatter, t(2, 4), torch.zeros(2, 2))

    def narrow_copy(x):
        return x.narrow_copy(1, 1, 2)

    c.add("narrow_copy", narrow_copy, t(2, 4))

    # --- writes that overlap their inputs ------------------------------------------------------
    def overlap_index_put(x):
        return x.index_put_([torch.tensor([3, 4])], x[:2])

    c.add("overlap_index_put", overlap_index_put, t(5))

    def overlap_index_add(x):
        return x.index_add_(0, torch.tensor([3, 4]), x[:2])

    c.add("overlap_index_add", overlap_index_add, t(5))

    def overlap_index_copy(x):
        return x.index_copy_(0, torch.tensor([3, 4]), x[:2])

    c.add("overlap_index_copy", overlap_index_copy, t(5))

    def overlap_gather_out(x):
        return torch.gather(x, 0, torch.tensor([1]), out=x[:1])

    c.add("overlap_gather_out", overlap_gather_out, t(5))

    def overlap_masked_scatter(x, m):
        return x.masked_scatter_(m, x)

    c.add("overlap_masked_scatter_allowed", overlap_masked_scatter, t(5), torch.tensor([False, True, False, True, True]))
