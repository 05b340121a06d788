//! str methods and operators as TorchScript implements them on `std::string`: lengths,
//! indices and slices count bytes; character classes are C's (ASCII); `strip` without
//! arguments strips " \n\t\f\v"; `format` fills `{}` fields in order with `str()` of each
//! argument.

use std::sync::Arc;

use super::display::{to_str, write_value};
use super::{
    arity, binary, boolean, builtin, int, list, nary, opt_int, read, slice_positions, string,
    try_vec, unary,
};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::{pop, pop_n, Operation, Stack};

pub fn register(r: &mut Registry) {
    builtin!(r, "aten::len", |o, _, _| (o == "str")
        .then(|| unary(|s| Ok(IValue::Int(string(s)?.len() as i64)))));
    builtin!(r, "aten::__getitem__", |o, _, _| (o == "str")
        .then(|| binary(get_char)));
    builtin!(r, "aten::slice", |o, _, _| (o == "str")
        .then(|| nary(4, slice)));
    builtin!(r, "aten::str", |_, _, _| Some(unary(|v| Ok(IValue::str(
        to_str(v)?
    )))));
    builtin!(r, "aten::format", |_, g, n| Some(format_op(arity(g, n))));
    builtin!(r, "aten::list", |o, _, _| o
        .is_empty()
        .then(|| unary(chars)));
    builtin!(r, "aten::join", |_, _, _| Some(binary(join)));
    builtin!(r, "aten::split", |o, _, _| (o == "str")
        .then(|| nary(3, split)));
    builtin!(r, "aten::rsplit", |_, _, _| Some(nary(3, rsplit)));
    builtin!(r, "aten::splitlines", |_, _, _| Some(binary(splitlines)));
    builtin!(r, "aten::strip", |_, _, _| Some(binary(|s, c| strip(
        s, c, true, true
    ))));
    builtin!(r, "aten::lstrip", |_, _, _| Some(binary(|s, c| strip(
        s, c, true, false
    ))));
    builtin!(r, "aten::rstrip", |_, _, _| Some(binary(|s, c| strip(
        s, c, false, true
    ))));
    builtin!(r, "aten::startswith", |_, _, _| Some(nary(4, |a| affix(
        a, true
    ))));
    builtin!(r, "aten::endswith", |_, _, _| Some(nary(4, |a| affix(
        a, false
    ))));
    builtin!(r, "aten::replace", |_, _, _| Some(nary(4, replace)));
    builtin!(r, "aten::upper", |_, _, _| Some(map_bytes(
        |c| c.to_ascii_uppercase()
    )));
    builtin!(r, "aten::lower", |_, _, _| Some(map_bytes(
        |c| c.to_ascii_lowercase()
    )));
    builtin!(r, "aten::swapcase", |_, _, _| Some(map_bytes(swap_case)));
    builtin!(r, "aten::capitalize", |_, _, _| Some(unary(capitalize)));
    builtin!(r, "aten::title", |_, _, _| Some(unary(title)));
    builtin!(r, "aten::isdigit", |_, _, _| Some(all_of(
        |c| c.is_ascii_digit()
    )));
    builtin!(r, "aten::isdecimal", |_, _, _| Some(all_of(
        |c| c.is_ascii_digit()
    )));
    builtin!(r, "aten::isnumeric", |_, _, _| Some(all_of(
        |c| c.is_ascii_digit()
    )));
    builtin!(r, "aten::isalpha", |_, _, _| Some(all_of(
        |c| c.is_ascii_alphabetic()
    )));
    builtin!(r, "aten::isalnum", |_, _, _| Some(all_of(
        |c| c.is_ascii_alphanumeric()
    )));
    builtin!(r, "aten::isspace", |_, _, _| Some(all_of(is_c_space)));
    builtin!(r, "aten::islower", |_, _, _| Some(unary(|s| cased(
        s, false
    ))));
    builtin!(r, "aten::isupper", |_, _, _| Some(unary(|s| cased(
        s, true
    ))));
    builtin!(r, "aten::isidentifier", |_, _, _| Some(unary(isidentifier)));
    builtin!(r, "aten::istitle", |_, _, _| Some(unary(istitle)));
    builtin!(r, "aten::isprintable", |_, _, _| Some(unary(isprintable)));
    builtin!(r, "aten::find", |_, _, _| Some(nary(4, |a| find(
        a, false, false
    ))));
    builtin!(r, "aten::rfind", |_, _, _| Some(nary(4, |a| find(
        a, true, false
    ))));
    builtin!(r, "aten::index", |o, _, _| (o == "str")
        .then(|| nary(4, |a| find(a, false, true))));
    builtin!(r, "aten::rindex", |_, _, _| Some(nary(4, |a| find(
        a, true, true
    ))));
    builtin!(r, "aten::count", |o, _, _| o
        .is_empty()
        .then(|| nary(4, count)));
    builtin!(r, "aten::zfill", |_, _, _| Some(binary(zfill)));
    builtin!(r, "aten::center", |_, _, _| Some(nary(3, |a| pad(
        a,
        Pad::Center
    ))));
    builtin!(r, "aten::ljust", |_, _, _| Some(nary(3, |a| pad(
        a,
        Pad::Left
    ))));
    builtin!(r, "aten::rjust", |_, _, _| Some(nary(3, |a| pad(
        a,
        Pad::Right
    ))));
    builtin!(r, "aten::expandtabs", |_, _, _| Some(binary(expandtabs)));
    builtin!(r, "aten::partition", |_, _, _| Some(partition_op(false)));
    builtin!(r, "aten::rpartition", |_, _, _| Some(partition_op(true)));
    builtin!(r, "aten::percentFormat", |_, g, n| Some(percent_format_op(
        arity(g, n)
    )));
}

