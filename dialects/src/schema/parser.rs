//! The schema grammar of PyTorch's `function_schema_parser.cpp` and `schema_type_parser.cpp`.
//! Every error is a [`Diagnostic`] at the offending token.

use super::lexer::{tokenize, Tok};
use super::{fake_type, AliasInfo, Argument, FunctionSchema};
use crate::attr::ConstValue;
use crate::source::{Diagnostic, Pos};
use crate::types::{optional_of, union_of, Type};

/// Parses one schema, `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`.
pub fn parse_schema(src: &str) -> Result<FunctionSchema, Diagnostic> {
    parse(src, false)
}

/// Parses the schema of a TorchScript function as `str(fn.schema)` prints it, which
/// [`parse_schema`] (operator schemas, like PyTorch's parser) refuses in two ways: types of
/// the program by qualified name (`-> __torch__.m.Point`, read as `Type::Class`, whatever
/// kind of named type it is) and tuple defaults (`(int, int) shape=(1, 2)`).
pub fn parse_function_schema(src: &str) -> Result<FunctionSchema, Diagnostic> {
    parse(src, true)
}

fn parse(src: &str, program_types: bool) -> Result<FunctionSchema, Diagnostic> {
    let mut p = Parser {
        toks: tokenize(src)?,
        at: 0,
        next_alias_id: 0,
        depth: 0,
        program_types,
    };
    let schema = p.declaration()?;
    p.expect_eof()?;
    Ok(schema)
}

type PResult<T> = Result<T, Diagnostic>;

struct Parser {
    toks: Vec<(Tok, Pos)>,
    at: usize,
    /// Numbers the fresh alias sets of `Tensor!` (`$0`, `$1`, …).
    next_alias_id: u32,
    /// How deeply the type being read nests, bounded so hostile input cannot exhaust the stack.
    depth: u32,
    /// Whether the schema is a TorchScript function's ([`parse_function_schema`]).
    program_types: bool,
}

/// Deeper types than this are refused; real schemas nest three or four levels.
const MAX_TYPE_DEPTH: u32 = 64;

/// PyTorch's `c10::ScalarType`, `Reduction` and `MemoryFormat` numbering of the identifiers a
/// default may name.
fn named_default(name: &str) -> Option<i64> {
    Some(match name {
        "float" => 6,
        "complex" => 9,
        "long" => 4,
        "strided" => 0,
        "Mean" => 1,
        "contiguous_format" => 0,
        _ => return None,
    })
}

impl Parser {
    fn cur(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn pos(&self) -> Pos {
        self.toks[self.at].1
    }

    fn lookahead(&self) -> &Tok {
        &self.toks[(self.at + 1).min(self.toks.len() - 1)].0
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.at].0.clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(Diagnostic::new(self.pos(), msg))
    }

    fn next_if(&mut self, t: &Tok) -> bool {
        if self.cur() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn next_if_punct(&mut self, c: char) -> bool {
        self.next_if(&Tok::Punct(c))
    }

    fn expect(&mut self, t: &Tok) -> PResult<()> {
        if self.next_if(t) {
            Ok(())
        } else {
            self.err(format!(
                "expected {} but found {}",
                t.describe(),
                self.cur().describe()
            ))
        }
    }

    fn expect_punct(&mut self, c: char) -> PResult<()> {
        self.expect(&Tok::Punct(c))
    }

    fn expect_ident(&mut self) -> PResult<String> {
        match self.cur().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            other => self.err(format!(
                "expected an identifier but found {}",
                other.describe()
            )),
        }
    }

    fn expect_number(&mut self) -> PResult<String> {
        match self.cur().clone() {
            Tok::Number(s) => {
                self.bump();
                Ok(s)
            }
            other => self.err(format!("expected a number but found {}", other.describe())),
        }
    }

    fn expect_eof(&mut self) -> PResult<()> {
        self.expect(&Tok::Eof)
    }

    /// `begin item (sep item)* end`, where `begin`/`end` may be absent.
    fn list(
        &mut self,
        begin: Option<char>,
        sep: char,
        end: Option<char>,
        mut item: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if let Some(b) = begin {
            self.expect_punct(b)?;
        }
        let at_end = end.is_some_and(|e| *self.cur() == Tok::Punct(e));
        if !at_end {
            loop {
                item(self)?;
                if !self.next_if_punct(sep) {
                    break;
                }
            }
        }
        if let Some(e) = end {
            self.expect_punct(e)?;
        }
        Ok(())
    }

