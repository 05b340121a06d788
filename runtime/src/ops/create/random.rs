//! Random tensors from a seeded generator: rand, randn, randint, randperm, normal, the
//! `_like` forms, uniform_, normal_, bernoulli. The generator is PyTorch's CPU generator
//! (mt19937 seeded as `torch.manual_seed` seeds it, 32- and 64-bit draws, the cached second
//! Box-Muller normal), and each op draws as PyTorch's CPU kernel draws, so seeded calls give
//! PyTorch's values: bit for bit for rand/uniform_ (float64, float32, float16, bfloat16),
//! randn/normal at every float dtype, randint, randperm and bernoulli. In-place fills of
//! non-contiguous tensors draw in memory order, as PyTorch's TensorIterator walks them.

use std::sync::Mutex;

use crate::bail;
use crate::ivalue::{Generator, IValue};
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, tensor_value, Call, Kernel};
use crate::ops::shape::elements::assert_no_internal_overlap;
use crate::tensor::{elementwise::DEFAULT_FLOAT, DType, Element, Tensor, TensorResult};

use super::factory::{check_options, dtype_or};
use super::mt19937::Mt19937;

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::rand", |_| Some(rand as Kernel));
    kernels!(r, "aten::randn", |_| Some(randn as Kernel));
    kernels!(r, "aten::rand_like", |_| Some(rand_like as Kernel));
    kernels!(r, "aten::randn_like", |_| Some(randn_like as Kernel));
    kernels!(r, "aten::randint", |_| Some(randint as Kernel));
    kernels!(r, "aten::randint_like", |_| Some(randint_like as Kernel));
    kernels!(r, "aten::randperm", |_| Some(randperm as Kernel));
    kernels!(r, "aten::normal", |_| Some(normal as Kernel));
    kernels!(r, "aten::normal_", |_| Some(normal_ as Kernel));
    kernels!(r, "aten::uniform_", |_| Some(uniform_ as Kernel));
    kernels!(r, "aten::bernoulli", |_| Some(bernoulli as Kernel));
    kernels!(r, "aten::bernoulli_", |_| Some(bernoulli_ as Kernel));
    kernels!(r, "aten::manual_seed", |_| Some(manual_seed as Kernel));
}

/// PyTorch's default seed (`default_rng_seed_val`).
pub const DEFAULT_SEED: u64 = 67280421310721;

static DEFAULT: Mutex<Generator> = Mutex::new(Generator::new(DEFAULT_SEED));

/// Reseeds a generator as `manual_seed` does: a fresh engine and no cached normal.
fn reseed(g: &mut Generator, seed: u64) {
    *g = Generator::new(seed);
}

/// Reseeds the process-wide default generator (`torch.manual_seed`).
pub fn seed_default(seed: u64) {
    reseed(&mut DEFAULT.lock().unwrap_or_else(|e| e.into_inner()), seed);
}

/// The next 32 random bits (`CPUGeneratorImpl::random`).
fn next_u32(g: &mut Generator) -> u32 {
    let seed = g.seed;
    g.engine
        .get_or_insert_with(|| Box::new(Mt19937::new(seed)))
        .next_u32()
}

/// The next 64 random bits (`random64`): the first word is the high half.
fn next_u64(g: &mut Generator) -> u64 {
    let hi = next_u32(g) as u64;
    let lo = next_u32(g) as u64;
    (hi << 32) | lo
}

