//! The reduction engine: which dims a reduction folds, the shape it produces, and a fold over
//! every output's group of input elements. A group is read in chunks of at most [`CHUNK`]
//! elements, in row-major order of the reduced dims, converted into the computing domain
//! (f64 for floating results, i64 for integral and bool ones). Chunk results combine left to
//! right, so the answer does not depend on how many threads ran: large reductions use every
//! core (over groups when there are many, over chunks of one group when there are few).

use half::{bf16, f16};

use crate::bail;
use crate::parallel;
use crate::tensor::{checked_numel, for_each_offset, wrap_dim, DType, Element, Tensor};
use crate::tensor::{TensorError, TensorResult};

/// Below this many elements a reduction stays on the calling thread.
pub const PAR_THRESHOLD: usize = 1 << 15;
/// Elements gathered and folded at once.
pub const CHUNK: usize = 1 << 13;

/// Which dims of an `ndim`-dim tensor a reduction over `dims` folds; `None` or an empty list
/// folds all of them. Duplicates are refused with PyTorch's message.
pub fn reduce_mask(dims: Option<&[i64]>, ndim: usize) -> TensorResult<Vec<bool>> {
    let mut mask = vec![false; ndim];
    match dims {
        None | Some([]) => mask.iter_mut().for_each(|m| *m = true),
        Some(dims) => {
            // A 0-dim tensor takes dim 0 (or -1) once.
            let mut seen = vec![false; ndim.max(1)];
            for &d in dims {
                let w = wrap_dim(d, ndim)?;
                if seen[w] {
                    bail!("dim {w} appears multiple times in the list of dims");
                }
                seen[w] = true;
                if ndim > 0 {
                    mask[w] = true;
                }
            }
        }
    }
    Ok(mask)
}

/// The shape of a reduction's result.
pub fn reduced_sizes(sizes: &[i64], mask: &[bool], keepdim: bool) -> Vec<i64> {
    let mut out = Vec::with_capacity(sizes.len());
    for (&s, &m) in sizes.iter().zip(mask) {
        if !m {
            out.push(s);
        } else if keepdim {
            out.push(1);
        }
    }
    out
}

/// The element offsets of a reduced group: a single strided run or an explicit list.
enum Inner {
    Strided { stride: i64 },
    List(Vec<i64>),
}

/// How a tensor's elements map to a reduction's output groups.
pub struct Plan {
    /// The result shape (with keepdim applied).
    pub out_sizes: Vec<i64>,
    /// Storage offset (from element 0) of each group's first element, in output order.
    outer: Vec<i64>,
    inner: Inner,
    /// Elements per group.
    pub group_len: usize,
}

impl Plan {
    pub fn new(t: &Tensor, mask: &[bool], keepdim: bool) -> TensorResult<Plan> {
        let (sizes, strides) = (t.sizes(), t.strides());
        let out_sizes = reduced_sizes(&sizes, mask, keepdim);
        let (mut ks, mut kst, mut rs, mut rst) = (vec![], vec![], vec![], vec![]);
        for i in 0..sizes.len() {
            if mask[i] {
                rs.push(sizes[i]);
                rst.push(strides[i]);
            } else {
                ks.push(sizes[i]);
                kst.push(strides[i]);
            }
        }
        let groups = checked_numel(&ks)?;
        let group_len = checked_numel(&rs)?;
        let mut outer = Vec::with_capacity(groups);
        for_each_offset(&ks, &kst, |o| outer.push(o));
        let (rs, rst) = coalesce(&rs, &rst);
        let inner = match rs.len() {
            0 => Inner::Strided { stride: 1 },
            1 => Inner::Strided { stride: rst[0] },
            _ => {
                let mut v = Vec::with_capacity(group_len);
                for_each_offset(&rs, &rst, |o| v.push(o));
                Inner::List(v)
            }
        };
        Ok(Plan {
            out_sizes,
            outer,
            inner,
            group_len,
        })
    }

    /// Number of output groups.
    pub fn groups(&self) -> usize {
        self.outer.len()
    }

    #[inline]
    fn offset(&self, group: usize, i: usize) -> isize {
        let inner = match &self.inner {
            Inner::Strided { stride, .. } => i as i64 * stride,
            Inner::List(v) => v[i],
        };
        (self.outer[group] + inner) as isize
    }
}

/// Merges adjacent dims that address elements as one strided run; drops size-1 dims.
fn coalesce(sizes: &[i64], strides: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let (mut s, mut st): (Vec<i64>, Vec<i64>) = (vec![], vec![]);
    for (&size, &stride) in sizes.iter().zip(strides) {
        if size == 1 {
            continue;
        }
        if let (Some(ls), Some(lst)) = (s.last_mut(), st.last_mut()) {
            if *lst == stride * size {
                *ls *= size;
                *lst = stride;
                continue;
            }
        }
        s.push(size);
        st.push(stride);
    }
    (s, st)
}

