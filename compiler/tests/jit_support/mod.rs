//! Shared by the JIT tests: a seeded random source, random tensors of every dtype, graph type
//! text, and the check that runs a group through the interpreter (the oracle) and through
//! kernels compiled for every CPU form this machine has (baseline, AVX2, AVX-512).

#![allow(dead_code)]

use ember_compiler::codegen::jit::{compile_group_for, JitTarget};
use ember_dialects::parse::parse_graph;
use ember_dialects::Graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::cpu::available_levels;
use ember_runtime::tensor::{DType, Tensor};

/// xorshift64*: small, seeded, the same sequence everywhere. Made `from_bytes`, it draws from
/// the bytes first (a fuzzer's input, so that its mutations change single choices) and goes on
/// with xorshift when they run out.
pub struct Rng {
    state: u64,
    bytes: Vec<u8>,
    pos: usize,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            bytes: Vec::new(),
            pos: 0,
        }
    }
    pub fn from_bytes(bytes: &[u8]) -> Rng {
        let seed = bytes.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01B3)
        });
        Rng {
            bytes: bytes.to_vec(),
            ..Rng::new(seed)
        }
    }
    pub fn next(&mut self) -> u64 {
        if let Some(b) = self.bytes.get(self.pos..self.pos + 8) {
            self.pos += 8;
            return u64::from_le_bytes(b.try_into().unwrap());
        }
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            if let Some(&b) = self.bytes.get(self.pos) {
                self.pos += 1;
                return b as usize % n;
            }
        }
        (self.next() % n as u64) as usize
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    /// A generator seeded from this one that takes over the bytes left: seeded, the same as
    /// `Rng::new(self.next())`.
    pub fn fork(&mut self) -> Rng {
        let mut r = Rng::new(self.next());
        r.bytes = std::mem::take(&mut self.bytes);
        r.pos = std::mem::take(&mut self.pos);
        r
    }
}

/// A contiguous tensor of `dtype` with values suited to it: floats in [lo, hi], small ints.
pub fn tensor(rng: &mut Rng, dtype: DType, shape: &[i64], lo: f64, hi: f64) -> Tensor {
    let n: i64 = shape.iter().product();
    let values: Vec<f64> = (0..n)
        .map(|_| match dtype {
            DType::Bool => (rng.below(2)) as f64,
            DType::U8 => rng.below(20) as f64,
            d if d.is_floating() => rng.uniform(lo, hi),
            _ => rng.below(21) as f64 - 10.0,
        })
        .collect();
    let src = Tensor::from_vec(values, shape).unwrap();
    let t = Tensor::zeros(shape, dtype).unwrap();
    t.copy_from(&src).unwrap();
    t
}

/// `Float(4, *, 3, device=cpu)`: a tensor type with `None` sizes unknown.
pub fn type_text(d: DType, sizes: &[Option<i64>]) -> String {
    let dims: Vec<String> = sizes
        .iter()
        .map(|s| s.map_or("*".to_string(), |n| n.to_string()))
        .collect();
    if dims.is_empty() {
        format!("{}(requires_grad=0, device=cpu)", d.scalar_type_name())
    } else {
        format!(
            "{}({}, requires_grad=0, device=cpu)",
            d.scalar_type_name(),
            dims.join(", ")
        )
    }
}

pub fn known(shape: &[i64]) -> Vec<Option<i64>> {
    shape.iter().map(|&s| Some(s)).collect()
}

pub fn parse(src: &str) -> Graph {
    parse_graph(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

pub fn interpret(g: &Graph, inputs: &[IValue]) -> Result<Vec<IValue>, String> {
    let code = Code::new(g).map_err(|e| e.message)?;
    run(&code, inputs.to_vec()).map_err(|e| e.message)
}

/// rtol and atol for comparing results of `dtype` (DESIGN.md; float32 ops built from several
/// primitive ops get rtol 1e-5 on top of atol 1e-6).
pub fn tolerance(d: DType) -> (f64, f64) {
    match d {
        DType::F32 => (1e-5, 1e-6),
        DType::F64 => (1e-9, 1e-12),
        DType::F16 | DType::BF16 => (1e-2, 1e-2),
        _ => (0.0, 0.0),
    }
}

pub fn assert_tensors_close(got: &Tensor, want: &Tensor, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.sizes().to_vec(), want.sizes().to_vec(), "{what}: shape");
    let (rtol, atol) = tolerance(want.dtype());
    let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * b.abs();
        assert!(ok, "{what}: element {i}: jit {a:e} vs interpreter {b:e}");
    }
}

/// Compiles `g` for every CPU form, runs it on `inputs` and compares with the interpreter.
pub fn check_graph(g: &Graph, inputs: &[IValue], what: &str) {
    let want = interpret(g, inputs).unwrap_or_else(|e| panic!("{what}: interpreter: {e}"));
    for isa in available_levels() {
        let group = compile_group_for(g, &JitTarget::for_isa(isa))
            .unwrap_or_else(|e| panic!("{what}: compile for {isa:?}: {e} {:?}", e.site));
        let got = group
            .run(inputs)
            .unwrap_or_else(|e| panic!("{what}: run for {isa:?}: {e}"));
        assert_eq!(got.len(), want.len(), "{what}: number of outputs");
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            let (a, b) = (
                a.as_tensor().expect("tensor"),
                b.as_tensor().expect("tensor"),
            );
            assert_tensors_close(a, b, &format!("{what} ({isa:?}) output {i}"));
        }
    }
}

pub fn check(src: &str, inputs: &[IValue]) {
    check_graph(&parse(src), inputs, src);
}
