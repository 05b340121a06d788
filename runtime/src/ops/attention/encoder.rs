//! `_transformer_encoder_layer_fwd`: the fused eval-mode `nn.TransformerEncoderLayer`, as
//! PyTorch's `transformer_encoder_layer_forward` composes it: self-attention (the native MHA),
//! residual, layer norm, feed-forward (linear, relu or exact gelu, linear), residual, layer
//! norm; `norm_first` moves each norm before its block.

use super::mha::{native_multi_head_attention, Mha};
use crate::ops::linalg::products::linear;
use crate::ops::linalg::sgemm::{linear_f32, PackCache};
use crate::ops::nn::epilogue::{Activation, Epilogue};
use crate::ops::nn::norm::layer_norm;
use crate::ops::pointwise::fast::Binary;
use crate::tensor::elementwise::{map, Arg, Compute, Target};
use crate::tensor::{Tensor, TensorResult};

/// The weights and options of one encoder layer.
pub struct EncoderLayer<'a> {
    pub attention: Mha<'a>,
    pub use_gelu: bool,
    pub norm_first: bool,
    pub eps: f64,
    pub norm1: (&'a Tensor, &'a Tensor),
    pub norm2: (&'a Tensor, &'a Tensor),
    pub ffn1: (&'a Tensor, &'a Tensor),
    pub ffn2: (&'a Tensor, &'a Tensor),
    /// Packed constant weights of the feed-forward layers, kept across calls.
    pub(crate) ffn_packs: [Option<&'a PackCache>; 2],
}

pub fn transformer_encoder_layer(src: &Tensor, p: &EncoderLayer) -> TensorResult<Tensor> {
    if src.numel() == 0 {
        return src.clone_contiguous();
    }
    let norm = |x: &Tensor, (w, b): (&Tensor, &Tensor)| -> TensorResult<Tensor> {
        Ok(layer_norm(x, &[p.attention.embed_dim], Some(w), Some(b), p.eps)?.0)
    };
    let mut x = src.clone();
    if p.norm_first {
        x = norm(&x, p.norm1)?;
    }
    x = native_multi_head_attention(&x, &x, &x, &p.attention)?.0;
    x = add(&x, src)?;
    if !p.norm_first {
        x = norm(&x, p.norm1)?;
    }
    let residual = x.clone();
    if p.norm_first {
        x = norm(&x, p.norm2)?;
    }
    // Float32: the activation and the second residual run in the GEMMs' epilogues.
    let act = if p.use_gelu {
        Activation::Gelu
    } else {
        Activation::Relu
    };
    let epi = Epilogue {
        residual: None,
        act,
    };
    if let Some(activated) = linear_f32(&x, p.ffn1.0, Some(p.ffn1.1), &epi, p.ffn_packs[0])? {
        let residual = residual.contiguous()?;
        // The epilogue reads the residual at the output's positions: same shape, or no fusion.
        let mut out_sizes = activated.sizes();
        if let (Some(last), Some(&rows)) = (out_sizes.last_mut(), p.ffn2.0.sizes().first()) {
            *last = rows;
        }
        if p.ffn2.0.dim() == 2 && out_sizes == residual.sizes() && residual.dtype() == x.dtype() {
            let epi = Epilogue {
                residual: Some(residual.data_ptr() as usize),
                act: Activation::None,
            };
            if let Some(out) =
                linear_f32(&activated, p.ffn2.0, Some(p.ffn2.1), &epi, p.ffn_packs[1])?
            {
                return if p.norm_first {
                    Ok(out)
                } else {
                    norm(&out, p.norm2)
                };
            }
        }
        let out = add(&linear(&activated, p.ffn2.0, Some(p.ffn2.1))?, &residual)?;
        return if p.norm_first {
            Ok(out)
        } else {
            norm(&out, p.norm2)
        };
    }
    let hidden = linear(&x, p.ffn1.0, Some(p.ffn1.1))?;
    let activated = if p.use_gelu {
        map(
            &[Arg::Tensor(hidden)],
            Compute::Float(&|v| v[0] * 0.5 * (1.0 + libm::erf(v[0] / std::f64::consts::SQRT_2))),
            Target::New(x.dtype()),
        )?
    } else {
        map(
            &[Arg::Tensor(hidden)],
            Compute::Float(&|v| {
                if v[0] > 0.0 || v[0].is_nan() {
                    v[0]
                } else {
                    0.0
                }
            }),
            Target::New(x.dtype()),
        )?
    };
    x = linear(&activated, p.ffn2.0, Some(p.ffn2.1))?;
    x = add(&x, &residual)?;
    if !p.norm_first {
        x = norm(&x, p.norm2)?;
    }
    Ok(x)
}

/// `a + b` into a new tensor of `a`'s dtype (PyTorch's `a.add_(b)`).
fn add(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    let (x, y) = (Arg::Tensor(a.clone()), Arg::Tensor(b.clone()));
    if let Some(sum) = crate::ops::pointwise::fast::binary(Binary::Add(1.0), &x, &y, None) {
        return Ok(sum);
    }
    map(
        &[Arg::Tensor(a.clone()), Arg::Tensor(b.clone())],
        Compute::Float(&|v| v[0] + v[1]),
        Target::New(a.dtype()),
    )
}