/// A Rust string from the bytes of a `std::string` (slices may cut UTF-8 sequences; those
/// bytes become U+FFFD).
fn text(bytes: &[u8]) -> IValue {
    IValue::str(String::from_utf8_lossy(bytes).into_owned())
}

fn bytes(v: &IValue) -> Result<&[u8], String> {
    string(v).map(str::as_bytes)
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// `s[i]`.
fn get_char(s: &IValue, i: &IValue) -> Result<IValue, String> {
    let b = bytes(s)?;
    let i = int(i)?;
    match super::normalize_index(i, b.len()) {
        Some(k) => Ok(text(&b[k..k + 1])),
        // PyTorch indexes with `std::string::at` after adding the length to negative indices.
        None => {
            let n = if i < 0 {
                i.wrapping_add(b.len() as i64)
            } else {
                i
            } as u64;
            Err(format!(
                "basic_string::at: __n (which is {n}) >= this->size() (which is {})",
                b.len()
            ))
        }
    }
}

/// `s[start:end:step]`.
fn slice(a: &[IValue]) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let positions = slice_positions(b.len(), opt_int(&a[1])?, opt_int(&a[2])?, int(&a[3])?)?;
    Ok(text(&positions.iter().map(|&i| b[i]).collect::<Vec<u8>>()))
}

/// `list(s)`: one string per byte.
fn chars(s: &IValue) -> Result<IValue, String> {
    Ok(IValue::list(
        bytes(s)?.iter().map(|&c| text(&[c])).collect(),
    ))
}

/// `"...{}...".format(args...)`: each `{}` takes the next argument's `str()`.
fn format_op(inputs: usize) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let args = pop_n(s, inputs)?;
        let out = format(string(&args[0])?, &args[1..])?;
        s.push(IValue::str(out));
        Ok(())
    })
}

pub fn format(fmt: &str, args: &[IValue]) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = fmt;
    let mut used = 0;
    while let Some(at) = rest.find("{}") {
        out.push_str(&rest[..at]);
        let arg = args
            .get(used)
            .ok_or_else(|| format!("Too few arguments for format string: {fmt}"))?;
        write_value(&mut out, arg)?;
        used += 1;
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn join(sep: &IValue, items: &IValue) -> Result<IValue, String> {
    let sep = string(sep)?;
    let items = read(list(items)?);
    let mut out = String::new();
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(string(v)?);
    }
    Ok(IValue::str(out))
}

fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    if needle.is_empty() {
        return Some(from);
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn str_list(parts: Vec<&[u8]>) -> IValue {
    IValue::list(parts.into_iter().map(text).collect())
}

/// `s.split(sep=None, max=-1)`. Without a separator, runs of whitespace split and the result
/// has no empty strings (PyTorch ignores `max` then).
fn split(a: &[IValue]) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let max = int(&a[2])?;
    let sep = match &a[1] {
        IValue::None => {
            return Ok(str_list(
                b.split(|&c| {
                    c == b' '
                        || c == b'\t'
                        || c == b'\n'
                        || c == b'\x0b'
                        || c == b'\x0c'
                        || c == b'\r'
                })
                .filter(|p| !p.is_empty())
                .collect(),
            ))
        }
        other => bytes(other)?,
    };
    if sep.is_empty() {
        return Err("ValueError: empty separator".into());
    }
    let mut parts = Vec::new();
    let (mut prev, mut pos, mut count) = (0, 0, 0i64);
    while let Some(at) = find_from(b, sep, pos) {
        count += 1;
        if max >= 0 && count > max {
            break;
        }
        parts.push(&b[prev..at]);
        pos = at + sep.len();
        prev = pos;
    }
    parts.push(&b[prev..]);
    Ok(str_list(parts))
}

/// `s.rsplit(sep=" ", max=-1)`: splits from the right.
fn rsplit(a: &[IValue]) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let sep = bytes(&a[1])?;
    let max = int(&a[2])?;
    if sep.is_empty() {
        return Err("ValueError: empty separator".into());
    }
    let mut parts = Vec::new();
    let (mut end, mut count) = (b.len(), 0i64);
    while let Some(at) = (sep.len()..=end)
        .rev()
        .find(|&e| &b[e - sep.len()..e] == sep)
        .map(|e| e - sep.len())
    {
        count += 1;
        if max >= 0 && count > max {
            break;
        }
        parts.push(&b[at + sep.len()..end]);
        end = at;
    }
    parts.push(&b[..end]);
    parts.reverse();
    Ok(str_list(parts))
}

/// `s.splitlines(keepends)`, as PyTorch: every one of its delimiter bytes ends a line, and
/// with `keepends` the delimiter comes as an element of its own.
fn splitlines(s: &IValue, keep: &IValue) -> Result<IValue, String> {
    let b = bytes(s)?;
    let keep = boolean(keep)?;
    const DELIMITERS: &[u8] = b"\n\r\x0b\x0c\x1c\x1d\x1e\x85\xe2\x80\xa8\xa9";
    let mut parts = Vec::new();
    let mut prev = 0;
    for (pos, c) in b.iter().enumerate() {
        if DELIMITERS.contains(c) {
            parts.push(&b[prev..pos]);
            if keep {
                parts.push(&b[pos..pos + 1]);
            }
            prev = pos + 1;
        }
    }
    if prev != b.len() {
        parts.push(&b[prev..]);
    }
    Ok(str_list(parts))
}

fn strip(s: &IValue, chars: &IValue, left: bool, right: bool) -> Result<IValue, String> {
    let b = bytes(s)?;
    let chars = bytes(chars)?;
    let keep = |c: &u8| !chars.contains(c);
    let end = if right {
        b.iter().rposition(keep).map_or(0, |i| i + 1)
    } else {
        b.len()
    };
    let start = if left {
        b[..end].iter().position(keep).unwrap_or(end)
    } else {
        0
    };
    Ok(text(&b[start..end]))
}

/// Python-style `start`/`end` bounds as PyTorch normalizes them for find/startswith/count.
fn bounds(len: usize, start: i64, end: i64) -> (i64, i64) {
    let size = len as i64;
    let start = if start < 0 {
        (size + start).max(0)
    } else {
        start
    };
    let end = if end < 0 {
        (size + end + 1).max(0)
    } else {
        end
    };
    (start, end)
}

