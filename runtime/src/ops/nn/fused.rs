//! Ember's fused operators (dialects/data/ember_schemas.txt), which the freezing passes emit:
//! `ember::conv2d_fused`, `ember::conv1d_fused` and `ember::linear_fused` compute
//! `act(op(input, weight, bias) + residual)` as the unfused PyTorch ops would.
//!
//! float32 takes the fused path: the convolution kernels apply the residual and activation
//! to each tile while it is in cache (`epilogue.rs`), the linear layer in one pass over its
//! fresh output. Other dtypes, and residuals that would broadcast the result to a larger
//! shape, run the real `aten::add` and activation operators one after the other, so their
//! promotion rules and messages are PyTorch's.

use std::sync::OnceLock;

use ember_dialects::{Graph, Node};

use super::conv::{conv_functional, conv_functional_fused, ConvParams};
use super::epilogue::{apply_to, Activation, Epilogue};
use super::work::slice;
use crate::ivalue::IValue;
use crate::ops::args::{err, int, int_list, op_n, opt_tensor, tensor};
use crate::ops::linalg::products::linear;
use crate::ops::linalg::sgemm::{linear_f32, PackCache};
use crate::ops::registry::Registry;
use crate::ops::{Operation, Stack};
use crate::tensor::{broadcast_shapes, DType, Tensor};

pub fn register(r: &mut Registry) {
    r.add("ember::conv2d_fused", |g, n| {
        conv_fused_op(g, n, "conv2d", 4)
    });
    r.add("ember::conv1d_fused", |g, n| {
        conv_fused_op(g, n, "conv1d", 3)
    });
    r.add("ember::linear_fused", linear_fused_op);
}

/// The epilogue arguments of a call: residual, activation name, clamp bounds.
struct EpilogueArgs {
    residual: Option<Tensor>,
    activation: String,
    min: Option<f64>,
    max: Option<f64>,
    /// `y.add_(residual)` rather than `y + residual`: only the unfused path differs (the
    /// fused one runs when both give the same tensor).
    in_place: bool,
}

