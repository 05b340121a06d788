//! Random TorchScript programs: ints, floats and bools in arithmetic, comparisons and Python's
//! `//` and `%` (zero divisors included, so both must raise the same error), `if`/`else`, `for`
//! and `while` loops (nested), lists of ints (append, len, indexing) and small tensors carried
//! through loops and branches; and the check that compiles one whole and runs it against the
//! interpreter. The results must be equal: the compiled code runs the same operators, so even
//! floats agree exactly. Drawn from a seeded `Rng` by the fixed-seed tests (whole_random.rs) and
//! from a fuzzer's bytes by the `whole_program` fuzz target (fuzz/codegen).

use crate::jit_support::Rng;

use ember_compiler::codegen::whole;
use ember_compiler::model::Model;
use ember_runtime::ivalue::IValue;
use ember_runtime::repr::repr;
use ember_runtime::tensor::Tensor;

pub struct Gen {
    rng: Rng,
    lines: Vec<String>,
    depth: usize,
    loop_vars: usize,
}

const INTS: [&str; 3] = ["a", "b", "c"];
const FLOATS: [&str; 2] = ["f", "g"];

impl Gen {
    fn indent(&self) -> String {
        "    ".repeat(self.depth + 1)
    }

    fn line(&mut self, s: &str) {
        let l = format!("{}{s}", self.indent());
        self.lines.push(l);
    }

    fn int_atom(&mut self) -> String {
        match self.rng.below(4) {
            0 => (self.rng.below(9) as i64 - 4).to_string(),
            1 => "len(xs)".into(),
            _ => self.rng.pick(&INTS).to_string(),
        }
    }

    fn int_expr(&mut self) -> String {
        let (x, y) = (self.int_atom(), self.int_atom());
        match self.rng.below(7) {
            0 => format!("{x} + {y}"),
            1 => format!("{x} - {y}"),
            2 => format!("{x} * {y}"),
            3 => format!("{x} // {y}"),
            4 => format!("{x} % {y}"),
            5 => format!("int({})", self.float_expr()),
            _ => format!("-{x}"),
        }
    }

    fn float_expr(&mut self) -> String {
        let x = self.rng.pick(&FLOATS).to_string();
        let k = self.int_atom();
        match self.rng.below(5) {
            0 => format!("{x} * 0.5 + {k}"),
            1 => format!("{x} - float({k})"),
            2 => format!("{x} / 3.0"),
            3 => format!("{x} * {x} - 1.25"),
            _ => format!("float({k}) / 7.0"),
        }
    }

    fn condition(&mut self) -> String {
        let (x, y) = (self.int_atom(), self.int_atom());
        let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
        match self.rng.below(4) {
            0 => format!("{x} {op} {y} and {} > 0.0", self.rng.pick(&FLOATS)),
            1 => format!("not ({x} {op} {y})"),
            2 => format!("{} {op} {}", self.rng.pick(&FLOATS), self.float_expr()),
            _ => format!("{x} {op} {y}"),
        }
    }

