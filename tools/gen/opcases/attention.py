"""Attention operators: scaled_dot_product_attention, _masked_softmax,
_native_multi_head_attention and _transformer_encoder_layer_fwd, and whole nn.MultiheadAttention,
nn.TransformerEncoderLayer and nn.TransformerEncoder modules traced in eval mode under no_grad
(weights as graph inputs), plus scripted F.multi_head_attention_forward."""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .common import module_call


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def sdpa(q: Tensor, k: Tensor, v: Tensor, mask: Optional[Tensor], is_causal: bool):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal)


def sdpa_scale(q: Tensor, k: Tensor, v: Tensor, scale: float):
    return F.scaled_dot_product_attention(q, k, v, scale=scale)


def sdpa_gqa(q: Tensor, k: Tensor, v: Tensor):
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def sdpa_eval_dropout(q: Tensor, k: Tensor, v: Tensor):
    return F.scaled_dot_product_attention(q, k, v, dropout_p=0.0, is_causal=False)


def masked_softmax(x: Tensor, mask: Tensor, dim: Optional[int], mask_type: Optional[int]):
    return torch._masked_softmax(x, mask, dim, mask_type)


def mha(q: Tensor, k: Tensor, v: Tensor, embed_dim: int, heads: int, w: Tensor, b: Tensor,
        pw: Tensor, pb: Tensor, mask: Optional[Tensor], need_weights: bool, average: bool,
        mask_type: Optional[int]):
    return torch._native_multi_head_attention(q, k, v, embed_dim, heads, w, b, pw, pb, mask,
                                              need_weights, average, mask_type)


def mha_self(x: Tensor, embed_dim: int, heads: int, w: Tensor, b: Tensor, pw: Tensor,
             pb: Tensor, mask: Optional[Tensor], need_weights: bool, average: bool,
             mask_type: Optional[int]):
    return torch._native_multi_head_attention(x, x, x, embed_dim, heads, w, b, pw, pb, mask,
                                              need_weights, average, mask_type)


def mha_self_out(x: Tensor, embed_dim: int, heads: int, w: Tensor, b: Tensor, pw: Tensor,
                 pb: Tensor, mask: Optional[Tensor], mask_type: Optional[int]):
    """Without weights the second result is an undefined tensor, which TorchScript cannot
    return: only the output leaves the graph."""
    return torch._native_multi_head_attention(x, x, x, embed_dim, heads, w, b, pw, pb, mask,
                                              False, True, mask_type)[0]


def encoder_layer(src: Tensor, embed_dim: int, heads: int, w: Tensor, b: Tensor, pw: Tensor,
                  pb: Tensor, use_gelu: bool, norm_first: bool, eps: float, n1w: Tensor,
                  n1b: Tensor, n2w: Tensor, n2b: Tensor, f1w: Tensor, f1b: Tensor, f2w: Tensor,
                  f2b: Tensor, mask: Optional[Tensor], mask_type: Optional[int]):
    return torch._transformer_encoder_layer_fwd(src, embed_dim, heads, w, b, pw, pb, use_gelu,
                                                norm_first, eps, n1w, n1b, n2w, n2b, f1w, f1b,
                                                f2w, f2b, mask, mask_type)


def mha_forward(q: Tensor, k: Tensor, v: Tensor, heads: int, w: Tensor, b: Tensor, pw: Tensor,
                pb: Tensor, key_padding_mask: Optional[Tensor], attn_mask: Optional[Tensor],
                need_weights: bool):
    return F.multi_head_attention_forward(q, k, v, q.size(-1), heads, w, b, None, None, False,
                                          0.0, pw, pb, training=False,
                                          key_padding_mask=key_padding_mask,
                                          need_weights=need_weights, attn_mask=attn_mask)


def left_aligned(x: Tensor, mask: Tensor):
    return torch._nested_tensor_from_mask_left_aligned(x, mask)


def is_nested(x: Tensor):
    return x.is_nested


