//! Alias analysis: which values may share memory, and which nodes write to what. The only
//! effect analysis of the compiler, after PyTorch's `AliasDb` (`ir/alias_analysis.cpp`, the
//! seeds' "Handling Mutability").
//!
//! Every value of a mutable type (see [`types`]) gets an element of a memory graph
//! ([`memory`]). The analysis walks the graph once, in order, and for each node:
//! - ops with a schema follow its alias annotations: `Tensor(a)` outputs point to the input
//!   bound to `a`, `(a!)` registers a write, `(a -> *)` puts the input into the wildcard set,
//!   `t(*)` outputs are wildcards, and unannotated outputs are fresh;
//! - control flow: `prim::If` outputs point to both branches' outputs; loop-carried values
//!   point to the loop's inputs and to the body's outputs;
//! - containers: a list, tuple or dict built from values contains them, and the values enter
//!   the wildcard set of their type (anything taken out of a container later may be them),
//!   unless the container is only read once by an op that keeps nothing of it (`cat`);
//!   taking values out (`TupleUnpack`, `ListUnpack`, `GetAttr`, …) gives wildcards;
//! - what escapes analysis (graph inputs, calls, forks, unknown ops, attribute stores) enters
//!   the wildcard sets; calls and unknown ops may write to everything they are given.
//!
//! The wildcard set of a type stands for every value of that type the analysis cannot
//! follow, so two wildcards of one type may alias, and a write to one is a write to all.
//!
//! The db describes the graph as it was when built: passes that create values or change
//! which values a node uses build a new one. Values the db does not know are treated as
//! aliasing anything of a mutable type.

pub mod memory;
pub mod moves;
pub mod print;
pub mod side_effects;
pub mod types;

use hashbrown::{HashMap, HashSet};
use indexmap::IndexMap;

use ember_dialects::attr::AttrValue;
use ember_dialects::catalogue::resolve_node;
use ember_dialects::schema::{AliasInfo, FunctionSchema};
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value, ValueDef};

use memory::{Elem, LocSet, MemoryGraph};
pub use side_effects::{has_side_effects, is_known_op, is_nondeterministic, own_side_effects};
pub use types::is_mutable_type;

use crate::fold::constant_bool;

/// Alias and write facts of one graph.
pub struct AliasDb {
    memory: MemoryGraph,
    /// The element of each value of a mutable type.
    elements: HashMap<Value, Elem>,
    /// The wildcard element of each alias type, by its printed type.
    wildcards: IndexMap<String, Elem>,
    /// Values put in a wildcard set, in the order they were.
    wildcard_values: IndexMap<Value, Elem>,
    /// What each node writes (its own writes; [`AliasDb::writes`] adds its blocks').
    node_writes: HashMap<Node, LocSet>,
    /// Everything any node writes.
    written: LocSet,
    frozen: bool,
    /// Values with ids from here on were made after the db.
    built_values: u32,
}

/// Writes registered while the graph is analyzed, resolved to locations at the end.
#[derive(Default)]
struct PendingWrites {
    /// A node writes to a value.
    direct: Vec<(Node, Value)>,
    /// A node writes to a value and everything it contains (calls, unknown ops).
    contained: Vec<(Node, Value)>,
    /// A node writes to every wildcard (`aten::wait`: a fork may have written anything).
    all_wildcards: Vec<Node>,
}

impl AliasDb {
    /// Analyzes `g`. Its inputs are wildcards: the caller may hold aliases of them.
    pub fn new(g: &Graph) -> AliasDb {
        AliasDb::build(g, false)
    }

    /// Analyzes a frozen graph: attributes read from modules are constants of their own
    /// (PyTorch's `isFrozen`), not values anyone else may hold.
    pub fn frozen(g: &Graph) -> AliasDb {
        AliasDb::build(g, true)
    }

