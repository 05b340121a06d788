//! The TorchScript parser: tokens to the AST of [`super::ast`].
//!
//! Statements are parsed by recursive descent (PyTorch's torch/csrc/jit/frontend/parser.cpp),
//! expressions by precedence climbing with Python's precedence table (PyTorch's own table puts
//! `and` and `or` at one level; user code is compiled through Python's `ast`, which does not).
//! Where Python's frontend (torch/jit/frontend.py) rewrites syntax before the IR emitter sees
//! it, the parser does the same, so the emitter sees what PyTorch's emitter sees:
//! `a < b < c` becomes `a < b and b < c`, `f"{x}"` becomes `"{}".format(x)`, and a generator
//! expression becomes a list comprehension. `# type:` comments are folded into the signature of
//! a def and into the annotation of an assignment.
//!
//! Bad input yields a [`FrontendError`], never a panic; nesting deeper than [`MAX_DEPTH`] is an
//! error rather than a stack overflow.

use super::ast::*;
use super::error::{FrontendError, Result};
use super::lexer::{
    decode_number, decode_string, split_string, unescape, Lexer, Number, Token, TokenKind,
    TypeComment,
};
use super::span::{SourceFile, Span};

use TokenKind as T;

/// How deeply expressions and blocks may nest.
pub const MAX_DEPTH: u32 = 256;

/// How many AST nodes the expansion of `a < b < c` may copy in one file.
const MAX_COPIED_NODES: usize = 1 << 16;

/// Parses a whole source file.
pub fn parse_module(file: &SourceFile) -> Result<SourceModule> {
    let mut p = Parser::new(file, Lexer::new(file));
    let result = p.module();
    p.finish(result)
}

/// Parses a file that holds one expression (a type string such as `List[Tuple[int, str]]`).
pub fn parse_expr(file: &SourceFile) -> Result<Expr> {
    let mut p = Parser::new(file, Lexer::new(file));
    let result = p.whole_expr();
    p.finish(result)
}

/// Parses the expression in `span` of `file` (newlines there do not end it, as in brackets).
pub fn parse_expr_in(file: &SourceFile, span: Span) -> Result<Expr> {
    let mut p = Parser::new(file, Lexer::for_span(file, span));
    let result = p.whole_expr();
    p.finish(result)
}

// Binding levels: an operator is parsed by `expr(min)` when its level is above `min`.
const TERNARY: u8 = 1;
const OR: u8 = 2;
const AND: u8 = 3;
const NOT: u8 = 4;
const CMP: u8 = 5;
const BIT_OR: u8 = 6;
const BIT_XOR: u8 = 7;
const BIT_AND: u8 = 8;
const SHIFT: u8 = 9;
const ARITH: u8 = 10;
const TERM: u8 = 11;
const UNARY: u8 = 12;
const POWER: u8 = 13;

struct Parser<'a> {
    file: &'a SourceFile,
    tokens: Vec<Token>,
    pos: usize,
    /// End of the last consumed token, where spans of finished nodes end.
    prev_end: u32,
    type_comments: Vec<TypeComment>,
    /// A lexer error; the tokens stop where it happened.
    lex_error: Option<FrontendError>,
    depth: u32,
    /// AST nodes copied so far by the expansion of comparison chains.
    copied_nodes: usize,
}

