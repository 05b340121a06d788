//! The IR emitter: TorchScript syntax trees to graphs, after PyTorch's
//! `torch/csrc/jit/frontend/ir_emitter.cpp` (`to_ir`) and `sugared_value.cpp`.
//!
//! Each def is emitted with `prim::Store`/`prim::Load` for variables and `prim::If`/`prim::Loop`
//! in the shape PyTorch's emitter gives them before SSA conversion (loops with a separate
//! condition block, `prim::ReturnStmt`/`prim::BreakStmt`/`prim::ContinueStmt` for early exits),
//! then converted to SSA and cleaned up as PyTorch's `runCleanupPasses` does, so the graph of a
//! function is the one `torch.jit.script(fn).graph` shows.
//!
//! Functions are compiled on first use, callees before callers: a call to another function of
//! the file becomes `prim::CallFunction` on a `prim::Constant[name=...]` that carries the
//! callee's graph in `attr::Subgraph` (see `passes::inline`).

mod call;
mod class;
mod cleanup;
mod def;
mod env;
mod expr;
mod functional;
mod grad_mode;
mod module;
mod module_init;
mod nn;
mod stmt;
mod sugared;
#[cfg(test)]
mod tests;
mod types;
mod unused;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};
use ember_runtime::unit::{ClassType, CompilationUnit, Function};

use super::ast::{ClassDef, Def, Expr};
use super::error::FrontendError;
use super::span::{SourceFile, Span};
use env::Frame;

pub(crate) use class::is_type_like;
pub use module::{compile_module, compile_module_schemas, compile_module_with_prefix};

pub(crate) type R<T> = Result<T, FrontendError>;

/// Names a source file uses but does not define: how the `.pt` loader supplies the classes of
/// an archive (`__torch__.foo.Bar`) and its constants (`CONSTANTS.c0`).
pub trait Resolver {
    fn resolve(&self, name: &str) -> Option<Resolved>;

    /// Whether the source is an archive's code/ (the Python printer's output), where list
    /// and dict defaults are allowed: PyTorch refuses them only in its Python frontend.
    fn is_archive_code(&self) -> bool {
        false
    }
}

/// What a [`Resolver`] knows a name as.
#[derive(Clone)]
pub enum Resolved {
    /// A class already in the compilation unit.
    Class(Arc<ClassType>),
    /// A compiled function.
    Function(Arc<Function>),
    /// A constant value.
    Constant(ConstValue),
    /// A NamedTuple (a tuple type with its qualified name) or an Enum type.
    Type(Type),
}

/// A resolver that knows nothing: plain `.py` files define everything they use.
pub struct NoResolver;

impl Resolver for NoResolver {
    fn resolve(&self, _name: &str) -> Option<Resolved> {
        None
    }
}

/// One parameter of a compiled function, as callers see it.
#[derive(Clone, Debug)]
pub(crate) struct ParamSig {
    pub name: String,
    pub ty: Type,
    /// The length of a `BroadcastingListN[T]` (a single T is repeated N times).
    pub n: Option<i64>,
    pub default: Option<ConstValue>,
    pub kwarg_only: bool,
}

/// The signature of a compiled function or method (`self` excluded).
#[derive(Clone, Debug)]
pub(crate) struct FnSig {
    pub params: Vec<ParamSig>,
    pub ret: Type,
}

/// A top-level name of the file.
#[derive(Clone, Copy)]
pub(crate) enum Global<'a> {
    Def(&'a Def),
    Class(&'a ClassDef),
    /// A module constant `NAME = <literal>`.
    Constant(&'a Expr),
}

/// What the emitter knows about a class of the file.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassInfo {
    pub is_module: bool,
    /// NamedTuple classes are tuple types, not classes.
    pub named_tuple: Option<Type>,
    /// Enum classes: member names and values.
    pub enum_members: Option<Vec<(String, ConstValue)>>,
    /// Method names with their defs' index in the class body.
    pub methods: Vec<String>,
    pub properties: Vec<String>,
    /// `@staticmethod`s, compiled as functions.
    pub static_methods: Vec<String>,
    /// Constants (`Final` class attributes), folded where read.
    pub constants: HashMap<String, ConstValue>,
    /// Method signatures, once known.
    pub sigs: HashMap<String, FnSig>,
    /// An interface: `sigs` holds its method declarations.
    pub is_interface: bool,
}

/// State shared by every function of one compilation.
pub(crate) struct ModuleCx<'a> {
    pub file: Arc<SourceFile>,
    pub unit: &'a CompilationUnit,
    pub resolver: &'a dyn Resolver,
    pub globals: HashMap<String, Global<'a>>,
    /// The qualified name of the file's module: classes are `<prefix>.<Name>`.
    pub prefix: String,
    /// Import aliases: local name → dotted module path (`F` → `torch.nn.functional`).
    pub imports: HashMap<String, String>,
    pub state: RefCell<State>,
}

