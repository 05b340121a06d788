"""Tensor operations: elementwise, reductions, matmul, views, indexing, in-place, creation."""

from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

from .registry import scripted

C = "tensor"


@scripted(C)
def elementwise_binary(x: Tensor, y: Tensor) -> Tensor:
    return x + y - x * y / (y + 1) + torch.pow(x, 2) - torch.remainder(x, 3)


@scripted(C)
def elementwise_scalar(x: Tensor, a: float, n: int) -> Tensor:
    return x * a + n - 2.5 / (x + 1) + x ** n


@scripted(C)
def elementwise_unary(x: Tensor) -> Tensor:
    return torch.exp(x) + torch.log(x.abs() + 1) + torch.sqrt(x.abs()) + torch.sin(x) + torch.tanh(x)


@scripted(C)
def elementwise_unary_more(x: Tensor) -> Tensor:
    return x.sigmoid() + x.rsqrt() + x.floor() + x.ceil() + x.round() + x.neg() + x.reciprocal()


@scripted(C)
def activations(x: Tensor) -> Tensor:
    return F.relu(x) + F.gelu(x) + F.silu(x) + F.elu(x) + F.leaky_relu(x, 0.1) + F.hardswish(x)


@scripted(C)
def comparisons_where(x: Tensor, y: Tensor) -> Tensor:
    m = (x > y) & (x != 0) | (y <= 0.5)
    return torch.where(m, x, y)


@scripted(C)
def clamp_min_max(x: Tensor) -> Tensor:
    return x.clamp(-1.0, 1.0) + x.clamp(min=0) + torch.maximum(x, x.t()) + torch.minimum(x, x.t())


@scripted(C)
def logical_ops(a: Tensor, b: Tensor) -> Tensor:
    return torch.logical_and(a, b) | torch.logical_not(a) ^ torch.logical_or(a, b)


@scripted(C)
def reductions(x: Tensor):
    return x.sum(), x.mean(1), x.max(), x.min(0), x.prod(), x.std(), x.var(1, keepdim=True)


@scripted(C)
def reductions_dims(x: Tensor) -> Tensor:
    return x.sum(dim=[0, 2], keepdim=True) + x.mean(dim=(1,), keepdim=True).amax(-1, keepdim=True)


@scripted(C)
def argmax_topk_sort(x: Tensor):
    v, i = x.topk(3, dim=-1)
    s, j = torch.sort(x, dim=0, descending=True)
    return x.argmax(-1), v, i, s, j, x.argsort()


@scripted(C)
def cumsum_norms(x: Tensor):
    return x.cumsum(0), x.cumprod(1), x.norm(), torch.linalg.vector_norm(x, 2.0, dim=-1)


@scripted(C)
def any_all_count(x: Tensor):
    return (x > 0).any(), (x > 0).all(), torch.count_nonzero(x), x.nonzero()


@scripted(C)
def softmax_logsoftmax(x: Tensor) -> Tensor:
    return F.softmax(x, dim=-1) + F.log_softmax(x, dim=1) + torch.logsumexp(x, dim=0)


@scripted(C)
def matmul_family(a: Tensor, b: Tensor, v: Tensor) -> Tensor:
    return torch.mm(a, b) + a.matmul(b) + (a @ b) + torch.addmm(a, a, b) + torch.outer(v, v)


@scripted(C)
def bmm_baddbmm(a: Tensor, b: Tensor) -> Tensor:
    return torch.bmm(a, b) + torch.baddbmm(torch.bmm(a, b), a, b, beta=0.5, alpha=2.0)