    fn declaration(&mut self) -> PResult<FunctionSchema> {
        let (name, overload_name) = self.operator_name()?;
        if *self.cur() != Tok::Punct('(') {
            return self.err(format!(
                "expected '(' after the operator name '{name}': a function schema needs an argument list"
            ));
        }
        let mut arguments = Vec::new();
        let (mut kwarg_only, mut is_vararg) = (false, false);
        self.list(Some('('), ',', Some(')'), |p| {
            if is_vararg {
                return p.err("... must be the last element of the argument list");
            }
            if p.next_if_punct('*') {
                kwarg_only = true;
            } else if p.next_if(&Tok::Dots) {
                is_vararg = true;
            } else {
                arguments.push(p.argument(false, kwarg_only)?);
            }
            Ok(())
        })?;
        if is_vararg && arguments.iter().any(|a| a.default.is_some()) {
            return self.err("schemas with vararg (...) can't have default value args");
        }
        self.expect(&Tok::Arrow)?;
        let mut returns = Vec::new();
        let mut is_varret = false;
        if self.next_if(&Tok::Dots) {
            is_varret = true;
        } else if *self.cur() == Tok::Punct('(') {
            self.list(Some('('), ',', Some(')'), |p| {
                if is_varret {
                    return p.err("... must be the last element of the return list");
                }
                if p.next_if(&Tok::Dots) {
                    is_varret = true;
                } else {
                    returns.push(p.argument(true, false)?);
                }
                Ok(())
            })?;
        } else {
            returns.push(self.argument(true, false)?);
        }
        Ok(FunctionSchema {
            name,
            overload_name,
            arguments,
            returns,
            is_vararg,
            is_varret,
        })
    }

    fn operator_name(&mut self) -> PResult<(String, String)> {
        let mut name = self.expect_ident()?;
        if self.next_if_punct(':') {
            self.expect_punct(':')?;
            name = format!("{name}::{}", self.expect_ident()?);
        }
        let mut overload = String::new();
        if self.next_if_punct('.') {
            let pos = self.pos();
            overload = self.expect_ident()?;
            // `default` names the overload packet in Python, and dunders are attributes.
            if overload == "default" || overload.starts_with("__") {
                return Err(Diagnostic::new(
                    pos,
                    format!("{overload} is not a legal overload name for aten operators"),
                ));
            }
        }
        Ok((name, overload))
    }

    fn argument(&mut self, is_return: bool, kwarg_only: bool) -> PResult<Argument> {
        let (mut ty, mut alias) = self.parse_type()?;
        let mut n = None;
        if self.next_if_punct('[') {
            // A size hint (`int[2]`) only occurs at the argument level.
            ty = Type::list(ty);
            let pos = self.pos();
            let text = self.expect_number()?;
            n = Some(
                text.parse::<i64>()
                    .map_err(|_| Diagnostic::new(pos, format!("invalid list size '{text}'")))?,
            );
            self.expect_punct(']')?;
            alias = self.wrap_container_alias(alias)?;
            let pos = self.pos();
            if self.next_if_punct('?') {
                ty = optional_at(ty, pos)?;
            }
        }
        let name;
        let mut default = None;
        if is_return {
            name = match self.cur().clone() {
                Tok::Ident(s) => {
                    self.bump();
                    s
                }
                _ => String::new(),
            };
        } else {
            name = self.expect_ident()?;
            if self.next_if_punct('=') {
                default = Some(self.default_value(&fake_type(&ty), n)?);
            }
        }
        Ok(Argument {
            name,
            ty,
            n,
            default,
            kwarg_only: !is_return && kwarg_only,
            alias,
        })
    }

    /// After `[]` (or `[N]`): the list's own annotation, holding the element's.
    fn wrap_container_alias(&mut self, inner: Option<AliasInfo>) -> PResult<Option<AliasInfo>> {
        let mut container = self.alias_annotation()?;
        if let Some(inner) = inner {
            let c = container.get_or_insert_with(|| AliasInfo {
                is_write: inner.is_write,
                ..Default::default()
            });
            c.contained.push(inner);
        }
        Ok(container)
    }

