//! The `code/` records of an archive: every class and function of the model's unit, printed
//! as PyTorch prints them (`class Conv2d(Module):`, `__parameters__`, `__buffers__`, attribute
//! annotations, constants as `name : Final[T] = value`, then the methods), one file per
//! Python module (`__torch__.torch.nn.modules.conv` → `code/__torch__/torch/nn/modules/conv.py`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use ember_dialects::schema::{Argument, FunctionSchema};
use ember_dialects::symbol::sym;
use ember_dialects::types::TupleType;
use ember_dialects::{AttrValue, Graph, SourceRange, Type};
use ember_runtime::ivalue::{IValue, Object};
use ember_runtime::ops::prim::const_to_ivalue;
use ember_runtime::repr::repr;
use ember_runtime::unit::{AttributeKind, ClassType};
use hashbrown::HashMap;

use crate::frontend::python_print::{
    annotation, is_valid_identifier, parameter_name, print_function_with_constants, Printed,
};
use crate::import::constants::to_const_value;
use crate::model::Model;
use crate::passes::{dce, PassContext};

/// `(record path, text)` of every code file, in path order; tensors the code names are
/// appended to `constants`.
pub fn print_classes(
    model: &Model,
    module: &Arc<Object>,
    constants: &mut Vec<AttrValue>,
) -> Result<Vec<(String, CodeText)>, String> {
    let mut files: BTreeMap<String, CodeText> = BTreeMap::new();
    // The defaults the archive gave its entry methods, to print in their signatures.
    let defaults: HashMap<String, Vec<Option<IValue>>> = model
        .entries
        .iter()
        .filter(|e| e.is_method)
        .map(|e| (e.function.qualname.clone(), e.defaults.clone()))
        .collect();
    let root = &module.class;
    let mut classes = model.unit.classes();
    // The root class first, then the rest in the unit's order.
    classes.sort_by_key(|c| !Arc::ptr_eq(c, root));
    let enums: Vec<String> = model
        .unit
        .named_types()
        .into_iter()
        .filter_map(|t| match t {
            Type::Enum(q) => Some(q),
            _ => None,
        })
        .collect();
    for class in &classes {
        let (path, name) = split(&class.qualname)?;
        let file = files.entry(record(path)).or_default();
        if class.is_interface {
            file.push_str(&print_interface(class, name));
        } else if enums.contains(&class.qualname) {
            file.push_str(&print_enum(class, name));
        } else {
            file.append(print_class(class, name, &defaults, constants)?);
        }
    }
    for ty in model.unit.named_types() {
        let Type::Tuple(TupleType {
            elements,
            names: Some(info),
        }) = &ty
        else {
            continue; // Enums: their values are not written yet (refused when pickled)
        };
        let (path, name) = split(&info.qualified_name)?;
        let mut text = format!("class {name}(NamedTuple):\n");
        for (i, (field, t)) in info.fields.iter().zip(elements).enumerate() {
            let _ = write!(text, "  {field} : {}", annotation(t));
            if let Some(Some(d)) = info.defaults.get(i) {
                let _ = write!(text, " = {d}");
            }
            text.push('\n');
        }
        files.entry(record(path)).or_default().push_str(&text);
    }
    // A def of an archive's code enters the unit under its plain name too; the qualified
    // entry is the one to write.
    for f in model.unit.functions() {
        let Ok((path, name)) = split(&f.qualname) else {
            continue;
        };
        check_loadable(&f.graph, &f.qualname)?;
        let printed = print_function_with_constants(&printable(&f.graph), name, None, constants)
            .map_err(|e| format!("{}: {e}", f.qualname))?;
        files
            .entry(record(path))
            .or_default()
            .push_printed(&printed, "");
    }
    print_carried_functions(model, &mut files, constants)?;
    Ok(files.into_iter().collect())
}