    fn build(g: &Graph, frozen: bool) -> AliasDb {
        let mut db = AliasDb {
            memory: MemoryGraph::default(),
            elements: HashMap::new(),
            wildcards: IndexMap::new(),
            wildcard_values: IndexMap::new(),
            node_writes: HashMap::new(),
            written: LocSet::new(),
            frozen,
            built_values: g.value_capacity() as u32,
        };
        let mut writes = PendingWrites::default();
        for &v in g.inputs() {
            db.set_wildcard(g, v);
        }
        db.analyze_block(g, g.block(), &mut writes);
        db.cover_unanalyzed(g, g.block());
        let pairs: Vec<(Elem, Elem)> = db
            .wildcard_values
            .iter()
            .map(|(v, &w)| (db.elements[v], w))
            .collect();
        db.memory.finish(&pairs);
        db.resolve_writes(writes);
        db
    }

    fn resolve_writes(&mut self, writes: PendingWrites) {
        for (n, v) in writes.direct {
            let locs = self.memory.locations(self.elements[&v]).clone();
            self.node_writes.entry(n).or_default().union_with(&locs);
        }
        for (n, v) in writes.contained {
            let mut locs = LocSet::new();
            self.memory.collect_contained(self.elements[&v], &mut locs);
            self.node_writes.entry(n).or_default().union_with(&locs);
        }
        let all: Vec<Elem> = self.wildcards.values().copied().collect();
        for n in writes.all_wildcards {
            let set = self.node_writes.entry(n).or_default();
            for &w in &all {
                set.insert(w);
            }
        }
        let mut written = LocSet::new();
        for set in self.node_writes.values() {
            written.union_with(set);
        }
        self.written = written;
    }

    // ---- Building ------------------------------------------------------------------------

    /// Gives every value of a mutable type that no rule reached a wildcard (PyTorch's lint
    /// asserts there is none; here it is the safe answer).
    fn cover_unanalyzed(&mut self, g: &Graph, b: Block) {
        for v in g.block_inputs(b).to_vec() {
            if self.is_mutable(g, v) && !self.elements.contains_key(&v) {
                self.set_wildcard(g, v);
            }
        }
        for n in g.block_nodes(b) {
            for &v in g.node_outputs(n) {
                if self.is_mutable(g, v) && !self.elements.contains_key(&v) {
                    self.set_wildcard(g, v);
                }
            }
            for &sub in g.node_blocks(n) {
                self.cover_unanalyzed(g, sub);
            }
        }
    }

    fn analyze_block(&mut self, g: &Graph, b: Block, writes: &mut PendingWrites) {
        for n in g.block_nodes(b) {
            self.analyze_node(g, n, writes);
        }
    }