def nested_cases(c):
    x = r(2, 3, 4)
    c.add("left_aligned_true", left_aligned, x, torch.tensor([[True, True, False],
                                                              [True, False, False]]))
    c.add("left_aligned_full", left_aligned, x, torch.ones(2, 3, dtype=torch.bool))
    c.add("left_aligned_false", left_aligned, x, torch.tensor([[True, False, True],
                                                               [True, True, True]]))
    c.add("left_aligned_err_dtype", left_aligned, x, torch.ones(2, 3, dtype=torch.long))
    c.add("left_aligned_err_size", left_aligned, x, torch.ones(2, 4, dtype=torch.bool))
    c.add("left_aligned_err_2d", left_aligned, x[0], torch.ones(3, 4, dtype=torch.bool))
    c.add("is_nested", is_nested, x)


def sdpa_cases(c):
    q, k, v = r(2, 3, 4), r(2, 5, 4), r(2, 5, 6)
    c.add("sdpa", sdpa, q, k, v, None, False)
    c.add("sdpa_2d", sdpa, q[0], k[0], v[0], None, False)
    c.add("sdpa_heads", sdpa, r(2, 2, 3, 4), r(2, 2, 5, 4), r(2, 2, 5, 6), None, False)
    c.add("sdpa_broadcast_batch", sdpa, q, k[:1], v[:1], None, False)
    c.add("sdpa_broadcast_4d", sdpa, r(3, 1, 3, 4), r(2, 5, 4), r(2, 5, 6), None, False)
    c.add("sdpa_bool_mask", sdpa, q, k, v, torch.rand(3, 5) > 0.3, False)
    c.add("sdpa_bool_mask_batched", sdpa, q, k, v, torch.rand(2, 3, 5) > 0.3, False)
    c.add("sdpa_bool_mask_empty_rows", sdpa, q, k, v,
          torch.tensor([[True] * 5, [False] * 5, [True, False, True, False, True]]), False)
    fmask = r(3, 5)
    fmask[0, 1] = float("-inf")
    c.add("sdpa_float_mask", sdpa, q, k, v, fmask, False)
    c.add("sdpa_float_mask_row_inf", sdpa, q, k, v, torch.full((3, 5), float("-inf")), False)
    c.add("sdpa_causal", sdpa, r(2, 4, 4), r(2, 4, 4), r(2, 4, 6), None, True)
    c.add("sdpa_causal_rect", sdpa, q, k, v, None, True)
    c.add("sdpa_causal_long_query", sdpa, r(2, 5, 4), r(2, 3, 4), r(2, 3, 6), None, True)
    c.add("sdpa_scale", sdpa_scale, q, k, v, 0.3)
    c.add("sdpa_gqa", sdpa_gqa, r(1, 4, 3, 4), r(1, 2, 5, 4), r(1, 2, 5, 6))
    c.add("sdpa_eval_dropout", sdpa_eval_dropout, q, k, v)
    c.add("sdpa_f64", sdpa, q.double(), k.double(), v.double(),
          torch.rand(3, 5, dtype=torch.float64), False)
    c.add("sdpa_f16", sdpa, q.half(), k.half(), v.half(), None, False, rtol=1e-2, atol=2e-3)
    c.add("sdpa_bf16", sdpa, q.bfloat16(), k.bfloat16(), v.bfloat16(), None, True,
          rtol=2e-2, atol=1e-2)
    c.add("sdpa_noncontig", sdpa, r(3, 2, 4).transpose(0, 1), r(2, 4, 5).transpose(1, 2),
          r(2, 5, 12)[:, :, ::2], None, False)
    c.add("sdpa_empty_query", sdpa, q[:, :0], k, v, None, False)
    c.add("sdpa_empty_keys", sdpa, q, k[:, :0], v[:, :0], None, False)
    c.add("sdpa_err_1d", sdpa, q[0, 0], k[0, 0], v[0, 0], None, False)
    c.add("sdpa_err_dtype", sdpa, q.double(), k, v, None, False)
    c.add("sdpa_err_mask_dtype", sdpa, q, k, v, torch.zeros(3, 5, dtype=torch.long), False)
    c.add("sdpa_err_mask_f64", sdpa, q, k, v, torch.zeros(3, 5, dtype=torch.float64), False)
    c.add("sdpa_err_causal_mask", sdpa, q, k, v, torch.rand(3, 5) > 0.5, True)
    c.add("sdpa_err_int", sdpa, q.long(), k.long(), v.long(), None, False)
    c.add("sdpa_err_mask_shape", sdpa, q, k, v, torch.rand(4, 5) > 0.5, False)
    c.add("sdpa_err_gqa", sdpa_gqa, r(1, 3, 3, 4), r(1, 2, 5, 4), r(1, 2, 5, 6))


