//! Sorting and selection along one dim: `sort` (stable or not, descending), `argsort`,
//! `msort`, `topk`, `kthvalue`, `median`/`nanmedian` and `mode`. NaN sorts above every
//! number. Unstable paths follow libstdc++'s algorithms (see `stdsort`) and `kthvalue`
//! PyTorch's own quickselect, so indices of equal values agree with PyTorch.

use crate::ops::args::err;
use std::cmp::Ordering;

use super::args::{build, Args};
use super::output::{check_out_dtype, finish, finish2, st_name};
use super::plan::{map_groups, reduce_mask, scatter, Plan, Val};
use super::stdsort;
use crate::ivalue::IValue;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::{wrap_dim, DType, Tensor};

pub fn register(r: &mut Registry) {
    r.add_if("aten::sort", has_tensor_input, |g, n| build(g, n, sort));
    r.add_if("aten::argsort", has_tensor_input, |g, n| build(g, n, sort));
    r.add_if("aten::msort", has_tensor_input, |g, n| build(g, n, sort));
    r.add_if("aten::topk", has_tensor_input, |g, n| build(g, n, topk));
    r.add_if("aten::kthvalue", has_tensor_input, |g, n| {
        build(g, n, kthvalue)
    });
    r.add_if("aten::median", has_tensor_input, |g, n| build(g, n, median));
    r.add_if("aten::nanmedian", has_tensor_input, |g, n| {
        build(g, n, median)
    });
    r.add_if("aten::mode", has_tensor_input, |g, n| build(g, n, mode));
}

/// A value with its index along the dim.
type Item<V> = (V, i64);

/// `a < b` with NaN above everything (PyTorch's ascending comparator).
#[inline]
fn lt_nan_last<V: Val + PartialOrd>(a: V, b: V) -> bool {
    (!a.is_nan() && b.is_nan()) || a < b
}

/// `a > b` with NaN above everything (`gt_or_nan`, the descending comparator).
#[inline]
fn gt_nan_first<V: Val + PartialOrd>(a: V, b: V) -> bool {
    (a.is_nan() && !b.is_nan()) || a > b
}

/// Computes `per_line` on every line of `x` along `dim` (whose result has `out_len`
/// entries) and writes values (in `x`'s dtype) and indices shaped like `x` with that dim
/// resized to `out_len`, squeezed when `squeeze`.
fn along_dim(
    x: &Tensor,
    dim: i64,
    out_len: i64,
    squeeze: bool,
    per_line_f: &(dyn Fn(&[f64]) -> Vec<Item<f64>> + Sync),
    per_line_i: &(dyn Fn(&[i64]) -> Vec<Item<i64>> + Sync),
) -> Result<(Tensor, Tensor), String> {
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    let mask = reduce_mask(Some(&[dim]), x.dim()).map_err(err)?;
    let plan = Plan::new(x, &mask, true).map_err(err)?;
    let mut sizes = x.sizes().to_vec();
    if !sizes.is_empty() {
        sizes[w] = out_len;
    }
    let values = Tensor::zeros(&sizes, x.dtype()).map_err(err)?;
    let indices = Tensor::zeros(&sizes, DType::I64).map_err(err)?;
    let out_plan = Plan::new(&values, &mask, true).map_err(err)?;
    if x.dtype().is_floating() {
        let lines = map_groups::<f64, _>(x, &plan, None, per_line_f);
        write_lines(&values, &indices, &out_plan, lines);
    } else {
        let lines = map_groups::<i64, _>(x, &plan, None, per_line_i);
        write_lines(&values, &indices, &out_plan, lines);
    }
    if squeeze && !sizes.is_empty() {
        let v = values.squeeze(Some(w as i64)).map_err(err)?;
        let i = indices.squeeze(Some(w as i64)).map_err(err)?;
        return Ok((v, i));
    }
    Ok((values, indices))
}

fn write_lines<V: Val>(values: &Tensor, indices: &Tensor, plan: &Plan, lines: Vec<Vec<Item<V>>>) {
    let vals: Vec<Vec<V>> = lines
        .iter()
        .map(|l| l.iter().map(|p| p.0).collect())
        .collect();
    let idxs: Vec<Vec<i64>> = lines
        .iter()
        .map(|l| l.iter().map(|p| p.1).collect())
        .collect();
    scatter(values, plan, &vals);
    scatter(indices, plan, &idxs);
}

