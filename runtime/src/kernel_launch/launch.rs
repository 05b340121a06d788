//! Calling a JIT kernel safely: the inputs are checked against the parameters the kernel was
//! built for, the broadcast iteration space and every operand's strides are computed here
//! (dimensions that are contiguous for every operand merged, so the common case is one long
//! row), the outputs are allocated, and large calls are split over the runtime's thread pool.
//! What depends only on the operands' sizes and strides is kept for the next call
//! ([`LaunchCache`]).

use std::sync::{Arc, Mutex};

use smallvec::SmallVec;

use crate::ivalue::IValue;
use crate::kernel_abi::JitKernelFn;
use crate::ops::pointwise::{HEAVY_PARALLEL_THRESHOLD, PARALLEL_THRESHOLD};
use crate::ops::shape::split::chunk_tensor;
use crate::tensor::{
    broadcast_shapes, checked_numel, contiguous_strides, DType, Device, Meta, ScalarKind, Storage,
    Tensor,
};

use super::kernel::{OutputPlan, Param, PointwiseKernel, ResultShape};

/// Elements per task when a call is split: a task costs far more than handing it to the
/// pool, and there are several per thread so that a thread slowed by other work (the cores
/// are shared) does not hold up the call.
const TASK_ELEMENTS: usize = 1 << 14;