/// `s.startswith(p, start, end)` / `s.endswith(...)`.
fn affix(a: &[IValue], starts: bool) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let p = bytes(&a[1])?;
    let (start, end) = bounds(b.len(), int(&a[2])?, int(&a[3])?);
    if start > b.len() as i64 {
        return Err("basic_string::substr: __pos (which is ".to_string()
            + &format!("{start}) > this->size() (which is {})", b.len()));
    }
    let end = end.clamp(start, b.len() as i64);
    let part = &b[start as usize..end as usize];
    Ok(IValue::Bool(if starts {
        part.starts_with(p)
    } else {
        part.ends_with(p)
    }))
}

/// `s.find(sub, start, end)`, `rfind`, `index`, `rindex`.
fn find(a: &[IValue], reverse: bool, raise: bool) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let sub = bytes(&a[1])?;
    let (start, end) = bounds(b.len(), int(&a[2])?, int(&a[3])?);
    let part: &[u8] = if end > start {
        let s = (start as usize).min(b.len());
        let e = (end as usize).min(b.len());
        &b[s..e]
    } else {
        &[]
    };
    let mut result = -1i64;
    if part.len() >= sub.len() {
        let found = if reverse {
            (0..=part.len() - sub.len())
                .rev()
                .find(|&i| &part[i..i + sub.len()] == sub)
        } else {
            find_from(part, sub, 0)
        };
        if let Some(p) = found {
            result = p as i64 + start;
        }
    }
    if raise && result < 0 {
        return Err("ValueError: substring not found".into());
    }
    Ok(IValue::Int(result))
}

/// `s.count(sub, start, end)`: non-overlapping occurrences that begin before `end`.
fn count(a: &[IValue]) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let sub = bytes(&a[1])?;
    let (start, end) = bounds(b.len(), int(&a[2])?, int(&a[3])?);
    if start > b.len() as i64 {
        return Ok(IValue::Int(0));
    }
    let mut n = 0;
    let mut pos = start as usize;
    while let Some(at) = find_from(b, sub, pos) {
        if (at as i64) >= end {
            break;
        }
        n += 1;
        pos = at + sub.len();
        if sub.is_empty() {
            // `std::string::find("")` at the end keeps matching; PyTorch would loop forever.
            if pos >= b.len() {
                break;
            }
            pos += 1;
        }
    }
    Ok(IValue::Int(n))
}

/// `s.replace(old, new, max=-1)`.
fn replace(a: &[IValue]) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let old = bytes(&a[1])?;
    let new = bytes(&a[2])?;
    let max = int(&a[3])?;
    if old.is_empty() && max < 0 {
        return Err("replace() with an empty pattern needs a count (PyTorch never returns)".into());
    }
    let mut out = b.to_vec();
    let (mut pos, mut n) = (0usize, 0i64);
    while let Some(at) = find_from(&out, old, pos) {
        n += 1;
        if max >= 0 && n > max {
            break;
        }
        out.splice(at..at + old.len(), new.iter().copied());
        pos = at + new.len();
    }
    Ok(text(&out))
}

fn map_bytes(f: fn(u8) -> u8) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let v = pop(s)?;
        let out: Vec<u8> = bytes(&v)?.iter().map(|&c| f(c)).collect();
        s.push(text(&out));
        Ok(())
    })
}

fn swap_case(c: u8) -> u8 {
    if c.is_ascii_lowercase() {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

fn capitalize(s: &IValue) -> Result<IValue, String> {
    let out: Vec<u8> = bytes(s)?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    Ok(text(&out))
}

fn title(s: &IValue) -> Result<IValue, String> {
    let mut prev_is_nonalpha = true;
    let out: Vec<u8> = bytes(s)?
        .iter()
        .map(|&c| {
            let r = if prev_is_nonalpha {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            };
            prev_is_nonalpha = !c.is_ascii_alphabetic();
            r
        })
        .collect();
    Ok(text(&out))
}

/// The `is*` predicates: true when the string is non-empty and every byte passes.
fn all_of(test: fn(u8) -> bool) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let v = pop(s)?;
        let b = bytes(&v)?;
        s.push(IValue::Bool(!b.is_empty() && b.iter().all(|&c| test(c))));
        Ok(())
    })
}