fn items<V: Val>(line: &[V]) -> Vec<Item<V>> {
    line.iter()
        .enumerate()
        .map(|(i, &v)| (v, i as i64))
        .collect()
}

/// Sorts one line as PyTorch's CPU kernel: `std::stable_sort` or `std::sort` on values.
fn sort_line<V: Val + PartialOrd>(line: &[V], descending: bool, stable: bool) -> Vec<Item<V>> {
    let mut v = items(line);
    let less = |a: &Item<V>, b: &Item<V>| {
        if descending {
            gt_nan_first(a.0, b.0)
        } else {
            lt_nan_last(a.0, b.0)
        }
    };
    if stable {
        v.sort_by(|a, b| {
            if less(a, b) {
                Ordering::Less
            } else if less(b, a) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
    } else {
        stdsort::sort(&mut v, &less);
    }
    v
}

/// `sort`, `argsort` and `msort`.
fn sort(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let op = a.op_name();
    let dim = if op == "msort" { 0 } else { a.int("dim", -1) };
    let descending = a.bool("descending", false);
    let stable = a.opt_bool("stable").unwrap_or(false);
    match (op, outs.len()) {
        ("sort", 2) => {
            check_out_dtype(&outs[0], x.dtype())?;
            check_out_dtype(&outs[1], DType::I64)?;
        }
        ("argsort", 1) => check_out_dtype(&outs[0], DType::I64)?,
        _ => {}
    }
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    let len = if x.dim() == 0 { 1 } else { x.sizes()[w] };
    // A dim of stride 0 holds one repeated value: PyTorch leaves it in place.
    let repeated = x.dim() > 0 && x.strides()[w] == 0;
    let (values, indices) = along_dim(
        &x,
        dim,
        len,
        false,
        &|l| {
            if repeated {
                items(l)
            } else {
                sort_line(l, descending, stable)
            }
        },
        &|l| {
            if repeated {
                items(l)
            } else {
                sort_line(l, descending, stable)
            }
        },
    )?;
    match op {
        "argsort" => finish(indices, &outs),
        "msort" => finish(values, &outs),
        _ => finish2(values, indices, &outs),
    }
}

/// PyTorch's `topk_impl_loop`: partial sort for small k, else nth_element and a sort of
/// the first k - 1.
fn topk_line<V: Val + PartialOrd>(
    line: &[V],
    k: usize,
    largest: bool,
    sorted: bool,
) -> Vec<Item<V>> {
    let mut q = items(line);
    if k == 0 {
        return Vec::new();
    }
    let less = |a: &Item<V>, b: &Item<V>| {
        if largest {
            gt_nan_first(a.0, b.0)
        } else {
            lt_nan_last(a.0, b.0)
        }
    };
    if k * 64 <= q.len() {
        stdsort::partial_sort(&mut q, k, &less);
    } else {
        stdsort::nth_element(&mut q, k - 1, &less);
        if sorted {
            stdsort::sort(&mut q[..k - 1], &less);
        }
    }
    q.truncate(k);
    q
}

fn topk(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let k = a.int("k", 1);
    let dim = a.int("dim", -1);
    let (largest, sorted) = (a.bool("largest", true), a.bool("sorted", true));
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    let len = if x.dim() == 0 { 1 } else { x.sizes()[w] };
    if k < 0 || k > len {
        return Err("selected index k out of range".into());
    }
    if x.dtype() == DType::Bool {
        return Err("topk does not support bool dtypes on CPU".into());
    }
    if outs.len() == 2 {
        check_out_dtype(&outs[0], x.dtype())?;
        check_out_dtype(&outs[1], DType::I64)?;
    }
    let ku = k as usize;
    let (values, indices) = if x.dim() == 0 {
        along_dim(&x, dim, 1, false, &items::<f64>, &items::<i64>)?
    } else {
        along_dim(
            &x,
            dim,
            k,
            false,
            &|l| topk_line(l, ku, largest, sorted),
            &|l| topk_line(l, ku, largest, sorted),
        )?
    };
    finish2(values, indices, &outs)
}

/// PyTorch's quickselect (Sedgewick's partitioning) putting the k-th smallest at `k`.
fn quick_select<V: Val + PartialOrd>(arr: &mut [Item<V>], k: isize) {
    let gt = |a: &Item<V>, b: &Item<V>| gt_nan_first(a.0, b.0);
    let (mut l, mut r) = (0isize, arr.len() as isize - 1);
    let at = |i: isize| i as usize;
    loop {
        if r <= l {
            return;
        }
        if r == l + 1 {
            if gt(&arr[at(l)], &arr[at(r)]) {
                arr.swap(at(l), at(r));
            }
            return;
        }
        let p = (l + r) >> 1;
        arr.swap(at(p), at(l + 1));
        if gt(&arr[at(l + 1)], &arr[at(r)]) {
            arr.swap(at(l + 1), at(r));
        }
        if gt(&arr[at(l)], &arr[at(r)]) {
            arr.swap(at(l), at(r));
        }
        if gt(&arr[at(l + 1)], &arr[at(l)]) {
            arr.swap(at(l + 1), at(l));
        }
        let (mut i, mut j) = (l + 1, r);
        let piv = arr[at(l)];
        loop {
            i += 1;
            while i < r && gt(&piv, &arr[at(i)]) {
                i += 1;
            }
            j -= 1;
            while j > l && gt(&arr[at(j)], &piv) {
                j -= 1;
            }
            if j < i {
                break;
            }
            arr.swap(at(i), at(j));
        }
        arr.swap(at(l), at(j));
        if j <= k {
            l = i;
        }
        if j >= k {
            r = j - 1;
        }
    }
}

/// The message PyTorch's `_reduction_with_indices_allocate_or_resize_output` checks give.
fn check_value_index_outs(outs: &[Tensor], x: &Tensor) -> Result<(), String> {
    if outs.len() == 2 {
        if outs[0].dtype() != x.dtype() {
            return Err("output values must be of same type as input".into());
        }
        if outs[1].dtype() != DType::I64 {
            return Err("output indices must be of scalar type Long".into());
        }
    }
    Ok(())
}

fn zero_numel_check(x: &Tensor, w: usize, name: &str) -> Result<(), String> {
    if x.dim() > 0 && x.numel() == 0 && x.sizes()[w] == 0 {
        return Err(format!(
            "{name}: Expected reduction dim {w} to have non-zero size."
        ));
    }
    Ok(())
}

fn kthvalue(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let k = a.int("k", 1);
    let dim = a.int("dim", -1);
    let keepdim = a.bool("keepdim", false);
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    zero_numel_check(&x, w, "kthvalue()")?;
    let len = if x.dim() == 0 { 1 } else { x.sizes()[w] };
    if k < 1 || k > len {
        return Err(format!(
            "kthvalue(): selected number k out of range for dimension {w}"
        ));
    }
    if x.dtype() == DType::Bool {
        return Err("\"kthvalue_cpu\" not implemented for 'Bool'".into());
    }
    check_value_index_outs(&outs, &x)?;
    fn pick<V: Val + PartialOrd>(l: &[V], k: i64) -> Vec<Item<V>> {
        let mut v = items(l);
        quick_select(&mut v, (k - 1) as isize);
        vec![v[(k - 1) as usize]]
    }
    let (values, indices) = along_dim(&x, dim, 1, !keepdim, &|l| pick(l, k), &|l| pick(l, k))?;
    finish2(values, indices, &outs)
}

/// The median of one line and its index, as PyTorch's `median_with_indices_impl`: the
/// first NaN if any (unless `ignore_nan`), else the element at the middle of the order
/// (value, index).
fn median_line<V: Val + PartialOrd>(line: &[V], ignore_nan: bool) -> Vec<Item<V>> {
    if !ignore_nan {
        if let Some(i) = line.iter().position(|v| v.is_nan()) {
            return vec![(line[i], i as i64)];
        }
    }
    let size = line.len() as i64;
    let mut idx: Vec<i64> = (0..size).collect();
    let nth = if ignore_nan {
        let nans = line.iter().filter(|v| v.is_nan()).count() as i64;
        // C++ division truncates toward zero: all-NaN lines take position 0.
        (size - nans - 1) / 2
    } else {
        (size - 1) / 2
    };
    let at = |i: i64| line[i as usize];
    let less = |&i: &i64, &j: &i64| {
        let (a, b) = (at(i), at(j));
        a < b || (a == b && i < j) || (ignore_nan && b.is_nan() && !a.is_nan())
    };
    stdsort::nth_element(&mut idx, nth.max(0) as usize, &less);
    let i = idx[nth.max(0) as usize];
    vec![(at(i), i)]
}

fn median(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let ignore_nan = a.op_name() == "nanmedian";
    let Some(dim) = a.opt_int("dim") else {
        return median_all(&x, ignore_nan, &outs);
    };
    let keepdim = a.bool("keepdim", false);
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    zero_numel_check(&x, w, "median()")?;
    if outs.len() == 2 {
        if outs[1].dtype() != DType::I64 {
            return Err(format!(
                "Expected tensor for argument #1 'indices' to have scalar type Long; but got {} instead (while checking arguments for median)",
                tensor_type(outs[1].dtype())
            ));
        }
        if outs[0].dtype() != x.dtype() {
            return Err(format!(
                "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type {} does not equal {} (while checking arguments for median)",
                tensor_type(outs[0].dtype()),
                tensor_type(x.dtype())
            ));
        }
    }
    if x.dtype() == DType::Bool {
        return Err("\"median_out\" not implemented for 'Bool'".into());
    }
    let (values, indices) = along_dim(
        &x,
        dim,
        1,
        !keepdim,
        &|l| median_line(l, ignore_nan),
        &|l| median_line(l, ignore_nan),
    )?;
    finish2(values, indices, &outs)
}

/// The legacy tensor type name PyTorch's argument checks print: `torch.FloatTensor`.
fn tensor_type(d: DType) -> String {
    format!("torch.{}Tensor", st_name(d))
}

/// `median(self)`: the lower median of all elements (NaN if any is NaN, unless ignored).
fn median_all(x: &Tensor, ignore_nan: bool, outs: &[Tensor]) -> Result<Vec<IValue>, String> {
    if x.dtype() == DType::Bool {
        return Err("\"median_cpu\" not implemented for 'Bool'".into());
    }
    let flat = x.reshape(&[-1]).map_err(err)?;
    let v = if x.dtype().is_floating() {
        let mut vals = flat.to_vec::<f64>();
        let nans = vals.iter().filter(|v| v.is_nan()).count();
        let r = if vals.is_empty() || (!ignore_nan && nans > 0) || nans == vals.len() {
            f64::NAN
        } else {
            vals.retain(|v| !v.is_nan());
            let mid = (vals.len() - 1) / 2;
            vals.select_nth_unstable_by(mid, |a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
            vals[mid]
        };
        Tensor::scalar(r, x.dtype())
    } else {
        let mut vals = flat.to_vec::<i64>();
        let r = if vals.is_empty() {
            // PyTorch writes NaN into the integer result: int64's minimum on x86.
            i64::MIN
        } else {
            let mid = (vals.len() - 1) / 2;
            *vals.select_nth_unstable(mid).1
        };
        super::plan::from_i64(&[r], &[], x.dtype())
    };
    finish(v.map_err(err)?, outs)
}

/// The most frequent value of one line (the smallest among equally frequent ones) and the
/// index of its last occurrence in sorted order, as PyTorch's mode kernel.
fn mode_line<V: Val + PartialOrd>(line: &[V]) -> Vec<Item<V>> {
    let mut v = items(line);
    stdsort::sort(&mut v, &|a: &Item<V>, b: &Item<V>| a.0 < b.0);
    let (mut best, mut max_freq, mut freq) = (v.first().copied().unwrap_or_default(), 0, 0);
    for i in 0..v.len() {
        freq += 1;
        if i == v.len() - 1 || v[i].0 != v[i + 1].0 {
            if freq > max_freq {
                best = v[i];
                max_freq = freq;
            }
            freq = 0;
        }
    }
    vec![best]
}

fn mode(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let dim = a.int("dim", -1);
    let keepdim = a.bool("keepdim", false);
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    zero_numel_check(&x, w, "mode()")?;
    if outs.len() == 2 {
        for (out, want, what) in [
            (&outs[0], x.dtype(), "values"),
            (&outs[1], DType::I64, "indices"),
        ] {
            if out.dtype() != want {
                return Err(format!(
                    "expected scalar type '{}' but got '{}' for {what} output",
                    st_name(want),
                    st_name(out.dtype())
                ));
            }
        }
    }
    let (values, indices) = along_dim(&x, dim, 1, !keepdim, &mode_line::<f64>, &mode_line::<i64>)?;
    finish2(values, indices, &outs)
}