pub fn run(
    k: &PointwiseKernel,
    entry: JitKernelFn,
    inputs: &[IValue],
    cache: &LaunchCache,
) -> Result<Vec<IValue>, String> {
    if inputs.len() != k.params.len() {
        return Err(format!(
            "the fused kernel takes {} inputs, got {}",
            k.params.len(),
            inputs.len()
        ));
    }
    let rank = k.rank;
    // Metadata of every tensor operand in ABI order, parameters then chunk views (cloned: it
    // holds the storage alive for the call), and where each operand id's is. Inline vectors
    // here and below: a small group's launch is mostly this bookkeeping.
    let mut metas: SmallVec<[Meta; 4]> = SmallVec::new();
    let mut position: SmallVec<[usize; 8]> =
        smallvec::smallvec![usize::MAX; k.params.len() + k.views.len()];
    let mut scalars: SmallVec<[i64; 4]> = SmallVec::new();
    for (i, (p, v)) in k.params.iter().zip(inputs).enumerate() {
        match (p, v) {
            (Param::Tensor { dtype, sizes }, IValue::Tensor(t)) => {
                let m = t.meta().clone();
                check_tensor(&m, *dtype, sizes, || operand_name(k, i))?;
                position[i] = metas.len();
                metas.push(m);
            }
            (Param::Scalar(ScalarKind::Int), IValue::Int(x)) => scalars.push(*x),
            (Param::Scalar(ScalarKind::Float), IValue::Double(x)) => {
                scalars.push(x.to_bits() as i64)
            }
            (Param::Scalar(ScalarKind::Bool), IValue::Bool(b)) => scalars.push(*b as i64),
            (p, v) => {
                return Err(format!(
                    "input {i}: expected {}, got {}",
                    match p {
                        Param::Tensor { .. } => "a tensor",
                        Param::Scalar(ScalarKind::Int) => "an int",
                        Param::Scalar(ScalarKind::Float) => "a float",
                        Param::Scalar(ScalarKind::Bool) => "a bool",
                    },
                    v.kind_name()
                ))
            }
        }
    }
    for (j, view) in k.views.iter().enumerate() {
        let id = k.params.len() + j;
        let IValue::Tensor(t) = &inputs[view.input] else {
            unreachable!("chunked parameters are tensors, checked above")
        };
        // An input of size 1 in the chunked dimension broadcasts there (its type left the
        // size open) while another input of the same chunk is longer: every piece reads it
        // whole.
        let size_of = |v: &super::kernel::ChunkView| match &inputs[v.input] {
            IValue::Tensor(t) => t.size(v.dim).unwrap_or(0),
            _ => 0,
        };
        let longest = k
            .views
            .iter()
            .filter(|v| v.node == view.node)
            .map(size_of)
            .max()
            .unwrap_or(0);
        let m = if size_of(view) == 1 && longest > 1 {
            t.meta().clone()
        } else {
            // The runtime's own chunk, so the pieces are exactly the interpreter's.
            let pieces = chunk_tensor(t, view.chunks, view.dim).map_err(|e| e.message)?;
            if pieces.len() != view.outputs {
                return Err(format!(
                    "Expected chunk to return {} outputs, but got {}",
                    view.outputs,
                    pieces.len()
                ));
            }
            let m = pieces[view.index].meta().clone();
            check_tensor(&m, view.dtype, &view.sizes, || operand_name(k, id))?;
            m
        };
        position[id] = metas.len();
        metas.push(m);
    }
    // Each sweep's iteration space, and every result's shape: the last call's when the
    // operands have its sizes and strides.
    let key = geometry_key(&metas);
    let known = cache.lookup(&key);
    let mut plans: Vec<SweepPlan> = Vec::new();
    let mut planned_shapes: Vec<Vec<i64>> = Vec::new();
    let result_shapes = match &known {
        Some(g) => &g.result_shapes,
        None => {
            planned_shapes = vec![Vec::new(); k.results.len()];
            plans = k
                .sweeps
                .iter()
                .map(|sweep| plan_sweep(k, sweep, &metas, &position, &mut planned_shapes))
                .collect::<Result<_, _>>()?;
            &planned_shapes
        }
    };
    let row_dims = k.row_dims.min(rank);
    // One tensor per group output; each result writes into its output (a slice of it for a
    // fused `cat`).
    let mut outputs = Vec::with_capacity(k.outputs.len());
    let mut result_views: SmallVec<[Option<Meta>; 2]> = smallvec::smallvec![None; k.results.len()];
    for plan in &k.outputs {
        match plan {
            OutputPlan::Result(r) => {
                let t = empty(&result_shapes[*r], k.results[*r].dtype)?;
                let mut m = t.meta().clone();
                if k.results[*r].shape == (ResultShape::Row { keepdim: false }) {
                    // Written as the kernel sees it: with the row's size-1 dimensions.
                    for _ in 0..row_dims {
                        m.sizes.push(1);
                        m.strides.push(1);
                    }
                }
                result_views[*r] = Some(m);
                outputs.push(t);
            }
            OutputPlan::Cat { dim, results } => {
                // The parts must agree everywhere but along `dim` (the interpreter's `cat`
                // says how they do not).
                let first = &result_shapes[results[0]];
                let mut cat_shape = first.clone();
                let mut total = 0i64;
                for &r in results {
                    let part = &result_shapes[r];
                    let agree = part.len() == first.len()
                        && (0..part.len()).all(|d| d == *dim || part[d] == first[d]);
                    if !agree {
                        return Err(format!(
                            "cat parts of shapes {first:?} and {part:?} differ outside dimension {dim}"
                        ));
                    }
                    total = total
                        .checked_add(part[*dim])
                        .ok_or("output size overflows")?;
                }
                cat_shape[*dim] = total;
                let t = empty(&cat_shape, k.results[results[0]].dtype)?;
                let mut start = 0;
                for &r in results {
                    let length = result_shapes[r][*dim];
                    let part = t
                        .narrow(*dim as i64, start, length)
                        .map_err(|e| e.to_string())?;
                    result_views[r] = Some(part.meta().clone());
                    start += length;
                }
                outputs.push(t);
            }
        }
    }
    let result_views: SmallVec<[Meta; 2]> = result_views
        .into_iter()
        .map(|m| m.expect("every result has an output"))
        .collect();
    let geometry = match known {
        Some(g) => g,
        None => {
            let sweeps = k
                .sweeps
                .iter()
                .zip(&plans)
                .enumerate()
                .map(|(index, (results, plan))| {
                    let sweep = Sweep {
                        index,
                        results,
                        reads: &plan.reads,
                    };
                    plan.runs
                        .then(|| sweep_geometry(k, &sweep, &metas, &result_views, &plan.iter_shape))
                        .transpose()
                })
                .collect::<Result<_, _>>()?;
            cache.keep(Geometry {
                key,
                result_shapes: planned_shapes,
                sweeps,
            })
        }
    };
    let ptrs: SmallVec<[*mut u8; 8]> = metas
        .iter()
        .chain(&result_views)
        .map(|m| {
            m.storage
                .as_ptr()
                .wrapping_add(m.offset as usize * m.dtype.size())
        })
        .collect();
    // The kernel reads one 64-bit slot per scalar; keep the array non-empty.
    let scalars = if scalars.is_empty() {
        &[0][..]
    } else {
        &scalars[..]
    };
    for (sizes, strides) in geometry.sweeps.iter().flatten() {
        let c = Call {
            entry,
            sizes,
            ptrs: &ptrs,
            strides,
            scalars,
        };
        launch(k, &c);
    }
    Ok(outputs.into_iter().map(IValue::Tensor).collect())
}