    /// `(a)`, `(a|b)`, `(a!)`, `(a -> b)`, `(*)`, `!`.
    fn alias_annotation(&mut self) -> PResult<Option<AliasInfo>> {
        let mut info = AliasInfo::default();
        if self.next_if_punct('(') {
            let mut before = Vec::new();
            self.alias_sets(&mut before)?;
            info.before = before;
            if self.next_if_punct('!') {
                info.is_write = true;
            }
            if self.next_if(&Tok::Arrow) {
                let mut after = Vec::new();
                self.alias_sets(&mut after)?;
                info.after = after;
            } else {
                info.after = info.before.clone();
            }
            self.expect_punct(')')?;
        } else if self.next_if_punct('!') {
            info.before.push(format!("${}", self.next_alias_id));
            self.next_alias_id += 1;
            info.is_write = true;
        } else {
            return Ok(None);
        }
        Ok(Some(info))
    }

    /// `a|b|*`; after a wildcard the remaining names are not read (PyTorch ignores them, and
    /// so stops at them).
    fn alias_sets(&mut self, sets: &mut Vec<String>) -> PResult<()> {
        self.list(None, '|', None, |p| {
            if p.next_if_punct('*') {
                add_set(sets, AliasInfo::WILDCARD.to_string());
            } else if !sets.iter().any(|s| s == AliasInfo::WILDCARD) {
                let name = p.expect_ident()?;
                add_set(sets, name);
            }
            Ok(())
        })
    }

    /// A type with its alias annotation. Element types of tuples, dicts, unions and futures
    /// come back as their `int` stand-ins (PyTorch keeps only the "fake" type there).
    fn parse_type(&mut self) -> PResult<(Type, Option<AliasInfo>)> {
        let entry_depth = self.depth;
        let result = self.parse_type_inner();
        self.depth = entry_depth;
        result
    }

    /// Counts one level of type nesting.
    fn nest(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_TYPE_DEPTH {
            return self.err(format!("type nests more than {MAX_TYPE_DEPTH} levels deep"));
        }
        Ok(())
    }

    fn parse_type_inner(&mut self) -> PResult<(Type, Option<AliasInfo>)> {
        self.nest()?;
        let mut alias = None;
        let mut ty = match self.cur().clone() {
            Tok::Punct('(') => {
                let mut elems = Vec::new();
                self.list(Some('('), ',', Some(')'), |p| {
                    // Annotations on tuple elements are dropped, as in PyTorch.
                    elems.push(fake_type(&p.parse_type()?.0));
                    Ok(())
                })?;
                Type::tuple(elems)
            }
            Tok::Ident(w) if matches!(w.as_str(), "Future" | "Await" | "RRef") => {
                self.bump();
                self.expect_punct('(')?;
                let inner = Box::new(fake_type(&self.parse_type()?.0));
                self.expect_punct(')')?;
                match w.as_str() {
                    "Future" => Type::Future(inner),
                    "Await" => Type::Await(inner),
                    _ => Type::RRef(inner),
                }
            }
            Tok::Ident(w) if w == "Tensor" => {
                self.bump();
                alias = self.alias_annotation()?;
                Type::tensor()
            }
            Tok::Ident(w) if w == "Dict" => {
                self.bump();
                self.expect_punct('(')?;
                let key = fake_type(&self.parse_type()?.0);
                self.expect_punct(',')?;
                let value = fake_type(&self.parse_type()?.0);
                self.expect_punct(')')?;
                alias = self.alias_annotation()?;
                Type::Dict(Box::new(key), Box::new(value))
            }
            Tok::Ident(w) if w == "Union" => {
                self.bump();
                let pos = self.pos();
                self.expect_punct('(')?;
                let mut members = vec![fake_type(&self.parse_type()?.0)];
                while *self.cur() != Tok::Punct(')') {
                    self.expect_punct(',')?;
                    members.push(fake_type(&self.parse_type()?.0));
                }
                self.expect_punct(')')?;
                alias = self.alias_annotation()?;
                union_of(members).map_err(|m| Diagnostic::new(pos, m))?
            }
            Tok::Ident(w) if w == "__torch__" => self.custom_class()?,
            _ => {
                let t = self.base_type()?;
                alias = self.alias_annotation()?;
                t
            }
        };
        loop {
            if *self.cur() == Tok::Punct('[') && *self.lookahead() == Tok::Punct(']') {
                self.nest()?;
                self.bump();
                self.bump();
                ty = Type::list(ty);
                alias = self.wrap_container_alias(alias)?;
            } else if *self.cur() == Tok::Punct('?') {
                self.nest()?;
                ty = optional_at(ty, self.pos())?;
                self.bump();
            } else {
                break;
            }
        }
        Ok((ty, alias))
    }