/// `islower`/`isupper`: at least one letter, and every letter of that case.
fn cased(s: &IValue, upper: bool) -> Result<IValue, String> {
    let b = bytes(s)?;
    let found = b.iter().any(|c| c.is_ascii_alphabetic());
    let ok = b.iter().all(|c| {
        !c.is_ascii_alphabetic()
            || if upper {
                c.is_ascii_uppercase()
            } else {
                c.is_ascii_lowercase()
            }
    });
    Ok(IValue::Bool(found && ok))
}

/// PyTorch's (Python 2) `isidentifier`: non-empty, no leading digit, all alphanumeric.
fn isidentifier(s: &IValue) -> Result<IValue, String> {
    let b = bytes(s)?;
    Ok(IValue::Bool(
        !b.is_empty() && !b[0].is_ascii_digit() && b.iter().all(|c| c.is_ascii_alphanumeric()),
    ))
}

fn istitle(s: &IValue) -> Result<IValue, String> {
    let mut result = false;
    let mut prev_is_alpha = false;
    for &c in bytes(s)? {
        if prev_is_alpha {
            if c != c.to_ascii_lowercase() {
                return Ok(IValue::Bool(false));
            }
        } else {
            if c != c.to_ascii_uppercase() {
                return Ok(IValue::Bool(false));
            }
            if c.is_ascii_alphabetic() {
                result = true;
            }
        }
        prev_is_alpha = c.is_ascii_alphabetic();
    }
    Ok(IValue::Bool(result))
}

fn isprintable(s: &IValue) -> Result<IValue, String> {
    Ok(IValue::Bool(bytes(s)?.iter().all(|&c| {
        c.is_ascii_alphanumeric() || c.is_ascii_punctuation() || c == b' '
    })))
}

fn zfill(s: &IValue, width: &IValue) -> Result<IValue, String> {
    let b = bytes(s)?;
    let fill = (int(width)?.saturating_sub(b.len() as i64)).max(0) as usize;
    let mut out = try_vec(fill + b.len())?;
    out.resize(fill, b'0');
    out.extend_from_slice(b);
    Ok(text(&out))
}

enum Pad {
    Center,
    Left,
    Right,
}

/// `center`, `ljust`, `rjust` with a one-byte fill character.
fn pad(a: &[IValue], how: Pad) -> Result<IValue, String> {
    let b = bytes(&a[0])?;
    let width = int(&a[1])?;
    let fill = bytes(&a[2])?;
    if fill.len() != 1 {
        return Err("TypeError: The fill character must be exactly one character long".into());
    }
    let total = (width.saturating_sub(b.len() as i64)).max(0) as usize;
    let (left, right) = match how {
        Pad::Left => (0, total),
        Pad::Right => (total, 0),
        Pad::Center => {
            // PyTorch swaps the halves for odd widths.
            let (l, r) = (total / 2, total.div_ceil(2));
            if width % 2 != 0 {
                (r, l)
            } else {
                (l, r)
            }
        }
    };
    let mut out = try_vec(total + b.len())?;
    out.resize(left, fill[0]);
    out.extend_from_slice(b);
    out.extend(std::iter::repeat_n(fill[0], right));
    Ok(text(&out))
}

fn expandtabs(s: &IValue, size: &IValue) -> Result<IValue, String> {
    let size = int(size)?;
    let mut out = Vec::new();
    let mut index = 0i64;
    for &c in bytes(s)? {
        if c != b'\t' {
            out.push(c);
            index += 1;
        } else if size > 0 {
            out.try_reserve(size as usize)
                .map_err(|_| "std::bad_alloc")?;
            loop {
                out.push(b' ');
                index += 1;
                if index % size == 0 {
                    break;
                }
            }
        }
    }
    Ok(text(&out))
}

