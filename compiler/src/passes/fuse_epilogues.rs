//! `fuse-epilogues`: a convolution or linear layer followed by a residual add and an
//! activation becomes one `ember::conv2d_fused` / `conv1d_fused` / `linear_fused`, which
//! applies them to each tile of the result while it is in cache instead of in extra passes
//! over memory (dialects/data/ember_schemas.txt).
//!
//! From the layer, following its result while it has one use:
//! - a residual: `aten::add(y, r, 1)` or `aten::add(r, y, 1)`, or the residual block's
//!   `y.add_(r, 1)` (the fused op then adds in place: `y` keeps its shape and dtype);
//! - then an activation: `relu`, `hardtanh`/`clamp` with constant bounds (`relu6`), `hardswish`,
//!   `hardsigmoid`, `silu`, `sigmoid`, `tanh`, `gelu` (erf form), in place or not (on a value
//!   nothing else uses, in place or not is the same).
//!
//! Before a 2-d convolution in one group, it also takes the `aten::mul(x, s)` that feeds it
//! alone as `input_scale` (a squeeze-and-excitation block's per-channel scale): the kernel
//! folds `s` into the weights where that is less work than a pass over `x`, and otherwise
//! multiplies as the mul did.
//!
//! The fused node takes the place of the last op it absorbs; the layer's inputs (and the
//! mul's) must not be written in between (alias analysis), since the layer now runs there.

use ember_dialects::attr::ConstValue;
use ember_dialects::{Graph, Node, Symbol, Type, Value};

use super::{LogLevel, PassContext};
use crate::analysis::alias::AliasDb;
use crate::fold::weights::constant_tensor;
use crate::fold::{constant_value, insert_constant_before};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut db = AliasDb::new(g);
    let mut changed = false;
    for base in g.nodes() {
        if !g.is_alive(base) {
            continue;
        }
        let Some(fused_kind) = fused_kind(g, base) else {
            continue;
        };
        let Some(mut plan) = plan(g, base) else {
            continue;
        };
        if fused_kind == "ember::conv2d_fused" {
            plan.scale =
                input_scale(g, base).filter(|s| inputs_unwritten_until(g, &db, s.mul, plan.last()));
        }
        let nothing = plan.absorbed.is_empty() && plan.scale.is_none();
        if nothing || !inputs_unwritten_until(g, &db, base, plan.last()) {
            continue;
        }
        if !cx.may_rewrite() {
            break;
        }
        cx.log(LogLevel::Update, || {
            let ops: Vec<String> = plan
                .scale
                .iter()
                .map(|s| format!("{} (input scale)", g.kind(s.mul)))
                .chain(plan.absorbed.iter().map(|&n| g.kind(n).to_string()))
                .collect();
            format!("fused {} with {}", g.kind(base), ops.join(", "))
        });
        let last_out = g.output(plan.last(), 0);
        let fused_out = rewrite(g, base, fused_kind, &plan);
        // The fused result is the memory the last absorbed op returned: a later layer that
        // reads it is then known not to be written (a value the db has not seen may be
        // anything, which kept every second convolution of a residual block unfused).
        db.value_took_over(last_out, fused_out);
        changed = true;
    }
    Ok(changed)
}

/// The fused op of a layer this pass handles.
fn fused_kind(g: &Graph, n: Node) -> Option<&'static str> {
    let inputs = g.node_inputs(n);
    match g.kind(n).as_str() {
        // A traced convolution, `_convolution(input, weight, bias, stride, padding, dilation,
        // transposed, output_padding, groups, benchmark, deterministic, cudnn_enabled,
        // allow_tf32)`: not transposed, it is conv1d/conv2d by the weight's rank.
        "aten::_convolution" if inputs.len() == 13 && is_int_list(g, inputs[4]) => {
            let plain = matches!(constant_value(g, inputs[6]), Some(ConstValue::Bool(false)));
            let no_output_padding = matches!(constant_value(g, inputs[7]),
                Some(ConstValue::List(p)) if p.iter().all(|x| *x == ConstValue::Int(0)));
            if !plain || !no_output_padding {
                return None;
            }
            match constant_tensor(g, inputs[1])?.dim() {
                3 => Some("ember::conv1d_fused"),
                4 => Some("ember::conv2d_fused"),
                _ => None,
            }
        }
        // conv(input, weight, bias, stride, padding, dilation, groups), padding a list.
        "aten::conv2d" if inputs.len() == 7 && is_int_list(g, inputs[4]) => {
            Some("ember::conv2d_fused")
        }
        "aten::conv1d" if inputs.len() == 7 && is_int_list(g, inputs[4]) => {
            Some("ember::conv1d_fused")
        }
        "aten::linear" if inputs.len() == 3 => Some("ember::linear_fused"),
        _ => None,
    }
}

