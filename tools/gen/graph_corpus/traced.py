"""Traced functions: every value carries a fully refined tensor type
(dtype, sizes, strides, requires_grad, device)."""

import torch
import torch.nn.functional as F

from .registry import traced_function

C = "traced"



def f_add_mul(x, y):
    return x * y + x


def f_mixed_dtypes(x, i, b):
    return (x * i).masked_fill(b, 0.0).to(torch.float64)


def f_half_bfloat(x):
    return x.half().float() + x.to(torch.bfloat16).float()


def f_long_ops(i):
    return (i // 3 + i % 5) * 2


def f_bool_ops(a, b):
    return (a & b) | ~a


def f_noncontiguous(x):
    y = x.t()
    return y * 2 + y.contiguous()


def f_views(x):
    return x.view(4, 6).transpose(0, 1).reshape(2, 12)[:, ::3]


def f_scalar_tensor(x):
    return x.sum() * 3 + x.mean()


def f_zero_dim(s, x):
    return x * s


def f_requires_grad(w, x):
    return (x @ w).relu().sum(0)


def f_control_baked(x):
    if x.sum() > 0:  # the trace keeps only the branch taken
        return x * 2
    return x - 1


def f_loop_unrolled(x):
    for _ in range(3):
        x = torch.tanh(x) + 1
    return x


def f_size_ops(x):
    n = x.size(0)
    return x.view(n, -1).sum(1)


def f_tuple_out(x):
    return x.max(1)


def f_list_in(xs):
    return torch.cat(xs, 0)


def f_index_ops(x, idx):
    return x[idx] + x[1:3].sum(0)


def f_inplace(x):
    y = x.clone()
    y.add_(1).mul_(2)
    y[0] = 0
    return y


def f_conv(x, w):
    return F.relu(F.conv2d(x, w, padding=1))


def f_softmax_attention(q, k, v):
    a = torch.softmax(q @ k.transpose(-1, -2) / 4.0, -1)
    return a @ v


def f_channels_last(x):
    return x.to(memory_format=torch.channels_last) * 2


def f_creation(x):
    return x + torch.ones(3, 4) + torch.arange(4) + torch.zeros(3, 4, dtype=torch.float64)


def f_layer_norm(x, w, b):
    return F.layer_norm(x, (8,), w, b)


def f_double(x):
    return torch.sin(x) * torch.cos(x)


def f_int8_uint8(a, b):
    return a.to(torch.int16) + b.to(torch.int16)


def f_complex(x):
    c = torch.view_as_complex(x)
    return torch.view_as_real(c * c)


def f_expand_broadcast(a, b):
    return a.expand(3, 4, 5) + b


def f_where_nonzero(x):
    return torch.where(x > 0, x, torch.zeros_like(x))


def f_stack_unbind(x):
    a, b, c = x.unbind(0)
    return torch.stack([c, b, a], 1)


def f_empty_shape(x):
    return x.sum(0)


def f_nested_tuple(x, y):
    return (x + y, (x - y, x * y))


CASES = [
    ("add_mul", f_add_mul, lambda: torch.randn(2, 3), lambda: torch.randn(2, 3)),
    ("mixed_dtypes", f_mixed_dtypes, lambda: torch.randn(2, 3),
     lambda: torch.randint(0, 5, (2, 3)), lambda: torch.rand(2, 3) > 0.5),
    ("half_bfloat", f_half_bfloat, lambda: torch.randn(4)),
    ("long_ops", f_long_ops, lambda: torch.arange(12).view(3, 4)),
    ("bool_ops", f_bool_ops, lambda: torch.rand(5) > 0.5, lambda: torch.rand(5) > 0.5),
    ("noncontiguous", f_noncontiguous, lambda: torch.randn(3, 5)),
    ("views", f_views, lambda: torch.randn(2, 3, 4)),
    ("scalar_tensor", f_scalar_tensor, lambda: torch.randn(3, 3)),
    ("zero_dim", f_zero_dim, lambda: torch.tensor(2.5), lambda: torch.randn(2, 2)),
    ("requires_grad", f_requires_grad, lambda: torch.randn(4, 3, requires_grad=True),
     lambda: torch.randn(2, 4)),
    ("control_baked", f_control_baked, lambda: torch.ones(3)),
    ("loop_unrolled", f_loop_unrolled, lambda: torch.randn(2, 2)),
    ("size_ops", f_size_ops, lambda: torch.randn(3, 2, 2)),
    ("tuple_out", f_tuple_out, lambda: torch.randn(3, 4)),
    ("list_in", f_list_in, lambda: [torch.randn(1, 3), torch.randn(2, 3)]),
    ("index_ops", f_index_ops, lambda: torch.randn(5, 3), lambda: torch.tensor([0, 2, 4])),
    ("inplace", f_inplace, lambda: torch.randn(3, 3)),
    ("conv", f_conv, lambda: torch.randn(1, 2, 5, 5), lambda: torch.randn(4, 2, 3, 3)),
    ("softmax_attention", f_softmax_attention, lambda: torch.randn(2, 5, 16),
     lambda: torch.randn(2, 6, 16), lambda: torch.randn(2, 6, 16)),
    ("channels_last", f_channels_last, lambda: torch.randn(1, 3, 4, 4)),
    ("creation", f_creation, lambda: torch.randn(3, 4)),
    ("layer_norm", f_layer_norm, lambda: torch.randn(2, 8), lambda: torch.ones(8),
     lambda: torch.zeros(8)),
    ("double", f_double, lambda: torch.randn(3, dtype=torch.float64)),
    ("int8_uint8", f_int8_uint8, lambda: torch.randint(-5, 5, (4,), dtype=torch.int8),
     lambda: torch.randint(0, 9, (4,), dtype=torch.uint8)),
    ("complex", f_complex, lambda: torch.randn(3, 2)),
    ("expand_broadcast", f_expand_broadcast, lambda: torch.randn(1, 4, 1),
     lambda: torch.randn(5)),
    ("where", f_where_nonzero, lambda: torch.randn(6)),
    ("stack_unbind", f_stack_unbind, lambda: torch.randn(3, 2)),
    ("empty_shape", f_empty_shape, lambda: torch.randn(0, 3)),
    ("nested_tuple", f_nested_tuple, lambda: torch.randn(2), lambda: torch.randn(2)),
]

for _name, _fn, *_makers in CASES:
    traced_function(C, _name, _fn, (lambda ms: lambda: tuple(m() for m in ms))(_makers))