    fn analyze_node(&mut self, g: &Graph, n: Node, writes: &mut PendingWrites) {
        let kind = g.kind(n);
        let name = kind.as_str();
        let inputs = g.node_inputs(n);
        let outputs = g.node_outputs(n);
        match name {
            "prim::If" => {
                for &b in g.node_blocks(n) {
                    self.analyze_block(g, b, writes);
                }
                for (i, &out) in outputs.iter().enumerate() {
                    for &b in g.node_blocks(n) {
                        if let Some(&inner) = g.block_outputs(b).get(i) {
                            self.make_pointer_to(g, out, inner);
                        }
                    }
                }
            }
            "prim::Loop" => self.analyze_loop(g, n, writes),
            "prim::fork" => {
                for &v in inputs {
                    self.set_wildcard(g, v);
                }
                for &v in outputs {
                    self.give_fresh_alias(g, v, true);
                }
            }
            "aten::wait" => {
                for &v in outputs {
                    self.set_wildcard(g, v);
                }
                writes.all_wildcards.push(n);
            }
            "aten::batch_norm" | "aten::instance_norm" => self.analyze_norm(g, n, writes),
            "prim::Constant"
            | "prim::CreateObject"
            | "prim::Uninitialized"
            | "prim::tolist"
            | "prim::AutogradZero"
            | "prim::AutogradAdd"
            | "prim::ConstantMKLDNNTensor"
            | "prim::BroadcastSizes"
            | "prim::ChunkSizes"
            | "prim::Closure"
            | "prim::MMTreeReduce"
            | "prim::MMBatchSide"
            | "prim::FusedConcat" => self.analyze_creator(g, n),
            "prim::TupleConstruct" | "prim::ListConstruct" | "prim::DictConstruct" => {
                self.analyze_container_construct(g, n)
            }
            "prim::GetAttr"
                if self.frozen && inputs.first().is_some_and(|&o| is_module_type(g.ty(o))) =>
            {
                self.analyze_creator(g, n)
            }
            "prim::TupleUnpack" | "prim::TupleIndex" | "prim::TupleSlice" | "prim::ListUnpack"
            | "prim::PythonOp" | "prim::GetAttr" => {
                for &v in outputs {
                    self.set_wildcard(g, v);
                }
            }
            "prim::unchecked_cast" | "prim::profile" | "prim::profile_ivalue" | "prim::Guard" => {
                if let (Some(&out), Some(&inp)) = (outputs.first(), inputs.first()) {
                    self.make_pointer_to(g, out, inp);
                }
            }
            "prim::ConstantChunk" => {
                if let Some(&inp) = inputs.first() {
                    for &out in outputs {
                        self.make_pointer_to(g, out, inp);
                    }
                }
            }
            "prim::TypeCheck" | "prim::RequiresGradCheck" => {
                for (&out, &inp) in outputs.iter().zip(inputs) {
                    self.make_pointer_to(g, out, inp);
                }
            }
            "prim::BailOut" => {
                if let (Some(&out), Some(&inp)) = (outputs.first(), inputs.get(1)) {
                    self.make_pointer_to(g, out, inp);
                }
            }
            "prim::SetAttr" => {
                if let Some(&obj) = inputs.first() {
                    self.register_write(g, obj, n, writes, false);
                }
                if let Some(&value) = inputs.get(1) {
                    self.set_wildcard(g, value);
                }
            }
            "prim::CallFunction" | "prim::CallMethod" | "prim::Enter" | "prim::Exit" => {
                self.analyze_conservative(g, n, writes)
            }
            "prim::Print" | "prim::isinstance" | "prim::RaiseException" => {}
            _ if is_tensor_expr_group(kind) => self.analyze_creator(g, n),
            _ if has_subgraph(g, n) => self.analyze_subgraph(g, n, writes),
            _ => self.analyze_from_schema(g, n, writes),
        }
    }

    fn analyze_loop(&mut self, g: &Graph, n: Node, writes: &mut PendingWrites) {
        let Some(&body) = g.node_blocks(n).first() else {
            return self.analyze_conservative(g, n, writes);
        };
        let carried_in = g.node_inputs(n).get(2..).unwrap_or(&[]).to_vec();
        let params = g.block_inputs(body).get(1..).unwrap_or(&[]).to_vec();
        let returned = g.block_outputs(body).get(1..).unwrap_or(&[]).to_vec();
        for (&p, &v) in params.iter().zip(&carried_in) {
            self.make_pointer_to(g, p, v);
        }
        self.analyze_block(g, body, writes);
        // The next iteration's parameters are this one's results.
        for (&p, &r) in params.iter().zip(&returned) {
            self.make_pointer_to(g, p, r);
        }
        // A loop that never runs returns its initial values: the parameters cover both.
        for (&out, &p) in g.node_outputs(n).iter().zip(&params) {
            self.make_pointer_to(g, out, p);
        }
    }

    /// `batch_norm` and `instance_norm` write their running statistics when training
    /// (`use_input_stats`) is not the constant `False`; their results are fresh.
    fn analyze_norm(&mut self, g: &Graph, n: Node, writes: &mut PendingWrites) {
        for &v in g.node_outputs(n) {
            self.give_fresh_alias(g, v, true);
        }
        if self.frozen {
            return;
        }
        let inputs = g.node_inputs(n);
        // batch_norm(input, weight, bias, running_mean, running_var, training, ...) and
        // instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, ...).
        let training = inputs.get(5).and_then(|&v| constant_bool(g, v));
        if training != Some(false) {
            for &stat in inputs.get(3..5).unwrap_or(&[]) {
                self.register_write(g, stat, n, writes, false);
            }
        }
    }

    /// Nodes whose outputs are new values.
    fn analyze_creator(&mut self, g: &Graph, n: Node) {
        for &v in g.node_outputs(n) {
            self.give_fresh_alias(g, v, true);
        }
    }

