//! Lowers a whole graph to MLIR text: one `func.func @SYMBOL(%ctx: !llvm.ptr) -> i32` in which
//! `prim::If` and `prim::Loop` become `scf.if` and `scf.while`, int/float/bool arithmetic and
//! comparisons become `arith`, and every other node is a call of `ember_rt_op` in the runtime
//! (the contract is in `ember_runtime::aot`). A fusion group (`prim::TensorExprGroup`) is a
//! call of `ember_rt_group` with the address of its kernel, whose functions (as the JIT lowers
//! them, `codegen::jit::lower`) are in the same module. Ints, floats and bools live in SSA values; every
//! other value lives in a register of the call's context, moved at its last use and dropped
//! where it dies, as the interpreter's liveness does.

use std::fmt::Write;

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::types::Type;
use ember_dialects::{Block, Graph, Node, Value};
use hashbrown::{HashMap, HashSet};

use super::int_ranges::{self, Range};
use crate::codegen::CodegenError;

/// How compiled code holds a value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Repr {
    I64,
    F64,
    I1,
    /// In a register of the context.
    Boxed,
}

impl Repr {
    pub fn of(ty: &Type) -> Repr {
        match ty {
            Type::Int => Repr::I64,
            Type::Float => Repr::F64,
            Type::Bool => Repr::I1,
            _ => Repr::Boxed,
        }
    }

    fn mlir(self) -> &'static str {
        match self {
            Repr::I64 => "i64",
            Repr::F64 => "f64",
            Repr::I1 => "i1",
            Repr::Boxed => unreachable!("boxed values have no SSA type"),
        }
    }

    /// The `kind` argument of `ember_rt_box`.
    fn box_kind(self) -> i64 {
        match self {
            Repr::I64 => 0,
            Repr::F64 => 1,
            Repr::I1 => 2,
            Repr::Boxed => unreachable!("boxed values are not boxed again"),
        }
    }
}

/// The lowered method.
pub struct Lowered {
    pub mlir: String,
    pub num_registers: usize,
    /// Fusion groups with a compiled kernel, and those left to the interpreter.
    pub kernels: usize,
    pub interpreted_groups: usize,
}

/// The forms of each fusion group's kernel, in the order `ember_rt_group` takes them: the
/// function-name suffix and the CPU level (LLVM's `target-cpu`) each is compiled for.
pub const KERNEL_FORMS: [(&str, &str); 3] = [
    ("avx512", "x86-64-v4"),
    ("avx2", "x86-64-v3"),
    ("base", "x86-64"),
];

/// The MLIR type of a kernel's entry ([`ember_runtime::kernel_abi::JitKernelFn`]).
const KERNEL_TYPE: &str = "(i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()";

/// The runtime functions compiled code calls, as the `llvm` dialect declares them.
const DECLARATIONS: &str = "  llvm.func @ember_rt_op(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
  llvm.func @ember_rt_unbox(!llvm.ptr, i64) -> i64
  llvm.func @ember_rt_box(!llvm.ptr, i64, i64, i64)
  llvm.func @ember_rt_copy(!llvm.ptr, i64, i64)
  llvm.func @ember_rt_move(!llvm.ptr, i64, i64)
  llvm.func @ember_rt_drop(!llvm.ptr, i64)
  llvm.func @ember_rt_failed(!llvm.ptr) -> i32
  llvm.func @ember_rt_group(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
";

/// Lowers `g` (self-contained: no calls, tensor constants already turned into inputs) to a
/// module defining `symbol`.
pub fn lower_graph(g: &Graph, symbol: &str) -> Result<Lowered, CodegenError> {
    let node_ids: HashMap<Node, i64> = g
        .nodes()
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, i as i64))
        .collect();
    let mut e = Emitter {
        g,
        node_ids,
        body: String::new(),
        indent: 2,
        next_ssa: 0,
        scalars: HashMap::new(),
        regs: HashMap::new(),
        next_reg: 0,
        max_args: 1,
        max_outs: 1,
        op_calls: 0,
        symbol,
        kernels: String::new(),
        aliases: String::new(),
        kernel_count: 0,
        interpreted_groups: 0,
        ranges: int_ranges::analyze(g),
    };
    let top = g.block();
    // Registers [0, n_in) are the inputs, [n_in, n_in + n_out) the outputs.
    for &v in g.inputs() {
        let r = e.new_reg();
        e.regs.insert(v, r);
    }
    let first_output = e.next_reg;
    e.next_reg += g.outputs().len() as i64;
    for &v in g.inputs() {
        let repr = Repr::of(g.ty(v));
        if repr != Repr::Boxed {
            let r = e.const_i64(e.regs[&v]);
            let bits = e.fresh();
            e.line(&format!(
                "{bits} = llvm.call @ember_rt_unbox(%ctx, {r}) : (!llvm.ptr, i64) -> i64"
            ));
            let s = e.scalar_of_bits(&bits, repr);
            e.scalars.insert(v, s);
        }
    }
    let plan = e.emit_block(top)?;
    for (j, &v) in g.block_outputs(top).iter().enumerate() {
        let dst = first_output + j as i64;
        e.write_back(v, dst, plan.moves_return(j, v, g.block_outputs(top)));
    }
    let failed = e.fresh();
    e.line(&format!(
        "{failed} = llvm.call @ember_rt_failed(%ctx) : (!llvm.ptr) -> i32"
    ));
    e.line(&format!("return {failed} : i32"));

    let mut mlir = e.aliases.clone();
    let _ = writeln!(mlir, "module {{");
    mlir.push_str(DECLARATIONS);
    mlir.push_str(&e.kernels);
    let _ = writeln!(
        mlir,
        "  func.func @{symbol}(%ctx: !llvm.ptr) -> i32 attributes {{llvm.emit_c_interface = false}} {{"
    );
    let _ = writeln!(mlir, "    %nargs = arith.constant {} : i64", e.max_args);
    let _ = writeln!(mlir, "    %nouts = arith.constant {} : i64", e.max_outs);
    let _ = writeln!(
        mlir,
        "    %args = llvm.alloca %nargs x i64 : (i64) -> !llvm.ptr"
    );
    let _ = writeln!(
        mlir,
        "    %outs = llvm.alloca %nouts x i64 : (i64) -> !llvm.ptr"
    );
    if e.kernel_count > 0 {
        // The forms of the group kernel a call of ember_rt_group is given.
        let _ = writeln!(
            mlir,
            "    %nforms = arith.constant {} : i64",
            KERNEL_FORMS.len()
        );
        let _ = writeln!(
            mlir,
            "    %forms = llvm.alloca %nforms x !llvm.ptr : (i64) -> !llvm.ptr"
        );
    }
    mlir.push_str(&e.body);
    let _ = writeln!(mlir, "  }}");
    let _ = writeln!(mlir, "}}");
    Ok(Lowered {
        mlir,
        num_registers: e.next_reg as usize,
        kernels: e.kernel_count,
        interpreted_groups: e.interpreted_groups,
    })
}

