//! `_unique2` / `_unique` (torch.unique without a dim), `unique_consecutive`, `unique_dim`
//! and `unique_dim_consecutive`: sorted unique values or slices, with inverse indices and
//! counts. As PyTorch's CPU kernels: the output is always sorted (NaN last, each NaN its own
//! value), an output not asked for is an empty int64 tensor, and every dtype is accepted.

use std::cmp::Ordering;

use ember_dialects::catalogue::resolve_node;
use ember_dialects::{Graph, Node};

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{arg_by_name, boolean, err, op_multi, opt_int, tensor};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{wrap_dim, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::_unique2", |g, n| build(g, n, Kind::Sorted));
    r.add("aten::_unique", |g, n| build(g, n, Kind::Sorted));
    r.add("aten::unique_consecutive", |g, n| {
        build(g, n, Kind::Consecutive)
    });
    r.add("aten::unique_dim", |g, n| build(g, n, Kind::Sorted));
    r.add("aten::unique_dim_consecutive", |g, n| {
        build(g, n, Kind::Consecutive)
    });
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    /// Sorted unique values (`_unique2`, `_unique`, `unique_dim`).
    Sorted,
    /// Runs of equal consecutive values.
    Consecutive,
}

/// Every overload reads its arguments by name: `dim` (an int, optional, or absent),
/// `return_inverse`, `return_counts` (absent in `_unique`, which returns two outputs).
fn build(g: &Graph, n: Node, kind: Kind) -> Result<Operation, String> {
    let schema = resolve_node(g, n)?;
    let count = schema.arguments.len();
    let outputs = schema.returns.len();
    Ok(op_multi(count, move |a| {
        let x = tensor(&a[0])?;
        let flag = |name: &str| arg_by_name(schema, a, name).map_or(Ok(false), boolean);
        let dim = match arg_by_name(schema, a, "dim") {
            Some(v) => opt_int(v)?,
            None => None,
        };
        let (inverse, counts) = (flag("return_inverse")?, flag("return_counts")?);
        let (values, inv, cnt) = match dim {
            None => unique_flat(&x, kind, inverse, counts),
            Some(d) => unique_along(&x, d, kind),
        }
        .map_err(err)?;
        let mut out = vec![IValue::Tensor(values), IValue::Tensor(inv)];
        if outputs == 3 {
            out.push(IValue::Tensor(cnt));
        }
        Ok(out)
    }))
}

