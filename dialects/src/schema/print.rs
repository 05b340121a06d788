//! Printing schemas exactly as PyTorch's `str(schema)` (`operator<<` on `FunctionSchema`,
//! `Argument`, `AliasInfo` and `IValue`), so parse→print round-trips the catalogue.

use std::fmt::{self, Write};

use super::{AliasInfo, Argument, FunctionSchema};
use crate::attr::ConstValue;
use crate::types::Type;

impl fmt::Display for AliasInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        f.write_str(&self.before.join("|"))?;
        if self.is_write {
            f.write_char('!')?;
        }
        if !self.sets_unchanged() {
            write!(f, " -> {}", self.after.join("|"))?;
        }
        f.write_char(')')
    }
}

impl fmt::Display for Argument {
    /// `Type(alias)? name=default`; a list prints its element's annotation before `[]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unopt, is_opt) = match &self.ty {
            Type::Optional(e) => (&**e, true),
            t => (t, false),
        };
        if let Type::List(elem) = unopt {
            f.write_str(&elem.schema_str())?;
            if let Some(inner) = self.alias.as_ref().and_then(|a| a.contained.first()) {
                write!(f, "{inner}")?;
            }
            match self.n {
                Some(n) => write!(f, "[{n}]")?,
                None => f.write_str("[]")?,
            }
        } else {
            f.write_str(&unopt.schema_str())?;
        }
        if let Some(alias) = self.alias.as_ref().filter(|a| !a.before.is_empty()) {
            write!(f, "{alias}")?;
        }
        if is_opt {
            f.write_char('?')?;
        }
        if !self.name.is_empty() {
            write!(f, " {}", self.name)?;
        }
        if let Some(default) = &self.default {
            f.write_char('=')?;
            let is_str = matches!(self.ty, Type::Str) || matches!(unopt, Type::Str);
            match default {
                ConstValue::Str(s) if is_str => f.write_str(&quoted_string(s))?,
                // An int list whose items are all equal prints as one item (`int[2] stride=1`).
                ConstValue::List(items) if is_int_list(&self.ty) && items.len() > 1 => {
                    if items.iter().all(|i| *i == items[0]) {
                        write_ivalue(f, &items[0])?
                    } else {
                        write_ivalue(f, default)?
                    }
                }
                other => write_ivalue(f, other)?,
            }
        }
        Ok(())
    }
}

fn is_int_list(ty: &Type) -> bool {
    matches!(ty, Type::List(e) if matches!(**e, Type::Int))
}

impl fmt::Display for FunctionSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.overload_name.is_empty() {
            write!(f, ".{}", self.overload_name)?;
        }
        f.write_char('(')?;
        let mut seen_kwarg_only = false;
        for (i, arg) in self.arguments.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if arg.kwarg_only && !seen_kwarg_only {
                f.write_str("*, ")?;
                seen_kwarg_only = true;
            }
            write!(f, "{arg}")?;
        }
        if self.is_vararg {
            if !self.arguments.is_empty() {
                f.write_str(", ")?;
            }
            f.write_str("...")?;
        }
        f.write_str(") -> ")?;
        let returns = &self.returns;
        let single = returns.len() == 1 && !self.is_varret;
        let mut need_paren = !(single || (returns.is_empty() && self.is_varret));
        // A single return that starts with `(` (a tuple) needs its own parentheses.
        if single && returns[0].to_string().starts_with('(') {
            need_paren = true;
        }
        if need_paren {
            f.write_char('(')?;
        }
        for (i, ret) in returns.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{ret}")?;
        }
        if self.is_varret {
            if !returns.is_empty() {
                f.write_str(", ")?;
            }
            f.write_str("...")?;
        }
        if need_paren {
            f.write_char(')')?;
        }
        Ok(())
    }
}

/// `operator<<(ostream, IValue)` for the values a default can hold.
fn write_ivalue(f: &mut fmt::Formatter<'_>, v: &ConstValue) -> fmt::Result {
    match v {
        ConstValue::None => f.write_str("None"),
        ConstValue::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
        ConstValue::Int(i) => write!(f, "{i}"),
        ConstValue::Float(d) => f.write_str(&format_double(*d)),
        ConstValue::Complex(re, im) => {
            let sign = if *im >= 0.0 { "+" } else { "-" };
            write!(
                f,
                "{}{sign}{}j",
                format_double(*re),
                format_double(im.abs())
            )
        }
        ConstValue::Str(s) | ConstValue::Device(s) | ConstValue::Opaque(s) => f.write_str(s),
        ConstValue::List(items) => write_seq(f, "[", items, "]"),
        // `(x,)`, as Python writes a one-element tuple.
        ConstValue::Tuple(items) if items.len() == 1 => write_seq(f, "(", items, ",)"),
        ConstValue::Tuple(items) => write_seq(f, "(", items, ")"),
        ConstValue::Tensor(_) => f.write_str("<Tensor>"),
    }
}

fn write_seq(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[ConstValue],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_ivalue(f, item)?;
    }
    f.write_str(close)
}

/// A double as `IValue` prints it: integral values as `3.`, the rest with 17 significant
/// digits in C's `%g` style (`1.0000000000000001e-05`, `0.33333333333333331`).
pub fn format_double(d: f64) -> String {
    // `int64_t(d)` is exact for normal values in [-2^63, 2^63) that are integral.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    let integral = (d.is_normal() || d == 0.0) && (-TWO_63..TWO_63).contains(&d) && d.trunc() == d;
    if integral {
        return format!("{}.", d as i64);
    }
    format_g(d, 17)
}

/// C's `%.{precision}g`.
fn format_g(d: f64, precision: usize) -> String {
    if d.is_nan() {
        return if d.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if d.is_infinite() {
        return if d < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let sci = format!("{:.*e}", precision - 1, d);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if exp < -4 || exp >= precision as i32 {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        let rest = rest.trim_end_matches('0');
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exp.abs()).ok();
    } else if exp >= 0 {
        let split = (exp + 1) as usize;
        out.push_str(&digits[..split]);
        let frac = digits[split..].trim_end_matches('0');
        if !frac.is_empty() {
            out.push('.');
            out.push_str(frac);
        }
    } else {
        out.push_str("0.");
        out.push_str(&"0".repeat((-exp - 1) as usize));
        out.push_str(digits.trim_end_matches('0'));
    }
    out
}

/// `c10::printQuotedString`: double quotes, C escapes, other non-printable bytes as `\ooo`
/// (computed on signed chars, as C++ does).
pub fn quoted_string(s: &str) -> String {
    let mut out = String::from("\"");
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'"' => out.push_str("\\\""),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let mut c = b as i8 as i32;
                let mut buf = [b'0'; 3];
                for slot in buf.iter_mut().rev() {
                    *slot = (b'0' as i32 + c % 8) as u8;
                    c /= 8;
                }
                // The leading digit takes what is left, as `buf[0] += s` does.
                buf[0] = (b'0' as i32 + (b as i8 as i32 / 64)) as u8;
                out.push('\\');
                out.extend(buf.iter().map(|&x| x as char));
            }
        }
    }
    out.push('"');
    out
}
