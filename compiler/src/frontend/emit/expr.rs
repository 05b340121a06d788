//! Expressions: literals, operators, conditions with refinement, subscripts and slices,
//! comprehensions (PyTorch's `emitSugaredExpr`, `emitSimpleExpr`, `emitCondExpr`,
//! `emitSubscript`, ...).

use ember_dialects::attr::ConstValue;
use ember_dialects::types::{unify_type_list, unify_type_list_ext, unify_types};
use ember_dialects::{Symbol, Type, Value};

use super::sugared::Sugared;
use super::{FnEmitter, R};
use crate::frontend::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, UnaryOp};
use crate::frontend::schema_match::NamedValue;
use crate::frontend::span::Span;

/// Type refinements a condition implies when it is true and when it is false.
#[derive(Clone, Debug, Default)]
pub struct RefinementSet {
    pub true_refs: Vec<(String, Type)>,
    pub false_refs: Vec<(String, Type)>,
}

impl RefinementSet {
    pub fn new(true_refs: Vec<(String, Type)>, false_refs: Vec<(String, Type)>) -> Self {
        RefinementSet {
            true_refs,
            false_refs,
        }
    }

    pub fn not(&self) -> RefinementSet {
        RefinementSet::new(self.false_refs.clone(), self.true_refs.clone())
    }

    pub fn and(&self, rhs: &RefinementSet) -> RefinementSet {
        RefinementSet::new(
            union_set(&self.true_refs, &rhs.true_refs),
            intersect_set(&self.false_refs, &rhs.false_refs),
        )
    }

    pub fn or(&self, rhs: &RefinementSet) -> RefinementSet {
        RefinementSet::new(
            intersect_set(&self.true_refs, &rhs.true_refs),
            union_set(&self.false_refs, &rhs.false_refs),
        )
    }
}

fn union_set(a: &[(String, Type)], b: &[(String, Type)]) -> Vec<(String, Type)> {
    let mut result = a.to_vec();
    for r in b {
        match result.iter().position(|e| e.0 == r.0) {
            None => result.push(r.clone()),
            Some(i) if result[i].1 != r.1 => {
                result.remove(i);
            }
            Some(_) => {}
        }
    }
    result
}

fn intersect_set(a: &[(String, Type)], b: &[(String, Type)]) -> Vec<(String, Type)> {
    a.iter()
        .filter(|r| b.iter().any(|e| e.0 == r.0 && e.1 == r.1))
        .cloned()
        .collect()
}

/// A condition: its value, refinements, and whether it is known statically (a `static if`).
#[derive(Clone, Debug)]
pub struct CondValue {
    pub value: Value,
    pub refinements: RefinementSet,
    pub static_if: Option<bool>,
}

#[derive(PartialEq)]
enum NoneStatus {
    Always,
    Maybe,
    Never,
}

impl<'a> FnEmitter<'a> {
    fn can_be_none(&self, v: Value) -> NoneStatus {
        let t = self.g.ty(v);
        if *t == Type::None {
            return NoneStatus::Always;
        }
        if matches!(t, Type::Optional(_)) {
            return NoneStatus::Maybe;
        }
        NoneStatus::Never
    }

    fn static_cond(&mut self, span: Span, value: bool, refinements: RefinementSet) -> CondValue {
        let v = self.insert_constant(ConstValue::Bool(value), span);
        CondValue {
            value: v,
            refinements,
            static_if: Some(value),
        }
    }

    pub fn insert_refinements(&mut self, span: Span, r: &RefinementSet) -> R<()> {
        for (name, ty) in &r.true_refs {
            let v = self.get_var(span, name)?;
            let nv = self.insert_unchecked_cast(v, ty.clone(), span);
            self.set_var(span, name, nv)?;
        }
        Ok(())
    }

    pub fn get_var(&mut self, span: Span, name: &str) -> R<Value> {
        let sv = self.get_sugared_var(span, name)?;
        self.as_value(span, &sv)
    }

