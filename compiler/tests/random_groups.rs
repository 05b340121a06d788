//! Random elementwise groups: chains of fusible ops and reductions over the innermost dimensions
//! (the last, or several: one count per group, as a kernel's rows are of one kind) over
//! inputs of random ranks, broadcast shapes, unknown sizes, dtypes and scalar operands; and the
//! check that compiles one for a CPU form and compares it with the interpreter. Drawn from a
//! seeded `Rng` by the fixed-seed test (jit_random.rs) and from a fuzzer's bytes by the
//! `jit_group` fuzz target (fuzz/codegen).

use crate::jit_support::*;

use ember_compiler::codegen::jit::{compile_group_for, JitTarget};
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::cpu::Isa;
use ember_runtime::tensor::{broadcast_shapes, DType};

struct Gen {
    rng: Rng,
    lines: Vec<String>,
    /// (name, dtype, static shape) of every tensor value.
    values: Vec<(String, DType, Vec<i64>)>,
    /// A chunk was made (one per graph: the JIT refuses a chunk of a chunk's value).
    chunked: bool,
    /// A reduction was made (the JIT refuses a chunk of a reduced value along the row).
    reduced: bool,
    /// The shape of the first input: the group's iteration space.
    full: Vec<i64>,
    /// How many innermost dimensions every reduction of the group reduces.
    row_dims: usize,
    next: usize,
}

impl Gen {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    fn constant(&mut self, float: bool) -> String {
        let name = self.fresh();
        if float {
            let v = (self.rng.uniform(-3.0, 3.0) * 4.0).round() / 4.0;
            self.lines
                .push(format!("  {name} : float = prim::Constant[value={v:?}]()"));
        } else {
            let v = self.rng.below(7) as i64 - 3;
            self.lines
                .push(format!("  {name} : int = prim::Constant[value={v}]()"));
        }
        name
    }

    fn pick_value(&mut self) -> usize {
        // Prefer recent values, so chains grow deep.
        let n = self.values.len();
        if self.rng.below(3) > 0 {
            n - 1 - self.rng.below(n.min(3))
        } else {
            self.rng.below(n)
        }
    }

    fn push(&mut self, name: String, dtype: DType, shape: Vec<i64>) {
        self.values.push((name, dtype, shape));
    }

