//! `diff(self, n, dim, prepend, append)`: the n-th forward difference along a dim (logical
//! xor for bool), after concatenating `prepend` and `append`, with PyTorch's checks. Each
//! difference is computed in the dtype (integers wrap).

use super::call::{kernels, Call};
use super::join::cat_tensors;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{wrap_dim, DType, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::diff", |o| matches!(o, "" | "out")
        .then_some(diff_kernel as _));
}

fn diff_kernel(c: &Call) -> TensorResult<IValue> {
    let x = c.tensor("self")?;
    let n = c.int("n")?;
    let dim = c.int("dim")?;
    let prepend = c.opt_tensor("prepend")?;
    let append = c.opt_tensor("append")?;
    Ok(IValue::Tensor(diff(
        &x,
        n,
        dim,
        prepend.as_ref(),
        append.as_ref(),
    )?))
}

fn check_compatible(x: &Tensor, other: Option<&Tensor>, dim: i64) -> TensorResult<()> {
    let Some(o) = other else { return Ok(()) };
    let d = wrap_dim(dim, x.dim())?;
    if o.dim() != x.dim() {
        bail!("diff expects prepend or append to be the same dimension as input");
    }
    let (xs, os) = (x.sizes(), o.sizes());
    for i in 0..o.dim() {
        if i != d && os[i] != xs[i] {
            bail!(
                "diff expects the shape of tensor to prepend or append to match that of input except along the differencing dimension; input.size({i}) = {}, but got tensor.size({i}) = {}",
                xs[i],
                os[i]
            );
        }
    }
    Ok(())
}

pub fn diff(
    x: &Tensor,
    n: i64,
    dim: i64,
    prepend: Option<&Tensor>,
    append: Option<&Tensor>,
) -> TensorResult<Tensor> {
    if x.dim() < 1 {
        bail!("diff expects input to be at least one-dimensional");
    }
    if n < 0 {
        bail!("order must be non-negative but got {n}");
    }
    check_compatible(x, prepend, dim)?;
    check_compatible(x, append, dim)?;
    if n == 0 {
        return x.clone_contiguous();
    }
    let joined = if prepend.is_some() || append.is_some() {
        let parts: Vec<Tensor> = prepend
            .into_iter()
            .chain([x])
            .chain(append)
            .cloned()
            .collect();
        cat_tensors(&parts, dim)?
    } else {
        x.clone()
    };
    let d = wrap_dim(dim, joined.dim())?;
    let len = joined.sizes()[d];
    let steps = n.min(len);
    // Move `dim` last so each difference runs along contiguous rows.
    let nd = joined.dim() as i64;
    let mut perm: Vec<i64> = (0..nd).filter(|&i| i != d as i64).collect();
    perm.push(d as i64);
    let rows = joined.permute(&perm)?.contiguous()?;
    let mut shape: Vec<i64> = rows.sizes().to_vec();
    let dtype = rows.dtype();
    let out = crate::dispatch_dtype!(dtype, T => {
        let mut v: Vec<T> = rows.to_vec::<T>();
        let mut cur = len as usize;
        // `steps` is at most `len`, so every step has rows of at least one element.
        for _ in 0..steps {
            let next = cur - 1;
            let mut w = Vec::with_capacity(v.len() / cur * next);
            for row in v.chunks_exact(cur) {
                for k in 0..next {
                    w.push(difference::<T>(row[k + 1], row[k]));
                }
            }
            v = w;
            cur = next;
        }
        *shape.last_mut().unwrap_or(&mut 0) = cur as i64;
        Tensor::from_vec(v, &shape)?
    });
    // Move the differenced dim back.
    let mut back: Vec<i64> = (0..nd - 1).collect();
    back.insert(d, nd - 1);
    out.permute(&back)?.contiguous()
}

/// `a - b` in `T` (wrapping for integers, xor for bool, the float rounded once).
fn difference<T: Element>(a: T, b: T) -> T {
    match T::DTYPE {
        DType::Bool => T::from_i64((a.is_nonzero() != b.is_nonzero()) as i64),
        d if d.is_floating() => T::from_f64(a.to_f64() - b.to_f64()),
        _ => T::from_i64(a.to_i64().wrapping_sub(b.to_i64())),
    }
}