/// What a call derives from its operands' sizes and strides alone: every result's shape, and
/// per sweep (`None` where it has nothing to compute) its collapsed sizes, the sweep's index
/// after them, and every operand's strides, flat.
struct Geometry {
    /// Per tensor operand: its rank, sizes and strides.
    key: SmallVec<[i64; 32]>,
    result_shapes: Vec<Vec<i64>>,
    sweeps: Vec<Option<(Vec<i64>, Vec<i64>)>>,
}

/// The geometry of a kernel's last call: a group in a loop runs on the same shapes call after
/// call, and one with the operands' sizes and strides of the last call skips planning (its
/// checks passed for them then).
#[derive(Default)]
pub struct LaunchCache(Mutex<Option<Arc<Geometry>>>);

impl LaunchCache {
    fn lookup(&self, key: &[i64]) -> Option<Arc<Geometry>> {
        // A call that finds another thread in the cache plans on its own.
        let kept = self.0.try_lock().ok()?;
        kept.as_ref().filter(|g| &g.key[..] == key).cloned()
    }

    fn keep(&self, g: Geometry) -> Arc<Geometry> {
        let g = Arc::new(g);
        if let Ok(mut kept) = self.0.try_lock() {
            *kept = Some(g.clone());
        }
        g
    }
}

fn geometry_key(metas: &[Meta]) -> SmallVec<[i64; 32]> {
    let mut key = SmallVec::new();
    for m in metas {
        key.push(m.sizes.len() as i64);
        key.extend_from_slice(&m.sizes);
        key.extend_from_slice(&m.strides);
    }
    key
}

/// A sweep's iteration space as this call's inputs give it.
struct SweepPlan {
    /// Its sizes, padded to the kernel's rank with leading 1s.
    iter_shape: Vec<i64>,
    /// Per tensor operand in ABI order (the `metas` of `run`): whether the sweep reads it.
    reads: Vec<bool>,
    /// Whether it has anything to compute (rows of no columns still have their sums (0) and
    /// means (NaN) to write).
    runs: bool,
}