/// A computing domain: the type elements are converted to before they are folded.
pub trait Val: Copy + Send + Sync + Default + 'static {
    /// `x` converted to the domain, after a cast to dtype `cast` when given (PyTorch casts the
    /// input to a reduction's `dtype=` before it folds).
    fn read<T: Element>(x: T, cast: Option<DType>) -> Self;
    fn is_nan(self) -> bool {
        false
    }
    /// The value stored as an element of type `T`.
    fn store<T: Element>(self) -> T;
}

impl Val for f64 {
    #[inline]
    fn read<T: Element>(x: T, cast: Option<DType>) -> f64 {
        let v = if T::DTYPE.is_floating() {
            x.to_f64()
        } else {
            x.to_i64() as f64
        };
        match cast {
            Some(DType::F32) if T::DTYPE != DType::F32 => v as f32 as f64,
            Some(DType::F16) if T::DTYPE != DType::F16 => f16::from_f64(v).to_f64(),
            Some(DType::BF16) if T::DTYPE != DType::BF16 => bf16::from_f64(v).to_f64(),
            _ => v,
        }
    }
    #[inline]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    #[inline]
    fn store<T: Element>(self) -> T {
        T::from_f64(self)
    }
}

impl Val for i64 {
    #[inline]
    fn read<T: Element>(x: T, cast: Option<DType>) -> i64 {
        if cast == Some(DType::Bool) {
            x.is_nonzero() as i64
        } else {
            x.to_i64()
        }
    }
    #[inline]
    fn store<T: Element>(self) -> T {
        T::from_i64(self)
    }
}

/// Reads elements `start..end` of group `g` into `buf`.
///
/// # Safety
/// `base` is element 0 of the tensor the plan was made for, whose dtype is `T`.
unsafe fn gather<T: Element, V: Val>(
    base: *const T,
    plan: &Plan,
    g: usize,
    start: usize,
    end: usize,
    cast: Option<DType>,
    buf: &mut Vec<V>,
) {
    buf.clear();
    match &plan.inner {
        Inner::Strided { stride, .. } => {
            let mut p = base.offset(plan.outer[g] as isize + start as isize * *stride as isize);
            for _ in start..end {
                buf.push(V::read(*p, cast));
                p = p.offset(*stride as isize);
            }
        }
        Inner::List(_) => {
            for i in start..end {
                buf.push(V::read(*base.offset(plan.offset(g, i)), cast));
            }
        }
    }
}

/// Folds every group of `plan` over tensor `t`: `fold(chunk, first_index)` reduces a chunk of
/// a group's values (in the domain `V`, after casting to `cast`), `combine` joins the partial
/// results of consecutive chunks. An empty group is folded once, as an empty chunk.
pub fn fold<V: Val, A: Send>(
    t: &Tensor,
    plan: &Plan,
    cast: Option<DType>,
    fold: impl Fn(&[V], usize) -> A + Sync,
    combine: impl Fn(A, A) -> A + Sync,
) -> Vec<A> {
    fold_indexed(t, plan, cast, |_, c, s| fold(c, s), combine)
}

/// [`fold`] whose chunk function also gets the group's index (for passes that use a
/// per-group result of an earlier pass, like the mean in a variance).
pub fn fold_indexed<V: Val, A: Send>(
    t: &Tensor,
    plan: &Plan,
    cast: Option<DType>,
    fold: impl Fn(usize, &[V], usize) -> A + Sync,
    combine: impl Fn(A, A) -> A + Sync,
) -> Vec<A> {
    let base = t.data_ptr() as usize;
    let groups = plan.groups();
    let len = plan.group_len;
    let chunks = len.div_ceil(CHUNK).max(1);
    crate::dispatch_dtype!(t.dtype(), T => {
        let fold_chunk = |g: usize, c: usize, buf: &mut Vec<V>| {
            let (s, e) = (c * CHUNK, ((c + 1) * CHUNK).min(len));
            // SAFETY: the plan was made for `t`; offsets lie in its storage.
            unsafe { gather::<T, V>(base as *const T, plan, g, s, e, cast, buf) };
            fold(g, buf, s)
        };
        let fold_group = |g: usize, buf: &mut Vec<V>| {
            let mut acc = fold_chunk(g, 0, buf);
            for c in 1..chunks {
                let part = fold_chunk(g, c, buf);
                acc = combine(acc, part);
            }
            acc
        };
        let threads = parallel::threads();
        let split = groups.saturating_mul(len) >= PAR_THRESHOLD && threads > 1;
        if !split {
            let mut buf = Vec::with_capacity(len.min(CHUNK));
            (0..groups).map(|g| fold_group(g, &mut buf)).collect()
        } else if groups >= 2 * threads || chunks == 1 {
            let min_len = (PAR_THRESHOLD / len.max(1)).max(1);
            let buffer = || Vec::with_capacity(len.min(CHUNK));
            parallel::map_init(groups, min_len, buffer, |buf, g| fold_group(g, buf))
        } else {
            (0..groups)
                .map(|g| {
                    let buffer = || Vec::with_capacity(CHUNK);
                    let parts = parallel::map_init(chunks, 1, buffer, |buf, c| {
                        fold_chunk(g, c, buf)
                    });
                    let mut it = parts.into_iter();
                    let first = it.next().expect("at least one chunk");
                    it.fold(first, &combine)
                })
                .collect()
        }
    })
}