/// The total order the sorted kernels use: numbers ascending, NaN after everything.
fn order<T: Element>(a: T, b: T) -> Ordering {
    if T::DTYPE.is_floating() {
        let (x, y) = (a.to_f64(), b.to_f64());
        match (x.is_nan(), y.is_nan()) {
            (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            (false, true) => Ordering::Less,
            (true, false) => Ordering::Greater,
            (true, true) => Ordering::Equal,
        }
    } else {
        a.to_i64().cmp(&b.to_i64())
    }
}

/// Equality for grouping: NaN equals nothing.
fn same<T: Element>(a: T, b: T) -> bool {
    if T::DTYPE.is_floating() {
        a.to_f64() == b.to_f64()
    } else {
        a.to_i64() == b.to_i64()
    }
}

fn empty_i64() -> TensorResult<Tensor> {
    Tensor::zeros(&[0], crate::tensor::DType::I64)
}

/// Groups `n` items, each a run of `len` elements of `data`: returns the representative
/// item of each group (in output order) and each item's group.
fn group<T: Element>(data: &[T], n: usize, len: usize, kind: Kind) -> (Vec<usize>, Vec<i64>) {
    let item = |i: usize| &data[i * len..(i + 1) * len];
    let equal = |a: usize, b: usize| item(a).iter().zip(item(b)).all(|(&x, &y)| same(x, y));
    let mut ord: Vec<usize> = (0..n).collect();
    if kind == Kind::Sorted {
        ord.sort_by(|&a, &b| {
            item(a)
                .iter()
                .zip(item(b))
                .map(|(&x, &y)| order(x, y))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        });
    }
    let mut reps = Vec::new();
    let mut inverse = vec![0i64; n];
    for (k, &i) in ord.iter().enumerate() {
        if k == 0 || !equal(ord[k - 1], i) {
            reps.push(i);
        }
        inverse[i] = reps.len() as i64 - 1;
    }
    (reps, inverse)
}

/// The counts of each group from the items' groups.
fn counts_of(inverse: &[i64], groups: usize) -> Vec<i64> {
    let mut c = vec![0i64; groups];
    for &g in inverse {
        c[g as usize] += 1;
    }
    c
}

fn unique_flat(
    x: &Tensor,
    kind: Kind,
    want_inverse: bool,
    want_counts: bool,
) -> TensorResult<(Tensor, Tensor, Tensor)> {
    let flat = x.contiguous()?;
    let n = flat.numel();
    crate::dispatch_dtype!(x.dtype(), T => {
        let data: Vec<T> = flat.to_vec::<T>();
        let (reps, inverse) = group(&data, n, 1, kind);
        let values: Vec<T> = reps.iter().map(|&i| data[i]).collect();
        let values = Tensor::from_vec(values, &[reps.len() as i64])?;
        let inv = if want_inverse {
            Tensor::from_vec(inverse.clone(), &x.sizes())?
        } else {
            empty_i64()?
        };
        let cnt = if want_counts {
            Tensor::from_vec(counts_of(&inverse, reps.len()), &[reps.len() as i64])?
        } else {
            empty_i64()?
        };
        Ok((values, inv, cnt))
    })
}

/// Along a dim, PyTorch's kernels always return the inverse and the counts.
fn unique_along(x: &Tensor, dim: i64, kind: Kind) -> TensorResult<(Tensor, Tensor, Tensor)> {
    let d = wrap_dim(dim, x.dim())?;
    let sizes = x.sizes();
    let n = sizes[d];
    if kind == Kind::Sorted && sizes.iter().enumerate().any(|(i, &s)| i != d && s == 0) {
        bail!(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        );
    }
    // Slices along `d` as rows: move `d` to the front.
    let moved = x.movedim_front(d)?;
    let rows = moved.contiguous()?;
    let len = if n == 0 { 0 } else { rows.numel() / n as usize };
    crate::dispatch_dtype!(x.dtype(), T => {
        let data: Vec<T> = rows.to_vec::<T>();
        let (reps, inverse) = group(&data, n as usize, len, kind);
        let mut picked = Vec::with_capacity(reps.len() * len);
        for &i in &reps {
            picked.extend_from_slice(&data[i * len..(i + 1) * len]);
        }
        let mut shape = moved.sizes().to_vec();
        shape[0] = reps.len() as i64;
        let values = Tensor::from_vec(picked, &shape)?.movedim_back(d)?.contiguous()?;
        let cnt = Tensor::from_vec(counts_of(&inverse, reps.len()), &[reps.len() as i64])?;
        Ok((values, Tensor::from_vec(inverse, &[n])?, cnt))
    })
}

/// Moving one dim to the front and back, as views.
trait MoveDim: Sized {
    fn movedim_front(&self, d: usize) -> TensorResult<Self>;
    fn movedim_back(&self, d: usize) -> TensorResult<Self>;
}

impl MoveDim for Tensor {
    fn movedim_front(&self, d: usize) -> TensorResult<Tensor> {
        let nd = self.dim();
        let mut perm = vec![d as i64];
        perm.extend((0..nd as i64).filter(|&i| i != d as i64));
        self.permute(&perm)
    }

    fn movedim_back(&self, d: usize) -> TensorResult<Tensor> {
        let nd = self.dim();
        // Inverse of movedim_front: position 0 goes back to d.
        let mut perm: Vec<i64> = (1..nd as i64).collect();
        perm.insert(d, 0);
        self.permute(&perm)
    }
}
