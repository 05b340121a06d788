//! The `torch.nn` modules a module's `__init__` may create (`nn.Linear(4, 3)`,
//! `nn.Sequential(...)`), so that Ember can construct a module of a `.py` file that uses them.
//! Leaf modules are TorchScript source in this folder, one file per module of
//! `torch.nn.modules` (their classes are PyTorch's `__torch__.torch.nn.modules.linear.Linear`),
//! compiled into the unit that uses them the first time it does; BatchNorm and Conv are each
//! one template class made per rank. `nn.Sequential` and `nn.ModuleList` are made per call: a
//! class whose attributes `"0"`, `"1"`, ... are the modules given (and, for a Sequential, whose
//! `forward` calls them in turn), as PyTorch makes one per instance.

use std::collections::HashMap;
use std::sync::Arc;

use ember_dialects::attr::ConstValue;
use ember_dialects::{AttrValue, Graph, Symbol, Type, Value};
use ember_runtime::unit::{AttributeKind, ClassAttribute, ClassType, Function};

use super::{ClassInfo, FnEmitter, FnSig, ModuleCx, NoResolver, ParamSig, R};
use crate::frontend::schema_match::NamedValue;
use crate::frontend::span::{SourceFile, Span};

/// Each file: its module under `torch.nn.modules`, its source and its classes.
type File = (&'static str, fn() -> String, &'static [&'static str]);

const FILES: [File; 9] = [
    (
        "linear",
        || include_str!("linear.py").into(),
        &["Identity", "Linear"],
    ),
    ("conv", conv_source, &["Conv1d", "Conv2d"]),
    (
        "activation",
        || include_str!("activation.py").into(),
        &[
            "ReLU",
            "ReLU6",
            "LeakyReLU",
            "GELU",
            "SiLU",
            "Hardswish",
            "Sigmoid",
            "Tanh",
            "Softmax",
        ],
    ),
    (
        "batchnorm",
        batchnorm_source,
        &["BatchNorm1d", "BatchNorm2d"],
    ),
    (
        "normalization",
        || include_str!("normalization.py").into(),
        &["LayerNorm"],
    ),
    (
        "dropout",
        || include_str!("dropout.py").into(),
        &["Dropout"],
    ),
    (
        "pooling",
        || include_str!("pooling.py").into(),
        &["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"],
    ),
    (
        "flatten",
        || include_str!("flatten.py").into(),
        &["Flatten"],
    ),
    (
        "sparse",
        || include_str!("sparse.py").into(),
        &["Embedding"],
    ),
];

/// Placeholders of a template class and what replaces them.
type Substitutions = Vec<(String, String)>;

fn substitutions(pairs: &[(&str, &str)]) -> Substitutions {
    pairs
        .iter()
        .map(|(from, to)| (from.to_string(), to.to_string()))
        .collect()
}

/// batchnorm.py's template class made BatchNorm1d and BatchNorm2d, which differ only in the
/// ranks their input may have.
fn batchnorm_source() -> String {
    instantiate(
        include_str!("batchnorm.py"),
        "BatchNormNd",
        &[
            (
                "BatchNorm1d",
                substitutions(&[("RANKS", "[2, 3]"), ("EXPECTED", "2D or 3D")]),
            ),
            (
                "BatchNorm2d",
                substitutions(&[("RANKS", "[4]"), ("EXPECTED", "4D")]),
            ),
        ],
    )
}

/// conv.py's template class made Conv1d and Conv2d: their rank, the type of a size tuple,
/// a size tuple's items, and the operator.
fn conv_source() -> String {
    let conv = |rank: usize, sizes: &str, op: &str| {
        let mut subs = substitutions(&[("SIZES", sizes), ("OP", op)]);
        subs.push(("RANK".into(), rank.to_string()));
        for name in ["kernel_size", "stride", "padding", "dilation"] {
            let items: Vec<String> = (0..rank).map(|i| format!("{name}[{i}]")).collect();
            subs.push((format!("ITEMS({name})"), format!("[{}]", items.join(", "))));
        }
        subs
    };
    instantiate(
        include_str!("conv.py"),
        "ConvNd",
        &[
            ("Conv1d", conv(1, "Tuple[int]", "conv1d")),
            ("Conv2d", conv(2, "Tuple[int, int]", "conv2d")),
        ],
    )
}

/// The text of a template file with its class `template` made once per instance: the class
/// renamed, and each placeholder of the instance replaced (the longest first, so `ITEMS(...)`
/// goes before a shorter placeholder inside it).
fn instantiate(text: &str, template: &str, instances: &[(&str, Substitutions)]) -> String {
    let (head, class) = text
        .split_once(&format!("class {template}"))
        .expect("the file holds the template class");
    let mut out = head.to_string();
    for (name, subs) in instances {
        let mut subs = subs.clone();
        subs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        let mut body = format!("class {name}{class}").replace(template, name);
        for (from, to) in subs {
            body = body.replace(&from, &to);
        }
        out.push_str(&body);
        out.push_str("\n\n");
    }
    out
}

const CONTAINER: &str = "__torch__.torch.nn.modules.container";

/// What `torch.nn.<name>` is: `Some(true)` for `Sequential`, `Some(false)` for a leaf module
/// of this folder.
pub fn is_nn_module(name: &str) -> Option<bool> {
    if name == "Sequential" {
        return Some(true);
    }
    FILES
        .iter()
        .any(|(_, _, classes)| classes.contains(&name))
        .then_some(false)
}

/// The names of the modules Ember can create, for messages.
pub fn creatable() -> Vec<&'static str> {
    let mut names: Vec<&str> = FILES
        .iter()
        .flat_map(|(_, _, classes)| classes.iter().copied())
        .collect();
    names.extend(["Sequential", "ModuleList"]);
    names
}

impl ModuleCx<'_> {
    /// The qualified name of leaf module class `torch.nn.<name>`, its file compiled into the
    /// unit (and its classes made known to this file) if they are not yet.
    pub fn ensure_nn_class(&self, name: &str) -> Result<String, String> {
        let (module, source, _) = FILES
            .iter()
            .find(|(_, _, classes)| classes.contains(&name))
            .ok_or_else(|| format!("torch.nn.{name} is not a module Ember can create"))?;
        let prefix = format!("__torch__.torch.nn.modules.{module}");
        let qual = format!("{prefix}.{name}");
        if self.state.borrow().classes.contains_key(&qual) {
            return Ok(qual);
        }
        let file = Arc::new(SourceFile::new(
            format!("torch/nn/modules/{module}.py"),
            source(),
        ));
        let parsed = crate::frontend::parser::parse_module(&file).map_err(|e| e.render(&file))?;
        let compiled = super::module::compile_module_functions(
            file.clone(),
            &parsed,
            self.unit,
            &NoResolver,
            &prefix,
        )
        .map_err(|e| e.render(&file))?;
        // Their methods' signatures (defaults included) for calls from this file.
        let mut infos: HashMap<String, ClassInfo> = HashMap::new();
        for (key, (sig, _)) in compiled {
            let Some((class, method)) = key.rsplit_once('.') else {
                continue;
            };
            if !class.starts_with(&prefix) {
                continue;
            }
            let info = infos.entry(class.to_string()).or_insert_with(|| ClassInfo {
                is_module: true,
                ..ClassInfo::default()
            });
            info.methods.push(method.to_string());
            info.sigs.insert(method.to_string(), sig);
        }
        self.state.borrow_mut().classes.extend(infos);
        Ok(qual)
    }
}