    /// `emitCondExpr`.
    pub fn emit_cond_expr(&mut self, e: &Expr) -> R<CondValue> {
        match &e.kind {
            ExprKind::BoolOp { op, lhs, rhs } => {
                self.emit_short_circuit(e.span, lhs, rhs, *op == BoolOp::Or)
            }
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand,
            } => {
                let v = self.emit_cond_expr(operand)?;
                let result = self.builtin_call(e.span, Symbol::aten("__not__"), &[v.value], &[])?;
                Ok(CondValue {
                    value: result,
                    refinements: v.refinements.not(),
                    static_if: v.static_if.map(|b| !b),
                })
            }
            ExprKind::Compare {
                op: op @ (CmpOp::Is | CmpOp::IsNot),
                lhs,
                rhs,
            } => {
                let lv = self.emit_expr(lhs, None)?;
                let rv = self.emit_expr(rhs, None)?;
                let ln = self.can_be_none(lv);
                let rn = self.can_be_none(rv);
                let is = *op == CmpOp::Is;
                if ln == NoneStatus::Always && rn == NoneStatus::Always {
                    return Ok(self.static_cond(e.span, is, RefinementSet::default()));
                }
                if (ln == NoneStatus::Always && rn == NoneStatus::Never)
                    || (ln == NoneStatus::Never && rn == NoneStatus::Always)
                {
                    return Ok(self.static_cond(e.span, !is, RefinementSet::default()));
                }
                let kind = Symbol::aten(if is { "__is__" } else { "__isnot__" });
                let value = self.builtin_call(e.span, kind, &[lv, rv], &[])?;
                let refinements = self.is_none_refinements(lhs, lv, rhs, rv, is);
                Ok(CondValue {
                    value,
                    refinements,
                    static_if: None,
                })
            }
            _ => {
                if let ExprKind::Call { func, args, kwargs } = &e.kind {
                    if let ExprKind::Name(n) = &func.kind {
                        if n == "isinstance" {
                            self.check_num_inputs(
                                e.span,
                                "isinstance",
                                args.len(),
                                kwargs.len(),
                                2,
                            )?;
                            return self.emit_is_instance(&args[0], &args[1]);
                        }
                        if n == "hasattr" {
                            self.check_num_inputs(e.span, "hasattr", args.len(), kwargs.len(), 2)?;
                            return self.emit_has_attr(&args[0], &args[1]);
                        }
                    }
                }
                let v = self.emit_expr(e, None)?;
                let out = self.emit_to_bool(e.span, v)?;
                let kind = self.g.kind(self.g.producer(out));
                let mut static_if = None;
                if kind == Symbol::aten("is_scripting") {
                    static_if = Some(true);
                } else if kind == Symbol::aten("has_torch_function") {
                    static_if = Some(false);
                }
                if let Some(ConstValue::Bool(b)) = self.constant_of(out) {
                    static_if = Some(b);
                }
                Ok(CondValue {
                    value: out,
                    refinements: RefinementSet::default(),
                    static_if,
                })
            }
        }
    }

    fn is_none_refinements(
        &self,
        lhs: &Expr,
        lv: Value,
        rhs: &Expr,
        rv: Value,
        is: bool,
    ) -> RefinementSet {
        if !matches!(rhs.kind, ExprKind::None) && matches!(lhs.kind, ExprKind::None) {
            return self.is_none_refinements(rhs, rv, lhs, lv, is);
        }
        let (ExprKind::None, ExprKind::Name(name)) = (&rhs.kind, &lhs.kind) else {
            return RefinementSet::default();
        };
        if let Type::Optional(elem) = self.g.ty(lv) {
            let present = vec![(name.clone(), (**elem).clone())];
            return if is {
                RefinementSet::new(vec![], present)
            } else {
                RefinementSet::new(present, vec![])
            };
        }
        RefinementSet::default()
    }

    pub fn check_num_inputs(
        &self,
        span: Span,
        name: &str,
        n_args: usize,
        n_kwargs: usize,
        expected: usize,
    ) -> R<()> {
        if n_args != expected {
            return Err(self.err(
                span,
                format!("{name} expected exactly {expected} arguments but found {n_args}"),
            ));
        }
        if n_kwargs > 0 {
            return Err(self.err(span, format!("{name} takes no keyword arguments")));
        }
        Ok(())
    }

    pub fn emit_has_attr(&mut self, obj: &Expr, attr: &Expr) -> R<CondValue> {
        let sv = self.emit_sugared_expr(obj, 1, None)?;
        let ExprKind::Str(name) = &attr.kind else {
            return Err(self.err(
                attr.span,
                "hasattr's second argument must be a string literal",
            ));
        };
        let has = self.sugared_has_attr(obj.span, &sv, name)?;
        Ok(self.static_cond(obj.span, has, RefinementSet::default()))
    }

    fn gather_types(&self, e: &Expr, out: &mut Vec<Type>) -> R<()> {
        if let ExprKind::Tuple(items) = &e.kind {
            for i in items {
                self.gather_types(i, out)?;
            }
            return Ok(());
        }
        out.push(self.cx.parse_type(e)?);
        Ok(())
    }

    /// `emitIsInstance`.
    pub fn emit_is_instance(&mut self, obj: &Expr, classinfo: &Expr) -> R<CondValue> {
        let mut types = Vec::new();
        self.gather_types(classinfo, &mut types)?;
        let val = self.emit_expr(obj, None)?;
        let vt = self.g.ty(val).clone();
        let mut refinement = RefinementSet::default();
        if let (1, ExprKind::Name(name)) = (types.len(), &obj.kind) {
            if types[0].is_subtype_of(&vt) {
                // In the false branch a union loses the members the check matched.
                let mut false_refs = vec![];
                if let Type::Union(members) = &vt {
                    let rest: Vec<Type> = members
                        .iter()
                        .filter(|m| !m.is_subtype_of(&types[0]))
                        .cloned()
                        .collect();
                    let remaining = match rest.len() {
                        0 => None,
                        1 => rest.into_iter().next(),
                        _ => ember_dialects::types::union_of(rest).ok(),
                    };
                    if let Some(r) = remaining {
                        false_refs.push((name.clone(), r));
                    }
                }
                refinement = RefinementSet::new(vec![(name.clone(), types[0].clone())], false_refs);
            }
        }
        let statically_true = types.iter().any(|t| match t {
            Type::Interface(iface) => self.implements_interface(&vt, iface),
            _ => vt.is_subtype_of(t),
        });
        if statically_true {
            return Ok(self.static_cond(obj.span, true, refinement));
        }
        let maybe_of_kind = |list: bool| match &vt {
            Type::Any => true,
            Type::Optional(e) => {
                if list {
                    matches!(**e, Type::List(_))
                } else {
                    matches!(**e, Type::Tuple(_))
                }
            }
            _ => false,
        };
        let statically_false = types.iter().all(|t| {
            !(t.is_subtype_of(&vt)
                || (t.is_subtype_of(&Type::AnyList) && maybe_of_kind(true))
                || (t.is_subtype_of(&Type::AnyTuple) && maybe_of_kind(false)))
        });
        if statically_false {
            return Ok(self.static_cond(obj.span, false, refinement));
        }
        let n = self.emit_node(
            Symbol::prim("isinstance"),
            &[val],
            vec![Type::Bool],
            obj.span,
        );
        self.g.set_attr(
            n,
            Symbol::attr("types"),
            ember_dialects::AttrValue::Types(types),
        );
        Ok(CondValue {
            value: self.g.output(n, 0),
            refinements: refinement,
            static_if: None,
        })
    }

    fn emit_short_circuit(
        &mut self,
        span: Span,
        first: &Expr,
        second: &Expr,
        is_or: bool,
    ) -> R<CondValue> {
        let lhs = self.emit_cond_expr(first)?;
        let mut rhs: Option<CondValue> = None;
        let new_result = {
            let rhs_slot = &mut rhs;
            let mut get_const = |e: &mut FnEmitter<'a>| -> R<Value> {
                Ok(e.insert_constant(ConstValue::Bool(is_or), span))
            };
            let mut get_continue = |e: &mut FnEmitter<'a>| -> R<Value> {
                let c = e.emit_cond_expr(second)?;
                let v = c.value;
                *rhs_slot = Some(c);
                Ok(v)
            };
            if is_or {
                self.emit_if_expr(span, &lhs, &mut get_const, &mut get_continue)?
            } else {
                self.emit_if_expr(span, &lhs, &mut get_continue, &mut get_const)?
            }
        };
        let rhs = rhs.expect("short-circuit rhs emitted");
        let (refinements, static_if) = if is_or {
            let st = if lhs.static_if == Some(true) || rhs.static_if == Some(true) {
                Some(true)
            } else if let (Some(a), Some(b)) = (lhs.static_if, rhs.static_if) {
                Some(a || b)
            } else {
                None
            };
            (lhs.refinements.or(&rhs.refinements), st)
        } else {
            let st = if lhs.static_if == Some(false) || rhs.static_if == Some(false) {
                Some(false)
            } else if let (Some(a), Some(b)) = (lhs.static_if, rhs.static_if) {
                Some(a && b)
            } else {
                None
            };
            (lhs.refinements.and(&rhs.refinements), st)
        };
        Ok(CondValue {
            value: new_result,
            refinements,
            static_if,
        })
    }

    /// `emitIfExpr`: a `prim::If` with one output, each branch in its own frame.
    pub fn emit_if_expr(
        &mut self,
        span: Span,
        cond: &CondValue,
        true_expr: &mut dyn FnMut(&mut FnEmitter<'a>) -> R<Value>,
        false_expr: &mut dyn FnMut(&mut FnEmitter<'a>) -> R<Value>,
    ) -> R<Value> {
        let n = self.emit_node(Symbol::prim("If"), &[cond.value], vec![], span);
        let tb = self.g.add_block(n);
        let fb = self.g.add_block(n);
        let branch = |e: &mut FnEmitter<'a>,
                      b: ember_dialects::Block,
                      r: &RefinementSet,
                      f: &mut dyn FnMut(&mut FnEmitter<'a>) -> R<Value>|
         -> R<Value> {
            e.push_frame(b);
            let saved = e.g.insert_point();
            e.g.set_insert_point_to_end(b);
            let out = e.insert_refinements(span, r).and_then(|_| f(e));
            e.g.set_insert_point(saved);
            e.pop_frame();
            let out = out?;
            e.g.block_register_output(b, out);
            Ok(out)
        };
        let tv = branch(self, tb, &cond.refinements, true_expr)?;
        let fv = branch(self, fb, &cond.refinements.not(), false_expr)?;
        let tt = self.g.ty(tv).clone();
        let ft = self.g.ty(fv).clone();
        let unified = unify_types(&tt, &ft).ok_or_else(|| {
            self.err(
                span,
                format!(
                    "if-expression's true branch has type {} but false branch has type {}",
                    tt.repr_str(),
                    ft.repr_str()
                ),
            )
        })?;
        Ok(self.g.add_node_output(n, unified))
    }

    /// `emitToBool`: `bool(v)`.
    pub fn emit_to_bool(&mut self, span: Span, v: Value) -> R<Value> {
        let cast = Sugared::Magic {
            magic: "__bool__",
            base: Box::new(Sugared::Cast {
                ty: Type::Bool,
                op: Symbol::aten("Bool"),
            }),
        };
        let vt = self.g.ty(v).clone();
        let out = self
            .sugared_call(span, &cast, vec![NamedValue::new(v, span)], vec![], 0)
            .and_then(|s| self.as_value(span, &s))
            .map_err(|_| {
                self.err(
                    span,
                    format!("Could not cast value of type {} to bool", vt.repr_str()),
                )
            })?;
        if !self.g.ty(out).is_subtype_of(&Type::Bool) {
            return Err(self.err(
                span,
                format!(
                    "expected a bool expression for condition but found {}",
                    self.g.ty(out).repr_str()
                ),
            ));
        }
        Ok(out)
    }

    // ---------------------------------------------------------------- expressions

    /// `emitExpr`.
    pub fn emit_expr(&mut self, e: &Expr, hint: Option<&Type>) -> R<Value> {
        let sv = self.emit_sugared_expr(e, 1, hint)?;
        let mut v = self.as_value(e.span, &sv)?;
        if hint == Some(&Type::Any) && *self.g.ty(v) != Type::Any {
            v = self.insert_unchecked_cast(v, Type::Any, e.span);
        }
        Ok(v)
    }

    /// `emitSugaredExpr`.
    pub fn emit_sugared_expr(
        &mut self,
        e: &Expr,
        n_binders: usize,
        hint: Option<&Type>,
    ) -> R<Sugared> {
        match &e.kind {
            ExprKind::Name(n) => self.get_sugared_var(e.span, n),
            ExprKind::Attribute { value, attr } => {
                let sv = self.emit_sugared_expr(value, 1, None)?;
                self.sugared_attr(e.span, &sv, &attr.name)
            }
            ExprKind::Call { func, args, kwargs } => {
                self.emit_apply(e.span, func, args, kwargs, n_binders, hint)
            }
            ExprKind::Subscript { value, indices } => {
                self.emit_subscript(e.span, value, indices, hint)
            }
            _ => Ok(Sugared::Simple(self.emit_simple_expr(e, hint)?)),
        }
    }

    /// The arguments of a call, `*t` unpacked.
    pub fn get_named_values(&mut self, args: &[Expr], maybe_unpack: bool) -> R<Vec<NamedValue>> {
        let mut out = Vec::new();
        for a in args {
            if let (true, ExprKind::Starred(inner)) = (maybe_unpack, &a.kind) {
                let sv = self.emit_sugared_expr(inner, 1, None)?;
                for item in self.sugared_as_tuple(a.span, &sv, None)? {
                    let v = self.as_value(a.span, &item)?;
                    out.push(NamedValue::new(v, a.span));
                }
            } else {
                let v = self.emit_expr(a, None)?;
                out.push(NamedValue::new(v, a.span));
            }
        }
        Ok(out)
    }

    pub fn get_values(&mut self, args: &[Expr], maybe_unpack: bool) -> R<Vec<Value>> {
        Ok(self
            .get_named_values(args, maybe_unpack)?
            .into_iter()
            .map(|n| n.value)
            .collect())
    }

    fn emit_simple_expr(&mut self, e: &Expr, hint: Option<&Type>) -> R<Value> {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(i) => {
                let i = i64::try_from(*i)
                    .map_err(|_| self.err(span, crate::frontend::lexer::INTEGRAL_OUT_OF_RANGE))?;
                Ok(self.materialize_int(i, span))
            }
            ExprKind::Float(f) => Ok(self.materialize_float(*f, span)),
            ExprKind::Imaginary(f) => Ok(self.insert_constant(ConstValue::Complex(0.0, *f), span)),
            ExprKind::Str(s) => Ok(self.insert_constant(ConstValue::Str(s.clone()), span)),
            ExprKind::True => Ok(self.insert_constant(ConstValue::Bool(true), span)),
            ExprKind::False => Ok(self.insert_constant(ConstValue::Bool(false), span)),
            ExprKind::None => Ok(self.insert_constant(ConstValue::None, span)),
            ExprKind::BinOp { op, lhs, rhs } => self.emit_binop(span, *op, lhs, rhs),
            ExprKind::Compare {
                op: CmpOp::Is | CmpOp::IsNot,
                ..
            }
            | ExprKind::BoolOp { .. }
            | ExprKind::UnaryOp {
                op: UnaryOp::Not, ..
            } => Ok(self.emit_cond_expr(e)?.value),
            ExprKind::Compare { op, lhs, rhs } => self.emit_compare(span, *op, lhs, rhs),
            ExprKind::UnaryOp { op, operand } => match op {
                UnaryOp::Neg => self.emit_unary(span, operand, "__neg__", Symbol::aten("neg")),
                UnaryOp::Invert => {
                    self.emit_unary(span, operand, "__invert__", Symbol::aten("bitwise_not"))
                }
                UnaryOp::Pos => self.emit_expr(operand, hint),
                UnaryOp::Not => Ok(self.emit_cond_expr(e)?.value),
            },
            ExprKind::IfExp {
                cond,
                then,
                otherwise,
            } => {
                let c = self.emit_cond_expr(cond)?;
                if let Some(s) = c.static_if {
                    return self.emit_expr(if s { then } else { otherwise }, hint);
                }
                self.emit_if_expr(span, &c, &mut |em| em.emit_expr(then, hint), &mut |em| {
                    em.emit_expr(otherwise, hint)
                })
            }
            ExprKind::List(items) => self.emit_list_literal(span, items, hint),
            ExprKind::Tuple(items) => {
                // PyTorch passes no type hints into tuple literals.
                let mut values = Vec::new();
                for item in items {
                    if let ExprKind::Starred(inner) = &item.kind {
                        let sv = self.emit_sugared_expr(inner, 1, None)?;
                        for it in self.sugared_as_tuple(item.span, &sv, None)? {
                            values.push(self.as_value(item.span, &it)?);
                        }
                    } else {
                        values.push(self.emit_expr(item, None)?);
                    }
                }
                Ok(self.insert_tuple(&values, span))
            }
            ExprKind::Dict(pairs) => self.emit_dict_literal(span, pairs, hint),
            ExprKind::ListComp {
                elt,
                target,
                iter,
                cond,
            } => self.emit_list_comprehension(span, elt, target, iter, cond.as_deref(), hint),
            ExprKind::DictComp {
                key,
                value,
                target,
                iter,
                cond,
            } => {
                self.emit_dict_comprehension(span, key, value, target, iter, cond.as_deref(), hint)
            }
            ExprKind::Starred(_) => {
                Err(self.err(span, "Unexpected starred expansion. File a bug report"))
            }
            ExprKind::Lambda { .. } => Err(self.err(span, "Lambda aren't supported")),
            ExprKind::Slice { .. } => {
                Err(self.err(span, "slice expressions are only allowed in subscripts"))
            }
            ExprKind::Ellipsis => Err(self.err(span, "'...' is only allowed in subscripts")),
            ExprKind::Name(_)
            | ExprKind::Attribute { .. }
            | ExprKind::Call { .. }
            | ExprKind::Subscript { .. } => self.emit_expr(e, hint),
        }
    }

    fn binop_kind(op: BinOp) -> (Symbol, &'static str) {
        let (k, m) = match op {
            BinOp::Add => ("add", "__add__"),
            BinOp::Sub => ("sub", "__sub__"),
            BinOp::Mul => ("mul", "__mul__"),
            BinOp::Div => ("div", "__truediv__"),
            BinOp::Mod => ("remainder", "__mod__"),
            BinOp::Pow => ("pow", "__pow__"),
            BinOp::LShift => ("__lshift__", "__lshift__"),
            BinOp::RShift => ("__rshift__", "__rshift__"),
            BinOp::BitAnd => ("__and__", "__and__"),
            BinOp::BitOr => ("__or__", "__or__"),
            BinOp::BitXor => ("__xor__", "__xor__"),
            BinOp::FloorDiv => ("floordiv", ""),
            BinOp::MatMul => ("matmul", ""),
        };
        (Symbol::aten(k), m)
    }

    fn emit_binop(&mut self, span: Span, op: BinOp, lhs: &Expr, rhs: &Expr) -> R<Value> {
        let (kind, magic) = Self::binop_kind(op);
        if matches!(op, BinOp::FloorDiv | BinOp::MatMul) {
            let args = self.get_named_values(&[lhs.clone(), rhs.clone()], false)?;
            return self.builtin_call_nv(span, kind, args, vec![], None);
        }
        if op == BinOp::Mod {
            let l = self.emit_expr(lhs, None)?;
            if *self.g.ty(l) == Type::Str {
                let r = self.emit_expr(rhs, None)?;
                let n = self.emit_node(
                    Symbol::aten("percentFormat"),
                    &[l, r],
                    vec![Type::Str],
                    span,
                );
                return Ok(self.g.output(n, 0));
            }
            let r = self.emit_expr(rhs, None)?;
            return self.call_magic(
                span,
                magic,
                kind,
                vec![NamedValue::new(l, lhs.span), NamedValue::new(r, rhs.span)],
            );
        }
        let args = self.get_named_values(&[lhs.clone(), rhs.clone()], false)?;
        self.call_magic(span, magic, kind, args)
    }

    fn call_magic(
        &mut self,
        span: Span,
        magic: &'static str,
        kind: Symbol,
        args: Vec<NamedValue>,
    ) -> R<Value> {
        let sv = Sugared::Magic {
            magic,
            base: Box::new(Sugared::Builtin {
                op: kind,
                self_: None,
            }),
        };
        let out = self.sugared_call(span, &sv, args, vec![], 0)?;
        self.as_value(span, &out)
    }

    fn emit_compare(&mut self, span: Span, op: CmpOp, lhs: &Expr, rhs: &Expr) -> R<Value> {
        let (kind, magic) = match op {
            CmpOp::Eq => ("eq", "__eq__"),
            CmpOp::Ne => ("ne", "__ne__"),
            CmpOp::Lt => ("lt", "__lt__"),
            CmpOp::Le => ("le", "__le__"),
            CmpOp::Gt => ("gt", "__gt__"),
            CmpOp::Ge => ("ge", "__ge__"),
            CmpOp::In | CmpOp::NotIn => ("__contains__", "__contains__"),
            CmpOp::Is | CmpOp::IsNot => unreachable!("handled as conditions"),
        };
        let mut args = self.get_named_values(&[lhs.clone(), rhs.clone()], false)?;
        if matches!(op, CmpOp::In | CmpOp::NotIn) {
            args.swap(0, 1);
        }
        let v = self.call_magic(span, magic, Symbol::aten(kind), args)?;
        if op == CmpOp::NotIn {
            return self.builtin_call(span, Symbol::aten("__not__"), &[v], &[]);
        }
        Ok(v)
    }

    /// `emitUnaryOp`: the operator, folded when its input is a constant number.
    fn emit_unary(
        &mut self,
        span: Span,
        operand: &Expr,
        magic: &'static str,
        op: Symbol,
    ) -> R<Value> {
        let args = self.get_named_values(std::slice::from_ref(operand), false)?;
        let v = self.call_magic(span, magic, op, args)?;
        let n = self.g.producer(v);
        if self.g.kind(n) != op {
            return Ok(v);
        }
        let input = self.g.node_inputs(n).first().copied();
        let folded = match (input.and_then(|i| self.constant_of(i)), op.unqualified()) {
            (Some(ConstValue::Int(i)), "neg") => i.checked_neg().map(ConstValue::Int),
            (Some(ConstValue::Float(f)), "neg") => Some(ConstValue::Float(-f)),
            (Some(ConstValue::Int(i)), "bitwise_not") => Some(ConstValue::Int(!i)),
            (Some(ConstValue::Bool(b)), "bitwise_not") => Some(ConstValue::Bool(!b)),
            _ => None,
        };
        match folded {
            Some(c) => {
                self.g.destroy(n);
                Ok(self.insert_constant(c, span))
            }
            None => Ok(v),
        }
    }

    fn emit_list_literal(&mut self, span: Span, items: &[Expr], hint: Option<&Type>) -> R<Value> {
        let hint = match hint {
            Some(Type::Optional(e)) if matches!(**e, Type::List(_)) => Some(&**e),
            h => h,
        };
        let elem_hint = match hint {
            Some(Type::List(e)) => Some((**e).clone()),
            Some(Type::Any) | None => None,
            Some(other) => {
                return Err(self.err(
                    span,
                    format!(
                        "Expected an annotation of type List but got {}",
                        other.repr_str()
                    ),
                ))
            }
        };
        // PyTorch emits the elements without the hint (an `Any` hint would cast each one) and
        // checks their unified type against it.
        let mut values = Vec::new();
        for item in items {
            if let ExprKind::Starred(inner) = &item.kind {
                let sv = self.emit_sugared_expr(inner, 1, None)?;
                for it in self.sugared_as_tuple(item.span, &sv, None)? {
                    values.push(self.as_value(item.span, &it)?);
                }
            } else {
                values.push(self.emit_expr(item, None)?);
            }
        }
        if values.is_empty() {
            return Ok(self.insert_list(elem_hint.unwrap_or_else(Type::tensor), &[], span));
        }
        let types: Vec<Type> = values.iter().map(|v| self.g.ty(*v).clone()).collect();
        // Heterogeneous lists are lists of the union of their element types.
        let unified = unify_type_list_ext(&types, true, elem_hint.as_ref())
            .map_err(|m| self.err(span, format!("Lists must contain only a single type\n{m}")))?;
        let elem = match elem_hint {
            Some(hint) if !unified.is_subtype_of(&hint) => {
                return Err(self.err(
                    span,
                    format!(
                        "List type annotation `{}` did not match the types of the given list elements, which were unified to {}",
                        Type::list(hint).repr_str(),
                        unified.repr_str()
                    ),
                ))
            }
            Some(hint) => hint,
            None => unified,
        };
        Ok(self.insert_list(elem, &values, span))
    }

    fn emit_dict_literal(
        &mut self,
        span: Span,
        pairs: &[(Expr, Expr)],
        hint: Option<&Type>,
    ) -> R<Value> {
        let hint = match hint {
            Some(Type::Optional(e)) if matches!(**e, Type::Dict(..)) => Some(&**e),
            h => h,
        };
        let (kh, vh) = match hint {
            Some(Type::Dict(k, v)) => (Some((**k).clone()), Some((**v).clone())),
            _ => (None, None),
        };
        let mut keys = Vec::new();
        let mut values = Vec::new();
        for (k, v) in pairs {
            // Without the hint, as PyTorch: an `Any` hint would cast each one.
            keys.push(self.emit_expr(k, None)?);
            values.push(self.emit_expr(v, None)?);
        }
        let unify = |types: Vec<Type>| match unify_type_list(&types) {
            Ok(t) => t,
            Err(_) => {
                ember_dialects::types::union_of(types.clone()).unwrap_or_else(|_| types[0].clone())
            }
        };
        if let (Some(Type::Dict(..)), Some(v), false) = (hint, &vh, values.is_empty()) {
            let unified = unify(values.iter().map(|x| self.g.ty(*x).clone()).collect());
            if !unified.is_subtype_of(v) {
                return Err(self.err(
                    span,
                    format!(
                        "Type annotation was inferred to be `{}`, but the type of values given by the dict literal is {}",
                        hint.map(|h| h.repr_str()).unwrap_or_default(),
                        unified.repr_str()
                    ),
                ));
            }
        }
        let (kt, vt) = match (kh, vh) {
            (Some(k), Some(v)) => (k, v),
            _ if keys.is_empty() => (Type::Str, Type::tensor()),
            _ => {
                let kt = unify(keys.iter().map(|v| self.g.ty(*v).clone()).collect());
                let vt = unify(values.iter().map(|v| self.g.ty(*v).clone()).collect());
                (kt, vt)
            }
        };
        for (what, ty, vals, exprs) in [
            (
                "keys",
                &kt,
                &keys,
                pairs.iter().map(|p| p.0.span).collect::<Vec<_>>(),
            ),
            (
                "values",
                &vt,
                &values,
                pairs.iter().map(|p| p.1.span).collect::<Vec<_>>(),
            ),
        ] {
            for (v, s) in vals.iter().zip(exprs) {
                let t = self.g.ty(*v);
                if !t.is_subtype_of(ty) {
                    return Err(self.err(
                        s,
                        format!(
                            "Dict {what} must contain only a single type. Expected: {} but found {} instead",
                            ty.repr_str(),
                            t.repr_str()
                        ),
                    ));
                }
            }
        }
        let mut inputs = Vec::new();
        for (k, v) in keys.iter().zip(&values) {
            inputs.push(*k);
            inputs.push(*v);
        }
        let ty = super::types::dict_type(kt, vt).map_err(|m| self.err(span, m))?;
        let n = self.emit_node(Symbol::prim("DictConstruct"), &inputs, vec![ty], span);
        Ok(self.g.output(n, 0))
    }

    pub fn insert_list(&mut self, elem: Type, items: &[Value], span: Span) -> Value {
        let n = self.emit_node(
            Symbol::prim("ListConstruct"),
            items,
            vec![Type::list(elem)],
            span,
        );
        self.g.output(n, 0)
    }

    pub fn insert_tuple(&mut self, items: &[Value], span: Span) -> Value {
        let types = items.iter().map(|v| self.g.ty(*v).clone()).collect();
        let n = self.emit_node(
            Symbol::prim("TupleConstruct"),
            items,
            vec![Type::tuple(types)],
            span,
        );
        self.g.output(n, 0)
    }

    /// A `prim::ComprehensionScope` node whose block holds the comprehension's loop.
    fn comprehension_scope(&mut self, span: Span) -> ember_dialects::Block {
        let n = self.emit_node(Symbol::prim("ComprehensionScope"), &[], vec![], span);
        self.g.add_block(n)
    }

    fn emit_list_comprehension(
        &mut self,
        span: Span,
        elt: &Expr,
        target: &Expr,
        iter: &Expr,
        cond: Option<&Expr>,
        hint: Option<&Type>,
    ) -> R<Value> {
        if let Some(c) = cond {
            return Err(self.err(c.span, "Comprehension ifs are not supported yet"));
        }
        let list = self.insert_list(Type::tensor(), &[], span);
        let mut type_set = false;
        if let Some(h) = hint {
            if !matches!(h, Type::List(_)) {
                return Err(self.err(
                    span,
                    format!(
                        "Expected an annotation of type List but got {}",
                        h.repr_str()
                    ),
                ));
            }
            self.g.set_ty(list, h.clone());
            type_set = true;
        }
        let b = self.comprehension_scope(span);
        self.push_frame(b);
        let saved = self.g.insert_point();
        self.g.set_insert_point_to_end(b);
        let mut append = |e: &mut FnEmitter<'a>| -> R<()> {
            let out = e.emit_expr(elt, None)?;
            if !type_set {
                let t = e.g.ty(out).clone();
                e.g.set_ty(list, Type::list(t));
                type_set = true;
            }
            e.builtin_call_nv(
                span,
                Symbol::aten("append"),
                vec![NamedValue::new(out, span)],
                vec![],
                Some(NamedValue::named("self", list, span)),
            )?;
            Ok(())
        };
        let r = match cond {
            None => self.emit_for(span, target, iter, &mut append),
            Some(c) => self.emit_for(span, target, iter, &mut |e| {
                let cv = e.emit_cond_expr(c)?;
                e.emit_if_else_blocks(span, &cv, &mut append, &mut |_| Ok(()))
            }),
        };
        self.g.set_insert_point(saved);
        self.pop_frame();
        r?;
        Ok(list)
    }

    #[allow(clippy::too_many_arguments)]
    fn emit_dict_comprehension(
        &mut self,
        span: Span,
        key: &Expr,
        value: &Expr,
        target: &Expr,
        iter: &Expr,
        cond: Option<&Expr>,
        hint: Option<&Type>,
    ) -> R<Value> {
        if let Some(c) = cond {
            return Err(self.err(c.span, "Comprehension ifs are not supported yet"));
        }
        let n = self.emit_node(
            Symbol::prim("DictConstruct"),
            &[],
            vec![Type::Dict(Box::new(Type::Str), Box::new(Type::tensor()))],
            span,
        );
        let dict = self.g.output(n, 0);
        let mut type_set = false;
        if let Some(h) = hint {
            if !matches!(h, Type::Dict(..)) {
                return Err(self.err(
                    span,
                    format!(
                        "Expected an annotation of type Dict but got {}",
                        h.repr_str()
                    ),
                ));
            }
            self.g.set_ty(dict, h.clone());
            type_set = true;
        }
        let b = self.comprehension_scope(span);
        self.push_frame(b);
        let saved = self.g.insert_point();
        self.g.set_insert_point_to_end(b);
        let mut set_item = |e: &mut FnEmitter<'a>| -> R<()> {
            let k = e.emit_expr(key, None)?;
            let v = e.emit_expr(value, None)?;
            if !type_set {
                let kt = e.g.ty(k).clone();
                let vt = e.g.ty(v).clone();
                let ty = super::types::dict_type(kt, vt).map_err(|m| e.err(span, m))?;
                e.g.set_ty(dict, ty);
                type_set = true;
            }
            e.builtin_call_nv(
                span,
                Symbol::aten("_set_item"),
                vec![
                    NamedValue::named("self", dict, span),
                    NamedValue::new(k, span),
                    NamedValue::new(v, span),
                ],
                vec![],
                None,
            )?;
            Ok(())
        };
        let r = match cond {
            None => self.emit_for(span, target, iter, &mut set_item),
            Some(c) => self.emit_for(span, target, iter, &mut |e| {
                let cv = e.emit_cond_expr(c)?;
                e.emit_if_else_blocks(span, &cv, &mut set_item, &mut |_| Ok(()))
            }),
        };
        self.g.set_insert_point(saved);
        self.pop_frame();
        r?;
        Ok(dict)
    }

    // ---------------------------------------------------------------- subscripts

    fn emit_subscript(
        &mut self,
        span: Span,
        value: &Expr,
        indices: &[Expr],
        hint: Option<&Type>,
    ) -> R<Sugared> {
        let sv = self.emit_sugared_expr(value, 1, None)?;
        if indices.len() != 1 {
            let v = self.as_value(value.span, &sv)?;
            return Ok(Sugared::Simple(
                self.emit_multidim_slicing(span, v, indices)?,
            ));
        }
        let index = &indices[0];
        if let ExprKind::Slice { start, end, step } = &index.kind {
            let v = self.as_value(value.span, &sv)?;
            let dim = if self.g.ty(v).is_subtype_of(&Type::tensor()) {
                Some(self.insert_constant(ConstValue::Int(0), span))
            } else {
                None
            };
            let start = self.emit_opt(start.as_deref())?;
            let end = self.emit_opt(end.as_deref())?;
            let step = self.emit_opt(step.as_deref())?;
            return Ok(Sugared::Simple(
                self.emit_slice_op(span, v, dim, start, end, step)?,
            ));
        }
        let sliceable = self.as_value(value.span, &sv)?;
        let isv = self.emit_sugared_expr(index, 1, None)?;
        if let Sugared::Slice { start, stop, step } = isv {
            let dim = if self.g.ty(sliceable).is_subtype_of(&Type::tensor()) {
                Some(self.insert_constant(ConstValue::Int(0), value.span))
            } else {
                None
            };
            return Ok(Sugared::Simple(
                self.emit_slice_op(value.span, sliceable, dim, start, stop, step)?,
            ));
        }
        let st = self.g.ty(sliceable).clone();
        if matches!(st, Type::Tuple(_)) {
            let idx = self.as_value(value.span, &isv)?;
            return Ok(Sugared::Simple(
                self.emit_tuple_index(span, sliceable, idx)?,
            ));
        }
        if st.is_subtype_of(&Type::tensor()) {
            return Ok(Sugared::Simple(
                self.emit_multidim_slicing(span, sliceable, indices)?,
            ));
        }
        let idx = self.as_value(value.span, &isv)?;
        self.sugared_getitem(span, &sv, idx, hint)
    }

    fn emit_opt(&mut self, e: Option<&Expr>) -> R<Option<Value>> {
        e.map(|e| self.emit_expr(e, None)).transpose()
    }

    fn emit_slice_op(
        &mut self,
        span: Span,
        sliceable: Value,
        dim: Option<Value>,
        start: Option<Value>,
        end: Option<Value>,
        step: Option<Value>,
    ) -> R<Value> {
        if let Type::Tuple(t) = self.g.ty(sliceable).clone() {
            return self.emit_tuple_slice(
                span,
                sliceable,
                t.elements.len() as i64,
                start,
                end,
                step,
            );
        }
        let mut args = vec![NamedValue::named("self", sliceable, span)];
        if let Some(d) = dim {
            args.push(NamedValue::new(d, span));
        }
        let start = match start {
            Some(s) => s,
            None => self.insert_constant(ConstValue::None, span),
        };
        args.push(NamedValue::named("start", start, span));
        if let Some(e) = end {
            args.push(NamedValue::named("end", e, span));
        }
        let step = match step {
            Some(s) => s,
            None => self.insert_constant(ConstValue::Int(1), span),
        };
        self.builtin_call_nv(
            span,
            Symbol::aten("slice"),
            args,
            vec![NamedValue::named("step", step, span)],
            None,
        )
    }

    fn tuple_const_index(&self, span: Span, v: Value) -> R<i64> {
        match self.constant_of(v) {
            Some(ConstValue::Int(i)) => Ok(i),
            _ => Err(self.err(span, "tuple slice indices must be integer constants")),
        }
    }

    fn emit_tuple_slice(
        &mut self,
        span: Span,
        tuple: Value,
        len: i64,
        start: Option<Value>,
        end: Option<Value>,
        step: Option<Value>,
    ) -> R<Value> {
        let step = match step {
            Some(s) => self.tuple_const_index(span, s)?,
            None => 1,
        };
        let adj = |i: i64| if i < 0 { len + i } else { i };
        let mut beg = match start {
            Some(s) => adj(self.tuple_const_index(span, s)?),
            None => i64::MAX,
        };
        let mut end_i = match end {
            Some(e) => adj(self.tuple_const_index(span, e)?),
            None => i64::MAX,
        };
        if step == 0 {
            return Err(self.err(span, "List slice should have non-zero step"));
        }
        let n = slice_indices_adjust(len, &mut beg, &mut end_i, step);
        let Type::Tuple(t) = self.g.ty(tuple).clone() else {
            return Err(self.err(span, "expected a tuple"));
        };
        // `createTupleSlice`: one `prim::TupleIndex` per element, then a new tuple.
        let mut items = Vec::new();
        let mut i = beg;
        for _ in 0..n {
            let idx = self.insert_constant(ConstValue::Int(i), span);
            let ty = t.elements[i as usize].clone();
            let node = self.emit_node(Symbol::prim("TupleIndex"), &[tuple, idx], vec![ty], span);
            items.push(self.g.output(node, 0));
            i += step;
        }
        Ok(self.insert_tuple(&items, span))
    }

    fn emit_tuple_index(&mut self, span: Span, tuple: Value, idx: Value) -> R<Value> {
        let Type::Tuple(t) = self.g.ty(tuple).clone() else {
            unreachable!("tuple index on a tuple")
        };
        if *self.g.ty(idx) != Type::Int {
            return Err(self.err(span, "tuple index must be an integer"));
        }
        let len = t.elements.len() as i64;
        let out_ty = match self.constant_of(idx) {
            Some(ConstValue::Int(i)) => {
                let adj = if i < 0 { len + i } else { i };
                if adj >= len || adj < 0 {
                    return Err(self.err(
                        span,
                        format!("Tuple index out of range. Tuple is length {len} and index is {i}"),
                    ));
                }
                t.elements[adj as usize].clone()
            }
            _ => {
                let first = t.elements.first().cloned();
                match first {
                    Some(f) if t.elements.iter().all(|e| e.is_subtype_of(&f)) => f,
                    _ => {
                        return Err(self.err(span, format!("Cannot index into a {} with a non-integer literal because we cannot resolve the output type", Type::Tuple(t).repr_str())))
                    }
                }
            }
        };
        let n = self.emit_node(
            Symbol::prim("TupleIndex"),
            &[tuple, idx],
            vec![out_ty],
            span,
        );
        Ok(self.g.output(n, 0))
    }

    fn emit_multidim_slicing(
        &mut self,
        span: Span,
        sliceable: Value,
        indices: &[Expr],
    ) -> R<Value> {
        if !self.g.ty(sliceable).is_subtype_of(&Type::tensor()) {
            return Err(self.err(span, "Unsupported operation: attempted to use multidimensional indexing on a non-tensor type"));
        }
        let (sliced, tensor_indices) =
            self.emit_int_and_slice_indexing(span, sliceable, indices)?;
        if tensor_indices.is_empty() {
            return Ok(sliced);
        }
        let list = self.insert_list(Type::optional(Type::tensor()), &tensor_indices, span);
        self.builtin_call(span, Symbol::aten("index"), &[sliced, list], &[])
    }

    /// `emitIntAndSliceIndexing`: ints select, slices slice, `None` unsqueezes, `...` skips;
    /// tensor (and list) indices are returned for `aten::index`.
    pub fn emit_int_and_slice_indexing(
        &mut self,
        span: Span,
        mut sliceable: Value,
        indices: &[Expr],
    ) -> R<(Value, Vec<Value>)> {
        let n = indices.len();
        let mut dims = vec![0i64; n];
        let mut exprs: Vec<Option<Value>> = vec![None; n];
        let mut slice_values: Vec<Option<SliceParts>> = vec![None; n];

        let mut handle = |e: &mut FnEmitter<'a>, i: usize, dim: i64, reverse: bool| -> R<i64> {
            dims[i] = dim;
            let step = |d: i64| if reverse { d - 1 } else { d + 1 };
            let ex = &indices[i];
            if matches!(ex.kind, ExprKind::Slice { .. }) {
                return Ok(step(dim));
            }
            let sv = e.emit_sugared_expr(ex, 1, None)?;
            if let Sugared::Slice {
                start,
                stop,
                step: st,
            } = sv
            {
                slice_values[i] = Some((start, stop, st));
                return Ok(step(dim));
            }
            let hint = matches!(ex.kind, ExprKind::None).then_some(Type::None);
            let mut index = e.as_value(ex.span, &sv)?;
            let _ = hint;
            if matches!(e.g.ty(index), Type::List(_)) {
                let long = e.insert_constant(ConstValue::Int(4), span);
                index =
                    e.builtin_call(span, Symbol::aten("tensor"), &[index], &[("dtype", long)])?;
            }
            exprs[i] = Some(index);
            let t = e.g.ty(index).clone();
            if t.is_subtype_of(&Type::None) {
                Ok(if reverse { dim } else { dim + 1 })
            } else if t == Type::Int {
                Ok(if reverse { dim - 1 } else { dim })
            } else if t.is_subtype_of(&Type::optional(Type::tensor())) {
                if reverse {
                    Err(e.err(
                        span,
                        "Ellipses followed by tensor indexing is currently not supported",
                    ))
                } else {
                    Ok(dim + 1)
                }
            } else {
                Err(e.err(span, format!("Unsupported operation: indexing tensor with unsupported index type '{}'. Only ints, slices, lists and tensors are supported", t.repr_str())))
            }
        };

        let mut idx = 0;
        let mut dim = 0;
        while idx < n {
            if matches!(indices[idx].kind, ExprKind::Ellipsis) {
                break;
            }
            dim = handle(self, idx, dim, false)?;
            idx += 1;
        }
        let mut rdim = -1;
        let mut rev = n;
        while rev > idx + 1 {
            rev -= 1;
            if matches!(indices[rev].kind, ExprKind::Ellipsis) {
                return Err(self.err(span, "An index can only have a single ellipsis ('...')"));
            }
            rdim = handle(self, rev, rdim, true)?;
        }
        let mut tensor_indices: Vec<Option<Value>> = Vec::new();
        for i in 0..n {
            let Some(expr) = exprs[i] else {
                if let ExprKind::Slice { start, end, step } = &indices[i].kind {
                    let d = self.insert_constant(ConstValue::Int(dims[i]), span);
                    let start = self.emit_opt(start.as_deref())?;
                    let end = self.emit_opt(end.as_deref())?;
                    let step = self.emit_opt(step.as_deref())?;
                    sliceable = self.emit_slice_op(span, sliceable, Some(d), start, end, step)?;
                    continue;
                }
                if let Some((start, stop, step)) = slice_values[i] {
                    let d = self.insert_constant(ConstValue::Int(dims[i]), span);
                    sliceable = self.emit_slice_op(span, sliceable, Some(d), start, stop, step)?;
                }
                continue;
            };
            let t = self.g.ty(expr).clone();
            if t.is_subtype_of(&Type::None) {
                let d = self.insert_constant(ConstValue::Int(dims[i]), span);
                sliceable =
                    self.builtin_call(span, Symbol::aten("unsqueeze"), &[sliceable, d], &[])?;
            } else if t == Type::Int {
                let d = self.insert_constant(ConstValue::Int(dims[i]), span);
                sliceable =
                    self.builtin_call(span, Symbol::aten("select"), &[sliceable, d, expr], &[])?;
            } else {
                let d = dims[i] as usize;
                if tensor_indices.len() < d + 1 {
                    tensor_indices.resize(d + 1, None);
                }
                tensor_indices[d] = Some(expr);
            }
        }
        let mut out = Vec::new();
        for t in tensor_indices {
            match t {
                Some(v) => out.push(v),
                None => {
                    let none = self.insert_typed_constant(ConstValue::None, Type::None, span);
                    out.push(none);
                }
            }
        }
        Ok((sliceable, out))
    }
}

/// The start, stop and step of a `slice(...)` index.
type SliceParts = (Option<Value>, Option<Value>, Option<Value>);

/// `slice_indices_adjust`: Python's `PySlice_AdjustIndices`; returns the slice length.
pub fn slice_indices_adjust(length: i64, start: &mut i64, stop: &mut i64, step: i64) -> i64 {
    if *start == i64::MAX {
        *start = if step < 0 { i64::MAX } else { 0 };
    }
    if *stop == i64::MAX {
        *stop = if step < 0 { i64::MIN } else { i64::MAX };
    }
    if *start < 0 {
        *start += length;
        if *start < 0 {
            *start = if step < 0 { -1 } else { 0 };
        }
    } else if *start >= length {
        *start = if step < 0 { length - 1 } else { length };
    }
    if *stop < 0 {
        *stop = stop.saturating_add(length);
        if *stop < 0 {
            *stop = if step < 0 { -1 } else { 0 };
        }
    } else if *stop >= length {
        *stop = if step < 0 { length - 1 } else { length };
    }
    if step < 0 {
        if *stop < *start {
            return (*start - *stop - 1) / (-step) + 1;
        }
    } else if *start < *stop {
        return (*stop - *start - 1) / step + 1;
    }
    0
}
