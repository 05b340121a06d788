//! Typed fast paths of the pointwise operators: float32 loops for add, sub, mul, div, relu,
//! exp, log, tanh, sigmoid, silu and gelu, and a one-pass path for any other float
//! computation of the engine ([`general`]), on contiguous, strided and broadcast operands
//! alike (the loop nest of strided.rs: rows run as vectors, strided rows through gathered
//! blocks). The float32 loops are compiled for AVX-512, AVX2 or SSE2 at run time
//! (`ops::cpu`). Outputs are written without a zeroing pass, and every core works (`parallel`)
//! above [`PARALLEL_THRESHOLD`] elements ([`HEAVY_PARALLEL_THRESHOLD`] for compute-bound
//! kernels).
//!
//! `+ - * /` and relu are exact; exp, log, tanh and erf are branch-free float32 polynomials
//! (vmath.rs: about 1 ulp; erf within 5e-7 absolute, the formula PyTorch's vectorized erf
//! uses), well inside the suite's float32 tolerance.

use super::strided::{feed, split, write_row, Feed, Nest, BLOCK};
use super::vmath::{exp, gelu, gelu_tanh, hardsigmoid, hardswish, log, relu, sigmoid, silu, tanh};
use crate::ops::cpu;
use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{contiguous_strides, DType, Device, Meta, Storage, Tensor};

/// [`for_overwrite`], or the error that names the size it could not allocate.
pub(crate) fn output_for_overwrite(
    sizes: &[i64],
    dtype: DType,
) -> crate::tensor::TensorResult<Tensor> {
    for_overwrite(sizes, dtype).ok_or_else(|| {
        crate::tensor::TensorError::new(format!("cannot allocate a tensor of size {sizes:?}"))
    })
}

/// A contiguous tensor whose elements the caller writes before anything reads them.
pub(crate) fn for_overwrite(sizes: &[i64], dtype: DType) -> Option<Tensor> {
    let n = crate::tensor::checked_numel(sizes).ok()?;
    let storage = Storage::for_overwrite(n.checked_mul(dtype.size())?).ok()?;
    Tensor::from_meta(Meta {
        storage,
        dtype,
        device: Device::Cpu,
        sizes: sizes.into(),
        strides: contiguous_strides(sizes),
        offset: 0,
        requires_grad: false,
    })
    .ok()
}

/// Below this many elements a memory-bound kernel (add, mul, relu, ...) stays on the calling
/// thread: handing work to the pool costs more than the loop below it. From 2^16 up two
/// threads win: float32 muls of 66K, 131K and 200K elements took 12-13, 37-38 and 82-107 us
/// (medians) on one thread and 9-11, 18-29 and 30-40 us on two (BENCHMARKS.md, 2026-11-29);
/// at 47K (2^15 and up) two were slower.
pub const PARALLEL_THRESHOLD: usize = 1 << 16;

/// The same for kernels that spend several nanoseconds per element (exp, tanh, gelu, the
/// general path).
pub const HEAVY_PARALLEL_THRESHOLD: usize = 1 << 15;

#[derive(Copy, Clone, Debug)]
pub(crate) enum Unary {
    Relu,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Silu,
    /// gelu with `approximate="none"` (erf).
    Gelu,
    /// gelu with `approximate="tanh"`.
    GeluTanh,
    Hardswish,
    Hardsigmoid,
    /// hardtanh (and relu6): `lo` below `lo`, `hi` above `hi`, NaN kept.
    Hardtanh(f32, f32),
}

