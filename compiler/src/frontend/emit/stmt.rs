//! Statements: assignments, control flow, raise/assert, with, del (PyTorch's `emitStatements`
//! and the `emitIf`/`emitWhile`/`emitFor`/`emitAssignment` family).

use std::collections::BTreeSet;

use ember_dialects::attr::ConstValue;
use ember_dialects::types::unify_types_ext;
use ember_dialects::{Symbol, Type, Value};

use super::expr::{CondValue, RefinementSet};
use super::module_init::is_super_init;
use super::sugared::Sugared;
use super::{FnEmitter, LoopStatus, R};
use crate::frontend::ast::{BinOp, Expr, ExprKind, Stmt, StmtKind, WithItem};
use crate::frontend::span::Span;

/// A body emitted into a block: statements, or a closure (comprehensions).
pub type BodyFn<'b, 'a> = dyn FnMut(&mut FnEmitter<'a>) -> R<()> + 'b;

impl<'a> FnEmitter<'a> {
    pub fn emit_statements(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            self.emit_statement(s)?;
            // Whatever follows an exit in this block is unreachable and not emitted.
            if self.exit_blocks.contains(&self.current_block()) {
                return Ok(());
            }
        }
        Ok(())
    }

    fn emit_statement(&mut self, s: &Stmt) -> R<()> {
        if let Some(done) = self.emit_module_init_statement(s) {
            return done;
        }
        match &s.kind {
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                let c = self.emit_cond_expr(cond)?;
                self.emit_if_else_blocks(
                    s.span,
                    &c,
                    &mut |e| e.emit_statements(then_body),
                    &mut |e| e.emit_statements(else_body),
                )
            }
            StmtKind::While { cond, body } => self.emit_loop_common(
                s.span,
                &mut |e| e.emit_statements(body),
                None,
                None,
                Some(cond),
            ),
            StmtKind::For { target, iter, body } => {
                self.emit_for(s.span, target, iter, &mut |e| e.emit_statements(body))
            }
            StmtKind::Assign {
                targets,
                annotation,
                value,
            } => self.emit_assignment(s.span, targets, annotation.as_ref(), value.as_ref()),
            StmtKind::AugAssign { target, op, value } => {
                self.emit_aug_assignment(s.span, target, *op, value)
            }
            StmtKind::Expr(e) => {
                // `super().__init__()` in a module's `__init__` is Python's business.
                if is_super_init(e) && self.method_name.as_deref() == Some("__init__") {
                    return Ok(());
                }
                self.emit_sugared_expr(e, 0, None)?;
                Ok(())
            }
            StmtKind::Return(e) => self.emit_return(s.span, e.as_ref()),
            StmtKind::Raise(e) => self.emit_raise(s.span, e.as_ref()),
            StmtKind::Assert { test, msg } => self.emit_assert(s.span, test, msg.as_ref()),
            StmtKind::Break => {
                self.check_break_continue(s.span, "break")?;
                self.emit_node(Symbol::prim("BreakStmt"), &[], vec![], s.span);
                Ok(())
            }
            StmtKind::Continue => {
                self.check_break_continue(s.span, "continue")?;
                self.emit_node(Symbol::prim("ContinueStmt"), &[], vec![], s.span);
                Ok(())
            }
            StmtKind::Pass => Ok(()),
            StmtKind::Delete(targets) => self.emit_delete(targets),
            StmtKind::With { items, body } => self.emit_with(items, body),
            // PyTorch's frontend.py refuses these before the emitter sees them.
            StmtKind::Global(_) => Err(self.err(s.span, "global variables aren't supported")),
            StmtKind::Def(_) => Err(self.err(s.span, "function definitions aren't supported")),
            StmtKind::Class(_) => Err(self.err(s.span, "class definitions aren't supported")),
            StmtKind::Import(_) => Err(self.err(s.span, "import statements aren't supported")),
        }
    }

    fn check_break_continue(&self, span: Span, what: &str) -> R<()> {
        match self.loop_status {
            LoopStatus::NotInLoop => Err(self.err(span, format!("SyntaxError: '{what}' outside loop"))),
            LoopStatus::InUnrolledLoop => Err(self.err(
                span,
                "Because we emit iteration over modulelists or tuples as unrolled loops, we do not support break or continue inside the body of these loops",
            )),
            LoopStatus::InLoop => Ok(()),
        }
    }

    // ---------------------------------------------------------------- if

    /// Emits a branch into block `b` with its own frame; returns the frame.
    fn emit_single_if_branch(
        &mut self,
        b: ember_dialects::Block,
        span: Span,
        refinements: &RefinementSet,
        body: &mut BodyFn<'_, 'a>,
    ) -> R<super::env::Frame> {
        self.push_frame(b);
        let saved = self.g.insert_point();
        self.g.set_insert_point_to_end(b);
        let r = self
            .insert_refinements(span, refinements)
            .and_then(|_| body(self));
        self.g.set_insert_point(saved);
        let frame = self.pop_frame();
        r.map(|_| frame)
    }

    /// `emitIfElseBlocks`.
    pub fn emit_if_else_blocks(
        &mut self,
        span: Span,
        cond: &CondValue,
        then_body: &mut BodyFn<'_, 'a>,
        else_body: &mut BodyFn<'_, 'a>,
    ) -> R<()> {
        if let Some(static_if) = cond.static_if {
            if static_if {
                self.insert_refinements(span, &cond.refinements)?;
                return then_body(self);
            } else {
                self.insert_refinements(span, &cond.refinements.not())?;
                return else_body(self);
            }
        }
        let n = self.emit_node(Symbol::prim("If"), &[cond.value], vec![], span);
        let tb = self.g.add_block(n);
        let fb = self.g.add_block(n);
        let save_true = self.emit_single_if_branch(tb, span, &cond.refinements, then_body)?;
        let save_false =
            self.emit_single_if_branch(fb, span, &cond.refinements.not(), else_body)?;
        let true_exits = self.exit_blocks.contains(&tb);
        let false_exits = self.exit_blocks.contains(&fb);
        if true_exits && false_exits {
            let owner = self.current_block();
            self.exit_blocks.insert(owner);
        }

        let mut mutated = BTreeSet::new();
        for v in save_true.defined_variables() {
            let found = self.in_block(fb, |e| e.find_in_popped(&save_false, &v).is_some());
            if found || false_exits {
                mutated.insert(v);
            } else {
                self.var_errors
                    .insert(v.clone(), format!("{v} is not defined in the false branch"));
            }
        }
        for v in save_false.defined_variables() {
            let found = self.in_block(tb, |e| e.find_in_popped(&save_true, &v).is_some());
            if found || true_exits {
                mutated.insert(v);
            } else {
                self.var_errors
                    .insert(v.clone(), format!("{v} is not defined in the true branch"));
            }
        }

        for x in mutated {
            let mut tv = None;
            let mut fv = None;
            if !true_exits {
                tv = self.in_block(tb, |e| e.get_var_in_popped(&save_true, &x, span))?;
            }
            if !false_exits {
                fv = self.in_block(fb, |e| e.get_var_in_popped(&save_false, &x, span))?;
            }
            if true_exits && false_exits {
                continue;
            } else if true_exits {
                let fv = fv.expect("false branch value");
                let ty = self.g.ty(fv).clone();
                tv = Some(self.uninitialized_store(tb, &x, ty, span));
            } else if false_exits {
                let tv = tv.expect("true branch value");
                let ty = self.g.ty(tv).clone();
                fv = Some(self.uninitialized_store(fb, &x, ty, span));
            }
            let (Some(tv), Some(fv)) = (tv, fv) else {
                continue;
            };
            // A variable annotated with a union keeps both branch types in the union.
            let full_type = self
                .frames
                .iter()
                .rev()
                .find_map(|f| f.types.get(&x).cloned());
            let default_to_union = matches!(
                full_type,
                Some(Type::Union(_)) | Some(Type::Optional(_)) | Some(Type::Number)
            );
            let tt = self.g.ty(tv).clone();
            let ft = self.g.ty(fv).clone();
            match unify_types_ext(&tt, &ft, default_to_union, None) {
                Some(u) => self.set_type(&x, u),
                None => {
                    let msg = format!(
                        "Type mismatch: {x} is set to type {} in the true branch and type {} in the false branch",
                        tt.repr_str(),
                        ft.repr_str()
                    );
                    if self.any_frame_knows(&x) {
                        return Err(self.err(span, msg));
                    }
                    self.var_errors.insert(x.clone(), msg);
                }
            }
        }
        Ok(())
    }

    fn any_frame_knows(&self, name: &str) -> bool {
        self.frames
            .iter()
            .any(|f| f.types.contains_key(name) || f.values.contains_key(name))
    }

    fn get_var_in_popped(
        &mut self,
        popped: &super::env::Frame,
        name: &str,
        span: Span,
    ) -> R<Option<Value>> {
        match self.find_in_popped(popped, name) {
            Some(s) => Ok(Some(self.as_value(span, &s)?)),
            None => Err(self.var_not_found(span, name)),
        }
    }

    /// `x = prim::Uninitialized()` at the end of an exiting branch, so `x` is defined on both
    /// paths.
    fn uninitialized_store(
        &mut self,
        b: ember_dialects::Block,
        name: &str,
        ty: Type,
        span: Span,
    ) -> Value {
        let ret = self.g.return_node(b);
        let saved = self.g.insert_point();
        self.g.set_insert_point(ret);
        let v = self.insert_uninitialized(ty);
        let n = self.g.create(Symbol::prim("Store"), &[v], 0);
        self.g.set_attr(
            n,
            Symbol::attr("name"),
            ember_dialects::AttrValue::Str(name.to_string()),
        );
        self.set_span(n, span);
        self.g.insert_node(n);
        self.g.set_insert_point(saved);
        v
    }

    // ---------------------------------------------------------------- loops

    /// `emitLoopCommon`: `prim::Loop(max_trip_count)` with a body block (the trip counter as
    /// its input) and a condition block, in the form SSA conversion expects.
    pub fn emit_loop_common(
        &mut self,
        span: Span,
        body: &mut BodyFn<'_, 'a>,
        iter: Option<&Sugared>,
        target: Option<&Expr>,
        cond: Option<&Expr>,
    ) -> R<()> {
        let max_trip = match iter {
            Some(it) => self.sugared_len(span, it)?,
            None => self.materialize_int(i64::MAX, span),
        };
        let n = self.emit_node(Symbol::prim("Loop"), &[], vec![], span);
        let body_block = self.g.add_block(n);
        let cond_block = self.g.add_block(n);
        self.push_frame(cond_block);
        let out = match cond {
            Some(c) => self.in_block(cond_block, |e| -> R<Value> {
                let v = e.emit_expr(c, None)?;
                e.emit_to_bool(c.span, v)
            }),
            None => Ok(self.before_node(n, |e| e.insert_constant(ConstValue::Bool(true), span))),
        };
        self.pop_frame();
        let out = out?;
        self.g.block_register_output(cond_block, out);
        self.g.add_node_input(n, max_trip);

        let saved_status = self.loop_status;
        self.loop_status = LoopStatus::InLoop;
        let trip_count = self.g.block_add_input(body_block, Type::Int);
        self.push_frame(body_block);
        let saved = self.g.insert_point();
        self.g.set_insert_point_to_end(body_block);
        let r = (|| -> R<()> {
            if let (Some(it), Some(t)) = (iter, target) {
                let elem = self.sugared_getitem(span, it, trip_count, None)?;
                self.emit_exprs_assign(std::slice::from_ref(t), &[elem], span, 1)?;
            }
            body(self)
        })();
        self.g.set_insert_point(saved);
        self.pop_frame();
        self.loop_status = saved_status;
        r
    }

    fn emit_unrolled_loop(
        &mut self,
        span: Span,
        body: &mut BodyFn<'_, 'a>,
        iterable: &Sugared,
        target: &Expr,
    ) -> R<()> {
        let len = iterable.static_len().unwrap_or(0);
        let saved_status = self.loop_status;
        self.loop_status = LoopStatus::InUnrolledLoop;
        let r = (|| -> R<()> {
            for i in 0..len {
                let idx = self.materialize_int(i, span);
                let item = self.sugared_getitem(span, iterable, idx, None)?;
                self.emit_exprs_assign(std::slice::from_ref(target), &[item], span, 1)?;
                body(self)?;
                if self.exit_blocks.contains(&self.current_block()) {
                    break;
                }
            }
            Ok(())
        })();
        self.loop_status = saved_status;
        r
    }

    /// `emitFor`.
    pub fn emit_for(
        &mut self,
        span: Span,
        target: &Expr,
        iter: &Expr,
        body: &mut BodyFn<'_, 'a>,
    ) -> R<()> {
        self.validate_assign_lhs(std::slice::from_ref(target), span)?;
        let sv = self.emit_sugared_expr(iter, 1, None)?;
        let iterable = self.sugared_iter(span, &sv)?;
        if iterable.should_emit_unrolled() {
            self.emit_unrolled_loop(span, body, &iterable, target)
        } else {
            self.emit_loop_common(span, body, Some(&iterable), Some(target), None)
        }
    }

    // ---------------------------------------------------------------- raise / assert / with

    fn emit_raise(&mut self, span: Span, e: Option<&Expr>) -> R<()> {
        let Some(e) = e else {
            return Err(self.err(span, "exceptions must derive from BaseException"));
        };
        let sv = self.emit_sugared_expr(e, 1, None)?;
        let (mut msg, cls) = match sv {
            Sugared::ExceptionMessage { message, class } => (message, class),
            Sugared::Exception { .. } => (
                self.insert_constant(ConstValue::Str(String::new()), span),
                None,
            ),
            _ => return Err(self.err(span, "exceptions must derive from BaseException")),
        };
        if !self.g.ty(msg).is_subtype_of(&Type::Str) {
            msg = self.builtin_call(span, Symbol::aten("str"), &[msg], &[])?;
        }
        self.emit_raise_node(span, msg, cls)?;
        let b = self.current_block();
        self.exit_blocks.insert(b);
        Ok(())
    }

    fn emit_raise_node(&mut self, span: Span, msg: Value, cls: Option<Value>) -> R<()> {
        let mut args = vec![msg];
        args.extend(cls);
        self.builtin_call_outputs(span, Symbol::prim("RaiseException"), &args, &[])?;
        Ok(())
    }

    /// `emitAssert`: `if not test: raise AssertionError(msg)`.
    fn emit_assert(&mut self, span: Span, test: &Expr, msg: Option<&Expr>) -> R<()> {
        let c = self.emit_cond_expr(test)?;
        let message = msg
            .cloned()
            .unwrap_or_else(|| Expr::new(ExprKind::Str(String::new()), span));
        let raise = Stmt::new(
            StmtKind::Raise(Some(Expr::new(
                ExprKind::Call {
                    func: Box::new(Expr::new(ExprKind::Name("AssertionError".into()), span)),
                    args: vec![message],
                    kwargs: vec![],
                },
                span,
            ))),
            span,
        );
        let false_branch = [raise];
        self.emit_if_else_blocks(span, &c, &mut |_| Ok(()), &mut |e| {
            e.emit_statements(&false_branch)
        })
    }

    fn emit_with(&mut self, items: &[WithItem], body: &[Stmt]) -> R<()> {
        let mut entered = Vec::new();
        for item in items {
            let rhs = self.emit_expr(&item.context, None)?;
            let Type::Class(qual) = self.g.ty(rhs).clone() else {
                return Err(self.err(
                    item.context.span,
                    "With item expression must return an object",
                ));
            };
            let enter = self.method_sig(item.context.span, &qual, "__enter__")?;
            let exit = self.method_sig(item.context.span, &qual, "__exit__")?;
            let (Some(enter), Some(exit)) = (enter, exit) else {
                return Err(self.err(
                    item.context.span,
                    "Object returned by with item expression does not define __enter__ and __exit__ methods",
                ));
            };
            if !enter.params.is_empty() {
                return Err(self.err(
                    item.context.span,
                    "__enter__ must have only one argument and one return value",
                ));
            }
            if exit.params.len() != 3 {
                return Err(self.err(item.context.span, "__exit__ must have four arguments"));
            }
            for (i, p) in exit.params.iter().enumerate() {
                if p.ty != Type::Any {
                    return Err(self.err(item.context.span, format!("argument {} of __exit__ must have Any type; TorchScript does not currently support passing exception type, value, or traceback to the __exit__ function.", i + 1)));
                }
            }
            let n = self.emit_node(
                Symbol::prim("Enter"),
                &[rhs],
                vec![enter.ret.clone()],
                item.context.span,
            );
            entered.push(rhs);
            if let Some(t) = &item.target {
                let ExprKind::Name(name) = &t.kind else {
                    return Err(self.err(t.span, "with item targets must be variables"));
                };
                let out = self.g.output(n, 0);
                self.set_var(t.span, name, out)?;
            }
        }
        self.emit_statements(body)?;
        while let Some(v) = entered.pop() {
            // `graph->create(prim::Exit)` has one output, typed Tensor by default.
            let n = self.g.create(Symbol::prim("Exit"), &[v], 0);
            self.g.add_node_output(n, Type::tensor());
            self.g.insert_node(n);
        }
        Ok(())
    }

    fn emit_delete(&mut self, targets: &[Expr]) -> R<()> {
        for t in targets {
            match &t.kind {
                ExprKind::Subscript { value, indices } => {
                    if matches!(indices.first().map(|i| &i.kind), Some(ExprKind::Slice { .. })) {
                        return Err(self.err(t.span, "del statements only support deletion at a single index, slicing is not supported (see https://github.com/pytorch/pytorch/issues/31430)"));
                    }
                    let v = self.emit_expr(value, None)?;
                    let idx = self.emit_expr(&indices[0], None)?;
                    if let Type::Class(qual) = self.g.ty(v).clone() {
                        self.call_method(t.span, v, &qual, "__delitem__", &[idx], &[])?;
                    } else {
                        self.builtin_call_outputs(t.span, Symbol::aten("Delete"), &[v, idx], &[])?;
                    }
                }
                ExprKind::Name(n) => self.remove_var(t.span, n)?,
                _ => {
                    return Err(self.err(
                        t.span,
                        "del statements are only supported for deleting list and dict items and variables",
                    ))
                }
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- assignment

    /// Checks a target list and says whether it has a starred target.
    pub fn validate_assign_lhs(&self, lhs: &[Expr], span: Span) -> R<bool> {
        let mut normal = 0;
        let mut starred = 0;
        for a in lhs {
            match &a.kind {
                ExprKind::Name(_)
                | ExprKind::Subscript { .. }
                | ExprKind::Tuple(_)
                | ExprKind::List(_)
                | ExprKind::Attribute { .. } => normal += 1,
                ExprKind::Starred(_) => starred += 1,
                _ => {
                    return Err(self.err(
                        a.span,
                        "lhs of assignment must be a variable, subscript, or starred expression",
                    ))
                }
            }
        }
        if starred > 1 {
            return Err(self.err(span, "Only one starred expression is allowed on the lhs"));
        }
        if starred > 0 && normal == 0 {
            return Err(self.err(span, "A Starred expression may only appear on the lhs within the presence of another non-starred expression"));
        }
        Ok(starred > 0)
    }

    fn emit_assignment(
        &mut self,
        span: Span,
        targets: &[Expr],
        annotation: Option<&Expr>,
        value: Option<&Expr>,
    ) -> R<()> {
        let Some(value) = value else {
            return Err(self.err(
                span,
                "annotated assignments without assigned value aren't supported",
            ));
        };
        if targets.len() == 1 {
            return self.emit_single_assignment(span, &targets[0], annotation, value);
        }
        let tmp = self.temp_name("$tmp_assign_");
        let rhs = self.emit_sugared_expr(value, 1, None)?;
        self.set_sugared_var(value.span, &tmp, rhs, None)?;
        let tmp_expr = Expr::new(ExprKind::Name(tmp), value.span);
        for t in targets {
            self.emit_single_assignment(span, t, None, &tmp_expr)?;
        }
        Ok(())
    }

    fn emit_single_assignment(
        &mut self,
        span: Span,
        target: &Expr,
        annotation: Option<&Expr>,
        rhs: &Expr,
    ) -> R<()> {
        match &target.kind {
            ExprKind::Name(name) => {
                let ty = match annotation {
                    Some(a) => Some(self.cx.parse_type(a)?),
                    None => None,
                };
                let v = self.emit_sugared_expr(rhs, 1, ty.as_ref())?;
                self.set_sugared_var(target.span, name, v, ty)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let starred = self.validate_assign_lhs(items, target.span)?;
                let mut n_binders = items.len();
                if starred {
                    n_binders -= 1;
                }
                let out = self.emit_sugared_expr(rhs, n_binders, None)?;
                self.emit_tuple_assign(target.span, items, &out, rhs.span, n_binders, starred)
            }
            ExprKind::Attribute { value, attr } => {
                let ty = match annotation {
                    Some(a) => Some(self.cx.parse_type(a)?),
                    None => None,
                };
                let obj = self.emit_sugared_expr(value, 1, None)?;
                let v = self.emit_sugared_expr(rhs, 1, ty.as_ref())?;
                let v = self.as_value(rhs.span, &v)?;
                self.sugared_set_attr(span, &obj, &attr.name, v, ty)
            }
            ExprKind::Subscript { value, indices } => {
                let v = self.emit_expr(rhs, None)?;
                self.emit_subscript_assign(span, value, indices, v)
            }
            ExprKind::Starred(_) => Err(self.err(
                target.span,
                "A Starred expression may only appear on the lhs within the presence of another non-starred expression",
            )),
            _ => Err(self.err(target.span, "unexpected expression on left-hand side of assignment")),
        }
    }

    pub fn emit_tuple_assign(
        &mut self,
        span: Span,
        items: &[Expr],
        rhs: &Sugared,
        rhs_span: Span,
        n_binders: usize,
        starred: bool,
    ) -> R<()> {
        let outputs =
            self.sugared_as_tuple(rhs_span, rhs, if starred { None } else { Some(n_binders) })?;
        if outputs.len() < n_binders {
            return Err(self.err(
                span,
                format!(
                    "need {}{n_binders} values to unpack but found only {}",
                    if starred { "at least " } else { "" },
                    outputs.len()
                ),
            ));
        }
        if outputs.len() > n_binders && !starred {
            return Err(self.err(
                span,
                format!(
                    "too many values to unpack: need {n_binders} but found {}",
                    outputs.len()
                ),
            ));
        }
        self.emit_exprs_assign(items, &outputs, rhs_span, n_binders)
    }

    /// `emitExprsAssign`: binds each target to its output.
    pub fn emit_exprs_assign(
        &mut self,
        lhs: &[Expr],
        outputs: &[Sugared],
        rhs_span: Span,
        n_binders: usize,
    ) -> R<()> {
        let mut i = 0;
        for a in lhs {
            match &a.kind {
                ExprKind::Subscript { value, indices } => {
                    let v = self.as_value(rhs_span, &outputs[i])?;
                    self.emit_subscript_assign(rhs_span, value, indices, v)?;
                    i += 1;
                }
                ExprKind::Name(name) => {
                    self.set_sugared_var(a.span, name, outputs[i].clone(), None)?;
                    i += 1;
                }
                ExprKind::Attribute { value, attr } => {
                    let obj = self.emit_sugared_expr(value, 1, None)?;
                    let v = self.as_value(rhs_span, &outputs[i])?;
                    self.sugared_set_attr(a.span, &obj, &attr.name, v, None)?;
                    i += 1;
                }
                ExprKind::Starred(inner) => {
                    let ExprKind::Name(name) = &inner.kind else {
                        return Err(self.err(inner.span, "Cannot pack a tuple into a non-variable"));
                    };
                    let n_matched = outputs.len() - n_binders;
                    let mut values = Vec::new();
                    for o in &outputs[i..i + n_matched] {
                        values.push(self.as_value(a.span, o)?);
                    }
                    let tup = self.insert_tuple(&values, a.span);
                    self.set_var(inner.span, name, tup)?;
                    i += n_matched;
                }
                ExprKind::Tuple(items) | ExprKind::List(items) => {
                    let starred = self.validate_assign_lhs(items, a.span)?;
                    let mut sub_n = items.len();
                    if starred {
                        sub_n -= 1;
                    }
                    let o = outputs[i].clone();
                    self.emit_tuple_assign(a.span, items, &o, rhs_span, sub_n, starred)?;
                    i += 1;
                }
                _ => return Err(self.err(a.span, "unexpected expression on the left-hand side")),
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- augmented assignment

    /// `getAugOp`: the in-place operator for tensors and lists, else the plain one.
    fn aug_op(&self, span: Span, op: BinOp, ty: &Type) -> R<Symbol> {
        let inplace = ty.is_subtype_of(&Type::tensor()) || matches!(ty, Type::List(_));
        let pick = |a: &str, b: &str| Symbol::aten(if inplace { a } else { b });
        Ok(match op {
            BinOp::Add => pick("add_", "add"),
            BinOp::Sub => pick("sub_", "sub"),
            BinOp::Div => pick("div_", "div"),
            BinOp::Mul => pick("mul_", "mul"),
            BinOp::Mod => pick("fmod_", "fmod"),
            BinOp::BitOr => pick("bitwise_or", "__or__"),
            BinOp::BitAnd => pick("bitwise_and", "__and__"),
            BinOp::BitXor => pick("bitwise_xor", "__xor__"),
            BinOp::LShift => Symbol::aten("__lshift__"),
            BinOp::RShift => pick("__irshift__", "__rshift__"),
            BinOp::Pow => Symbol::aten("pow"),
            other => {
                return Err(self.err(
                    span,
                    format!("Unknown augmented assignment: {}", other.symbol()),
                ))
            }
        })
    }

    fn emit_aug_assignment(&mut self, span: Span, target: &Expr, op: BinOp, rhs: &Expr) -> R<()> {
        // PyTorch's frontend.py knows no `//=` or `@=`.
        match op {
            BinOp::FloorDiv => {
                return Err(self.err(span, "unsupported kind of augmented assignment: FloorDiv"))
            }
            BinOp::MatMul => {
                return Err(self.err(span, "unsupported kind of augmented assignment: MatMult"))
            }
            _ => {}
        }
        match &target.kind {
            ExprKind::Name(name) => {
                let lhs = self.emit_expr(target, None)?;
                let result = self.emit_aug_helper(span, op, lhs, rhs)?;
                self.set_var(target.span, name, result)
            }
            ExprKind::Attribute { value, attr } => {
                let obj = self.emit_sugared_expr(value, 1, None)?;
                let cur = self.sugared_attr(target.span, &obj, &attr.name)?;
                let lhs = self.as_value(target.span, &cur)?;
                let result = self.emit_aug_helper(span, op, lhs, rhs)?;
                self.sugared_set_attr(span, &obj, &attr.name, result, None)
            }
            ExprKind::Subscript { value, indices } => {
                self.emit_aug_assignment_to_subscript(span, op, value, indices, rhs)
            }
            _ => Err(self.err(
                target.span,
                "unexpected expression on left-hand side of augmented assignment",
            )),
        }
    }

    fn emit_aug_helper(&mut self, span: Span, op: BinOp, lhs: Value, rhs: &Expr) -> R<Value> {
        if let Type::Class(qual) = self.g.ty(lhs).clone() {
            let (inplace, outplace) = match op {
                BinOp::Add => ("__iadd__", "__add__"),
                BinOp::Sub => ("__isub__", "__sub__"),
                BinOp::Div => ("__itruediv__", "__truediv__"),
                BinOp::Mul => ("__imul__", "__mul__"),
                BinOp::Mod => ("__imod__", "__mod__"),
                other => {
                    return Err(self.err(
                        span,
                        format!("Unknown augmented assignment: {}", other.symbol()),
                    ))
                }
            };
            let r = self.emit_expr(rhs, None)?;
            let name = if self.method_sig(span, &qual, inplace)?.is_some() {
                inplace
            } else if self.method_sig(span, &qual, outplace)?.is_some() {
                outplace
            } else {
                return Err(self.err(span, format!("Cannot emit inplace op on {} since it does not define an {inplace} or {outplace} method", Type::Class(qual).repr_str())));
            };
            return self.call_method(span, lhs, &qual, name, &[r], &[]);
        }
        let r = self.emit_expr(rhs, None)?;
        let lt = self.g.ty(lhs).clone();
        let op = self.aug_op(span, op, &lt)?;
        self.builtin_call(span, op, &[lhs, r], &[])
    }

    fn emit_aug_assignment_to_subscript(
        &mut self,
        span: Span,
        op: BinOp,
        value: &Expr,
        indices: &[Expr],
        rhs: &Expr,
    ) -> R<()> {
        let sliceable = self.emit_expr(value, None)?;
        let st = self.g.ty(sliceable).clone();
        if st.is_subtype_of(&Type::tensor()) {
            let (sliced, tensor_indices) =
                self.emit_int_and_slice_indexing(span, sliceable, indices)?;
            let r = self.emit_expr(rhs, None)?;
            let aug = self.aug_op(span, op, &st)?;
            if tensor_indices.is_empty() {
                self.builtin_call_self(span, aug, sliced, &[r], &[])?;
            } else {
                let list = self.insert_list(Type::optional(Type::tensor()), &tensor_indices, span);
                let indexed =
                    self.builtin_call(span, Symbol::aten("index"), &[sliced, list], &[])?;
                let augmented = self.builtin_call_self(span, aug, indexed, &[r], &[])?;
                self.builtin_call_outputs(
                    span,
                    Symbol::aten("index_put_"),
                    &[sliced, list, augmented],
                    &[],
                )?;
            }
            return Ok(());
        }
        if indices.len() != 1 {
            return Err(self.err(span, format!("Sliced expression not yet supported for {} augmented assignment. File a bug if you want this", st.repr_str())));
        }
        let elem = match &st {
            Type::List(e) => (**e).clone(),
            Type::Dict(k, _) => (**k).clone(),
            _ => {
                return Err(self.err(
                    value.span,
                    format!("{} does not support augmented assignment.", st.repr_str()),
                ))
            }
        };
        let idx = self.emit_expr(&indices[0], None)?;
        let r = self.emit_expr(rhs, None)?;
        let item = self.builtin_call(span, Symbol::aten("__getitem__"), &[sliceable, idx], &[])?;
        let aug = self.aug_op(span, op, &elem)?;
        let augmented = self.builtin_call(span, aug, &[item, r], &[])?;
        self.builtin_call_outputs(
            span,
            Symbol::aten("_set_item"),
            &[sliceable, idx, augmented],
            &[],
        )?;
        Ok(())
    }

    /// `emitSubscriptAssign`: `x[i] = v`.
    pub fn emit_subscript_assign(
        &mut self,
        span: Span,
        value: &Expr,
        indices: &[Expr],
        rhs: Value,
    ) -> R<()> {
        let sliceable = self.emit_expr(value, None)?;
        let st = self.g.ty(sliceable).clone();
        if st.is_subtype_of(&Type::tensor()) {
            let (sliced, tensor_indices) =
                self.emit_int_and_slice_indexing(span, sliceable, indices)?;
            let rhs = self.emit_value_to_tensor(span, rhs, sliced)?;
            if tensor_indices.is_empty() {
                self.builtin_call_outputs(span, Symbol::aten("copy_"), &[sliced, rhs], &[])?;
            } else {
                let list = self.insert_list(Type::optional(Type::tensor()), &tensor_indices, span);
                self.builtin_call_outputs(
                    span,
                    Symbol::aten("index_put_"),
                    &[sliced, list, rhs],
                    &[],
                )?;
            }
            return Ok(());
        }
        if indices.len() != 1 || matches!(indices[0].kind, ExprKind::Slice { .. }) {
            return Err(self.err(span, "Sliced expression not yet supported for subscripted assignment. File a bug if you want this"));
        }
        if matches!(st, Type::Tuple(_)) {
            return Err(self.err(
                value.span,
                format!("{} does not support subscripted assignment", st.repr_str()),
            ));
        }
        let idx = self.emit_expr(&indices[0], None)?;
        if let Type::Class(qual) = &st {
            self.call_method(span, sliceable, qual, "__setitem__", &[idx, rhs], &[])?;
            return Ok(());
        }
        self.builtin_call_outputs(span, Symbol::aten("_set_item"), &[sliceable, idx, rhs], &[])?;
        Ok(())
    }

    /// `emitValueToTensor`: a number stored into a tensor becomes a tensor of its dtype and
    /// device.
    fn emit_value_to_tensor(&mut self, span: Span, v: Value, like: Value) -> R<Value> {
        let t = self.g.ty(v).clone();
        if matches!(t, Type::Number | Type::Int | Type::Bool | Type::Float) {
            let dtype = self.builtin_call(span, Symbol::prim("dtype"), &[like], &[])?;
            let device = self.builtin_call(span, Symbol::prim("device"), &[like], &[])?;
            return self.builtin_call(
                span,
                Symbol::aten("tensor"),
                &[v],
                &[("dtype", dtype), ("device", device)],
            );
        }
        Ok(v)
    }
}