def masked_softmax_cases(c):
    x = r(2, 3, 4, 4)
    c.add("masked_softmax_type2", masked_softmax, x, torch.rand(2, 3, 4, 4) > 0.6, 3, 2)
    c.add("masked_softmax_type_none_4d", masked_softmax, x, torch.rand(2, 3, 4, 4) > 0.6, None,
          None)
    c.add("masked_softmax_type0", masked_softmax, x, torch.rand(4, 4) > 0.6, 3, 0)
    c.add("masked_softmax_type1", masked_softmax, x, torch.tensor([[False, True, False, True],
                                                                  [True, False, False, False]]),
          3, 1)
    c.add("masked_softmax_type1_dim2", masked_softmax, x,
          torch.tensor([[False, True, False, False], [False, False, False, False]]), 2, 1)
    c.add("masked_softmax_3d_dim1", masked_softmax, x[0], torch.rand(3, 4, 4) > 0.6, 1, None)
    c.add("masked_softmax_all_masked", masked_softmax, x, torch.ones(4, 4, dtype=torch.bool),
          3, 0)
    c.add("masked_softmax_f64", masked_softmax, x.double(), torch.rand(2, 3, 4, 4) > 0.6, -1, 2)
    c.add("masked_softmax_bf16", masked_softmax, x.bfloat16(), torch.rand(2, 3, 4, 4) > 0.6,
          -1, 2)
    # (No non-contiguous input: PyTorch's CPU kernel writes a contiguous result into an
    # output laid out like the input, so its answer for a transposed input is scrambled.)
    c.add("masked_softmax_noncontig_mask", masked_softmax, x, (torch.rand(2, 4, 3, 4) > 0.6)
          .transpose(1, 2), 3, 2)
    c.add("masked_softmax_err_type_none_2d", masked_softmax, x, torch.rand(4, 4) > 0.5, 3, None)
    c.add("masked_softmax_err_float_mask", masked_softmax, x, torch.rand(2, 3, 4, 4), 3, 2)
    c.add("masked_softmax_err_shape", masked_softmax, x, torch.rand(2, 3, 4, 3) > 0.5, 3, 2)
    c.add("masked_softmax_err_type3", masked_softmax, x, torch.rand(4, 4) > 0.5, 3, 3)
    c.add("masked_softmax_err_type0_shape", masked_softmax, x, torch.rand(4, 3) > 0.5, 3, 0)
    c.add("masked_softmax_err_long", masked_softmax, x.long(), torch.rand(2, 3, 4, 4) > 0.5, 3,
          2)


def mha_weights(d, dtype=torch.float32):
    return r(3 * d, d, dtype=dtype) * 0.5, r(3 * d, dtype=dtype), r(d, d, dtype=dtype) * 0.5, \
        r(d, dtype=dtype)