/// Calls `f` with each group's whole contents (for sorting and selection along one dim),
/// in parallel for large inputs; returns the per-group results in output order.
pub fn map_groups<V: Val, A: Send>(
    t: &Tensor,
    plan: &Plan,
    cast: Option<DType>,
    f: impl Fn(&[V]) -> A + Sync,
) -> Vec<A> {
    let base = t.data_ptr() as usize;
    let groups = plan.groups();
    let len = plan.group_len;
    crate::dispatch_dtype!(t.dtype(), T => {
        let one = |g: usize, buf: &mut Vec<V>| {
            // SAFETY: the plan was made for `t`; offsets lie in its storage.
            unsafe { gather::<T, V>(base as *const T, plan, g, 0, len, cast, buf) };
            f(buf)
        };
        if groups.saturating_mul(len) >= PAR_THRESHOLD && groups > 1 {
            let min_len = (PAR_THRESHOLD / len.max(1)).max(1);
            parallel::map_init(groups, min_len, || Vec::with_capacity(len), |buf, g| one(g, buf))
        } else {
            let mut buf = Vec::with_capacity(len);
            (0..groups).map(|g| one(g, &mut buf)).collect()
        }
    })
}

/// For a contiguous tensor whose reduced dims are all trailing (or all of them): the number
/// of groups and their length, each group being one contiguous run of elements.
pub fn trailing_runs(x: &Tensor, mask: &[bool]) -> Option<(usize, usize)> {
    if !x.is_contiguous() {
        return None;
    }
    let k = mask.iter().position(|&m| m).unwrap_or(mask.len());
    if mask[k..].iter().any(|&m| !m) {
        return None;
    }
    let sizes = x.sizes();
    let groups = sizes[..k].iter().map(|&s| s as usize).product();
    let len = sizes[k..].iter().map(|&s| s as usize).product();
    Some((groups, len))
}

/// Folds the contiguous runs [`trailing_runs`] found, straight from the tensor's elements of
/// type `T` (no conversion buffer): over groups in parallel when there are many, over
/// pieces of each run when there are few (`combine` joins pieces left to right).
pub fn fold_runs<T: Element, A: Send>(
    x: &Tensor,
    groups: usize,
    len: usize,
    fold: impl Fn(&[T]) -> A + Sync,
    combine: impl Fn(A, A) -> A + Sync,
) -> Vec<A> {
    const PIECE: usize = 1 << 16;
    let total = groups * len;
    if groups == 0 {
        return Vec::new();
    }
    // SAFETY: a contiguous tensor of `total` elements of T (checked by the caller's dtype).
    let src = unsafe { std::slice::from_raw_parts(x.data_ptr() as *const T, total) };
    let run = |g: usize| &src[g * len..(g + 1) * len];
    let threads = parallel::threads();
    if total < PAR_THRESHOLD || threads == 1 {
        (0..groups).map(|g| fold(run(g))).collect()
    } else if groups >= 2 * threads || len <= PIECE {
        parallel::map(groups, |g| fold(run(g)))
    } else {
        (0..groups)
            .map(|g| {
                let run = run(g);
                let parts = parallel::map(len.div_ceil(PIECE), |i| {
                    fold(&run[i * PIECE..((i + 1) * PIECE).min(len)])
                });
                let mut it = parts.into_iter();
                let first = it.next().expect("a non-empty run has a piece");
                it.fold(first, &combine)
            })
            .collect()
    }
}

