//! `unroll-constant-loops`: PyTorch's `UnrollConstantLoops`, which its profiling executor runs
//! before the TensorExpr fuser so that the fuser sees chains across iterations. A `for` loop
//! (`prim::Loop` whose start and continue conditions are the constant true) with a constant
//! trip count under [`MAX_BODY_REPEATS`] is replaced by that many copies of its body, each with
//! its iteration's counter as a constant; a longer one runs [`UNROLL_FACTOR`] copies of its
//! body per trip, followed by an epilogue loop for the trips left over. Inner loops are
//! unrolled first.

use hashbrown::HashMap;

use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use super::{LogLevel, PassContext};
use crate::fold::{constant_bool, constant_int, insert_constant_before};

/// PyTorch's `kMaxBodyRepeats`: loops of fewer trips are unrolled entirely.
pub const MAX_BODY_REPEATS: i64 = 64;

/// PyTorch's `kUnrollFactor`: copies of the body per trip of a longer loop.
pub const UNROLL_FACTOR: i64 = 8;

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let top = g.block();
    let changed = unroll_block(g, top, cx);
    if changed {
        super::dce::run(g, &mut PassContext::unlimited("dce"))?;
    }
    Ok(changed)
}

/// Unrolls the loops of `b`, those nested in its nodes first.
fn unroll_block(g: &mut Graph, b: Block, cx: &mut PassContext) -> bool {
    let mut changed = false;
    let nodes: Vec<Node> = g.block_nodes(b).collect();
    for n in nodes {
        for inner in g.node_blocks(n).to_vec() {
            changed |= unroll_block(g, inner, cx);
        }
        let Some(trips) = constant_for_loop(g, n) else {
            continue;
        };
        if !cx.may_rewrite() {
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!("unrolled a loop of {trips} trips")
        });
        if trips < MAX_BODY_REPEATS {
            unroll(g, n, trips.max(0));
        } else {
            unroll_by_factor(g, n, trips);
        }
        changed = true;
    }
    changed
}

/// The trip count of `n` when it is a `for` loop with a constant one.
fn constant_for_loop(g: &Graph, n: Node) -> Option<i64> {
    if g.kind(n) != sym::loop_() || g.node_inputs(n).len() < 2 {
        return None;
    }
    let body = *g.node_blocks(n).first()?;
    let continues = *g.block_outputs(body).first()?;
    let is_for =
        constant_bool(g, g.input(n, 1)) == Some(true) && constant_bool(g, continues) == Some(true);
    is_for.then(|| constant_int(g, g.input(n, 0))).flatten()
}

/// Replaces loop `n` by `trips` copies of its body.
fn unroll(g: &mut Graph, n: Node, trips: i64) {
    let body = g.node_blocks(n)[0];
    let counter = g.block_inputs(body)[0];
    let mut carried: Vec<Value> = g.node_inputs(n)[2..].to_vec();
    for i in 0..trips {
        let mut map: HashMap<Value, Value> = HashMap::new();
        if !g.uses(counter).is_empty() {
            let c = insert_constant_before(g, n, &ConstValue::Int(i), &Type::Int)
                .expect("an int constant");
            map.insert(counter, c);
        }
        for (&input, &value) in g.block_inputs(body)[1..].iter().zip(&carried) {
            map.insert(input, value);
        }
        let nodes: Vec<Node> = g.block_nodes(body).collect();
        carried = copy_body(g, body, &nodes, &mut map, n);
    }
    for (out, value) in g.node_outputs(n).to_vec().into_iter().zip(carried) {
        g.replace_all_uses_with(out, value);
    }
    g.destroy(n);
}

/// Makes loop `n` of `trips` trips run [`UNROLL_FACTOR`] copies of its body per trip, with an
/// epilogue loop after it for the trips left over.
fn unroll_by_factor(g: &mut Graph, n: Node, trips: i64) {
    let main_trips = trips / UNROLL_FACTOR;
    let int = |g: &mut Graph, i: i64| {
        insert_constant_before(g, n, &ConstValue::Int(i), &Type::Int).expect("an int constant")
    };
    // The epilogue: a copy of the loop, carrying on from the values the unrolled loop ends
    // with, its counter continuing from the unrolled loop's.
    let epilogue = g.clone_node(n, &mut HashMap::new());
    g.insert_after(epilogue, n);
    for (k, out) in g.node_outputs(n).to_vec().into_iter().enumerate() {
        let continued = g.output(epilogue, k);
        g.replace_all_uses_with(out, continued);
        g.replace_input(epilogue, 2 + k, out);
    }
    let rest = int(g, trips - main_trips * UNROLL_FACTOR);
    g.replace_input(epilogue, 0, rest);
    let start = int(g, main_trips * UNROLL_FACTOR);
    let epilogue_body = g.node_blocks(epilogue)[0];
    offset_counter(g, epilogue_body, Symbol::aten("add"), start);

    let main = int(g, main_trips);
    g.replace_input(n, 0, main);
    let body = g.node_blocks(n)[0];
    let original: Vec<Node> = g.block_nodes(body).collect();
    let factor = int(g, UNROLL_FACTOR);
    // Copy 0 is the body itself, its counter scaled; copy j counts from there plus j.
    let scaled = offset_counter(g, body, Symbol::aten("mul"), factor);
    let ret = g.return_node(body);
    let mut carried: Vec<Value> = g.block_outputs(body)[1..].to_vec();
    for j in 1..UNROLL_FACTOR {
        let mut map: HashMap<Value, Value> = HashMap::new();
        if let Some(scaled) = scaled {
            let offset = int(g, j);
            let add = int_op(g, Symbol::aten("add"), scaled, offset);
            g.insert_before(g.producer(add), ret);
            map.insert(scaled, add);
        }
        for (&input, &value) in g.block_inputs(body)[1..].iter().zip(&carried) {
            map.insert(input, value);
        }
        carried = copy_body(g, body, &original, &mut map, ret);
    }
    for (k, v) in carried.into_iter().enumerate() {
        g.replace_input(ret, 1 + k, v);
    }
}

/// Copies `nodes` of loop body `body` before `before`, their inputs mapped through `map`; the
/// values the copy carries on (the body's outputs after its continue condition).
fn copy_body(
    g: &mut Graph,
    body: Block,
    nodes: &[Node],
    map: &mut HashMap<Value, Value>,
    before: Node,
) -> Vec<Value> {
    for &m in nodes {
        let copy = g.clone_node(m, map);
        g.insert_before(copy, before);
    }
    g.block_outputs(body)[1..]
        .iter()
        .map(|v| *map.get(v).unwrap_or(v))
        .collect()
}

/// In loop body `body`, replaces the uses of the counter by `op(counter, by)`, computed first
/// in the body; that value, or `None` when the counter is unused.
fn offset_counter(g: &mut Graph, body: Block, op: Symbol, by: Value) -> Option<Value> {
    let counter = g.block_inputs(body)[0];
    let uses = g.uses(counter).to_vec();
    if uses.is_empty() {
        return None;
    }
    let v = int_op(g, op, counter, by);
    match g.first_node(body) {
        Some(first) => g.insert_before(g.producer(v), first),
        None => g.insert_before(g.producer(v), g.return_node(body)),
    }
    for u in uses {
        g.replace_input(u.user, u.offset, v);
    }
    Some(v)
}

/// A free node `op(a, b)` of two ints, and its int output.
fn int_op(g: &mut Graph, op: Symbol, a: Value, b: Value) -> Value {
    let n = g.create(op, &[a, b], 1);
    let out = g.output(n, 0);
    g.set_ty(out, Type::Int);
    out
}