impl Unary {
    pub fn of(name: &str) -> Option<Unary> {
        Some(match name {
            "relu" => Unary::Relu,
            "exp" => Unary::Exp,
            "log" => Unary::Log,
            "tanh" => Unary::Tanh,
            "sigmoid" => Unary::Sigmoid,
            "silu" => Unary::Silu,
            _ => return None,
        })
    }
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum Binary {
    /// `a + alpha * b`
    Add(f32),
    /// `a - alpha * b`
    Sub(f32),
    Mul,
    Div,
}

/// A float32 tensor operand broadcast to `shape`: its address and strides there.
fn strided_f32(t: &Tensor, shape: &[i64]) -> Option<(usize, Vec<i64>)> {
    if t.dtype() != DType::F32 {
        return None;
    }
    let e = t.expand(shape).ok()?;
    Some((e.data_ptr() as usize, e.strides().to_vec()))
}

/// The destination of a kernel whose inputs are `inputs`: a fresh contiguous tensor of
/// `dtype`, or `dst` when it has that dtype and shape and shares memory with no input other
/// than by being exactly it (same address and strides). Inputs are read through raw
/// pointers, never slices, because the destination may be one of them.
fn destination(
    dst: Option<&Tensor>,
    sizes: &[i64],
    dtype: DType,
    inputs: &[&Tensor],
) -> Option<Tensor> {
    match dst {
        None => for_overwrite(sizes, dtype),
        Some(d) => {
            if d.dtype() != dtype || d.sizes().as_slice() != sizes {
                return None;
            }
            for x in inputs {
                let same = d.data_ptr() == x.data_ptr()
                    && x.sizes() == d.sizes()
                    && x.strides() == d.strides();
                if d.shares_storage(x) && !same {
                    return None;
                }
            }
            Some(d.clone())
        }
    }
}

/// `op(x)` when `x` is a float32 tensor (any layout); `None` leaves it to the engine.
pub(crate) fn unary(op: Unary, x: &Arg, dst: Option<&Tensor>) -> Option<Tensor> {
    let Arg::Tensor(x) = x else { return None };
    let sizes = x.sizes();
    let (xp, xs) = strided_f32(x, &sizes)?;
    let out = destination(dst, &sizes, DType::F32, &[x])?;
    let nest = Nest::new(&sizes, &[&out.strides(), &xs]);
    let o = out.data_ptr() as usize;
    let heavy = !matches!(
        op,
        Unary::Relu | Unary::Hardtanh(..) | Unary::Hardswish | Unary::Hardsigmoid
    );
    match op {
        Unary::Relu => unary_nest(&nest, o, xp, heavy, relu),
        Unary::Exp => unary_nest(&nest, o, xp, heavy, exp),
        Unary::Log => unary_nest(&nest, o, xp, heavy, log),
        Unary::Tanh => unary_nest(&nest, o, xp, heavy, tanh),
        Unary::Sigmoid => unary_nest(&nest, o, xp, heavy, sigmoid),
        Unary::Silu => unary_nest(&nest, o, xp, heavy, silu),
        Unary::Gelu => unary_nest(&nest, o, xp, heavy, gelu),
        Unary::GeluTanh => unary_nest(&nest, o, xp, heavy, gelu_tanh),
        Unary::Hardswish => unary_nest(&nest, o, xp, heavy, hardswish),
        Unary::Hardsigmoid => unary_nest(&nest, o, xp, heavy, hardsigmoid),
        Unary::Hardtanh(lo, hi) => unary_nest(&nest, o, xp, heavy, move |v: f32| {
            if v < lo {
                lo
            } else if v > hi {
                hi
            } else {
                v
            }
        }),
    }
    Some(out)
}

fn threshold(heavy: bool) -> usize {
    if heavy {
        HEAVY_PARALLEL_THRESHOLD
    } else {
        PARALLEL_THRESHOLD
    }
}

/// `out = f(x)` over a nest of (out, x); `f` is an `#[inline(always)]` function so that it
/// inlines into the vector loops.
fn unary_nest(nest: &Nest, o: usize, x: usize, heavy: bool, f: impl Fn(f32) -> f32 + Copy + Sync) {
    let level = cpu::isa();
    let inner = nest.inner();
    split(nest.numel(), threshold(heavy), |start, end| {
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                // Once per task, not per row: zeroing it costs more than a short row (a 7x7
                // plane) itself.
                let mut buf = [0f32; BLOCK];
                nest.for_each_run(
                    start,
                    end,
                    #[inline(always)]
                    |offs, len| {
                        // SAFETY: the nest walks in-bounds elements of both tensors; a piece of the
                        // input is read before the same piece of the output is written, so an
                        // output that is the input itself is still right.
                        unsafe {
                            let xp = (x as *const f32).offset(offs[1]);
                            let op = (o as *mut f32).offset(offs[0]);
                            write_row(
                                op,
                                inner[0],
                                len,
                                #[inline(always)]
                                |dst, at, m| match feed(
                                    xp.offset(at as isize * inner[1]),
                                    inner[1],
                                    m,
                                    &mut buf,
                                ) {
                                    Feed::Ptr(p) => {
                                        for i in 0..m {
                                            *dst.add(i) = f(*p.add(i));
                                        }
                                    }
                                    Feed::One(v) => {
                                        let y = f(v);
                                        for i in 0..m {
                                            *dst.add(i) = y;
                                        }
                                    }
                                },
                            );
                        }
                    },
                );
            },
        );
    });
}