fn is_int_list(g: &Graph, v: Value) -> bool {
    matches!(g.ty(v), Type::List(e) if **e == Type::Int)
}

/// What the fused op takes on.
struct Plan {
    /// The layer.
    base: Node,
    residual: Option<Value>,
    in_place: bool,
    activation: &'static str,
    min: Option<f64>,
    max: Option<f64>,
    /// The ops absorbed after the layer, in order; the last one's result is the fused op's.
    absorbed: Vec<Node>,
    /// The mul before the layer that becomes its input scale.
    scale: Option<InputScale>,
}

impl Plan {
    /// Where the fused op runs: the last op absorbed, else the layer.
    fn last(&self) -> Node {
        self.absorbed.last().copied().unwrap_or(self.base)
    }
}

/// `input = aten::mul(x, s)` feeding only the layer: the fused op takes `x` and `s`.
struct InputScale {
    mul: Node,
    x: Value,
    s: Value,
}

/// The single user of `v` in `v`'s block, if `v` has exactly one use.
fn only_user(g: &Graph, v: Value) -> Option<Node> {
    let uses = g.uses(v);
    (uses.len() == 1 && g.owning_block(uses[0].user) == g.owning_block(g.producer(v)))
        .then(|| uses[0].user)
}

fn plan(g: &Graph, base: Node) -> Option<Plan> {
    let mut plan = Plan {
        base,
        residual: None,
        in_place: false,
        activation: "none",
        min: None,
        max: None,
        absorbed: Vec::new(),
        scale: None,
    };
    let mut y = g.output(base, 0);
    if let Some(user) = only_user(g, y) {
        if let Some((r, in_place)) = residual(g, user, y) {
            plan.residual = Some(r);
            plan.in_place = in_place;
            plan.absorbed.push(user);
            y = g.output(user, 0);
        }
    }
    if let Some(user) = only_user(g, y) {
        if let Some((name, min, max)) = activation(g, user, y) {
            plan.activation = name;
            plan.min = min;
            plan.max = max;
            plan.absorbed.push(user);
        }
    }
    Some(plan)
}

/// `y + r` (either order) or `y.add_(r)`, with alpha the constant 1: the residual and whether
/// it is added in place.
fn residual(g: &Graph, user: Node, y: Value) -> Option<(Value, bool)> {
    let inputs = g.node_inputs(user);
    if inputs.len() != 3 || g.node_outputs(user).len() != 1 {
        return None;
    }
    if !matches!(constant_value(g, inputs[2]), Some(ConstValue::Int(1))) {
        return None;
    }
    let other = if inputs[0] == y { inputs[1] } else { inputs[0] };
    if !g.ty(other).is_tensor() || other == y {
        return None;
    }
    match g.kind(user).as_str() {
        "aten::add" => Some((other, false)),
        "aten::add_" if inputs[0] == y => Some((other, true)),
        _ => None,
    }
}

/// An activation of `y` the fused ops apply: its name and clamp bounds.
fn activation(g: &Graph, user: Node, y: Value) -> Option<(&'static str, Option<f64>, Option<f64>)> {
    let inputs = g.node_inputs(user);
    if inputs.first() != Some(&y) || g.node_outputs(user).len() != 1 {
        return None;
    }
    let kind = g.kind(user);
    let name = kind.unqualified().trim_end_matches('_');
    let number = |v: Value| match constant_value(g, v)? {
        ConstValue::Float(f) => Some(Some(f)),
        ConstValue::Int(i) => Some(Some(i as f64)),
        ConstValue::None => Some(None),
        _ => None,
    };
    if !kind.is_aten() {
        return None;
    }
    Some(match (name, inputs.len()) {
        ("relu", 1) => ("relu", None, None),
        ("relu6", 1) => ("clamp", Some(0.0), Some(6.0)),
        ("hardtanh", 3) => {
            let (lo, hi) = (number(inputs[1])??, number(inputs[2])??);
            ("clamp", Some(lo), Some(hi))
        }
        ("clamp", 3) => {
            let (lo, hi) = (number(inputs[1])?, number(inputs[2])?);
            if lo.is_none() && hi.is_none() {
                return None;
            }
            ("clamp", lo, hi)
        }
        ("hardswish", 1) => ("hardswish", None, None),
        ("hardsigmoid", 1) => ("hardsigmoid", None, None),
        ("silu", 1) => ("silu", None, None),
        ("sigmoid", 1) => ("sigmoid", None, None),
        ("tanh", 1) => ("tanh", None, None),
        ("gelu", 2) => match constant_value(g, inputs[1])? {
            ConstValue::Str(s) if s == "none" => ("gelu", None, None),
            _ => return None,
        },
        _ => return None,
    })
}

