//! The syntax tree of TorchScript source, as the parser produces it and the IR emitter reads it.
//!
//! PyTorch keeps one generic `Tree` (a kind, a source range, subtrees) and reads it through typed
//! views (`Def`, `If`, `Apply`, ...; torch/csrc/jit/frontend/tree_views.h). In Rust the typed
//! views are the enums themselves; every node carries the [`Span`] of the text it came from, so
//! any diagnostic can highlight it.

use super::span::Span;

/// A name with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole source file: its top-level statements (imports, defs, classes, assignments).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceModule {
    pub body: Vec<Stmt>,
}

/// `def name(params) -> ret: body`.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub name: Ident,
    pub decorators: Vec<Expr>,
    pub params: Vec<Param>,
    /// The `-> T` annotation, or the return type of a `# type: (...) -> T` comment.
    pub return_type: Option<Expr>,
    pub body: Vec<Stmt>,
    /// The span of the `def` header (from `def` to the colon), for messages about the signature.
    pub span: Span,
}

/// One parameter of a `def`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    /// `x: T`, or the matching entry of a `# type:` comment.
    pub annotation: Option<Expr>,
    pub default: Option<Expr>,
    /// Declared after a bare `*`.
    pub kwarg_only: bool,
    pub span: Span,
}

/// `class Name(bases): body`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: Ident,
    pub decorators: Vec<Expr>,
    pub bases: Vec<Expr>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// `import a.b as c` (one entry per imported name) or `from a.b import c as d, e`.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// The module path after `from`, or `None` for a plain `import`.
    pub from: Option<Vec<Ident>>,
    pub names: Vec<ImportName>,
    pub span: Span,
}

/// One imported name: a dotted path with an optional `as` alias (`*` is a path of one `*`).
#[derive(Clone, Debug, PartialEq)]
pub struct ImportName {
    pub path: Vec<Ident>,
    pub alias: Option<Ident>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `a = b = value`, `a: T = value`, `a: T` (no value), tuple targets `a, (b, c) = ...`.
    /// Several targets for chained assignment; the annotation only with a single target.
    Assign {
        targets: Vec<Expr>,
        annotation: Option<Expr>,
        value: Option<Expr>,
    },
    /// `target op= value`.
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// An expression evaluated for its effect (a call, or a docstring).
    Expr(Expr),
    If {
        cond: Expr,
        then_body: Vec<Stmt>,
        /// `elif` arrives as a single nested `If` statement here, as Python's AST has it.
        else_body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `for targets in iters: body`; `for a, b in zip(x, y)` has one tuple target.
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
    },
    Return(Option<Expr>),
    Raise(Option<Expr>),
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `with a as x, b: body`.
    With {
        items: Vec<WithItem>,
        body: Vec<Stmt>,
    },
    Delete(Vec<Expr>),
    Pass,
    Break,
    Continue,
    /// `global x` (TorchScript refuses it; parsed so the emitter can say so).
    Global(Vec<Ident>),
    Def(Def),
    Class(ClassDef),
    Import(Import),
}

#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    pub context: Expr,
    pub target: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    /// An integer literal; values beyond i64 are kept as written so the emitter can report them.
    Int(i128),
    Float(f64),
    /// `3j`: the imaginary part.
    Imaginary(f64),
    /// Adjacent string literals, already concatenated and unescaped. An f-string arrives as
    /// frontend.py rewrites it: `"a{}b".format(x)`, a `Call` of the `format` attribute.
    Str(String),
    True,
    False,
    None,
    /// `...`
    Ellipsis,
    BinOp {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `a < b`, `a is not b`, `a in b`. A chain `a < b < c` arrives as `a < b and b < c` (a
    /// `BoolOp` with `b` copied), as torch/jit/frontend.py rewrites it.
    Compare {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a and b`, `a or b`.
    BoolOp {
        op: BoolOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `then if cond else otherwise`.
    IfExp {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<Keyword>,
    },
    Attribute {
        value: Box<Expr>,
        attr: Ident,
    },
    /// `value[i]`, `value[i, j:k]`: one entry per comma-separated index.
    Subscript {
        value: Box<Expr>,
        indices: Vec<Expr>,
    },
    /// `start:end:step` inside a subscript.
    Slice {
        start: Option<Box<Expr>>,
        end: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    /// `*value` in a call, a target list or a literal.
    Starred(Box<Expr>),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// `[elt for target in iter if cond]` (TorchScript allows one `for` clause).
    ListComp {
        elt: Box<Expr>,
        target: Box<Expr>,
        iter: Box<Expr>,
        cond: Option<Box<Expr>>,
    },
    /// `{key: value for target in iter if cond}`.
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        target: Box<Expr>,
        iter: Box<Expr>,
        cond: Option<Box<Expr>>,
    },
    /// `lambda params: body` (parsed to be refused with a clear message).
    Lambda {
        params: Vec<Ident>,
        body: Box<Expr>,
    },
}

/// `name=value` in a call.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    pub name: Ident,
    pub value: Expr,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    LShift,
    RShift,
    BitAnd,
    BitOr,
    BitXor,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Pos,
    Not,
    Invert,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Is,
    IsNot,
    In,
    NotIn,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

impl BinOp {
    /// The operator as written (`+`, `//`, `@`).
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            FloorDiv => "//",
            Mod => "%",
            Pow => "**",
            MatMul => "@",
            LShift => "<<",
            RShift => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
        }
    }
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        use CmpOp::*;
        match self {
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Is => "is",
            IsNot => "is not",
            In => "in",
            NotIn => "not in",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}

impl Stmt {
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt { kind, span }
    }
}