    fn statement(&mut self) {
        let choice = if self.depth >= 3 {
            self.rng.below(6)
        } else {
            self.rng.below(9)
        };
        match choice {
            0 | 1 => {
                let v = self.rng.pick(&INTS).to_string();
                let e = self.int_expr();
                // Keep ints small so that products do not reach float precision limits.
                self.line(&format!("{v} = ({e}) % 1000"));
            }
            2 => {
                let v = self.rng.pick(&FLOATS).to_string();
                let e = self.float_expr();
                self.line(&format!("{v} = {e}"));
            }
            3 => {
                let e = self.int_expr();
                self.line(&format!("xs.append({e})"));
            }
            4 => {
                let v = self.rng.pick(&INTS).to_string();
                let i = self.int_atom();
                self.line("if len(xs) > 0:");
                self.depth += 1;
                self.line(&format!("{v} = xs[{i} % len(xs)]"));
                self.depth -= 1;
            }
            5 => {
                let op = match self.rng.below(4) {
                    0 => format!("t * {}", self.rng.pick(&FLOATS)),
                    1 => format!("torch.relu(t - {})", self.int_atom()),
                    2 => "t + x".to_string(),
                    _ => format!("torch.tanh(t) + {}", self.rng.pick(&INTS)),
                };
                self.line(&format!("t = {op}"));
            }
            6 => {
                let c = self.condition();
                self.line(&format!("if {c}:"));
                self.block();
                if self.rng.below(2) == 0 {
                    self.line("else:");
                    self.block();
                }
            }
            7 => {
                let n = self.rng.below(5);
                let i = format!("i{}", self.loop_vars);
                self.loop_vars += 1;
                self.line(&format!("for {i} in range({n}):"));
                self.depth += 1;
                let v = self.rng.pick(&INTS).to_string();
                // The second form keeps the sum below 2000: the compiled code reduces it with
                // a compare and a subtraction (its range is known), not a division.
                match self.rng.below(2) {
                    0 => self.line(&format!("{v} = ({v} + {i}) % 1000")),
                    _ => self.line(&format!("{v} = ({v} % 1000 + {i} // 2) % 1000")),
                }
                self.depth -= 1;
                self.block();
            }
            _ => {
                // A while loop with its own counter, so that it ends.
                let k = format!("k{}", self.loop_vars);
                self.loop_vars += 1;
                let n = self.rng.below(4) + 1;
                self.line(&format!("{k} = 0"));
                self.line(&format!("while {k} < {n}:"));
                self.depth += 1;
                self.line(&format!("{k} += 1"));
                self.depth -= 1;
                self.block();
            }
        }
    }

    fn block(&mut self) {
        self.depth += 1;
        for _ in 0..self.rng.below(3) + 1 {
            self.statement();
        }
        self.depth -= 1;
    }

    pub fn program(rng: Rng) -> String {
        let mut g = Gen {
            rng,
            lines: Vec::new(),
            depth: 0,
            loop_vars: 0,
        };
        for _ in 0..g.rng.below(5) + 3 {
            g.statement();
        }
        format!(
            "import torch\nfrom typing import List, Tuple\n\n\
             def prog(x: torch.Tensor, a: int, b: int, f: float) -> Tuple[torch.Tensor, int, int, int, float, float, List[int]]:\n    \
             c = 3\n    g = 0.25\n    t = x\n    xs: List[int] = []\n{}\n    \
             return t, a, b, c, f, g, xs\n",
            g.lines.join("\n")
        )
    }
}

/// The result as text (tensors printed in full), or the first line of the error.
pub fn outcome(r: Result<IValue, String>) -> String {
    match r {
        Ok(v) => repr(&v),
        Err(e) => format!("error: {}", e.lines().next().unwrap_or_default()),
    }
}

/// The calls every random program gets: `prog(x, a, b, f)`.
pub const CALLS: [(i64, i64, f64); 4] = [(3, 7, 0.75), (-5, 0, -2.5), (11, -4, 0.0), (0, 1, 1.5)];

pub fn input_tensor() -> Tensor {
    Tensor::from_vec(vec![0.5f32, -1.0, 2.0, -0.25], &[2, 2]).unwrap()
}

/// Compiles `source`'s `prog` whole and calls it with each of `CALLS`, compiled and in the
/// interpreter (on the graph the compiled code was lowered from, so a dead `//` that would
/// raise is gone from both): the outcomes must be equal. Returns (calls, calls that raised).
pub fn check_program(source: &str) -> Result<(usize, usize), String> {
    let mut model =
        Model::from_source("random.py", source).map_err(|e| format!("does not compile: {e}"))?;
    let (graph, is_method) = whole::method_graph(&mut model, "prog")?;
    let program = whole::prepare(&graph, is_method, &[], &[]).map_err(|e| e.message)?;
    let compiled = whole::compile_in_process(&program).map_err(|e| e.message)?;
    let (mut runs, mut errors) = (0, 0);
    for &(a, b, f) in &CALLS {
        let inputs = vec![
            IValue::Tensor(input_tensor()),
            IValue::Int(a),
            IValue::Int(b),
            IValue::Double(f),
        ];
        let interpreted = outcome(compiled.run_interpreted(inputs.clone()));
        let got = outcome(compiled.run(inputs));
        if got != interpreted {
            return Err(format!(
                "f(x, {a}, {b}, {f}): compiled {got}, interpreter {interpreted}"
            ));
        }
        runs += 1;
        errors += usize::from(got.starts_with("error"));
    }
    Ok((runs, errors))
}
