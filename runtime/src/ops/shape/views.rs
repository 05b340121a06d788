//! Operators that return views (same storage, new layout): view, reshape, flatten,
//! unflatten, permute, transpose, t, squeeze, unsqueeze, expand, movedim, diagonal, select,
//! slice, narrow, unfold, and the in-place metadata forms (`unsqueeze_`, `t_`, ...) that
//! change the tensor object every handle sees.

use super::call::{kernels, tensor_list, tensor_value, Call, Kernel};
use super::elements::sizes_str;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{broadcast_shapes, checked_numel, wrap_dim, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::view", |o| match o {
        "" => Some(view as Kernel),
        "dtype" => Some(view_dtype),
        _ => None,
    });
    kernels!(r, "aten::reshape", |_| Some(reshape as Kernel));
    kernels!(r, "aten::_unsafe_view", |_| Some(reshape as Kernel));
    kernels!(r, "aten::view_as", |_| Some(view_as as Kernel));
    kernels!(r, "aten::reshape_as", |_| Some(reshape_as as Kernel));
    kernels!(r, "aten::flatten", |o| (o == "using_ints")
        .then_some(flatten as Kernel));
    kernels!(r, "aten::ravel", |_| Some(ravel as Kernel));
    kernels!(r, "aten::unflatten", |o| (o == "int")
        .then_some(unflatten as Kernel));
    kernels!(r, "aten::permute", |_| Some(permute as Kernel));
    kernels!(r, "aten::transpose", |o| (o == "int")
        .then_some(transpose as Kernel));
    kernels!(r, "aten::swapaxes", |_| Some(swapaxes as Kernel));
    kernels!(r, "aten::swapdims", |_| Some(transpose as Kernel));
    kernels!(r, "aten::t", |_| Some(t as Kernel));
    kernels!(r, "aten::movedim", |_| Some(movedim as Kernel));
    kernels!(r, "aten::moveaxis", |_| Some(movedim as Kernel));
    kernels!(r, "aten::squeeze", |_| Some(squeeze as Kernel));
    kernels!(r, "aten::unsqueeze", |_| Some(unsqueeze as Kernel));
    kernels!(r, "aten::expand", |_| Some(expand as Kernel));
    kernels!(r, "aten::expand_as", |_| Some(expand_as as Kernel));
    kernels!(r, "aten::broadcast_to", |_| Some(broadcast_to as Kernel));
    kernels!(r, "aten::broadcast_tensors", |_| Some(
        broadcast_tensors as Kernel
    ));
    kernels!(r, "aten::meshgrid", |_| Some(meshgrid as Kernel));
    kernels!(r, "aten::data", |_| Some(alias as Kernel));
    kernels!(r, "aten::diagonal", |o| (o.is_empty())
        .then_some(diagonal as Kernel));
    kernels!(r, "aten::select", |o| (o == "int")
        .then_some(select as Kernel));
    kernels!(r, "aten::slice", |o| (o == "Tensor")
        .then_some(slice as Kernel));
    kernels!(r, "aten::narrow", |_| Some(narrow as Kernel));
    kernels!(r, "aten::unfold", |_| Some(unfold as Kernel));
    kernels!(r, "aten::as_strided", |o| o
        .is_empty()
        .then_some(as_strided as Kernel));
    kernels!(r, "aten::atleast_1d", |o| match o {
        "" => Some(atleast_1d as Kernel),
        "Sequence" => Some(atleast_1d_seq),
        _ => None,
    });
    kernels!(r, "aten::atleast_2d", |o| match o {
        "" => Some(atleast_2d as Kernel),
        "Sequence" => Some(atleast_2d_seq),
        _ => None,
    });
    kernels!(r, "aten::unsqueeze_", |_| Some(unsqueeze_ as Kernel));
    kernels!(r, "aten::squeeze_", |_| Some(squeeze_ as Kernel));
    kernels!(r, "aten::t_", |_| Some(t_ as Kernel));
    kernels!(r, "aten::transpose_", |_| Some(transpose_ as Kernel));
    kernels!(r, "aten::detach", |_| Some(alias as Kernel));
    kernels!(r, "aten::detach_", |_| Some(identity as Kernel));
    kernels!(r, "aten::requires_grad_", |_| Some(identity as Kernel));
    kernels!(r, "prim::data", |_| Some(alias_a as Kernel));
}

