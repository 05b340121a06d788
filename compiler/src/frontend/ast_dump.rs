//! A compact text form of the AST for tests and debugging: statements one per line, indented
//! like Python, expressions as s-expressions (`(+ a (* b c))`), so a test shows exactly how the
//! parser grouped the source.

use std::fmt::Write;

use super::ast::*;

pub fn dump_module(m: &SourceModule) -> String {
    let mut out = String::new();
    for s in &m.body {
        dump_stmt(&mut out, s, 0);
    }
    out
}

pub fn dump_stmts(stmts: &[Stmt]) -> String {
    let mut out = String::new();
    for s in stmts {
        dump_stmt(&mut out, s, 0);
    }
    out
}

fn line(out: &mut String, indent: usize, text: &str) {
    let _ = writeln!(out, "{}{}", "  ".repeat(indent), text);
}

fn block(out: &mut String, body: &[Stmt], indent: usize) {
    for s in body {
        dump_stmt(out, s, indent);
    }
}

fn list(items: &[Expr]) -> String {
    items.iter().map(dump_expr).collect::<Vec<_>>().join(", ")
}

fn dump_stmt(out: &mut String, s: &Stmt, indent: usize) {
    match &s.kind {
        StmtKind::Assign {
            targets,
            annotation,
            value,
        } => {
            let mut text = list(targets).replace(", ", " = ");
            if let Some(a) = annotation {
                let _ = write!(text, ": {}", dump_expr(a));
            }
            if let Some(v) = value {
                let _ = write!(text, " = {}", dump_expr(v));
            }
            line(out, indent, &text);
        }
        StmtKind::AugAssign { target, op, value } => line(
            out,
            indent,
            &format!(
                "{} {}= {}",
                dump_expr(target),
                op.symbol(),
                dump_expr(value)
            ),
        ),
        StmtKind::Expr(e) => line(out, indent, &dump_expr(e)),
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => {
            line(out, indent, &format!("if {}", dump_expr(cond)));
            block(out, then_body, indent + 1);
            if !else_body.is_empty() {
                line(out, indent, "else");
                block(out, else_body, indent + 1);
            }
        }
        StmtKind::While { cond, body } => {
            line(out, indent, &format!("while {}", dump_expr(cond)));
            block(out, body, indent + 1);
        }
        StmtKind::For { target, iter, body } => {
            line(
                out,
                indent,
                &format!("for {} in {}", dump_expr(target), dump_expr(iter)),
            );
            block(out, body, indent + 1);
        }
        StmtKind::Return(e) => line(out, indent, &opt("return", e.as_ref())),
        StmtKind::Raise(e) => line(out, indent, &opt("raise", e.as_ref())),
        StmtKind::Assert { test, msg } => {
            let mut text = format!("assert {}", dump_expr(test));
            if let Some(m) = msg {
                let _ = write!(text, ", {}", dump_expr(m));
            }
            line(out, indent, &text);
        }
        StmtKind::With { items, body } => {
            let items: Vec<String> = items
                .iter()
                .map(|i| match &i.target {
                    Some(t) => format!("{} as {}", dump_expr(&i.context), dump_expr(t)),
                    None => dump_expr(&i.context),
                })
                .collect();
            line(out, indent, &format!("with {}", items.join(", ")));
            block(out, body, indent + 1);
        }
        StmtKind::Delete(targets) => line(out, indent, &format!("del {}", list(targets))),
        StmtKind::Pass => line(out, indent, "pass"),
        StmtKind::Break => line(out, indent, "break"),
        StmtKind::Continue => line(out, indent, "continue"),
        StmtKind::Global(names) => {
            let names: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
            line(out, indent, &format!("global {}", names.join(", ")));
        }
        StmtKind::Def(d) => {
            for dec in &d.decorators {
                line(out, indent, &format!("@{}", dump_expr(dec)));
            }
            let mut params = Vec::new();
            let mut star_shown = false;
            for p in &d.params {
                if p.kwarg_only && !star_shown {
                    params.push("*".to_string());
                    star_shown = true;
                }
                let mut text = p.name.name.clone();
                if let Some(a) = &p.annotation {
                    let _ = write!(text, ": {}", dump_expr(a));
                }
                if let Some(v) = &p.default {
                    let _ = write!(text, " = {}", dump_expr(v));
                }
                params.push(text);
            }
            let mut text = format!("def {}({})", d.name.name, params.join(", "));
            if let Some(r) = &d.return_type {
                let _ = write!(text, " -> {}", dump_expr(r));
            }
            line(out, indent, &text);
            block(out, &d.body, indent + 1);
        }
        StmtKind::Class(c) => {
            for dec in &c.decorators {
                line(out, indent, &format!("@{}", dump_expr(dec)));
            }
            line(
                out,
                indent,
                &format!("class {}({})", c.name.name, list(&c.bases)),
            );
            block(out, &c.body, indent + 1);
        }
        StmtKind::Import(i) => {
            let path = |p: &[Ident]| {
                p.iter()
                    .map(|i| i.name.as_str())
                    .collect::<Vec<_>>()
                    .join(".")
            };
            let names: Vec<String> = i
                .names
                .iter()
                .map(|n| match &n.alias {
                    Some(a) => format!("{} as {}", path(&n.path), a.name),
                    None => path(&n.path),
                })
                .collect();
            let text = match &i.from {
                Some(from) => format!("from {} import {}", path(from), names.join(", ")),
                None => format!("import {}", names.join(", ")),
            };
            line(out, indent, &text);
        }
    }
}

