//! How the interpreter finds what a call runs, while code is built.
//!
//! - `prim::CallFunction(%f, args…)`: `%f` is a `prim::Constant[name="f"]` of type Function.
//!   Its body is the constant's `attr::Subgraph` when it carries one (see
//!   compiler/src/passes/inline.rs), else the unit's function of that name.
//! - `prim::CallMethod[name="m"](%self, args…)`: the method of `%self`'s class when its static
//!   type is a class of the unit; otherwise (interfaces, code built without a unit) the method
//!   is looked up on the runtime object's class when the call runs.
//! - `prim::fork` runs its `attr::Subgraph` as a task (a [`Future`]); `aten::wait` waits.
//!
//! Callees' code is built when the caller's is, once per function. TorchScript has no
//! recursion; a function reached again while it is being built is refused, and nesting is
//! bounded so that hostile input cannot exhaust the stack.

use std::cell::RefCell;
use std::sync::Arc;

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::types::Type;
use ember_dialects::{Graph, Node, Symbol};

use super::code::{BuildError, Code, MissingOperators, OpSite};
use super::future::Future;
use super::objects;
use super::state::run_traced;
use crate::ivalue::{EnumValue, IValue};
use crate::ops::{pop_n, Operation, Stack};
use crate::unit::{CompilationUnit, Function};

/// How deep callees' code may nest while it is built.
const MAX_BUILD_NESTING: usize = 64;

/// One call of a [`Code`].
#[derive(Clone)]
pub struct CallSite {
    pub target: CallTarget,
    /// Arguments on the stack (`self` included for methods; the function value excluded).
    pub num_inputs: usize,
    pub num_outputs: usize,
    /// The calling node.
    pub site: OpSite,
}

/// What a call runs.
#[derive(Clone)]
pub enum CallTarget {
    /// A callee known when the code was built.
    Code(Arc<Code>),
    /// The method of this name of the class of the runtime object (the first argument).
    Method(String),
}