    /// `__torch__.torch.classes.ns.Name`; in a function's schema also a type of the program,
    /// `__torch__.a.b.Name`.
    fn custom_class(&mut self) -> PResult<Type> {
        self.bump();
        self.expect_punct('.')?;
        let is_custom = *self.cur() == Tok::Ident("torch".into())
            && self.toks.get(self.at + 2).map(|t| &t.0) == Some(&Tok::Ident("classes".into()));
        if self.program_types && !is_custom {
            let mut name = format!("__torch__.{}", self.expect_ident()?);
            while *self.cur() == Tok::Punct('.') && matches!(self.lookahead(), Tok::Ident(_)) {
                self.bump();
                name = format!("{name}.{}", self.expect_ident()?);
            }
            return Ok(Type::Class(name));
        }
        for expected in ["torch", "classes"] {
            let pos = self.pos();
            let got = self.expect_ident()?;
            if got != expected {
                return Err(Diagnostic::new(
                    pos,
                    format!("Expected classes namespace but got {got}"),
                ));
            }
            self.expect_punct('.')?;
        }
        let ns = self.expect_ident()?;
        self.expect_punct('.')?;
        let class = self.expect_ident()?;
        Ok(Type::Class(format!("__torch__.torch.classes.{ns}.{class}")))
    }

    fn base_type(&mut self) -> PResult<Type> {
        let pos = self.pos();
        let text = match self.bump() {
            Tok::None | Tok::NoneType => return Ok(Type::None),
            Tok::Ident(s) => s,
            other => {
                return Err(Diagnostic::new(
                    pos,
                    format!("expected a type but found {}", other.describe()),
                ))
            }
        };
        let ty = match text.as_str() {
            "Generator" => Type::Generator,
            "ScalarType" => Type::ScalarType,
            "Layout" => Type::Layout,
            "MemoryFormat" => Type::MemoryFormat,
            "Storage" => Type::Storage,
            "QScheme" => Type::QScheme,
            "ConstQuantizerPtr" | "DeviceIndex" | "int" => Type::Int,
            "Device" => Type::Device,
            "Stream" => Type::Stream,
            "Scalar" => Type::Number,
            "str" => Type::Str,
            "float" => Type::Float,
            "complex" => Type::Complex,
            "SymInt" => Type::SymInt,
            "SymBool" => Type::SymBool,
            "bool" => Type::Bool,
            "Capsule" => Type::Capsule,
            "Any" => Type::Any,
            "AnyClassType" => Type::AnyClass,
            "AnyEnumType" => Type::AnyEnum,
            // Lower-case identifiers that are not types are type variables.
            v if v.starts_with(|c: char| c.is_ascii_lowercase()) => Type::Var(v.to_string()),
            "Quantizer" => {
                return Err(Diagnostic::new(pos, "type Quantizer is not supported by Ember"))
            }
            _ => {
                return Err(Diagnostic::new(
                    pos,
                    format!(
                        "unknown type specifier '{text}'. Common valid schema types include Tensor, SymInt, int, float, bool, Scalar"
                    ),
                ))
            }
        };
        Ok(ty)
    }

