//! Turns an optimized method graph into the program a compiled model embeds: `self` gone
//! (the method must be frozen), every tensor constant a graph input after the user's (the
//! weights), and the graph printed and parsed back, so the code is lowered from exactly the
//! graph the runtime will read.

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::types::Type;
use ember_dialects::Graph;
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::prim::attr_to_ivalue;
use ember_runtime::tensor::Tensor;

use crate::codegen::CodegenError;

/// What a compiled model holds besides its code.
pub struct Program {
    /// The graph as the runtime reads it back from `text`.
    pub graph: Graph,
    pub text: String,
    pub n_user_inputs: usize,
    pub input_names: Vec<String>,
    /// The types the user's inputs are checked against before the compiled code runs.
    pub guard_types: Vec<Type>,
    /// The defaults of the last user inputs as the text of a graph returning them (see
    /// `ember_runtime::aot::Bundle::defaults`); empty when none.
    pub defaults: String,
    /// The same defaults as values (a profiling sample that leaves them out gets them).
    pub default_values: Vec<IValue>,
    pub weights: Vec<Tensor>,
    /// The compiled calls' memory plan for the specialized shapes ([`super::record_memory_plan`]),
    /// embedded in the object so its first call is served; `None` until recorded.
    pub memory_plan: Option<ember_runtime::tensor::arena::MemoryPlan>,
}

/// Prepares `graph` (a method with `self` first when `is_method`). `guards` gives, by user
/// input, a specialized type to check instead of the graph's own; `defaults` the default of
/// each user input that has one (as the model's entry gives them).
pub fn prepare(
    graph: &Graph,
    is_method: bool,
    guards: &[(String, Type)],
    defaults: &[Option<IValue>],
) -> Result<Program, CodegenError> {
    let mut g = graph.clone();
    if is_method {
        let this = g.inputs()[0];
        if let Some(u) = g.uses(this).first() {
            return Err(CodegenError::at(
                &g,
                u.user,
                "the method reads the module (`self`): only frozen methods compile whole",
            ));
        }
        g.erase_input(0);
    }
    let n_user_inputs = g.inputs().len();
    let input_names = user_names(&g);
    let mut guard_types: Vec<Type> = g.inputs().iter().map(|&v| g.ty(v).clone()).collect();
    for (name, ty) in guards {
        let i = input_names.iter().position(|n| n == name).ok_or_else(|| {
            CodegenError::general(format!(
                "--shape {name}: the method has no input '{name}' (inputs: {})",
                input_names.join(", ")
            ))
        })?;
        if !matches!(g.ty(g.inputs()[i]), Type::Tensor(_)) {
            return Err(CodegenError::general(format!(
                "--shape {name}: input '{name}' is a {}, not a tensor",
                g.ty(g.inputs()[i])
            )));
        }
        guard_types[i] = ty.clone();
    }

    let (defaults, default_values) = defaults_graph(&g, defaults);
    let mut weights = Vec::new();
    for n in g.nodes() {
        if g.kind(n) != sym::constant() {
            continue;
        }
        let out = g.output(n, 0);
        let ty = g.ty(out).clone();
        // A tensor, or a list or tuple of tensors (an LSTM's flat weights).
        let (items, construct) = match g.attr(n, sym::attr_value()) {
            Some(AttrValue::Tensor(_)) | Some(AttrValue::IValue(ConstValue::Tensor(_))) => {
                (None, None)
            }
            Some(AttrValue::IValue(ConstValue::List(items))) if all_tensors(items) => {
                (Some(items.len()), Some(sym::list_construct()))
            }
            Some(AttrValue::IValue(ConstValue::Tuple(items))) if all_tensors(items) => {
                (Some(items.len()), Some(sym::tuple_construct()))
            }
            _ => continue,
        };
        let value = g
            .attr(n, sym::attr_value())
            .map(|a| attr_to_ivalue(a, &ty))
            .transpose()
            .map_err(|e| CodegenError::at(&g, n, e))?;
        let tensors: Vec<Tensor> = match (value, items) {
            (Some(IValue::Tensor(t)), None) => vec![t],
            (Some(IValue::List(l)), Some(_)) => tensors_of(&l.to_vec()),
            (Some(IValue::Tuple(t)), Some(_)) => tensors_of(&t),
            _ => {
                return Err(CodegenError::at(
                    &g,
                    n,
                    "a tensor constant without a tensor",
                ))
            }
        };
        if items.is_some_and(|k| k != tensors.len()) {
            return Err(CodegenError::at(
                &g,
                n,
                "a constant of tensors without its tensors",
            ));
        }
        let mut inputs = Vec::new();
        for t in tensors {
            // Typed as the tensor is (a parameter may require grad where the constant says
            // not).
            let input = g.add_input(Type::Tensor(crate::executor::profile::type_of_tensor(&t)));
            g.set_debug_name(input, &format!("weight_{}", weights.len()));
            inputs.push(input);
            weights.push(t);
        }
        let replacement = match construct {
            None => inputs[0],
            Some(kind) => {
                let c = g.create(kind, &inputs, 1);
                g.insert_before(c, n);
                g.set_ty(g.output(c, 0), ty);
                g.output(c, 0)
            }
        };
        g.replace_all_uses_with(out, replacement);
        g.destroy(n);
    }

    let (graph, text) = read_back(&g)?;
    Ok(Program {
        graph,
        text,
        n_user_inputs,
        input_names,
        guard_types,
        defaults,
        default_values,
        weights,
        memory_plan: None,
    })
}

