//! Attention operators: `scaled_dot_product_attention`, `_masked_softmax`, and the fused
//! eval-mode fast paths of `nn.MultiheadAttention` (`_native_multi_head_attention`) and
//! `nn.TransformerEncoderLayer` (`_transformer_encoder_layer_fwd`), and the nested-tensor
//! queries around them.

pub mod encoder;
pub mod fused;
pub mod mha;
pub mod nested;
pub mod sdpa;
pub mod softmax;

use crate::ops::linalg::is_constant;
use crate::ops::linalg::sgemm::PackCache;
use ember_dialects::{Graph, Node};

use self::encoder::EncoderLayer;
use self::mha::Mha;
use super::args::{
    boolean, err, int, number, op_multi, op_n, opt_int, opt_tensor, tensor, write_out,
};
use super::registry::Registry;
use super::Operation;
use crate::ivalue::IValue;

pub fn register(r: &mut Registry) {
    r.add("aten::scaled_dot_product_attention", sdpa);
    r.add("aten::_masked_softmax", masked_softmax);
    r.add("aten::_native_multi_head_attention", native_mha);
    r.add("aten::_transformer_encoder_layer_fwd", encoder_layer);
    nested::register(r);
}

fn count_in(g: &Graph, n: Node, lo: usize, hi: usize, op: &str) -> Result<usize, String> {
    let count = g.node_inputs(n).len();
    if count < lo || count > hi {
        return Err(format!("{op} takes {lo} to {hi} inputs, got {count}"));
    }
    Ok(count)
}

fn opt_number(v: Option<&IValue>) -> Result<Option<f64>, String> {
    match v {
        None | Some(IValue::None) => Ok(None),
        Some(x) => number(x).map(Some),
    }
}

fn opt_int_arg(v: Option<&IValue>) -> Result<Option<i64>, String> {
    v.map_or(Ok(None), opt_int)
}

/// `(query, key, value, attn_mask=None, dropout_p=0., is_causal=False, *, scale=None,
/// enable_gqa=False)`.
fn sdpa(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = count_in(g, n, 3, 8, "aten::scaled_dot_product_attention")?;
    Ok(op_n(count, move |a| {
        let mask = a.get(3).map(opt_tensor).transpose()?.flatten();
        let o = sdpa::Options {
            attn_mask: mask.as_ref(),
            dropout_p: opt_number(a.get(4))?.unwrap_or(0.0),
            is_causal: a.get(5).map_or(Ok(false), boolean)?,
            scale: opt_number(a.get(6))?,
            enable_gqa: a.get(7).map_or(Ok(false), boolean)?,
        };
        let (q, k, v) = (tensor(&a[0])?, tensor(&a[1])?, tensor(&a[2])?);
        let out = sdpa::scaled_dot_product_attention(&q, &k, &v, &o).map_err(err)?;
        Ok(IValue::Tensor(out))
    }))
}

/// `(self, mask, dim=None, mask_type=None)` and the `.out` form.
fn masked_softmax(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = count_in(g, n, 2, 5, "aten::_masked_softmax")?;
    Ok(op_n(count, move |a| {
        let r = mha::masked_softmax(
            &tensor(&a[0])?,
            &tensor(&a[1])?,
            opt_int_arg(a.get(2))?,
            opt_int_arg(a.get(3))?,
        )
        .map_err(err)?;
        match a.get(4) {
            Some(out) => {
                let out = tensor(out)?;
                write_out(&out, &r)?;
                Ok(IValue::Tensor(out))
            }
            None => Ok(IValue::Tensor(r)),
        }
    }))
}

/// `(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias,
/// mask=None, need_weights=True, average_attn_weights=True, mask_type=None)` and the `.out`
/// form (two out tensors). Without weights the second result is None (an undefined tensor).
fn native_mha(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = count_in(g, n, 9, 15, "aten::_native_multi_head_attention")?;
    // Constant weights (frozen graphs) are packed once for this node: qkv, proj.
    let packs = [5, 7].map(|i| is_constant(g, n, i).then(PackCache::default));
    Ok(op_multi(count, move |a| {
        let (q, k, v) = (tensor(&a[0])?, tensor(&a[1])?, tensor(&a[2])?);
        let w = [
            tensor(&a[5])?,
            tensor(&a[6])?,
            tensor(&a[7])?,
            tensor(&a[8])?,
        ];
        let mask = a.get(9).map(opt_tensor).transpose()?.flatten();
        let p = Mha {
            embed_dim: int(&a[3])?,
            num_head: int(&a[4])?,
            qkv_weight: &w[0],
            qkv_bias: &w[1],
            proj_weight: &w[2],
            proj_bias: &w[3],
            mask: mask.as_ref(),
            need_weights: a.get(10).map_or(Ok(true), boolean)?,
            average_attn_weights: a.get(11).map_or(Ok(true), boolean)?,
            mask_type: opt_int_arg(a.get(12))?,
            packs: [packs[0].as_ref(), packs[1].as_ref()],
        };
        let (out, weights) = mha::native_multi_head_attention(&q, &k, &v, &p).map_err(err)?;
        if count == 15 {
            let (o0, o1) = (tensor(&a[13])?, tensor(&a[14])?);
            write_out(&o0, &out)?;
            if let Some(wt) = &weights {
                write_out(&o1, wt)?;
            }
            return Ok(vec![IValue::Tensor(o0), IValue::Tensor(o1)]);
        }
        Ok(vec![
            IValue::Tensor(out),
            weights.map_or(IValue::None, IValue::Tensor),
        ])
    }))
}

/// `(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias, use_gelu,
/// norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1,
/// ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None)` and the `.out` form.
fn encoder_layer(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = count_in(g, n, 18, 21, "aten::_transformer_encoder_layer_fwd")?;
    // Constant weights (frozen graphs) are packed once for this node: qkv, proj, ffn1, ffn2.
    let packs = [3, 5, 14, 16].map(|i| is_constant(g, n, i).then(PackCache::default));
    Ok(op_n(count, move |a| {
        let src = tensor(&a[0])?;
        let t = |i: usize| tensor(&a[i]);
        let w: Vec<_> = [3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17]
            .iter()
            .map(|&i| t(i))
            .collect::<Result<_, _>>()?;
        let mask = a.get(18).map(opt_tensor).transpose()?.flatten();
        let p = EncoderLayer {
            attention: Mha {
                embed_dim: int(&a[1])?,
                num_head: int(&a[2])?,
                qkv_weight: &w[0],
                qkv_bias: &w[1],
                proj_weight: &w[2],
                proj_bias: &w[3],
                mask: mask.as_ref(),
                need_weights: false,
                average_attn_weights: true,
                mask_type: opt_int_arg(a.get(19))?,
                packs: [packs[0].as_ref(), packs[1].as_ref()],
            },
            use_gelu: boolean(&a[7])?,
            norm_first: boolean(&a[8])?,
            eps: number(&a[9])?,
            norm1: (&w[4], &w[5]),
            norm2: (&w[6], &w[7]),
            ffn1: (&w[8], &w[9]),
            ffn2: (&w[10], &w[11]),
            ffn_packs: [packs[2].as_ref(), packs[3].as_ref()],
        };
        let r = encoder::transformer_encoder_layer(&src, &p).map_err(err)?;
        match a.get(20) {
            Some(out) => {
                let out = tensor(out)?;
                write_out(&out, &r)?;
                Ok(IValue::Tensor(out))
            }
            None => Ok(IValue::Tensor(r)),
        }
    }))
}

#[cfg(test)]
mod tests;