/// Functions the code calls that no unit holds: function constants carrying their graph (the
/// library functions a source compiles in, `torch.nn.functional.pad`), each written once as a
/// def of its module, then the ones those call.
fn print_carried_functions(
    model: &Model,
    files: &mut BTreeMap<String, CodeText>,
    constants: &mut Vec<AttrValue>,
) -> Result<(), String> {
    let mut defined: Vec<String> = model
        .unit
        .functions()
        .iter()
        .map(|f| f.qualname.clone())
        .collect();
    let mut work: Vec<Graph> = model
        .unit
        .functions()
        .iter()
        .map(|f| f.graph.clone())
        .collect();
    for c in model.unit.classes() {
        work.extend(snapshot(&c.methods).values().map(|f| f.graph.clone()));
    }
    while let Some(g) = work.pop() {
        for n in g.nodes() {
            let (Some(AttrValue::Graph(body)), [out]) =
                (g.attr(n, sym::attr_subgraph()), g.node_outputs(n))
            else {
                continue;
            };
            let Type::Function(q) = g.ty(*out) else {
                continue;
            };
            let Ok((path, name)) = split(q) else {
                continue;
            };
            if defined.contains(q) {
                continue;
            }
            defined.push(q.clone());
            let body = super::placeholder::qualify_calls(body);
            check_loadable(&body, q)?;
            let printed = print_function_with_constants(&printable(&body), name, None, constants)
                .map_err(|e| format!("{q}: {e}"))?;
            files
                .entry(record(path))
                .or_default()
                .push_printed(&printed, "");
            work.push(body);
        }
    }
    Ok(())
}

/// One code file as it is assembled: its text, and where the statements printed from nodes
/// with source ranges start in it (its `.debug_pkl`).
#[derive(Default)]
pub struct CodeText {
    pub text: String,
    pub ranges: Vec<(usize, SourceRange)>,
}

impl CodeText {
    pub fn push_str(&mut self, s: &str) {
        self.text.push_str(s);
    }

    /// Appends another file's text and ranges.
    fn append(&mut self, other: CodeText) {
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.ranges
            .extend(other.ranges.into_iter().map(|(o, r)| (base + o, r)));
    }

    /// Appends printed code with every line indented by `indent`, moving its ranges along.
    fn push_printed(&mut self, printed: &Printed, indent: &str) {
        let base = self.text.len();
        let mut shifts = Vec::new(); // (offset in the printed text, bytes added before it)
        let mut added = 0;
        let mut line_start = 0;
        for line in printed.text.split_inclusive('\n') {
            added += indent.len();
            shifts.push((line_start, added));
            self.text.push_str(indent);
            self.text.push_str(line);
            line_start += line.len();
        }
        for (offset, range) in &printed.ranges {
            let i = shifts.partition_point(|&(start, _)| start <= *offset);
            let shift = i.checked_sub(1).map_or(0, |i| shifts[i].1);
            self.ranges.push((base + offset + shift, range.clone()));
        }
    }
}

impl std::fmt::Write for CodeText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

/// `__torch__.a.b.C` → (`__torch__.a.b`, `C`).
fn split(qualname: &str) -> Result<(&str, &str), String> {
    qualname
        .rsplit_once('.')
        .filter(|(m, _)| *m == "__torch__" || m.starts_with("__torch__."))
        .ok_or_else(|| format!("'{qualname}' is not a __torch__ name"))
}

/// The record of Python module `path`: `code/__torch__/a/b.py`.
fn record(path: &str) -> String {
    format!("code/{}.py", path.replace('.', "/"))
}