    /// Fusion groups and other subgraph nodes: they are pure when their subgraph writes
    /// nothing and has no side effects, and their outputs may then be views of any input;
    /// otherwise they are treated as calls.
    fn analyze_subgraph(&mut self, g: &Graph, n: Node, writes: &mut PendingWrites) {
        let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) else {
            return self.analyze_conservative(g, n, writes);
        };
        let inner = AliasDb::new(sub);
        let pure = sub
            .nodes()
            .iter()
            .all(|&m| !own_side_effects(sub, m) && inner.node_writes.get(&m).is_none());
        if !pure {
            return self.analyze_conservative(g, n, writes);
        }
        let inputs = g.node_inputs(n).to_vec();
        for (i, &out) in g.node_outputs(n).iter().enumerate() {
            let inner_out = sub.outputs().get(i).copied();
            let fresh = inner_out.is_some_and(|o| {
                sub.inputs().iter().all(|&si| !inner.may_alias(o, si))
                    && !inner.may_alias_wildcard(o)
            });
            if fresh {
                self.give_fresh_alias(g, out, true);
            } else {
                for &inp in &inputs {
                    self.make_pointer_to(g, out, inp);
                }
                if !self.elements.contains_key(&out) {
                    self.set_wildcard(g, out);
                }
            }
        }
    }

    /// Lists, tuples and dicts built from values.
    fn analyze_container_construct(&mut self, g: &Graph, n: Node) {
        let Some(&container) = g.node_outputs(n).first() else {
            return;
        };
        if !self.is_mutable(g, container) {
            return;
        }
        let uses = g.uses(container);
        if uses.len() == 1 && functional_use(g, uses[0].user, uses[0].offset) {
            self.give_fresh_alias(g, container, false);
            let c = self.elements[&container];
            for &v in g.node_inputs(n) {
                if self.is_mutable(g, v) {
                    let e = self.element(g, v);
                    self.memory.add_contained(e, c);
                }
            }
            return;
        }
        self.give_fresh_alias(g, container, true);
        let c = self.elements[&container];
        for &v in g.node_inputs(n) {
            if let Some(w) = self.set_wildcard(g, v) {
                self.memory.add_contained(w, c);
            }
        }
    }

    /// Anything Ember cannot see into: every mutable input may be written (with all it
    /// contains) and becomes a wildcard, and every output is a wildcard.
    fn analyze_conservative(&mut self, g: &Graph, n: Node, writes: &mut PendingWrites) {
        for &v in g.node_inputs(n) {
            if !self.is_mutable(g, v) {
                continue;
            }
            self.register_write(g, v, n, writes, true);
            self.set_wildcard(g, v);
        }
        for &v in g.node_outputs(n) {
            self.set_wildcard(g, v);
        }
    }

    /// An op with a schema: its alias annotations say what its outputs are and what it
    /// writes (PyTorch's `analyzeImpl` for `FROM_SCHEMA` ops).
    fn analyze_from_schema(&mut self, g: &Graph, n: Node, writes: &mut PendingWrites) {
        let schema = match resolve_node(g, n) {
            Ok(s) => s,
            Err(_) if is_pure_prim(g.kind(n)) => return self.analyze_opaque_pure(g, n),
            Err(_) => return self.analyze_conservative(g, n, writes),
        };
        let inputs = g.node_inputs(n).to_vec();
        let mut bound: HashMap<&str, Value> = HashMap::new();
        for (arg, &actual) in schema.arguments.iter().zip(&inputs) {
            let Some(alias) = &arg.alias else { continue };
            if !self.is_mutable(g, actual) {
                continue;
            }
            for inner in &alias.contained {
                if inner.is_write {
                    self.register_write(g, actual, n, writes, true);
                }
                if inner.is_wildcard_after() {
                    self.set_wildcard(g, actual);
                }
                for set in &inner.before {
                    bound.entry(set.as_str()).or_insert(actual);
                }
            }
            let Some(set) = alias.before.first() else {
                continue;
            };
            if bound.contains_key(set.as_str()) {
                continue;
            }
            bound.insert(set.as_str(), actual);
            if alias.is_write {
                self.register_write(g, actual, n, writes, false);
            }
            if alias.is_wildcard_after() {
                self.set_wildcard(g, actual);
            }
        }
        // Inputs beyond a vararg schema's arguments: nothing is known of them.
        for &extra in inputs.iter().skip(schema.arguments.len()) {
            if self.is_mutable(g, extra) {
                self.set_wildcard(g, extra);
            }
        }
        let outputs = g.node_outputs(n).to_vec();
        for (i, &actual) in outputs.iter().enumerate() {
            let Some(ret) = schema.returns.get(i) else {
                // Beyond a varret schema's returns.
                self.set_wildcard(g, actual);
                continue;
            };
            self.bind_output(g, n, actual, ret.alias.as_ref(), &bound, writes);
        }
    }

    fn bind_output(
        &mut self,
        g: &Graph,
        n: Node,
        actual: Value,
        formal: Option<&AliasInfo>,
        bound: &HashMap<&str, Value>,
        writes: &mut PendingWrites,
    ) {
        let Some(formal) = formal else {
            return self.give_fresh_alias(g, actual, true);
        };
        if !self.is_mutable(g, actual) {
            return;
        }
        if formal.is_wildcard_before() {
            self.set_wildcard(g, actual);
            return;
        }
        if formal.before.is_empty() {
            // `Tensor(a)[]`: a new list holding values of set `a`.
            self.give_fresh_alias(g, actual, true);
            let c = self.elements[&actual];
            for inner in &formal.contained {
                for set in &inner.before {
                    if let Some(&v) = bound.get(set.as_str()) {
                        let e = self.element(g, v);
                        self.memory.add_contained(e, c);
                    }
                }
            }
            return;
        }
        for set in &formal.before {
            match bound.get(set.as_str()) {
                Some(&to) => self.make_pointer_to(g, actual, to),
                // `Tensor(b)` with `b` bound to no input is fresh; `Tensor(a|fresh)` aliases
                // `a` at most.
                None if formal.before.len() == 1 => self.give_fresh_alias(g, actual, true),
                None => {}
            }
        }
        if formal.is_write {
            self.register_write(g, actual, n, writes, false);
        }
    }

    /// A `prim` op known to write nothing, whose schema Ember does not have: its outputs may
    /// be any of its inputs.
    fn analyze_opaque_pure(&mut self, g: &Graph, n: Node) {
        let mutable_out = g.node_outputs(n).iter().any(|&v| self.is_mutable(g, v));
        if !mutable_out {
            return;
        }
        for &v in g.node_inputs(n) {
            self.set_wildcard(g, v);
        }
        for &v in g.node_outputs(n) {
            self.set_wildcard(g, v);
        }
    }

    fn register_write(
        &mut self,
        g: &Graph,
        v: Value,
        n: Node,
        writes: &mut PendingWrites,
        contained: bool,
    ) {
        if !self.is_mutable(g, v) {
            return;
        }
        self.element(g, v);
        if contained {
            writes.contained.push((n, v));
        } else {
            writes.direct.push((n, v));
        }
    }

    fn is_mutable(&self, g: &Graph, v: Value) -> bool {
        is_mutable_type(g.ty(v))
    }

    /// The element of `v`, made fresh if it has none.
    fn element(&mut self, g: &Graph, v: Value) -> Elem {
        if let Some(&e) = self.elements.get(&v) {
            return e;
        }
        self.give_fresh_alias(g, v, true);
        self.elements[&v]
    }

    /// Gives `v` a new element; a new container contains the wildcards of its element types
    /// unless `contains_wildcards` is false (its contents are added by the caller).
    fn give_fresh_alias(&mut self, g: &Graph, v: Value, contains_wildcards: bool) {
        let Some(alias_types) = types::alias_types(g.ty(v)) else {
            return;
        };
        if self.elements.contains_key(&v) {
            return;
        }
        let e = self.memory.fresh();
        self.elements.insert(v, e);
        if contains_wildcards {
            self.add_wildcard_contents(e, &alias_types);
        }
    }

    /// What a new element of `alias_types` holds: for a union, it may be any member's
    /// wildcard; for a container, it contains the wildcards of its element types.
    fn add_wildcard_contents(&mut self, e: Elem, alias_types: &[Type]) {
        if alias_types.len() > 1 {
            for t in alias_types {
                if let Some(w) = self.wildcard_for(t) {
                    if w != e {
                        self.memory.make_pointer_to(e, w);
                    }
                }
            }
            return;
        }
        for t in alias_types {
            for contained in types::contained_types(t) {
                if let Some(w) = self.wildcard_for(&contained) {
                    self.memory.add_contained(w, e);
                }
            }
        }
    }

    /// The wildcard element of the alias type of `ty`, made on first use.
    fn wildcard_for(&mut self, ty: &Type) -> Option<Elem> {
        let alias_types = types::alias_types(ty)?;
        let key = types::single(alias_types.clone()).to_string();
        if let Some(&w) = self.wildcards.get(&key) {
            return Some(w);
        }
        let w = self.memory.fresh();
        self.wildcards.insert(key, w);
        self.add_wildcard_contents(w, &alias_types);
        Some(w)
    }

    /// Puts `v` in the wildcard set of its type; the wildcard, or `None` for immutable types.
    fn set_wildcard(&mut self, g: &Graph, v: Value) -> Option<Elem> {
        let w = self.wildcard_for(g.ty(v))?;
        self.element(g, v);
        self.wildcard_values.entry(v).or_insert(w);
        Some(w)
    }

    /// Records that `from` may be `to`.
    fn make_pointer_to(&mut self, g: &Graph, from: Value, to: Value) {
        if must_be_none(g, from) || must_be_none(g, to) {
            self.give_fresh_alias(g, from, true);
            self.give_fresh_alias(g, to, true);
            return;
        }
        let (mf, mt) = (self.is_mutable(g, from), self.is_mutable(g, to));
        if !mf || !mt || from == to {
            return;
        }
        let (ef, et) = (self.element(g, from), self.element(g, to));
        self.memory.make_pointer_to(ef, et);
    }

    // ---- Updates after a pass changed the graph ------------------------------------------

    /// Records that `new` took over the memory of `old`, which is a new location from now
    /// on (PyTorch's `replaceWithNewValue` then `createValue`): what remove-mutation does when
    /// `y = x.add_(z)` becomes `y = x.add(z)` and `x`'s later uses become `y`'s.
    pub fn value_took_over(&mut self, old: Value, new: Value) {
        if let Some(e) = self.elements.remove(&old) {
            self.elements.insert(new, e);
            let fresh = self.memory.fresh_finished();
            self.elements.insert(old, fresh);
        }
    }

    /// Forgets the writes of `n` (a node that was removed).
    pub fn forget_writes(&mut self, n: Node) {
        if self.node_writes.remove(&n).is_some() {
            let mut written = LocSet::new();
            for set in self.node_writes.values() {
                written.union_with(set);
            }
            self.written = written;
        }
    }

    // ---- Queries -------------------------------------------------------------------------

    /// The memory locations of `v`; `None` for values the db does not know (created after it
    /// was built): they are treated as aliasing anything.
    fn locations(&self, v: Value) -> Option<&LocSet> {
        self.elements.get(&v).map(|&e| self.memory.locations(e))
    }

    /// Whether `a` and `b` may be (views of) the same memory.
    pub fn may_alias(&self, a: Value, b: Value) -> bool {
        match (self.locations(a), self.locations(b)) {
            (Some(x), Some(y)) => x.intersects(y),
            _ => self.unknown_mutable(a) && self.unknown_mutable(b),
        }
    }

    /// Whether some value of `a` may alias some value of `b`.
    pub fn may_alias_any(&self, a: &[Value], b: &[Value]) -> bool {
        a.iter().any(|&x| b.iter().any(|&y| self.may_alias(x, y)))
    }

    /// Whether a value of `a` and a value of `b`, or anything they contain, may share memory
    /// (PyTorch's `mayContainAlias`).
    pub fn may_contain_alias(&self, a: &[Value], b: &[Value]) -> bool {
        let (Some(sa), Some(sb)) = (self.contained_locations(a), self.contained_locations(b))
        else {
            return a.iter().any(|&v| self.unknown_mutable(v))
                && b.iter().any(|&v| self.unknown_mutable(v));
        };
        sa.intersects(&sb)
    }

    /// Every location `vs` are or contain; `None` if one of them is unknown.
    fn contained_locations(&self, vs: &[Value]) -> Option<LocSet> {
        let mut out = LocSet::new();
        for &v in vs {
            match self.elements.get(&v) {
                Some(&e) => self.memory.collect_contained(e, &mut out),
                None if self.unknown_mutable(v) => return None,
                None => {}
            }
        }
        Some(out)
    }

    /// Whether `v` was made after the db was built: every value of a mutable type that was in
    /// the graph has an element, so a value without one is immutable or new, and a new value
    /// may be anything.
    fn unknown_mutable(&self, v: Value) -> bool {
        v.as_u32() >= self.built_values
    }

    /// Whether some node writes to memory `v` may be.
    pub fn has_writers(&self, v: Value) -> bool {
        match self.locations(v) {
            Some(locs) => locs.intersects(&self.written),
            None => self.unknown_mutable(v) && !self.written.is_empty(),
        }
    }

    /// Whether some node writes to an input or an output of `n` (PyTorch's `hasWriters`).
    pub fn node_has_writers(&self, g: &Graph, n: Node) -> bool {
        g.node_inputs(n)
            .iter()
            .chain(g.node_outputs(n))
            .any(|&v| self.has_writers(v))
    }

    /// What `n` writes, the nodes of its blocks included.
    pub fn writes(&self, g: &Graph, n: Node) -> LocSet {
        let mut out = LocSet::new();
        self.collect_writes(g, n, &mut out);
        out
    }

    fn collect_writes(&self, g: &Graph, n: Node, out: &mut LocSet) {
        if let Some(w) = self.node_writes.get(&n) {
            out.union_with(w);
        }
        for &b in g.node_blocks(n) {
            for m in g.block_nodes(b) {
                self.collect_writes(g, m, out);
            }
        }
    }

    /// What `n` reads: its inputs and everything they contain, the nodes of its blocks
    /// included.
    pub fn reads(&self, g: &Graph, n: Node) -> LocSet {
        let mut out = LocSet::new();
        self.collect_reads(g, n, &mut out);
        out
    }

    fn collect_reads(&self, g: &Graph, n: Node, out: &mut LocSet) {
        for &v in g.node_inputs(n) {
            if let Some(&e) = self.elements.get(&v) {
                self.memory.collect_contained(e, out);
            }
        }
        for &b in g.node_blocks(n) {
            for m in g.block_nodes(b) {
                self.collect_reads(g, m, out);
            }
            // A block's results are read where it returns them.
            self.collect_reads(g, g.return_node(b), out);
        }
    }

    /// Whether `n` (or a node in its blocks) writes to memory one of `vs` may be.
    pub fn writes_to_alias(&self, g: &Graph, n: Node, vs: &[Value]) -> bool {
        let written = self.writes(g, n);
        if written.is_empty() {
            return false;
        }
        vs.iter().any(|&v| match self.locations(v) {
            Some(l) => l.intersects(&written),
            None => self.unknown_mutable(v),
        })
    }

    /// Whether `n` writes to one of its own inputs (PyTorch's `AliasDb::isMutable`).
    pub fn writes_to_inputs(&self, g: &Graph, n: Node) -> bool {
        self.writes_to_alias(g, n, g.node_inputs(n))
    }

    /// Whether `n` (itself) writes to a wildcard set: memory the analysis cannot follow.
    pub fn writes_to_wildcard(&self, n: Node) -> bool {
        self.node_writes
            .get(&n)
            .is_some_and(|w| self.wildcards.values().any(|&e| w.contains(e)))
    }

    /// Whether `v` may alias a value of the wildcard set of its type.
    pub fn may_alias_wildcard(&self, v: Value) -> bool {
        let Some(locs) = self.locations(v) else {
            return self.unknown_mutable(v);
        };
        self.wildcards.values().any(|&w| locs.contains(w))
    }

    /// Whether any of `vs` may be seen outside the graph: an input, an output (or inside
    /// one), or a wildcard.
    pub fn escapes_scope(&self, g: &Graph, vs: &[Value]) -> bool {
        self.may_contain_alias(g.inputs(), vs)
            || self.may_contain_alias(g.outputs(), vs)
            || vs.iter().any(|&v| self.may_alias_wildcard(v))
    }

    /// Whether values `a` may be replaced by values `b` (or the other way) without a
    /// program seeing that two things now alias (PyTorch's
    /// `safeToChangeAliasingRelationship`): nothing writes to either, and not both escape.
    pub fn safe_to_change_aliasing_relationship(
        &self,
        g: &Graph,
        a: &[Value],
        b: &[Value],
    ) -> bool {
        if a.iter().chain(b).any(|&v| self.has_writers(v)) {
            return false;
        }
        !(self.escapes_scope(g, a) && self.escapes_scope(g, b))
    }

    /// The values the db tracks, in value order.
    fn tracked_values(&self) -> Vec<Value> {
        let mut vs: Vec<Value> = self.elements.keys().copied().collect();
        vs.sort_by_key(|v| v.as_u32());
        vs
    }

    /// Nodes with writes of their own.
    fn writing_nodes(&self) -> HashSet<Node> {
        self.node_writes
            .iter()
            .filter(|(_, w)| !w.is_empty())
            .map(|(&n, _)| n)
            .collect()
    }
}