fn out(t: Tensor) -> TensorResult<IValue> {
    Ok(tensor_value(t))
}

pub(super) fn view(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.view(&c.ints("size")?)?)
}

/// `view(dtype)`: reinterprets the bytes. Between element sizes the last dim (stride 1)
/// grows or shrinks by their ratio, with PyTorch's checks.
fn view_dtype(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let Some(dtype) = c.opt_dtype("dtype")? else {
        bail!("view(dtype) needs a dtype");
    };
    let old = t.dtype();
    if dtype == crate::tensor::DType::Bool && old != dtype {
        // A bool must be 0 or 1; reinterpreting other bytes as bools is refused.
        bail!("Ember does not support viewing a {old} tensor as torch.bool");
    }
    let mut meta = t.meta().clone();
    meta.dtype = dtype;
    let (os, ns) = (old.size() as i64, dtype.size() as i64);
    if os == ns {
        return out(Tensor::from_meta(meta)?);
    }
    let (on, nn) = (old.scalar_type_name(), dtype.scalar_type_name());
    let n = meta.sizes.len();
    if n == 0 {
        bail!("self.dim() cannot be 0 to view {on} as {nn} (different element sizes)");
    }
    if meta.strides[n - 1] != 1 {
        bail!(
            "self.stride(-1) must be 1 to view {on} as {nn} (different element sizes), but got {}",
            meta.strides[n - 1]
        );
    }
    if os > ns {
        let ratio = os / ns;
        meta.sizes[n - 1] = meta.sizes[n - 1].saturating_mul(ratio);
        for st in meta.strides.iter_mut().take(n - 1) {
            *st = st.saturating_mul(ratio);
        }
        meta.offset = meta.offset.saturating_mul(ratio);
    } else {
        let ratio = ns / os;
        if meta.sizes[n - 1] % ratio != 0 {
            bail!(
                "self.size(-1) must be divisible by {ratio} to view {on} as {nn} (different element sizes), but got {}",
                meta.sizes[n - 1]
            );
        }
        if meta.offset % ratio != 0 {
            bail!(
                "self.storage_offset() must be divisible by {ratio} to view {on} as {nn} (different element sizes), but got {}",
                meta.offset
            );
        }
        for i in 0..n - 1 {
            if meta.strides[i] % ratio != 0 {
                bail!(
                    "self.stride({i}) must be divisible by {ratio} to view {on} as {nn} (different element sizes), but got {}",
                    meta.strides[i]
                );
            }
            meta.strides[i] /= ratio;
        }
        meta.sizes[n - 1] /= ratio;
        meta.offset /= ratio;
    }
    out(Tensor::from_meta(meta)?)
}

pub(super) fn reshape(c: &Call) -> TensorResult<IValue> {
    let shape = if c.has("shape") {
        c.ints("shape")?
    } else {
        c.ints("size")?
    };
    out(c.tensor("self")?.reshape(&shape)?)
}

fn view_as(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.view(&c.tensor("other")?.sizes())?)
}

fn reshape_as(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.reshape(&c.tensor("other")?.sizes())?)
}

/// `flatten(start_dim, end_dim)`: a 0-dim tensor becomes 1-dim; start == end is the tensor.
pub fn flatten_tensor(t: &Tensor, start: i64, end: i64) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    if sizes.is_empty() {
        return t.reshape(&[1]);
    }
    let n = sizes.len();
    let (s, e) = (wrap_dim(start, n)?, wrap_dim(end, n)?);
    if s > e {
        bail!("flatten() has invalid args: start_dim cannot come after end_dim");
    }
    if s == e {
        return Ok(t.clone());
    }
    let merged = checked_numel(&sizes[s..=e])? as i64;
    let mut shape: Vec<i64> = sizes[..s].to_vec();
    shape.push(merged);
    shape.extend_from_slice(&sizes[e + 1..]);
    t.reshape(&shape)
}