fn opt(keyword: &str, e: Option<&Expr>) -> String {
    match e {
        Some(e) => format!("{keyword} {}", dump_expr(e)),
        None => keyword.to_string(),
    }
}

fn opt_box(e: &Option<Box<Expr>>) -> String {
    e.as_deref().map_or("_".to_string(), dump_expr)
}

/// An expression as an s-expression: names and literals bare, everything else `(head args)`.
pub fn dump_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Imaginary(v) => format!("{v:?}j"),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::True => "True".into(),
        ExprKind::False => "False".into(),
        ExprKind::None => "None".into(),
        ExprKind::Ellipsis => "...".into(),
        ExprKind::BinOp { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), dump_expr(lhs), dump_expr(rhs))
        }
        ExprKind::UnaryOp { op, operand } => {
            let head = match op {
                UnaryOp::Neg => "neg",
                UnaryOp::Pos => "pos",
                UnaryOp::Not => "not",
                UnaryOp::Invert => "~",
            };
            format!("({head} {})", dump_expr(operand))
        }
        ExprKind::Compare { op, lhs, rhs } => format!(
            "({} {} {})",
            op.symbol().replace(' ', "-"),
            dump_expr(lhs),
            dump_expr(rhs)
        ),
        ExprKind::BoolOp { op, lhs, rhs } => {
            let head = match op {
                BoolOp::And => "and",
                BoolOp::Or => "or",
            };
            format!("({head} {} {})", dump_expr(lhs), dump_expr(rhs))
        }
        ExprKind::IfExp {
            cond,
            then,
            otherwise,
        } => format!(
            "(if {} {} {})",
            dump_expr(cond),
            dump_expr(then),
            dump_expr(otherwise)
        ),
        ExprKind::Call { func, args, kwargs } => {
            let mut text = format!("(call {}", dump_expr(func));
            for a in args {
                let _ = write!(text, " {}", dump_expr(a));
            }
            for k in kwargs {
                let _ = write!(text, " {}={}", k.name.name, dump_expr(&k.value));
            }
            text + ")"
        }
        ExprKind::Attribute { value, attr } => format!("(. {} {})", dump_expr(value), attr.name),
        ExprKind::Subscript { value, indices } => {
            let mut text = format!("(sub {}", dump_expr(value));
            for i in indices {
                let _ = write!(text, " {}", dump_expr(i));
            }
            text + ")"
        }
        ExprKind::Slice { start, end, step } => format!(
            "(slice {} {} {})",
            opt_box(start),
            opt_box(end),
            opt_box(step)
        ),
        ExprKind::Starred(v) => format!("(* {})", dump_expr(v)),
        ExprKind::List(items) => seq("list", items),
        ExprKind::Tuple(items) => seq("tuple", items),
        ExprKind::Dict(entries) => {
            let mut text = "(dict".to_string();
            for (k, v) in entries {
                let _ = write!(text, " ({} {})", dump_expr(k), dump_expr(v));
            }
            text + ")"
        }
        ExprKind::ListComp {
            elt,
            target,
            iter,
            cond,
        } => format!(
            "(listcomp {} for {} in {}{})",
            dump_expr(elt),
            dump_expr(target),
            dump_expr(iter),
            cond.as_deref()
                .map_or(String::new(), |c| format!(" if {}", dump_expr(c)))
        ),
        ExprKind::DictComp {
            key,
            value,
            target,
            iter,
            cond,
        } => format!(
            "(dictcomp {} {} for {} in {}{})",
            dump_expr(key),
            dump_expr(value),
            dump_expr(target),
            dump_expr(iter),
            cond.as_deref()
                .map_or(String::new(), |c| format!(" if {}", dump_expr(c)))
        ),
        ExprKind::Lambda { params, body } => {
            let params: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            format!("(lambda ({}) {})", params.join(" "), dump_expr(body))
        }
    }
}

fn seq(head: &str, items: &[Expr]) -> String {
    let mut text = format!("({head}");
    for i in items {
        let _ = write!(text, " {}", dump_expr(i));
    }
    text + ")"
}
