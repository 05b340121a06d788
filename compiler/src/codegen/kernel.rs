//! The elementwise kernel of one fusion group, as the lowerings see it: the group's subgraph
//! checked (float32 tensors of static contiguous shapes, supported ops only) and flattened into
//! a list of scalar operations over one element, with each tensor's broadcast shape.
//!
//! Everything target-independent about a fusion group is decided here, so that
//! `fusion_to_mlir` only emits and every error points at a node.

use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{Dim, ScalarType, TensorType};
use ember_dialects::{AttrValue, Graph, Node, SourceRange, Type, Value};
use hashbrown::{HashMap, HashSet};

/// Where an error is: the node's kind, its first output's name, its `# file:line:col` source
/// range, and which fusion group's subgraph it is in (`None`: the graph being compiled).
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSite {
    pub kind: String,
    pub output: Option<String>,
    pub source: Option<SourceRange>,
    pub group: Option<usize>,
}

/// Why a graph cannot be compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct CodegenError {
    pub site: Option<ErrorSite>,
    pub message: String,
}

impl CodegenError {
    /// An error at node `n` of `g`.
    pub fn at(g: &Graph, n: Node, message: impl Into<String>) -> Self {
        let site = ErrorSite {
            kind: g.kind(n).as_str().to_string(),
            output: g.node_outputs(n).first().map(|&v| g.value_name(v)),
            source: g.source_range(n).cloned(),
            group: None,
        };
        CodegenError {
            site: Some(site),
            message: message.into(),
        }
    }

    /// An error about graph input `v` of `g` (its site is the `prim::Param` output `v`).
    pub fn at_input(g: &Graph, v: Value, message: impl Into<String>) -> Self {
        let site = ErrorSite {
            kind: sym::param().as_str().to_string(),
            output: Some(g.value_name(v)),
            source: None,
            group: None,
        };
        CodegenError {
            site: Some(site),
            message: message.into(),
        }
    }

    /// A kernel description's error, located in `g` (the subgraph it was built from).
    pub fn from_kernel(g: &Graph, e: ember_runtime::kernel_launch::KernelError) -> Self {
        use ember_runtime::kernel_launch::kernel::ErrorSite as Site;
        match e.site {
            Some(Site::Node(n)) => CodegenError::at(g, n, e.message),
            Some(Site::Input(v)) => CodegenError::at_input(g, v, e.message),
            None => CodegenError::general(e.message),
        }
    }

    pub fn general(message: impl Into<String>) -> Self {
        CodegenError {
            site: None,
            message: message.into(),
        }
    }

    /// Marks the error as inside the subgraph of fusion group `group` (unless already placed).
    pub fn in_group(mut self, group: usize) -> Self {
        if let Some(site) = &mut self.site {
            site.group.get_or_insert(group);
        }
        self
    }
}

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CodegenError {}

/// A kernel argument (C ABI order: every input in group order, then every output).
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// `const float *`, contiguous, of these sizes (empty: a 0-dim tensor).
    Tensor { name: String, shape: Vec<i64> },
    /// A TorchScript `float` passed as `double`.
    Float { name: String },
    /// A TorchScript `int` passed as `int64_t`.
    Int { name: String },
}

impl KernelArg {
    pub fn name(&self) -> &str {
        match self {
            KernelArg::Tensor { name, .. }
            | KernelArg::Float { name }
            | KernelArg::Int { name } => name,
        }
    }
}

/// An operand of a scalar operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// The element of tensor argument `arg` at the current (broadcast) index.
    Load(usize),
    /// Scalar argument `arg` (`Float` or `Int`), converted to float32.
    ScalarArg(usize),
    /// A constant, converted to float32 as PyTorch converts a Scalar for a float32 tensor.
    Const(f64),
    /// The result of operation `i` of the kernel.
    Temp(usize),
}

/// One elementwise operation on float32 values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarOp {
    /// `a + alpha * b` (`alpha` is `None` when it is exactly 1, so no multiply is emitted).
    Add(Operand, Operand, Option<Operand>),
    /// `a - alpha * b`.
    Sub(Operand, Operand, Option<Operand>),
    Mul(Operand, Operand),
    Div(Operand, Operand),
    Neg(Operand),
    Exp(Operand),
    Log(Operand),
    Tanh(Operand),
    Sigmoid(Operand),
    Relu(Operand),
}

/// One kernel output: an operand (usually a `Temp`) stored into a contiguous buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelOutput {
    pub name: String,
    pub shape: Vec<i64>,
    pub value: Operand,
}

