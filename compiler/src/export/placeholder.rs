//! Models whose archive PyTorch would write differently from Ember's model of them: functions
//! (`.py` sources, `.ir` graphs), as `torch.jit.script(fn).save()` writes them (a
//! `__torch__.PlaceholderModule` whose `forward` is the function, with the other functions of
//! the source beside it), modules a source file defines, and frozen modules. Source functions
//! are named plainly in Ember's unit (`affine`); in an archive they live in `__torch__`
//! (`__torch__.affine`), and the calls to them are renamed to match.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use ember_dialects::symbol::sym;
use ember_dialects::{AttrValue, Graph, Symbol, Type};
use ember_runtime::ivalue::{IValue, Object};
use ember_runtime::unit::{AttributeKind, ClassAttribute, ClassType, CompilationUnit, Function};

use crate::model::{Entry, Model, ModelKind};

const PLACEHOLDER: &str = "__torch__.PlaceholderModule";

/// `name` in `__torch__`.
fn qualify(name: &str) -> String {
    if name == "__torch__" || name.starts_with("__torch__.") {
        name.to_string()
    } else {
        format!("__torch__.{name}")
    }
}

/// `g` with its calls of plainly named functions naming them in `__torch__`.
pub(super) fn qualify_calls(g: &Graph) -> Graph {
    let mut g = g.clone();
    let name_attr = Symbol::attr("name");
    for n in g.nodes() {
        if g.kind(n) != sym::constant() || g.node_outputs(n).len() != 1 {
            continue;
        }
        let out = g.output(n, 0);
        let Type::Function(q) = g.ty(out) else {
            continue;
        };
        if !q.is_empty() && q != "Function" {
            let q = qualify(q);
            g.set_ty(out, Type::Function(q));
        }
        if let Some(AttrValue::Str(name)) = g.attr(n, name_attr) {
            let name = qualify(name);
            g.set_attr(n, name_attr, AttrValue::Str(name));
        }
    }
    g
}

/// Registers the NamedTuple and Enum types of `from` in `to`.
fn copy_named_types(from: &CompilationUnit, to: &CompilationUnit) {
    for t in from.named_types() {
        if let Some(q) = named_type_name(&t) {
            to.add_named_type(q, t);
        }
    }
}

/// The model whose module is a `PlaceholderModule` running function `entry` of `model`.
pub fn placeholder_model(model: &Model, entry: &str) -> Result<Model, String> {
    let e = model.entry(Some(entry))?;
    let unit = CompilationUnit::new();
    for f in model.unit.functions() {
        if f.qualname == e.function.qualname {
            continue;
        }
        let q = qualify(&f.qualname);
        if unit.function(&q).is_none() {
            unit.add_function(Function::new(q, qualify_calls(&f.graph)));
        }
    }
    for c in model.unit.classes() {
        unit.add_class_arc(c);
    }
    copy_named_types(&model.unit, &unit);
    let class = ClassType::new(PLACEHOLDER, true);
    class.add_attribute(ClassAttribute {
        name: "training".into(),
        ty: Type::Bool,
        kind: AttributeKind::Regular,
    });
    let mut graph = qualify_calls(e.graph());
    let this = graph.insert_input(0, Type::Class(PLACEHOLDER.into()));
    graph.set_debug_name(this, "self");
    let forward = Arc::new(Function::new(format!("{PLACEHOLDER}.forward"), graph));
    class.add_method(forward.clone());
    let class = unit.add_class(class);
    let module = Arc::new(Object::new(class));
    module.set_slot(0, IValue::Bool(true));
    Ok(Model {
        name: model.name.clone(),
        kind: ModelKind::Archive,
        unit: Arc::new(unit),
        module: Some(module),
        entries: vec![Entry {
            name: "forward".into(),
            function: forward.clone(),
            is_method: true,
            defaults: e.defaults.clone(),
            schema: None,
        }],
        methods: vec![forward],
        extra: BTreeMap::new(),
        sources: model.sources.clone(),
        source_maps: model.source_maps.clone(),
    })
}

/// The module a source file defines (its `model.module`), with the file's functions in
/// `__torch__` and every call renamed to match, and only the classes its code and objects
/// still use (not those only `__init__` used, such as `torch.no_grad`'s).
pub fn source_module(mut model: Model) -> Result<Model, String> {
    model.transform_graphs(&mut |_, g| {
        *g = qualify_calls(g);
        Ok(())
    })?;
    let unit = CompilationUnit::new();
    for f in model.unit.functions() {
        unit.add_function(Function::new(qualify(&f.qualname), f.graph.clone()));
    }
    let root = model
        .module
        .as_ref()
        .ok_or("no module")?
        .class
        .qualname
        .clone();
    let used = used_classes(&model.unit, &root);
    for c in model.unit.classes() {
        if used.contains(&c.qualname) {
            unit.add_class_arc(c);
        }
    }
    copy_named_types(&model.unit, &unit);
    model.unit = Arc::new(unit);
    Ok(model)
}