    fn default_value(&mut self, fake: &Type, n: Option<i64>) -> PResult<ConstValue> {
        match fake {
            Type::Tensor(_) | Type::Generator => {
                self.expect(&Tok::None)?;
                Ok(ConstValue::None)
            }
            Type::Str
            | Type::Optional(_)
            | Type::Number
            | Type::Int
            | Type::Bool
            | Type::Float
            | Type::Complex => self.single_constant(fake),
            Type::Device => {
                let pos = self.pos();
                match self.bump() {
                    Tok::Str(raw) => {
                        let device = parse_string_literal(&raw, pos)?;
                        check_device_string(&device).map_err(|m| Diagnostic::new(pos, m))?;
                        Ok(ConstValue::Device(device))
                    }
                    other => Err(Diagnostic::new(
                        pos,
                        format!("expected a string literal but found {}", other.describe()),
                    )),
                }
            }
            Type::List(elem) => {
                let pos = self.pos();
                if matches!(self.cur(), Tok::Ident(_)) {
                    self.expect(&Tok::None)?;
                    Ok(ConstValue::None)
                } else if let (Some(n), false) = (n, *self.cur() == Tok::Punct('[')) {
                    let v = self.single_constant(elem)?;
                    let count = usize::try_from(n).unwrap_or(0).min(1 << 16);
                    convert_to_list(elem, pos, vec![v; count])
                } else {
                    self.expect_punct('[')?;
                    let mut items = Vec::new();
                    if *self.cur() != Tok::Punct(']') {
                        loop {
                            items.push(self.single_constant(elem)?);
                            if !self.next_if_punct(',') {
                                break;
                            }
                        }
                    }
                    self.expect_punct(']')?;
                    convert_to_list(elem, pos, items)
                }
            }
            Type::Tuple(t) if self.program_types => {
                self.nest()?;
                self.expect_punct('(')?;
                let mut items = Vec::new();
                for (i, elem) in t.elements.iter().enumerate() {
                    if i > 0 {
                        self.expect_punct(',')?;
                    }
                    items.push(self.default_value(&fake_type(elem), None)?);
                }
                // A one-element tuple is written `(x,)`.
                if t.elements.len() == 1 {
                    self.expect_punct(',')?;
                }
                self.expect_punct(')')?;
                self.depth -= 1;
                Ok(ConstValue::Tuple(items))
            }
            other => self.err(format!(
                "a default value is not supported for an argument of type {}",
                other.schema_str()
            )),
        }
    }

    fn single_constant(&mut self, kind: &Type) -> PResult<ConstValue> {
        let pos = self.pos();
        match self.cur().clone() {
            Tok::True => {
                self.bump();
                Ok(ConstValue::Bool(true))
            }
            Tok::False => {
                self.bump();
                Ok(ConstValue::Bool(false))
            }
            Tok::None => {
                self.bump();
                Ok(ConstValue::None)
            }
            Tok::Str(raw) => {
                self.bump();
                Ok(ConstValue::Str(parse_string_literal(&raw, pos)?))
            }
            Tok::Ident(name) => match named_default(&name) {
                Some(v) => {
                    self.bump();
                    Ok(ConstValue::Int(v))
                }
                None => self.err("invalid numeric default value"),
            },
            _ => {
                let negative = self.next_if_punct('-');
                let digits = self.expect_number()?;
                let text = if negative {
                    format!("-{digits}")
                } else {
                    digits
                };
                number_constant(&text, kind, pos)
            }
        }
    }
}

/// `T?`, reporting a failure (`None?`) at the `?`.
fn optional_at(ty: Type, pos: Pos) -> PResult<Type> {
    optional_of(ty).map_err(|m| Diagnostic::new(pos, m))
}

fn add_set(sets: &mut Vec<String>, name: String) {
    if !sets.contains(&name) {
        sets.push(name);
    }
}

/// A number default: imaginary (`2j`, or any number for `complex`), float (for `float`, or
/// when written with `.` or `e`), else int.
fn number_constant(text: &str, kind: &Type, pos: Pos) -> PResult<ConstValue> {
    let bad = || Diagnostic::new(pos, format!("invalid number '{text}'"));
    if matches!(kind, Type::Complex) || text.contains('j') {
        // PyTorch drops the last character, which is the `j`.
        let imag = text.strip_suffix('j').ok_or_else(bad)?;
        return Ok(ConstValue::Complex(0.0, stod(imag).ok_or_else(bad)?));
    }
    if matches!(kind, Type::Float) || text.contains('.') || text.contains('e') {
        return Ok(ConstValue::Float(stod(text).ok_or_else(bad)?));
    }
    // `stoll` reads the leading integer (`1E5` is 1).
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    text[..end]
        .parse::<i64>()
        .map(ConstValue::Int)
        .map_err(|_| bad())
}