/// Computes the iteration space of the sweep of `results` (the broadcast of what they read)
/// and checks it against the kernel's rows; stores the shape of each of its results.
fn plan_sweep(
    k: &PointwiseKernel,
    results: &[usize],
    metas: &[Meta],
    position: &[usize],
    result_shapes: &mut [Vec<i64>],
) -> Result<SweepPlan, String> {
    let rank = k.rank;
    let reads_operand = k.reads(results);
    let mut reads = vec![false; metas.len()];
    let mut shape: Vec<i64> = Vec::new();
    for (id, &read) in reads_operand.iter().enumerate() {
        // (Scalar parameters have no position: they are not tensor operands.)
        if read && position[id] != usize::MAX {
            let m = &metas[position[id]];
            shape = broadcast_shapes(&shape, &m.sizes)
                .map_err(|e| format!("{}: {e}", operand_name(k, id)))?
                .to_vec();
            reads[position[id]] = true;
        }
    }
    if shape.len() > rank {
        return Err("inputs of a higher rank than the kernel's".into());
    }
    let mut iter_shape = vec![1i64; rank - shape.len()];
    iter_shape.extend_from_slice(&shape);
    // The row: the innermost `row_dims` dimensions of the iteration space (all of them when a
    // reduction covers every dimension); a reduction leaves them size 1.
    let row_dims = k.row_dims.min(rank);
    let (outer, row) = iter_shape.split_at(rank - row_dims);
    let row_shape: Vec<i64> = match shape.len().checked_sub(row_dims) {
        Some(n) => [&shape[..n], &vec![1; row_dims][..]].concat(),
        None => Vec::new(),
    };
    // A reduction's input must span the row, not broadcast along it.
    let size_at = |p: usize, d: usize| {
        let sizes = &metas[position[p]].sizes;
        (sizes.len() + d).checked_sub(rank).map(|i| sizes[i])
    };
    for from in &k.reduced_rows {
        for (j, &n) in row.iter().enumerate() {
            let d = rank - row_dims + j;
            if n != 1 && !from.iter().any(|&p| size_at(p, d) == Some(n)) {
                return Err(format!(
                    "a reduced value is broadcast along a row dimension of size {n}"
                ));
            }
        }
    }
    if let Some(want) = &k.row_sizes {
        let wrong = k
            .row_shaped
            .iter()
            .find(|&&p| &metas[position[p]].sizes[..] != want);
        if row != &want[..] || wrong.is_some() {
            return Err(format!(
                "the normalized shape is {want:?}, but the rows are {row:?} and the weight or bias {:?}",
                wrong.map(|&p| &metas[position[p]].sizes)
            ));
        }
    }
    let has_rows = outer.iter().all(|&s| s > 0);
    let columns: i64 = row.iter().product();
    if columns == 0 && has_rows && k.needs_nonempty_rows() {
        return Err("the maximum or minimum of an empty row".into());
    }
    // Every result must have the broadcast shape, or its rows' (its rank is the kernel's).
    for &r in results {
        let res = &k.results[r];
        let mut s: Vec<i64> = Vec::new();
        let reduced = res.reduced_from.iter().map(|&p| (p, true));
        for (p, row) in res.shape_from.iter().map(|&p| (p, false)).chain(reduced) {
            let mut sizes = metas[position[p]].sizes.to_vec();
            if row {
                let n = sizes.len();
                sizes[n.saturating_sub(row_dims)..].fill(1);
            }
            s = broadcast_shapes(&s, &sizes)
                .map_err(|e| e.to_string())?
                .to_vec();
        }
        let want = match res.shape {
            ResultShape::Full => &shape,
            ResultShape::Row { .. } => &row_shape,
        };
        if &s != want {
            return Err(format!(
                "output {r} would have shape {s:?}, not {want:?} as the kernel writes it"
            ));
        }
        if res.shape == (ResultShape::Row { keepdim: false }) {
            s.truncate(s.len() - row_dims);
        }
        result_shapes[r] = s;
    }
    let numel = checked_numel(&iter_shape).map_err(|e| e.to_string())?;
    Ok(SweepPlan {
        runs: numel > 0 || (k.reduces() && has_rows),
        iter_shape,
        reads,
    })
}

/// How an error names tensor operand `id` (a parameter, or a chunk view after them).
fn operand_name(k: &PointwiseKernel, id: usize) -> String {
    match id.checked_sub(k.params.len()).map(|v| &k.views[v]) {
        Some(view) => format!("chunk {} of input {}", view.index, view.input),
        None => format!("input {id}"),
    }
}

/// A contiguous tensor whose every element the kernel writes (no zeroing).
fn empty(shape: &[i64], dtype: DType) -> Result<Tensor, String> {
    let nbytes = checked_numel(shape)
        .map_err(|e| e.to_string())?
        .checked_mul(dtype.size())
        .ok_or("output size overflows")?;
    let storage = Storage::for_overwrite(nbytes).map_err(|e| e.to_string())?;
    Tensor::from_meta(Meta {
        storage,
        dtype,
        device: Device::Cpu,
        sizes: shape.into(),
        strides: contiguous_strides(shape),
        offset: 0,
        requires_grad: false,
    })
    .map_err(|e| e.to_string())
}