@scripted(C)
def linear_einsum(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    return F.linear(x, w, b) + torch.einsum("ij,kj->ik", x, w)


@scripted(C)
def views_reshape(x: Tensor) -> Tensor:
    y = x.view(2, -1)
    z = x.reshape([-1])
    w = x.flatten(1)
    return y.sum() + z.sum() + w.sum() + x.view_as(x).sum()


@scripted(C)
def views_permute_transpose(x: Tensor) -> Tensor:
    return x.permute(2, 0, 1).contiguous().transpose(0, 1).t() if x.dim() == 2 else x.permute(2, 0, 1).transpose(1, 2)


@scripted(C)
def views_squeeze_expand(x: Tensor) -> Tensor:
    y = x.unsqueeze(0).unsqueeze(-1)
    z = y.squeeze(0).squeeze()
    return z.expand(3, -1, -1) + x.expand_as(x).repeat(3, 1, 1)


@scripted(C)
def views_chunk_split(x: Tensor) -> List[Tensor]:
    a, b = x.chunk(2, dim=0)
    parts = x.split([1, 2], dim=1)
    return [a, b] + list(parts) + list(torch.unbind(x, 0))


@scripted(C)
def cat_stack(x: Tensor, y: Tensor) -> Tensor:
    return torch.cat([x, y], dim=0).sum() + torch.stack((x, y), 1).sum() + torch.hstack([x, y]).sum()


@scripted(C)
def indexing_basic(x: Tensor) -> Tensor:
    return x[0] + x[-1] + x[1:3].sum(0) + x[:, 0].sum() + x[..., 1].sum()


@scripted(C)
def indexing_advanced(x: Tensor, idx: Tensor, mask: Tensor) -> Tensor:
    return x[idx].sum() + x[mask].sum() + x[idx, 0].sum() + x[None, :, None].sum()


@scripted(C)
def indexing_step_ellipsis(x: Tensor) -> Tensor:
    return x[::2, 1::2] + x[..., ::2][: x.size(0) // 2 + 1]


@scripted(C)
def index_assign(x: Tensor, v: float) -> Tensor:
    x[0] = v
    x[1, :] = x[2, :]
    x[:, -1] += 1.0
    x[x > 5] = 0.0
    return x


@scripted(C)
def gather_scatter_index_select(x: Tensor, idx: Tensor) -> Tensor:
    g = torch.gather(x, 1, idx)
    s = torch.zeros_like(x).scatter_(1, idx, g)
    return s + torch.index_select(x, 0, idx[:, 0]) + x.index_add(0, idx[:, 0], x)


@scripted(C)
def masked_fill_where(x: Tensor, m: Tensor) -> Tensor:
    return x.masked_fill(m, float("-inf")).softmax(-1)


@scripted(C)
def inplace_ops(x: Tensor, y: Tensor) -> Tensor:
    x.add_(y)
    x.mul_(2.0)
    x.sub_(y, alpha=0.5)
    x.clamp_(min=0.0)
    x.relu_()
    x.zero_() if bool(x.sum() > 1e9) else x.div_(3.0)
    return x


@scripted(C)
def inplace_aug_assign(x: Tensor, y: Tensor) -> Tensor:
    x += y
    x *= y
    x -= 1
    x /= 2
    return x


@scripted(C)
def inplace_copy_fill(x: Tensor, y: Tensor) -> Tensor:
    x.copy_(y)
    x[0].fill_(1.0)
    x.uniform_() if False else x.normal_(0.0, 1.0)
    return x


@scripted(C)
def creation_ops(n: int) -> Tensor:
    a = torch.zeros(n, 3)
    b = torch.ones([n, 3], dtype=torch.float64)
    c = torch.full((n, 3), 7, dtype=torch.int32)
    d = torch.empty(n, 3, device=torch.device("cpu"))
    e = torch.arange(0, n * 3, dtype=torch.float32).view(n, 3)
    f = torch.eye(3)[:n] if n <= 3 else torch.rand(n, 3)
    return a + b + c + d.zero_() + e + f


@scripted(C)
def creation_like(x: Tensor) -> Tensor:
    return (torch.zeros_like(x) + torch.ones_like(x, dtype=torch.float32) + torch.full_like(x, 2.0)
            + torch.empty_like(x).fill_(0) + torch.rand_like(x) * 0)


@scripted(C)
def creation_tensor_literal(x: float) -> Tensor:
    a = torch.tensor([1.0, 2.0, x])
    b = torch.tensor([[1, 2], [3, 4]], dtype=torch.long)
    c = torch.tensor(3.5, requires_grad=False)
    return a.sum() + b.sum() + c


@scripted(C)
def creation_linspace_randn(n: int) -> Tensor:
    return torch.linspace(0.0, 1.0, n) + torch.randn(n) * 0 + torch.randint(0, 10, [n]) * 0


@scripted(C)
def dtype_conversions(x: Tensor) -> Tensor:
    a = x.to(torch.float16).float()
    b = x.double().to(dtype=torch.float32)
    c = x.long().int().to(torch.int8)
    d = x.to(torch.bool).half().to(torch.bfloat16)
    return a + b + c.float() + d.float() + x.type_as(a)


@scripted(C)
def device_ops(x: Tensor) -> Tensor:
    y = x.to("cpu")
    z = x.to(device=torch.device("cpu"), dtype=torch.float32, non_blocking=False)
    d = x.device
    return y + z + torch.zeros(1, device=d)


@scripted(C)
def tensor_properties(x: Tensor):
    return x.size(), x.shape, x.dim(), x.numel(), x.dtype, x.device, x.is_cuda, x.requires_grad


@scripted(C)
def tensor_to_scalars(x: Tensor):
    return x.item(), float(x), int(x), bool(x), x.tolist() if False else 0


@scripted(C)
def size_arithmetic(x: Tensor) -> Tensor:
    n, c, h, w = x.size()
    return x.view(n, c * h * w).view(n, c, h, w)


@scripted(C)
def shape_dependent_branch(x: Tensor) -> Tensor:
    if x.size(0) > 2:
        return x[:2]
    elif x.dim() == 3:
        return x.flatten()
    return x


@scripted(C)
def conv_pool_functional(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    y = F.conv2d(x, w, b, stride=1, padding=1)
    y = F.max_pool2d(y, 2)
    y = F.avg_pool2d(y, kernel_size=2, stride=2)
    return F.adaptive_avg_pool2d(y, (1, 1))


@scripted(C)
def norms_functional(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    y = F.layer_norm(x, [x.size(-1)], w, b, 1e-5)
    return F.normalize(y, p=2.0, dim=-1) + F.dropout(y, 0.1, False)


@scripted(C)
def batch_norm_functional(x: Tensor, rm: Tensor, rv: Tensor) -> Tensor:
    return F.batch_norm(x, rm, rv, None, None, False, 0.1, 1e-5)


@scripted(C)
def losses(x: Tensor, t: Tensor, c: Tensor) -> Tensor:
    return F.mse_loss(x, t) + F.l1_loss(x, t) + F.cross_entropy(x, c) + F.smooth_l1_loss(x, t)


@scripted(C)
def interpolate_pad(x: Tensor) -> Tensor:
    y = F.interpolate(x, scale_factor=2.0, mode="nearest")
    return F.pad(y, [1, 1, 2, 2], mode="constant", value=0.0)


@scripted(C)
def embedding_onehot(idx: Tensor, w: Tensor) -> Tensor:
    return F.embedding(idx, w) + F.one_hot(idx, w.size(0)).float().matmul(w)


@scripted(C)
def scaled_dot_product(q: Tensor, k: Tensor, v: Tensor, mask: Optional[Tensor]) -> Tensor:
    scores = q.matmul(k.transpose(-2, -1)) / (q.size(-1) ** 0.5)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    return F.softmax(scores, dim=-1).matmul(v)


@scripted(C)
def sdpa_builtin(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


@scripted(C)
def tensor_list_ops(xs: List[Tensor]) -> Tensor:
    total = torch.zeros(1)
    for i, t in enumerate(xs):
        total = total + t.sum() * i
    return total


@scripted(C)
def tensor_tuple_return(x: Tensor) -> Tuple[Tensor, Tensor]:
    return x.max(dim=1)


@scripted(C)
def detach_clone_contiguous(x: Tensor) -> Tensor:
    return x.detach().clone().contiguous(memory_format=torch.contiguous_format)


@scripted(C)
def tril_triu_diag(x: Tensor) -> Tensor:
    return torch.tril(x) + torch.triu(x, 1) + torch.diag(torch.diagonal(x))


@scripted(C)
def flip_roll(x: Tensor) -> Tensor:
    return torch.flip(x, [0]) + torch.roll(x, 1, 1)


@scripted(C)
def meshgrid_broadcast(a: Tensor, b: Tensor) -> Tensor:
    xs, ys = torch.meshgrid(a, b, indexing="ij")
    return xs * ys + torch.broadcast_to(a.unsqueeze(1), xs.shape)


@scripted(C)
def complex_dtype(x: Tensor) -> Tensor:
    c = torch.complex(x, x)
    return torch.view_as_real(c * c).sum(-1) + c.abs()


@scripted(C)
def integer_tensor_ops(x: Tensor) -> Tensor:
    return (x // 2) + (x % 3) + (x << 1) + (x >> 1) + (x & 7) + (x | 1) + (~x)


@scripted(C)
def tensor_number_mixing(x: Tensor, n: int, f: float) -> Tensor:
    t = torch.tensor(n) + f
    return x * t + float(x.sum()) + int(x.numel())


@scripted(C)
def requires_grad_ops(x: Tensor) -> Tensor:
    y = x.detach().requires_grad_(True)
    return y * 2


@scripted(C)
def bool_mask_reduce(x: Tensor) -> Tensor:
    m = x > x.mean()
    return (x * m).sum() / m.sum().clamp(min=1)
