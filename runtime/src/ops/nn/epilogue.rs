//! What a fused convolution or linear layer does to its output while it is still in cache:
//! add a residual, then an activation (`ember::conv2d_fused`, `ember::linear_fused`). The
//! float32 loops are branch-free, so they vectorize at the width of the kernel that calls
//! them (AVX2 or AVX-512, see `ops::cpu::dispatch`).

use crate::ops::cpu;
use crate::ops::pointwise::vmath;
use crate::tensor::Tensor;

/// The activation of a fused operator.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Activation {
    None,
    Relu,
    /// `clamp(x, min, max)` (hardtanh, relu6); a missing bound is infinite.
    Clamp {
        min: f32,
        max: f32,
    },
    Hardswish,
    Hardsigmoid,
    Silu,
    Sigmoid,
    Tanh,
    /// gelu with `approximate="none"` (erf).
    Gelu,
}

/// The activation names the fused operators take.
pub const ACTIVATIONS: &[&str] = &[
    "none",
    "relu",
    "clamp",
    "hardswish",
    "hardsigmoid",
    "silu",
    "sigmoid",
    "tanh",
    "gelu",
];

impl Activation {
    /// The activation named `name`; `min`/`max` only for "clamp" (either may be None).
    pub fn parse(name: &str, min: Option<f64>, max: Option<f64>) -> Result<Activation, String> {
        Ok(match name {
            "none" => Activation::None,
            "relu" => Activation::Relu,
            "clamp" => Activation::Clamp {
                min: min.map_or(f32::NEG_INFINITY, |v| v as f32),
                max: max.map_or(f32::INFINITY, |v| v as f32),
            },
            "hardswish" => Activation::Hardswish,
            "hardsigmoid" => Activation::Hardsigmoid,
            "silu" => Activation::Silu,
            "sigmoid" => Activation::Sigmoid,
            "tanh" => Activation::Tanh,
            "gelu" => Activation::Gelu,
            other => {
                return Err(format!(
                    "unknown activation \"{other}\": expected one of {}",
                    ACTIVATIONS.join(", ")
                ))
            }
        })
    }

    /// The activation of one float32 value, as PyTorch's float32 kernels compute it (the
    /// transcendental ones within about 1 ulp).
    #[inline(always)]
    pub fn eval(self, v: f32) -> f32 {
        match self {
            Activation::None => v,
            Activation::Relu => vmath::relu(v),
            Activation::Clamp { min, max } => clamp(v, min, max),
            Activation::Hardswish => vmath::hardswish(v),
            Activation::Hardsigmoid => vmath::hardsigmoid(v),
            Activation::Silu => vmath::silu(v),
            Activation::Sigmoid => vmath::sigmoid(v),
            Activation::Tanh => vmath::tanh(v),
            Activation::Gelu => vmath::gelu(v),
        }
    }
}

/// `min(max(v, lo), hi)` keeping NaN, as PyTorch's clamp (`hi` wins when `lo > hi`).
#[inline(always)]
fn clamp(v: f32, lo: f32, hi: f32) -> f32 {
    let y = if v < lo { lo } else { v };
    if y > hi {
        hi
    } else {
        y
    }
}

/// Runs `$body` with `$a` bound to the activation as a constant of its own arm, so that each
/// loop is compiled for one activation (no branch inside the loop).
macro_rules! per_activation {
    ($act:expr, $a:ident => $body:expr) => {
        match $act {
            Activation::None => {
                let $a = Activation::None;
                $body
            }
            Activation::Relu => {
                let $a = Activation::Relu;
                $body
            }
            $a @ Activation::Clamp { .. } => $body,
            Activation::Hardswish => {
                let $a = Activation::Hardswish;
                $body
            }
            Activation::Hardsigmoid => {
                let $a = Activation::Hardsigmoid;
                $body
            }
            Activation::Silu => {
                let $a = Activation::Silu;
                $body
            }
            Activation::Sigmoid => {
                let $a = Activation::Sigmoid;
                $body
            }
            Activation::Tanh => {
                let $a = Activation::Tanh;
                $body
            }
            Activation::Gelu => {
                let $a = Activation::Gelu;
                $body
            }
        }
    };
}