/// Where each boxed value defined in a block dies.
#[derive(Default)]
struct BlockPlan {
    /// (node, input index): the input is moved out of its register.
    moved: HashSet<(Node, usize)>,
    /// Values to drop right after a node.
    drop_after: HashMap<Node, Vec<Value>>,
    /// Block parameters nobody reads.
    drop_at_start: Vec<Value>,
    /// Values defined in the block (they may be moved when returned).
    local: HashSet<Value>,
}

impl BlockPlan {
    /// Whether return value `j` (`v`) is moved: it is local and this is its last occurrence.
    fn moves_return(&self, j: usize, v: Value, returned: &[Value]) -> bool {
        self.local.contains(&v) && !returned[j + 1..].contains(&v)
    }
}

struct Emitter<'g> {
    g: &'g Graph,
    node_ids: HashMap<Node, i64>,
    body: String,
    indent: usize,
    next_ssa: usize,
    scalars: HashMap<Value, String>,
    regs: HashMap<Value, i64>,
    next_reg: i64,
    max_args: usize,
    max_outs: usize,
    /// `ember_rt_op` calls emitted so far.
    op_calls: usize,
    /// The method's symbol (kernels are named after it).
    symbol: &'g str,
    /// The kernels' functions and attribute aliases, for the module.
    kernels: String,
    aliases: String,
    kernel_count: usize,
    interpreted_groups: usize,
    /// What each int value can hold (`int_ranges`): where it is known, `%` and `//` by a
    /// positive constant need no sign fix-up.
    ranges: HashMap<Value, Range>,
}

/// Every value read inside the blocks of `n`, at any depth.
fn nested_uses(g: &Graph, n: Node, out: &mut HashSet<Value>) {
    for &b in g.node_blocks(n) {
        for m in g.block_nodes(b) {
            out.extend(g.node_inputs(m).iter().copied());
            nested_uses(g, m, out);
        }
        out.extend(g.block_outputs(b).iter().copied());
    }
}

fn plan_block(g: &Graph, b: Block) -> BlockPlan {
    let nodes: Vec<Node> = g.block_nodes(b).collect();
    let mut plan = BlockPlan::default();
    let mut defined: Vec<(Value, Option<Node>)> =
        g.block_inputs(b).iter().map(|&v| (v, None)).collect();
    for &n in &nodes {
        defined.extend(g.node_outputs(n).iter().map(|&v| (v, Some(n))));
    }
    // The last node of the block that reads each value, and whether it reads it only as a
    // direct input of a node without blocks (then the read can move it).
    let mut last: HashMap<Value, (usize, bool)> = HashMap::new();
    for (i, &n) in nodes.iter().enumerate() {
        let plain = g.node_blocks(n).is_empty();
        for &v in g.node_inputs(n) {
            last.insert(v, (i, plain));
        }
        let mut nested = HashSet::new();
        nested_uses(g, n, &mut nested);
        for v in nested {
            last.insert(v, (i, false));
        }
    }
    let returned: HashSet<Value> = g.block_outputs(b).iter().copied().collect();
    for (v, def) in defined {
        if Repr::of(g.ty(v)) != Repr::Boxed {
            continue;
        }
        plan.local.insert(v);
        if returned.contains(&v) {
            continue;
        }
        match (last.get(&v), def) {
            (None, None) => plan.drop_at_start.push(v),
            (None, Some(n)) => plan.drop_after.entry(n).or_default().push(v),
            (Some(&(i, true)), _) => {
                let n = nodes[i];
                let at = g.node_inputs(n).iter().rposition(|&x| x == v).unwrap();
                plan.moved.insert((n, at));
            }
            (Some(&(i, false)), _) => plan.drop_after.entry(nodes[i]).or_default().push(v),
        }
    }
    plan
}