impl<'a> Parser<'a> {
    fn new(file: &'a SourceFile, mut lexer: Lexer<'a>) -> Parser<'a> {
        let mut tokens = Vec::new();
        let mut lex_error = None;
        loop {
            match lexer.next_token() {
                Ok(t) => {
                    tokens.push(t);
                    if t.kind == T::Eof {
                        break;
                    }
                }
                Err(e) => {
                    // The parser stops at an EOF where the bad text starts.
                    tokens.push(Token {
                        kind: T::Eof,
                        span: Span::new(e.span.start, e.span.start),
                    });
                    lex_error = Some(e);
                    break;
                }
            }
        }
        Parser {
            file,
            tokens,
            pos: 0,
            prev_end: 0,
            type_comments: lexer.into_type_comments(),
            lex_error,
            depth: 0,
            copied_nodes: 0,
        }
    }

    /// The parse result, or the lexer's error when the parser stopped at (or got past) it.
    fn finish<R>(&mut self, result: Result<R>) -> Result<R> {
        match (result, self.lex_error.take()) {
            (Ok(_), Some(lex)) => Err(lex),
            (Err(e), Some(lex)) if e.span.start >= lex.span.start => Err(lex),
            (result, _) => result,
        }
    }

    // ----- token access -----

    fn cur(&self) -> Token {
        self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek(&self) -> TokenKind {
        self.cur().kind
    }

    fn peek_at(&self, n: usize) -> TokenKind {
        self.tokens[(self.pos + n).min(self.tokens.len() - 1)].kind
    }

    fn bump(&mut self) -> Token {
        let t = self.cur();
        if t.kind != T::Eof {
            self.pos += 1;
            // Spans end at the last real token, not at a line end or dedent after it.
            if !matches!(t.kind, T::Newline | T::Indent | T::Dedent) {
                self.prev_end = t.span.end;
            }
        }
        t
    }

    fn eat(&mut self, kind: TokenKind) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    fn text(&self, t: Token) -> &'a str {
        self.file.slice(t.span)
    }

    fn err<R>(&self, span: Span, message: impl Into<String>) -> Result<R> {
        Err(FrontendError::new(span, message))
    }

    /// `expected 'x' but found 'y' here`, at the current token.
    fn expected<R>(&self, what: &str) -> Result<R> {
        let t = self.cur();
        if t.kind == T::Walrus {
            return self.err(t.span, "NamedExpr aren't supported");
        }
        self.err(
            t.span,
            format!("expected {what} but found '{}' here", t.kind.name()),
        )
    }

    fn expect(&mut self, kind: TokenKind) -> Result<Token> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            self.expected(&format!("'{}'", kind.name()))
        }
    }

    fn ident(&mut self) -> Result<Ident> {
        let t = self.expect(T::Ident)?;
        Ok(Ident {
            name: self.text(t).to_string(),
            span: t.span,
        })
    }

    /// The one-character span PyTorch's `UnsupportedNodeError` highlights at a node's start.
    fn first_char(&self, start: u32) -> Span {
        let len = self.file.text[start as usize..]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        Span::new(start, start + len as u32)
    }

    fn span_from(&self, start: u32) -> Span {
        Span::new(start, self.prev_end.max(start))
    }

    /// Runs `f` one nesting level deeper, refusing to go past [`MAX_DEPTH`].
    fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<R> {
        let mut levels = 0;
        self.deepen(&mut levels)?;
        // Debug builds use kilobytes of stack per level: grow it rather than overflow a small
        // thread stack.
        let r = stacker::maybe_grow(64 * 1024, 1024 * 1024, || f(self));
        self.depth -= levels;
        r
    }

    /// One more level of nesting, counted in `levels` for the caller to give back. Loops that
    /// wrap a node around the previous one (`a + b + c`, `a.b.c`) call it per wrap, so the
    /// depth of the tree stays bounded too (dropping or walking it recurses).
    fn deepen(&mut self, levels: &mut u32) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return self.err(
                self.cur().span,
                format!("too many nested levels here (the limit is {MAX_DEPTH})"),
            );
        }
        self.depth += 1;
        *levels += 1;
        Ok(())
    }

    // ----- statements -----

    fn module(&mut self) -> Result<SourceModule> {
        let mut body = Vec::new();
        loop {
            match self.peek() {
                T::Eof => break,
                T::Newline => {
                    self.bump();
                }
                _ => body.extend(self.statement(false)?),
            }
        }
        Ok(SourceModule { body })
    }

    fn whole_expr(&mut self) -> Result<Expr> {
        let e = self.expr(0)?;
        self.eat(T::Newline);
        if self.peek() != T::Eof {
            return self.expected("end of the expression");
        }
        Ok(e)
    }

    /// One statement, or several for a line of `;`-separated simple statements.
    fn statement(&mut self, in_class: bool) -> Result<Vec<Stmt>> {
        let t = self.cur();
        let stmt = match t.kind {
            T::If => self.if_stmt()?,
            T::While => self.while_stmt()?,
            T::For => self.for_stmt()?,
            T::With => self.with_stmt()?,
            T::Def | T::Class | T::At => self.decorated(in_class)?,
            T::Indent => return self.err(t.span, "unexpected indent"),
            T::Try => return self.err(t.span, "try blocks aren't supported"),
            T::Async => {
                let what = match self.peek_at(1) {
                    T::For => "async for loops",
                    T::With => "async with statements",
                    _ => "async function definitions",
                };
                return self.err(t.span, format!("{what} aren't supported"));
            }
            _ => return self.simple_line(),
        };
        Ok(vec![stmt])
    }

    fn at_statement_end(&self) -> bool {
        matches!(self.peek(), T::Newline | T::Semi | T::Eof)
    }

    fn expect_newline(&mut self) -> Result<()> {
        match self.peek() {
            T::Newline => {
                self.bump();
                Ok(())
            }
            T::Eof | T::Dedent => Ok(()),
            _ => self.expected("'newline'"),
        }
    }

    /// `small_stmt (';' small_stmt)* [';'] NEWLINE`
    fn simple_line(&mut self) -> Result<Vec<Stmt>> {
        let mut stmts = vec![self.small_statement()?];
        while self.eat(T::Semi) {
            if matches!(self.peek(), T::Newline | T::Eof) {
                break;
            }
            stmts.push(self.small_statement()?);
        }
        self.expect_newline()?;
        Ok(stmts)
    }

    fn small_statement(&mut self) -> Result<Stmt> {
        let t = self.cur();
        let start = t.span.start;
        let kind = match t.kind {
            T::Pass => {
                self.bump();
                StmtKind::Pass
            }
            T::Break => {
                self.bump();
                StmtKind::Break
            }
            T::Continue => {
                self.bump();
                StmtKind::Continue
            }
            T::Return => {
                self.bump();
                if self.at_statement_end() {
                    StmtKind::Return(None)
                } else {
                    let value = self.testlist_star()?;
                    if let ExprKind::Starred(_) = value.kind {
                        return self.err(value.span, "can't use starred expression here");
                    }
                    StmtKind::Return(Some(value))
                }
            }
            T::Raise => {
                self.bump();
                if self.at_statement_end() {
                    StmtKind::Raise(None)
                } else {
                    let e = self.expr(0)?;
                    // `raise E from cause`: TorchScript ignores the cause, as frontend.py does.
                    if self.eat(T::From) {
                        self.expr(0)?;
                    }
                    StmtKind::Raise(Some(e))
                }
            }
            T::Assert => {
                self.bump();
                let test = self.expr(0)?;
                let msg = if self.eat(T::Comma) {
                    Some(self.expr(0)?)
                } else {
                    None
                };
                StmtKind::Assert { test, msg }
            }
            T::Del => {
                self.bump();
                let mut targets = vec![self.expr(0)?];
                while self.eat(T::Comma) {
                    if self.at_statement_end() {
                        break;
                    }
                    targets.push(self.expr(0)?);
                }
                for target in &targets {
                    self.check_target(target, "delete")?;
                }
                StmtKind::Delete(targets)
            }
            T::Global => {
                self.bump();
                let mut names = vec![self.ident()?];
                while self.eat(T::Comma) {
                    names.push(self.ident()?);
                }
                StmtKind::Global(names)
            }
            T::Nonlocal => return self.err(t.span, "nonlocal variables aren't supported"),
            T::Import => StmtKind::Import(self.import()?),
            T::From => StmtKind::Import(self.import_from()?),
            _ => return self.assign_or_expr(),
        };
        Ok(Stmt::new(kind, self.span_from(start)))
    }

    /// An expression statement, an assignment (chained, annotated, with tuple targets), or an
    /// augmented assignment.
    fn assign_or_expr(&mut self) -> Result<Stmt> {
        let start = self.cur().span.start;
        let lhs = self.testlist_star()?;
        let t = self.cur();
        let kind = if t.kind == T::Colon {
            self.bump();
            if !matches!(
                lhs.kind,
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. }
            ) {
                let what = if matches!(lhs.kind, ExprKind::Tuple(_)) {
                    "only single target (not tuple) can be annotated"
                } else {
                    "illegal target for annotation"
                };
                return self.err(lhs.span, what);
            }
            let annotation = self.expr(0)?;
            let value = if self.eat(T::Assign) {
                Some(self.testlist_star()?)
            } else {
                None
            };
            if self.peek() == T::Assign {
                return self.err(
                    self.cur().span,
                    "Annotated multiple assignment is not supported in python",
                );
            }
            StmtKind::Assign {
                targets: vec![lhs],
                annotation: Some(annotation),
                value,
            }
        } else if t.kind == T::Assign {
            let mut targets = vec![lhs];
            self.bump();
            let mut value = self.testlist_star()?;
            while self.eat(T::Assign) {
                targets.push(value);
                value = self.testlist_star()?;
            }
            if let ExprKind::Starred(_) = value.kind {
                return self.err(value.span, "can't use starred expression here");
            }
            for target in &targets {
                self.check_target(target, "assign to")?;
            }
            let annotation = if targets.len() == 1 {
                self.assignment_type_comment(value.span.end)?
            } else {
                None
            };
            StmtKind::Assign {
                targets,
                annotation,
                value: Some(value),
            }
        } else if let Some(op) = aug_assign_op(t.kind) {
            if !matches!(
                lhs.kind,
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. }
            ) {
                return self.err(
                    lhs.span,
                    format!(
                        "'{}' is an illegal expression for augmented assignment",
                        describe(&lhs)
                    ),
                );
            }
            self.bump();
            let value = self.testlist_star()?;
            if let ExprKind::Starred(_) = value.kind {
                return self.err(value.span, "can't use starred expression here");
            }
            StmtKind::AugAssign {
                target: lhs,
                op,
                value,
            }
        } else {
            if let ExprKind::Starred(_) = lhs.kind {
                return self.err(lhs.span, "can't use starred expression here");
            }
            if !self.at_statement_end() {
                return self.expected("'newline'");
            }
            StmtKind::Expr(lhs)
        };
        Ok(Stmt::new(kind, self.span_from(start)))
    }

    /// Whether `e` may be assigned to (or deleted); `verb` completes the error message.
    fn check_target(&self, e: &Expr, verb: &str) -> Result<()> {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let mut starred = 0;
                for item in items {
                    if let ExprKind::Starred(inner) = &item.kind {
                        starred += 1;
                        if starred > 1 {
                            return self
                                .err(item.span, "multiple starred expressions in assignment");
                        }
                        self.check_target(inner, verb)?;
                    } else {
                        self.check_target(item, verb)?;
                    }
                }
                Ok(())
            }
            ExprKind::Starred(_) => self.err(
                e.span,
                "starred assignment target must be in a list or tuple",
            ),
            _ => self.err(e.span, format!("cannot {verb} {}", describe(e))),
        }
    }

    /// The annotation of a `x = value  # type: T` comment: one between the value and the end
    /// of the line.
    fn assignment_type_comment(&mut self, value_end: u32) -> Result<Option<Expr>> {
        if self.peek() != T::Newline && self.peek() != T::Eof {
            return Ok(None);
        }
        let line_end = self.cur().span.start;
        let found = self
            .type_comments_from(value_end)
            .find(|c| c.span.start <= line_end)
            .copied();
        match found {
            Some(c) if !self.file.slice(c.content).starts_with("ignore") => {
                self.sub_parse(c.content, |p| p.whole_expr()).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Runs `f` on a parser over `span` of the same file (a type comment, an f-string field).
    fn sub_parse<R>(
        &mut self,
        span: Span,
        f: impl FnOnce(&mut Parser<'a>) -> Result<R>,
    ) -> Result<R> {
        let mut p = Parser::new(self.file, Lexer::for_span(self.file, span));
        p.depth = self.depth;
        let result = f(&mut p);
        p.finish(result)
    }

    fn import(&mut self) -> Result<Import> {
        let start = self.expect(T::Import)?.span.start;
        let mut names = vec![self.import_name(true)?];
        while self.eat(T::Comma) {
            names.push(self.import_name(true)?);
        }
        Ok(Import {
            from: None,
            names,
            span: self.span_from(start),
        })
    }

    fn import_from(&mut self) -> Result<Import> {
        let start = self.expect(T::From)?.span.start;
        if matches!(self.peek(), T::Dot | T::Ellipsis) {
            return self.err(self.cur().span, "relative imports are not supported");
        }
        let from = self.dotted_name()?;
        self.expect(T::Import)?;
        let mut names = Vec::new();
        if self.peek() == T::Star {
            let t = self.bump();
            names.push(ImportName {
                path: vec![Ident {
                    name: "*".into(),
                    span: t.span,
                }],
                alias: None,
            });
        } else {
            let parens = self.eat(T::LParen);
            loop {
                names.push(self.import_name(false)?);
                if !self.eat(T::Comma) {
                    break;
                }
                if parens && self.peek() == T::RParen {
                    break;
                }
            }
            if parens {
                self.expect(T::RParen)?;
            }
        }
        Ok(Import {
            from: Some(from),
            names,
            span: self.span_from(start),
        })
    }

    fn dotted_name(&mut self) -> Result<Vec<Ident>> {
        let mut path = vec![self.ident()?];
        while self.eat(T::Dot) {
            path.push(self.ident()?);
        }
        Ok(path)
    }

    fn import_name(&mut self, dotted: bool) -> Result<ImportName> {
        let path = if dotted {
            self.dotted_name()?
        } else {
            vec![self.ident()?]
        };
        let alias = if self.eat(T::As) {
            Some(self.ident()?)
        } else {
            None
        };
        Ok(ImportName { path, alias })
    }

    /// The block after a `:`: an indented suite, or simple statements on the same line.
    fn block(&mut self, in_class: bool) -> Result<Vec<Stmt>> {
        self.nested(|p| {
            if !p.eat(T::Newline) {
                return p.simple_line();
            }
            if p.peek() != T::Indent {
                return p.expected("an indented block");
            }
            p.bump();
            let mut body = Vec::new();
            loop {
                match p.peek() {
                    T::Dedent => {
                        p.bump();
                        break;
                    }
                    T::Eof => break,
                    _ => body.extend(p.statement(in_class)?),
                }
            }
            Ok(body)
        })
    }

    /// `if` with its `elif`s and `else`; each `elif` becomes an `If` alone in the else body of
    /// the one before (built iteratively, so long chains do not nest the parser).
    fn if_stmt(&mut self) -> Result<Stmt> {
        let mut arms = Vec::new();
        let mut keyword = T::If;
        let mut else_body = Vec::new();
        loop {
            let start = self.expect(keyword)?.span.start;
            let cond = self.expr(0)?;
            self.expect(T::Colon)?;
            let body = self.block(false)?;
            arms.push((start, cond, body));
            match self.peek() {
                T::Elif => keyword = T::Elif,
                T::Else => {
                    self.bump();
                    self.expect(T::Colon)?;
                    else_body = self.block(false)?;
                    break;
                }
                _ => break,
            }
        }
        let end = self.prev_end;
        for (start, cond, then_body) in arms.into_iter().rev() {
            let stmt = Stmt::new(
                StmtKind::If {
                    cond,
                    then_body,
                    else_body,
                },
                Span::new(start, end),
            );
            else_body = vec![stmt];
        }
        Ok(else_body
            .pop()
            .expect("an if statement has at least one arm"))
    }

    fn while_stmt(&mut self) -> Result<Stmt> {
        let start = self.expect(T::While)?.span.start;
        let cond = self.expr(0)?;
        self.expect(T::Colon)?;
        let body = self.block(false)?;
        if self.peek() == T::Else {
            return self.err(
                self.cur().span,
                "else branches of while loops aren't supported",
            );
        }
        Ok(Stmt::new(
            StmtKind::While { cond, body },
            self.span_from(start),
        ))
    }

    fn for_stmt(&mut self) -> Result<Stmt> {
        let for_span = self.expect(T::For)?.span;
        let start = for_span.start;
        let target = self.target_list()?;
        self.expect(T::In)?;
        let iter = self.testlist_star()?;
        self.expect(T::Colon)?;
        let body = self.block(false)?;
        if self.peek() == T::Else {
            // PyTorch points at the `for` keyword.
            return self.err(for_span, "else branches of for loops aren't supported");
        }
        Ok(Stmt::new(
            StmtKind::For { target, iter, body },
            self.span_from(start),
        ))
    }

    /// The targets of a `for` or a comprehension: `a`, `a, b`, `(a, b), *c`.
    fn target_list(&mut self) -> Result<Expr> {
        let start = self.cur().span.start;
        let first = self.star_or_expr(CMP)?;
        let target = if self.peek() == T::Comma {
            let mut items = vec![first];
            while self.eat(T::Comma) {
                if self.peek() == T::In {
                    break;
                }
                items.push(self.star_or_expr(CMP)?);
            }
            Expr::new(ExprKind::Tuple(items), self.span_from(start))
        } else {
            first
        };
        self.check_target(&target, "assign to")?;
        Ok(target)
    }

    fn with_stmt(&mut self) -> Result<Stmt> {
        let start = self.expect(T::With)?.span.start;
        // `with (a as b, c):` (Python 3.9+): parentheses around the items, told apart from a
        // parenthesized first expression by the `:` right after the closing parenthesis.
        let parenthesized =
            self.peek() == T::LParen && self.peek_at(self.matching_paren_offset() + 1) == T::Colon;
        if parenthesized {
            self.bump();
        }
        let mut items = Vec::new();
        loop {
            if parenthesized && self.peek() == T::RParen {
                break;
            }
            let context = self.expr(0)?;
            let target = if self.eat(T::As) {
                let t = self.star_or_expr(CMP)?;
                self.check_target(&t, "assign to")?;
                Some(t)
            } else {
                None
            };
            items.push(WithItem { context, target });
            if !self.eat(T::Comma) {
                break;
            }
        }
        if parenthesized {
            self.expect(T::RParen)?;
        }
        self.expect(T::Colon)?;
        let body = self.block(false)?;
        Ok(Stmt::new(
            StmtKind::With { items, body },
            self.span_from(start),
        ))
    }

    /// How many tokens ahead the `)` closing the current `(` is (at EOF if none).
    fn matching_paren_offset(&self) -> usize {
        let mut depth = 0usize;
        for (offset, t) in self.tokens[self.pos..].iter().enumerate() {
            match t.kind {
                T::LParen | T::LBracket | T::LBrace => depth += 1,
                T::RParen | T::RBracket | T::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return offset;
                    }
                }
                T::Eof => return offset,
                _ => {}
            }
        }
        self.tokens.len() - self.pos
    }

    /// Decorators, then the def or class they apply to.
    fn decorated(&mut self, in_class: bool) -> Result<Stmt> {
        let mut decorators = Vec::new();
        while self.eat(T::At) {
            decorators.push(self.expr(0)?);
            self.expect(T::Newline)?;
        }
        match self.peek() {
            T::Def => self.def(decorators, in_class),
            T::Class => self.class(decorators),
            T::Async => self.err(
                self.cur().span,
                "async function definitions aren't supported",
            ),
            _ => self.expected("'def' or 'class' after a decorator"),
        }
    }

    fn def(&mut self, decorators: Vec<Expr>, is_method: bool) -> Result<Stmt> {
        let start = self.expect(T::Def)?.span.start;
        let name = self.ident()?;
        let params_start = self.cur().span.start;
        let mut params = self.params()?;
        let params_end = self.prev_end;
        let mut return_type = if self.eat(T::Arrow) {
            Some(self.expr(0)?)
        } else {
            None
        };
        let colon = self.expect(T::Colon)?;
        let header = Span::new(start, colon.span.end);
        if let Some(c) = self.signature_type_comment(colon.span.end) {
            let (mut types, ret) = self.sub_parse(c.content, |p| p.type_comment_signature())?;
            // PEP 484's long form: `# type: (...) -> R` with one `# type: T` per parameter line.
            if let [Expr {
                kind: ExprKind::Ellipsis,
                ..
            }] = types.as_slice()
            {
                let per_param: Vec<TypeComment> = self
                    .type_comments_from(params_start)
                    .take_while(|t| t.span.start < params_end)
                    .copied()
                    .collect();
                types = per_param
                    .into_iter()
                    .map(|t| self.sub_parse(t.content, |p| p.whole_expr()))
                    .collect::<Result<_>>()?;
            }
            let skip = usize::from(is_method && !params.is_empty());
            let expected = params.len() - skip;
            if types.len() != expected {
                return self.err(
                    header,
                    format!(
                        "Number of type annotations ({}) did not match the number of {} parameters ({expected})",
                        types.len(),
                        if is_method { "method" } else { "function" },
                    ),
                );
            }
            for (param, ty) in params[skip..].iter_mut().zip(types) {
                param.annotation = Some(ty);
            }
            return_type = ret;
        }
        let body = self.block(false)?;
        let def = Def {
            name,
            decorators,
            params,
            return_type,
            body,
            span: header,
        };
        Ok(Stmt::new(StmtKind::Def(def), self.span_from(start)))
    }

    /// A `# type: (A, B) -> R` comment after a def's colon, on its line or first in its body.
    fn signature_type_comment(&self, colon_end: u32) -> Option<TypeComment> {
        let mut i = self.pos;
        while matches!(
            self.tokens[i.min(self.tokens.len() - 1)].kind,
            T::Newline | T::Indent
        ) && i < self.tokens.len()
        {
            i += 1;
        }
        let body_start = self.tokens[i.min(self.tokens.len() - 1)].span.start;
        self.type_comments_from(colon_end)
            .take_while(|c| c.span.start < body_start)
            .find(|c| self.file.slice(c.content).starts_with('('))
            .copied()
    }

    /// The type comments at or after byte `offset`, in order (they are sorted by position).
    fn type_comments_from(&self, offset: u32) -> impl Iterator<Item = &TypeComment> {
        let first = self
            .type_comments
            .partition_point(|c| c.span.start < offset);
        self.type_comments[first..].iter()
    }

    /// `(A, B) -> R` of a signature type comment.
    fn type_comment_signature(&mut self) -> Result<(Vec<Expr>, Option<Expr>)> {
        self.expect(T::LParen)?;
        let mut types = Vec::new();
        while self.peek() != T::RParen {
            types.push(self.expr(0)?);
            if !self.eat(T::Comma) {
                break;
            }
        }
        self.expect(T::RParen)?;
        let ret = if self.eat(T::Arrow) {
            Some(self.expr(0)?)
        } else {
            None
        };
        if self.peek() != T::Eof {
            return self.expected("end of the type comment");
        }
        Ok((types, ret))
    }

    fn params(&mut self) -> Result<Vec<Param>> {
        self.expect(T::LParen)?;
        let mut params: Vec<Param> = Vec::new();
        let mut kwarg_only = false;
        while self.peek() != T::RParen {
            let t = self.cur();
            match t.kind {
                T::Star if matches!(self.peek_at(1), T::Comma | T::RParen) => {
                    self.bump();
                    if kwarg_only {
                        return self.err(t.span, "* argument may appear only once");
                    }
                    kwarg_only = true;
                }
                T::Star | T::DoubleStar => {
                    self.bump();
                    let name = self.ident()?;
                    return self.err(
                        t.span.to(name.span),
                        "Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults",
                    );
                }
                // Positional-only marker: TorchScript binds those by position anyway.
                T::Slash => {
                    self.bump();
                }
                _ => {
                    let name = self.ident()?;
                    let annotation = if self.eat(T::Colon) {
                        Some(self.expr(0)?)
                    } else {
                        None
                    };
                    let default = if self.eat(T::Assign) {
                        Some(self.expr(0)?)
                    } else {
                        None
                    };
                    if params.iter().any(|p| p.name.name == name.name) {
                        return self.err(
                            name.span,
                            format!("duplicate argument '{}' in function definition", name.name),
                        );
                    }
                    if default.is_none()
                        && !kwarg_only
                        && params.iter().any(|p| p.default.is_some() && !p.kwarg_only)
                    {
                        return self
                            .err(name.span, "non-default argument follows default argument");
                    }
                    let span = self.span_from(name.span.start);
                    params.push(Param {
                        name,
                        annotation,
                        default,
                        kwarg_only,
                        span,
                    });
                }
            }
            if !self.eat(T::Comma) {
                break;
            }
        }
        self.expect(T::RParen)?;
        Ok(params)
    }

    fn class(&mut self, decorators: Vec<Expr>) -> Result<Stmt> {
        let start = self.expect(T::Class)?.span.start;
        let name = self.ident()?;
        let mut bases = Vec::new();
        if self.eat(T::LParen) {
            while self.peek() != T::RParen {
                // PyTorch reads only the bases: `metaclass=...` and the like are ignored.
                if self.peek() == T::Ident && self.peek_at(1) == T::Assign {
                    self.bump();
                    self.bump();
                    self.expr(0)?;
                } else {
                    bases.push(self.expr(0)?);
                }
                if !self.eat(T::Comma) {
                    break;
                }
            }
            self.expect(T::RParen)?;
        }
        let colon = self.expect(T::Colon)?;
        let header = Span::new(start, colon.span.end);
        let body = self.block(true)?;
        Ok(Stmt::new(
            StmtKind::Class(ClassDef {
                name,
                decorators,
                bases,
                body,
                span: header,
            }),
            self.span_from(start),
        ))
    }

    // ----- expressions -----

    /// `a`, or `a, b, *c` as a tuple (a trailing comma makes a tuple too).
    fn testlist_star(&mut self) -> Result<Expr> {
        let start = self.cur().span.start;
        let first = self.star_or_expr(0)?;
        if self.peek() != T::Comma {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(T::Comma) {
            if !can_start_expr(self.peek()) {
                break;
            }
            items.push(self.star_or_expr(0)?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), self.span_from(start)))
    }

    /// An expression, or `*expr` where a starred item may stand.
    fn star_or_expr(&mut self, min: u8) -> Result<Expr> {
        if self.peek() == T::Star {
            let start = self.bump().span.start;
            let inner = self.expr(CMP)?;
            return Ok(Expr::new(
                ExprKind::Starred(Box::new(inner)),
                self.span_from(start),
            ));
        }
        self.expr(min)
    }

    /// The longest expression whose operators bind tighter than `min` (0 parses everything).
    fn expr(&mut self, min: u8) -> Result<Expr> {
        let e = self.nested(|p| {
            let mut levels = 0;
            let r = p.expr_inner(min, &mut levels);
            p.depth -= levels;
            r
        })?;
        if self.peek() == T::Walrus {
            // `(y := x)`: frontend.py reports the NamedExpr at its start.
            return self.err(self.first_char(e.span.start), "NamedExpr aren't supported");
        }
        Ok(e)
    }

    fn expr_inner(&mut self, min: u8, levels: &mut u32) -> Result<Expr> {
        let t = self.cur();
        let start = t.span.start;
        let mut lhs = match t.kind {
            T::Lambda if min == 0 => return self.lambda(),
            T::Not if min <= NOT => {
                self.bump();
                let operand = self.expr(NOT)?;
                self.unary(UnaryOp::Not, operand, start)
            }
            T::Minus | T::Plus | T::Tilde => {
                self.bump();
                let operand = self.expr(UNARY)?;
                let op = match t.kind {
                    T::Minus => UnaryOp::Neg,
                    T::Plus => UnaryOp::Pos,
                    _ => UnaryOp::Invert,
                };
                self.unary(op, operand, start)
            }
            T::Star => return self.err(t.span, "can't use starred expression here"),
            T::Await | T::Yield => return self.unsupported_expr(t),
            _ => self.primary()?,
        };
        loop {
            let t = self.cur();
            let Some(level) = self.infix_level(t.kind) else {
                break;
            };
            if level <= min {
                break;
            }
            self.deepen(levels)?;
            lhs = match t.kind {
                T::If => {
                    self.bump();
                    let cond = self.expr(TERNARY)?;
                    self.expect(T::Else)?;
                    let otherwise = self.expr(0)?;
                    Expr::new(
                        ExprKind::IfExp {
                            cond: Box::new(cond),
                            then: Box::new(lhs),
                            otherwise: Box::new(otherwise),
                        },
                        self.span_from(start),
                    )
                }
                T::Or | T::And => {
                    self.bump();
                    let rhs = self.expr(level)?;
                    let op = if t.kind == T::Or {
                        BoolOp::Or
                    } else {
                        BoolOp::And
                    };
                    Expr::new(
                        ExprKind::BoolOp {
                            op,
                            lhs: Box::new(lhs),
                            rhs: Box::new(rhs),
                        },
                        self.span_from(start),
                    )
                }
                _ if level == CMP => self.comparison(lhs)?,
                _ => {
                    self.bump();
                    let op = binary_op(t.kind).expect("infix_level covers binary operators");
                    // `**` is right-associative, and its right side may be a unary expression.
                    let rhs = if op == BinOp::Pow {
                        self.expr(UNARY)?
                    } else {
                        self.expr(level)?
                    };
                    Expr::new(
                        ExprKind::BinOp {
                            op,
                            lhs: Box::new(lhs),
                            rhs: Box::new(rhs),
                        },
                        self.span_from(start),
                    )
                }
            };
        }
        Ok(lhs)
    }

    fn unary(&self, op: UnaryOp, operand: Expr, start: u32) -> Expr {
        Expr::new(
            ExprKind::UnaryOp {
                op,
                operand: Box::new(operand),
            },
            self.span_from(start),
        )
    }

    fn infix_level(&self, kind: TokenKind) -> Option<u8> {
        Some(match kind {
            T::If => TERNARY,
            T::Or => OR,
            T::And => AND,
            T::Not if self.peek_at(1) == T::In => CMP,
            T::Lt | T::Gt | T::Le | T::Ge | T::EqEq | T::NotEq | T::In | T::Is => CMP,
            T::Pipe => BIT_OR,
            T::Caret => BIT_XOR,
            T::Amp => BIT_AND,
            T::LShift | T::RShift => SHIFT,
            T::Plus | T::Minus => ARITH,
            T::Star | T::Slash | T::DoubleSlash | T::Percent | T::At => TERM,
            T::DoubleStar => POWER,
            _ => return None,
        })
    }

    /// A comparison chain `a < b <= c`, which Python's frontend rewrites to
    /// `a < b and b <= c` (evaluating `b` twice).
    fn comparison(&mut self, first: Expr) -> Result<Expr> {
        let mut operands = vec![first];
        let mut ops = Vec::new();
        let mut levels = 0;
        while let Some(op) = self.compare_op() {
            self.deepen(&mut levels)?;
            ops.push(op);
            operands.push(self.expr(CMP)?);
        }
        self.depth -= levels;
        // Middle operands are copied into two comparisons; nested chains in middle positions
        // would double the tree per level, so the copies are budgeted.
        for middle in &operands[1..operands.len() - 1] {
            self.copied_nodes += expr_size(middle, MAX_COPIED_NODES);
            if self.copied_nodes > MAX_COPIED_NODES {
                return self.err(
                    middle.span,
                    "comparison chains here are too large to expand",
                );
            }
        }
        let mut result: Option<Expr> = None;
        for (op, pair) in ops.into_iter().zip(operands.windows(2)) {
            let span = pair[0].span.to(pair[1].span);
            let cmp = Expr::new(
                ExprKind::Compare {
                    op,
                    lhs: Box::new(pair[0].clone()),
                    rhs: Box::new(pair[1].clone()),
                },
                span,
            );
            result = Some(match result {
                None => cmp,
                Some(prev) => {
                    let span = prev.span.to(span);
                    Expr::new(
                        ExprKind::BoolOp {
                            op: BoolOp::And,
                            lhs: Box::new(prev),
                            rhs: Box::new(cmp),
                        },
                        span,
                    )
                }
            });
        }
        Ok(result.expect("comparison is entered at a comparison operator"))
    }

    fn compare_op(&mut self) -> Option<CmpOp> {
        let op = match self.peek() {
            T::Lt => CmpOp::Lt,
            T::Gt => CmpOp::Gt,
            T::Le => CmpOp::Le,
            T::Ge => CmpOp::Ge,
            T::EqEq => CmpOp::Eq,
            T::NotEq => CmpOp::Ne,
            T::In => CmpOp::In,
            T::Not if self.peek_at(1) == T::In => {
                self.bump();
                CmpOp::NotIn
            }
            T::Is if self.peek_at(1) == T::Not => {
                self.bump();
                CmpOp::IsNot
            }
            T::Is => CmpOp::Is,
            _ => return None,
        };
        self.bump();
        Some(op)
    }

    fn lambda(&mut self) -> Result<Expr> {
        let start = self.expect(T::Lambda)?.span.start;
        let mut params = Vec::new();
        while self.peek() != T::Colon {
            params.push(self.ident()?);
            if !self.eat(T::Comma) {
                break;
            }
        }
        self.expect(T::Colon)?;
        let body = self.expr(0)?;
        Ok(Expr::new(
            ExprKind::Lambda {
                params,
                body: Box::new(body),
            },
            self.span_from(start),
        ))
    }

    /// An atom with its trailers: calls, attributes, subscripts.
    fn primary(&mut self) -> Result<Expr> {
        let mut levels = 0;
        let r = self.primary_inner(&mut levels);
        self.depth -= levels;
        r
    }

    fn primary_inner(&mut self, levels: &mut u32) -> Result<Expr> {
        let start = self.cur().span.start;
        let mut e = self.atom()?;
        loop {
            if matches!(self.peek(), T::Dot | T::LParen | T::LBracket) {
                self.deepen(levels)?;
            }
            match self.peek() {
                T::Dot => {
                    self.bump();
                    let attr = self.ident()?;
                    e = Expr::new(
                        ExprKind::Attribute {
                            value: Box::new(e),
                            attr,
                        },
                        self.span_from(start),
                    );
                }
                T::LParen => {
                    let (args, kwargs) = self.call_args()?;
                    e = Expr::new(
                        ExprKind::Call {
                            func: Box::new(e),
                            args,
                            kwargs,
                        },
                        self.span_from(start),
                    );
                }
                T::LBracket => {
                    let indices = self.subscript_indices()?;
                    e = Expr::new(
                        ExprKind::Subscript {
                            value: Box::new(e),
                            indices,
                        },
                        self.span_from(start),
                    );
                }
                _ => return Ok(e),
            }
        }
    }

    fn atom(&mut self) -> Result<Expr> {
        let t = self.cur();
        let simple = |kind| Ok(Expr::new(kind, t.span));
        match t.kind {
            // frontend.py reads the name `Ellipsis` as `...`.
            T::Ident if self.text(t) == "Ellipsis" => {
                self.bump();
                simple(ExprKind::Ellipsis)
            }
            T::Ident => {
                self.bump();
                simple(ExprKind::Name(self.text(t).to_string()))
            }
            T::Number => {
                self.bump();
                simple(match decode_number(self.text(t), t.span)? {
                    Number::Int(v) => ExprKind::Int(v),
                    Number::Float(v) => ExprKind::Float(v),
                    Number::Imaginary(v) => ExprKind::Imaginary(v),
                })
            }
            T::String | T::FString => self.strings(),
            T::True => {
                self.bump();
                simple(ExprKind::True)
            }
            T::False => {
                self.bump();
                simple(ExprKind::False)
            }
            T::None => {
                self.bump();
                simple(ExprKind::None)
            }
            T::Ellipsis => {
                self.bump();
                simple(ExprKind::Ellipsis)
            }
            T::LParen => self.paren(),
            T::LBracket => self.list_display(),
            T::LBrace => self.brace_display(),
            T::Await | T::Yield => self.unsupported_expr(t),
            _ => self.expected("an expression"),
        }
    }

    /// `yield`, `yield from`, `await`: Python expressions TorchScript refuses (frontend.py's
    /// words).
    fn unsupported_expr<R>(&self, t: Token) -> Result<R> {
        let what = match t.kind {
            T::Await => "Await",
            _ if self.peek_at(1) == T::From => "YieldFrom",
            _ => "Yield",
        };
        self.err(
            self.first_char(t.span.start),
            format!("{what} aren't supported"),
        )
    }

    /// `(...)`: the empty tuple, a parenthesized expression, a tuple, or a generator
    /// expression (which frontend.py turns into a list comprehension).
    fn paren(&mut self) -> Result<Expr> {
        let start = self.expect(T::LParen)?.span.start;
        if self.eat(T::RParen) {
            return Ok(Expr::new(
                ExprKind::Tuple(Vec::new()),
                self.span_from(start),
            ));
        }
        let first = self.star_or_expr(0)?;
        if self.peek() == T::For {
            let e = self.list_comp(first, start)?;
            self.expect(T::RParen)?;
            return Ok(Expr::new(e.kind, self.span_from(start)));
        }
        if self.peek() != T::Comma {
            self.expect(T::RParen)?;
            if let ExprKind::Starred(_) = first.kind {
                return self.err(first.span, "can't use starred expression here");
            }
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(T::Comma) {
            if self.peek() == T::RParen {
                break;
            }
            items.push(self.star_or_expr(0)?);
        }
        self.expect(T::RParen)?;
        Ok(Expr::new(ExprKind::Tuple(items), self.span_from(start)))
    }

    fn list_display(&mut self) -> Result<Expr> {
        let start = self.expect(T::LBracket)?.span.start;
        let mut items = Vec::new();
        while self.peek() != T::RBracket {
            let item = self.star_or_expr(0)?;
            if self.peek() == T::For {
                if !items.is_empty() {
                    return self.err(
                        self.cur().span,
                        "expected a single list comprehension within '[' , ']'",
                    );
                }
                let e = self.list_comp(item, start)?;
                self.expect(T::RBracket)?;
                return Ok(Expr::new(e.kind, self.span_from(start)));
            }
            items.push(item);
            if !self.eat(T::Comma) {
                break;
            }
        }
        self.expect(T::RBracket)?;
        Ok(Expr::new(ExprKind::List(items), self.span_from(start)))
    }

    /// `for target in iter [if cond]...` after the element of a comprehension.
    fn comp_clause(&mut self) -> Result<(Expr, Expr, Option<Expr>)> {
        self.expect(T::For)?;
        let target = self.target_list()?;
        self.expect(T::In)?;
        let iter = self.expr(TERNARY)?;
        let mut cond: Option<Expr> = None;
        let mut levels = 0;
        while self.eat(T::If) {
            self.deepen(&mut levels)?;
            let c = self.expr(TERNARY)?;
            cond = Some(match cond {
                None => c,
                Some(prev) => {
                    let span = prev.span.to(c.span);
                    Expr::new(
                        ExprKind::BoolOp {
                            op: BoolOp::And,
                            lhs: Box::new(prev),
                            rhs: Box::new(c),
                        },
                        span,
                    )
                }
            });
        }
        self.depth -= levels;
        if matches!(self.peek(), T::For | T::Async) {
            return self.err(
                self.cur().span,
                "Only a single generator is currently supported",
            );
        }
        Ok((target, iter, cond))
    }

    fn list_comp(&mut self, elt: Expr, start: u32) -> Result<Expr> {
        let (target, iter, cond) = self.comp_clause()?;
        Ok(Expr::new(
            ExprKind::ListComp {
                elt: Box::new(elt),
                target: Box::new(target),
                iter: Box::new(iter),
                cond: cond.map(Box::new),
            },
            self.span_from(start),
        ))
    }

    /// `{}`, `{k: v, ...}` or `{k: v for ...}`; sets are refused.
    fn brace_display(&mut self) -> Result<Expr> {
        let start = self.expect(T::LBrace)?.span.start;
        let mut entries = Vec::new();
        while self.peek() != T::RBrace {
            if self.peek() == T::DoubleStar {
                return self.err(
                    self.cur().span,
                    "Dict expansion (e.g. `{**dict}`) is not supported",
                );
            }
            let key = self.star_or_expr(0)?;
            if self.peek() != T::Colon {
                let what = if self.peek() == T::For {
                    "SetComp"
                } else {
                    "Set"
                };
                return self.err(self.first_char(start), format!("{what} aren't supported"));
            }
            self.bump();
            let value = self.expr(0)?;
            if self.peek() == T::For && entries.is_empty() {
                let (target, iter, cond) = self.comp_clause()?;
                self.expect(T::RBrace)?;
                return Ok(Expr::new(
                    ExprKind::DictComp {
                        key: Box::new(key),
                        value: Box::new(value),
                        target: Box::new(target),
                        iter: Box::new(iter),
                        cond: cond.map(Box::new),
                    },
                    self.span_from(start),
                ));
            }
            entries.push((key, value));
            if !self.eat(T::Comma) {
                break;
            }
        }
        self.expect(T::RBrace)?;
        Ok(Expr::new(ExprKind::Dict(entries), self.span_from(start)))
    }

    fn call_args(&mut self) -> Result<(Vec<Expr>, Vec<Keyword>)> {
        self.expect(T::LParen)?;
        let mut args = Vec::new();
        let mut kwargs: Vec<Keyword> = Vec::new();
        while self.peek() != T::RParen {
            let t = self.cur();
            if t.kind == T::DoubleStar {
                self.bump();
                let value = self.expr(0)?;
                return self.err(value.span, "keyword-arg expansion is not supported");
            }
            if t.kind == T::Ident && self.peek_at(1) == T::Assign {
                let name = self.ident()?;
                self.bump();
                let value = self.expr(0)?;
                if kwargs.iter().any(|k| k.name.name == name.name) {
                    return self.err(
                        name.span,
                        format!("keyword argument repeated: {}", name.name),
                    );
                }
                kwargs.push(Keyword { name, value });
            } else {
                let arg = self.star_or_expr(0)?;
                if self.peek() == T::For {
                    let start = arg.span.start;
                    let comp = self.list_comp(arg, start)?;
                    if !args.is_empty() || !kwargs.is_empty() || self.peek() != T::RParen {
                        return self.err(comp.span, "Generator expression must be parenthesized");
                    }
                    args.push(comp);
                    continue;
                }
                // Python takes `*args` after keyword arguments (`f(b=1, *a)`) as positional.
                if !kwargs.is_empty() && !matches!(arg.kind, ExprKind::Starred(_)) {
                    return self.err(arg.span, "positional argument follows keyword argument");
                }
                args.push(arg);
            }
            if !self.eat(T::Comma) {
                break;
            }
        }
        self.expect(T::RParen)?;
        Ok((args, kwargs))
    }

    /// `[i]`, `[i, j:k, ::2, ...]`: one expression per comma-separated index.
    fn subscript_indices(&mut self) -> Result<Vec<Expr>> {
        self.expect(T::LBracket)?;
        let mut indices = Vec::new();
        loop {
            indices.push(self.subscript_index()?);
            if !self.eat(T::Comma) || self.peek() == T::RBracket {
                break;
            }
        }
        self.expect(T::RBracket)?;
        Ok(indices)
    }

    fn subscript_index(&mut self) -> Result<Expr> {
        let start = self.cur().span.start;
        let ends_part = |k| matches!(k, T::Colon | T::Comma | T::RBracket);
        let first = if self.peek() == T::Colon {
            None
        } else {
            Some(self.star_or_expr(0)?)
        };
        if !self.eat(T::Colon) {
            return Ok(first.expect("an index without a colon has an expression"));
        }
        let end = if ends_part(self.peek()) {
            None
        } else {
            Some(self.expr(0)?)
        };
        let step = if self.eat(T::Colon) && !ends_part(self.peek()) {
            Some(self.expr(0)?)
        } else {
            None
        };
        Ok(Expr::new(
            ExprKind::Slice {
                start: first.map(Box::new),
                end: end.map(Box::new),
                step: step.map(Box::new),
            },
            self.span_from(start),
        ))
    }

    /// Adjacent string literals, concatenated. With an f-string among them the result is
    /// frontend.py's rewrite: `"<text with {} per field>".format(fields...)`.
    fn strings(&mut self) -> Result<Expr> {
        let start = self.cur().span.start;
        let mut value = String::new();
        let mut fields = Vec::new();
        let mut any_f = false;
        while matches!(self.peek(), T::String | T::FString) {
            let t = self.bump();
            let text = self.text(t);
            if t.kind == T::String {
                value.push_str(&decode_string(text, t.span)?);
            } else {
                any_f = true;
                self.fstring(text, t.span, &mut value, &mut fields)?;
            }
        }
        let span = self.span_from(start);
        let s = Expr::new(ExprKind::Str(value), span);
        if !any_f {
            return Ok(s);
        }
        Ok(Expr::new(
            ExprKind::Call {
                func: Box::new(Expr::new(
                    ExprKind::Attribute {
                        value: Box::new(s),
                        attr: Ident {
                            name: "format".into(),
                            span,
                        },
                    },
                    span,
                )),
                args: fields,
                kwargs: Vec::new(),
            },
            span,
        ))
    }

    /// Appends the text of one f-string to `out` with `{}` for each replacement field, whose
    /// expressions go to `fields`.
    fn fstring(
        &mut self,
        text: &str,
        span: Span,
        out: &mut String,
        fields: &mut Vec<Expr>,
    ) -> Result<()> {
        let parts = split_string(text);
        let base = span.start + parts.body_offset as u32;
        let body = parts.body;
        let bytes = body.as_bytes();
        let mut literal = String::new();
        let mut literal_start = 0;
        let mut i = 0;
        let flush = |literal: &mut String, at: usize, out: &mut String| -> Result<()> {
            if parts.raw {
                out.push_str(literal);
            } else {
                out.push_str(&unescape(literal, base + at as u32)?);
            }
            literal.clear();
            Ok(())
        };
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'{' && bytes.get(i + 1) == Some(&b'{') {
                literal.push('{');
                i += 2;
            } else if c == b'}' && bytes.get(i + 1) == Some(&b'}') {
                literal.push('}');
                i += 2;
            } else if c == b'}' {
                return self.err(
                    Span::new(base + i as u32, base + i as u32 + 1),
                    "f-string: single '}' is not allowed",
                );
            } else if c == b'{' {
                flush(&mut literal, literal_start, out)?;
                let field_start = i + 1;
                let field_end = fstring_field_end(bytes, field_start);
                let field_span = Span::new(base + field_start as u32, base + field_end as u32);
                match bytes.get(field_end) {
                    Some(b'}') => {}
                    Some(b'!') => {
                        return self.err(field_span, "Don't support conversion in JoinedStr")
                    }
                    Some(b':') => {
                        return self.err(field_span, "Don't support formatting in JoinedStr")
                    }
                    // `{x=}` is `x={x!r}` to Python's ast: a conversion.
                    Some(b'=') => {
                        return self.err(field_span, "Don't support conversion in JoinedStr")
                    }
                    _ => {
                        return self.err(
                            Span::new(base + i as u32, base + field_end as u32),
                            "f-string: expecting '}'",
                        )
                    }
                }
                if body[field_start..field_end].trim().is_empty() {
                    return self.err(field_span, "f-string: empty expression not allowed");
                }
                let e = self.sub_parse(field_span, |p| {
                    let e = p.testlist_star()?;
                    if p.peek() != T::Eof {
                        return p.expected("'}'");
                    }
                    Ok(e)
                })?;
                fields.push(e);
                out.push_str("{}");
                i = field_end + 1;
                literal_start = i;
            } else {
                let ch = body[i..].chars().next().unwrap_or('\u{fffd}');
                literal.push(ch);
                i += ch.len_utf8().max(1);
            }
        }
        flush(&mut literal, literal_start, out)
    }
}

/// Where an f-string replacement field's expression ends: at the `}`, `!`, `:` or `=` that is
/// outside brackets and strings (or at the end of the body).
fn fstring_field_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0u32;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' if depth > 0 => depth -= 1,
            b'}' => return i,
            b'\'' | b'"' => {
                let q = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    i += 1;
                }
            }
            b'!' if depth == 0 && bytes.get(i + 1) != Some(&b'=') => return i,
            b':' if depth == 0 => return i,
            b'=' if depth == 0
                && !matches!(bytes.get(i + 1), Some(b'='))
                && !matches!(
                    i.checked_sub(1).map(|j| bytes[j]),
                    Some(b'=' | b'!' | b'<' | b'>')
                ) =>
            {
                return i
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The number of nodes of `e`, counting no further than `limit`.
fn expr_size(e: &Expr, limit: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        count += 1;
        if count > limit {
            break;
        }
        match &e.kind {
            ExprKind::BinOp { lhs, rhs, .. }
            | ExprKind::Compare { lhs, rhs, .. }
            | ExprKind::BoolOp { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            ExprKind::UnaryOp { operand: v, .. }
            | ExprKind::Starred(v)
            | ExprKind::Attribute { value: v, .. } => stack.push(v),
            ExprKind::IfExp {
                cond,
                then,
                otherwise,
            } => stack.extend([&**cond, &**then, &**otherwise]),
            ExprKind::Call { func, args, kwargs } => {
                stack.push(func);
                stack.extend(args);
                stack.extend(kwargs.iter().map(|k| &k.value));
            }
            ExprKind::Subscript { value, indices } => {
                stack.push(value);
                stack.extend(indices);
            }
            ExprKind::Slice { start, end, step } => {
                stack.extend([start, end, step].into_iter().flatten().map(|b| &**b))
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => stack.extend(items),
            ExprKind::Dict(entries) => {
                for (k, v) in entries {
                    stack.push(k);
                    stack.push(v);
                }
            }
            ExprKind::ListComp {
                elt,
                target,
                iter,
                cond,
            } => {
                stack.extend([&**elt, &**target, &**iter]);
                stack.extend(cond.as_deref());
            }
            ExprKind::DictComp {
                key,
                value,
                target,
                iter,
                cond,
            } => {
                stack.extend([&**key, &**value, &**target, &**iter]);
                stack.extend(cond.as_deref());
            }
            ExprKind::Lambda { body, .. } => stack.push(body),
            ExprKind::Name(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Imaginary(_)
            | ExprKind::Str(_)
            | ExprKind::True
            | ExprKind::False
            | ExprKind::None
            | ExprKind::Ellipsis => {}
        }
    }
    count
}

fn can_start_expr(kind: TokenKind) -> bool {
    matches!(
        kind,
        T::Ident
            | T::Number
            | T::String
            | T::FString
            | T::True
            | T::False
            | T::None
            | T::Ellipsis
            | T::LParen
            | T::LBracket
            | T::LBrace
            | T::Minus
            | T::Plus
            | T::Tilde
            | T::Not
            | T::Lambda
            | T::Star
            | T::Await
            | T::Yield
    )
}

fn binary_op(kind: TokenKind) -> Option<BinOp> {
    Some(match kind {
        T::Plus => BinOp::Add,
        T::Minus => BinOp::Sub,
        T::Star => BinOp::Mul,
        T::Slash => BinOp::Div,
        T::DoubleSlash => BinOp::FloorDiv,
        T::Percent => BinOp::Mod,
        T::DoubleStar => BinOp::Pow,
        T::At => BinOp::MatMul,
        T::LShift => BinOp::LShift,
        T::RShift => BinOp::RShift,
        T::Amp => BinOp::BitAnd,
        T::Pipe => BinOp::BitOr,
        T::Caret => BinOp::BitXor,
        _ => return None,
    })
}

fn aug_assign_op(kind: TokenKind) -> Option<BinOp> {
    Some(match kind {
        T::PlusEq => BinOp::Add,
        T::MinusEq => BinOp::Sub,
        T::StarEq => BinOp::Mul,
        T::SlashEq => BinOp::Div,
        T::DoubleSlashEq => BinOp::FloorDiv,
        T::PercentEq => BinOp::Mod,
        T::DoubleStarEq => BinOp::Pow,
        T::AtEq => BinOp::MatMul,
        T::LShiftEq => BinOp::LShift,
        T::RShiftEq => BinOp::RShift,
        T::AmpEq => BinOp::BitAnd,
        T::PipeEq => BinOp::BitOr,
        T::CaretEq => BinOp::BitXor,
        _ => return None,
    })
}

/// What an expression is, for "cannot assign to ..." messages (Python's wording).
fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Name(_) => "name",
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imaginary(_) | ExprKind::Str(_) => {
            "literal"
        }
        ExprKind::True => "True",
        ExprKind::False => "False",
        ExprKind::None => "None",
        ExprKind::Ellipsis => "ellipsis",
        ExprKind::BinOp { .. } | ExprKind::UnaryOp { .. } | ExprKind::BoolOp { .. } => "expression",
        ExprKind::Compare { .. } => "comparison",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::Call { .. } => "function call",
        ExprKind::Attribute { .. } => "attribute",
        ExprKind::Subscript { .. } => "subscript",
        ExprKind::Slice { .. } => "slice",
        ExprKind::Starred(_) => "starred",
        ExprKind::List(_) => "list",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::Dict(_) => "dict literal",
        ExprKind::ListComp { .. } => "list comprehension",
        ExprKind::DictComp { .. } => "dict comprehension",
        ExprKind::Lambda { .. } => "lambda",
    }
}