/// A residual addition and an activation applied to a float32 output.
#[derive(Copy, Clone, Debug)]
pub struct Epilogue {
    /// The address of a contiguous float32 tensor of the output's shape, read at the output's
    /// flat positions.
    pub residual: Option<usize>,
    pub act: Activation,
}

impl Epilogue {
    /// Leaves the output as it is.
    pub const NONE: Epilogue = Epilogue {
        residual: None,
        act: Activation::None,
    };

    pub fn is_identity(&self) -> bool {
        self.residual.is_none() && self.act == Activation::None
    }

    /// `out[i] = act(out[i] + residual[at + i])` for `i < n`, where `out` is the output at
    /// flat position `at`. Inline: it vectorizes at the caller's width.
    ///
    /// # Safety
    /// `out` addresses `n` floats that nothing else touches meanwhile; the residual holds
    /// at least `at + n` floats.
    #[inline(always)]
    pub unsafe fn apply(&self, out: *mut f32, at: usize, n: usize) {
        let o = std::slice::from_raw_parts_mut(out, n);
        match self.residual {
            Some(r) => {
                let r = std::slice::from_raw_parts((r as *const f32).add(at), n);
                per_activation!(self.act, a => {
                    for (y, &x) in o.iter_mut().zip(r) {
                        *y = a.eval(*y + x);
                    }
                });
            }
            None => per_activation!(self.act, a => {
                for y in o.iter_mut() {
                    *y = a.eval(*y);
                }
            }),
        }
    }
}

/// Applies a float32 epilogue to a whole contiguous float32 output that nothing else holds,
/// in one parallel pass (for the kernels that cannot apply it per tile).
pub(crate) fn apply_to(out: &Tensor, epi: &Epilogue) {
    if epi.is_identity() || out.numel() == 0 {
        return;
    }
    let level = cpu::isa();
    let (p, n) = (out.data_ptr() as usize, out.numel());
    const CHUNK: usize = 1 << 14;
    let run = |c: usize| {
        let (a, b) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
        // SAFETY: `out` is a contiguous float32 tensor of n elements that only the caller
        // holds; chunks are disjoint, and the residual has n elements (the epilogue's
        // contract).
        cpu::dispatch(
            level,
            #[inline(always)]
            || unsafe { epi.apply((p as *mut f32).add(a), a, b - a) },
        );
    };
    if n >= 4 * CHUNK {
        crate::parallel::for_each(n.div_ceil(CHUNK), run);
    } else {
        (0..n.div_ceil(CHUNK)).for_each(run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_parse_and_evaluate() {
        assert_eq!(
            Activation::parse("clamp", Some(0.0), None).unwrap(),
            Activation::Clamp {
                min: 0.0,
                max: f32::INFINITY
            }
        );
        let e = Activation::parse("swish", None, None).unwrap_err();
        assert!(e.contains("unknown activation \"swish\""), "{e}");
        let relu6 = Activation::parse("clamp", Some(0.0), Some(6.0)).unwrap();
        assert_eq!(relu6.eval(7.0), 6.0);
        assert!(relu6.eval(f32::NAN).is_nan());
        assert_eq!(Activation::Hardswish.eval(1.0), 1.0 * 4.0 / 6.0);
        assert_eq!(Activation::Hardsigmoid.eval(-4.0), 0.0);
        let inverted = Activation::Clamp { min: 2.0, max: 1.0 };
        assert_eq!(inverted.eval(0.0), 1.0);
    }

    #[test]
    fn applies_residual_then_activation_at_every_width() {
        let n = 37;
        let res: Vec<f32> = (0..n + 5).map(|i| i as f32 * 0.25 - 5.0).collect();
        for level in crate::ops::cpu::available_levels() {
            let mut out: Vec<f32> = (0..n).map(|i| 1.0 - i as f32 * 0.1).collect();
            let want: Vec<f32> = out
                .iter()
                .enumerate()
                .map(|(i, &y)| Activation::Relu.eval(y + res[5 + i]))
                .collect();
            let e = Epilogue {
                residual: Some(res.as_ptr() as usize),
                act: Activation::Relu,
            };
            // SAFETY: `out` holds n floats, the residual n + 5.
            crate::ops::cpu::dispatch(
                level,
                #[inline(always)]
                || unsafe { e.apply(out.as_mut_ptr(), 5, n) },
            );
            assert_eq!(out, want, "{level:?}");
        }
    }
}
