//! `torch.matmul`: every rank combination, as PyTorch's `_matmul_impl` dispatches them —
//! dot, mv, mm, a folded mm when only the left side has batch dims, otherwise bmm over the
//! broadcast batch dims.

use super::products::{bmm, dot, mm, mv};
use crate::bail;
use crate::tensor::{broadcast_shapes, Tensor, TensorResult};

/// `torch.matmul(a, b)`.
pub fn matmul(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    let (d1, d2) = (a.dim(), b.dim());
    if d1 == 0 || d2 == 0 {
        bail!("both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D");
    }
    match (d1, d2) {
        (1, 1) => dot(a, b),
        (2, 1) => mv(a, b),
        (1, 2) => mm(&a.unsqueeze(0)?, b)?.squeeze(Some(0)),
        (2, 2) => mm(a, b),
        (_, 1) | (_, 2) if d1 >= 3 => {
            // Fold the batch dims of `a` into the rows of one mm.
            let sa = a.sizes();
            let k = sa[d1 - 1];
            let folded = a.reshape(&[-1, k])?;
            let mut shape = sa[..d1 - 1].to_vec();
            let out = if d2 == 1 {
                mv(&folded, b)?
            } else {
                shape.push(b.sizes()[1]);
                mm(&folded, b)?
            };
            out.view(&shape)
        }
        _ => batched(a, b),
    }
}

fn batched(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    let (d1, d2) = (a.dim(), b.dim());
    let (sa, sb) = (a.sizes(), b.sizes());
    let n = if d1 > 1 { sa[d1 - 2] } else { 1 };
    let m1 = sa[d1 - 1];
    let batch_a = if d1 > 2 { &sa[..d1 - 2] } else { &[][..] };
    let m2 = if d2 > 1 { sb[d2 - 2] } else { sb[0] };
    let p = if d2 > 1 { sb[d2 - 1] } else { 1 };
    let batch_b = if d2 > 2 { &sb[..d2 - 2] } else { &[][..] };
    let batch = broadcast_shapes(batch_a, batch_b)?;
    let count: i64 = batch.iter().product();
    let a3 = if d1 == 1 { a.unsqueeze(0)? } else { a.clone() };
    let b3 = if d2 == 1 { b.unsqueeze(1)? } else { b.clone() };
    let mut ea = batch.to_vec();
    ea.extend([n, m1]);
    let mut eb = batch.to_vec();
    eb.extend([m2, p]);
    let a3 = a3.expand(&ea)?.reshape(&[count, n, m1])?;
    let b3 = b3.expand(&eb)?.reshape(&[count, m2, p])?;
    let out = bmm(&a3, &b3)?;
    let mut shape = batch.to_vec();
    if d1 > 1 {
        shape.push(n);
    }
    if d2 > 1 {
        shape.push(p);
    }
    out.view(&shape)
}