/// The memory a growing set of values may be, for passes that ask whether a node writes to
/// any of them (dead code elimination's live values).
#[derive(Default)]
pub struct LiveLocations {
    locations: HashSet<Elem>,
    /// A value the db does not know is live: it may be anything.
    unknown: bool,
}

impl LiveLocations {
    pub fn add(&mut self, db: &AliasDb, v: Value) {
        match db.locations(v) {
            Some(locs) => self.locations.extend(locs.iter()),
            None => self.unknown |= db.unknown_mutable(v),
        }
    }

    /// Whether `n` (or a node of its blocks) writes to memory a value of the set may be.
    pub fn written_by(&self, db: &AliasDb, g: &Graph, n: Node) -> bool {
        let writes = db.writes(g, n);
        !writes.is_empty() && (self.unknown || writes.iter().any(|l| self.locations.contains(&l)))
    }
}

/// Whether `v` is always None (then it aliases nothing, whatever its type).
fn must_be_none(g: &Graph, v: Value) -> bool {
    if matches!(g.ty(v), Type::None) {
        return true;
    }
    match g.value_def(v) {
        ValueDef::Output(n, _) => {
            let kind = g.kind(n);
            kind == sym::uninitialized()
                || kind == Symbol::prim("AutogradZero")
                || (kind == sym::constant()
                    && g.attrs(n).is_empty()
                    && matches!(g.ty(v), Type::Optional(_)))
        }
        ValueDef::Param(..) => false,
    }
}

