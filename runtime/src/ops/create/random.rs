//! Random tensors from a seeded generator: rand, randn, randint, randperm, normal, the
//! `_like` forms, uniform_, normal_, bernoulli. Streams are deterministic for a seed
//! (`torch.manual_seed` or an explicit `Generator`) but are not PyTorch's streams; shapes,
//! dtypes and ranges are PyTorch's.

use std::sync::Mutex;

use crate::bail;
use crate::ivalue::{Generator, IValue};
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, tensor_value, Call, Kernel};
use crate::tensor::{elementwise::DEFAULT_FLOAT, DType, Element, Tensor, TensorResult};

use super::factory::{check_options, dtype_or};

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

static DEFAULT: Mutex<Generator> = Mutex::new(Generator {
    seed: DEFAULT_SEED,
    state: DEFAULT_SEED,
});

/// Reseeds the process-wide default generator (`torch.manual_seed`).
pub fn seed_default(seed: u64) {
    let mut g = DEFAULT.lock().unwrap_or_else(|e| e.into_inner());
    g.seed = seed;
    g.state = seed;
}

/// The next 64 random bits (SplitMix64: small state, good statistical quality).
fn next_u64(g: &mut Generator) -> u64 {
    g.state = g.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = g.state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) with as many random bits as `dtype`'s mantissa, so it never
/// rounds up to 1 in that dtype.
fn unit(g: &mut Generator, dtype: DType) -> f64 {
    let bits = match dtype {
        DType::F64 => 53,
        DType::F32 => 24,
        DType::F16 => 11,
        DType::BF16 => 8,
        _ => 53,
    };
    (next_u64(g) >> (64 - bits)) as f64 / (1u64 << bits) as f64
}

/// A standard normal number (Box-Muller).
fn gaussian(g: &mut Generator) -> f64 {
    let u1 = 1.0 - unit(g, DType::F64); // (0, 1]
    let u2 = unit(g, DType::F64);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
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
    with_generator(c, |g| {
        generate(sizes, dtype, || from + (to - from) * unit(g, dtype))
    })
}

fn normal_tensor(
    c: &Call,
    sizes: &[i64],
    dtype: DType,
    mean: f64,
    std: f64,
) -> TensorResult<Tensor> {
    require_float(dtype, "normal_kernel_cpu")?;
    with_generator(c, |g| generate(sizes, dtype, || mean + std * gaussian(g)))
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
    let range = (high as i128 - low as i128) as u128;
    let t = Tensor::zeros(sizes, dtype)?;
    let n = t.numel();
    with_generator(c, |g| {
        crate::dispatch_dtype!(dtype, T => {
            let p = t.data_ptr() as *mut T;
            for i in 0..n {
                let v = low as i128 + (next_u64(g) as u128 % range) as i128;
                // SAFETY: `t` is contiguous with n elements.
                unsafe { *p.add(i) = T::from_i64(v as i64) };
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
    with_generator(c, |g| {
        for i in (1..perm.len()).rev() {
            let j = (next_u64(g) % (i as u64 + 1)) as usize;
            perm.swap(i, j);
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
                .map(|(i, z)| mv[i] + sv[i] * z)
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
                means[k - 1] + noise[k - 1]
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
                mu + stds[k - 1] * noise[k - 1]
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
    let r = normal_tensor(c, &t.sizes(), t.dtype(), mu, s)?;
    t.copy_from(&r)?;
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
    let r = uniform_tensor(c, &t.sizes(), t.dtype(), from, to)?;
    t.copy_from(&r)?;
    Ok(tensor_value(t))
}

/// 0/1 draws with probabilities `p` (one per element of `shape`).
fn bernoulli_draws(c: &Call, shape: &[i64], dtype: DType, p: &[f64]) -> TensorResult<Tensor> {
    for &q in p {
        if !(0.0..=1.0).contains(&q) {
            bail!(
                "bernoulli_ expects p to be in [0, 1], but got p={}",
                crate::ivalue::format_float(q)
            );
        }
    }
    let mut k = 0;
    with_generator(c, |g| {
        generate(shape, dtype, || {
            let q = p[if p.len() == 1 { 0 } else { k }];
            k += 1;
            (unit(g, DType::F64) < q) as i64 as f64
        })
    })
}

fn bernoulli_probs(c: &Call, shape: &[i64]) -> TensorResult<Vec<f64>> {
    Ok(match c.get("p") {
        IValue::Tensor(p) => p.expand(shape)?.to_vec::<f64>(),
        IValue::None => c.tensor("self")?.to_vec::<f64>(),
        _ => vec![c.float("p")?],
    })
}

fn bernoulli(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let shape = t.sizes();
    let p = bernoulli_probs(c, &shape)?;
    Ok(tensor_value(bernoulli_draws(c, &shape, t.dtype(), &p)?))
}

fn bernoulli_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let shape = t.sizes();
    let p = bernoulli_probs(c, &shape)?;
    let r = bernoulli_draws(c, &shape, t.dtype(), &p)?;
    t.copy_from(&r)?;
    Ok(tensor_value(t))
}

fn manual_seed(c: &Call) -> TensorResult<IValue> {
    let seed = c.int("seed")? as u64;
    if let IValue::Generator(g) = c.get("self") {
        let mut gen = g.lock().unwrap_or_else(|e| e.into_inner());
        gen.seed = seed;
        gen.state = seed;
        drop(gen);
        return Ok(IValue::Generator(g.clone()));
    }
    seed_default(seed);
    Ok(IValue::None)
}