def mha_cases(c):
    x = r(2, 3, 8)
    w = mha_weights(8)
    c.add("mha_self", mha_self, x, 8, 2, *w, None, True, True, None)
    c.add("mha_self_no_weights", mha_self_out, x, 8, 2, *w, None, None)
    c.add("mha_self_per_head_weights", mha_self, x, 8, 2, *w, None, True, False, None)
    c.add("mha_kv", mha, x, r(2, 3, 8), r(2, 3, 8), 8, 2, *w, None, True, True, None)
    c.add("mha_mask0", mha_self, x, 8, 2, *w,
          torch.tensor([[False, True, True], [False, False, True], [False, False, False]]),
          True, True, 0)
    c.add("mha_mask1", mha_self, x, 8, 4, *w,
          torch.tensor([[False, False, True], [False, True, False]]), True, True, 1)
    c.add("mha_mask_float", mha_self, x, 8, 2, *w,
          torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]), True, True, 0)
    c.add("mha_empty_batch", mha_self_out, x[:0], 8, 2, *w, None, None)
    c.add("mha_f64", mha_self, x.double(), 8, 2, *mha_weights(8, torch.float64), None, True,
          True, None)
    c.add("mha_bf16", mha_self, x.bfloat16(), 8, 2, *[t.bfloat16() for t in w], None, True,
          True, None, rtol=5e-2, atol=5e-2)
    c.add("mha_f16", mha_self, x.half(), 8, 2, *[t.half() for t in w], None, True, True, None,
          rtol=2e-2, atol=2e-2)
    x16, w16 = r(2, 3, 16), mha_weights(16)
    # dim_per_head % 8 == 0 and no weights: PyTorch routes through SDPA.
    c.add("mha_sdpa_path", mha_self_out, x16, 16, 2, *w16, None, None)
    c.add("mha_sdpa_path_mask1", mha_self_out, x16, 16, 2, *w16,
          torch.tensor([[False, False, True], [False, True, False]]), 1)
    c.add("mha_sdpa_path_mask0", mha_self_out, x16, 16, 2, *w16,
          torch.tensor([[False, True, True], [False, False, True], [False, False, False]]), 0)
    c.add("mha_err_embed_dim", mha_self, x, 6, 2, *w, None, True, True, None)
    c.add("mha_err_heads", mha_self, x, 8, 3, *w, None, True, True, None)
    c.add("mha_err_query_dim", mha_self, x[0], 8, 2, *w, None, True, True, None)
    c.add("mha_err_shapes", mha, x, r(2, 4, 8), r(2, 4, 8), 8, 2, *w, None, True, True, None)
    c.add("mha_err_qkv_weight", mha_self, x, 8, 2, w[0][:12], *w[1:], None, True, True, None)


def encoder_weights(d, ff, dtype=torch.float32):
    qkv_w, qkv_b, proj_w, proj_b = mha_weights(d, dtype)
    return [qkv_w, qkv_b, proj_w, proj_b], [
        1 + 0.1 * r(d, dtype=dtype), 0.1 * r(d, dtype=dtype),
        1 + 0.1 * r(d, dtype=dtype), 0.1 * r(d, dtype=dtype),
        r(ff, d, dtype=dtype) * 0.3, r(ff, dtype=dtype), r(d, ff, dtype=dtype) * 0.3,
        r(d, dtype=dtype)]


def encoder_cases(c):
    x = r(2, 3, 8)
    attn, rest = encoder_weights(8, 16)
    for gelu in (False, True):
        for norm_first in (False, True):
            name = "encoder_layer" + ("_gelu" if gelu else "_relu") + \
                ("_norm_first" if norm_first else "")
            c.add(name, encoder_layer, x, 8, 2, *attn, gelu, norm_first, 1e-5, *rest, None,
                  None, rtol=1e-4, atol=1e-5)
    c.add("encoder_layer_padding_mask", encoder_layer, x, 8, 2, *attn, False, False, 1e-5,
          *rest, torch.tensor([[False, False, True], [False, True, True]]), 1,
          rtol=1e-4, atol=1e-5)
    x16 = r(2, 4, 16)
    attn16, rest16 = encoder_weights(16, 32)
    c.add("encoder_layer_sdpa_path", encoder_layer, x16, 16, 2, *attn16, True, False, 1e-5,
          *rest16, torch.tensor([[False, False, False, True], [False, True, True, True]]), 1,
          rtol=1e-4, atol=1e-5)
    c.add("encoder_layer_f64", encoder_layer, x.double(), 8, 2,
          *[t.double() for t in attn], False, False, 1e-5, *[t.double() for t in rest], None,
          None)
    c.add("encoder_layer_f16", encoder_layer, x.half(), 8, 2, *[t.half() for t in attn], True,
          True, 1e-5, *[t.half() for t in rest], None, None, rtol=2e-2, atol=2e-2)
    c.add("encoder_layer_empty", encoder_layer, x[:0], 8, 2, *attn, False, False, 1e-5, *rest,
          None, None)