#[derive(Default)]
pub(crate) struct State {
    /// Compiled functions by name, with their signatures.
    pub functions: HashMap<String, (FnSig, Arc<Function>)>,
    /// Functions being compiled, innermost last (a call to one of them is recursion).
    pub in_progress: Vec<String>,
    pub classes: HashMap<String, ClassInfo>,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[allow(clippy::enum_variant_names)] // PyTorch's names
pub(crate) enum LoopStatus {
    NotInLoop,
    InLoop,
    InUnrolledLoop,
}

/// What is known of the def being emitted: its declared and merged return types.
#[derive(Clone, Default)]
pub(crate) struct DefContext {
    pub declared_return: Option<Type>,
    pub merged_return: Option<Type>,
}

/// Emits one def into a graph (PyTorch's `to_ir`).
pub(crate) struct FnEmitter<'a> {
    pub cx: &'a ModuleCx<'a>,
    pub g: Graph,
    pub frames: Vec<Frame>,
    pub exit_blocks: HashSet<Block>,
    pub loop_status: LoopStatus,
    pub def_stack: Vec<DefContext>,
    pub temp_count: usize,
    pub int_consts: HashMap<i64, Value>,
    pub fp_consts: HashMap<u64, Value>,
    /// Why a variable is not defined after an if, reported when it is used.
    pub var_errors: HashMap<String, String>,
    /// The class whose method is being emitted.
    pub self_class: Option<String>,
    /// The name of the def being emitted.
    pub method_name: Option<String>,
}