/// Writes per-group lines of values into `out` (a tensor `plan` was made for, so that
/// `lines[g][i]` lands on element i of group g).
pub fn scatter<V: Val>(out: &Tensor, plan: &Plan, lines: &[Vec<V>]) {
    let base = out.data_ptr();
    crate::dispatch_dtype!(out.dtype(), T => {
        let p = base as *mut T;
        for (g, line) in lines.iter().enumerate().take(plan.groups()) {
            for (i, &v) in line.iter().enumerate().take(plan.group_len) {
                // SAFETY: the plan's offsets address `out`'s elements.
                unsafe { *p.offset(plan.offset(g, i)) = v.store::<T>() };
            }
        }
    });
}

/// A contiguous tensor of `dtype` and shape `sizes` from values in the f64 domain.
pub fn from_f64(vals: &[f64], sizes: &[i64], dtype: DType) -> TensorResult<Tensor> {
    let t = Tensor::zeros(sizes, dtype)?;
    check_len(vals.len(), &t)?;
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for (i, &v) in vals.iter().enumerate() {
            // SAFETY: a fresh contiguous tensor of vals.len() elements.
            unsafe { *p.add(i) = <T as Element>::from_f64(v) };
        }
    });
    Ok(t)
}

/// A contiguous tensor of `dtype` and shape `sizes` from values in the i64 domain.
pub fn from_i64(vals: &[i64], sizes: &[i64], dtype: DType) -> TensorResult<Tensor> {
    let t = Tensor::zeros(sizes, dtype)?;
    check_len(vals.len(), &t)?;
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for (i, &v) in vals.iter().enumerate() {
            // SAFETY: a fresh contiguous tensor of vals.len() elements.
            unsafe { *p.add(i) = <T as Element>::from_i64(v) };
        }
    });
    Ok(t)
}

fn check_len(n: usize, t: &Tensor) -> TensorResult<()> {
    if n != t.numel() {
        return Err(TensorError::new(format!(
            "internal: {n} values for a tensor of {} elements",
            t.numel()
        )));
    }
    Ok(())
}

/// Pairwise summation of `v` (PyTorch's cascade sum is as accurate): error grows with
/// log(n), not n.
pub fn pairwise_sum(v: &[f64]) -> f64 {
    const BASE: usize = 128;
    if v.len() <= BASE {
        // Eight accumulators, like a vectorized loop, then a fixed tree.
        let mut acc = [0f64; 8];
        let mut chunks = v.chunks_exact(8);
        for c in &mut chunks {
            for k in 0..8 {
                acc[k] += c[k];
            }
        }
        let mut tail = 0.0;
        for &x in chunks.remainder() {
            tail += x;
        }
        ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail
    } else {
        let mid = v.len() / 2;
        pairwise_sum(&v[..mid]) + pairwise_sum(&v[mid..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_shapes() {
        assert_eq!(reduce_mask(Some(&[0, -1]), 3).unwrap(), [true, false, true]);
        assert_eq!(reduce_mask(Some(&[]), 2).unwrap(), [true, true]);
        assert_eq!(
            reduce_mask(Some(&[0, -2]), 2).unwrap_err().message,
            "dim 0 appears multiple times in the list of dims"
        );
        assert_eq!(reduce_mask(Some(&[-1]), 0).unwrap(), Vec::<bool>::new());
        assert!(reduce_mask(Some(&[1]), 0).is_err());
        assert_eq!(
            reduced_sizes(&[2, 3, 4], &[false, true, false], true),
            [2, 1, 4]
        );
        assert_eq!(reduced_sizes(&[2, 3, 4], &[false, true, true], false), [2]);
    }

    #[test]
    fn fold_matches_across_layouts_and_chunks() {
        let n = 3 * CHUNK + 7;
        let data: Vec<f32> = (0..2 * n).map(|i| (i % 97) as f32 * 0.25).collect();
        let t = Tensor::from_vec(data.clone(), &[2, n as i64]).unwrap();
        let tt = t.t().unwrap();
        for (x, dim) in [(&t, 1usize), (&tt, 0)] {
            let mut mask = vec![false; 2];
            mask[dim] = true;
            let plan = Plan::new(x, &mask, false).unwrap();
            let sums = fold::<f64, f64>(x, &plan, None, |c, _| pairwise_sum(c), |a, b| a + b);
            let want: Vec<f64> = data
                .chunks(n)
                .map(|r| r.iter().map(|&v| v as f64).sum())
                .collect();
            assert_eq!(sums, want);
        }
    }

    #[test]
    fn pairwise_sum_is_accurate() {
        let v = vec![0.1f64; 1_000_000];
        assert!((pairwise_sum(&v) - 100_000.0).abs() < 1e-6);
    }
}