/// `partition` / `rpartition`: three outputs.
fn partition_op(reverse: bool) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let sep_v = pop(s)?;
        let v = pop(s)?;
        let b = bytes(&v)?;
        let sep = bytes(&sep_v)?;
        let found = if reverse {
            (sep.len()..=b.len())
                .rev()
                .find(|&e| &b[e - sep.len()..e] == sep)
                .map(|e| e - sep.len())
        } else {
            find_from(b, sep, 0)
        };
        match found {
            Some(at) => {
                s.push(text(&b[..at]));
                s.push(text(sep));
                s.push(text(&b[at + sep.len()..]));
            }
            None if reverse => {
                s.push(text(b""));
                s.push(text(b""));
                s.push(text(b));
            }
            None => {
                s.push(text(b));
                s.push(text(b""));
                s.push(text(b""));
            }
        }
        Ok(())
    })
}

/// `"%d %s" % (a, b)`: `aten::percentFormat(str self, ...)`. The arguments come as one tuple
/// (or a single value).
fn percent_format_op(inputs: usize) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let args = pop_n(s, inputs)?;
        let fmt = string(&args[0])?;
        let values: Vec<IValue> = match args.get(1) {
            Some(IValue::Tuple(t)) => t.to_vec(),
            Some(v) => vec![v.clone()],
            None => Vec::new(),
        };
        s.push(IValue::str(percent_format(fmt, &values)?));
        Ok(())
    })
}