fn flatten(c: &Call) -> TensorResult<IValue> {
    out(flatten_tensor(
        &c.tensor("self")?,
        c.int("start_dim")?,
        c.int("end_dim")?,
    )?)
}

fn ravel(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.reshape(&[-1])?)
}

fn unflatten(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let sizes = c.ints("sizes")?;
    let shape = t.sizes();
    if shape.is_empty() {
        bail!(
            "Dimension specified as {} but tensor has no dimensions",
            c.int("dim")?
        );
    }
    let d = wrap_dim(c.int("dim")?, shape.len())?;
    if sizes.is_empty() {
        bail!("unflatten: sizes must be non-empty");
    }
    let infer = sizes.iter().filter(|&&s| s == -1).count();
    if infer > 1 {
        bail!("only one dimension can be inferred");
    }
    let known = sizes
        .iter()
        .filter(|&&s| s != -1)
        .try_fold(1i64, |acc, &s| acc.checked_mul(s));
    let mut new_sizes = sizes.clone();
    let dim_size = shape[d];
    let ok = match known {
        Some(k) if infer == 1 && k != 0 && dim_size % k == 0 => {
            let at = sizes.iter().position(|&s| s == -1).unwrap_or(0);
            new_sizes[at] = dim_size / k;
            true
        }
        Some(_) if infer == 1 => false,
        Some(k) => k == dim_size,
        None => false,
    };
    if !ok {
        bail!(
            "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({dim_size}) in the input tensor",
            sizes_str(&sizes),
            c.int("dim")?
        );
    }
    let mut full: Vec<i64> = shape[..d].to_vec();
    full.extend_from_slice(&new_sizes);
    full.extend_from_slice(&shape[d + 1..]);
    out(t.view(&full)?)
}

pub(super) fn permute(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.permute(&c.ints("dims")?)?)
}

pub(super) fn transpose(c: &Call) -> TensorResult<IValue> {
    out(c
        .tensor("self")?
        .transpose(c.int("dim0")?, c.int("dim1")?)?)
}

fn swapaxes(c: &Call) -> TensorResult<IValue> {
    out(c
        .tensor("self")?
        .transpose(c.int("axis0")?, c.int("axis1")?)?)
}

pub(super) fn t(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.t()?)
}

/// The permutation `movedim(source, destination)` applies.
pub fn movedim_order(ndim: usize, src: &[i64], dst: &[i64]) -> TensorResult<Vec<i64>> {
    if src.len() != dst.len() {
        bail!(
            "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
            sizes_str(src),
            sizes_str(dst)
        );
    }
    let norm =
        |v: &[i64]| -> TensorResult<Vec<usize>> { v.iter().map(|&d| wrap_dim(d, ndim)).collect() };
    let (s, d) = (norm(src)?, norm(dst)?);
    let repeated = |v: &[usize]| (0..v.len()).any(|i| v[i + 1..].contains(&v[i]));
    if repeated(&s) {
        bail!("movedim: repeated dim in `source` ({})", sizes_str(src));
    }
    if repeated(&d) {
        bail!(
            "movedim: repeated dim in `destination` ({})",
            sizes_str(dst)
        );
    }
    let mut order: Vec<i64> = vec![-1; ndim];
    for (&si, &di) in s.iter().zip(&d) {
        if di < ndim {
            order[di] = si as i64;
        }
    }
    let mut rest_src = (0..ndim).filter(|i| !s.contains(i));
    for slot in order.iter_mut() {
        if *slot == -1 {
            *slot = rest_src.next().unwrap_or(0) as i64;
        }
    }
    Ok(order)
}

fn movedim(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let (src, dst) = (c.ints("source")?, c.ints("destination")?);
    let n = t.dim();
    if n == 0 {
        // A 0-dim tensor has only dims 0 and -1 to move onto themselves.
        movedim_order(1, &src, &dst)?;
        return out(t.clone());
    }
    out(t.permute(&movedim_order(n, &src, &dst)?)?)
}

