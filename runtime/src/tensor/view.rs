//! Views: new tensor objects over the same storage, with PyTorch's rules and messages for
//! view, select, slice, narrow, transpose, permute, expand, unsqueeze, squeeze and diagonal.

use smallvec::SmallVec;

use super::shape::{checked_numel, wrap_dim, Shape};
use super::{Meta, Tensor, TensorResult};
use crate::bail;

impl Tensor {
    /// A view with new sizes, strides and offset over the same storage.
    fn restride(&self, sizes: Shape, strides: Shape, offset: i64) -> TensorResult<Tensor> {
        let mut meta: Meta = self.meta().clone();
        meta.sizes = sizes;
        meta.strides = strides;
        meta.offset = offset;
        Tensor::from_meta(meta)
    }

    /// A view with any layout over the same storage (negative strides included, as `flip`
    /// needs), checked against the storage.
    pub fn with_layout(&self, sizes: &[i64], strides: &[i64], offset: i64) -> TensorResult<Tensor> {
        self.restride(sizes.into(), strides.into(), offset)
    }

    /// `as_strided(sizes, strides, offset)`, checked against the storage.
    pub fn as_strided(&self, sizes: &[i64], strides: &[i64], offset: i64) -> TensorResult<Tensor> {
        if offset < 0 {
            bail!("as_strided: Negative strides are not supported at the moment, got storage offset {offset}");
        }
        self.restride(sizes.into(), strides.into(), offset)
    }