fn print_class(
    class: &ClassType,
    name: &str,
    defaults: &HashMap<String, Vec<Option<IValue>>>,
    constants: &mut Vec<AttrValue>,
) -> Result<CodeText, String> {
    let mut out = CodeText::default();
    let attrs = snapshot(&class.attributes);
    if class.is_module {
        let _ = writeln!(out, "class {name}(Module):");
        for (label, kind) in [
            ("__parameters__", AttributeKind::Parameter),
            ("__buffers__", AttributeKind::Buffer),
        ] {
            let names: String = attrs
                .iter()
                .filter(|a| a.kind == kind)
                .map(|a| format!("\"{}\", ", a.name))
                .collect();
            let _ = writeln!(out, "  {label} = [{names}]");
        }
    } else {
        let _ = writeln!(out, "class {name}:");
    }
    for a in &attrs {
        // Names Python cannot spell (a ModuleList's `0`, a keyword) are annotated through the
        // dict, as PyTorch writes them.
        if is_valid_identifier(&a.name) {
            let _ = writeln!(out, "  {} : {}", a.name, annotation(&a.ty));
        } else {
            let _ = writeln!(
                out,
                "  __annotations__[\"{}\"] = {}",
                a.name,
                annotation(&a.ty)
            );
        }
    }
    let class_constants = snapshot(&class.constants);
    for (cname, value) in &class_constants {
        let ty = match value {
            IValue::Bool(_) => "bool",
            IValue::Int(_) => "int",
            IValue::Double(_) => "float",
            IValue::Str(_) => "str",
            other => {
                return Err(format!(
                    "constant '{cname}' of {} ({}) cannot be written yet",
                    class.qualname,
                    other.kind_name()
                ))
            }
        };
        let _ = writeln!(out, "  {cname} : Final[{ty}] = {}", repr(value));
    }
    let methods = snapshot(&class.methods);
    for (mname, f) in &methods {
        let schema = defaults
            .get(&f.qualname)
            .and_then(|d| method_schema(&f.graph, mname, d));
        check_loadable(&f.graph, &f.qualname)?;
        let text =
            print_function_with_constants(&printable(&f.graph), mname, schema.as_ref(), constants)
                .map_err(|e| format!("{}.{mname}: {e}", class.qualname))?;
        out.push_printed(&text, "  ");
    }
    if attrs.is_empty() && class_constants.is_empty() && methods.is_empty() && !class.is_module {
        out.push_str("  pass\n");
    }
    Ok(out)
}

/// `class Name(Interface):` (or `ModuleInterface`) with each method's signature over `pass`.
fn print_interface(class: &ClassType, name: &str) -> String {
    let base = if class.is_module {
        "ModuleInterface"
    } else {
        "Interface"
    };
    let mut out = format!("class {name}({base}):\n");
    let methods = snapshot(&class.methods);
    for (mname, f) in &methods {
        let g = &f.graph;
        let mut params = vec!["self".to_string()];
        for &v in g.inputs().iter().skip(1) {
            let n = g.value_name(v);
            params.push(format!(
                "{}: {}",
                n.split('.').next().unwrap_or(&n),
                annotation(g.ty(v))
            ));
        }
        let ret = match g.outputs() {
            [one] => annotation(g.ty(*one)),
            _ => "NoneType".into(),
        };
        let _ = writeln!(
            out,
            "  def {mname}({}) -> {ret}:\n    pass",
            params.join(", ")
        );
    }
    out
}

/// `class Name(Enum):` with a `MEMBER = value` line per member.
fn print_enum(class: &ClassType, name: &str) -> String {
    let mut out = format!("class {name}(Enum):\n");
    for (member, value) in class
        .constants
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        let _ = writeln!(out, "  {member} = {}", repr(value));
    }
    out
}