class _SelfAttention(nn.Module):
    """`mha(x, x, x)`: one tensor for query, key and value, as the fast path needs."""

    def __init__(self, mha, need_weights=True):
        super().__init__()
        self.mha = mha
        self.need_weights = need_weights

    def forward(self, x, *masks):
        padding = masks[0] if masks else None
        out, weights = self.mha(x, x, x, key_padding_mask=padding,
                                need_weights=self.need_weights)
        # A trace cannot return None (the weights when they are not needed).
        return (out, weights) if self.need_weights else out


class _WithPadding(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x, padding):
        return self.module(x, src_key_padding_mask=padding)


def module_cases(c):
    torch.manual_seed(2)
    x = r(2, 3, 8)
    padding = torch.tensor([[False, False, True], [False, True, False]])
    traced = [
        ("traced_mha_fast_path", _SelfAttention(nn.MultiheadAttention(8, 2, batch_first=True),
                                                need_weights=False), (x,)),
        ("traced_mha_fast_path_weights",
         _SelfAttention(nn.MultiheadAttention(8, 2, batch_first=True)), (x,)),
        ("traced_mha_fast_path_padding",
         _SelfAttention(nn.MultiheadAttention(16, 2, batch_first=True), need_weights=False),
         (r(2, 3, 16), padding)),
        ("traced_mha_seq_first", _SelfAttention(nn.MultiheadAttention(8, 2)), (x,)),
        ("traced_mha_kdim", nn.MultiheadAttention(8, 2, kdim=4, vdim=6, batch_first=True),
         (x, r(2, 5, 4), r(2, 5, 6))),
        ("traced_encoder_layer", nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), (x,)),
        ("traced_encoder_layer_gelu_norm_first",
         nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", norm_first=True,
                                    batch_first=True), (x,)),
        ("traced_encoder_layer_padding",
         _WithPadding(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)), (x, padding)),
        ("traced_encoder_layer_seq_first", nn.TransformerEncoderLayer(8, 2, 16), (x,)),
        ("traced_encoder", nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
            enable_nested_tensor=False), (x,)),
        ("traced_decoder_layer", nn.TransformerDecoderLayer(8, 2, 16, batch_first=True),
         (x, r(2, 4, 8))),
        ("traced_transformer", nn.Transformer(8, 2, 1, 1, 16, batch_first=True),
         (r(2, 4, 8), x)),
    ]
    for name, module, inputs in traced:
        fn, params = module_call(module.eval(), len(inputs))
        c.add_traced(name, fn, *inputs, *params, rtol=1e-4, atol=1e-5)
    # The slow path, scripted: every op of F.multi_head_attention_forward.
    w = mha_weights(8)
    q = r(3, 2, 8)
    c.add("scripted_mha_forward", mha_forward, q, q, q, 2, *w, None, None, True,
          rtol=1e-4, atol=1e-5, inline=True)
    c.add("scripted_mha_forward_masks", mha_forward, q, r(4, 2, 8), r(4, 2, 8), 2, *w,
          torch.tensor([[False, False, True, False], [False, True, False, False]]),
          torch.rand(3, 4) > 0.8, False, rtol=1e-4, atol=1e-5, inline=True)


def cases(c):
    torch.manual_seed(0)
    sdpa_cases(c)
    masked_softmax_cases(c)
    nested_cases(c)
    mha_cases(c)
    encoder_cases(c)
    module_cases(c)