/// The mul of two tensors whose result is only the input of 2-d convolution `base` (one
/// group), in `base`'s block.
fn input_scale(g: &Graph, base: Node) -> Option<InputScale> {
    let inputs = layer_inputs(g, base);
    if !matches!(constant_value(g, inputs[6]), Some(ConstValue::Int(1))) {
        return None;
    }
    let mul = g.producer(inputs[0]);
    let factors = g.node_inputs(mul);
    let tensors = factors.len() == 2 && factors.iter().all(|&v| g.ty(v).is_tensor());
    if g.kind(mul).as_str() != "aten::mul" || !tensors || only_user(g, inputs[0]) != Some(base) {
        return None;
    }
    Some(InputScale {
        mul,
        x: factors[0],
        s: factors[1],
    })
}

/// Whether no node from `base` up to `last` (same block) writes to what `base` reads: the
/// layer may then run at `last`.
fn inputs_unwritten_until(g: &Graph, db: &AliasDb, base: Node, last: Node) -> bool {
    if base == last {
        return true;
    }
    let inputs = g.node_inputs(base).to_vec();
    let mut n = g.next_node(base);
    while let Some(m) = n {
        if m == last {
            return true;
        }
        if db.writes_to_alias(g, m, &inputs) {
            return false;
        }
        n = g.next_node(m);
    }
    false
}

/// The layer's inputs as the fused ops take them: `(input, weight, bias, stride, padding,
/// dilation, groups)` or linear's `(input, weight, bias)`.
fn layer_inputs(g: &Graph, base: Node) -> Vec<Value> {
    let inputs = g.node_inputs(base);
    if g.kind(base).as_str() == "aten::_convolution" {
        let mut v = inputs[..6].to_vec();
        v.push(inputs[8]);
        v
    } else {
        inputs.to_vec()
    }
}

/// Replaces `base` and the ops `plan` absorbs by one fused node; returns its result.
fn rewrite(g: &mut Graph, base: Node, kind: &str, plan: &Plan) -> Value {
    let last = plan.last();
    let mut inputs = layer_inputs(g, base);
    // A None constant typed as the argument it stands for.
    let none = |g: &mut Graph, ty: Type| {
        let v = insert_constant_before(g, last, &ConstValue::None, &Type::None).expect("None");
        g.set_ty(v, ty);
        v
    };
    let residual = match plan.residual {
        Some(r) => r,
        None => none(g, Type::None),
    };
    inputs.push(residual);
    let act = insert_constant_before(
        g,
        last,
        &ConstValue::Str(plan.activation.into()),
        &Type::Str,
    )
    .expect("a string constant");
    inputs.push(act);
    for bound in [plan.min, plan.max] {
        let v = match bound {
            Some(b) => insert_constant_before(g, last, &ConstValue::Float(b), &Type::Float)
                .expect("a float constant"),
            None => none(g, Type::optional(Type::Float)),
        };
        inputs.push(v);
    }
    let flag = insert_constant_before(g, last, &ConstValue::Bool(plan.in_place), &Type::Bool)
        .expect("a bool constant");
    inputs.push(flag);
    if kind == "ember::conv2d_fused" {
        let scale = match &plan.scale {
            Some(scale) => {
                inputs[0] = scale.x;
                scale.s
            }
            None => none(g, Type::optional(Type::tensor())),
        };
        inputs.push(scale);
    }
    let fused = g.create(Symbol::new(kind), &inputs, 1);
    g.insert_before(fused, last);
    let out = g.output(fused, 0);
    let last_out = g.output(last, 0);
    g.set_ty(out, g.ty(last_out).clone());
    g.copy_metadata(out, last_out);
    g.set_source_range(fused, g.source_range(base).cloned());
    g.replace_all_uses_with(last_out, out);
    for &n in plan.absorbed.iter().rev() {
        g.destroy(n);
    }
    g.destroy(base);
    if let Some(scale) = &plan.scale {
        g.destroy(scale.mul);
    }
    out
}