/// A binary operand: a float32 tensor (address and strides over the result shape) or a value.
enum Side {
    Tensor(usize, Vec<i64>),
    One(f32),
}

fn side(a: &Arg, sizes: &[i64]) -> Option<Side> {
    Some(match a {
        Arg::Tensor(t) if t.dim() == 0 && t.dtype() == DType::F32 => {
            Side::One(t.item_f64().ok()? as f32)
        }
        Arg::Tensor(t) => {
            let (p, s) = strided_f32(t, sizes)?;
            Side::Tensor(p, s)
        }
        Arg::Float(v) => Side::One(*v as f32),
        Arg::Int(v) => Side::One(*v as f32),
        Arg::Bool(v) => Side::One(*v as u8 as f32),
    })
}

/// `op(a, b)` when the result is float32 and each side is a float32 tensor (any layout,
/// broadcast) or a single value; `None` leaves it to the engine.
pub(crate) fn binary(op: Binary, a: &Arg, b: &Arg, dst: Option<&Tensor>) -> Option<Tensor> {
    let tensors: Vec<&Tensor> = [a, b]
        .into_iter()
        .filter_map(|x| match x {
            Arg::Tensor(t) if t.dim() > 0 => Some(t),
            _ => None,
        })
        .collect();
    if tensors.is_empty() {
        return None;
    }
    let mut sizes: Vec<i64> = Vec::new();
    for t in &tensors {
        sizes = crate::tensor::broadcast_shapes(&sizes, &t.sizes())
            .ok()?
            .to_vec();
    }
    let sa = side(a, &sizes)?;
    let sb = side(b, &sizes)?;
    let out = destination(dst, &sizes, DType::F32, &tensors)?;
    let o = out.data_ptr() as usize;
    match op {
        Binary::Add(1.0) => binary_nest(&sizes, &out, o, &sa, &sb, |x, y| x + y),
        Binary::Add(al) => binary_nest(&sizes, &out, o, &sa, &sb, move |x, y| x + al * y),
        Binary::Sub(1.0) => binary_nest(&sizes, &out, o, &sa, &sb, |x, y| x - y),
        Binary::Sub(al) => binary_nest(&sizes, &out, o, &sa, &sb, move |x, y| x - al * y),
        Binary::Mul => binary_nest(&sizes, &out, o, &sa, &sb, |x, y| x * y),
        Binary::Div => binary_nest(&sizes, &out, o, &sa, &sb, |x, y| x / y),
    }
    Some(out)
}