impl FnEmitter<'_> {
    /// `nn.Sequential(m0, m1, ...)` in a module's `__init__`: an object of a class made for
    /// these modules' types, whose `forward` calls them in turn.
    pub fn emit_sequential(
        &mut self,
        span: Span,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
    ) -> R<Value> {
        if !self.in_module_init() {
            return Err(self.err(
                span,
                "Cannot instantiate class 'Sequential' in a script function",
            ));
        }
        if !kwargs.is_empty() {
            return Err(self.err(span, "nn.Sequential takes modules, not keyword arguments"));
        }
        let mut members = Vec::new();
        for a in &args {
            let ty = self.g.ty(a.value).clone();
            let forward = match &ty {
                Type::Class(q) => self.method_sig(span, q, "forward")?,
                _ => None,
            };
            match forward {
                Some(sig) if !sig.params.is_empty() => members.push((ty, sig)),
                _ => {
                    return Err(self.err(
                        a.span,
                        format!(
                            "nn.Sequential takes modules with a forward of one input, got {}",
                            ty.repr_str()
                        ),
                    ))
                }
            }
        }
        let types: Vec<Type> = members.iter().map(|(t, _)| t.clone()).collect();
        let (class, qual) = self.container_class("Sequential", &types);
        let (forward, sig) = sequential_forward(&qual, &members, self.cx.file.source_range(span));
        class.add_method(Arc::new(forward));
        let info = ClassInfo {
            is_module: true,
            methods: vec!["forward".into()],
            sigs: HashMap::from([("forward".to_string(), sig)]),
            ..ClassInfo::default()
        };
        self.register_container(class, &qual, info);
        let values: Vec<Value> = args.iter().map(|a| a.value).collect();
        Ok(self.emit_container(span, &qual, &values))
    }

    /// `nn.ModuleList([m0, m1, ...])` in a module's `__init__` (`items`, emitted): an object
    /// of a class made for these modules' types, which `for m in self.layers` iterates
    /// unrolled, as PyTorch does.
    pub fn emit_module_list(&mut self, span: Span, items: &[(Span, Value)]) -> R<Value> {
        let mut types = Vec::new();
        for &(at, v) in items {
            let ty = self.g.ty(v).clone();
            let is_module = matches!(&ty, Type::Class(q)
                if self.cx.state.borrow().classes.get(q).is_some_and(|c| c.is_module));
            if !is_module {
                return Err(self.err(
                    at,
                    format!("nn.ModuleList holds modules, got {}", ty.repr_str()),
                ));
            }
            types.push(ty);
        }
        let (class, qual) = self.container_class("ModuleList", &types);
        let info = ClassInfo {
            is_module: true,
            ..ClassInfo::default()
        };
        self.register_container(class, &qual, info);
        let values: Vec<Value> = items.iter().map(|&(_, v)| v).collect();
        Ok(self.emit_container(span, &qual, &values))
    }

    /// The modules an `nn.ModuleList` object holds (`obj.0`, `obj.1`, ...), or `None` when
    /// `obj` is no ModuleList.
    pub fn module_list_items(&mut self, span: Span, obj: Value) -> Option<Vec<Value>> {
        let Type::Class(qual) = self.g.ty(obj).clone() else {
            return None;
        };
        if !(qual.starts_with(CONTAINER) && qual.ends_with(".ModuleList")) {
            return None;
        }
        let class = self.cx.unit.class(&qual)?;
        let attrs = class
            .attributes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let items = attrs
            .into_iter()
            .filter(|a| a.name != "training")
            .map(|a| {
                let n = self.emit_node(Symbol::prim("GetAttr"), &[obj], vec![a.ty], span);
                self.g
                    .set_attr(n, Symbol::attr("name"), AttrValue::Str(a.name));
                self.g.output(n, 0)
            })
            .collect();
        Some(items)
    }

    /// A new container class of torch.nn.modules.container (`kind`: Sequential or ModuleList)
    /// whose attributes `"0"`, `"1"`, ... have `types`, named as PyTorch names the classes of
    /// its container instances.
    fn container_class(&mut self, kind: &str, types: &[Type]) -> (ClassType, String) {
        let unit = self.cx.unit;
        let qual = (0..)
            .map(|i| match i {
                0 => format!("{CONTAINER}.{kind}"),
                i => format!("{CONTAINER}.___torch_mangle_{i}.{kind}"),
            })
            .find(|q| unit.class(q).is_none())
            .expect("a free name");
        let class = ClassType::new(qual.clone(), true);
        let attribute = |name: String, ty: Type| ClassAttribute {
            name,
            ty,
            kind: AttributeKind::Regular,
        };
        class.add_attribute(attribute("training".into(), Type::Bool));
        for (i, ty) in types.iter().enumerate() {
            class.add_attribute(attribute(i.to_string(), ty.clone()));
        }
        (class, qual)
    }

    fn register_container(&mut self, class: ClassType, qual: &str, info: ClassInfo) {
        self.cx.unit.add_class(class);
        self.cx
            .state
            .borrow_mut()
            .classes
            .insert(qual.to_string(), info);
    }

    /// A new object of container class `qual` in training mode, holding `values`.
    fn emit_container(&mut self, span: Span, qual: &str, values: &[Value]) -> Value {
        let n = self.emit_node(
            Symbol::prim("CreateObject"),
            &[],
            vec![Type::Class(qual.to_string())],
            span,
        );
        let obj = self.g.output(n, 0);
        let on = self.insert_constant(ConstValue::Bool(true), span);
        let items = std::iter::once(("training".to_string(), on))
            .chain(values.iter().enumerate().map(|(i, &v)| (i.to_string(), v)));
        for (name, v) in items {
            let set = self.emit_node(Symbol::prim("SetAttr"), &[obj, v], vec![], span);
            self.g
                .set_attr(set, Symbol::attr("name"), AttrValue::Str(name));
        }
        obj
    }
}