/// `std::stod`, which PyTorch reads a float default with: out of range (overflowing to
/// infinity, or a nonzero number underflowing to a subnormal or zero) is an error, so that
/// every default read prints as a number that reads back.
fn stod(text: &str) -> Option<f64> {
    let f = text.parse::<f64>().ok()?;
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let nonzero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    let underflow = nonzero && (f == 0.0 || f.is_subnormal());
    (f.is_finite() && !underflow).then_some(f)
}

/// A list default: every item must already have the element kind (PyTorch's `toInt()` etc.).
fn convert_to_list(elem: &Type, pos: Pos, items: Vec<ConstValue>) -> PResult<ConstValue> {
    let want = match elem {
        Type::Complex => "complex",
        Type::Float => "float",
        Type::Int => "int",
        Type::Bool => "bool",
        _ => {
            return Err(Diagnostic::new(
                pos,
                "lists are only supported for float, int and complex types",
            ))
        }
    };
    for item in &items {
        let ok = matches!(
            (want, item),
            ("complex", ConstValue::Complex(..))
                | ("float", ConstValue::Float(_))
                | ("int", ConstValue::Int(_))
                | ("bool", ConstValue::Bool(_))
        );
        if !ok {
            return Err(Diagnostic::new(
                pos,
                format!("expected a list of {want} in default value"),
            ));
        }
    }
    Ok(ConstValue::List(items))
}

/// TorchScript's `parseStringLiteral`: strip the quotes and resolve escapes.
fn parse_string_literal(raw: &str, pos: Pos) -> PResult<String> {
    let b = raw.as_bytes();
    let q = b[0];
    let quote_len = if b.len() >= 6 && b[1] == q && b[2] == q {
        3
    } else {
        1
    };
    let body = &b[quote_len..b.len() - quote_len];
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        let Some(&e) = body.get(i + 1) else {
            return Err(Diagnostic::new(
                pos,
                "ill formed escape at the end of a string",
            ));
        };
        let mut consumed = 2;
        let c = match e {
            b'\\' | b'\'' | b'"' | b'\n' => e,
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'v' => 0x0b,
            b't' => b'\t',
            b'x' => return Err(Diagnostic::new(pos, "unsupported hex specifier")),
            b'u' | b'U' => return Err(Diagnostic::new(pos, "unsupported unicode specifier")),
            _ => {
                let octal = body
                    .get(i + 1..i + 4)
                    .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
                match octal {
                    Some(d) => {
                        consumed = 4;
                        let v = (d[0] - b'0') as u32 * 64
                            + (d[1] - b'0') as u32 * 8
                            + (d[2] - b'0') as u32;
                        v as u8
                    }
                    None => return Err(Diagnostic::new(pos, "ill formed octal specifier")),
                }
            }
        };
        out.push(c);
        i += consumed;
    }
    String::from_utf8(out).map_err(|_| Diagnostic::new(pos, "string literal is not valid UTF-8"))
}

/// The device types `c10::Device`'s string constructor knows.
const DEVICE_TYPES: &[&str] = &[
    "cpu",
    "cuda",
    "hip",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "vulkan",
    "metal",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
    "mps",
    "xpu",
    "ipu",
];

/// A device default as PyTorch's parser checks it (`c10::Device(string)`): a known device
/// type, then optionally `:` and an index without leading zeros.
fn check_device_string(s: &str) -> Result<(), String> {
    let (kind, index) = match s.split_once(':') {
        Some((k, i)) => (k, Some(i)),
        None => (s, None),
    };
    let index_ok = index.is_none_or(|i| {
        !i.is_empty()
            && i.bytes().all(|b| b.is_ascii_digit())
            && (i == "0" || !i.starts_with('0'))
            && i.parse::<i8>().is_ok()
    });
    if DEVICE_TYPES.contains(&kind) && index_ok {
        Ok(())
    } else {
        Err(format!("invalid device string {s:?}"))
    }
}