/// Checks a tensor operand against the dtype, rank and fixed sizes the kernel was built for
/// (`what` names it in an error: named only then, as calls in a loop pass).
fn check_tensor(
    m: &Meta,
    dtype: DType,
    sizes: &[Option<i64>],
    what: impl Fn() -> String,
) -> Result<(), String> {
    if m.dtype != dtype || m.device != Device::Cpu || m.sizes.len() != sizes.len() {
        return Err(format!(
            "{}: expected a CPU {dtype:?} tensor of rank {}, got {} {:?} of rank {}",
            what(),
            sizes.len(),
            m.device,
            m.dtype,
            m.sizes.len()
        ));
    }
    for (d, (want, got)) in sizes.iter().zip(m.sizes.iter()).enumerate() {
        if want.is_some_and(|w| w != *got) {
            return Err(format!(
                "{}: size {got} in dimension {d}, the kernel was built for {}",
                what(),
                want.unwrap_or(0)
            ));
        }
    }
    Ok(())
}

/// Element strides of a tensor of `sizes`/`strides` broadcast to `shape` (rank aligned at the
/// right; 0 where it broadcasts or the size is 1).
fn broadcast_strides(sizes: &[i64], strides: &[i64], shape: &[i64]) -> Vec<i64> {
    let lead = shape.len() - sizes.len();
    (0..shape.len())
        .map(|d| {
            if d < lead || sizes[d - lead] == 1 {
                0
            } else {
                strides[d - lead]
            }
        })
        .collect()
}

/// Merges dimensions that are contiguous for every operand and drops size-1 dimensions,
/// then pads back to `rank` with leading size-1 dimensions.
fn collapse(shape: &[i64], strides: &mut [Vec<i64>], rank: usize) -> Vec<i64> {
    let mut sizes: Vec<i64> = Vec::new();
    let mut out: Vec<Vec<i64>> = vec![Vec::new(); strides.len()];
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        let mergeable = !sizes.is_empty()
            && strides
                .iter()
                .zip(&out)
                .all(|(s, o)| *o.last().expect("dim") == s[d] * shape[d]);
        if mergeable {
            *sizes.last_mut().expect("dim") *= shape[d];
            for (s, o) in strides.iter().zip(out.iter_mut()) {
                *o.last_mut().expect("dim") = s[d];
            }
        } else {
            sizes.push(shape[d]);
            for (s, o) in strides.iter().zip(out.iter_mut()) {
                o.push(s[d]);
            }
        }
    }
    // Keep at most `rank` dimensions (merging can only reduce their number).
    let pad = rank - sizes.len().min(rank);
    let mut padded = vec![1i64; pad];
    padded.extend_from_slice(&sizes);
    for (s, o) in strides.iter_mut().zip(out) {
        let mut p = vec![0i64; pad];
        p.extend_from_slice(&o);
        *s = p;
    }
    padded
}

/// [`collapse`] for a kernel that reduces rows of the innermost `row_dims` dimensions: they
/// become the last dimension, whatever its size, and only the outer ones merge besides. Rows
/// that no single stride walks for some operand (one broadcast along part of the row) are
/// an error: the kernel reads a row with one stride per operand.
fn collapse_rows(
    shape: &[i64],
    strides: &mut [Vec<i64>],
    rank: usize,
    row_dims: usize,
) -> Result<Vec<i64>, String> {
    if rank < 2 && row_dims <= 1 {
        return Ok(shape.to_vec());
    }
    let split = rank - row_dims;
    let mut row_strides: Vec<Vec<i64>> = strides.iter().map(|s| s[split..].to_vec()).collect();
    let row = if row_dims == 1 {
        shape[split..].to_vec()
    } else if shape[split..].contains(&0) {
        // An empty row: nothing is read, whatever the strides.
        row_strides.iter_mut().for_each(|s| s.fill(0));
        [vec![1; row_dims - 1], vec![0]].concat()
    } else {
        collapse(&shape[split..], &mut row_strides, row_dims)
    };
    if row[..row_dims - 1].iter().any(|&n| n != 1) {
        return Err(format!(
            "a row of sizes {:?} is not walked by one stride for every operand",
            &shape[split..]
        ));
    }
    let mut outer_strides: Vec<Vec<i64>> = strides.iter().map(|s| s[..split].to_vec()).collect();
    let mut sizes = collapse(&shape[..split], &mut outer_strides, rank - 1);
    sizes.push(row[row_dims - 1]);
    for ((s, mut o), r) in strides.iter_mut().zip(outer_strides).zip(row_strides) {
        o.push(r[row_dims - 1]);
        *s = o;
    }
    Ok(sizes)
}