/// A fusion group as an elementwise kernel over the broadcast `iteration_shape`.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementwiseKernel {
    /// The C symbol.
    pub name: String,
    pub args: Vec<KernelArg>,
    pub ops: Vec<ScalarOp>,
    pub outputs: Vec<KernelOutput>,
    /// The broadcast of every tensor's shape: the loop nest (CPU) or the thread grid (GPU).
    pub iteration_shape: Vec<i64>,
}

impl ElementwiseKernel {
    /// Number of elements of the iteration space (threads a GPU launch needs).
    pub fn numel(&self) -> i64 {
        self.iteration_shape.iter().product()
    }
}

/// The shape of a tensor-typed value, if fully known and contiguous.
fn static_shape(g: &Graph, v: Value, overrides: &HashMap<String, Vec<i64>>) -> ShapeResult {
    if let Some(shape) = g.debug_name(v).and_then(|n| overrides.get(n)) {
        return ShapeResult::Known(shape.clone());
    }
    let Type::Tensor(t) = g.ty(v) else {
        return ShapeResult::NotTensor;
    };
    tensor_shape(t)
}

enum ShapeResult {
    Known(Vec<i64>),
    NotTensor,
    Problem(String),
}

fn tensor_shape(t: &TensorType) -> ShapeResult {
    if let Some(dt) = t.dtype {
        if dt != ScalarType::Float {
            return ShapeResult::Problem(format!("only float32 tensors are supported, not {dt:?}"));
        }
    }
    let Some(dims) = &t.sizes else {
        return ShapeResult::Problem("the shape is not known (give it with --shape)".into());
    };
    let mut shape = Vec::with_capacity(dims.len());
    for d in dims {
        match d {
            Dim::Known(n) if *n >= 0 => shape.push(*n),
            _ => {
                return ShapeResult::Problem(
                    "the shape has unknown dimensions (give it with --shape)".into(),
                )
            }
        }
    }
    if let Some(strides) = &t.strides {
        if strides.len() == shape.len() {
            let contiguous = contiguous_strides(&shape);
            for (i, (s, c)) in strides.iter().zip(&contiguous).enumerate() {
                // Strides of size-1 dimensions do not matter for the layout.
                if shape[i] > 1 && *s != Some(*c) {
                    return ShapeResult::Problem(format!(
                        "only contiguous tensors are supported (strides {:?}, expected {:?})",
                        strides.iter().map(|s| s.unwrap_or(-1)).collect::<Vec<_>>(),
                        contiguous
                    ));
                }
            }
        }
    }
    ShapeResult::Known(shape)
}

/// Row-major strides of `shape`.
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1].max(1);
    }
    strides
}