/// A copy of what `lock` holds (a poisoned lock's data is still whole).
fn snapshot<T: Clone>(lock: &std::sync::RwLock<T>) -> T {
    lock.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Refuses a graph with nodes PyTorch's loader has no operator for: Ember's own kernels, the
/// executor's guards, groups and profile nodes. They only exist in graphs Ember optimized for
/// itself; an archive must hold PyTorch's ops (write before those passes, or `--freeze`, which
/// writes PyTorch's ops).
fn check_loadable(g: &Graph, what: &str) -> Result<(), String> {
    for n in g.nodes() {
        let kind = g.kind(n);
        let executor_only = [
            sym::tensor_expr_group(),
            sym::type_check(),
            sym::profile(),
            sym::fusion_group(),
        ]
        .contains(&kind);
        if kind.namespace() == "ember" || executor_only {
            let at = g
                .source_range(n)
                .map(|r| format!(" at {r}"))
                .unwrap_or_default();
            return Err(format!(
                "{what}: '{kind}'{at} cannot be written to an archive: PyTorch has no such operator"
            ));
        }
    }
    Ok(())
}

/// `g` without its dead nodes (the importer's unused `prim::Uninitialized` values), which
/// PyTorch's printer would not print either.
fn printable(g: &Graph) -> Graph {
    let mut g = g.clone();
    let _ = dce::run(&mut g, &mut PassContext::unlimited("dce"));
    g
}

/// The schema of method `name` (graph `g`, `self` first) whose inputs after `self` default to
/// `defaults`, for its printed signature.
fn method_schema(g: &Graph, name: &str, defaults: &[Option<IValue>]) -> Option<FunctionSchema> {
    let arguments = g
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let default = match i.checked_sub(1).and_then(|j| defaults.get(j)) {
                Some(Some(d)) => Some(to_const_value(d).ok()?),
                _ => None,
            };
            Some(Argument {
                name: g.debug_name(v).map(parameter_name)?,
                ty: g.ty(v).clone(),
                n: None,
                default,
                kwarg_only: false,
                alias: None,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let returns = g
        .outputs()
        .iter()
        .map(|&v| Argument {
            name: String::new(),
            ty: g.ty(v).clone(),
            n: None,
            default: None,
            kwarg_only: false,
            alias: None,
        })
        .collect();
    Some(FunctionSchema {
        name: name.to_string(),
        overload_name: String::new(),
        arguments,
        returns,
        is_vararg: false,
        is_varret: false,
    })
}

/// A constant of the code's table as the value `constants.pkl` holds.
pub fn constant_ivalue(c: &AttrValue) -> Result<IValue, String> {
    match c {
        AttrValue::Str(s) => Ok(IValue::Str(Arc::new(s.clone()))),
        AttrValue::Tensor(t) => {
            let v = const_to_ivalue(&ember_dialects::attr::ConstValue::Tensor(t.clone()))?;
            // Code constants never require grad (PyTorch refuses one that does); this
            // tensor object is fresh, so setting it touches nothing else.
            if let IValue::Tensor(t) = &v {
                let mut meta = t.meta().clone();
                meta.requires_grad = false;
                t.set_meta(meta).map_err(|e| e.to_string())?;
            }
            Ok(v)
        }
        other => Err(format!("constant {other:?} cannot be written")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::parse::parse_graph;
    use ember_runtime::unit::{ClassAttribute, Function};

    /// Attribute names Python cannot spell (a keyword, a ModuleList's index) are annotated
    /// through `__annotations__` and read with `getattr`, so PyTorch's importer takes them.
    #[test]
    fn names_python_cannot_spell() {
        let class = ClassType::new("__torch__.M", true);
        for name in ["training", "if", "0"] {
            class.add_attribute(ClassAttribute {
                name: name.into(),
                ty: if name == "training" {
                    Type::Bool
                } else {
                    Type::tensor()
                },
                kind: AttributeKind::Regular,
            });
        }
        let graph = parse_graph(
            "graph(%self : __torch__.M, %x : Tensor):\n  %w : Tensor = prim::GetAttr[name=\"if\"](%self)\n  %y : Tensor = aten::mul(%x, %w)\n  return (%y)\n",
        )
        .unwrap();
        class.add_method(Arc::new(Function::new("__torch__.M.forward", graph)));
        let text = print_class(&class, "M", &HashMap::new(), &mut Vec::new())
            .unwrap()
            .text;
        assert!(text.contains("  training : bool\n"), "{text}");
        assert!(
            text.contains("  __annotations__[\"if\"] = Tensor\n"),
            "{text}"
        );
        assert!(
            text.contains("  __annotations__[\"0\"] = Tensor\n"),
            "{text}"
        );
        assert!(text.contains("getattr(self, \"if\")"), "{text}");
    }
}
