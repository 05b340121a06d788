//! What `nn.Module`'s own Python does in a module's `__init__`, which PyTorch runs in Python
//! and Ember compiles so that it can construct a module defined in a `.py` file:
//! `super().__init__()` sets `training`, `self.w = nn.Parameter(t)` adds a parameter,
//! `self.register_buffer("name", t)` a buffer, and `self.layers = nn.ModuleList([...])` a
//! container of modules. Everything else of `__init__` is ordinary
//! TorchScript (attributes are added at their first assignment, submodules are created as
//! objects of their classes).

use ember_dialects::attr::ConstValue;
use ember_dialects::Value;
use ember_runtime::unit::AttributeKind;

use super::sugared::Sugared;
use super::types::dotted_name;
use super::{FnEmitter, R};
use crate::frontend::ast::{Expr, ExprKind, Stmt, StmtKind};

/// The paths `nn.Parameter` is known by.
const PARAMETER: [&str; 2] = ["torch.nn.Parameter", "torch.nn.parameter.Parameter"];

const MODULE_LIST: &str = "torch.nn.ModuleList";

impl FnEmitter<'_> {
    /// Emits `s` if it is one of the statements of `nn.Module`'s protocol in a module's
    /// `__init__`; `None` for any other statement.
    pub fn emit_module_init_statement(&mut self, s: &Stmt) -> Option<R<()>> {
        if !self.in_module_init() {
            return None;
        }
        match &s.kind {
            StmtKind::Expr(e) if is_super_init(e) => Some(self.init_training(s)),
            StmtKind::Expr(e) => {
                let (obj, method, args) = self_method_call(e)?;
                (method == "register_buffer").then(|| self.register_buffer(s, obj, args))
            }
            StmtKind::Assign {
                targets,
                annotation: None,
                value: Some(value),
            } => {
                let [target] = targets.as_slice() else {
                    return None;
                };
                let ExprKind::Attribute { value: obj, attr } = &target.kind else {
                    return None;
                };
                // `requires_grad=` is for training: Ember's tensors carry no gradient.
                let ExprKind::Call { func, args, .. } = &value.kind else {
                    return None;
                };
                let path = self.import_path(func)?;
                if path == MODULE_LIST {
                    return Some(self.set_module_list(s, obj, &attr.name, args));
                }
                if !PARAMETER.contains(&path.as_str()) || args.len() != 1 {
                    return None;
                }
                Some(self.set_module_attr(s, obj, &attr.name, &args[0], AttributeKind::Parameter))
            }
            _ => None,
        }
    }

    /// `nn.Module.__init__`: `self.training = True`.
    fn init_training(&mut self, s: &Stmt) -> R<()> {
        let this = self.g.inputs()[0];
        let on = self.insert_constant(ConstValue::Bool(true), s.span);
        let obj = Sugared::Simple(this);
        self.sugared_set_attr(s.span, &obj, "training", on, None)
    }

    /// `self.register_buffer(name, tensor, persistent=True)`.
    fn register_buffer(&mut self, s: &Stmt, obj: &Expr, args: &[Expr]) -> R<()> {
        let [name, tensor, ..] = args else {
            return Err(self.err(
                s.span,
                "register_buffer() takes a name and a tensor: register_buffer(name, tensor)",
            ));
        };
        let ExprKind::Str(name) = &name.kind else {
            return Err(self.err(name.span, "register_buffer's name must be a string literal"));
        };
        self.set_module_attr(s, obj, &name.clone(), tensor, AttributeKind::Buffer)
    }

    /// `obj.field = nn.ModuleList([m0, m1, ...])` (or `nn.ModuleList()`).
    fn set_module_list(&mut self, s: &Stmt, obj: &Expr, field: &str, args: &[Expr]) -> R<()> {
        let mut items = Vec::new();
        match args {
            [] => {}
            [list] => match &list.kind {
                ExprKind::List(elements) => {
                    for e in elements {
                        let v = self.emit_sugared_expr(e, 1, None)?;
                        items.push((e.span, self.as_value(e.span, &v)?));
                    }
                }
                // `[Block() for i in range(4)]`, its trip count written out: one module per
                // trip, the target bound to each trip's index.
                ExprKind::ListComp {
                    elt,
                    target,
                    iter,
                    cond: None,
                } if constant_range(iter).is_some() && matches!(target.kind, ExprKind::Name(_)) => {
                    let ExprKind::Name(name) = &target.kind else {
                        unreachable!("matched above")
                    };
                    for i in 0..constant_range(iter).unwrap_or(0) {
                        let index = self.insert_constant(ConstValue::Int(i), target.span);
                        self.set_sugared_var(target.span, name, Sugared::Simple(index), None)?;
                        let v = self.emit_sugared_expr(elt, 1, None)?;
                        items.push((elt.span, self.as_value(elt.span, &v)?));
                    }
                }
                _ => {
                    return Err(self.err(
                        list.span,
                        "Ember creates an nn.ModuleList of a list written out (nn.ModuleList([a, b])) or of a comprehension over range(N) with N written out",
                    ))
                }
            },
            _ => return Err(self.err(s.span, "nn.ModuleList takes one list of modules")),
        }
        let list = self.emit_module_list(s.span, &items)?;
        let obj = self.emit_sugared_expr(obj, 1, None)?;
        self.sugared_set_attr(s.span, &obj, field, list, None)
    }

    /// `obj.field = value`, the attribute of kind `kind`.
    fn set_module_attr(
        &mut self,
        s: &Stmt,
        obj: &Expr,
        field: &str,
        value: &Expr,
        kind: AttributeKind,
    ) -> R<()> {
        let obj = self.emit_sugared_expr(obj, 1, None)?;
        let v = self.emit_sugared_expr(value, 1, None)?;
        let v: Value = self.as_value(value.span, &v)?;
        self.sugared_set_attr(s.span, &obj, field, v, None)?;
        if let Some(class) = self.self_class.clone() {
            self.set_attribute_kind(&class, field, kind);
        }
        Ok(())
    }

    /// The full dotted path of `e` (`nn.Parameter` → `torch.nn.Parameter`) through the file's
    /// imports.
    fn import_path(&self, e: &Expr) -> Option<String> {
        let path = dotted_name(e)?;
        let (head, rest) = match path.split_once('.') {
            Some((h, r)) => (h.to_string(), Some(r.to_string())),
            None => (path.clone(), None),
        };
        let head = self.cx.imports.get(&head).cloned().unwrap_or(head);
        Some(match rest {
            Some(r) => format!("{head}.{r}"),
            None => head,
        })
    }
}

/// `super().__init__(...)`.
pub fn is_super_init(e: &Expr) -> bool {
    let ExprKind::Call { func, .. } = &e.kind else {
        return false;
    };
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return false;
    };
    let ExprKind::Call { func: inner, .. } = &value.kind else {
        return false;
    };
    attr.name == "__init__" && matches!(&inner.kind, ExprKind::Name(n) if n == "super")
}

/// `self.method(args)`: the object expression, the method's name and the arguments.
fn self_method_call(e: &Expr) -> Option<(&Expr, &str, &[Expr])> {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    matches!(&value.kind, ExprKind::Name(n) if n == "self").then_some((
        value.as_ref(),
        attr.name.as_str(),
        args.as_slice(),
    ))
}

/// N of `range(N)` with N an integer written out.
fn constant_range(e: &Expr) -> Option<i64> {
    let ExprKind::Call { func, args, kwargs } = &e.kind else {
        return None;
    };
    match (&func.kind, args.as_slice()) {
        (ExprKind::Name(f), [n]) if f == "range" && kwargs.is_empty() => match n.kind {
            ExprKind::Int(n) => i64::try_from(n).ok().filter(|n| (0..=1024).contains(n)),
            _ => None,
        },
        _ => None,
    }
}