thread_local! {
    /// Functions whose code this thread is building, innermost last, and the nesting depth.
    static BUILDING: RefCell<(Vec<usize>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// Counts one level of nested code building; dropping it leaves the level.
pub(super) struct Nesting;

impl Drop for Nesting {
    fn drop(&mut self) {
        BUILDING.with(|b| b.borrow_mut().1 -= 1);
    }
}

pub(super) fn enter_build(g: &Graph) -> Result<Nesting, BuildError> {
    let depth = BUILDING.with(|b| {
        let mut b = b.borrow_mut();
        b.1 += 1;
        b.1
    });
    let nesting = Nesting;
    if depth > MAX_BUILD_NESTING {
        let ret = g.return_node(g.block());
        return Err(BuildError {
            node: ret,
            kind: g.kind(ret),
            source: None,
            message: format!("calls nest more than {MAX_BUILD_NESTING} functions deep"),
        });
    }
    Ok(nesting)
}

/// Builds the code of a unit's function (`Function::code` keeps it).
pub fn build_function_code(
    f: &Function,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Arc<Code>, BuildError> {
    let key = f as *const Function as usize;
    let recursive = BUILDING.with(|b| b.borrow().0.contains(&key));
    if recursive {
        let ret = f.graph.return_node(f.graph.block());
        return Err(BuildError {
            node: ret,
            kind: f.graph.kind(ret),
            source: None,
            message: format!(
                "'{}' calls itself: recursive calls are not supported in TorchScript",
                f.qualname
            ),
        });
    }
    BUILDING.with(|b| b.borrow_mut().0.push(key));
    let built = Code::build(&f.graph, unit, f.name());
    BUILDING.with(|b| b.borrow_mut().0.pop());
    built.map(Arc::new)
}

pub(super) fn wait_kind() -> Symbol {
    Symbol::new("aten::wait")
}

fn name_attr(g: &Graph, n: Node) -> Option<String> {
    match g.attr(n, Symbol::new("attr::name")) {
        Some(AttrValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn error_at(g: &Graph, n: Node, message: String) -> BuildError {
    BuildError {
        node: n,
        kind: g.kind(n),
        source: g.source_range(n).cloned(),
        message,
    }
}

/// A callee's build error, reported at the call (the node of the graph being built).
fn callee_error(g: &Graph, call: Node, callee: &str, e: BuildError) -> BuildError {
    let at = e.source.map(|s| format!(" at {s}")).unwrap_or_default();
    error_at(g, call, format!("{} (in '{callee}'{at})", e.message))
}

/// The graph a call known when code is built runs: a function constant's subgraph, or a
/// function of the unit (a method too). The interpreter may inline it.
pub(super) enum Body<'g> {
    Subgraph(&'g Graph),
    Function(Arc<Function>),
}

impl Body<'_> {
    pub(super) fn graph(&self) -> &Graph {
        match self {
            Body::Subgraph(g) => g,
            Body::Function(f) => &f.graph,
        }
    }
}

/// The callee of `prim::CallFunction` node `call` whose function input is made by `c`, and
/// the graph it runs; a subgraph it carries is built with the caller's `missing`.
pub(super) fn function_callee_body<'g>(
    g: &'g Graph,
    call: Node,
    c: Node,
    unit: Option<&Arc<CompilationUnit>>,
    missing: MissingOperators,
) -> Result<(CallTarget, Option<Body<'g>>), BuildError> {
    if g.kind(c) != sym::constant() {
        return Err(error_at(
            g,
            call,
            format!(
                "prim::CallFunction on a function made by '{}' cannot run: only function constants can be called",
                g.kind(c)
            ),
        ));
    }
    let qualname = match g.ty(g.output(c, 0)) {
        Type::Function(q) if !q.is_empty() => Some(q.clone()),
        _ => None,
    };
    let name = name_attr(g, c)
        .or_else(|| qualname.clone())
        .unwrap_or_else(|| "<function>".into());
    if let Some(AttrValue::Graph(body)) = g.attr(c, sym::attr_subgraph()) {
        let code = Code::build_with_options(body, unit, &name, None, missing)
            .map_err(|e| callee_error(g, call, &name, e))?;
        return Ok((CallTarget::Code(Arc::new(code)), Some(Body::Subgraph(body))));
    }
    if let Some(unit) = unit {
        let found = [Some(name.clone()), qualname]
            .into_iter()
            .flatten()
            .find_map(|q| unit.function(&q))
            .or_else(|| function_by_last_name(unit, &name));
        if let Some(f) = found {
            let code = f
                .code(Some(unit))
                .map_err(|e| callee_error(g, call, &f.qualname, e))?;
            return Ok((CallTarget::Code(code), Some(Body::Function(f))));
        }
    }
    Err(error_at(
        g,
        call,
        format!(
            "cannot call function '{name}': its graph is unknown (the function constant carries no attr::Subgraph{})",
            if unit.is_some() { " and the compilation unit does not define it" } else { " and no compilation unit was given" }
        ),
    ))
}

/// The one function of the unit whose qualified name ends in `.name` (graphs name callees
/// `helper` where an archive's unit holds `__torch__.helper`).
fn function_by_last_name(unit: &CompilationUnit, name: &str) -> Option<Arc<Function>> {
    let suffix = format!(".{name}");
    let mut matches = unit
        .functions()
        .into_iter()
        .filter(|f| f.qualname.ends_with(&suffix));
    let first = matches.next()?;
    matches.next().is_none().then_some(first)
}

/// The callee of `prim::CallMethod[name=...]` node `n`.
pub(super) fn method_callee(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<(CallTarget, Option<Body<'static>>), BuildError> {
    let Some(name) = name_attr(g, n) else {
        return Err(error_at(g, n, "prim::CallMethod needs a name".into()));
    };
    named_method_callee_body(g, n, &name, unit)
}

/// Method `name` of the object that is node `n`'s first input: resolved now when the
/// object's static type is a class of the unit, else looked up on the object at run time.
pub(super) fn named_method_callee(
    g: &Graph,
    n: Node,
    name: &str,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<CallTarget, BuildError> {
    named_method_callee_body(g, n, name, unit).map(|(target, _)| target)
}

/// [`named_method_callee`] and, when resolved now, the method's function.
pub(super) fn named_method_callee_body(
    g: &Graph,
    n: Node,
    name: &str,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<(CallTarget, Option<Body<'static>>), BuildError> {
    let Some(&receiver) = g.node_inputs(n).first() else {
        return Err(error_at(g, n, format!("{} needs an object", g.kind(n))));
    };
    if let (Type::Class(q), Some(unit)) = (g.ty(receiver), unit) {
        if let Some(class) = unit.class(q) {
            let Some(f) = class.method(name) else {
                return Err(error_at(g, n, format!("'{q}' has no method '{name}'")));
            };
            let code = f
                .code(Some(unit))
                .map_err(|e| callee_error(g, n, &f.qualname, e))?;
            return Ok((CallTarget::Code(code), Some(Body::Function(f))));
        }
    }
    Ok((CallTarget::Method(name.to_string()), None))
}

/// The operation of a node the registry does not build because it needs the unit or other
/// code: attributes, objects and forks. `None` for every other node.
pub(super) fn special_operation(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Option<Operation>, BuildError> {
    let kind = g.kind(n);
    let built = if kind == sym::get_attr() {
        objects::get_attr(g, n, unit)
    } else if kind == sym::set_attr() {
        objects::set_attr(g, n, unit)
    } else if kind == Symbol::new("prim::CreateObject") {
        objects::create_object(g, n, unit)
    } else if kind == Symbol::new("prim::fork") {
        return fork(g, n, unit).map(Some);
    } else if kind == sym::constant() {
        return enum_constant(g, n, unit).map_err(|m| error_at(g, n, m));
    } else if kind == Symbol::new("prim::isinstance") {
        return interface_isinstance(g, n, unit).map_err(|m| error_at(g, n, m));
    } else {
        return Ok(None);
    };
    built.map(Some).map_err(|m| error_at(g, n, m))
}

/// `prim::fork`: runs the subgraph on the pool with the node's inputs; pushes its future.
fn fork(g: &Graph, n: Node, unit: Option<&Arc<CompilationUnit>>) -> Result<Operation, BuildError> {
    let Some(AttrValue::Graph(body)) = g.attr(n, sym::attr_subgraph()) else {
        return Err(error_at(
            g,
            n,
            "prim::fork needs the graph it runs (attr::Subgraph)".into(),
        ));
    };
    let name = "<forked function>";
    let code = Code::build(body, unit, name).map_err(|e| callee_error(g, n, name, e))?;
    let nargs = g.node_inputs(n).len();
    if code.num_inputs != nargs || code.num_outputs != 1 || g.node_outputs(n).len() != 1 {
        return Err(error_at(
            g,
            n,
            format!(
                "prim::fork's graph takes {} inputs and returns {} values; the node passes {nargs} and makes one future",
                code.num_inputs, code.num_outputs
            ),
        ));
    }
    let code = Arc::new(code);
    Ok(Arc::new(move |s: &mut Stack| {
        let args = pop_n(s, nargs)?;
        let code = code.clone();
        let future = Future::spawn(move || {
            let mut outputs = run_traced(&code, args)?;
            outputs
                .pop()
                .ok_or_else(|| super::error::RuntimeError::new("forked code returned nothing"))
        });
        s.push(IValue::Future(future));
        Ok(())
    }))
}

/// `prim::isinstance[types=[InterfaceType<I>, ...]]`: a value is of an interface type when it
/// is an object whose class has the interface's methods, which the unit knows. `None` when no
/// type is an interface (the registry's `prim::isinstance` handles those).
fn interface_isinstance(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Option<Operation>, String> {
    let types = match g.attr(n, Symbol::new("attr::types")) {
        Some(AttrValue::Types(t)) => t.clone(),
        Some(AttrValue::Type(t)) => vec![t.clone()],
        _ => return Ok(None),
    };
    if !types.iter().any(|t| matches!(t, Type::Interface(_))) {
        return Ok(None);
    }
    enum Check {
        Type(Type),
        Interface(Arc<crate::unit::ClassType>),
    }
    let mut checks = Vec::new();
    for t in types {
        checks.push(match t {
            Type::Interface(q) => {
                Check::Interface(unit.and_then(|u| u.class(&q)).ok_or_else(|| {
                    format!("isinstance on interface {q}, which is not in the unit")
                })?)
            }
            other => Check::Type(other),
        });
    }
    Ok(Some(Arc::new(move |s: &mut Stack| {
        let v = crate::ops::pop(s)?;
        let is = checks.iter().any(|c| match (c, &v) {
            (Check::Type(t), _) => crate::ops::builtins::misc::value_is(&v, t),
            (Check::Interface(iface), IValue::Object(o)) => iface.is_implemented_by(&o.class),
            (Check::Interface(_), _) => false,
        });
        s.push(IValue::Bool(is));
        Ok(())
    })))
}

/// `prim::Constant[value=__torch__.Color.RED]` of type `Enum<__torch__.Color>`: the member's
/// value is a constant of the unit's class. `None` for every other constant.
fn enum_constant(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Option<Operation>, String> {
    let Some(&out) = g.node_outputs(n).first() else {
        return Ok(None);
    };
    let Type::Enum(class_name) = g.ty(out) else {
        return Ok(None);
    };
    let text = match g.attr(n, sym::attr_value()) {
        Some(AttrValue::IValue(ConstValue::Opaque(text))) => text.clone(),
        Some(AttrValue::Str(text)) => text.clone(),
        _ => return Ok(None),
    };
    let member = text
        .strip_prefix(class_name.as_str())
        .and_then(|m| m.strip_prefix('.'))
        .ok_or_else(|| format!("enum constant '{text}' is not a member of {class_name}"))?;
    let Some(class) = unit.and_then(|u| u.class(class_name)) else {
        // A compiled model's graph carries the member's value instead of the class.
        return match crate::ops::prim::carried_enum_member(g, n) {
            Some(value) => {
                let value = value?;
                Ok(Some(Arc::new(move |s: &mut Stack| {
                    s.push(value.clone());
                    Ok(())
                })))
            }
            None => Err(format!(
                "enum constant '{text}' cannot run: no class {class_name} in the unit"
            )),
        };
    };
    let value = class
        .constant(member)
        .ok_or_else(|| format!("enum {class_name} has no member {member}"))?;
    let value = IValue::Enum(Arc::new(EnumValue {
        class_name: class_name.clone(),
        name: member.to_string(),
        value,
    }));
    Ok(Some(Arc::new(move |s: &mut Stack| {
        s.push(value.clone());
        Ok(())
    })))
}