/// The classes of `unit` that class `root` and the functions use: through attributes, and
/// the types of the values of their code.
fn used_classes(unit: &CompilationUnit, root: &str) -> HashSet<String> {
    let mut used = HashSet::from([root.to_string()]);
    let mut work: Vec<Graph> = unit.functions().iter().map(|f| f.graph.clone()).collect();
    let mut queue = vec![root.to_string()];
    loop {
        while let Some(g) = work.pop() {
            for n in g.nodes() {
                for &v in g.node_inputs(n).iter().chain(g.node_outputs(n)) {
                    let mut found = HashSet::new();
                    crate::construct::classes_in(g.ty(v), &mut found);
                    queue.extend(found.into_iter().filter(|q| used.insert(q.clone())));
                }
            }
        }
        let Some(q) = queue.pop() else {
            return used;
        };
        let Some(class) = unit.class(&q) else {
            continue;
        };
        let mut found = HashSet::new();
        for a in class
            .attributes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            crate::construct::classes_in(&a.ty, &mut found);
        }
        queue.extend(found.into_iter().filter(|q| used.insert(q.clone())));
        let methods = class.methods.read().unwrap_or_else(|e| e.into_inner());
        work.extend(methods.values().map(|f| f.graph.clone()));
    }
}

fn named_type_name(t: &Type) -> Option<String> {
    match t {
        Type::Tuple(tt) => tt.names.as_ref().map(|n| n.qualified_name.clone()),
        Type::Enum(q) => Some(q.clone()),
        _ => None,
    }
}

/// The model `torch.jit.freeze` would save: the root class keeps only the attributes the
/// frozen `forward` (`graph`, in PyTorch's ops) still reads, `training` among them, and that
/// one method; parameters and submodules became constants of the code.
pub fn frozen_model(model: &Model, graph: Graph) -> Result<Model, String> {
    let module = model.module.as_ref().ok_or("only a module can be frozen")?;
    let old = &module.class;
    let this = *graph
        .inputs()
        .first()
        .ok_or("the frozen forward has no self")?;
    let mut read: Vec<String> = graph
        .uses(this)
        .iter()
        .filter(|u| graph.kind(u.user) == sym::get_attr())
        .filter_map(|u| match graph.attr(u.user, Symbol::attr("name")) {
            Some(AttrValue::Str(n)) => Some(n.clone()),
            _ => None,
        })
        .collect();
    if !read.iter().any(|n| n == "training") {
        read.push("training".into());
    }
    let old_attrs = old
        .attributes
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let class = ClassType::new(old.qualname.clone(), true);
    let mut slots = Vec::new();
    for (i, a) in old_attrs.iter().enumerate() {
        if read.contains(&a.name) {
            class.add_attribute(a.clone());
            slots.push(module.slot(i).unwrap_or(IValue::None));
        }
    }
    for (name, value) in old
        .constants
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        class.add_constant(name.clone(), value.clone());
    }
    let forward = Arc::new(Function::new(format!("{}.forward", old.qualname), graph));
    class.add_method(forward.clone());
    let unit = CompilationUnit::new();
    for c in model.unit.classes() {
        if c.qualname != old.qualname {
            unit.add_class_arc(c);
        }
    }
    for f in model.unit.functions() {
        unit.add_function(Function::new(f.qualname.clone(), f.graph.clone()));
    }
    copy_named_types(&model.unit, &unit);
    let class = unit.add_class(class);
    let object = Arc::new(Object::new(class));
    for (i, v) in slots.into_iter().enumerate() {
        object.set_slot(i, v);
    }
    let defaults = model.entry(Some("forward"))?.defaults.clone();
    Ok(Model {
        name: model.name.clone(),
        kind: ModelKind::Archive,
        unit: Arc::new(unit),
        module: Some(object),
        entries: vec![Entry {
            name: "forward".into(),
            function: forward.clone(),
            is_method: true,
            defaults,
            schema: None,
        }],
        methods: vec![forward],
        extra: model.extra.clone(),
        sources: model.sources.clone(),
        source_maps: model.source_maps.clone(),
    })
}