    /// Adds one op; returns false when the picked op does not apply to the operands.
    fn op(&mut self, scalar: Option<(&str, bool)>) -> bool {
        let a = self.pick_value();
        let (an, ad, ashape) = self.values[a].clone();
        let floating = ad.is_floating();
        let r = self.fresh();
        let kind = self.rng.below(12);
        match kind {
            0..=2 => {
                // Unary.
                let ops: &[&str] = if floating {
                    &[
                        "exp",
                        "tanh",
                        "sigmoid",
                        "relu",
                        "neg",
                        "abs",
                        "silu",
                        "hardswish",
                        "hardsigmoid",
                        "erf",
                        "log1p",
                        "expm1",
                        "reciprocal",
                    ]
                } else if ad == DType::Bool {
                    &["logical_not"]
                } else {
                    &["neg", "abs", "relu", "sigmoid", "tanh"]
                };
                let op = *self.rng.pick(ops);
                let out = if floating || matches!(op, "neg" | "abs" | "relu" | "logical_not") {
                    ad
                } else {
                    DType::F32
                };
                if ad == DType::U8 && matches!(op, "neg" | "abs") {
                    return false;
                }
                self.lines.push(format!("  {r} = aten::{op}({an})"));
                self.push(r, out, ashape);
            }
            3..=6 => {
                // Binary with a tensor, a constant or the scalar input.
                let (bn, bd, bshape, bscalar) = match self.rng.below(4) {
                    0 => {
                        let float = self.rng.below(2) == 0;
                        let c = self.constant(float);
                        (c, if float { DType::F64 } else { DType::I64 }, vec![], true)
                    }
                    1 if scalar.is_some() => {
                        let (s, float) = scalar.unwrap();
                        (
                            s.to_string(),
                            if float { DType::F64 } else { DType::I64 },
                            vec![],
                            true,
                        )
                    }
                    _ => {
                        let b = self.pick_value();
                        let (bn, bd, bs) = self.values[b].clone();
                        (bn, bd, bs, false)
                    }
                };
                if ad == DType::Bool || bd == DType::Bool {
                    return false;
                }
                let Ok(shape) = broadcast_shapes(&ashape, &bshape) else {
                    return false;
                };
                let op = *self
                    .rng
                    .pick(&["add", "sub", "mul", "div", "maximum", "mul", "add"]);
                if op == "maximum" && bscalar {
                    return false;
                }
                let result = if bscalar {
                    if floating || bd == DType::I64 {
                        ad
                    } else {
                        DType::F32
                    }
                } else {
                    ember_runtime::tensor::result_type(
                        &[promo(ad, &ashape), promo(bd, &bshape)],
                        DType::F32,
                    )
                };
                let result = if op == "div" && !result.is_floating() {
                    DType::F32
                } else {
                    result
                };
                if op == "add" || op == "sub" {
                    let alpha = if self.rng.below(3) == 0 && result.is_floating() {
                        self.constant(true)
                    } else {
                        let n = self.fresh();
                        self.lines
                            .push(format!("  {n} : int = prim::Constant[value=1]()"));
                        n
                    };
                    self.lines
                        .push(format!("  {r} = aten::{op}({an}, {bn}, {alpha})"));
                } else {
                    self.lines.push(format!("  {r} = aten::{op}({an}, {bn})"));
                }
                self.push(r, result, shape.to_vec());
            }
            7 => {
                // A comparison feeding where.
                let b = self.pick_value();
                let (bn, bd, bshape) = self.values[b].clone();
                if ad == DType::Bool || bd == DType::Bool {
                    return false;
                }
                let Ok(shape) = broadcast_shapes(&ashape, &bshape) else {
                    return false;
                };
                let c = self.fresh();
                let cmp = *self.rng.pick(&["lt", "gt", "ge", "le", "eq", "ne"]);
                self.lines.push(format!("  {c} = aten::{cmp}({an}, {bn})"));
                let result = ember_runtime::tensor::result_type(
                    &[promo(ad, &ashape), promo(bd, &bshape)],
                    DType::F32,
                );
                self.lines
                    .push(format!("  {r} = aten::where({c}, {an}, {bn})"));
                self.push(r, result, shape.to_vec());
            }
            10 => {
                // Pieces of a last dimension of 2 have 1 column: they broadcast back.
                if self.chunked || self.reduced || self.row_dims > 1 || ashape.last() != Some(&2) {
                    return false;
                }
                self.chunked = true;
                let (p, q) = (self.fresh(), self.fresh());
                self.lines.push(format!(
                    "  {p}, {q} = prim::ConstantChunk[chunks=2, dim=-1]({an})"
                ));
                let mut piece = ashape.clone();
                *piece.last_mut().expect("rank 1 or more") = 1;
                self.push(p, ad, piece.clone());
                self.push(q, ad, piece);
            }
            11 => {
                // A reduction over the innermost dimensions of a value of the full shape
                // (rows of more than one element: a value reduced before has rows of one).
                let k = self.row_dims;
                let rank = self.full.len();
                if ashape != self.full
                    || rank < k
                    || self.full[rank - k..].iter().product::<i64>() < 2
                    || ad == DType::Bool
                {
                    return false;
                }
                let op = if floating && k == 1 {
                    *self
                        .rng
                        .pick(&["softmax", "log_softmax", "sum", "mean", "amax", "amin"])
                } else if floating {
                    *self.rng.pick(&["sum", "mean", "amax", "amin"])
                } else {
                    *self.rng.pick(&["sum", "amax", "amin"])
                };
                let (last, none, keep) = (self.fresh(), self.fresh(), self.fresh());
                self.lines
                    .push(format!("  {last} : int = prim::Constant[value=-1]()"));
                self.lines
                    .push(format!("  {none} : NoneType = prim::Constant()"));
                self.lines
                    .push(format!("  {keep} : bool = prim::Constant[value=1]()"));
                // The reduced dimensions in a random order, counted from either end.
                let mut reduced: Vec<i64> = (rank - k..rank).map(|d| d as i64).collect();
                for i in (1..reduced.len()).rev() {
                    reduced.swap(i, self.rng.below(i + 1));
                }
                let mut dim_names = Vec::new();
                for d in reduced {
                    let d = if self.rng.below(2) == 0 {
                        d
                    } else {
                        d - rank as i64
                    };
                    let name = self.fresh();
                    self.lines
                        .push(format!("  {name} : int = prim::Constant[value={d}]()"));
                    dim_names.push(name);
                }
                let dim_list = dim_names.join(", ");
                let mut row = ashape.clone();
                row[rank - k..].fill(1);
                self.reduced = true;
                match op {
                    "softmax" | "log_softmax" => {
                        self.lines
                            .push(format!("  {r} = aten::{op}({an}, {last}, {none})"));
                        self.push(r, ad, ashape);
                    }
                    "sum" | "mean" => {
                        let dims = self.fresh();
                        self.lines.push(format!(
                            "  {dims} : int[] = prim::ListConstruct({dim_list})"
                        ));
                        self.lines
                            .push(format!("  {r} = aten::{op}({an}, {dims}, {keep}, {none})"));
                        self.push(r, if floating { ad } else { DType::I64 }, row);
                    }
                    _ => {
                        let dims = self.fresh();
                        self.lines.push(format!(
                            "  {dims} : int[] = prim::ListConstruct({dim_list})"
                        ));
                        self.lines
                            .push(format!("  {r} = aten::{op}({an}, {dims}, {keep})"));
                        self.push(r, ad, row);
                    }
                }
            }
            8 => {
                if !floating {
                    return false;
                }
                let lo = self.constant(true);
                let hi = self.fresh();
                self.lines
                    .push(format!("  {hi} : float = prim::Constant[value=2.5]()"));
                let op = *self.rng.pick(&["clamp", "hardtanh"]);
                self.lines
                    .push(format!("  {r} = aten::{op}({an}, {lo}, {hi})"));
                self.push(r, ad, ashape);
            }
            _ => {
                // A cast.
                let (to, code) = *self.rng.pick(&[
                    (DType::F32, 6),
                    (DType::F64, 7),
                    (DType::F16, 5),
                    (DType::I64, 4),
                    (DType::BF16, 15),
                ]);
                if to == ad || (floating && !to.is_floating()) {
                    return false;
                }
                let (d, f, n) = (self.fresh(), self.fresh(), self.fresh());
                self.lines
                    .push(format!("  {d} : int = prim::Constant[value={code}]()"));
                self.lines
                    .push(format!("  {f} : bool = prim::Constant[value=0]()"));
                self.lines
                    .push(format!("  {n} : NoneType = prim::Constant()"));
                self.lines
                    .push(format!("  {r} = aten::to({an}, {d}, {f}, {f}, {n})"));
                self.push(r, to, ashape);
            }
        }
        true
    }
}