/// `uniform_real_distribution` at the op's compute type: double takes 53 bits of a 64-bit
/// draw; float, half and bfloat16 compute at float (24 bits of a 32-bit draw), the caller
/// rounding to the tensor's dtype.
fn uniform_value(g: &mut Generator, dtype: DType, from: f64, to: f64) -> f64 {
    match dtype {
        DType::F64 => {
            let x = (next_u64(g) & ((1u64 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64);
            // PyTorch's build contracts `x * (to - from) + from` into one fused multiply-add.
            x.mul_add(to - from, from)
        }
        _ => {
            let x = (next_u32(g) & 0x00ff_ffff) as f32 * (1.0 / (1u32 << 24) as f32);
            let (from, to) = (from as f32, to as f32);
            x.mul_add(to - from, from) as f64
        }
    }
}

/// `v` rounded to a floating dtype's precision.
fn round_to_dtype(dtype: DType, v: f64) -> f64 {
    match dtype {
        DType::F32 => v as f32 as f64,
        DType::F16 => half::f16::from_f64(v).to_f64(),
        DType::BF16 => half::bf16::from_f64(v).to_f64(),
        _ => v,
    }
}

/// `normal_distribution<double>`: Box-Muller on two 53-bit uniforms, keeping the sine half
/// for the next call.
fn normal_value(g: &mut Generator, mean: f64, std: f64) -> f64 {
    if let Some(z) = g.next_double_normal.take() {
        return z.mul_add(std, mean);
    }
    let u1 = uniform_value(g, DType::F64, 0.0, 1.0);
    let u2 = uniform_value(g, DType::F64, 0.0, 1.0);
    let r = (-2.0 * (-u2).ln_1p()).sqrt();
    let theta = 2.0 * std::f64::consts::PI * u1;
    g.next_double_normal = Some(r * theta.sin());
    (r * theta.cos()).mul_add(std, mean)
}

/// Box-Muller over 16 uniforms in place (`normal_fill_16`): element j pairs with j + 8.
fn normal_fill_16_f64(d: &mut [f64], mean: f64, std: f64) {
    for j in 0..8 {
        let u1 = 1.0 - d[j];
        let u2 = d[j + 8];
        let radius = (-2.0 * u1.ln()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u2;
        d[j] = (radius * theta.cos()).mul_add(std, mean);
        d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
    }
}

/// `normal_fill_16` at float as PyTorch's vectorized x86 kernel computes it: the angle
/// rounded to float, and Cephes-style log/sin/cos (`avx_mathfun`) in float with every
/// multiply that feeds an add fused, as PyTorch's compiler contracts them (bit for bit on
/// 2^20 seeded normals).
fn normal_fill_16_f32(d: &mut [f32], mean: f32, std: f32) {
    for j in 0..8 {
        let u1 = 1.0f32 - d[j];
        let u2 = d[j + 8];
        let radius = (-2.0f32 * cephes_logf(u1)).sqrt();
        let theta = (2.0f64 * std::f64::consts::PI) as f32 * u2;
        let (sin, cos) = cephes_sincosf(theta);
        d[j] = (radius * cos).mul_add(std, mean);
        d[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

/// Cephes' single-precision log for positive normal inputs (u1 is in (0, 1]).
#[allow(clippy::excessive_precision)]
fn cephes_logf(x: f32) -> f32 {
    const P: [f32; 9] = crate::ops::pointwise::CEPHES_LOGF_POLY;
    let bits = x.to_bits();
    let mut e = ((bits >> 23) as i32 - 0x7f) as f32 + 1.0;
    let mut m = f32::from_bits((bits & !0x7f80_0000) | 0x3f00_0000);
    let below = m < std::f32::consts::FRAC_1_SQRT_2;
    let tmp = if below { m } else { 0.0 };
    m -= 1.0;
    if below {
        e -= 1.0;
    }
    m += tmp;
    let z = m * m;
    let mut y = P[0];
    for &c in &P[1..] {
        y = y.mul_add(m, c);
    }
    y = (y * m).mul_add(z, e * -2.12194440e-4);
    y = (-z).mul_add(0.5, y);
    e.mul_add(0.693359375, m + y)
}

#[allow(clippy::excessive_precision)]
/// Cephes' single-precision sine and cosine with the octant reduction of `sincos256_ps`.
fn cephes_sincosf(x: f32) -> (f32, f32) {
    let mut sign_sin = x.is_sign_negative();
    let x = x.abs();
    let j = (((x * 1.27323954473516) as i32) + 1) & !1;
    let y = j as f32;
    let swap = j & 4 != 0;
    let poly = j & 2 == 0;
    let x = y.mul_add(-0.78515625, x);
    let x = y.mul_add(-2.4187564849853515625e-4, x);
    let x = y.mul_add(-3.77489497744594108e-8, x);
    let sign_cos = (!(j - 2)) & 4 != 0;
    sign_sin ^= swap;
    let z = x * x;
    let mut c = 2.443315711809948E-5f32;
    c = c.mul_add(z, -1.388731625493765E-3);
    c = c.mul_add(z, 4.166664568298827E-2);
    c = (c * z).mul_add(z, -(z * 0.5));
    c += 1.0;
    let mut s = -1.9515295891E-4f32;
    s = s.mul_add(z, 8.3321608736E-3);
    s = s.mul_add(z, -1.6666654611E-1);
    s = (s * z).mul_add(x, x);
    let (mut sin, mut cos) = if poly { (s, c) } else { (c, s) };
    if sign_sin {
        sin = -sin;
    }
    if sign_cos {
        cos = -cos;
    }
    (sin, cos)
}

/// `normal_fill`: uniforms for the first `drawn` elements, Box-Muller over each block of 16,
/// and a tail that redraws 16 fresh uniforms for the last 16 elements.
fn normal_fill<T: Copy + Default>(
    n: usize,
    drawn: usize,
    mut uniform: impl FnMut() -> T,
    fill16: impl Fn(&mut [T]),
) -> Vec<T> {
    let mut d: Vec<T> = (0..drawn).map(|_| uniform()).collect();
    d.resize(n, T::default());
    let mut i = 0;
    while i + 16 <= n {
        fill16(&mut d[i..i + 16]);
        i += 16;
    }
    if !n.is_multiple_of(16) {
        for v in &mut d[n - 16..] {
            *v = uniform();
        }
        fill16(&mut d[n - 16..]);
    }
    d
}

/// Runs `f` with the call's `generator=` or the default generator.
fn with_generator<R>(c: &Call, f: impl FnOnce(&mut Generator) -> R) -> R {
    if let IValue::Generator(g) = c.get("generator") {
        let mut g = g.lock().unwrap_or_else(|e| e.into_inner());
        return f(&mut g);
    }
    let mut g = DEFAULT.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// Fills a fresh tensor of `sizes`/`dtype` with `draw()` values.
fn generate(sizes: &[i64], dtype: DType, mut draw: impl FnMut() -> f64) -> TensorResult<Tensor> {
    let t = Tensor::zeros(sizes, dtype)?;
    let n = t.numel();
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for i in 0..n {
            // SAFETY: `t` is contiguous with n elements.
            unsafe { *p.add(i) = T::from_f64(draw()) };
        }
    });
    Ok(t)
}

fn require_float(dtype: DType, kernel: &str) -> TensorResult<()> {
    if !dtype.is_floating() {
        bail!(
            "\"{kernel}\" not implemented for '{}'",
            dtype.scalar_type_name()
        );
    }
    Ok(())
}

fn uniform_tensor(
    c: &Call,
    sizes: &[i64],
    dtype: DType,
    from: f64,
    to: f64,
) -> TensorResult<Tensor> {
    require_float(dtype, "check_uniform_bounds")?;
    let to_in_dtype = round_to_dtype(dtype, to);
    with_generator(c, |g| {
        generate(sizes, dtype, || {
            // A draw that rounds up to `to` in a narrow dtype becomes `from`, as in PyTorch,
            // keeping the range half-open.
            let v = round_to_dtype(dtype, uniform_value(g, dtype, from, to));
            if v == to_in_dtype {
                from
            } else {
                v
            }
        })
    })
}

/// Normals for a fresh contiguous tensor as `normal_` fills one: PyTorch's batched path from
/// 16 elements up, one cached-pair normal per element below.
fn normal_tensor(
    c: &Call,
    sizes: &[i64],
    dtype: DType,
    mean: f64,
    std: f64,
) -> TensorResult<Tensor> {
    normals(c, sizes, dtype, mean, std, true)
}

/// [`normal_tensor`], or with `batched` false one cached-pair normal per element at any size
/// (PyTorch's path for a strided tensor).
fn normals(
    c: &Call,
    sizes: &[i64],
    dtype: DType,
    mean: f64,
    std: f64,
    batched: bool,
) -> TensorResult<Tensor> {
    require_float(dtype, "normal_kernel_cpu")?;
    let n = crate::tensor::checked_numel(sizes)?;
    with_generator(c, |g| {
        if n < 16 || !batched {
            return generate(sizes, dtype, || normal_value(g, mean, std));
        }
        let vals: Vec<f64> = if dtype == DType::F64 {
            normal_fill(
                n,
                n,
                || uniform_value(g, DType::F64, 0.0, 1.0),
                |d| normal_fill_16_f64(d, mean, std),
            )
        } else {
            // float16/bfloat16 run the float kernel and round, drawing uniforms for the
            // whole blocks only (the tail draws its own 16).
            let drawn = if dtype == DType::F32 { n } else { n / 16 * 16 };
            let (m, s) = (mean as f32, std as f32);
            normal_fill(
                n,
                drawn,
                || uniform_value(g, DType::F32, 0.0, 1.0) as f32,
                |d| normal_fill_16_f32(d, m, s),
            )
            .into_iter()
            .map(|v| v as f64)
            .collect()
        };
        let mut it = vals.into_iter();
        generate(sizes, dtype, || it.next().unwrap_or(0.0))
    })
}

/// The row-major indices of `t`'s elements in the order PyTorch's serial kernels fill them:
/// by increasing address (TensorIterator orders dims by stride); None when that is row-major.
fn fill_order(t: &Tensor) -> Option<Vec<usize>> {
    if t.is_contiguous() {
        return None;
    }
    let offsets = t.element_offsets();
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    Some(order)
}

/// Writes `drawn` (one value per element, in draw order) into `t` through `order`.
fn write_drawn(t: &Tensor, drawn: &Tensor, order: Option<&[usize]>) -> TensorResult<()> {
    let Some(order) = order else {
        return t.copy_from(drawn);
    };
    let drawn = drawn.to_vec::<f64>();
    let mut placed = vec![0.0; drawn.len()];
    for (&i, v) in order.iter().zip(drawn) {
        placed[i] = v;
    }
    t.copy_from(&Tensor::from_vec(placed, &t.sizes())?)
}

fn rand(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let dtype = dtype_or(c, DEFAULT_FLOAT)?;
    Ok(tensor_value(uniform_tensor(
        c,
        &c.ints("size")?,
        dtype,
        0.0,
        1.0,
    )?))
}

fn randn(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let dtype = dtype_or(c, DEFAULT_FLOAT)?;
    Ok(tensor_value(normal_tensor(
        c,
        &c.ints("size")?,
        dtype,
        0.0,
        1.0,
    )?))
}

fn rand_like(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let t = c.tensor("self")?;
    let dtype = dtype_or(c, t.dtype())?;
    Ok(tensor_value(uniform_tensor(
        c,
        &t.sizes(),
        dtype,
        0.0,
        1.0,
    )?))
}

fn randn_like(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let t = c.tensor("self")?;
    let dtype = dtype_or(c, t.dtype())?;
    Ok(tensor_value(normal_tensor(c, &t.sizes(), dtype, 0.0, 1.0)?))
}

/// Integers uniform in [low, high).
fn randint_tensor(
    c: &Call,
    sizes: &[i64],
    dtype: DType,
    low: i64,
    high: i64,
) -> TensorResult<Tensor> {
    if low >= high {
        bail!("random_ expects 'from' to be less than 'to', but got from={low} >= to={high}");
    }
    // PyTorch checks integer dtypes' bounds: `from` and `to - 1` must fit.
    let bounds = match dtype {
        DType::U8 => Some((0, u8::MAX as i64)),
        DType::I8 => Some((i8::MIN as i64, i8::MAX as i64)),
        DType::I16 => Some((i16::MIN as i64, i16::MAX as i64)),
        DType::I32 => Some((i32::MIN as i64, i32::MAX as i64)),
        _ => None,
    };
    if let Some((min, max)) = bounds {
        let name = dtype.cpp_type_name();
        if !(min..=max).contains(&low) {
            bail!("from is out of bounds for {name}");
        }
        if !(min..=max).contains(&(high - 1)) {
            bail!("to - 1 is out of bounds for {name}");
        }
    }
    let range = high.wrapping_sub(low) as u64;
    // `uniform_int_from_to_distribution`: 64-bit draws only for wide ranges of these types.
    let wide =
        range >= 1 << 32 && matches!(dtype, DType::I64 | DType::F64 | DType::F32 | DType::BF16);
    let t = Tensor::zeros(sizes, dtype)?;
    let n = t.numel();
    with_generator(c, |g| {
        crate::dispatch_dtype!(dtype, T => {
            let p = t.data_ptr() as *mut T;
            for i in 0..n {
                let draw = if wide { next_u64(g) } else { next_u32(g) as u64 };
                let v = (draw % range).wrapping_add(low as u64) as i64;
                // SAFETY: `t` is contiguous with n elements.
                unsafe { *p.add(i) = T::from_i64(v) };
            }
        })
    });
    Ok(t)
}

fn randint(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let dtype = dtype_or(c, DType::I64)?;
    let low = if c.has("low") { c.int("low")? } else { 0 };
    Ok(tensor_value(randint_tensor(
        c,
        &c.ints("size")?,
        dtype,
        low,
        c.int("high")?,
    )?))
}

fn randint_like(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let t = c.tensor("self")?;
    let dtype = dtype_or(c, t.dtype())?;
    let low = if c.has("low") { c.int("low")? } else { 0 };
    let high = match c.get("high") {
        IValue::Tensor(h) => h.item_i64()?,
        _ => c.int("high")?,
    };
    Ok(tensor_value(randint_tensor(
        c,
        &t.sizes(),
        dtype,
        low,
        high,
    )?))
}

fn randperm(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let n = c.int("n")?;
    crate::tensor::checked_numel(&[n])?;
    crate::ops::shape::elements::check_len(n as usize)?;
    let dtype = dtype_or(c, DType::I64)?;
    let mut perm: Vec<i64> = (0..n).collect();
    // PyTorch's CPU shuffle: position i swaps with i + (32-bit draw mod the rest).
    with_generator(c, |g| {
        for i in 0..perm.len().saturating_sub(1) {
            let z = (next_u32(g) as u64 % (perm.len() - i) as u64) as usize;
            perm.swap(i, i + z);
        }
    });
    let t = Tensor::from_vec(perm, &[n])?;
    Ok(tensor_value(super::super::shape::elements::cast(
        &t, dtype,
    )?))
}

fn check_std(std: f64) -> TensorResult<()> {
    if std < 0.0 {
        bail!(
            "normal expects std >= 0.0, but found std {}",
            crate::ivalue::format_float(std)
        );
    }
    Ok(())
}

/// Every overload of `normal`: float or tensor mean and std.
fn normal(c: &Call) -> TensorResult<IValue> {
    let mean = c.get("mean").clone();
    let std = c.get("std").clone();
    match (&mean, &std) {
        (IValue::Tensor(m), IValue::Tensor(s)) => {
            if s.to_vec::<f64>().iter().any(|&v| v < 0.0) {
                bail!("normal expects all elements of std >= 0.0");
            }
            let shape = crate::tensor::broadcast_shapes(&m.sizes(), &s.sizes())?;
            let dtype = crate::tensor::promote_types(m.dtype(), s.dtype());
            let noise = normal_tensor(c, &shape, dtype, 0.0, 1.0)?;
            let (mv, sv) = (
                m.expand(&shape)?.to_vec::<f64>(),
                s.expand(&shape)?.to_vec::<f64>(),
            );
            let vals: Vec<f64> = noise
                .to_vec::<f64>()
                .iter()
                .enumerate()
                // PyTorch: noise.mul_(std).add_(mean), each rounded to the dtype.
                .map(|(i, z)| round_to_dtype(dtype, round_to_dtype(dtype, z * sv[i]) + mv[i]))
                .collect();
            let mut k = 0;
            Ok(tensor_value(generate(&shape, dtype, || {
                k += 1;
                vals[k - 1]
            })?))
        }
        (IValue::Tensor(m), _) => {
            let s = c.float("std")?;
            check_std(s)?;
            let means = m.to_vec::<f64>();
            let noise = normal_tensor(c, &m.sizes(), m.dtype(), 0.0, s)?.to_vec::<f64>();
            let mut k = 0;
            Ok(tensor_value(generate(&m.sizes(), m.dtype(), || {
                k += 1;
                round_to_dtype(m.dtype(), means[k - 1] + noise[k - 1])
            })?))
        }
        (_, IValue::Tensor(s)) => {
            let mu = c.float("mean")?;
            if s.to_vec::<f64>().iter().any(|&v| v < 0.0) {
                bail!("normal expects all elements of std >= 0.0");
            }
            let stds = s.to_vec::<f64>();
            let noise = normal_tensor(c, &s.sizes(), s.dtype(), 0.0, 1.0)?.to_vec::<f64>();
            let mut k = 0;
            Ok(tensor_value(generate(&s.sizes(), s.dtype(), || {
                k += 1;
                let scaled = round_to_dtype(s.dtype(), stds[k - 1] * noise[k - 1]);
                round_to_dtype(s.dtype(), mu + scaled)
            })?))
        }
        _ => {
            check_options(c)?;
            let (mu, s) = (c.float("mean")?, c.float("std")?);
            check_std(s)?;
            let dtype = dtype_or(c, DEFAULT_FLOAT)?;
            Ok(tensor_value(normal_tensor(
                c,
                &c.ints("size")?,
                dtype,
                mu,
                s,
            )?))
        }
    }
}

fn normal_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let (mu, s) = (c.float("mean")?, c.float("std")?);
    check_std(s)?;
    assert_no_internal_overlap(&t)?;
    let order = fill_order(&t);
    let r = normals(c, &t.sizes(), t.dtype(), mu, s, order.is_none())?;
    write_drawn(&t, &r, order.as_deref())?;
    Ok(tensor_value(t))
}

fn uniform_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let (from, to) = (c.float("from")?, c.float("to")?);
    if from > to {
        bail!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            crate::ivalue::format_float(from),
            crate::ivalue::format_float(to)
        );
    }
    assert_no_internal_overlap(&t)?;
    let r = uniform_tensor(c, &t.sizes(), t.dtype(), from, to)?;
    write_drawn(&t, &r, fill_order(&t).as_deref())?;
    Ok(tensor_value(t))
}

/// 0/1 draws with probabilities `p` (one per element of `shape`): `bernoulli_distribution`
/// compares a uniform at the probabilities' precision (double draws for float64 or scalar p,
/// float draws for other probability tensors) with p.
fn bernoulli_draws(
    c: &Call,
    shape: &[i64],
    dtype: DType,
    p: &[f64],
    p_dtype: DType,
) -> TensorResult<Tensor> {
    for &q in p {
        if !(0.0..=1.0).contains(&q) {
            bail!(
                "bernoulli_ expects p to be in [0, 1], but got p={}",
                crate::ivalue::format_float(q)
            );
        }
    }
    let draw_dtype = if p_dtype == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let mut k = 0;
    with_generator(c, |g| {
        generate(shape, dtype, || {
            let q = p[if p.len() == 1 { 0 } else { k }];
            k += 1;
            (uniform_value(g, draw_dtype, 0.0, 1.0) < q) as i64 as f64
        })
    })
}

fn bernoulli_probs(c: &Call, shape: &[i64]) -> TensorResult<(Vec<f64>, DType)> {
    Ok(match c.get("p") {
        IValue::Tensor(p) => (p.expand(shape)?.to_vec::<f64>(), p.dtype()),
        IValue::None => {
            let t = c.tensor("self")?;
            (t.to_vec::<f64>(), t.dtype())
        }
        _ => (vec![c.float("p")?], DType::F64),
    })
}

fn bernoulli(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let shape = t.sizes();
    let (p, p_dtype) = bernoulli_probs(c, &shape)?;
    Ok(tensor_value(bernoulli_draws(
        c,
        &shape,
        t.dtype(),
        &p,
        p_dtype,
    )?))
}

fn bernoulli_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let shape = t.sizes();
    assert_no_internal_overlap(&t)?;
    let (mut p, p_dtype) = bernoulli_probs(c, &shape)?;
    let order = fill_order(&t);
    if let (Some(order), true) = (&order, p.len() > 1) {
        p = order.iter().map(|&i| p[i]).collect();
    }
    let r = bernoulli_draws(c, &shape, t.dtype(), &p, p_dtype)?;
    write_drawn(&t, &r, order.as_deref())?;
    Ok(tensor_value(t))
}

fn manual_seed(c: &Call) -> TensorResult<IValue> {
    let seed = c.int("seed")? as u64;
    if let IValue::Generator(g) = c.get("self") {
        reseed(&mut g.lock().unwrap_or_else(|e| e.into_inner()), seed);
        return Ok(IValue::Generator(g.clone()));
    }
    seed_default(seed);
    Ok(IValue::None)
}
