//! Index-along-a-dim operators: gather, scatter (src and value, reduce add/multiply),
//! scatter_add, scatter_reduce, with their in-place forms and PyTorch's shape checks.

use super::super::shape::call::{kernels, tensor_value, Call, Kernel};
use super::super::shape::elements::{
    assert_no_internal_overlap, assert_no_overlap, cast, gather, scatter, sizes_str, Combine,
};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{for_each_offset, wrap_dim, DType, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::gather", |o| matches!(o, "" | "out")
        .then_some(gather_op as Kernel));
    kernels!(r, "aten::scatter", |_| Some(scatter_op as Kernel));
    kernels!(r, "aten::scatter_", |_| Some(scatter_inplace as Kernel));
    kernels!(r, "aten::scatter_add", |o| matches!(o, "" | "out")
        .then_some(scatter_add as Kernel));
    kernels!(r, "aten::scatter_add_", |_| Some(scatter_add_ as Kernel));
    kernels!(r, "aten::scatter_reduce", |_| Some(
        scatter_reduce as Kernel
    ));
    kernels!(r, "aten::scatter_reduce_", |_| Some(
        scatter_reduce_ as Kernel
    ));
}

/// `size(d)` treating a 0-dim tensor as 1-dim of size 1 (`ensure_nonempty_size`).
fn size_ne(sizes: &[i64], d: usize) -> i64 {
    if sizes.is_empty() {
        1
    } else {
        sizes[d]
    }
}

fn dims_ne(t: &Tensor) -> usize {
    t.dim().max(1)
}

fn strides_ne(t: &Tensor) -> Vec<i64> {
    let s = t.strides();
    if s.is_empty() {
        vec![1]
    } else {
        s.to_vec()
    }
}

fn check_index_dtype(method: &str, index: &Tensor) -> TensorResult<()> {
    if !matches!(index.dtype(), DType::I64 | DType::I32) {
        bail!("{method}(): Expected dtype int32/int64 for index");
    }
    Ok(())
}

/// For every position of `index` (row-major): the offset in `target` of the element it
/// addresses (its own coordinates, with `dim` replaced by the index value), bounds-checked.
fn target_offsets(target: &Tensor, dim: usize, index: &Tensor) -> TensorResult<Vec<i64>> {
    let tsizes = target.sizes();
    let mut strides = strides_ne(target);
    let dim_stride = strides[dim];
    let upper = size_ne(&tsizes, dim);
    strides[dim] = 0;
    let isizes: Vec<i64> = if index.dim() == 0 {
        vec![1]
    } else {
        index.sizes().to_vec()
    };
    super::super::shape::elements::check_len(index.numel())?;
    let values = index.to_vec::<i64>();
    let mut out = Vec::with_capacity(values.len());
    let mut k = 0;
    let mut err = None;
    for_each_offset(&isizes, &strides, |o| {
        let v = values[k];
        k += 1;
        if err.is_none() && (v < 0 || v >= upper) {
            err = Some(v);
        }
        out.push(o + v * dim_stride);
    });
    if let Some(v) = err {
        bail!("index {v} is out of bounds for dimension {dim} with size {upper}");
    }
    Ok(out)
}

fn gather_tensor(t: &Tensor, dim: i64, index: &Tensor) -> TensorResult<Tensor> {
    let d = wrap_dim(dim, t.dim())?;
    check_index_dtype("gather", index)?;
    if dims_ne(t) != dims_ne(index) {
        bail!("Index tensor must have the same number of dimensions as input tensor");
    }
    let (ts, is) = (t.sizes(), index.sizes());
    for i in 0..dims_ne(t) {
        if i != d && size_ne(&is, i) > size_ne(&ts, i) {
            bail!(
                "Size does not match at dimension {i} expected index {} to be no larger than self {} apart from dimension {d}",
                sizes_str(&is),
                sizes_str(&ts)
            );
        }
    }
    let offsets = target_offsets(t, d, index)?;
    gather(t, &offsets, &is)
}

fn gather_op(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(gather_tensor(
        &c.tensor("self")?,
        c.int("dim")?,
        &c.tensor("index")?,
    )?))
}