struct Call<'a> {
    entry: JitKernelFn,
    sizes: &'a [i64],
    ptrs: &'a [*mut u8],
    strides: &'a [i64],
    scalars: &'a [i64],
}

// SAFETY: the pointers are to storages kept alive by the caller for the whole call; tasks
// write disjoint ranges of the outputs and only read the inputs.
unsafe impl Sync for Call<'_> {}

impl Call<'_> {
    fn rows(&self, rows: (i64, i64), cols: (i64, i64)) {
        // SAFETY: `run` checked every input against the kernel's parameters and computed the
        // sizes and strides from the tensors' own (bounds-checked) metadata; the outputs are
        // fresh contiguous buffers of the iteration space's size.
        unsafe {
            (self.entry)(
                rows.0,
                rows.1,
                cols.0,
                cols.1,
                self.sizes.as_ptr(),
                self.ptrs.as_ptr(),
                self.strides.as_ptr(),
                self.scalars.as_ptr(),
            )
        }
    }
}

/// The sweep a call computes.
struct Sweep<'a> {
    /// Its index, which the kernel's entry point reads after the sizes.
    index: usize,
    /// The results it writes.
    results: &'a [usize],
    /// Per tensor input in ABI order: whether it reads it.
    reads: &'a [bool],
}

/// The sweep's collapsed sizes (its index after them) and every operand's strides, flat.
fn sweep_geometry(
    k: &PointwiseKernel,
    sweep: &Sweep,
    inputs: &[Meta],
    outputs: &[Meta],
    shape: &[i64],
) -> Result<(Vec<i64>, Vec<i64>), String> {
    let rank = k.rank;
    // Operands the sweep does not read or write (only chunked, or other sweeps') get zero
    // strides: they take no part in its shape.
    let zero = || vec![0; shape.len()];
    let mut strides: Vec<Vec<i64>> = inputs
        .iter()
        .zip(sweep.reads)
        .map(|(m, &read)| {
            if read {
                broadcast_strides(&m.sizes, &m.strides, shape)
            } else {
                zero()
            }
        })
        .collect();
    strides.extend(outputs.iter().enumerate().map(|(r, m)| {
        if sweep.results.contains(&r) {
            broadcast_strides(&m.sizes, &m.strides, shape)
        } else {
            zero()
        }
    }));
    let mut sizes = if k.reduces() {
        collapse_rows(shape, &mut strides, rank, k.row_dims.min(rank))?
    } else {
        collapse(shape, &mut strides, rank)
    };
    sizes.push(sweep.index as i64);
    Ok((sizes, strides.concat()))
}