impl EpilogueArgs {
    /// Reads the arguments from `a[at..]` (absent trailing ones take their defaults).
    fn read(a: &[IValue], at: usize) -> Result<EpilogueArgs, String> {
        let opt_float = |i: usize| match a.get(i) {
            None | Some(IValue::None) => Ok(None),
            Some(IValue::Double(d)) => Ok(Some(*d)),
            Some(IValue::Int(v)) => Ok(Some(*v as f64)),
            Some(other) => Err(format!("expected a float but got {}", other.kind_name())),
        };
        let activation = match a.get(at + 1) {
            None => "none".to_string(),
            Some(IValue::Str(s)) => s.to_string(),
            Some(other) => {
                return Err(format!(
                    "expected a str for argument 'activation' but got {}",
                    other.kind_name()
                ))
            }
        };
        let in_place = match a.get(at + 4) {
            None => false,
            Some(IValue::Bool(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "expected a bool for argument 'residual_in_place' but got {}",
                    other.kind_name()
                ))
            }
        };
        Ok(EpilogueArgs {
            residual: a.get(at).map(opt_tensor).transpose()?.flatten(),
            activation,
            min: opt_float(at + 2)?,
            max: opt_float(at + 3)?,
            in_place,
        })
    }

    fn activation(&self) -> Result<Activation, String> {
        if self.activation == "clamp" && self.min.is_none() && self.max.is_none() {
            return Err("torch.clamp: At least one of 'min' or 'max' must not be None".into());
        }
        Activation::parse(&self.activation, self.min, self.max)
    }

    /// The fused float32 epilogue for a result of shape `out` and dtype float32, with the
    /// residual broadcast to it (returned so the caller keeps it alive); `None` when the
    /// unfused operators must run (another dtype, a residual that broadcasts the result).
    fn fused(&self, out: &[i64]) -> Result<Option<(Epilogue, Option<Tensor>)>, String> {
        let act = self.activation()?;
        let Some(r) = &self.residual else {
            return Ok(Some((
                Epilogue {
                    residual: None,
                    act,
                },
                None,
            )));
        };
        if r.dtype() != DType::F32 {
            return Ok(None);
        }
        match broadcast_shapes(out, &r.sizes()) {
            Ok(s) if s.as_slice() == out => {}
            _ => return Ok(None),
        }
        let r = r.expand(out).and_then(|e| e.contiguous()).map_err(err)?;
        let epi = Epilogue {
            residual: Some(r.data_ptr() as usize),
            act,
        };
        Ok(Some((epi, Some(r))))
    }

    /// `act(y + residual)` through the real operators (`ops` built on first use).
    fn unfused(
        &self,
        y: Tensor,
        ops: &OnceLock<Result<Unfused, String>>,
    ) -> Result<Tensor, String> {
        self.activation()?;
        let ops = ops
            .get_or_init(|| Unfused::build(&self.activation, self.in_place))
            .as_ref()
            .map_err(Clone::clone)?;
        let mut stack: Stack = Vec::new();
        let mut y = IValue::Tensor(y);
        if let Some(r) = &self.residual {
            stack.extend([y, IValue::Tensor(r.clone()), IValue::Int(1)]);
            (ops.add)(&mut stack)?;
            y = stack.pop().ok_or("add returned nothing")?;
        }
        let Some(act) = &ops.act else {
            return tensor(&y);
        };
        stack.push(y);
        match self.activation.as_str() {
            "clamp" => stack.extend([
                self.min.map_or(IValue::None, IValue::Double),
                self.max.map_or(IValue::None, IValue::Double),
            ]),
            "gelu" => stack.push(IValue::Str("none".to_string().into())),
            _ => {}
        }
        act(&mut stack)?;
        tensor(&stack.pop().ok_or("the activation returned nothing")?)
    }
}

/// The registered `aten::add` and activation operators of an unfused epilogue.
struct Unfused {
    add: Operation,
    act: Option<Operation>,
}

impl Unfused {
    fn build(activation: &str, in_place: bool) -> Result<Unfused, String> {
        let add_kind = if in_place { "aten::add_" } else { "aten::add" };
        let add = aten_op(add_kind, &["Tensor", "Tensor", "int"])?;
        let act = match activation {
            "none" => None,
            "clamp" => Some(aten_op("aten::clamp", &["Tensor", "float?", "float?"])?),
            "gelu" => Some(aten_op("aten::gelu", &["Tensor", "str"])?),
            name => Some(aten_op(&format!("aten::{name}"), &["Tensor"])?),
        };
        Ok(Unfused { add, act })
    }
}

/// The registered operator of a one-node graph `kind(%0, %1, ...)` with inputs of `types`.
fn aten_op(kind: &str, types: &[&str]) -> Result<Operation, String> {
    let params: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i} : {t}"))
        .collect();
    let args: Vec<String> = (0..types.len()).map(|i| format!("%a{i}")).collect();
    let text = format!(
        "graph({}):\n  %r : Tensor = {kind}({})\n  return (%r)\n",
        params.join(", "),
        args.join(", ")
    );
    let g = ember_dialects::parse::parse_graph(&text).map_err(|d| d.to_string())?;
    let node = g
        .nodes()
        .into_iter()
        .find(|&n| g.kind(n).as_str() == kind)
        .ok_or_else(|| format!("no {kind} node"))?;
    crate::ops::registry::registry().build(&g, node)
}