/// PyTorch's broadcasting of two shapes (aligned at the trailing dimension).
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i < rank - a.len() {
            1
        } else {
            a[i - (rank - a.len())]
        };
        let db = if i < rank - b.len() {
            1
        } else {
            b[i - (rank - b.len())]
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// Limit on elements per kernel: indices are computed in 64 bits and a GPU grid in 32-bit
/// blocks, so keep well inside both.
const MAX_NUMEL: i64 = 1 << 40;

/// What a value of the subgraph is while flattening.
#[derive(Clone, Debug)]
enum Flat {
    /// A per-element float32 value of this shape.
    Tensor(Operand, Vec<i64>),
    /// A number known at compile time.
    Number(f64),
    /// A scalar argument.
    Scalar(usize),
    /// Something only an op's non-numeric parameters use (`None`).
    NoneValue,
    /// A tuple of tensors, allowed only as what the graph returns (its outputs, flattened).
    Tuple(Vec<Value>),
}

/// Builds the kernel of `subgraph`, a fusion group's graph (or a whole graph of elementwise
/// ops). `outer_inputs`, when given, are the fusion node's inputs in the enclosing graph: their
/// types, names and constants stand in for what the subgraph's parameters lack. `overrides`
/// maps input names to shapes given by the caller.
pub fn build_kernel(
    name: &str,
    subgraph: &Graph,
    outer: Option<(&Graph, Node)>,
    overrides: &HashMap<String, Vec<i64>>,
) -> Result<ElementwiseKernel, CodegenError> {
    let mut args = Vec::new();
    let mut flat: HashMap<Value, Flat> = HashMap::new();
    let mut used_names: HashSet<String> = HashSet::new();

    for (i, &p) in subgraph.inputs().iter().enumerate() {
        let outer_value = outer.map(|(g, n)| (g, g.node_inputs(n).get(i).copied()));
        // A constant fed from outside the group is still a constant.
        if let Some((g, Some(ov))) = outer_value {
            let prod = g.producer(ov);
            if g.kind(prod) == sym::constant() {
                flat.insert(p, constant_flat(g, prod)?);
                continue;
            }
        }
        let raw_name = outer_value
            .and_then(|(g, ov)| ov.and_then(|ov| g.debug_name(ov)))
            .or_else(|| subgraph.debug_name(p))
            .map(str::to_string)
            .unwrap_or_else(|| format!("in{i}"));
        let arg_name = unique_c_name(&raw_name, &mut used_names);
        let mut shape = static_shape(subgraph, p, overrides);
        if let (ShapeResult::Problem(_), Some((g, Some(ov)))) = (&shape, outer_value) {
            if let ShapeResult::Known(s) = static_shape(g, ov, overrides) {
                shape = ShapeResult::Known(s);
            }
        }
        if let Some(s) = overrides.get(&raw_name) {
            shape = ShapeResult::Known(s.clone());
        }
        let at_input = |m: String| match outer {
            Some((g, n)) => CodegenError::at(g, n, m),
            None => CodegenError::at_input(subgraph, p, m),
        };
        match (shape, subgraph.ty(p)) {
            (_, Type::Float) => {
                flat.insert(p, Flat::Scalar(args.len()));
                args.push(KernelArg::Float { name: arg_name });
            }
            (_, Type::Int) => {
                flat.insert(p, Flat::Scalar(args.len()));
                args.push(KernelArg::Int { name: arg_name });
            }
            (ShapeResult::Known(shape), _) => {
                check_numel(&shape).map_err(|m| at_input(format!("input '{raw_name}': {m}")))?;
                flat.insert(p, Flat::Tensor(Operand::Load(args.len()), shape.clone()));
                args.push(KernelArg::Tensor { name: arg_name, shape });
            }
            (ShapeResult::Problem(m), _) => {
                return Err(at_input(format!("input '{raw_name}': {m}")))
            }
            (ShapeResult::NotTensor, t) => {
                return Err(at_input(format!("input '{raw_name}' has type {t}; only float32 tensors, int and float are supported"),
                ))
            }
        }
    }

    let mut ops = Vec::new();
    for n in subgraph.block_nodes(subgraph.block()) {
        let kind = subgraph.kind(n);
        if kind == sym::constant() {
            let v = subgraph.output(n, 0);
            flat.insert(v, constant_flat(subgraph, n)?);
            continue;
        }
        if kind == sym::tuple_construct() && subgraph.node_outputs(n).len() == 1 {
            // A function with several results returns a tuple; its items become outputs.
            let items = subgraph.node_inputs(n).to_vec();
            flat.insert(subgraph.output(n, 0), Flat::Tuple(items));
            continue;
        }
        let inputs: Vec<Flat> = subgraph
            .node_inputs(n)
            .iter()
            .map(|v| {
                flat.get(v)
                    .cloned()
                    .ok_or_else(|| CodegenError::at(subgraph, n, "input defined outside the group"))
            })
            .collect::<Result<_, _>>()?;
        let op = lower_node(subgraph, n, kind, &inputs)?;
        let shape = result_shape(subgraph, n, &inputs)?;
        check_numel(&shape).map_err(|m| CodegenError::at(subgraph, n, m))?;
        if let Type::Tensor(t) = subgraph.ty(subgraph.output(n, 0)) {
            if let ShapeResult::Known(declared) = tensor_shape(t) {
                if declared != shape {
                    return Err(CodegenError::at(
                        subgraph,
                        n,
                        format!("{kind}: the result type says shape {declared:?} but broadcasting gives {shape:?}"),
                    ));
                }
            }
        }
        flat.insert(
            subgraph.output(n, 0),
            Flat::Tensor(Operand::Temp(ops.len()), shape),
        );
        ops.push(op);
    }

    let mut outputs = Vec::new();
    let mut iteration_shape: Vec<i64> = Vec::new();
    for a in &args {
        if let KernelArg::Tensor { shape, .. } = a {
            iteration_shape = broadcast_shapes(&iteration_shape, shape).unwrap_or(iteration_shape);
        }
    }
    let ret = subgraph.return_node(subgraph.block());
    let mut returned = Vec::new();
    for &v in subgraph.outputs() {
        match flat.get(&v) {
            Some(Flat::Tuple(items)) => returned.extend(items.iter().copied()),
            _ => returned.push(v),
        }
    }
    for (i, &v) in returned.iter().enumerate() {
        let (value, shape) = match flat.get(&v) {
            Some(Flat::Tensor(op, shape)) => (*op, shape.clone()),
            _ => {
                return Err(CodegenError::at(
                    subgraph,
                    ret,
                    format!("output {i} is not a float32 tensor"),
                ))
            }
        };
        let raw = outer
            .and_then(|(g, n)| g.node_outputs(n).get(i).and_then(|&o| g.debug_name(o)))
            .map(|s| format!("out_{s}"))
            .unwrap_or_else(|| format!("out{i}"));
        let name = unique_c_name(&raw, &mut used_names);
        iteration_shape = broadcast_shapes(&iteration_shape, &shape).ok_or_else(|| {
            CodegenError::at(
                subgraph,
                ret,
                "outputs of shapes that do not broadcast together",
            )
        })?;
        outputs.push(KernelOutput { name, shape, value });
    }
    if outputs.is_empty() {
        return Err(CodegenError::at(subgraph, ret, "the group has no outputs"));
    }
    // Every tensor must broadcast to the iteration space (inputs that only broadcast with
    // each other but not to an output were rejected by result_shape already).
    for a in &args {
        if let KernelArg::Tensor { name, shape } = a {
            if broadcast_shapes(shape, &iteration_shape).as_deref() != Some(&iteration_shape[..]) {
                return Err(CodegenError::general(format!(
                    "input '{name}' of shape {shape:?} does not broadcast to {iteration_shape:?}"
                )));
            }
        }
    }
    Ok(ElementwiseKernel {
        name: name.to_string(),
        args,
        ops,
        outputs,
        iteration_shape,
    })
}

fn check_numel(shape: &[i64]) -> Result<(), String> {
    let mut n: i64 = 1;
    for &d in shape {
        n = n
            .checked_mul(d)
            .filter(|&n| n <= MAX_NUMEL)
            .ok_or("tensor is too large")?;
    }
    Ok(())
}

/// C keywords (C11 and C++), which a TorchScript name such as `%float` or `%new` may spell.
const C_KEYWORDS: &[&str] = &[
    "auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete",
    "do", "double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline",
    "int", "long", "new", "operator", "private", "public", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "true",
    "typedef", "union", "unsigned", "void", "volatile", "while",
];

/// A C identifier from a TorchScript value name (`x.1` -> `x_1`), unique within the kernel.
fn unique_c_name(raw: &str, taken: &mut HashSet<String>) -> String {
    let mut base: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, 'v');
    }
    if C_KEYWORDS.contains(&base.as_str()) {
        base.push('_');
    }
    let mut name = base.clone();
    let mut n = 1;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