fn is_module_type(ty: &Type) -> bool {
    matches!(ty, Type::Class(_))
}

/// `prim::TensorExprGroup` and its numbered variants: Ember's and PyTorch's fusers only put
/// pure ops in them, and their outputs are new tensors.
fn is_tensor_expr_group(kind: Symbol) -> bool {
    let s = kind.as_str();
    s == "prim::TensorExprGroup" || s.starts_with("prim::TensorExprGroup_")
}

fn has_subgraph(g: &Graph, n: Node) -> bool {
    matches!(g.attr(n, sym::attr_subgraph()), Some(AttrValue::Graph(_)))
}

fn is_pure_prim(kind: Symbol) -> bool {
    kind.is_prim() && side_effects::KNOWN_PURE_PRIMS.contains(&kind.unqualified())
}

/// Whether the one use of a new container reads it and keeps nothing of it: an op whose
/// schema writes nothing of that argument, lets nothing of it reach a result, and returns
/// fresh values (`cat`, `stack`, `index`, `einsum`, …). Then the values put in the container
/// need not enter the wildcard set.
fn functional_use(g: &Graph, user: Node, offset: usize) -> bool {
    let kind = g.kind(user);
    if !kind.is_aten() {
        return false;
    }
    let Ok(schema) = resolve_node(g, user) else {
        return false;
    };
    reads_only(schema, offset)
}

fn reads_only(schema: &FunctionSchema, offset: usize) -> bool {
    let Some(arg) = schema.arguments.get(offset) else {
        return false;
    };
    arg.alias.is_none()
        && !schema.is_vararg
        && !schema.is_varret
        && schema.returns.iter().all(|r| r.alias.is_none())
        && !schema.is_mutable()
}

#[cfg(test)]
mod tests;
