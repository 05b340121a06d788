//! The default arguments of a module's methods, read from the `def` headers of its class in
//! code/ (`src_mask: Optional[Tensor]=None`): graphs carry no defaults, and a caller such as
//! `ember-run model.pt x.npy` may leave trailing arguments out, as Python callers do.

use std::collections::HashMap;

use ember_runtime::ivalue::IValue;

use super::archive::Archive;
use super::source_importer::record_of;
use crate::frontend::ast::{Expr, ExprKind, StmtKind, UnaryOp};
use crate::frontend::{parser, SourceFile};

/// Per method of class `qualname`: one entry per parameter after `self`, its default when it
/// has a literal one.
pub fn method_defaults(archive: &Archive, qualname: &str) -> HashMap<String, Vec<Option<IValue>>> {
    let mut out = HashMap::new();
    let Some((module, class)) = qualname.rsplit_once('.') else {
        return out;
    };
    let Some(code) = archive.code.get(&record_of(module)) else {
        return out;
    };
    let file = SourceFile::new(record_of(module), code.text.clone());
    // The file compiled already; a parse error here cannot happen, and would only mean no
    // defaults are known.
    let Ok(parsed) = parser::parse_module(&file) else {
        return out;
    };
    for s in &parsed.body {
        let StmtKind::Class(c) = &s.kind else {
            continue;
        };
        if c.name.name != class {
            continue;
        }
        for m in &c.body {
            if let StmtKind::Def(d) = &m.kind {
                let defaults = d
                    .params
                    .iter()
                    .skip(1)
                    .map(|p| p.default.as_ref().and_then(literal))
                    .collect();
                out.insert(d.name.name.clone(), defaults);
            }
        }
    }
    out
}

/// The value of a literal default (`None`, `True`, `3`, `-1.5`, `"mean"`).
fn literal(e: &Expr) -> Option<IValue> {
    Some(match &e.kind {
        ExprKind::None => IValue::None,
        ExprKind::True => IValue::Bool(true),
        ExprKind::False => IValue::Bool(false),
        ExprKind::Int(i) => IValue::Int(i64::try_from(*i).ok()?),
        ExprKind::Float(f) => IValue::Double(*f),
        ExprKind::Str(s) => IValue::str(s.clone()),
        ExprKind::UnaryOp {
            op: UnaryOp::Neg,
            operand,
        } => match literal(operand)? {
            IValue::Int(i) => IValue::Int(i.checked_neg()?),
            IValue::Double(f) => IValue::Double(-f),
            _ => return None,
        },
        _ => return None,
    })
}