fn constant_flat(g: &Graph, n: Node) -> Result<Flat, CodegenError> {
    let value = g.attr(n, sym::attr_value());
    let number = match value {
        None => return Ok(Flat::NoneValue),
        Some(AttrValue::Int(i)) => *i as f64,
        Some(AttrValue::Float(f)) => *f,
        Some(AttrValue::IValue(ConstValue::Int(i))) => *i as f64,
        Some(AttrValue::IValue(ConstValue::Float(f))) => *f,
        Some(AttrValue::IValue(ConstValue::Bool(b))) => *b as i64 as f64,
        Some(AttrValue::IValue(ConstValue::None)) => return Ok(Flat::NoneValue),
        Some(_) => {
            return Err(CodegenError::at(
                g,
                n,
                "prim::Constant: only int, float, bool and None constants are supported in a fused kernel",
            ))
        }
    };
    Ok(Flat::Number(number))
}

/// The value of a scalar parameter such as `alpha`: `None` when it is the constant 1.
fn alpha_operand(g: &Graph, n: Node, f: &Flat) -> Result<Option<Operand>, CodegenError> {
    match f {
        Flat::Number(x) if *x == 1.0 => Ok(None),
        Flat::Number(x) => Ok(Some(Operand::Const(*x))),
        Flat::Scalar(a) => Ok(Some(Operand::ScalarArg(*a))),
        _ => Err(CodegenError::at(
            g,
            n,
            "alpha must be an int or float scalar",
        )),
    }
}

fn operand(g: &Graph, n: Node, f: &Flat) -> Result<Operand, CodegenError> {
    match f {
        Flat::Tensor(op, _) => Ok(*op),
        Flat::Number(x) => Ok(Operand::Const(*x)),
        Flat::Scalar(a) => Ok(Operand::ScalarArg(*a)),
        Flat::NoneValue => Err(CodegenError::at(g, n, "None is not a number")),
        Flat::Tuple(_) => Err(CodegenError::at(g, n, "a tuple is not a number")),
    }
}