/// `out = f(a, b)` over the broadcast shape `sizes`.
fn binary_nest(
    sizes: &[i64],
    out: &Tensor,
    o: usize,
    a: &Side,
    b: &Side,
    f: impl Fn(f32, f32) -> f32 + Copy + Sync,
) {
    let zeros = vec![0i64; sizes.len()];
    let (pa, st_a, va) = match a {
        Side::Tensor(p, s) => (*p, s.as_slice(), 0.0),
        Side::One(v) => (0, zeros.as_slice(), *v),
    };
    let (pb, st_b, vb) = match b {
        Side::Tensor(p, s) => (*p, s.as_slice(), 0.0),
        Side::One(v) => (0, zeros.as_slice(), *v),
    };
    let (one_a, one_b) = (matches!(a, Side::One(_)), matches!(b, Side::One(_)));
    let nest = Nest::new(sizes, &[&out.strides(), st_a, st_b]);
    let inner = nest.inner();
    let level = cpu::isa();
    split(nest.numel(), PARALLEL_THRESHOLD, |start, end| {
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                // Once per task, as in unary_nest.
                let (mut ba, mut bb) = ([0f32; BLOCK], [0f32; BLOCK]);
                nest.for_each_run(
                    start,
                    end,
                    #[inline(always)]
                    |offs, len| {
                        // SAFETY: the nest walks in-bounds elements of every tensor; each piece is
                        // read before it is written (an output that is an input stays right).
                        unsafe {
                            let op = (o as *mut f32).offset(offs[0]);
                            write_row(
                                op,
                                inner[0],
                                len,
                                #[inline(always)]
                                |dst, at, m| {
                                    let at = at as isize;
                                    let fa = if one_a {
                                        Feed::One(va)
                                    } else {
                                        let p = (pa as *const f32).offset(offs[1] + at * inner[1]);
                                        feed(p, inner[1], m, &mut ba)
                                    };
                                    let fb = if one_b {
                                        Feed::One(vb)
                                    } else {
                                        let p = (pb as *const f32).offset(offs[2] + at * inner[2]);
                                        feed(p, inner[2], m, &mut bb)
                                    };
                                    binary_run(dst, fa, fb, m, f);
                                },
                            );
                        }
                    },
                );
            },
        );
    });
}

/// `out[i] = f(a[i], b[i])` for `i < n` over contiguous feeds.
///
/// # Safety
/// `o` and the pointer feeds address `n` floats.
#[inline(always)]
unsafe fn binary_run(o: *mut f32, a: Feed, b: Feed, n: usize, f: impl Fn(f32, f32) -> f32) {
    match (a, b) {
        (Feed::Ptr(pa), Feed::Ptr(pb)) => {
            for i in 0..n {
                *o.add(i) = f(*pa.add(i), *pb.add(i));
            }
        }
        (Feed::Ptr(pa), Feed::One(vb)) => {
            for i in 0..n {
                *o.add(i) = f(*pa.add(i), vb);
            }
        }
        (Feed::One(va), Feed::Ptr(pb)) => {
            for i in 0..n {
                *o.add(i) = f(va, *pb.add(i));
            }
        }
        (Feed::One(va), Feed::One(vb)) => {
            let y = f(va, vb);
            for i in 0..n {
                *o.add(i) = y;
            }
        }
    }
}

/// Where one operand of [`general`] reads from: a tensor of one of these dtypes (address),
/// or a value.
#[derive(Copy, Clone)]
enum Src {
    F32(usize),
    F64(usize),
    /// A bool tensor (conditions and masks), read as 0 or 1.
    Bool(usize),
    I64(usize),
    I32(usize),
    Value(f64),
}

impl Src {
    fn of(t: &Tensor) -> Option<Src> {
        let p = t.data_ptr() as usize;
        Some(match t.dtype() {
            DType::F32 => Src::F32(p),
            DType::F64 => Src::F64(p),
            DType::Bool => Src::Bool(p),
            DType::I64 => Src::I64(p),
            DType::I32 => Src::I32(p),
            _ => return None,
        })
    }

    /// SAFETY: for tensor sources, element offset `i` is in bounds.
    #[inline(always)]
    unsafe fn at(self, i: isize) -> f64 {
        match self {
            Src::F32(p) => *(p as *const f32).offset(i) as f64,
            Src::F64(p) => *(p as *const f64).offset(i),
            Src::Bool(p) => *(p as *const u8).offset(i) as f64,
            Src::I64(p) => *(p as *const i64).offset(i) as f64,
            Src::I32(p) => *(p as *const i32).offset(i) as f64,
            Src::Value(v) => v,
        }
    }
}