/// The squeeze of `t`: all size-1 dims, or those of `dims` that have size 1.
pub fn squeeze_tensor(t: &Tensor, dims: Option<&[i64]>) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    let strides = t.strides();
    let n = sizes.len();
    let mut chosen = vec![dims.is_none(); n];
    if let Some(dims) = dims {
        for &d in dims {
            let d = wrap_dim(d, n)?;
            if d < n {
                chosen[d] = true;
            }
        }
    }
    let (mut s2, mut st2) = (Vec::new(), Vec::new());
    for i in 0..n {
        if !(chosen[i] && sizes[i] == 1) {
            s2.push(sizes[i]);
            st2.push(strides[i]);
        }
    }
    t.with_layout(&s2, &st2, t.storage_offset())
}

fn squeeze_dims(c: &Call) -> TensorResult<Option<Vec<i64>>> {
    Ok(match c.overload() {
        "dim" => Some(vec![c.int("dim")?]),
        "dims" => Some(c.ints("dim")?),
        _ => None,
    })
}

pub(super) fn squeeze(c: &Call) -> TensorResult<IValue> {
    let dims = squeeze_dims(c)?;
    out(squeeze_tensor(&c.tensor("self")?, dims.as_deref())?)
}

pub(super) fn unsqueeze(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.unsqueeze(c.int("dim")?)?)
}

pub(super) fn expand(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.expand(&c.ints("size")?)?)
}

fn expand_as(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.expand(&c.tensor("other")?.sizes())?)
}

fn broadcast_to(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.expand(&c.ints("size")?)?)
}

fn broadcast_tensors(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    let mut shape: Vec<i64> = Vec::new();
    for t in &ts {
        shape = broadcast_shapes(&shape, &t.sizes())?.to_vec();
    }
    let views = ts
        .iter()
        .map(|t| t.expand(&shape))
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(tensor_list(views))
}

/// `meshgrid(tensors, indexing)`: each 0-d/1-d input viewed along its own dim and expanded
/// to the grid (`xy` swaps the roles of the first two inputs).
fn meshgrid(c: &Call) -> TensorResult<IValue> {
    let mut ts = c.tensors("tensors")?;
    let indexing = if c.has("indexing") {
        c.string("indexing")?
    } else {
        "ij".to_string()
    };
    if indexing != "ij" && indexing != "xy" {
        bail!("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}");
    }
    if ts.is_empty() {
        bail!("torch.meshgrid: Expected at least one tensor");
    }
    for t in &ts {
        if t.dim() > 1 {
            bail!("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t:?}");
        }
        if t.dtype() != ts[0].dtype() {
            bail!("meshgrid expects all tensors to have the same dtype");
        }
    }
    let swap = indexing == "xy" && ts.len() >= 2;
    if swap {
        ts.swap(0, 1);
    }
    let shape: Vec<i64> = ts.iter().map(|t| t.numel() as i64).collect();
    let mut grids = Vec::with_capacity(ts.len());
    for (i, t) in ts.iter().enumerate() {
        let mut view_shape = vec![1i64; ts.len()];
        view_shape[i] = -1;
        grids.push(t.view(&view_shape)?.expand(&shape)?);
    }
    if swap {
        grids.swap(0, 1);
    }
    Ok(tensor_list(grids))
}

pub(super) fn diagonal(c: &Call) -> TensorResult<IValue> {
    out(c
        .tensor("self")?
        .diagonal(c.int("offset")?, c.int("dim1")?, c.int("dim2")?)?)
}

pub(super) fn select(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.select(c.int("dim")?, c.int("index")?)?)
}

pub(super) fn slice(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?.slice(
        c.int("dim")?,
        c.opt_int("start")?,
        c.opt_int("end")?,
        c.int("step")?,
    )?)
}

fn narrow(c: &Call) -> TensorResult<IValue> {
    let start = match c.get("start") {
        IValue::Tensor(s) => {
            if s.dim() != 0 || !s.dtype().is_integral() {
                bail!("start must be an 0-dim integral Tensor.");
            }
            s.item_i64()?
        }
        _ => c.int("start")?,
    };
    out(c
        .tensor("self")?
        .narrow(c.int("dim")?, start, c.int("length")?)?)
}