/// PyTorch's `percentFormat`: `%d`/`%i` print ints (floats truncated to a 32-bit int), `%f`
/// and `%e` print the value rounded to a C float with six decimals, `%c` a character, `%s`
/// `str()`, `%%` a percent sign. Widths and precisions are not supported.
fn percent_format(fmt: &str, values: &[IValue]) -> Result<String, String> {
    let b = fmt.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut used = 0;
    let mut begin = 0;
    while let Some(at) = b[begin..]
        .iter()
        .position(|&c| c == b'%')
        .map(|p| p + begin)
    {
        if at + 1 >= b.len() {
            return Err("Incomplete format specifier".into());
        }
        out.extend_from_slice(&b[begin..at]);
        let key = b[at + 1];
        begin = at + 2;
        if key == b'%' {
            out.push(b'%');
            continue;
        }
        let v = values
            .get(used)
            .ok_or("Too few arguments for format string")?;
        used += 1;
        let key = key as char;
        let number = |v: &IValue| match v {
            IValue::Int(_) | IValue::Double(_) | IValue::Bool(_) => super::float(v),
            other => Err(format!(
                "%{key} requires a number for formatting, but got {}",
                tag_kind(other)
            )),
        };
        let text = match key {
            'd' | 'i' => match v {
                IValue::Int(i) => i.to_string(),
                other => {
                    let d = number(other)?;
                    // static_cast<int>: out of range gives INT_MIN on x86.
                    if d.is_nan() || d >= 2147483648.0 || d <= -2147483649.0 {
                        i32::MIN.to_string()
                    } else {
                        (d as i32).to_string()
                    }
                }
            },
            'f' | 'F' => format!("{:.6}", number(v)? as f32),
            'e' | 'E' => {
                let f = number(v)? as f32;
                let s = format!("{f:.6e}");
                let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
                let e: i32 = e.parse().unwrap_or(0);
                let t = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
                if key == 'E' {
                    t.to_uppercase()
                } else {
                    t
                }
            }
            'c' => match v {
                IValue::Int(i) => {
                    out.push(*i as u8);
                    continue;
                }
                IValue::Str(s) if s.len() == 1 => s.to_string(),
                other => {
                    return Err(format!(
                        "%c requires an int or char for formatting, but got {}",
                        tag_kind(other)
                    ))
                }
            },
            's' => to_str(v)?,
            other => {
                return Err(format!(
                    "The specifier %{other} is not supported in TorchScript format strings"
                ))
            }
        };
        out.extend_from_slice(text.as_bytes());
    }
    out.extend_from_slice(&b[begin..]);
    if used != values.len() {
        return Err("Too many arguments for format string".into());
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The IValue tag name PyTorch's messages use.
fn tag_kind(v: &IValue) -> &'static str {
    match v {
        IValue::Str(_) => "String",
        IValue::List(_) => "GenericList",
        IValue::Dict(_) => "GenericDict",
        IValue::Double(_) => "Double",
        other => other.kind_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> IValue {
        IValue::str(v)
    }

    fn strs(v: &IValue) -> Vec<String> {
        match v {
            IValue::List(l) => l
                .to_vec()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect(),
            _ => panic!("not a list"),
        }
    }

    #[test]
    fn format_fills_fields_in_order() {
        let args = [
            IValue::Int(1),
            IValue::Double(2.5),
            s("x"),
            IValue::list(vec![IValue::Int(1)]),
        ];
        assert_eq!(
            format("{} and {} and {}! {}", &args).unwrap(),
            "1 and 2.5 and x! [1]"
        );
        assert!(format("{}{}", &args[..1])
            .unwrap_err()
            .starts_with("Too few arguments"));
    }

    #[test]
    fn split_with_and_without_separator() {
        let none = split(&[s("  a b\tc\n "), IValue::None, IValue::Int(-1)]).unwrap();
        assert_eq!(strs(&none), ["a", "b", "c"]);
        let comma = split(&[s("a,b,,c"), s(","), IValue::Int(2)]).unwrap();
        assert_eq!(strs(&comma), ["a", "b", ",c"]);
        let r = rsplit(&[s("a,b,c"), s(","), IValue::Int(1)]).unwrap();
        assert_eq!(strs(&r), ["a,b", "c"]);
        assert!(split(&[s("a"), s(""), IValue::Int(-1)]).is_err());
    }

    #[test]
    fn huge_widths_fail_without_aborting() {
        let huge = IValue::Int(1 << 62);
        assert_eq!(zfill(&s("a"), &huge).unwrap_err(), "std::bad_alloc");
        assert_eq!(
            pad(&[s("a"), huge, s(" ")], Pad::Center).unwrap_err(),
            "std::bad_alloc"
        );
    }

    #[test]
    fn padding_and_stripping() {
        let c = |v: &str, w| pad(&[s(v), IValue::Int(w), s("*")], Pad::Center).unwrap();
        assert_eq!(c("ab", 5).as_str(), Some("**ab*"));
        assert_eq!(c("ab", 6).as_str(), Some("**ab**"));
        assert_eq!(
            strip(&s(" \t xxhixx \n"), &s(" x"), true, true)
                .unwrap()
                .as_str(),
            Some("\t xxhixx \n")
        );
        assert_eq!(
            zfill(&s("-4"), &IValue::Int(5)).unwrap().as_str(),
            Some("000-4")
        );
    }

    #[test]
    fn find_family() {
        let f = |h: &str, n: &str, a, b, rev| {
            find(&[s(h), s(n), IValue::Int(a), IValue::Int(b)], rev, false)
                .unwrap()
                .as_int()
                .unwrap()
        };
        assert_eq!(f("abcabc", "bc", 0, -1, false), 1);
        assert_eq!(f("abcabc", "bc", 0, -1, true), 4);
        assert_eq!(f("abc", "x", 0, -1, false), -1);
        assert_eq!(f("abc", "", 0, -1, true), 3);
        let n = count(&[s("aaaa"), s("aa"), IValue::Int(0), IValue::Int(-1)]).unwrap();
        assert_eq!(n.as_int(), Some(2));
        let r = replace(&[s("aaaa"), s("a"), s("bb"), IValue::Int(2)]).unwrap();
        assert_eq!(r.as_str(), Some("bbbbaa"));
        assert_eq!(
            percent_format(
                "%d and %s %f %%",
                &[IValue::Int(3), IValue::Double(2.5), IValue::Double(2.5)]
            )
            .unwrap(),
            "3 and 2.5 2.500000 %"
        );
    }
}
