//! Defs: signatures from annotations and defaults (PyTorch's `parseSchemaFromDef`), formal
//! arguments, returns, and the body with its implicit `return None`.

use ember_dialects::attr::ConstValue;
use ember_dialects::{Symbol, Type};

use super::sugared::Sugared;
use super::{FnEmitter, FnSig, ModuleCx, ParamSig, R};
use crate::frontend::ast::{Def, Expr, ExprKind, UnaryOp};
use crate::frontend::error::FrontendError;

impl ModuleCx<'_> {
    /// The signature of `def`; `skip_self` drops the first parameter (methods). An
    /// unannotated parameter is a Tensor; an unannotated return is `None` in `ret` until the
    /// body is emitted.
    pub fn signature(&self, def: &Def, skip_self: bool) -> R<(FnSig, Option<Type>)> {
        let params = if skip_self {
            if def.params.is_empty() {
                return Err(FrontendError::new(
                    def.span,
                    "methods must have a self argument",
                ));
            }
            &def.params[1..]
        } else {
            &def.params[..]
        };
        let mut out = Vec::new();
        if params.iter().any(|p| p.kwarg_only && p.default.is_some()) {
            return Err(FrontendError::new(def.span, "Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults"));
        }
        for p in params {
            let ty = match &p.annotation {
                Some(a) => self.parse_type(a)?,
                None => Type::tensor(),
            };
            let default = match &p.default {
                Some(d) => {
                    let kind = match &d.kind {
                        ExprKind::List(_) | ExprKind::ListComp { .. } => Some("list"),
                        ExprKind::Dict(_) | ExprKind::DictComp { .. } => Some("dict"),
                        _ => None,
                    };
                    if let Some(k) = kind.filter(|_| !self.resolver.is_archive_code()) {
                        return Err(FrontendError::new(d.span, format!("Mutable default parameters are not supported because Python binds them to the function and they persist across function calls.\n As a workaround, make the default None and instantiate the default parameter within the body of the function. Found <class '{k}'> on parameter {}", p.name.name)));
                    }
                    Some(self.default_value(d, &ty)?)
                }
                None => None,
            };
            let n = p
                .annotation
                .as_ref()
                .and_then(super::types::broadcasting_len);
            out.push(ParamSig {
                name: p.name.name.clone(),
                ty,
                n,
                default,
                kwarg_only: p.kwarg_only,
            });
        }
        let declared = match &def.return_type {
            Some(r) => Some(self.parse_type(r)?),
            None => None,
        };
        Ok((
            FnSig {
                params: out,
                ret: declared.clone().unwrap_or(Type::None),
            },
            declared,
        ))
    }

    /// A default value: a literal (or a tuple/list of them, a negated number, a module
    /// constant), converted to the parameter's type where Python would.
    pub fn default_value(&self, e: &Expr, ty: &Type) -> R<ConstValue> {
        let c = self.literal_value(e).ok_or_else(|| {
            FrontendError::new(e.span, "default arguments must be constants in TorchScript")
        })?;
        Ok(convert_default(c, ty))
    }

    /// The constant a literal expression spells, if it is one.
    pub fn literal_value(&self, e: &Expr) -> Option<ConstValue> {
        Some(match &e.kind {
            ExprKind::Int(i) => ConstValue::Int(i64::try_from(*i).ok()?),
            ExprKind::Float(f) => ConstValue::Float(*f),
            ExprKind::Str(s) => ConstValue::Str(s.clone()),
            ExprKind::True => ConstValue::Bool(true),
            ExprKind::False => ConstValue::Bool(false),
            ExprKind::None => ConstValue::None,
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } => match self.literal_value(operand)? {
                ConstValue::Int(i) => ConstValue::Int(i.checked_neg()?),
                ConstValue::Float(f) => ConstValue::Float(-f),
                _ => return None,
            },
            ExprKind::Tuple(items) => ConstValue::Tuple(
                items
                    .iter()
                    .map(|i| self.literal_value(i))
                    .collect::<Option<_>>()?,
            ),
            ExprKind::List(items) => ConstValue::List(
                items
                    .iter()
                    .map(|i| self.literal_value(i))
                    .collect::<Option<_>>()?,
            ),
            ExprKind::Name(n) => match self.globals.get(n.as_str()) {
                Some(super::Global::Constant(c)) => self.literal_value(c)?,
                _ => return None,
            },
            ExprKind::Attribute { .. } => {
                let name = super::types::dotted_name(e)?;
                let (module, attr) = name.rsplit_once('.')?;
                let module = self
                    .imports
                    .get(module)
                    .cloned()
                    .unwrap_or(module.to_string());
                match crate::frontend::builtins::module_attr(&module, attr)? {
                    crate::frontend::builtins::ModuleAttr::Constant(c) => c,
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
}

/// Python converts an int default of a float parameter, and lists of a tuple parameter.
fn convert_default(c: ConstValue, ty: &Type) -> ConstValue {
    match (c, ty) {
        (ConstValue::Int(i), Type::Float) => ConstValue::Float(i as f64),
        (ConstValue::Int(i), Type::Optional(e)) if **e == Type::Float => {
            ConstValue::Float(i as f64)
        }
        (ConstValue::Tuple(items), Type::List(e)) => {
            ConstValue::List(items.into_iter().map(|i| convert_default(i, e)).collect())
        }
        (ConstValue::List(items), Type::List(e)) => {
            ConstValue::List(items.into_iter().map(|i| convert_default(i, e)).collect())
        }
        (c, _) => c,
    }
}

impl FnEmitter<'_> {
    /// `emitDef`: inputs, body and the placeholder return; returns the signature with the
    /// return type the body settled on.
    pub fn emit_def(&mut self, def: &Def, self_type: Option<Type>) -> R<FnSig> {
        let (mut sig, declared) = self.cx.signature(def, self_type.is_some())?;
        self.def_stack
            .last_mut()
            .expect("def context")
            .declared_return = declared;
        let top = self.g.block();
        let mut params = def.params.iter();
        if let Some(st) = self_type {
            let p = params.next().expect("self parameter");
            let v = self.g.add_input(st);
            self.g.set_debug_name(v, &p.name.name);
            self.set_sugared_var(p.name.span, &p.name.name, Sugared::Simple(v), None)?;
        }
        for (p, ps) in params.zip(&sig.params) {
            let v = self.g.add_input(ps.ty.clone());
            if super::env::meaningful_name(&p.name.name) {
                self.g.set_debug_name(v, &p.name.name);
            }
            self.set_var(p.name.span, &p.name.name, v)?;
        }
        self.emit_statements(&def.body)?;
        self.handle_maybe_no_return(def, top)?;
        let ret = self
            .def_stack
            .last()
            .and_then(|d| d.merged_return.clone())
            .unwrap_or(Type::None);
        // Until SSA conversion lowers the returns, the graph returns a typed placeholder.
        self.g.set_insert_point_to_end(top);
        let placeholder = self.insert_uninitialized(ret.clone());
        self.g.register_output(placeholder);
        sig.ret = ret;
        Ok(sig)
    }

    fn handle_maybe_no_return(&mut self, def: &Def, top: ember_dialects::Block) -> R<()> {
        let declared = self
            .def_stack
            .last()
            .and_then(|d| d.declared_return.clone());
        if !self.exit_blocks.contains(&top) {
            if let Some(d) = &declared {
                if *d != Type::None {
                    return Err(FrontendError::new(
                        def.span,
                        "Function was not annotated as having type None, but does not return along all paths",
                    ));
                }
            }
            self.g.set_insert_point_to_end(top);
            let none = Expr::new(ExprKind::None, def.span);
            self.emit_return(def.span, Some(&none))?;
        } else if let Some(ctx) = self.def_stack.last_mut() {
            if ctx.merged_return.is_none() {
                ctx.merged_return = Some(declared.unwrap_or(Type::None));
            }
        }
        Ok(())
    }

    /// `emitReturn`.
    pub fn emit_return(&mut self, span: crate::frontend::span::Span, e: Option<&Expr>) -> R<()> {
        let none;
        let e = match e {
            Some(e) => e,
            None => {
                none = Expr::new(ExprKind::None, span);
                &none
            }
        };
        let declared = self
            .def_stack
            .last()
            .and_then(|d| d.declared_return.clone());
        let mut result = self.emit_expr(e, declared.as_ref())?;
        let result_type;
        if let Some(rt) = declared {
            let is_none_for_tensor =
                rt.is_subtype_of(&Type::tensor()) && self.g.ty(result).is_subtype_of(&Type::None);
            if !is_none_for_tensor {
                result = self.try_convert_to_type(span, &rt, result, true)?;
            }
            if !self.g.ty(result).is_subtype_of(&rt) {
                return Err(FrontendError::new(
                    span,
                    format!(
                        "Return value was annotated as having type {} but is actually of type {}",
                        rt.repr_str(),
                        self.g.ty(result).repr_str()
                    ),
                ));
            }
            result_type = rt;
        } else {
            let actual = self.g.ty(result).clone();
            let prev = self
                .def_stack
                .last()
                .and_then(|d| d.merged_return.clone())
                .unwrap_or_else(|| actual.clone());
            result_type = ember_dialects::types::unify_types(&prev, &actual).ok_or_else(|| {
                FrontendError::new(
                    span,
                    format!(
                        "Previous return statement returned a value of type {} but this return statement returns a value of type {}",
                        prev.repr_str(),
                        actual.repr_str()
                    ),
                )
            })?;
        }
        if let Some(ctx) = self.def_stack.last_mut() {
            ctx.merged_return = Some(result_type.clone());
        }
        if result_type == Type::Any && *self.g.ty(result) != Type::Any {
            result = self.insert_unchecked_cast(result, Type::Any, span);
        }
        self.emit_node(Symbol::prim("ReturnStmt"), &[result], vec![], span);
        let b = self.current_block();
        self.exit_blocks.insert(b);
        Ok(())
    }
}