    /// `view(sizes)` with one `-1` inferred; fails where PyTorch's `view` fails (strides that
    /// cannot express the new shape without a copy).
    pub fn view(&self, sizes: &[i64]) -> TensorResult<Tensor> {
        let numel = self.numel();
        let sizes = infer_size(sizes, numel)?;
        let m = self.meta();
        let Some(strides) = compute_view_strides(&m.sizes, &m.strides, &sizes) else {
            bail!("view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        };
        let offset = m.offset;
        drop(m);
        self.restride(sizes, strides, offset)
    }

    /// `reshape(sizes)`: a view when possible, otherwise a contiguous copy.
    pub fn reshape(&self, sizes: &[i64]) -> TensorResult<Tensor> {
        let sizes = infer_size(sizes, self.numel())?;
        let m = self.meta();
        if let Some(strides) = compute_view_strides(&m.sizes, &m.strides, &sizes) {
            let offset = m.offset;
            drop(m);
            return self.restride(sizes, strides, offset);
        }
        drop(m);
        self.clone_contiguous()?.view(&sizes)
    }

    /// `select(dim, index)`: drops `dim`, picking one index (negative counts from the end).
    pub fn select(&self, dim: i64, index: i64) -> TensorResult<Tensor> {
        let m = self.meta();
        if m.sizes.is_empty() {
            bail!("select() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, m.sizes.len())?;
        let size = m.sizes[d];
        if index < -size || index >= size {
            bail!(
                "select(): index {index} out of range for tensor of size {:?} at dimension {dim}",
                m.sizes.as_slice()
            );
        }
        let index = if index < 0 { index + size } else { index };
        let mut sizes = m.sizes.clone();
        let mut strides = m.strides.clone();
        let offset = m.offset + index * strides[d];
        sizes.remove(d);
        strides.remove(d);
        drop(m);
        self.restride(sizes, strides, offset)
    }

    /// `slice(dim, start, end, step)` with Python's clamping of out-of-range bounds.
    pub fn slice(
        &self,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> TensorResult<Tensor> {
        let m = self.meta();
        if m.sizes.is_empty() {
            bail!("slice() cannot be applied to a 0-dim tensor.");
        }
        if step <= 0 {
            bail!("slice step must be positive");
        }
        let d = wrap_dim(dim, m.sizes.len())?;
        let size = m.sizes[d];
        let clamp = |v: i64| {
            let v = if v < 0 { v.saturating_add(size) } else { v };
            v.clamp(0, size)
        };
        let start = clamp(start.unwrap_or(0));
        let end = clamp(end.unwrap_or(i64::MAX)).max(start);
        let len = ceil_div(end - start, step);
        let mut sizes = m.sizes.clone();
        let mut strides = m.strides.clone();
        let offset = m.offset + start * strides[d];
        sizes[d] = len;
        strides[d] = strides[d].saturating_mul(step);
        drop(m);
        self.restride(sizes, strides, offset)
    }

    /// `narrow(dim, start, length)`.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> TensorResult<Tensor> {
        let ndim = self.dim();
        if ndim == 0 {
            bail!("narrow() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, ndim)?;
        let size = self.sizes()[d];
        if length < 0 {
            bail!("narrow(): length must be non-negative.");
        }
        if start < -size || start > size {
            bail!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                -size
            );
        }
        let start = if start < 0 { start + size } else { start };
        if start.checked_add(length).is_none_or(|e| e > size) {
            bail!("start ({start}) + length ({length}) exceeds dimension size ({size}).");
        }
        self.slice(d as i64, Some(start), Some(start + length), 1)
    }

    /// `transpose(dim0, dim1)`.
    pub fn transpose(&self, dim0: i64, dim1: i64) -> TensorResult<Tensor> {
        let m = self.meta();
        let n = m.sizes.len();
        let (a, b) = (wrap_dim(dim0, n)?, wrap_dim(dim1, n)?);
        let (mut sizes, mut strides, offset) = (m.sizes.clone(), m.strides.clone(), m.offset);
        drop(m);
        if n > 0 {
            sizes.swap(a, b);
            strides.swap(a, b);
        }
        self.restride(sizes, strides, offset)
    }

    /// `permute(dims)`: `dims` must be a permutation of the dimensions.
    pub fn permute(&self, dims: &[i64]) -> TensorResult<Tensor> {
        let m = self.meta();
        let n = m.sizes.len();
        if dims.len() != n {
            bail!("permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {}", dims.len());
        }
        let mut seen = vec![false; n];
        let (mut sizes, mut strides): (Shape, Shape) = (SmallVec::new(), SmallVec::new());
        for &d in dims {
            let d = wrap_dim(d, n)?;
            if seen[d] {
                bail!("permute(): duplicate dims are not allowed.");
            }
            seen[d] = true;
            sizes.push(m.sizes[d]);
            strides.push(m.strides[d]);
        }
        let offset = m.offset;
        drop(m);
        self.restride(sizes, strides, offset)
    }

    /// `expand(sizes)`: size-1 dims (and new leading dims) broadcast with stride 0; `-1`
    /// keeps a size.
    pub fn expand(&self, sizes: &[i64]) -> TensorResult<Tensor> {
        let m = self.meta();
        let n = m.sizes.len();
        if sizes.len() < n {
            bail!("expand({}{{{:?}}}, size=[{}]): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({n})", m.dtype.legacy_tensor_name(), m.sizes.as_slice(), join(sizes), sizes.len());
        }
        let lead = sizes.len() - n;
        // PyTorch walks the dims from the last one: the first mismatch it finds is reported.
        for i in (lead..sizes.len()).rev() {
            let (want, have) = (sizes[i], m.sizes[i - lead]);
            if want != -1 && want != have && !(have == 1 && want >= 0) {
                bail!("The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton dimension {i}.  Target sizes: [{}].  Tensor sizes: [{}]", join(sizes), join(&m.sizes));
            }
        }
        let mut out_sizes: Shape = SmallVec::with_capacity(sizes.len());
        let mut out_strides: Shape = SmallVec::with_capacity(sizes.len());
        for (i, &want) in sizes.iter().enumerate() {
            if i < lead {
                if want < 0 {
                    bail!("The expanded size of the tensor ({want}) isn't allowed in a leading, non-existing dimension {i}");
                }
                out_sizes.push(want);
                out_strides.push(0);
                continue;
            }
            let (have, stride) = (m.sizes[i - lead], m.strides[i - lead]);
            if want == -1 || want == have {
                out_sizes.push(have);
                out_strides.push(stride);
            } else if have == 1 && want >= 0 {
                out_sizes.push(want);
                out_strides.push(0);
            } else {
                bail!("The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton dimension {i}.  Target sizes: [{}].  Tensor sizes: [{}]", join(sizes), join(&m.sizes));
            }
        }
        let offset = m.offset;
        drop(m);
        self.restride(out_sizes, out_strides, offset)
    }

    /// `unsqueeze(dim)`: a new size-1 dim at `dim` (in range `[-ndim-1, ndim]`).
    pub fn unsqueeze(&self, dim: i64) -> TensorResult<Tensor> {
        let m = self.meta();
        let n = m.sizes.len();
        let d = wrap_dim(dim, n + 1)?;
        let (mut sizes, mut strides) = (m.sizes.clone(), m.strides.clone());
        let stride = if d >= n { 1 } else { sizes[d] * strides[d] };
        sizes.insert(d, 1);
        strides.insert(d, stride);
        let offset = m.offset;
        drop(m);
        self.restride(sizes, strides, offset)
    }

    /// `squeeze()` (all size-1 dims) or `squeeze(dim)` (that dim if its size is 1).
    pub fn squeeze(&self, dim: Option<i64>) -> TensorResult<Tensor> {
        let m = self.meta();
        let n = m.sizes.len();
        let only = match dim {
            Some(d) => Some(wrap_dim(d, n)?),
            None => None,
        };
        let (mut sizes, mut strides): (Shape, Shape) = (SmallVec::new(), SmallVec::new());
        for i in 0..n {
            let drop_it = m.sizes[i] == 1 && only.is_none_or(|d| d == i);
            if !drop_it {
                sizes.push(m.sizes[i]);
                strides.push(m.strides[i]);
            }
        }
        let offset = m.offset;
        drop(m);
        self.restride(sizes, strides, offset)
    }

    /// `diagonal(offset, dim1, dim2)`: the diagonal moved to the last dim.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> TensorResult<Tensor> {
        let m = self.meta();
        let n = m.sizes.len();
        let (a, b) = (wrap_dim(dim1, n)?, wrap_dim(dim2, n)?);
        if a == b {
            bail!("diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        let (sa, sb) = (m.sizes[a], m.sizes[b]);
        let len = if offset >= 0 {
            sa.min(sb.saturating_sub(offset)).max(0)
        } else {
            sa.saturating_add(offset).min(sb).max(0)
        };
        // The offset is within the dims whenever the diagonal is not empty.
        let start = match (len, offset >= 0) {
            (0, _) => 0,
            (_, true) => offset * m.strides[b],
            (_, false) => -offset * m.strides[a],
        };
        let (mut sizes, mut strides): (Shape, Shape) = (SmallVec::new(), SmallVec::new());
        for i in 0..n {
            if i != a && i != b {
                sizes.push(m.sizes[i]);
                strides.push(m.strides[i]);
            }
        }
        sizes.push(len);
        strides.push(m.strides[a] + m.strides[b]);
        let off = m.offset + start;
        drop(m);
        self.restride(sizes, strides, off)
    }

    /// `t()`: transpose of a tensor with at most 2 dims.
    pub fn t(&self) -> TensorResult<Tensor> {
        let n = self.dim();
        if n > 2 {
            bail!("t() expects a tensor with <= 2 dimensions, but self is {n}D");
        }
        if n < 2 {
            return self.restride(self.sizes(), self.strides(), self.storage_offset());
        }
        self.transpose(0, 1)
    }
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Replaces one `-1` in `sizes` by what makes the element count `numel`.
pub fn infer_size(sizes: &[i64], numel: usize) -> TensorResult<Shape> {
    let mut out: Shape = sizes.into();
    let mut infer = None;
    let mut known: usize = 1;
    for (i, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                bail!("only one dimension can be inferred");
            }
            infer = Some(i);
        } else if s < 0 {
            bail!("invalid shape dimension {s}");
        } else {
            known = known
                .checked_mul(s as usize)
                .ok_or_else(|| super::TensorError::new("shape is too large"))?;
        }
    }
    let invalid = || {
        super::TensorError::new(format!(
            "shape '[{}]' is invalid for input of size {numel}",
            join(sizes)
        ))
    };
    match infer {
        Some(_) if known == 0 && numel == 0 => {
            bail!("cannot reshape tensor of 0 elements into shape [{}] because the unspecified dimension size -1 can be any value and is ambiguous", join(sizes));
        }
        Some(i) => {
            if known == 0 || numel % known != 0 {
                return Err(invalid());
            }
            out[i] = (numel / known) as i64;
        }
        None if known != numel => return Err(invalid()),
        None => {}
    }
    checked_numel(&out)?;
    Ok(out)
}

/// PyTorch's `computeStride`: strides for viewing (`old_sizes`, `old_strides`) as `new_sizes`
/// without a copy, or `None` when impossible.
fn compute_view_strides(
    old_sizes: &[i64],
    old_strides: &[i64],
    new_sizes: &[i64],
) -> Option<Shape> {
    let mut new_strides: Shape = SmallVec::from_elem(0, new_sizes.len());
    if old_sizes.is_empty() {
        return Some(SmallVec::from_elem(1, new_sizes.len()));
    }
    let numel: i64 = old_sizes.iter().product();
    if numel == 0 && old_sizes == new_sizes {
        return Some(old_strides.into());
    }
    if numel == 0 {
        // Any strides work for an empty tensor; use contiguous ones.
        return Some(super::shape::contiguous_strides(new_sizes));
    }
    let mut view_d = new_sizes.len() as i64 - 1;
    let mut chunk_base_stride = *old_strides.last().unwrap();
    let mut tensor_numel: i64 = 1;
    let mut view_numel: i64 = 1;
    for tensor_d in (0..old_sizes.len()).rev() {
        tensor_numel *= old_sizes[tensor_d];
        if tensor_d == 0
            || (old_sizes[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)
        {
            while view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

/// `ceil(a / b)` for `a >= 0`, `b > 0`, without the overflow of `(a + b - 1) / b`.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + (a % b != 0) as i64
}