/// `as_strided(size, stride, storage_offset)`, checked against the storage.
pub(super) fn as_strided(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let (size, stride) = (c.ints("size")?, c.ints("stride")?);
    if size.len() != stride.len() {
        bail!(
            "mismatch in length of strides and shape: {} vs {}",
            stride.len(),
            size.len()
        );
    }
    crate::tensor::checked_numel(&size)?;
    if stride.iter().any(|&s| s < 0) {
        bail!(
            "as_strided: Negative strides are not supported at the moment, got strides: {}",
            sizes_str(&stride)
        );
    }
    let offset = c.opt_int("storage_offset")?.unwrap_or(t.storage_offset());
    out(t.as_strided(&size, &stride, offset)?)
}

/// `unfold(dimension, size, step)`: windows of `size` every `step` along a new last dim.
pub(super) fn unfold(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let (dim, size, step) = (c.int("dimension")?, c.int("size")?, c.int("step")?);
    let sizes = t.sizes();
    let strides = t.strides();
    let d = wrap_dim(dim, sizes.len())?;
    let dim_size = if sizes.is_empty() { 1 } else { sizes[d] };
    if size > dim_size {
        bail!("maximum size for tensor at dimension {d} is {dim_size} but size is {size}");
    }
    if size < 0 {
        bail!("size is {size} but must be >= 0");
    }
    if step <= 0 {
        bail!("step is {step} but must be > 0");
    }
    let (mut s2, mut st2): (Vec<i64>, Vec<i64>) = (sizes.to_vec(), strides.to_vec());
    let elem_stride = if sizes.is_empty() { 1 } else { strides[d] };
    if !sizes.is_empty() {
        s2[d] = (dim_size - size) / step + 1;
        st2[d] = strides[d].saturating_mul(step);
    }
    s2.push(size);
    st2.push(elem_stride);
    out(t.with_layout(&s2, &st2, t.storage_offset())?)
}

pub fn atleast_1d_tensor(t: &Tensor) -> TensorResult<Tensor> {
    if t.dim() == 0 {
        t.reshape(&[1])
    } else {
        Ok(t.clone())
    }
}

pub fn atleast_2d_tensor(t: &Tensor) -> TensorResult<Tensor> {
    match t.dim() {
        0 => t.reshape(&[1, 1]),
        1 => t.unsqueeze(0),
        _ => Ok(t.clone()),
    }
}

fn atleast_1d(c: &Call) -> TensorResult<IValue> {
    out(atleast_1d_tensor(&c.tensor("self")?)?)
}

fn atleast_2d(c: &Call) -> TensorResult<IValue> {
    out(atleast_2d_tensor(&c.tensor("self")?)?)
}

fn atleast_1d_seq(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    Ok(tensor_list(
        ts.iter()
            .map(atleast_1d_tensor)
            .collect::<TensorResult<_>>()?,
    ))
}

fn atleast_2d_seq(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    Ok(tensor_list(
        ts.iter()
            .map(atleast_2d_tensor)
            .collect::<TensorResult<_>>()?,
    ))
}

/// Gives the tensor object `t` the layout of `view` (same storage): what every in-place
/// metadata op does, seen by every handle of `t`.
fn set_layout(t: &Tensor, view: Tensor) -> TensorResult<IValue> {
    let meta = view.meta().clone();
    t.set_meta(meta)?;
    Ok(IValue::Tensor(t.clone()))
}

fn unsqueeze_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let v = t.unsqueeze(c.int("dim")?)?;
    set_layout(&t, v)
}

fn squeeze_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let dims = squeeze_dims(c)?;
    let v = squeeze_tensor(&t, dims.as_deref())?;
    set_layout(&t, v)
}

fn t_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let v = t.t()?;
    set_layout(&t, v)
}

fn transpose_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let v = t.transpose(c.int("dim0")?, c.int("dim1")?)?;
    set_layout(&t, v)
}

/// A new tensor object viewing the same elements (`detach`).
pub(super) fn alias(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    out(t.with_layout(&t.sizes(), &t.strides(), t.storage_offset())?)
}

fn alias_a(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("a")?;
    out(t.with_layout(&t.sizes(), &t.strides(), t.storage_offset())?)
}

/// The tensor itself (autograd-only ops: `detach_`, `requires_grad_`).
fn identity(c: &Call) -> TensorResult<IValue> {
    out(c.tensor("self")?)
}