/// The output shape of a convolution by its formula (`None` when the arguments are malformed:
/// the convolution itself then reports them).
fn conv_output_shape(
    input: &Tensor,
    weight: &Tensor,
    p: &ConvParams,
    rank: usize,
) -> Option<Vec<i64>> {
    let (is, ws) = (input.sizes(), weight.sizes());
    let dims = rank - 2;
    if ws.len() != rank || (is.len() != rank && is.len() + 1 != rank) {
        return None;
    }
    let per_dim = |v: &[i64]| match v.len() {
        1 => Some(vec![v[0]; dims]),
        n if n == dims => Some(v.to_vec()),
        _ => None,
    };
    let (st, pa, di) = (
        per_dim(&p.stride)?,
        per_dim(&p.padding)?,
        per_dim(&p.dilation)?,
    );
    let lead = is.len() - dims;
    let mut out: Vec<i64> = is[..lead - 1].to_vec();
    out.push(ws[0]);
    for d in 0..dims {
        if st[d] <= 0 || di[d] <= 0 || pa[d] < 0 {
            return None;
        }
        let span = di[d] * (ws[d + 2] - 1) + 1;
        let padded = is[lead + d] + 2 * pa[d];
        if padded < span {
            return None;
        }
        out.push((padded - span) / st[d] + 1);
    }
    Some(out)
}

/// `ember::conv{1,2}d_fused(input, weight, bias, stride, padding, dilation, groups,
/// residual=None, activation="none", min=None, max=None, residual_in_place=False)`, and
/// conv2d_fused's `input_scale=None`.
fn conv_fused_op(g: &Graph, n: Node, name: &'static str, rank: usize) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    let ops: OnceLock<Result<Unfused, String>> = OnceLock::new();
    let mul: OnceLock<Result<Operation, String>> = OnceLock::new();
    let cache = super::weight_cache(g, n);
    Ok(op_n(count, move |a| {
        let arg = |i: usize| {
            a.get(i)
                .ok_or_else(|| format!("{name}_fused: missing argument {i}"))
        };
        let mut input = tensor(arg(0)?)?;
        let mut weight = tensor(arg(1)?)?;
        let bias = opt_tensor(arg(2)?)?;
        let mut p = ConvParams::new(
            int_list(arg(3)?)?,
            int_list(arg(4)?)?,
            int_list(arg(5)?)?,
            int(arg(6)?)?,
        );
        p.weights = cache.clone();
        let e = EpilogueArgs::read(a, 7)?;
        if let Some(scale) = a.get(12).map(opt_tensor).transpose()?.flatten() {
            // `input * scale` is `scale * input`: the scale may be either factor. The node's
            // cached transforms are of its own weights, so folded ones go without.
            if let Some(w) = scaled_weights(&input, &weight, &scale, p.groups).map_err(err)? {
                (weight, p.weights) = (w, None);
            } else if let Some(w) =
                scaled_weights(&scale, &weight, &input, p.groups).map_err(err)?
            {
                (input, weight, p.weights) = (scale, w, None);
            } else {
                let mul = mul
                    .get_or_init(|| aten_op("aten::mul", &["Tensor", "Tensor"]))
                    .as_ref()
                    .map_err(Clone::clone)?;
                let mut stack: Stack = vec![IValue::Tensor(input), IValue::Tensor(scale)];
                mul(&mut stack)?;
                input = tensor(&stack.pop().ok_or("mul returned nothing")?)?;
            }
        }
        let f32_inputs = input.dtype() == DType::F32
            && weight.dtype() == DType::F32
            && bias.as_ref().is_none_or(|b| b.dtype() == DType::F32);
        if f32_inputs {
            if let Some(out) = conv_output_shape(&input, &weight, &p, rank) {
                if let Some((epi, _keep)) = e.fused(&out)? {
                    let r =
                        conv_functional_fused(name, &input, &weight, bias.as_ref(), &p, rank, &epi)
                            .map_err(err)?;
                    return Ok(IValue::Tensor(r));
                }
            }
        }
        let y = conv_functional(name, &input, &weight, bias.as_ref(), &p, rank).map_err(err)?;
        Ok(IValue::Tensor(e.unfused(y, &ops)?))
    }))
}

