"""Shape operators: views (and writes through them), joins, splits, repeats, reorders,
queries and conversions."""

from typing import List, Optional

import torch

DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
]


def t(*shape, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    x = torch.arange(n, dtype=torch.float64).reshape(shape) - n // 3
    if dtype == torch.bool:
        return (x.long() % 3) == 0
    if dtype == torch.uint8:
        return (x + n).to(dtype)
    return x.to(dtype)


def cases(c):
    # --- view / reshape / flatten / unflatten ---------------------------------------------
    def view(x, s: List[int]):
        return x.view(s)

    c.add("view", view, t(2, 3), [3, 2])
    c.add("view_infer", view, t(2, 3, 4), [-1, 4])
    c.add("view_zero_size", view, t(0, 3), [3, -1, 0])
    c.add("view_bad_numel", view, t(2, 3), [4, 2])
    c.add("view_two_infer", view, t(2, 3), [-1, -1])

    def view_t(x, s: List[int]):
        return x.t().view(s)

    c.add("view_noncontiguous_error", view_t, t(2, 3), [6])

    def reshape_t(x, s: List[int]):
        return x.t().reshape(s)

    c.add("reshape_noncontiguous", reshape_t, t(2, 3), [6])
    for d in DTYPES:
        c.add(f"reshape_{str(d)[6:]}", reshape_t, t(2, 3, dtype=d), [3, 2])

    def view_write(x):
        y = x.view([6])
        y[1] = 100.0
        return y

    c.add("view_write_through", view_write, t(2, 3))

    def view_as(x, y):
        return x.view_as(y), x.reshape_as(y)

    c.add("view_as", view_as, t(2, 3), t(3, 2))

    def flatten(x, s: int, e: int):
        return torch.flatten(x, s, e)

    c.add("flatten", flatten, t(2, 3, 4), 0, -1)
    c.add("flatten_mid", flatten, t(2, 3, 4, 1), 1, 2)
    c.add("flatten_same", flatten, t(2, 3), 1, 1)
    c.add("flatten_0d", flatten, torch.tensor(3.0), 0, -1)
    c.add("flatten_bad", flatten, t(2, 3, 4), 2, 1)

    def unflatten(x, d: int, s: List[int]):
        return x.unflatten(d, s)

    c.add("unflatten", unflatten, t(2, 12), 1, [3, 4])
    c.add("unflatten_infer", unflatten, t(2, 12), -1, [2, -1, 3])
    c.add("unflatten_bad", unflatten, t(2, 12), 1, [5, 2])

    def ravel(x):
        return x.t().ravel()

    c.add("ravel", ravel, t(2, 3))

    # --- permute / transpose / t / movedim -----------------------------------------------
    def permute(x, d: List[int]):
        return x.permute(d).contiguous()

    c.add("permute", permute, t(2, 3, 4), [2, 0, 1])
    c.add("permute_neg", permute, t(2, 3, 4), [-1, -3, 1])
    c.add("permute_dup", permute, t(2, 3, 4), [0, 0, 1])
    c.add("permute_len", permute, t(2, 3, 4), [0, 1])

    def transpose(x, a: int, b: int):
        return x.transpose(a, b)

    c.add("transpose", transpose, t(2, 3, 4), 0, 2)
    c.add("transpose_neg", transpose, t(2, 3, 4), -1, -2)
    c.add("transpose_bad", transpose, t(2, 3), 0, 2)

    def tt(x):
        return x.t()

    c.add("t_2d", tt, t(2, 3))
    c.add("t_1d", tt, t(3))
    c.add("t_3d_error", tt, t(2, 3, 4))

    def swap(x):
        return torch.swapaxes(x, 0, 1), torch.swapdims(x, 2, 0)

    c.add("swapaxes", swap, t(2, 3, 4))

    def movedim(x, s: int, d: int):
        return torch.movedim(x, s, d)

    c.add("movedim", movedim, t(2, 3, 4), 0, -1)

    def movedim_list(x, s: List[int], d: List[int]):
        return torch.movedim(x, s, d)

    c.add("movedim_list", movedim_list, t(2, 3, 4, 5), [0, 3], [2, 0])
    c.add("movedim_len_error", movedim_list, t(2, 3, 4), [0, 1], [0])
    c.add("movedim_repeat_error", movedim_list, t(2, 3, 4), [0, 0], [1, 2])

    # --- squeeze / unsqueeze / in-place metadata -------------------------------------------
    def squeeze(x):
        return x.squeeze()

    c.add("squeeze_all", squeeze, t(1, 3, 1, 2))

    def squeeze_dim(x, d: int):
        return x.squeeze(d)

    c.add("squeeze_dim", squeeze_dim, t(1, 3, 1), -1)
    c.add("squeeze_dim_not_one", squeeze_dim, t(1, 3, 1), 1)
    c.add("squeeze_dim_bad", squeeze_dim, t(1, 3), 2)

    def squeeze_dims(x, d: List[int]):
        return x.squeeze(d)

    c.add("squeeze_dims", squeeze_dims, t(1, 3, 1, 1), [0, 2])

    def unsqueeze(x, d: int):
        return x.unsqueeze(d)

    c.add("unsqueeze", unsqueeze, t(2, 3), 1)
    c.add("unsqueeze_end", unsqueeze, t(2, 3), -1)
    c.add("unsqueeze_0d", unsqueeze, torch.tensor(2.0), 0)
    c.add("unsqueeze_bad", unsqueeze, t(2, 3), 3)

    def inplace_meta(x):
        y = x
        x.unsqueeze_(0)
        x.transpose_(1, 2)
        z = x.squeeze_(0)
        return y.size(), y.contiguous(), z.size()

    c.add("inplace_metadata", inplace_meta, t(2, 3))

    def inplace_t(x):
        x.t_()
        return x.contiguous()

    c.add("inplace_t", inplace_t, t(2, 3))

    def inplace_squeeze_dim(x):
        x.squeeze_(1)
        return x.size()

    c.add("inplace_squeeze_dim", inplace_squeeze_dim, t(2, 1, 3))

    # --- expand ---------------------------------------------------------------------------
    def expand(x, s: List[int]):
        return x.expand(s).contiguous()

    c.add("expand", expand, t(3, 1), [2, 3, 4])
    c.add("expand_keep", expand, t(3, 1), [-1, 2])
    c.add("expand_bad", expand, t(3, 2), [3, 4])
    c.add("expand_too_few", expand, t(3, 1), [2])
    c.add("expand_long_too_few", expand, t(3, 1, dtype=torch.int64), [2])

    def expand_as(x, y):
        return x.expand_as(y).contiguous()

    c.add("expand_as", expand_as, t(1, 3), t(2, 3))

    def broadcast_tensors(x, y):
        a, b = torch.broadcast_tensors(x, y)
        return a.contiguous(), b.contiguous()

    c.add("broadcast_tensors", broadcast_tensors, t(3, 1), t(4))

    # --- select / slice / narrow / diagonal / unfold ----------------------------------------
    def select(x, d: int, i: int):
        return x.select(d, i)

    c.add("select", select, t(3, 4), 1, -1)
    c.add("select_bad", select, t(3, 4), 0, 5)
    c.add("select_0d", select, torch.tensor(1.0), 0, 0)

    def slicing(x):
        return x[1:], x[:, ::2], x[-2:, 1:-1], x[5:], x[:, 1:2:3]

    c.add("slice_forms", slicing, t(4, 5))

    def slice_step0(x, s: int):
        return x[::s]

    c.add("slice_step_zero", slice_step0, t(4), 0)

    def narrow(x, d: int, s: int, n: int):
        return x.narrow(d, s, n)

    c.add("narrow", narrow, t(4, 5), 1, 1, 3)
    c.add("narrow_neg", narrow, t(4, 5), 0, -2, 2)
    c.add("narrow_bad", narrow, t(4, 5), 0, 3, 2)

    def narrow_tensor(x, s):
        return x.narrow(0, s, 2)

    c.add("narrow_tensor_start", narrow_tensor, t(4, 2), torch.tensor(1))

    def diagonal(x, o: int, a: int, b: int):
        return torch.diagonal(x, o, a, b).contiguous()

    c.add("diagonal", diagonal, t(3, 4), 0, 0, 1)
    c.add("diagonal_offset", diagonal, t(3, 4), 1, 0, 1)
    c.add("diagonal_neg", diagonal, t(3, 4), -2, 0, 1)
    c.add("diagonal_3d", diagonal, t(2, 3, 4), 0, -1, 0)
    c.add("diagonal_far", diagonal, t(3, 4), 7, 0, 1)

    def unfold(x, d: int, s: int, st: int):
        return x.unfold(d, s, st).contiguous()

    c.add("unfold", unfold, t(2, 7), 1, 3, 2)

    def getitem(x, i: int):
        return x[i, 1:, None, ..., ::2]

    c.add("getitem_mixed", getitem, t(3, 4, 5), -1)

    def setitem_slice(x, v: float):
        x[1:, ::2] = v
        x[0] = x[2]
        return x

    c.add("setitem_slice", setitem_slice, t(3, 4), 7.5)

    # --- cat / stack / hstack / vstack ----------------------------------------------------
    def cat(xs: List[torch.Tensor], d: int):
        return torch.cat(xs, d)

    c.add("cat", cat, [t(2, 3), t(1, 3)], 0)
    c.add("cat_dim1", cat, [t(2, 3), t(2, 1), t(2, 0)], -1)
    c.add("cat_promote", cat, [t(2, dtype=torch.int32), t(1, dtype=torch.float16), t(1, dtype=torch.int64)], 0)
    c.add("cat_legacy_empty", cat, [t(0), t(2, 3)], 1)
    c.add("cat_mismatch", cat, [t(2, 2), t(3, 2)], 1)
    c.add("cat_ndim", cat, [t(2, 2), t(2)], 0)
    c.add("cat_zero_dim", cat, [t(2), torch.tensor(1.0)], 0)
    c.add("cat_empty_list", cat, [], 0)
    c.add("cat_bad_dim", cat, [t(2, 2)], 2)
    for d in DTYPES:
        c.add(f"cat_{str(d)[6:]}", cat, [t(2, dtype=d), t(3, dtype=d)], 0)

    def cat_nc(x, y):
        return torch.cat([x.t(), y[:, ::2]], 1)

    c.add("cat_noncontiguous", cat_nc, t(3, 2), t(2, 6))

    def cat_out(x, y, out):
        torch.cat([x, y], 0, out=out)
        return out

    c.add("cat_out", cat_out, t(2), t(3), torch.zeros(0))

    def concat(x, y):
        return torch.concat([x, y], 1), torch.concatenate([x, y])

    c.add("concat", concat, t(2, 2), t(2, 2))

    def stack(xs: List[torch.Tensor], d: int):
        return torch.stack(xs, d)

    c.add("stack", stack, [t(2, 3), t(2, 3)], 0)
    c.add("stack_last", stack, [t(2, 3), t(2, 3), t(2, 3)], -1)
    c.add("stack_mid", stack, [t(2, 3), t(2, 3)], 1)
    c.add("stack_unequal", stack, [t(2, 3), t(3, 2)], 0)
    c.add("stack_empty", stack, [], 0)
    c.add("stack_bad_dim", stack, [t(2, 3)], 3)

    def hvstack(x, y):
        return torch.hstack([x, y]), torch.vstack([x, y])

    c.add("hvstack_1d", hvstack, t(3), t(3))
    c.add("hvstack_2d", hvstack, t(2, 2), t(2, 2))

    def dcstack(x, y):
        return torch.dstack([x, y]), torch.column_stack([x, y])

    c.add("dstack_column_stack", dcstack, t(3), t(3))

    # --- chunk / split / tensor_split / unbind ---------------------------------------------
    def chunk(x, n: int, d: int):
        return x.chunk(n, d)

    c.add("chunk", chunk, t(5, 2), 2, 0)
    c.add("chunk_more_than_size", chunk, t(3, 2), 5, 0)
    c.add("chunk_dim1", chunk, t(2, 6), 3, -1)
    c.add("chunk_empty", chunk, t(0, 2), 3, 0)
    c.add("chunk_zero", chunk, t(3), 0, 0)
    c.add("chunk_0d", chunk, torch.tensor(1.0), 1, 0)

    def chunk_unpack(x):
        a, b = x.chunk(2, 1)
        return a.contiguous(), b

    c.add("chunk_unpack", chunk_unpack, t(2, 4))

    def split(x, s: int, d: int):
        return torch.split(x, s, d)

    c.add("split", split, t(5, 2), 2, 0)
    c.add("split_big", split, t(5, 2), 7, 0)
    c.add("split_zero", split, t(5, 2), 0, 0)
    c.add("split_neg", split, t(5, 2), -1, 0)

    def split_sizes(x, s: List[int], d: int):
        return torch.split(x, s, d)

    c.add("split_sizes", split_sizes, t(5, 2), [2, 0, 3], 0)
    c.add("split_sizes_bad_sum", split_sizes, t(5, 2), [2, 2], 0)
    c.add("split_sizes_negative", split_sizes, t(5, 2), [6, -1], 0)

    def split_with_sizes(x, s: List[int]):
        return x.split_with_sizes(s, 1)

    c.add("split_with_sizes", split_with_sizes, t(2, 5), [1, 4])

    def tensor_split(x, n: int, d: int):
        return torch.tensor_split(x, n, d)

    c.add("tensor_split_sections", tensor_split, t(7, 2), 3, 0)
    c.add("tensor_split_sections_bad", tensor_split, t(7), 0, 0)

    def tensor_split_idx(x, i: List[int], d: int):
        return torch.tensor_split(x, i, d)

    c.add("tensor_split_indices", tensor_split_idx, t(2, 7), [1, 5, 3, 9], 1)

    def tensor_split_t(x, i):
        return torch.tensor_split(x, i)

    c.add("tensor_split_tensor", tensor_split_t, t(6), torch.tensor([2, 4]))
    c.add("tensor_split_tensor_sections", tensor_split_t, t(6), torch.tensor(4))

    def unbind(x, d: int):
        return x.unbind(d)

    c.add("unbind", unbind, t(2, 3), 1)
    c.add("unbind_0d", unbind, torch.tensor(1.0), 0)

    # --- repeat / tile / repeat_interleave --------------------------------------------------
    def repeat(x, r: List[int]):
        return x.repeat(r)

    c.add("repeat", repeat, t(2, 3), [2, 1])
    c.add("repeat_more_dims", repeat, t(2), [2, 1, 3])
    c.add("repeat_zero", repeat, t(2), [0])
    c.add("repeat_too_few", repeat, t(2, 3), [2])
    c.add("repeat_int8", repeat, t(2, dtype=torch.int8), [3])

    def repeat_nc(x):
        return x.t().repeat([1, 2])

    c.add("repeat_noncontiguous", repeat_nc, t(2, 3))

    def tile(x, r: List[int]):
        return x.tile(r)

    c.add("tile", tile, t(2, 3), [2])
    c.add("tile_more", tile, t(2), [2, 2])

    def rep_int(x, r: int, d: Optional[int]):
        return x.repeat_interleave(r, d)

    c.add("repeat_interleave_int", rep_int, t(2, 3), 2, 1)
    c.add("repeat_interleave_flat", rep_int, t(2, 3), 2, None)

    def rep_tensor(x, r, d: int):
        return x.repeat_interleave(r, d)

    c.add("repeat_interleave_tensor", rep_tensor, t(3, 2), torch.tensor([1, 0, 2]), 0)
    c.add("repeat_interleave_tensor_bad", rep_tensor, t(3, 2), torch.tensor([1, 2]), 0)

    def rep_only(r):
        return torch.repeat_interleave(r)

    c.add("repeat_interleave_counts", rep_only, torch.tensor([2, 0, 3]))

    # --- roll / flip / tril / triu ----------------------------------------------------------
    def roll(x, s: List[int], d: List[int]):
        return torch.roll(x, s, d)

    c.add("roll", roll, t(3, 4), [1], [1])
    c.add("roll_flat", roll, t(3, 4), [5], [])
    c.add("roll_two", roll, t(3, 4), [-1, 2], [0, 1])
    c.add("roll_mismatch", roll, t(3, 4), [1, 2], [0])
    c.add("roll_empty", roll, t(0, 3), [1], [0])

    def roll_nc(x):
        return torch.roll(x.t(), 1, 0)

    c.add("roll_noncontiguous", roll_nc, t(3, 4))

    def flip(x, d: List[int]):
        return torch.flip(x, d)

    c.add("flip", flip, t(2, 3, 4), [0, 2])
    c.add("flip_neg", flip, t(2, 3), [-1])
    c.add("flip_dup", flip, t(2, 3), [0, 0])
    c.add("flip_bool", flip, t(2, 3, dtype=torch.bool), [1])

    def fliplr(x):
        return torch.fliplr(x), torch.flipud(x)

    c.add("fliplr_flipud", fliplr, t(2, 3))

    def tril(x, k: int):
        return torch.tril(x, k), torch.triu(x, k)

    c.add("tril_triu", tril, t(3, 4), 0)
    c.add("tril_triu_pos", tril, t(3, 4), 1)
    c.add("tril_triu_neg", tril, t(2, 3, 4), -1)
    c.add("tril_triu_1d", tril, t(3), 0)
    c.add("tril_triu_int", tril, t(3, 3, dtype=torch.int32), 0)

    def tril_(x):
        x.tril_(1)
        return x

    c.add("tril_inplace", tril_, t(3, 3))

    def triu_(x):
        x.t().triu_()
        return x

    c.add("triu_inplace_view", triu_, t(3, 3))

    # --- queries and conversions ------------------------------------------------------------
    def queries(x):
        return x.size(), x.size(-1), x.dim(), x.numel(), len(x), x.is_floating_point()

    c.add("queries", queries, t(2, 3))
    c.add("queries_empty", queries, t(0, 3))

    def len0(x):
        return len(x)

    c.add("len_0d", len0, torch.tensor(1.0))

    def size_bad(x, d: int):
        return x.size(d)

    c.add("size_bad_dim", size_bad, t(2, 3), 2)

    def dtype_of(x):
        return x.dtype

    for d in DTYPES:
        c.add(f"dtype_{str(d)[6:]}", dtype_of, t(2, dtype=d))

    def item(x):
        return x.item()

    c.add("item_float", item, torch.tensor([2.5]))
    c.add("item_int", item, torch.tensor([[7]]))
    c.add("item_bool", item, torch.tensor(True))
    c.add("item_many", item, t(2))

    def numbers(x):
        return int(x), float(x), bool(x)

    c.add("numbers_float", numbers, torch.tensor(-2.5))
    c.add("numbers_int", numbers, torch.tensor(3))
    c.add("numbers_many", numbers, t(3))

    def implicit(x, y):
        return torch.zeros(x), torch.full([2], y)

    c.add("implicit_int", implicit, torch.tensor(2), torch.tensor(1.5))
    c.add("implicit_float_as_int", implicit, torch.tensor(2.0), torch.tensor(1.5))
    c.add("implicit_not_0d", implicit, torch.tensor([2]), torch.tensor(1.5))

    def num_to_tensor(a: int, b: float):
        return torch.tensor(a), torch.tensor(b)

    c.add("num_to_tensor", num_to_tensor, 3, 0.5)

    def to_dtype(x):
        return x.float(), x.double(), x.long(), x.int(), x.half(), x.to(torch.bool), x.to(torch.uint8)

    c.add("to_dtypes", to_dtype, torch.tensor([-1.5, 0.0, 2.7, 300.0]))

    def to_other(x, y):
        return x.to(y), x.type_as(y), x.to(y.device, y.dtype), x.to("cpu")

    c.add("to_other", to_other, t(3), t(2, dtype=torch.int32))

    def to_copy(x):
        y = x.to(torch.float32, copy=True)
        y[0] = 100.0
        z = x.to(torch.float32)
        z[1] = 200.0
        return y, z

    c.add("to_copy_aliasing", to_copy, t(3))

    def clone(x):
        y = x.clone()
        y[0] = 9.0
        return y

    c.add("clone", clone, t(3))

    def contiguous_cl(x):
        return x.contiguous(memory_format=torch.channels_last).clone()

    c.add("contiguous_channels_last", contiguous_cl, t(1, 2, 2, 3))

    def detach(x):
        return x.detach(), x.detach_(), x.requires_grad_(False)

    c.add("detach", detach, t(2))

    def tolist(x):
        y: List[List[float]] = x.tolist()
        return y

    c.add("tolist", tolist, t(2, 2))

    def tolist_int(x):
        y: List[int] = x.tolist()
        return y

    c.add("tolist_int", tolist_int, t(3, dtype=torch.int64))

    # --- every dtype through the copying shape ops; out= forms ------------------------------
    def copying(x):
        return (
            x.repeat([2, 1]),
            torch.roll(x, 1, 1),
            torch.flip(x, [0]),
            torch.tril(x),
            torch.cat([x, x.t()[:1]], 0),
            torch.stack([x, x], 1),
            x.t().contiguous(),
            x.unbind(1),
            x.repeat_interleave(2, 0),
            x.tile([2]),
        )

    for d in DTYPES:
        c.add(f"copying_{str(d)[6:]}", copying, t(2, 2, dtype=d))

    def stack_out(x, o):
        return torch.stack([x, x], 0, out=o)

    c.add("stack_out", stack_out, t(2), torch.zeros(1, dtype=torch.int64))

    def to_bf16(x):
        return x.to(torch.bfloat16), x.to(torch.bfloat16).to(torch.float32)

    c.add("to_bfloat16", to_bf16, torch.tensor([1.0, 1.00390625, -3.3e38, 0.1]))

    # --- padding --------------------------------------------------------------------------
    def cpad(x, p: List[int], v: float):
        return torch.constant_pad_nd(x, p, v)

    c.add("constant_pad", cpad, t(2, 3), [1, 2], 0.5)
    c.add("constant_pad_2d", cpad, t(2, 3), [1, 0, 0, 2], -1.0)
    c.add("constant_pad_crop", cpad, t(2, 3), [-1, 1], 0.0)
    c.add("constant_pad_crop_only", cpad, t(2, 3), [-1, 0, 0, -1], 0.0)
    c.add("constant_pad_odd", cpad, t(2, 3), [1, 2, 3], 0.0)
    c.add("constant_pad_too_long", cpad, t(3), [1, 1, 1, 1], 0.0)
    c.add("constant_pad_negative_size", cpad, t(2, 3), [-2, -2], 0.0)

    def cpad_int(x, p: List[int]):
        return torch.constant_pad_nd(x, p, 7)

    c.add("constant_pad_int", cpad_int, t(2, 2, dtype=torch.int32), [1, 1, 1, 1])

    def pad_reflect(x, p: List[int]):
        return torch.ops.aten.pad(x, p, "reflect", None)

    def pad_replicate(x, p: List[int]):
        return torch.ops.aten.pad(x, p, "replicate", None)

    def pad_circular(x, p: List[int]):
        return torch.ops.aten.pad(x, p, "circular", None)

    def pad_constant(x, p: List[int], v: float):
        return torch.ops.aten.pad(x, p, "constant", v)

    for name, fn in [("reflect", pad_reflect), ("replicate", pad_replicate), ("circular", pad_circular)]:
        c.add(f"pad_{name}_1d", fn, t(1, 2, 4), [2, 1])
        c.add(f"pad_{name}_2d", fn, t(1, 3, 3), [1, 2, 2, 1])
        c.add(f"pad_{name}_3d", fn, t(1, 2, 2, 3), [1, 1, 1, 0, 0, 1])
        c.add(f"pad_{name}_big", fn, t(1, 2, 3), [4, 4])
        c.add(f"pad_{name}_unsupported", fn, t(3), [1, 1])
    c.add("pad_constant", pad_constant, t(2, 3), [1, 1], 2.0)
    c.add("pad_odd", pad_constant, t(2, 3), [1], 2.0)
    c.add("pad_too_long", pad_constant, t(2, 3), [1, 1, 1, 1, 1, 1], 2.0)

    # --- extreme arguments: no overflow ---------------------------------------------------------
    def extremes(x, big: int):
        return x[::big], x[big:], x[-big:], torch.split(x, big), x.chunk(big), torch.diagonal(x.view(2, 2), -big)

    c.add("extreme_arguments", extremes, t(4), 2**62)

    def narrow_big(x, big: int):
        return x.narrow(0, 1, big)

    c.add("narrow_overflow", narrow_big, t(4), 2**63 - 1)

    def as_strided(x, s: List[int], st: List[int], o: int):
        return torch.as_strided(x, s, st, o).contiguous()

    c.add("as_strided", as_strided, t(3, 4), [2, 2], [1, 4], 1)
    c.add("as_strided_overlapping", as_strided, t(6), [3, 3], [1, 1], 0)
    c.add("as_strided_out_of_bounds", as_strided, t(6), [3, 3], [2, 1], 0)
    c.add("as_strided_length_mismatch", as_strided, t(6), [3, 3], [2], 0)

    # --- _copy forms, alias, resize_ ---------------------------------------------------------
    def copies(x):
        a = torch.view_copy(x, [3, 2])
        b = torch.permute_copy(x, [1, 0])
        d = torch.transpose_copy(x, 0, 1)
        e = torch.unsqueeze_copy(x, 0)
        f = torch.select_copy(x, 1, 2)
        g = torch.slice_copy(x, 1, 0, 3, 2)
        h = torch.expand_copy(x[:1], [4, 3])
        i = torch.diagonal_copy(x)
        j = torch.squeeze_copy(e, 0)
        k = torch.t_copy(x)
        a[0, 0] = 100.0
        return x, a, b, d, e, f, g, h, i, j, k, torch.unbind_copy(x, 1), torch.split_copy(x, 1)

    c.add("view_copy_forms", copies, t(2, 3))

    def to_copy(x):
        y = torch.ops.aten._to_copy(x, dtype=torch.float64)
        z = torch.ops.aten._to_copy(x)
        z[0] = 5.0
        return x, y, z

    c.add("to_copy", to_copy, t(3))

    def resize(x, s: List[int]):
        y = x.view([-1])
        x.resize_(s)
        return x.size(), y

    c.add("resize_shrink", resize, t(2, 3), [2, 2])

    def resize_grow(x, s: List[int]):
        # The grown part is uninitialized in PyTorch: resize a copy, compare the kept part.
        y = x.clone()
        y.resize_(s)
        return y.size(), y.view([-1])[:6]

    c.add("resize_grow", resize_grow, t(2, 3), [3, 4])

    def resize_as(x, y):
        return x.resize_as_(y).size()

    c.add("resize_as", resize_as, t(2, 3), t(6))

    # --- meshgrid / rot90 / small queries -------------------------------------------------
    def meshgrid(x, y):
        a, b = torch.meshgrid([x, y], indexing="ij")
        c_, d = torch.meshgrid([x, y], indexing="xy")
        return a.contiguous(), b.contiguous(), c_.contiguous(), d.contiguous()

    c.add("meshgrid", meshgrid, t(3), t(2))

    def meshgrid_bad(x, y):
        return torch.meshgrid([x, y], indexing="ij")

    c.add("meshgrid_dtype_error", meshgrid_bad, t(3), t(2, dtype=torch.int64))

    def rot90(x, k: int, d: List[int]):
        return torch.rot90(x, k, d).contiguous()

    for k in [-1, 0, 1, 2, 3, 5]:
        c.add(f"rot90_{k}".replace("-", "m"), rot90, t(2, 3), k, [0, 1])
    c.add("rot90_dims", rot90, t(2, 3, 2), 1, [2, 0])
    c.add("rot90_same_dims", rot90, t(2, 3), 1, [1, -1])
    c.add("rot90_1d", rot90, t(3), 1, [0, 1])

    def small_queries(x, y):
        return x.is_complex(), x.is_signed(), y.is_signed(), x.is_same_size(y), x.element_size(), x.stride(), x.t().is_contiguous()

    c.add("small_queries", small_queries, t(2, 3), t(2, 3, dtype=torch.uint8))

    def nonzero_bool(x):
        return x.is_nonzero()

    c.add("is_nonzero", nonzero_bool, torch.tensor([2.0]))
    c.add("is_nonzero_many", nonzero_bool, t(2))

    def view_dtype(x):
        return x.view(torch.int32), x.view(torch.int16), x.view(torch.uint8), x.view(torch.float64)

    c.add("view_dtype", view_dtype, torch.tensor([[1.0, -2.0, 0.5, 3.0]]))

    def view_dtype_grow(x):
        return x.view(torch.float32)

    c.add("view_dtype_grow", view_dtype_grow, torch.arange(16, dtype=torch.uint8).reshape(2, 8))
    c.add("view_dtype_indivisible", view_dtype_grow, torch.arange(6, dtype=torch.uint8).reshape(2, 3))
    c.add("view_dtype_0d", view_dtype_grow, torch.tensor(1, dtype=torch.int16))

    def view_dtype_t(x):
        return x.t().view(torch.int16)

    c.add("view_dtype_stride", view_dtype_t, t(2, 3))

    def tolist_bool(x):
        y: List[bool] = x.tolist()
        return y

    c.add("tolist_bool", tolist_bool, torch.tensor([True, False]))
    c.add("tolist_type_mismatch", tolist_bool, torch.tensor([1, 0]))

    def tolist_0d(x):
        y: float = x.tolist()
        return y

    c.add("tolist_0d", tolist_0d, torch.tensor(2.5))