impl Emitter<'_> {
    fn fresh(&mut self) -> String {
        self.next_ssa += 1;
        format!("%v{}", self.next_ssa)
    }

    fn new_reg(&mut self) -> i64 {
        self.next_reg += 1;
        self.next_reg - 1
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.body.push_str("  ");
        }
        self.body.push_str(s);
        self.body.push('\n');
    }

    fn const_i64(&mut self, k: i64) -> String {
        let c = self.fresh();
        self.line(&format!("{c} = arith.constant {k} : i64"));
        c
    }

    fn rt(&mut self, func: &str, regs: &[i64]) {
        let mut args = vec!["%ctx".to_string()];
        for &r in regs {
            args.push(self.const_i64(r));
        }
        let types = vec!["i64"; regs.len()].join(", ");
        self.line(&format!(
            "llvm.call @{func}({}) : (!llvm.ptr, {types}) -> ()",
            args.join(", ")
        ));
    }

    /// An `i64` holding the bits of scalar `s`.
    fn bits_of(&mut self, s: &str, repr: Repr) -> String {
        match repr {
            Repr::I64 => s.to_string(),
            Repr::F64 => {
                let b = self.fresh();
                self.line(&format!("{b} = arith.bitcast {s} : f64 to i64"));
                b
            }
            Repr::I1 => {
                let b = self.fresh();
                self.line(&format!("{b} = arith.extui {s} : i1 to i64"));
                b
            }
            Repr::Boxed => unreachable!(),
        }
    }

    fn scalar_of_bits(&mut self, bits: &str, repr: Repr) -> String {
        match repr {
            Repr::I64 => bits.to_string(),
            Repr::F64 => {
                let s = self.fresh();
                self.line(&format!("{s} = arith.bitcast {bits} : i64 to f64"));
                s
            }
            Repr::I1 => {
                let s = self.fresh();
                self.line(&format!("{s} = arith.trunci {bits} : i64 to i1"));
                s
            }
            Repr::Boxed => unreachable!(),
        }
    }

    fn scalar(&self, v: Value) -> Result<String, CodegenError> {
        self.scalars.get(&v).cloned().ok_or_else(|| {
            CodegenError::general(format!(
                "internal error: %{} has no SSA value",
                self.g.value_name(v)
            ))
        })
    }

    fn reg(&self, v: Value) -> Result<i64, CodegenError> {
        self.regs.get(&v).copied().ok_or_else(|| {
            CodegenError::general(format!(
                "internal error: %{} has no register",
                self.g.value_name(v)
            ))
        })
    }

    /// Puts `v` in register `dst` (boxing a scalar; moving or copying a boxed value).
    fn write_back(&mut self, v: Value, dst: i64, moved: bool) {
        let repr = Repr::of(self.g.ty(v));
        if repr == Repr::Boxed {
            let src = self.regs[&v];
            if src != dst {
                self.rt(
                    if moved {
                        "ember_rt_move"
                    } else {
                        "ember_rt_copy"
                    },
                    &[dst, src],
                );
            }
            return;
        }
        let s = self.scalars[&v].clone();
        let bits = self.bits_of(&s, repr);
        let (r, k) = (self.const_i64(dst), self.const_i64(repr.box_kind()));
        self.line(&format!(
            "llvm.call @ember_rt_box(%ctx, {r}, {k}, {bits}) : (!llvm.ptr, i64, i64, i64) -> ()"
        ));
    }

    /// Emits the nodes of `b` (not its return) and gives the plan its return follows.
    fn emit_block(&mut self, b: Block) -> Result<BlockPlan, CodegenError> {
        let plan = plan_block(self.g, b);
        for &v in &plan.drop_at_start {
            let r = self.reg(v)?;
            self.rt("ember_rt_drop", &[r]);
        }
        let nodes: Vec<Node> = self.g.block_nodes(b).collect();
        for n in nodes {
            self.emit_node(n, &plan)?;
            if let Some(dead) = plan.drop_after.get(&n) {
                for &v in dead {
                    let r = self.reg(v)?;
                    self.rt("ember_rt_drop", &[r]);
                }
            }
        }
        Ok(plan)
    }

    fn emit_node(&mut self, n: Node, plan: &BlockPlan) -> Result<(), CodegenError> {
        let g = self.g;
        let kind = g.kind(n);
        if kind == sym::if_() {
            return self.emit_if(n);
        }
        if kind == sym::loop_() {
            return self.emit_loop(n);
        }
        if !g.node_blocks(n).is_empty() {
            return Err(CodegenError::at(
                g,
                n,
                format!("{kind} has blocks; only prim::If and prim::Loop can be compiled whole"),
            ));
        }
        if kind == sym::constant() {
            if let Some(s) = self.scalar_constant(n)? {
                self.scalars.insert(g.output(n, 0), s);
                return Ok(());
            }
            check_constant(g, n)?;
        } else if kind == sym::uninitialized() {
            let v = g.output(n, 0);
            let repr = Repr::of(g.ty(v));
            if repr != Repr::Boxed {
                let s = self.fresh();
                let zero = match repr {
                    Repr::F64 => "0.0 : f64",
                    Repr::I1 => "false",
                    _ => "0 : i64",
                };
                self.line(&format!("{s} = arith.constant {zero}"));
                self.scalars.insert(v, s);
                return Ok(());
            }
        } else if let Some(s) = self.arith(n)? {
            self.scalars.insert(g.output(n, 0), s);
            return Ok(());
        } else {
            check_runtime_entry(g, n)?;
        }
        self.emit_op_call(n, plan)
    }

    fn emit_op_call(&mut self, n: Node, plan: &BlockPlan) -> Result<(), CodegenError> {
        let g = self.g;
        let inputs = g.node_inputs(n).to_vec();
        let outputs = g.node_outputs(n).to_vec();
        self.max_args = self.max_args.max(inputs.len());
        self.max_outs = self.max_outs.max(outputs.len());
        for (i, &v) in inputs.iter().enumerate() {
            let repr = Repr::of(g.ty(v));
            let word = if repr == Repr::Boxed {
                let r = self.reg(v)?;
                let code = if plan.moved.contains(&(n, i)) {
                    -(r + 1)
                } else {
                    r
                };
                self.const_i64(code)
            } else {
                let s = self.scalar(v)?;
                self.bits_of(&s, repr)
            };
            let p = self.slot("%args", i);
            self.line(&format!("llvm.store {word}, {p} : i64, !llvm.ptr"));
        }
        for (i, &v) in outputs.iter().enumerate() {
            if Repr::of(g.ty(v)) == Repr::Boxed {
                let r = self.new_reg();
                self.regs.insert(v, r);
                let c = self.const_i64(r);
                let p = self.slot("%outs", i);
                self.line(&format!("llvm.store {c}, {p} : i64, !llvm.ptr"));
            }
        }
        self.op_calls += 1;
        let id = self.const_i64(self.node_ids[&n]);
        let status = self.fresh();
        if crate::executor::groups::is_group(g, n) {
            let kernel = self.group_kernel(n);
            self.line(&format!(
                "{status} = llvm.call @ember_rt_group(%ctx, {id}, {kernel}, %args, %outs) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32"
            ));
        } else {
            self.line(&format!(
                "{status} = llvm.call @ember_rt_op(%ctx, {id}, %args, %outs) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32"
            ));
        }
        for (i, &v) in outputs.iter().enumerate() {
            let repr = Repr::of(g.ty(v));
            if repr != Repr::Boxed {
                let p = self.slot("%outs", i);
                let bits = self.fresh();
                self.line(&format!("{bits} = llvm.load {p} : !llvm.ptr -> i64"));
                let s = self.scalar_of_bits(&bits, repr);
                self.scalars.insert(v, s);
            }
        }
        Ok(())
    }

    /// The address of group `n`'s kernel, added to the module, or a null pointer (the
    /// runtime interprets the group) where codegen refuses the group, as the JIT does.
    fn group_kernel(&mut self, n: Node) -> String {
        let g = self.g;
        let built = crate::executor::groups::subgraph(g, n)
            .ok_or_else(|| CodegenError::at(g, n, "no subgraph"))
            .and_then(crate::codegen::jit::group::build);
        let kernel = match built {
            Ok(kernel) => kernel,
            Err(why) => {
                self.interpreted_groups += 1;
                let why = why.message.replace('\n', " ");
                self.line(&format!(
                    "// node {}: interpreted ({why})",
                    self.node_ids[&n]
                ));
                let null = self.fresh();
                self.line(&format!("{null} = llvm.mlir.zero : !llvm.ptr"));
                return null;
            }
        };
        // One form per instruction set, each compiled for its own CPU level (see
        // KERNEL_FORMS); the runtime calls the best one the machine has.
        self.kernel_count += 1;
        for (i, (suffix, _)) in KERNEL_FORMS.iter().enumerate() {
            let name = format!("{}_group{}_{suffix}", self.symbol, self.node_ids[&n]);
            let module = crate::codegen::jit::kernel_mlir(&kernel, &name);
            let (aliases, body) = kernel_text(&module, &name);
            self.aliases.push_str(&aliases);
            self.kernels.push_str(&body);
            let f = self.fresh();
            self.line(&format!("{f} = func.constant @{name} : {KERNEL_TYPE}"));
            let p = self.fresh();
            self.line(&format!(
                "{p} = builtin.unrealized_conversion_cast {f} : {KERNEL_TYPE} to !llvm.ptr"
            ));
            let slot = self.fresh();
            self.line(&format!(
                "{slot} = llvm.getelementptr %forms[{i}] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr"
            ));
            self.line(&format!("llvm.store {p}, {slot} : !llvm.ptr, !llvm.ptr"));
        }
        "%forms".to_string()
    }

    /// A pointer to element `i` of the `i64` array `base`.
    fn slot(&mut self, base: &str, i: usize) -> String {
        let p = self.fresh();
        self.line(&format!(
            "{p} = llvm.getelementptr {base}[{i}] : (!llvm.ptr) -> !llvm.ptr, i64"
        ));
        p
    }

    /// An int, float or bool constant as an `arith.constant`; `None` for any other constant.
    fn scalar_constant(&mut self, n: Node) -> Result<Option<String>, CodegenError> {
        let g = self.g;
        let v = g.output(n, 0);
        let repr = Repr::of(g.ty(v));
        if repr == Repr::Boxed {
            return Ok(None);
        }
        let value = g.attr(n, sym::attr_value());
        let text = match (repr, value) {
            (Repr::I64, Some(AttrValue::Int(i))) => format!("{i} : i64"),
            (Repr::I64, Some(AttrValue::IValue(ConstValue::Int(i)))) => format!("{i} : i64"),
            (Repr::I1, Some(AttrValue::Int(i))) => (*i != 0).to_string(),
            (Repr::I1, Some(AttrValue::IValue(ConstValue::Bool(b)))) => b.to_string(),
            (Repr::F64, Some(AttrValue::Float(f)))
            | (Repr::F64, Some(AttrValue::IValue(ConstValue::Float(f)))) => {
                format!("0x{:016X} : f64", f.to_bits())
            }
            _ => return Ok(None),
        };
        let s = self.fresh();
        self.line(&format!("{s} = arith.constant {text}"));
        Ok(Some(s))
    }

    /// Int/float/bool arithmetic and comparisons that `arith` computes exactly as the
    /// interpreter does (ints wrap; nothing here can raise). `None`: the runtime runs the node.
    fn arith(&mut self, n: Node) -> Result<Option<String>, CodegenError> {
        let g = self.g;
        if g.node_outputs(n).len() != 1 {
            return Ok(None);
        }
        let out = Repr::of(g.ty(g.output(n, 0)));
        let ins: Vec<Repr> = g
            .node_inputs(n)
            .iter()
            .map(|&v| Repr::of(g.ty(v)))
            .collect();
        if out == Repr::Boxed || ins.contains(&Repr::Boxed) {
            return Ok(None);
        }
        let name = g.kind(n);
        let (ns, op) = (name.namespace(), name.unqualified());
        if ns != "aten" && ns != "prim" {
            return Ok(None);
        }
        let args: Vec<String> = g
            .node_inputs(n)
            .iter()
            .map(|&v| self.scalar(v))
            .collect::<Result<_, _>>()?;
        let s = self.fresh();
        let inputs = g.node_inputs(n);
        if matches!(op, "eq" | "ne") && inputs.len() == 2 && inputs[0] == inputs[1] {
            // `x == x` on one value is true, NaN or not, as PyTorch's executor folds it.
            self.line(&format!("{s} = arith.constant {}", op == "eq"));
            return Ok(Some(s));
        }
        let text = match (op, ins.as_slice(), out) {
            ("add" | "sub" | "mul", [Repr::I64, Repr::I64], Repr::I64) => {
                let f = match op {
                    "add" => "addi",
                    "sub" => "subi",
                    _ => "muli",
                };
                format!("{s} = arith.{f} {}, {} : i64", args[0], args[1])
            }
            ("add" | "sub" | "mul", [a, b], Repr::F64) if a != &Repr::I1 && b != &Repr::I1 => {
                let (x, y) = (self.as_f64(&args[0], *a), self.as_f64(&args[1], *b));
                let f = match op {
                    "add" => "addf",
                    "sub" => "subf",
                    _ => "mulf",
                };
                format!("{s} = arith.{f} {x}, {y} : f64")
            }
            ("eq" | "ne" | "lt" | "le" | "gt" | "ge", [a, b], Repr::I1) => match (a, b) {
                (Repr::I64, Repr::I64) => {
                    let p = int_predicate(op);
                    format!("{s} = arith.cmpi {p}, {}, {} : i64", args[0], args[1])
                }
                (Repr::I1, Repr::I1) if op == "eq" || op == "ne" => {
                    format!("{s} = arith.cmpi {op}, {}, {} : i1", args[0], args[1])
                }
                (Repr::I1, _) | (_, Repr::I1) => return Ok(None),
                _ => {
                    let (x, y) = (self.as_f64(&args[0], *a), self.as_f64(&args[1], *b));
                    let p = float_predicate(op);
                    format!("{s} = arith.cmpf {p}, {x}, {y} : f64")
                }
            },
            ("div", [a, b], Repr::F64) if *a != Repr::I1 && *b != Repr::I1 => {
                // As the interpreter divides: a zero divisor gives an infinity or a NaN.
                let (x, y) = (self.as_f64(&args[0], *a), self.as_f64(&args[1], *b));
                format!("{s} = arith.divf {x}, {y} : f64")
            }
            ("remainder" | "__mod__" | "floordiv", [Repr::I64, Repr::I64], Repr::I64) => {
                return self
                    .int_division(n, op != "floordiv", &args[0], &args[1])
                    .map(Some);
            }
            ("__derive_index", [Repr::I64, Repr::I64, Repr::I64], Repr::I64) => {
                // start + index * step, wrapping as the interpreter's ints do.
                let offset = self.fresh();
                self.line(&format!(
                    "{offset} = arith.muli {}, {} : i64",
                    args[0], args[2]
                ));
                format!("{s} = arith.addi {}, {offset} : i64", args[1])
            }
            ("__range_length", [Repr::I64, Repr::I64, Repr::I64], Repr::I64) => {
                return self.range_length(n, &args).map(Some);
            }
            ("neg", [Repr::I64], Repr::I64) => {
                let zero = self.const_i64(0);
                format!("{s} = arith.subi {zero}, {} : i64", args[0])
            }
            ("neg", [Repr::F64], Repr::F64) => format!("{s} = arith.negf {} : f64", args[0]),
            ("__not__", [Repr::I1], Repr::I1) => {
                let t = self.fresh();
                self.line(&format!("{t} = arith.constant true"));
                format!("{s} = arith.xori {}, {t} : i1", args[0])
            }
            ("__and__" | "__or__" | "__xor__", [x, y], r)
                if x == y && *x == r && r != Repr::F64 =>
            {
                let f = match op {
                    "__and__" => "andi",
                    "__or__" => "ori",
                    _ => "xori",
                };
                format!("{s} = arith.{f} {}, {} : {}", args[0], args[1], r.mlir())
            }
            ("min", [Repr::I64, Repr::I64], Repr::I64) if ns == "prim" => {
                format!("{s} = arith.minsi {}, {} : i64", args[0], args[1])
            }
            ("max", [Repr::I64, Repr::I64], Repr::I64) if ns == "prim" => {
                format!("{s} = arith.maxsi {}, {} : i64", args[0], args[1])
            }
            ("Float", [Repr::I64], Repr::F64) => {
                format!("{s} = arith.sitofp {} : i64 to f64", args[0])
            }
            ("Float", [Repr::I1], Repr::F64) => {
                format!("{s} = arith.uitofp {} : i1 to f64", args[0])
            }
            ("Int", [Repr::I1], Repr::I64) => format!("{s} = arith.extui {} : i1 to i64", args[0]),
            ("Bool", [Repr::I64], Repr::I1) => {
                let zero = self.const_i64(0);
                format!("{s} = arith.cmpi ne, {}, {zero} : i64", args[0])
            }
            _ => return Ok(None),
        };
        self.line(&text);
        Ok(Some(s))
    }

    /// The trip count of `range(lo, hi, step)` as the interpreter computes it:
    /// `1 + (hi - 1 - lo) / step` when the range is not empty, else 0. A step of 0 runs the
    /// node in the runtime instead, which raises the interpreter's error.
    fn range_length(&mut self, n: Node, args: &[String]) -> Result<String, CodegenError> {
        let (lo, hi, step) = (&args[0], &args[1], &args[2]);
        let zero = self.const_i64(0);
        self.runtime_if_zero(n, 2, step)?;
        let up = self.fresh();
        self.line(&format!("{up} = arith.cmpi sgt, {step}, {zero} : i64"));
        // Counting up: the span is hi - lo over step; counting down, lo - hi over -step.
        let (from, to, stride) = (self.fresh(), self.fresh(), self.fresh());
        self.line(&format!("{from} = arith.select {up}, {lo}, {hi} : i64"));
        self.line(&format!("{to} = arith.select {up}, {hi}, {lo} : i64"));
        let negated = self.fresh();
        self.line(&format!("{negated} = arith.subi {zero}, {step} : i64"));
        self.line(&format!(
            "{stride} = arith.select {up}, {step}, {negated} : i64"
        ));
        let nonempty = self.fresh();
        self.line(&format!("{nonempty} = arith.cmpi slt, {from}, {to} : i64"));
        // Unsigned: a nonempty span (to > from) and the stride's magnitude fit in 64 bits
        // even where their signed forms overflow. A zero step (the runtime raised) divides by 1.
        let one = self.const_i64(1);
        let (span, last, stride_zero, divisor) =
            (self.fresh(), self.fresh(), self.fresh(), self.fresh());
        self.line(&format!("{span} = arith.subi {to}, {from} : i64"));
        self.line(&format!("{last} = arith.subi {span}, {one} : i64"));
        self.line(&format!(
            "{stride_zero} = arith.cmpi eq, {stride}, {zero} : i64"
        ));
        self.line(&format!(
            "{divisor} = arith.select {stride_zero}, {one}, {stride} : i64"
        ));
        let (count, plus_one, result) = (self.fresh(), self.fresh(), self.fresh());
        self.line(&format!("{count} = arith.divui {last}, {divisor} : i64"));
        self.line(&format!("{plus_one} = arith.addi {count}, {one} : i64"));
        self.line(&format!(
            "{result} = arith.select {nonempty}, {plus_one}, {zero} : i64"
        ));
        Ok(result)
    }

    /// `x % c` or `x // c` for a constant `c > 0` and an `x` never negative: C's unsigned
    /// division is Python's then; an `x` below `2c` needs no division for `%` (one compare and
    /// subtraction), and one below `c` is its own remainder. `None` where ranges do not say.
    fn nonnegative_division(&mut self, n: Node, remainder: bool, x: &str) -> Option<String> {
        let range = |v| self.ranges.get(&v).copied().unwrap_or(Range::FULL);
        let c = range(self.g.input(n, 1)).constant().filter(|&c| c > 0)?;
        let r = range(self.g.input(n, 0));
        if r.lo < 0 {
            return None;
        }
        if remainder && r.hi < c {
            return Some(x.to_string());
        }
        let k = self.const_i64(c);
        let s = self.fresh();
        match remainder {
            true if r.hi / 2 < c => {
                let (less, minus) = (self.fresh(), self.fresh());
                self.line(&format!("{less} = arith.cmpi ult, {x}, {k} : i64"));
                self.line(&format!("{minus} = arith.subi {x}, {k} : i64"));
                self.line(&format!("{s} = arith.select {less}, {x}, {minus} : i64"));
            }
            true => self.line(&format!("{s} = arith.remui {x}, {k} : i64")),
            false => self.line(&format!("{s} = arith.divui {x}, {k} : i64")),
        }
        Some(s)
    }

    /// Runs `n` in the runtime (which raises the interpreter's error) when its input `at`,
    /// `v` here, is 0; gives whether it is. A constant other than 0 needs no runtime call (nor
    /// the loop around it a check for failures).
    fn runtime_if_zero(&mut self, n: Node, at: usize, v: &str) -> Result<String, CodegenError> {
        let zero = self.const_i64(0);
        let is_zero = self.fresh();
        self.line(&format!("{is_zero} = arith.cmpi eq, {v}, {zero} : i64"));
        if !self.is_nonzero_constant(self.g.input(n, at)) {
            self.line(&format!("scf.if {is_zero} {{"));
            self.indent += 1;
            self.emit_op_call(n, &BlockPlan::default())?;
            self.line("scf.yield");
            self.indent -= 1;
            self.line("}");
        }
        Ok(is_zero)
    }

    /// Whether `v` is a `prim::Constant` int other than 0.
    fn is_nonzero_constant(&self, v: Value) -> bool {
        let p = self.g.producer(v);
        self.g.kind(p) == sym::constant()
            && matches!(self.g.attr(p, sym::attr_value()), Some(AttrValue::Int(k)) if *k != 0)
    }

    /// Python's `x % y` (`remainder`) or `x // y` on ints, as the interpreter computes them
    /// (wrapping at `i64::MIN // -1`). A zero divisor runs the node in the runtime instead,
    /// which raises the interpreter's error.
    fn int_division(
        &mut self,
        n: Node,
        remainder: bool,
        x: &str,
        y: &str,
    ) -> Result<String, CodegenError> {
        if let Some(s) = self.nonnegative_division(n, remainder, x) {
            return Ok(s);
        }
        let zero = self.const_i64(0);
        let one = self.const_i64(1);
        let minus_one = self.const_i64(-1);
        let is_zero = self.runtime_if_zero(n, 1, y)?;
        // A divisor of 0 or -1 never reaches the division (-1 would overflow at i64::MIN).
        let is_minus_one = self.fresh();
        self.line(&format!(
            "{is_minus_one} = arith.cmpi eq, {y}, {minus_one} : i64"
        ));
        let unsafe_divisor = self.fresh();
        self.line(&format!(
            "{unsafe_divisor} = arith.ori {is_zero}, {is_minus_one} : i1"
        ));
        let d = self.fresh();
        self.line(&format!(
            "{d} = arith.select {unsafe_divisor}, {one}, {y} : i64"
        ));
        let r = self.fresh();
        self.line(&format!("{r} = arith.remsi {x}, {d} : i64"));
        // Python's results follow the divisor's sign: adjust when the C-style remainder is
        // nonzero and its sign differs from the divisor's.
        let r_nonzero = self.fresh();
        self.line(&format!("{r_nonzero} = arith.cmpi ne, {r}, {zero} : i64"));
        let signs = self.fresh();
        self.line(&format!("{signs} = arith.xori {r}, {y} : i64"));
        let differ = self.fresh();
        self.line(&format!("{differ} = arith.cmpi slt, {signs}, {zero} : i64"));
        let adjust = self.fresh();
        self.line(&format!("{adjust} = arith.andi {r_nonzero}, {differ} : i1"));
        let result = self.fresh();
        if remainder {
            let r_plus = self.fresh();
            self.line(&format!("{r_plus} = arith.addi {r}, {y} : i64"));
            let adjusted = self.fresh();
            self.line(&format!(
                "{adjusted} = arith.select {adjust}, {r_plus}, {r} : i64"
            ));
            // x % -1 is 0.
            self.line(&format!(
                "{result} = arith.select {is_minus_one}, {zero}, {adjusted} : i64"
            ));
        } else {
            let q = self.fresh();
            self.line(&format!("{q} = arith.divsi {x}, {d} : i64"));
            let step = self.fresh();
            self.line(&format!("{step} = arith.extui {adjust} : i1 to i64"));
            let floor = self.fresh();
            self.line(&format!("{floor} = arith.subi {q}, {step} : i64"));
            // x // -1 is -x, wrapping at i64::MIN.
            let negated = self.fresh();
            self.line(&format!("{negated} = arith.subi {zero}, {x} : i64"));
            self.line(&format!(
                "{result} = arith.select {is_minus_one}, {negated}, {floor} : i64"
            ));
        }
        Ok(result)
    }

    fn as_f64(&mut self, s: &str, repr: Repr) -> String {
        if repr == Repr::F64 {
            return s.to_string();
        }
        let f = self.fresh();
        self.line(&format!("{f} = arith.sitofp {s} : i64 to f64"));
        f
    }

    fn emit_if(&mut self, n: Node) -> Result<(), CodegenError> {
        let g = self.g;
        let cond = self.scalar(g.input(n, 0))?;
        let outputs = g.node_outputs(n).to_vec();
        let mut result_types = Vec::new();
        for &v in &outputs {
            match Repr::of(g.ty(v)) {
                Repr::Boxed => {
                    let r = self.new_reg();
                    self.regs.insert(v, r);
                }
                repr => result_types.push(repr.mlir()),
            }
        }
        let result = self.fresh();
        let head = if result_types.is_empty() {
            format!("scf.if {cond} {{")
        } else {
            format!(
                "{result}{} = scf.if {cond} -> ({}) {{",
                arity(result_types.len()),
                result_types.join(", ")
            )
        };
        self.line(&head);
        let blocks = g.node_blocks(n).to_vec();
        for (i, &b) in blocks.iter().enumerate() {
            if i == 1 {
                self.line("} else {");
            }
            self.indent += 1;
            let plan = self.emit_block(b)?;
            let returned = g.block_outputs(b).to_vec();
            let mut yields = Vec::new();
            for (j, (&v, &out)) in returned.iter().zip(&outputs).enumerate() {
                if Repr::of(g.ty(out)) == Repr::Boxed {
                    let dst = self.reg(out)?;
                    self.write_back(v, dst, plan.moves_return(j, v, &returned));
                } else {
                    yields.push(self.scalar(v)?);
                }
            }
            self.emit_yield(&yields, &result_types);
            self.indent -= 1;
        }
        self.line("}");
        self.bind_results(&outputs, &result, result_types.len(), 0);
        Ok(())
    }

    fn emit_yield(&mut self, values: &[String], types: &[&str]) {
        if values.is_empty() {
            self.line("scf.yield");
        } else {
            self.line(&format!(
                "scf.yield {} : {}",
                values.join(", "),
                types.join(", ")
            ));
        }
    }

    /// Binds the scalar values among `values` to the results `first..` of `result`.
    fn bind_results(&mut self, values: &[Value], result: &str, count: usize, first: usize) {
        let mut k = first;
        for &v in values {
            if Repr::of(self.g.ty(v)) != Repr::Boxed {
                let name = if count == 1 {
                    result.to_string()
                } else {
                    format!("{result}#{k}")
                };
                self.scalars.insert(v, name);
                k += 1;
            }
        }
    }

    /// `prim::Loop(max_trip_count, initial_condition, carried...)` as an `scf.while` over the
    /// trip count, the condition and the scalar carried values; boxed carried values live in
    /// one register each (the body's parameter and the loop's output share it).
    fn emit_loop(&mut self, n: Node) -> Result<(), CodegenError> {
        let g = self.g;
        let body = g.node_blocks(n)[0];
        let max = self.scalar(g.input(n, 0))?;
        let cond = self.scalar(g.input(n, 1))?;
        let inits = g.node_inputs(n)[2..].to_vec();
        let outputs = g.node_outputs(n).to_vec();
        let params = g.block_inputs(body).to_vec();
        let zero = self.const_i64(0);
        let mut names = vec![zero, cond];
        let mut types = vec!["i64", "i1"];
        let mut carried_regs = Vec::new();
        for (i, (&init, &out)) in inits.iter().zip(&outputs).enumerate() {
            let repr = Repr::of(g.ty(out));
            if repr == Repr::Boxed {
                // Boxed by the loop's type: a scalar initial value (an `int` for an `int?`)
                // is boxed here.
                let r = self.new_reg();
                self.write_back(init, r, false);
                self.regs.insert(out, r);
                self.regs.insert(params[i + 1], r);
                carried_regs.push(r);
            } else {
                names.push(self.scalar(init)?);
                types.push(repr.mlir());
            }
        }
        let temps: Vec<i64> = carried_regs.iter().map(|_| self.new_reg()).collect();
        let result = self.fresh();
        let tag = self.next_ssa;
        let before: Vec<String> = (0..names.len()).map(|i| format!("%a{tag}_{i}")).collect();
        let after: Vec<String> = (0..names.len()).map(|i| format!("%b{tag}_{i}")).collect();
        let sig = types.join(", ");

        // The body first, into its own buffer: the condition depends on what it calls.
        let outer = std::mem::take(&mut self.body);
        let calls_before = self.op_calls;
        self.indent += 1;
        self.scalars.insert(params[0], after[0].clone());
        let mut k = 2;
        for &p in &params[1..] {
            if Repr::of(g.ty(p)) != Repr::Boxed {
                self.scalars.insert(p, after[k].clone());
                k += 1;
            }
        }
        let plan = self.emit_block(body)?;
        let returned = g.block_outputs(body).to_vec();
        let next_cond = self.scalar(returned[0])?;
        let mut yields = Vec::new();
        let mut boxed = 0;
        for (j, &v) in returned.iter().enumerate().skip(1) {
            if Repr::of(g.ty(outputs[j - 1])) == Repr::Boxed {
                // Through temporaries: a returned value may be another carried parameter.
                let moved = plan.moves_return(j, v, &returned);
                self.write_back(v, temps[boxed], moved);
                boxed += 1;
            } else {
                yields.push(self.scalar(v)?);
            }
        }
        for (&t, &r) in temps.iter().zip(&carried_regs) {
            self.rt("ember_rt_move", &[r, t]);
        }
        let one = self.const_i64(1);
        let next = self.fresh();
        self.line(&format!("{next} = arith.addi {}, {one} : i64", after[0]));
        let mut all = vec![next, next_cond];
        all.extend(yields);
        self.line(&format!("scf.yield {} : {sig}", all.join(", ")));
        let body_text = std::mem::replace(&mut self.body, outer);
        let calls_runtime = self.op_calls > calls_before;

        self.indent -= 1;
        let inits_text: Vec<String> = before
            .iter()
            .zip(&names)
            .map(|(a, v)| format!("{a} = {v}"))
            .collect();
        self.line(&format!(
            "{result}:{} = scf.while ({}) : ({sig}) -> ({sig}) {{",
            types.len(),
            inits_text.join(", ")
        ));
        self.indent += 1;
        let in_range = self.fresh();
        self.line(&format!(
            "{in_range} = arith.cmpi slt, {}, {max} : i64",
            before[0]
        ));
        let mut go = self.fresh();
        self.line(&format!("{go} = arith.andi {in_range}, {} : i1", before[1]));
        if calls_runtime {
            // A failed op ends the loop (its condition may be garbage afterwards). The flag
            // is the context's first field (aot/mod.rs): a load keeps the loop's floats in
            // registers, where a call would save them around it every iteration.
            let failed = self.fresh();
            self.line(&format!("{failed} = llvm.load %ctx : !llvm.ptr -> i32"));
            let zero32 = self.fresh();
            self.line(&format!("{zero32} = arith.constant 0 : i32"));
            let ok = self.fresh();
            self.line(&format!("{ok} = arith.cmpi eq, {failed}, {zero32} : i32"));
            let both = self.fresh();
            self.line(&format!("{both} = arith.andi {go}, {ok} : i1"));
            go = both;
        }
        self.line(&format!(
            "scf.condition({go}) {} : {sig}",
            before.join(", ")
        ));
        self.indent -= 1;
        self.line("} do {");
        let typed: Vec<String> = after
            .iter()
            .zip(&types)
            .map(|(a, t)| format!("{a}: {t}"))
            .collect();
        self.line(&format!("^bb0({}):", typed.join(", ")));
        self.body.push_str(&body_text);
        self.line("}");
        self.bind_results(&outputs, &result, types.len(), 2);
        Ok(())
    }
}