fn lower_node(g: &Graph, n: Node, kind: Symbol, inputs: &[Flat]) -> Result<ScalarOp, CodegenError> {
    let name = kind.as_str();
    let arity = |want: usize| -> Result<(), CodegenError> {
        if inputs.len() == want && g.node_outputs(n).len() == 1 {
            Ok(())
        } else {
            Err(CodegenError::at(
                g,
                n,
                format!(
                    "{name}: expected {want} inputs and 1 output, found {} and {}",
                    inputs.len(),
                    g.node_outputs(n).len()
                ),
            ))
        }
    };
    let first_is_tensor = || -> Result<(), CodegenError> {
        match inputs.first() {
            Some(Flat::Tensor(..)) => Ok(()),
            _ => Err(CodegenError::at(
                g,
                n,
                format!("{name}: the first operand must be a float32 tensor"),
            )),
        }
    };
    let op = match name {
        "aten::add" | "aten::sub" => {
            arity(3)?;
            first_is_tensor()?;
            let (a, b) = (operand(g, n, &inputs[0])?, operand(g, n, &inputs[1])?);
            let alpha = alpha_operand(g, n, &inputs[2])?;
            if name == "aten::add" {
                ScalarOp::Add(a, b, alpha)
            } else {
                ScalarOp::Sub(a, b, alpha)
            }
        }
        "aten::mul" | "aten::div" => {
            arity(2)?;
            first_is_tensor()?;
            let (a, b) = (operand(g, n, &inputs[0])?, operand(g, n, &inputs[1])?);
            if name == "aten::mul" {
                ScalarOp::Mul(a, b)
            } else {
                ScalarOp::Div(a, b)
            }
        }
        "aten::neg" | "aten::exp" | "aten::log" | "aten::tanh" | "aten::sigmoid" | "aten::relu" => {
            arity(1)?;
            first_is_tensor()?;
            let a = operand(g, n, &inputs[0])?;
            match name {
                "aten::neg" => ScalarOp::Neg(a),
                "aten::exp" => ScalarOp::Exp(a),
                "aten::log" => ScalarOp::Log(a),
                "aten::tanh" => ScalarOp::Tanh(a),
                "aten::sigmoid" => ScalarOp::Sigmoid(a),
                _ => ScalarOp::Relu(a),
            }
        }
        _ => {
            return Err(CodegenError::at(
                g,
                n,
                format!("unsupported operation in a fused kernel: {name}"),
            ));
        }
    };
    Ok(op)
}

/// The broadcast shape of a node's tensor operands.
fn result_shape(g: &Graph, n: Node, inputs: &[Flat]) -> Result<Vec<i64>, CodegenError> {
    let mut shape: Vec<i64> = Vec::new();
    let mut first = true;
    for f in inputs {
        if let Flat::Tensor(_, s) = f {
            shape = if first {
                s.clone()
            } else {
                broadcast_shapes(&shape, s).ok_or_else(|| {
                    CodegenError::at(
                        g,
                        n,
                        format!("shapes {shape:?} and {s:?} cannot be broadcast together"),
                    )
                })?
            };
            first = false;
        }
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_pytorch() {
        type Case<'a> = (&'a [i64], &'a [i64], Option<&'a [i64]>);
        let cases: &[Case] = &[
            (&[2, 3], &[3], Some(&[2, 3])),
            (&[2, 1], &[1, 3], Some(&[2, 3])),
            (&[], &[4], Some(&[4])),
            (&[2, 3], &[2], None),
            (&[0, 3], &[1, 3], Some(&[0, 3])),
        ];
        for (a, b, want) in cases {
            assert_eq!(broadcast_shapes(a, b).as_deref(), *want, "{a:?} with {b:?}");
        }
    }

    #[test]
    fn c_names_are_identifiers_and_unique() {
        let mut taken = HashSet::new();
        let names: Vec<String> = ["x.1", "x_1", "x.1", "float", "0", ""]
            .iter()
            .map(|raw| unique_c_name(raw, &mut taken))
            .collect();
        assert_eq!(names, ["x_1", "x_1_1", "x_1_2", "float_", "v0", "v"]);
    }

    #[test]
    fn contiguous_strides_are_row_major() {
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[]), Vec::<i64>::new());
    }
}