/// `g` printed and parsed back (what the runtime will read), with its text.
pub fn read_back(g: &Graph) -> Result<(Graph, String), CodegenError> {
    let text = g.to_string();
    let graph = ember_dialects::parse::parse_graph(&text).map_err(|d| {
        CodegenError::general(format!(
            "the optimized graph does not read back from its text: {}",
            d.render("<optimized graph>")
        ))
    })?;
    if graph.to_string() != text {
        return Err(CodegenError::general(
            "the optimized graph does not print back the same after reading its text",
        ));
    }
    Ok((graph, text))
}

/// The names of the graph's inputs for C callers: `x` for `x.1` (the frontend numbers the
/// definitions of a Python name) unless two inputs would be named alike.
fn user_names(g: &Graph) -> Vec<String> {
    let full: Vec<String> = g.inputs().iter().map(|&v| g.value_name(v)).collect();
    let base = |n: &str| match n.rsplit_once('.') {
        Some((b, suffix)) if !b.is_empty() && suffix.bytes().all(|c| c.is_ascii_digit()) => {
            b.to_string()
        }
        _ => n.to_string(),
    };
    let short: Vec<String> = full.iter().map(|n| base(n)).collect();
    full.iter()
        .zip(&short)
        .map(|(f, s)| {
            if short.iter().filter(|t| *t == s).count() == 1 {
                s.clone()
            } else {
                f.clone()
            }
        })
        .collect()
}

fn all_tensors(items: &[ConstValue]) -> bool {
    !items.is_empty() && items.iter().all(|c| matches!(c, ConstValue::Tensor(_)))
}

fn tensors_of(items: &[IValue]) -> Vec<Tensor> {
    items
        .iter()
        .filter_map(|e| e.as_tensor().cloned())
        .collect()
}

/// The text of a graph returning the defaults of the last user inputs of `g` that have one
/// the graph text can hold (None, bools, numbers, strings, and lists and tuples of them),
/// and those defaults.
fn defaults_graph(g: &Graph, defaults: &[Option<IValue>]) -> (String, Vec<IValue>) {
    let n = g.inputs().len();
    let mut trailing: Vec<(ConstValue, Type, IValue)> = Vec::new();
    for i in (0..n).rev() {
        let Some(value) = defaults.get(i).and_then(|d| d.as_ref()) else {
            break;
        };
        match const_value(value) {
            Some(c) => trailing.push((c, g.ty(g.inputs()[i]).clone(), value.clone())),
            None => break,
        }
    }
    if trailing.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut d = Graph::new();
    let mut values = Vec::new();
    for (c, ty, value) in trailing.into_iter().rev() {
        let v = d.insert_constant(&c, ty);
        d.register_output(v);
        values.push(value);
    }
    (d.to_string(), values)
}

/// `v` as a constant the graph text holds (tensors are not: their data does not print).
fn const_value(v: &IValue) -> Option<ConstValue> {
    fn has_tensor(c: &ConstValue) -> bool {
        match c {
            ConstValue::Tensor(_) => true,
            ConstValue::List(items) | ConstValue::Tuple(items) => items.iter().any(has_tensor),
            _ => false,
        }
    }
    crate::fold::tensor::const_of_ivalue(v).filter(|c| !has_tensor(c))
}
