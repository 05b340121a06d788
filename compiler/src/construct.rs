//! The module a TorchScript source file defines, constructed without Python: what
//! `torch.jit.script(M())` is given. The root is the last `nn.Module` class of the file that
//! no other of its module classes holds; its `__init__` (compiled like any method, with
//! `nn.Module`'s protocol in module_init.rs) runs in the interpreter with no arguments, from
//! the default generator at PyTorch's default seed, so random initial values are those of
//! `M()` in a fresh PyTorch process.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ember_dialects::schema::FunctionSchema;
use ember_dialects::Type;
use ember_runtime::interpreter::call_function;
use ember_runtime::ivalue::{IValue, Object};
use ember_runtime::ops::create::random::{seed_default, DEFAULT_SEED};
use ember_runtime::unit::{AttributeKind, ClassAttribute, ClassType, CompilationUnit, Function};

use crate::model::{source_defaults, Entry};

/// The module of a compiled source file, constructed, with its methods (but `__init__`) added
/// to `entries`: `None` for a file of functions. Its classes lose `__init__` (in the unit and
/// in `methods`), as the classes of `torch.jit.script(M())` have none.
pub fn construct(
    unit: &Arc<CompilationUnit>,
    schemas: &HashMap<String, FunctionSchema>,
    entries: &mut Vec<Entry>,
    methods: &mut Vec<Arc<Function>>,
) -> Result<Option<Arc<Object>>, String> {
    let object = match root_module(unit, schemas)? {
        Ok(object) => object,
        // A file of functions (and the classes they use) needs no module.
        Err(_) if !entries.is_empty() => return Ok(None),
        Err(why) => return Err(why),
    };
    entries.extend(module_entries(&object, schemas));
    let mut inits = HashSet::new();
    for c in unit.classes().iter().filter(|c| c.is_module) {
        let mut ms = c.methods.write().unwrap_or_else(|e| e.into_inner());
        if let Some(init) = ms.shift_remove("__init__") {
            inits.insert(init.qualname.clone());
        }
    }
    methods.retain(|m| !inits.contains(&m.qualname));
    Ok(Some(object))
}

/// The root module of `unit`, constructed: `Ok(Err(why))` when the file defines none that
/// can be constructed with no arguments, `Err` when its `__init__` raised.
fn root_module(
    unit: &Arc<CompilationUnit>,
    schemas: &HashMap<String, FunctionSchema>,
) -> Result<Result<Arc<Object>, String>, String> {
    let Some(class) = root_class(unit) else {
        return Ok(Err("the file defines no function and no nn.Module".into()));
    };
    let short = class.qualname.rsplit('.').next().unwrap_or(&class.qualname);
    let Some(init) = class.method("__init__") else {
        // nn.Module's own __init__: `training` and nothing else.
        let slot = class.add_attribute(ClassAttribute {
            name: "training".into(),
            ty: Type::Bool,
            kind: AttributeKind::Regular,
        });
        let object = class.instantiate();
        object.set_slot(slot, IValue::Bool(true));
        return Ok(Ok(object));
    };
    let object = class.instantiate();
    let schema = schemas.get(&init.qualname);
    let mut defaults = schema.map(source_defaults).unwrap_or_default();
    defaults.resize(init.graph.inputs().len() - 1, None);
    if let Some(i) = defaults.iter().position(Option::is_none) {
        let arg = schema
            .and_then(|s| s.arguments.iter().filter(|a| a.name != "self").nth(i))
            .map_or("?", |a| a.name.as_str());
        return Ok(Err(format!(
            "module class '{short}' cannot be constructed: its __init__ needs argument '{arg}' \
             (Ember constructs a file's module with no arguments, as `{short}()`)"
        )));
    }
    let mut inputs = vec![IValue::Object(object.clone())];
    inputs.extend(defaults.into_iter().flatten());
    seed_default(DEFAULT_SEED);
    call_function(&init, Some(unit), inputs)
        .map_err(|e| format!("constructing module '{short}' (its __init__) failed: {e}"))?;
    Ok(Ok(object))
}

/// The entry points of a constructed module: its methods but `__init__`.
fn module_entries(object: &Arc<Object>, schemas: &HashMap<String, FunctionSchema>) -> Vec<Entry> {
    let methods = object
        .class
        .methods
        .read()
        .unwrap_or_else(|e| e.into_inner());
    methods
        .iter()
        .filter(|(name, _)| name.as_str() != "__init__")
        .map(|(name, f)| Entry {
            name: name.clone(),
            function: f.clone(),
            is_method: true,
            defaults: schemas
                .get(&f.qualname)
                .map(source_defaults)
                .unwrap_or_default(),
            schema: None,
        })
        .collect()
}

/// The last module class of the file that no other module class holds as an attribute (not
/// one of `torch.nn`'s, which the file's classes use).
fn root_class(unit: &CompilationUnit) -> Option<Arc<ClassType>> {
    let modules: Vec<Arc<ClassType>> = unit
        .classes()
        .into_iter()
        .filter(|c| c.is_module && !c.is_interface)
        .collect();
    let of_file = |c: &ClassType| {
        c.qualname
            .strip_prefix("__torch__.")
            .is_some_and(|name| !name.contains('.'))
    };
    let mut held = HashSet::new();
    for c in &modules {
        for a in c
            .attributes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            classes_in(&a.ty, &mut held);
        }
    }
    modules
        .into_iter()
        .rev()
        .find(|c| of_file(c) && !held.contains(&c.qualname))
}

/// The classes a type names.
pub fn classes_in(t: &Type, out: &mut HashSet<String>) {
    match t {
        Type::Class(q) => {
            out.insert(q.clone());
        }
        Type::List(e) | Type::Optional(e) => classes_in(e, out),
        Type::Dict(k, v) => {
            classes_in(k, out);
            classes_in(v, out);
        }
        Type::Tuple(tt) => tt.elements.iter().for_each(|e| classes_in(e, out)),
        _ => {}
    }
}
