//! `glu(self, dim)`: the gated linear unit of conformers and wav2vec feature extractors,
//! `a * sigmoid(b)` for the two halves of `dim`, computed in float (float64 for float64)
//! and rounded once to the input's dtype, as PyTorch's CPU kernel does.

use ember_dialects::{Graph, Node};

use super::work::{slice, slice_mut, to_contiguous};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{err, int, op_n, tensor, write_out};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{wrap_dim, DType, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::glu", glu_op);
}

/// `glu(self, dim=-1)` and `glu.out(self, dim, *, out)`.
fn glu_op(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    Ok(op_n(count, move |a| {
        let r = glu(&tensor(&a[0])?, int(&a[1])?).map_err(err)?;
        if count == 3 {
            let out = tensor(&a[2])?;
            write_out(&out, &r)?;
            return Ok(IValue::Tensor(out));
        }
        Ok(IValue::Tensor(r))
    }))
}

pub fn glu(x: &Tensor, dim: i64) -> TensorResult<Tensor> {
    if x.dim() == 0 {
        bail!("glu does not support 0-dimensional tensors");
    }
    let d = wrap_dim(dim, x.dim())?;
    let n = x.sizes()[d];
    if n % 2 != 0 {
        bail!("Halving dimension must be even, but dimension {d} is size {n}");
    }
    if !x.dtype().is_floating() {
        bail!(
            "\"glu_cpu\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let half = n / 2;
    let (a, b) = (
        x.narrow(d as i64, 0, half)?,
        x.narrow(d as i64, half, half)?,
    );
    let out = if x.dtype() == DType::F64 {
        gate::<f64>(&a, &b)?
    } else {
        gate::<f32>(&a, &b)?
    };
    if out.dtype() != x.dtype() {
        return to_contiguous(&out, x.dtype());
    }
    Ok(out)
}

/// `a * (1 / (1 + exp(-b)))` elementwise in `F`.
fn gate<F: Element + num_like::Float>(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    let a = to_contiguous(a, F::DTYPE)?;
    let b = to_contiguous(b, F::DTYPE)?;
    let out = Tensor::zeros(&a.sizes(), F::DTYPE)?;
    // SAFETY: `a` and `b` are contiguous of F with the same sizes; `out` is fresh.
    let (av, bv, ov) = unsafe { (slice::<F>(&a), slice::<F>(&b), slice_mut::<F>(&out)) };
    for ((o, &x), &y) in ov.iter_mut().zip(av).zip(bv) {
        *o = x.gate(y);
    }
    Ok(out)
}

mod num_like {
    /// The gate in each float type.
    pub trait Float: Copy {
        fn gate(self, b: Self) -> Self;
    }
    impl Float for f32 {
        fn gate(self, b: f32) -> f32 {
            self * (1.0 / (1.0 + (-b).exp()))
        }
    }
    impl Float for f64 {
        fn gate(self, b: f64) -> f64 {
            self * (1.0 / (1.0 + (-b).exp()))
        }
    }
}