/// PyTorch's `scatter_shape_check`.
fn scatter_shape_check(
    t: &Tensor,
    d: usize,
    index: &Tensor,
    src: Option<&Tensor>,
) -> TensorResult<()> {
    if index.numel() == 0 {
        return Ok(());
    }
    if dims_ne(t) != dims_ne(index) {
        bail!("Index tensor must have the same number of dimensions as self tensor");
    }
    let (ts, is) = (t.sizes(), index.sizes());
    let n = dims_ne(t);
    let mut wrong = (0..n).any(|i| i != d && size_ne(&is, i) > size_ne(&ts, i));
    if let Some(src) = src {
        let ss = src.sizes();
        if !wrong {
            wrong = (0..n).any(|i| size_ne(&is, i) > size_ne(&ss, i));
        }
        if dims_ne(src) != dims_ne(index) {
            bail!("Index tensor must have the same number of dimensions as src tensor");
        }
        if wrong {
            bail!(
                "Expected index {} to be no larger than self {} apart from dimension {d} and to be no larger size than src {}",
                sizes_str(&is),
                sizes_str(&ts),
                sizes_str(&ss)
            );
        }
    } else if wrong {
        bail!(
            "Expected index {} to be no larger than self {} apart from dimension {d}",
            sizes_str(&is),
            sizes_str(&ts)
        );
    }
    Ok(())
}

/// The values a scatter writes, one per index position: `src` read at the index's
/// coordinates, or the scalar `value` repeated.
fn scatter_values(index: &Tensor, src: &Source, dtype: DType) -> TensorResult<Tensor> {
    match src {
        Source::Tensor(src) => {
            let isizes: Vec<i64> = if index.dim() == 0 {
                vec![1]
            } else {
                index.sizes().to_vec()
            };
            let mut offsets = Vec::with_capacity(index.numel());
            for_each_offset(&isizes, &strides_ne(src), |o| offsets.push(o));
            gather(src, &offsets, &isizes)
        }
        Source::Value(v) => {
            let t = crate::ops::create::factory::full_tensor(&[index.numel() as i64], *v, dtype)?;
            Ok(t)
        }
    }
}

enum Source {
    Tensor(Tensor),
    Value(super::super::shape::call::Scalar),
}

fn source(c: &Call) -> TensorResult<Source> {
    Ok(match c.get("src") {
        IValue::Tensor(t) => Source::Tensor(t.clone()),
        _ => Source::Value(c.scalar("value")?),
    })
}

/// Scatters into `target` (already the output) in place.
fn scatter_into(
    method: &str,
    target: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Source,
    how: Combine,
) -> TensorResult<()> {
    assert_no_internal_overlap(target)?;
    let d = wrap_dim(dim, target.dim())?;
    assert_no_overlap(target, index)?;
    if let Source::Tensor(s) = src {
        assert_no_overlap(target, s)?;
    }
    check_index_dtype(method, index)?;
    let src_tensor = match src {
        Source::Tensor(s) => {
            if s.dtype() != target.dtype() {
                bail!("{method}(): Expected self.dtype to be equal to src.dtype");
            }
            Some(s)
        }
        Source::Value(_) => None,
    };
    scatter_shape_check(target, d, index, src_tensor)?;
    if index.numel() == 0 {
        return Ok(());
    }
    let offsets = target_offsets(target, d, index)?;
    let values = scatter_values(index, src, target.dtype())?;
    scatter(target, &offsets, &values, how)
}

fn reduce_mode(c: &Call) -> TensorResult<Combine> {
    if !c.has("reduce") {
        return Ok(Combine::Replace);
    }
    match c.string("reduce")?.as_str() {
        "add" => Ok(Combine::Add),
        "multiply" => Ok(Combine::Multiply),
        _ => bail!("reduce argument must be either add or multiply."),
    }
}

fn scatter_op(c: &Call) -> TensorResult<IValue> {
    let out = c.tensor("self")?.clone_contiguous()?;
    scatter_into(
        "scatter",
        &out,
        c.int("dim")?,
        &c.tensor("index")?,
        &source(c)?,
        reduce_mode(c)?,
    )?;
    Ok(tensor_value(out))
}

fn scatter_inplace(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    scatter_into(
        "scatter",
        &t,
        c.int("dim")?,
        &c.tensor("index")?,
        &source(c)?,
        reduce_mode(c)?,
    )?;
    Ok(tensor_value(t))
}