fn promo(d: DType, shape: &[i64]) -> ember_runtime::tensor::Operand {
    if shape.is_empty() {
        ember_runtime::tensor::Operand::ZeroDim(d)
    } else {
        ember_runtime::tensor::Operand::Tensor(d)
    }
}

/// One random group: its text and inputs.
pub fn random_case(rng: &mut Rng) -> (String, Vec<IValue>) {
    let rank = rng.below(4);
    let full: Vec<i64> = (0..rank)
        .map(|_| *rng.pick(&[1, 2, 3, 5, 8, 17, 64]))
        .collect();
    let family = *rng.pick(&[
        DType::F32,
        DType::F32,
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
    ]);
    // Rows of several dimensions now and then.
    let row_dims = if rank >= 2 && rng.below(3) == 0 {
        2 + rng.below(rank - 1)
    } else {
        1
    };
    let mut g = Gen {
        rng: rng.fork(),
        lines: Vec::new(),
        values: Vec::new(),
        chunked: false,
        reduced: false,
        full: full.clone(),
        row_dims,
        next: 0,
    };
    let mut params = Vec::new();
    let mut inputs = Vec::new();
    let n_inputs = 1 + rng.below(4);
    for i in 0..n_inputs {
        // The first input has the full shape; others broadcast (dims set to 1 or dropped).
        // Rows of several dimensions are broadcast whole or not at all: a kernel walks a row
        // with one stride per operand.
        let mut shape = full.clone();
        if i > 0 {
            let mut drop = rng.below(shape.len() + 1);
            if row_dims > 1 && drop > rank - row_dims {
                drop = rank;
            }
            shape.drain(..drop.min(shape.len()));
            let n = shape.len();
            let whole_row = row_dims > 1 && n >= row_dims && rng.below(3) == 0;
            for (d, s) in shape.iter_mut().enumerate() {
                let in_row = row_dims > 1 && d + row_dims >= n;
                if (in_row && whole_row) || (!in_row && rng.below(3) == 0) {
                    *s = 1;
                }
            }
        }
        let dtype = if rng.below(5) == 0 {
            *rng.pick(&[DType::F32, DType::F64, DType::I64, DType::F16])
        } else {
            family
        };
        let sizes: Vec<Option<i64>> = shape
            .iter()
            .map(|&s| if rng.below(3) == 0 { None } else { Some(s) })
            .collect();
        let name = format!("%x{i}");
        params.push(format!("{name} : {}", type_text(dtype, &sizes)));
        inputs.push(IValue::Tensor(tensor(rng, dtype, &shape, -2.0, 2.0)));
        g.push(name, dtype, shape);
    }
    let scalar = match rng.below(3) {
        0 => {
            params.push("%s : float".into());
            inputs.push(IValue::Double(rng.uniform(-2.0, 2.0)));
            Some(("%s", true))
        }
        1 => {
            params.push("%s : int".into());
            inputs.push(IValue::Int(rng.below(5) as i64 - 2));
            Some(("%s", false))
        }
        _ => None,
    };
    let n_ops = 1 + rng.below(8);
    let mut made = 0;
    for _ in 0..n_ops * 4 {
        if made == n_ops {
            break;
        }
        if g.op(scalar) {
            made += 1;
        }
    }
    // Outputs: the last value, brought to the full shape, and sometimes an earlier one.
    let (last, _, shape) = g.values.last().unwrap().clone();
    let out = if shape != full || g.values.len() == n_inputs {
        let r = g.fresh();
        let one = g.fresh();
        g.lines
            .push(format!("  {one} : int = prim::Constant[value=1]()"));
        g.lines
            .push(format!("  {r} = aten::add(%x0, {last}, {one})"));
        r
    } else {
        last
    };
    // Now and then the output is a cat of it and a part of another size along the cat's
    // dimension, its size fixed by its type or open (each part then has a sweep of its own).
    // Not after a reduction: a kernel that reduces computes one shape.
    let out = if rank >= 1 && !g.reduced && rng.below(4) == 0 {
        let d = rng.below(rank);
        let mut part = full.clone();
        part[d] = 1 + rng.below(5) as i64;
        let sizes: Vec<Option<i64>> = part
            .iter()
            .map(|&s| (rng.below(2) == 0).then_some(s))
            .collect();
        params.push(format!("%xc : {}", type_text(DType::F32, &sizes)));
        inputs.push(IValue::Tensor(tensor(rng, DType::F32, &part, -2.0, 2.0)));
        let dim = if rng.below(2) == 0 {
            d as i64
        } else {
            d as i64 - rank as i64
        };
        g.lines.extend([
            format!(
                "  %w : {} = aten::mul(%xc, %xc)",
                type_text(DType::F32, &sizes)
            ),
            format!("  %parts : Tensor[] = prim::ListConstruct({out}, %w)"),
            format!("  %dim : int = prim::Constant[value={dim}]()"),
            "  %cat = aten::cat(%parts, %dim)".to_string(),
        ]);
        "%cat".to_string()
    } else {
        out
    };
    let mut outs = vec![out];
    let extra: Vec<String> = g.values[n_inputs..]
        .iter()
        .filter(|(n, _, s)| *s == full && !outs.contains(n))
        .map(|(n, _, _)| n.clone())
        .collect();
    if !extra.is_empty() && rng.below(2) == 0 {
        outs.push(rng.pick(&extra).clone());
    }
    let src = format!(
        "graph({}):\n{}\n  return ({})\n",
        params.join(", "),
        g.lines.join("\n"),
        outs.join(", ")
    );
    (src, inputs)
}