/// Any floating computation of the engine on float32/float64 operands (bool, int32 and
/// int64 ones read as numbers, as the engine reads them), broadcast and of any layout,
/// without materializing columns: one pass, in parallel when large. `None` when the
/// operands or destination do not qualify.
pub(crate) fn general(
    args: &[Arg],
    compute: Compute<'_>,
    common: DType,
    result: DType,
    dst: Option<&Tensor>,
) -> Option<Tensor> {
    const MAX_ARGS: usize = super::strided::MAX_OPERANDS - 1;
    if !matches!(common, DType::F32 | DType::F64) || args.len() > MAX_ARGS {
        return None;
    }
    let mut sizes: Vec<i64> = Vec::new();
    let mut tensors = Vec::new();
    for a in args {
        if let Arg::Tensor(t) = a {
            sizes = crate::tensor::broadcast_shapes(&sizes, &t.sizes())
                .ok()?
                .to_vec();
            tensors.push(t);
        }
    }
    let mut srcs = [Src::Value(0.0); MAX_ARGS];
    let mut strides: Vec<Vec<i64>> = Vec::with_capacity(args.len());
    for (k, a) in args.iter().enumerate() {
        let value = match a {
            Arg::Tensor(t) if t.dim() == 0 && t.dtype() == common => Some(t.item_f64().ok()?),
            Arg::Tensor(t) => {
                if t.dtype().is_floating() && t.dtype() != common {
                    return None;
                }
                let e = t.expand(&sizes).ok()?;
                srcs[k] = Src::of(&e)?;
                strides.push(e.strides().to_vec());
                None
            }
            Arg::Float(v) => Some(*v),
            Arg::Int(v) => Some(*v as f64),
            Arg::Bool(v) => Some(*v as u8 as f64),
        };
        if let Some(v) = value {
            srcs[k] = Src::Value(v);
            strides.push(vec![0; sizes.len()]);
        }
    }
    if !matches!(
        (compute, result),
        (Compute::Float(_), DType::F32 | DType::F64) | (Compute::FloatToBool(_), DType::Bool)
    ) {
        return None;
    }
    let out = destination(dst, &sizes, result, &tensors)?;
    let o = out.data_ptr() as usize;
    let out_strides = out.strides();
    let mut all: Vec<&[i64]> = vec![&out_strides];
    all.extend(strides.iter().map(|s| s.as_slice()));
    let nest = Nest::new(&sizes, &all);
    let inner = nest.inner();
    let k = args.len();
    split(nest.numel(), HEAVY_PARALLEL_THRESHOLD, |start, end| {
        nest.for_each_run(
            start,
            end,
            #[inline(always)]
            |offs, len| {
                for i in 0..len as isize {
                    let mut v = [0f64; MAX_ARGS];
                    for j in 0..k {
                        // SAFETY: the nest walks in-bounds elements of every source.
                        v[j] = unsafe { srcs[j].at(offs[j + 1] + i * inner[j + 1]) };
                    }
                    let at = offs[0] + i * inner[0];
                    // SAFETY: an in-bounds element of `out`, written after its inputs are read.
                    unsafe {
                        match (compute, result) {
                            (Compute::Float(f), DType::F32) => {
                                *(o as *mut f32).offset(at) = f(&v[..k]) as f32
                            }
                            (Compute::Float(f), _) => *(o as *mut f64).offset(at) = f(&v[..k]),
                            (Compute::FloatToBool(f), _) => {
                                *(o as *mut bool).offset(at) = f(&v[..k])
                            }
                            _ => {}
                        }
                    }
                }
            },
        );
    });
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scalar_math_on_both_sides_of_the_threshold() {
        for n in [5usize, PARALLEL_THRESHOLD + 3] {
            let v: Vec<f32> = (0..n).map(|i| (i as f32) * 0.001 - 3.0).collect();
            let x = Tensor::from_vec(v.clone(), &[n as i64]).unwrap();
            let out = unary(Unary::Sigmoid, &Arg::Tensor(x.clone()), None).unwrap();
            let got = out.to_vec::<f32>();
            for i in [0, n / 2, n - 1] {
                let want = 1.0 / (1.0 + (-(v[i] as f64)).exp());
                assert!((got[i] as f64 - want).abs() < 1e-6);
            }
            let out = binary(
                Binary::Add(2.0),
                &Arg::Tensor(x.clone()),
                &Arg::Float(1.5),
                None,
            )
            .unwrap();
            assert_eq!(out.to_vec::<f32>()[n - 1], v[n - 1] + 3.0);
            // In place on the same tensor.
            binary(Binary::Mul, &Arg::Tensor(x.clone()), &Arg::Int(2), Some(&x)).unwrap();
            assert_eq!(x.to_vec::<f32>()[n - 1], v[n - 1] * 2.0);
        }
    }

    #[test]
    fn general_path_matches_the_engine() {
        use crate::tensor::elementwise::{map, Target};
        for n in [7usize, PARALLEL_THRESHOLD + 5] {
            let x = Tensor::from_vec((0..n).map(|i| i as f32 * 0.01 - 2.0).collect(), &[n as i64])
                .unwrap();
            let y =
                Tensor::from_vec((0..n).map(|i| (i % 7) as f32).collect(), &[n as i64]).unwrap();
            let args = [Arg::Tensor(x.clone()), Arg::Tensor(y), Arg::Float(0.5)];
            let f = |v: &[f64]| if v[1] > 3.0 { v[0] * v[2] } else { v[0].exp() };
            let got = general(&args, Compute::Float(&f), DType::F32, DType::F32, None).unwrap();
            let want = map(&args, Compute::Float(&f), Target::New(DType::F32)).unwrap();
            assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
            let lt = |v: &[f64]| v[0] < v[1];
            let got = general(
                &args[..2],
                Compute::FloatToBool(&lt),
                DType::F32,
                DType::Bool,
                None,
            )
            .unwrap();
            let want = map(
                &args[..2],
                Compute::FloatToBool(&lt),
                Target::New(DType::Bool),
            )
            .unwrap();
            assert_eq!(got.to_vec::<bool>(), want.to_vec::<bool>());
        }
        // Transposed, broadcast and int64 operands.
        let m = Tensor::from_vec((0..21).map(|i| i as f64 * 0.3 - 2.0).collect(), &[7, 3]).unwrap();
        let c = Tensor::from_vec((0..3i64).collect(), &[3, 1]).unwrap();
        let args = [Arg::Tensor(m.t().unwrap()), Arg::Tensor(c), Arg::Float(0.5)];
        let f = |v: &[f64]| v[0] * v[1] + v[2];
        let got = general(&args, Compute::Float(&f), DType::F64, DType::F64, None).unwrap();
        let want = map(&args, Compute::Float(&f), Target::New(DType::F64)).unwrap();
        assert_eq!(got.to_vec::<f64>(), want.to_vec::<f64>());
    }

    #[test]
    fn activations_match_f64() {
        let v: Vec<f32> = (0..400).map(|i| i as f32 * 0.05 - 10.0).collect();
        let x = Arg::Tensor(Tensor::from_vec(v.clone(), &[400]).unwrap());
        type Reference = fn(f64) -> f64;
        let cases: [(Unary, Reference); 3] = [
            (Unary::Silu, |a| a / (1.0 + (-a).exp())),
            (Unary::Gelu, |a| {
                0.5 * a * (1.0 + libm::erf(a / 2f64.sqrt()))
            }),
            (Unary::GeluTanh, |a| {
                0.5 * a
                    * (1.0
                        + ((2.0 / std::f64::consts::PI).sqrt() * (a + 0.044715 * a * a * a)).tanh())
            }),
        ];
        for (op, f) in cases {
            let got = unary(op, &x, None).unwrap().to_vec::<f32>();
            for (g, &a) in got.iter().zip(&v) {
                let want = f(a as f64);
                assert!(
                    (*g as f64 - want).abs() <= 1e-6 + 1e-5 * want.abs(),
                    "{op:?}({a}): {g} vs {want}"
                );
            }
        }
    }

    /// Transposed, chunked and broadcast operands and strided destinations take the typed
    /// loops at every vector width and agree with the engine; a destination that partly
    /// overlaps an input is left to the engine.
    #[test]
    fn strided_operands_at_every_width() {
        use crate::tensor::elementwise::{map, Target};
        let n = 2 * BLOCK as i64 + 37;
        let base: Vec<f32> = (0..n * 8)
            .map(|i| ((i * 7919) % 211) as f32 * 0.05 - 5.0)
            .collect();
        let x = Tensor::from_vec(base, &[n, 8]).unwrap();
        let chunk = x.narrow(1, 2, 2).unwrap(); // [n, 2] at row stride 8
        let t = x.t().unwrap(); // [8, n], inner stride 8
        let row = Tensor::from_vec((0..8).map(|i| i as f32 - 3.5).collect(), &[8]).unwrap();
        let col = Tensor::from_vec((0..n).map(|i| i as f32 * 0.01).collect(), &[n, 1]).unwrap();
        let engine = |args: &[Arg], f: &(dyn Fn(&[f64]) -> f64 + Sync)| {
            map(args, Compute::Float(f), Target::New(DType::F32))
                .unwrap()
                .to_vec::<f32>()
        };
        for level in cpu::available_levels() {
            cpu::with_isa(level, || {
                for v in [&chunk, &t, &x] {
                    let got = unary(Unary::Sigmoid, &Arg::Tensor(v.clone()), None).unwrap();
                    let want = engine(&[Arg::Tensor(v.clone())], &|a| 1.0 / (1.0 + (-a[0]).exp()));
                    for (g, w) in got.to_vec::<f32>().iter().zip(&want) {
                        assert!((g - w).abs() <= 1e-6, "{level:?}: {g} vs {w}");
                    }
                    let got = unary(Unary::Log, &Arg::Tensor(v.clone()), None).unwrap();
                    let want = engine(&[Arg::Tensor(v.clone())], &|a| a[0].ln());
                    for (g, w) in got.to_vec::<f32>().iter().zip(&want) {
                        assert!(
                            (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= 1e-6 * w.abs(),
                            "{level:?}: {g} vs {w}"
                        );
                    }
                }
                for (a, b) in [(&x, &row), (&x, &col), (&t, &t), (&chunk, &chunk)] {
                    let (a, b) = (Arg::Tensor(a.clone()), Arg::Tensor(b.clone()));
                    let got = binary(Binary::Sub(2.0), &a, &b, None)
                        .unwrap()
                        .to_vec::<f32>();
                    let want = engine(&[a, b], &|v| (v[0] as f32 - 2.0 * v[1] as f32) as f64);
                    assert_eq!(got, want, "{level:?}");
                }
                // In place through a transposed view of a fresh copy.
                let y = x.clone_contiguous().unwrap();
                let yt = y.t().unwrap();
                let want: Vec<f32> = yt.to_vec::<f32>().iter().map(|v| v * 3.0).collect();
                binary(
                    Binary::Mul,
                    &Arg::Tensor(yt.clone()),
                    &Arg::Int(3),
                    Some(&yt),
                )
                .unwrap();
                assert_eq!(yt.to_vec::<f32>(), want, "{level:?}");
            });
        }
        let shifted = x
            .view(&[8 * n])
            .unwrap()
            .slice(0, Some(1), Some(8 * n), 1)
            .unwrap();
        let head = x
            .view(&[8 * n])
            .unwrap()
            .slice(0, Some(0), Some(8 * n - 1), 1)
            .unwrap();
        assert!(unary(Unary::Relu, &Arg::Tensor(head), Some(&shifted)).is_none());
    }
}