/// The weights of `conv(input * scale, weight)` as `conv(input, weight * scale)`, where that
/// is the same convolution for less work: float32 throughout, `scale` one value per input
/// channel (`[c, 1, 1]` after leading ones), one group, and fewer weights than input elements
/// (a squeeze-and-excitation scale before a 1x1 convolution on a large plane: `o * c`
/// products instead of `c * h * w`). `None` where the input must be scaled instead.
fn scaled_weights(
    input: &Tensor,
    weight: &Tensor,
    scale: &Tensor,
    groups: i64,
) -> crate::tensor::TensorResult<Option<Tensor>> {
    let (is, ws, ss) = (input.sizes(), weight.sizes(), scale.sizes());
    let f32s = [input, weight, scale]
        .iter()
        .all(|t| t.dtype() == DType::F32);
    if !f32s || is.len() != 4 || ws.len() != 4 || groups != 1 || ws[1] != is[1] {
        return Ok(None);
    }
    let per_channel = ss.len() >= 3
        && ss.len() <= 4
        && ss[ss.len() - 3] == is[1]
        && ss[ss.len() - 2..] == [1, 1]
        && ss[..ss.len() - 3].iter().all(|&d| d == 1);
    // (No weights: the convolution reports its empty kernel.)
    if !per_channel || weight.numel() == 0 || weight.numel() >= input.numel() {
        return Ok(None);
    }
    let (w, s) = (weight.contiguous()?, scale.contiguous()?);
    // SAFETY: contiguous float32 tensors of their element counts.
    let (wv, sv) = unsafe { (slice::<f32>(&w), slice::<f32>(&s)) };
    let taps = (ws[2] * ws[3]) as usize;
    let mut scaled = Vec::with_capacity(wv.len());
    for row in wv.chunks(sv.len() * taps) {
        if taps == 1 {
            scaled.extend(row.iter().zip(sv).map(|(v, s)| v * s));
        } else {
            for (tap, s) in row.chunks(taps).zip(sv) {
                scaled.extend(tap.iter().map(|v| v * s));
            }
        }
    }
    Ok(Some(Tensor::from_vec(scaled, &ws)?))
}

/// `ember::linear_fused(input, weight, bias, residual=None, activation="none", min=None,
/// max=None, residual_in_place=False)`.
fn linear_fused_op(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    let cache = crate::ops::linalg::is_constant(g, n, 1).then(PackCache::default);
    let ops: OnceLock<Result<Unfused, String>> = OnceLock::new();
    Ok(op_n(count, move |a| {
        let arg = |i: usize| {
            a.get(i)
                .ok_or_else(|| format!("linear_fused: missing argument {i}"))
        };
        let input = tensor(arg(0)?)?;
        let weight = tensor(arg(1)?)?;
        let bias = opt_tensor(arg(2)?)?;
        let e = EpilogueArgs::read(a, 3)?;
        if weight.dim() == 2 && input.dim() >= 1 {
            let mut out = input.sizes()[..input.dim() - 1].to_vec();
            out.push(weight.sizes()[0]);
            if let Some((epi, _keep)) = e.fused(&out)? {
                let fast = linear_f32(&input, &weight, bias.as_ref(), &epi, cache.as_ref());
                if let Some(y) = fast.map_err(err)? {
                    return Ok(IValue::Tensor(y));
                }
            }
        }
        let y = linear(&input, &weight, bias.as_ref()).map_err(err)?;
        if y.dtype() == DType::F32 {
            if let Some((epi, _keep)) = e.fused(&y.sizes())? {
                let y = if y.is_contiguous() && y.storage().ref_count() == 1 {
                    y
                } else {
                    y.clone_contiguous().map_err(err)?
                };
                apply_to(&y, &epi);
                return Ok(IValue::Tensor(y));
            }
        }
        Ok(IValue::Tensor(e.unfused(y, &ops)?))
    }))
}