fn arity(n: usize) -> String {
    if n > 1 {
        format!(":{n}")
    } else {
        String::new()
    }
}

fn int_predicate(op: &str) -> &'static str {
    match op {
        "eq" => "eq",
        "ne" => "ne",
        "lt" => "slt",
        "le" => "sle",
        "gt" => "sgt",
        _ => "sge",
    }
}

/// Python's comparisons: false with a NaN operand, except `!=`.
fn float_predicate(op: &str) -> &'static str {
    match op {
        "eq" => "oeq",
        "ne" => "une",
        "lt" => "olt",
        "le" => "ole",
        "gt" => "ogt",
        _ => "oge",
    }
}

/// A kernel's printed module split for splicing into the method's: its attribute alias
/// definitions (`#loop_annotation = ...`, printed before the module), renamed after `name` so
/// that two kernels' aliases cannot clash, and its operations without the module.
fn kernel_text(module: &str, name: &str) -> (String, String) {
    let aliases: Vec<&str> = module
        .lines()
        .take_while(|l| !l.starts_with("module"))
        .filter_map(|l| l.strip_prefix('#')?.split_once(" =").map(|(a, _)| a))
        .collect();
    let renamed = rename_aliases(module, &aliases, name);
    let (defs, rest) = match renamed.find("\nmodule") {
        Some(at) if !aliases.is_empty() => renamed.split_at(at + 1),
        _ => ("", renamed.as_str()),
    };
    let inner = rest
        .trim()
        .split_once('{')
        .map(|(_, r)| r)
        .and_then(|r| r.strip_suffix('}'))
        .unwrap_or("");
    let mut body = inner.trim_matches('\n').to_string();
    body.push('\n');
    (defs.to_string(), body)
}

/// `text` with every alias `#a` of `aliases` written `#NAME_a`.
fn rename_aliases(text: &str, aliases: &[&str], name: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let end = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
        if aliases.contains(&&rest[..end]) {
            out.push_str(name);
            out.push('_');
        }
    }
    out.push_str(rest);
    out
}

/// Refuses constants whose value the runtime cannot make without the program's classes
/// (enum members, functions, objects).
fn check_constant(g: &Graph, n: Node) -> Result<(), CodegenError> {
    ember_runtime::ops::prim::constant_value(g, n)
        .map(|_| ())
        .map_err(|e| CodegenError::at(g, n, format!("no runtime entry point: {e}")))
}

/// Refuses nodes the runtime cannot run on their own: calls, forks, and operators the registry
/// does not have.
fn check_runtime_entry(g: &Graph, n: Node) -> Result<(), CodegenError> {
    ember_runtime::ops::registry::registry()
        .build(g, n)
        .map(|_| ())
        .map_err(|e| CodegenError::at(g, n, format!("no runtime entry point: {e}")))
}