/// Compiles the group `src` for `isa` and runs it on `inputs`: its results must match the
/// interpreter's. False when the interpreter refuses the program (as PyTorch would): nothing to
/// compare.
pub fn check_case(src: &str, inputs: &[IValue], isa: Isa, what: &str) -> bool {
    let g = parse(src);
    let Ok(want) = interpret(&g, inputs) else {
        return false;
    };
    let group = compile_group_for(&g, &JitTarget::for_isa(isa))
        .unwrap_or_else(|e| panic!("{what} ({isa:?}): {e}\n{src}"));
    let got = group
        .run(inputs)
        .unwrap_or_else(|e| panic!("{what} ({isa:?}): run: {e}\n{src}"));
    // The least precise float dtype anywhere in the chain sets the tolerance.
    let half = ["Half", "BFloat16", "value=5]", "value=15]"]
        .iter()
        .any(|s| src.contains(s));
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert_tensors_close_chain(
            a.as_tensor().unwrap(),
            b.as_tensor().unwrap(),
            half,
            &format!("{what} ({isa:?}) output {k}\n{src}"),
        );
    }
    true
}

/// Chains compound rounding differences of transcendental functions (1-2 ulp each): DESIGN's
/// whole-model tolerance (rtol 1e-4) for float32 (and float64 results of float32 work), and
/// 5e-2 where float16/bfloat16 values occur.
fn assert_tensors_close_chain(
    got: &ember_runtime::tensor::Tensor,
    want: &ember_runtime::tensor::Tensor,
    half: bool,
    what: &str,
) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.sizes().to_vec(), want.sizes().to_vec(), "{what}: shape");
    let (rtol, atol) = match want.dtype() {
        d if !d.is_floating() => (0.0, 0.0),
        _ if half => (5e-2, 5e-2),
        _ => (1e-4, 1e-5),
    };
    for (i, (a, b)) in got
        .to_vec::<f64>()
        .iter()
        .zip(want.to_vec::<f64>())
        .enumerate()
    {
        let ok = (a.is_nan() && b.is_nan()) || *a == b || (a - b).abs() <= atol + rtol * b.abs();
        assert!(ok, "{what}: element {i}: jit {a:e} vs interpreter {b:e}");
    }
}