impl<'a> FnEmitter<'a> {
    pub fn new(cx: &'a ModuleCx<'a>, self_class: Option<String>) -> FnEmitter<'a> {
        let g = Graph::new();
        let top = g.block();
        let mut e = FnEmitter {
            cx,
            g,
            frames: Vec::new(),
            exit_blocks: HashSet::new(),
            loop_status: LoopStatus::NotInLoop,
            def_stack: vec![DefContext::default()],
            temp_count: 0,
            int_consts: HashMap::new(),
            fp_consts: HashMap::new(),
            var_errors: HashMap::new(),
            self_class,
            method_name: None,
        };
        e.push_frame(top);
        e
    }

    pub fn err(&self, span: Span, msg: impl Into<String>) -> FrontendError {
        FrontendError::new(span, msg)
    }

    pub fn set_span(&mut self, n: Node, span: Span) {
        let r = self.cx.file.source_range(span);
        self.g.set_source_range(n, Some(r));
    }

    /// Creates a node of `kind` with `inputs` and outputs of `out_types`, inserts it at the
    /// insertion point and gives it the source range of `span`.
    pub fn emit_node(
        &mut self,
        kind: Symbol,
        inputs: &[Value],
        out_types: Vec<Type>,
        span: Span,
    ) -> Node {
        let n = self.g.create(kind, inputs, 0);
        for t in out_types {
            self.g.add_node_output(n, t);
        }
        self.set_span(n, span);
        self.g.insert_node(n);
        n
    }

    pub fn temp_name(&mut self, prefix: &str) -> String {
        let n = format!("{prefix}{}", self.temp_count);
        self.temp_count += 1;
        n
    }

    /// `graph.insertConstant`: a constant at the insertion point.
    pub fn insert_constant(&mut self, c: ConstValue, span: Span) -> Value {
        let ty = ember_dialects::schema::const_type(&c);
        self.insert_typed_constant(c, ty, span)
    }

    pub fn insert_typed_constant(&mut self, c: ConstValue, ty: Type, span: Span) -> Value {
        let n = self.g.create(Symbol::prim("Constant"), &[], 0);
        let attr = match &c {
            ConstValue::None => None,
            ConstValue::Bool(b) => Some(AttrValue::Int(*b as i64)),
            ConstValue::Int(i) => Some(AttrValue::Int(*i)),
            ConstValue::Float(f) => Some(AttrValue::Float(*f)),
            ConstValue::Complex(re, im) => Some(AttrValue::Complex(*re, *im)),
            ConstValue::Str(s) | ConstValue::Device(s) => Some(AttrValue::Str(s.clone())),
            ConstValue::Tensor(t) => Some(AttrValue::Tensor(t.clone())),
            other => Some(AttrValue::IValue(other.clone())),
        };
        if let Some(a) = attr {
            self.g.set_attr(n, Symbol::attr("value"), a);
        }
        self.g.add_node_output(n, ty);
        self.set_span(n, span);
        self.g.insert_node(n);
        self.g.output(n, 0)
    }

    /// `materializeConstant`: integer and float literals are made once, at the top of the
    /// graph.
    pub fn materialize_int(&mut self, i: i64, span: Span) -> Value {
        if let Some(&v) = self.int_consts.get(&i) {
            return v;
        }
        let v = self.at_graph_start(|e| e.insert_constant(ConstValue::Int(i), span));
        self.int_consts.insert(i, v);
        v
    }

    pub fn materialize_float(&mut self, f: f64, span: Span) -> Value {
        if let Some(&v) = self.fp_consts.get(&f.to_bits()) {
            return v;
        }
        let v = self.at_graph_start(|e| e.insert_constant(ConstValue::Float(f), span));
        self.fp_consts.insert(f.to_bits(), v);
        v
    }

    fn at_graph_start<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.g.insert_point();
        let top = self.g.block();
        match self.g.first_node(top) {
            Some(first) => self.g.set_insert_point(first),
            None => self.g.set_insert_point_to_end(top),
        }
        let out = f(self);
        self.g.set_insert_point(saved);
        out
    }

    /// Runs `f` with the insertion point at the end of `b`, then restores it.
    pub fn in_block<T>(&mut self, b: Block, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.g.insert_point();
        self.g.set_insert_point_to_end(b);
        let out = f(self);
        self.g.set_insert_point(saved);
        out
    }

    /// Runs `f` with the insertion point before `n`, then restores it.
    pub fn before_node<T>(&mut self, n: Node, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.g.insert_point();
        self.g.set_insert_point(n);
        let out = f(self);
        self.g.set_insert_point(saved);
        out
    }

    /// The constant a value holds, when it is made by a `prim::Constant`.
    pub fn constant_of(&self, v: Value) -> Option<ConstValue> {
        let n = self.g.producer(v);
        if self.g.kind(n) != Symbol::prim("Constant") {
            return None;
        }
        let ty = self.g.ty(v);
        Some(match self.g.attr(n, Symbol::attr("value")) {
            None => ConstValue::None,
            Some(AttrValue::Int(i)) => {
                if *ty == Type::Bool {
                    ConstValue::Bool(*i != 0)
                } else {
                    ConstValue::Int(*i)
                }
            }
            Some(AttrValue::Float(f)) => ConstValue::Float(*f),
            Some(AttrValue::Str(s)) => {
                if *ty == Type::Device {
                    ConstValue::Device(s.clone())
                } else {
                    ConstValue::Str(s.clone())
                }
            }
            Some(AttrValue::IValue(c)) => c.clone(),
            _ => return None,
        })
    }

    /// `createUninitialized(type)` at the insertion point.
    pub fn insert_uninitialized(&mut self, ty: Type) -> Value {
        let n = self.g.create(Symbol::prim("Uninitialized"), &[], 0);
        let v = self.g.add_node_output(n, ty);
        self.g.insert_node(n);
        v
    }

    /// `insertUncheckedCast`.
    pub fn insert_unchecked_cast(&mut self, v: Value, ty: Type, span: Span) -> Value {
        let n = self.emit_node(Symbol::prim("unchecked_cast"), &[v], vec![ty], span);
        self.g.output(n, 0)
    }
}