fn scatter_add(c: &Call) -> TensorResult<IValue> {
    let out = c.tensor("self")?.clone_contiguous()?;
    scatter_into(
        "scatter",
        &out,
        c.int("dim")?,
        &c.tensor("index")?,
        &Source::Tensor(c.tensor("src")?),
        Combine::Add,
    )?;
    Ok(tensor_value(out))
}

fn scatter_add_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    scatter_into(
        "scatter",
        &t,
        c.int("dim")?,
        &c.tensor("index")?,
        &Source::Tensor(c.tensor("src")?),
        Combine::Add,
    )?;
    Ok(tensor_value(t))
}

/// `scatter_reduce(self, dim, index, src, reduce, include_self)` into `target` in place.
fn scatter_reduce_into(c: &Call, target: &Tensor) -> TensorResult<()> {
    assert_no_internal_overlap(target)?;
    let reduce = match c.string("reduce")?.as_str() {
        // PyTorch accepts the old names of amax and amin.
        "max" => "amax".to_string(),
        "min" => "amin".to_string(),
        r @ ("sum" | "prod" | "mean" | "amax" | "amin") => r.to_string(),
        r => bail!("reduce argument must be either sum, prod, mean, amax or amin, got {r}"),
    };
    let include_self = c.boolean("include_self")?;
    let index = c.tensor("index")?;
    let src = c.tensor("src")?;
    let d = wrap_dim(c.int("dim")?, target.dim())?;
    check_index_dtype("scatter", &index)?;
    if src.dtype() != target.dtype() {
        bail!("scatter(): Expected self.dtype to be equal to src.dtype");
    }
    scatter_shape_check(target, d, &index, Some(&src))?;
    if index.numel() == 0 {
        return Ok(());
    }
    let offsets = target_offsets(target, d, &index)?;
    let values = scatter_values(&index, &Source::Tensor(src), target.dtype())?;
    let floating = target.dtype().is_floating();
    let base = target.data_ptr();
    crate::dispatch_dtype!(target.dtype(), T => {
        let vals = cast(&values, target.dtype())?.to_vec::<T>();
        // Accumulate per target element in f64 (floats) or i64 (integers), in index order.
        let mut acc: hashbrown::HashMap<i64, (f64, i64, i64)> = hashbrown::HashMap::new();
        let p = base as *mut T;
        for (&o, &v) in offsets.iter().zip(&vals) {
            // SAFETY: `o` is a bounds-checked offset of `target`.
            let old = unsafe { *p.offset(o as isize) };
            let entry = acc.entry(o).or_insert_with(|| {
                if include_self {
                    (old.to_f64(), old.to_i64(), 1)
                } else {
                    (f64::NAN, 0, 0)
                }
            });
            let (fv, iv) = (v.to_f64(), v.to_i64());
            if entry.2 == 0 {
                *entry = (fv, iv, 1);
                continue;
            }
            entry.2 += 1;
            match reduce.as_str() {
                "sum" | "mean" => {
                    entry.0 += fv;
                    entry.1 = entry.1.wrapping_add(iv);
                }
                "prod" => {
                    entry.0 *= fv;
                    entry.1 = entry.1.wrapping_mul(iv);
                }
                "amax" => {
                    entry.0 = if fv.is_nan() || entry.0.is_nan() { f64::NAN } else { entry.0.max(fv) };
                    entry.1 = entry.1.max(iv);
                }
                _ => {
                    entry.0 = if fv.is_nan() || entry.0.is_nan() { f64::NAN } else { entry.0.min(fv) };
                    entry.1 = entry.1.min(iv);
                }
            }
        }
        for (o, (fv, iv, n)) in acc {
            let v: T = if reduce == "mean" {
                if floating {
                    T::from_f64(fv / n as f64)
                } else {
                    T::from_i64(iv.div_euclid(n))
                }
            } else if floating {
                T::from_f64(fv)
            } else {
                T::from_i64(iv)
            };
            // SAFETY: as above.
            unsafe { *p.offset(o as isize) = v };
        }
    });
    Ok(())
}

fn scatter_reduce(c: &Call) -> TensorResult<IValue> {
    let out = c.tensor("self")?.clone_contiguous()?;
    scatter_reduce_into(c, &out)?;
    Ok(tensor_value(out))
}

fn scatter_reduce_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    scatter_reduce_into(c, &t)?;
    Ok(tensor_value(t))
}