/// Runs one sweep, split over the thread pool when it is large.
fn launch(k: &PointwiseKernel, c: &Call) {
    let (rank, sizes) = (k.rank, c.sizes);
    let cols = sizes[rank - 1];
    let rows: i64 = sizes[..rank - 1].iter().product();
    let numel = (rows * cols) as usize;
    let threads = crate::parallel::threads();
    // The runtime's thresholds: memory-bound kernels split later than ones doing math.
    let threshold = if k.is_compute_heavy() {
        HEAVY_PARALLEL_THRESHOLD
    } else {
        PARALLEL_THRESHOLD
    };
    if numel < threshold || threads < 2 || (k.reduces() && rows < 2) {
        c.rows((0, rows), (0, cols));
        return;
    }
    let mut tasks = numel.div_ceil(TASK_ELEMENTS).clamp(2, threads * 4) as i64;
    if k.reduces() {
        // A row is reduced whole, by one task.
        tasks = tasks.min(rows);
    }
    if rows >= tasks {
        let per = (rows + tasks - 1) / tasks;
        crate::parallel::for_each(tasks as usize, |t| {
            let t = t as i64;
            let (b, e) = (t * per, ((t + 1) * per).min(rows));
            if b < e {
                c.rows((b, e), (0, cols));
            }
        });
    } else {
        // Few long rows: split each row's columns.
        let per_row = (tasks + rows - 1) / rows;
        let chunk = (cols + per_row - 1) / per_row;
        crate::parallel::for_each((rows * per_row) as usize, |t| {
            let t = t as i64;
            let (r, j) = (t / per_row, t % per_row);
            let (b, e) = (j * chunk, ((j + 1) * chunk).min(cols));
            if b < e {
                c.rows((r, r + 1), (b, e));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_operands_collapse_to_one_row() {
        let shape = [4, 3, 5];
        let mut strides = vec![vec![15, 5, 1], vec![15, 5, 1]];
        let sizes = collapse(&shape, &mut strides, 3);
        assert_eq!(sizes, vec![1, 1, 60]);
        assert_eq!(strides, vec![vec![0, 0, 1], vec![0, 0, 1]]);
    }

    #[test]
    fn broadcast_rows_stay_apart() {
        // A [5] bias over [4, 5]: the bias restarts each row.
        let shape = [4, 5];
        let mut strides = vec![broadcast_strides(&[5], &[1], &shape), vec![5, 1]];
        assert_eq!(strides[0], vec![0, 1]);
        let sizes = collapse(&shape, &mut strides, 2);
        assert_eq!(sizes, vec![4, 5]);
        assert_eq!(strides, vec![vec![0, 1], vec![5, 1]]);
    }

    #[test]
    fn reduced_rows_keep_their_last_dimension() {
        // [2, 3, 1] rows of one column stay rows; the outer dimensions merge.
        let shape = [2, 3, 1];
        let mut strides = vec![vec![3, 1, 1], vec![3, 1, 0]];
        assert_eq!(collapse_rows(&shape, &mut strides, 3, 1), Ok(vec![1, 6, 1]));
        assert_eq!(strides, vec![vec![0, 1, 1], vec![0, 1, 0]]);
    }

    #[test]
    fn rows_of_several_dimensions_merge_into_one() {
        // [2, 3, 4, 5] reduced over its last two dimensions: rows of 20, the mean [2, 3, 1, 1]
        // broadcast along them.
        let shape = [2, 3, 4, 5];
        let mut strides = vec![vec![60, 20, 5, 1], vec![3, 1, 0, 0]];
        assert_eq!(
            collapse_rows(&shape, &mut strides, 4, 2),
            Ok(vec![1, 1, 6, 20])
        );
        assert_eq!(strides, vec![vec![0, 0, 20, 1], vec![0, 0, 1, 0]]);
        // All four: one row.
        let mut strides = vec![vec![60, 20, 5, 1]];
        assert_eq!(
            collapse_rows(&shape, &mut strides, 4, 4),
            Ok(vec![1, 1, 1, 120])
        );
        assert_eq!(strides, vec![vec![0, 0, 0, 1]]);
    }

    #[test]
    fn empty_rows_of_several_dimensions() {
        let shape = [3, 0, 4];
        let mut strides = vec![vec![4, 4, 1]];
        assert_eq!(collapse_rows(&shape, &mut strides, 3, 2), Ok(vec![1, 3, 0]));
        assert_eq!(strides, vec![vec![0, 4, 0]]);
    }

    #[test]
    fn rows_one_stride_cannot_walk_are_refused() {
        // A [4, 1] operand broadcast along part of a [4, 5] row, and a transposed one.
        let shape = [3, 4, 5];
        let mut strides = vec![vec![20, 5, 1], vec![0, 1, 0]];
        assert!(collapse_rows(&shape, &mut strides, 3, 2).is_err());
        let mut strides = vec![vec![20, 1, 4]];
        assert!(collapse_rows(&shape, &mut strides, 3, 2).is_err());
    }

    #[test]
    fn size_one_dimensions_are_dropped() {
        let shape = [1, 6, 1];
        let mut strides = vec![vec![6, 1, 1]];
        assert_eq!(collapse(&shape, &mut strides, 3), vec![1, 1, 6]);
        assert_eq!(strides, vec![vec![0, 0, 1]]);
    }
}