/// The `forward` of Sequential class `qual` of `members` (each one's type and forward
/// signature), its calls pointing at the `nn.Sequential(...)` of the source (`range`), and its
/// signature.
fn sequential_forward(
    qual: &str,
    members: &[(Type, FnSig)],
    range: ember_dialects::SourceRange,
) -> (Function, FnSig) {
    let input = members
        .first()
        .map_or(Type::tensor(), |(_, sig)| sig.params[0].ty.clone());
    let mut g = Graph::new();
    let this = g.add_input(Type::Class(qual.to_string()));
    g.set_debug_name(this, "self");
    let mut x = g.add_input(input.clone());
    g.set_debug_name(x, "input");
    for (i, (ty, sig)) in members.iter().enumerate() {
        let get = g.create(Symbol::prim("GetAttr"), &[this], 1);
        g.set_attr(get, Symbol::attr("name"), AttrValue::Str(i.to_string()));
        g.set_ty(g.output(get, 0), ty.clone());
        g.set_source_range(get, Some(range.clone()));
        g.append_node(get);
        let call = g.create(Symbol::prim("CallMethod"), &[g.output(get, 0), x], 1);
        g.set_attr(call, Symbol::attr("name"), AttrValue::Str("forward".into()));
        g.set_ty(g.output(call, 0), sig.ret.clone());
        g.set_source_range(call, Some(range.clone()));
        g.append_node(call);
        x = g.output(call, 0);
    }
    g.register_output(x);
    let sig = FnSig {
        params: vec![ParamSig {
            name: "input".into(),
            ty: input,
            n: None,
            default: None,
            kwarg_only: false,
        }],
        ret: g.ty(x).clone(),
    };
    (Function::new(format!("{qual}.forward"), g), sig)
}
