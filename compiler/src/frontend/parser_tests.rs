//! Parser tests: source in, the AST dump (or the rendered error) out.

use expect_test::{expect, Expect};

use super::ast::*;
use super::ast_dump::{dump_expr, dump_module};
use super::parser::{parse_expr, parse_module};
use super::span::SourceFile;

fn parse(src: &str) -> String {
    let file = SourceFile::new("t.py", src);
    match parse_module(&file) {
        Ok(m) => dump_module(&m),
        Err(e) => e.render(&file),
    }
}

fn check(src: &str, expected: Expect) {
    expected.assert_eq(&parse(src));
}

/// Each line of `src` is parsed as an expression statement; one dump per line.
fn check_exprs(src: &str, expected: Expect) {
    let mut out = String::new();
    for l in src.lines().map(str::trim).filter(|l| !l.is_empty()) {
        out.push_str(l);
        out.push_str("  =>  ");
        out.push_str(parse(&format!("{l}\n")).trim_end());
        out.push('\n');
    }
    expected.assert_eq(&out);
}

#[test]
fn precedence() {
    check_exprs(
        r#"
        a + b * c - d
        a - b - c
        -2**2
        2**-1
        2**3**2
        -a * b
        a ** b * c
        not a == b
        not a and b or c
        a or b and c
        a | b ^ c & d << e + f
        a < b
        a < b <= c
        a is not b
        a not in b
        a in b
        a is b != c
        x if c else y if d else z
        a or b if c else d
        ~a // b % c @ d / e
        a >> 1 << 2
        lambda: 0
        lambda x, y: x + y if x else y
        not not a
        - - a
        (a + b) * c
        "#,
        expect![[r#"
            a + b * c - d  =>  (- (+ a (* b c)) d)
            a - b - c  =>  (- (- a b) c)
            -2**2  =>  (neg (** 2 2))
            2**-1  =>  (** 2 (neg 1))
            2**3**2  =>  (** 2 (** 3 2))
            -a * b  =>  (* (neg a) b)
            a ** b * c  =>  (* (** a b) c)
            not a == b  =>  (not (== a b))
            not a and b or c  =>  (or (and (not a) b) c)
            a or b and c  =>  (or a (and b c))
            a | b ^ c & d << e + f  =>  (| a (^ b (& c (<< d (+ e f)))))
            a < b  =>  (< a b)
            a < b <= c  =>  (and (< a b) (<= b c))
            a is not b  =>  (is-not a b)
            a not in b  =>  (not-in a b)
            a in b  =>  (in a b)
            a is b != c  =>  (and (is a b) (!= b c))
            x if c else y if d else z  =>  (if c x (if d y z))
            a or b if c else d  =>  (if c (or a b) d)
            ~a // b % c @ d / e  =>  (/ (@ (% (// (~ a) b) c) d) e)
            a >> 1 << 2  =>  (<< (>> a 1) 2)
            lambda: 0  =>  (lambda () 0)
            lambda x, y: x + y if x else y  =>  (lambda (x y) (if x (+ x y) y))
            not not a  =>  (not (not a))
            - - a  =>  (neg (neg a))
            (a + b) * c  =>  (* (+ a b) c)
        "#]],
    );
}

#[test]
fn atoms_and_trailers() {
    check_exprs(
        r#"
        f(a, b, c=1, d=x + y)
        f(*args, k=v)
        f()
        f(a,)
        torch.nn.functional.relu(x)
        x[0]
        x[1:2]
        x[:, 1:]
        x[::2, ..., None]
        x[a:b:c]
        x[:-1]
        x[1:2,]
        a.b[c](d).e
        [1, 2, 3]
        []
        [x,]
        (1,)
        ()
        (1, 2)
        {}
        {"a": 1, "b": 2,}
        [x * 2 for x in xs]
        [x for x in xs if x > 0]
        [a + b for a, b in zip(x, y)]
        {k: v for k, v in d.items()}
        sum(x for x in xs)
        (x for x in xs)
        [*a, *b]
        None
        True
        False
        ...
        x[Ellipsis, 0]
        1.5
        1e-3
        3j
        0xff
        "abc" 'def'
        """doc"""
        r"\d+"
        "tab\there"
        "#,
        expect![[r#"
            f(a, b, c=1, d=x + y)  =>  (call f a b c=1 d=(+ x y))
            f(*args, k=v)  =>  (call f (* args) k=v)
            f()  =>  (call f)
            f(a,)  =>  (call f a)
            torch.nn.functional.relu(x)  =>  (call (. (. (. torch nn) functional) relu) x)
            x[0]  =>  (sub x 0)
            x[1:2]  =>  (sub x (slice 1 2 _))
            x[:, 1:]  =>  (sub x (slice _ _ _) (slice 1 _ _))
            x[::2, ..., None]  =>  (sub x (slice _ _ 2) ... None)
            x[a:b:c]  =>  (sub x (slice a b c))
            x[:-1]  =>  (sub x (slice _ (neg 1) _))
            x[1:2,]  =>  (sub x (slice 1 2 _))
            a.b[c](d).e  =>  (. (call (sub (. a b) c) d) e)
            [1, 2, 3]  =>  (list 1 2 3)
            []  =>  (list)
            [x,]  =>  (list x)
            (1,)  =>  (tuple 1)
            ()  =>  (tuple)
            (1, 2)  =>  (tuple 1 2)
            {}  =>  (dict)
            {"a": 1, "b": 2,}  =>  (dict ("a" 1) ("b" 2))
            [x * 2 for x in xs]  =>  (listcomp (* x 2) for x in xs)
            [x for x in xs if x > 0]  =>  (listcomp x for x in xs if (> x 0))
            [a + b for a, b in zip(x, y)]  =>  (listcomp (+ a b) for (tuple a b) in (call zip x y))
            {k: v for k, v in d.items()}  =>  (dictcomp k v for (tuple k v) in (call (. d items)))
            sum(x for x in xs)  =>  (call sum (listcomp x for x in xs))
            (x for x in xs)  =>  (listcomp x for x in xs)
            [*a, *b]  =>  (list (* a) (* b))
            None  =>  None
            True  =>  True
            False  =>  False
            ...  =>  ...
            x[Ellipsis, 0]  =>  (sub x ... 0)
            1.5  =>  1.5
            1e-3  =>  0.001
            3j  =>  3.0j
            0xff  =>  255
            "abc" 'def'  =>  "abcdef"
            """doc"""  =>  "doc"
            r"\d+"  =>  "\\d+"
            "tab\there"  =>  "tab\there"
        "#]],
    );
}

#[test]
fn fstrings() {
    check_exprs(
        r#"
        f"a{x}b{y + 1}"
        f"{x}" "plain" f'{d["k"]}'
        f"{{literal}} {x!r}"
        f"{x:>10}"
        f"{}"
        f"{x"
        f"a}"
        "#,
        expect![[r#"
            f"a{x}b{y + 1}"  =>  (call (. "a{}b{}" format) x (+ y 1))
            f"{x}" "plain" f'{d["k"]}'  =>  (call (. "{}plain{}" format) x (sub d "k"))
            f"{{literal}} {x!r}"  =>  t.py:1:16: error: Don't support conversion in JoinedStr
            f"{{literal}} {x!r}"
                           ~ <--- HERE
            f"{x:>10}"  =>  t.py:1:4: error: Don't support formatting in JoinedStr
            f"{x:>10}"
               ~ <--- HERE
            f"{}"  =>  t.py:1:4: error: f-string: empty expression not allowed
            f"{}"
               ~ <--- HERE
            f"{x"  =>  t.py:1:3: error: f-string: expecting '}'
            f"{x"
              ~~ <--- HERE
            f"a}"  =>  t.py:1:4: error: f-string: single '}' is not allowed
            f"a}"
               ~ <--- HERE
        "#]],
    );
}

#[test]
fn statements() {
    check(
        r#"
import torch
import torch.nn.functional as F, math
from typing import List, Optional as Opt
from torch import (Tensor,
    nn,)
from m import *

@torch.jit.script
def f(x: Tensor, y: int = 2, *, z: Optional[float] = None) -> Tuple[Tensor, int]:
    """Docstring."""
    a = b = x + 1
    c: List[int] = []
    d: int
    a, (b, *c) = foo()
    e, = t
    self.w[0] += 1
    x //= 2
    x @= w
    x **= 2
    if a:
        pass
    elif b:
        return
    elif c:
        raise ValueError("no")
    else:
        raise
    while x < 10:
        x += 1
        if x == 5: break
        continue
    for i in range(10):
        print(i, end="")
    for a, b in zip(x, y):
        pass
    with torch.no_grad() as g, lock:
        del d[0], e
    with (open(a) as f, open(b) as g,):
        pass
    with (a):
        pass
    with (a, b) as c:
        pass
    assert x > 0, "positive"
    assert x
    global counter
    return x, y
"#,
        expect![[r#"
            import torch
            import torch.nn.functional as F, math
            from typing import List, Optional as Opt
            from torch import Tensor, nn
            from m import *
            @(. (. torch jit) script)
            def f(x: Tensor, y: int = 2, *, z: (sub Optional float) = None) -> (sub Tuple Tensor int)
              "Docstring."
              a = b = (+ x 1)
              c: (sub List int) = (list)
              d: int
              (tuple a (tuple b (* c))) = (call foo)
              (tuple e) = t
              (sub (. self w) 0) += 1
              x //= 2
              x @= w
              x **= 2
              if a
                pass
              else
                if b
                  return
                else
                  if c
                    raise (call ValueError "no")
                  else
                    raise
              while (< x 10)
                x += 1
                if (== x 5)
                  break
                continue
              for i in (call range 10)
                (call print i end="")
              for (tuple a b) in (call zip x y)
                pass
              with (call (. torch no_grad)) as g, lock
                del (sub d 0), e
              with (call open a) as f, (call open b) as g
                pass
              with a
                pass
              with (tuple a b) as c
                pass
              assert (> x 0), "positive"
              assert x
              global counter
              return (tuple x y)
        "#]],
    );
}

#[test]
fn classes() {
    check(
        r#"
class Point(NamedTuple):
    x: int
    y: float = 0.0

@torch.jit.interface
class I(object):
    def forward(self, x: Tensor) -> Tensor:
        pass

class M(torch.nn.Module):
    __constants__ = ["k"]
    def __init__(self):
        super().__init__()
        self.k = 3

    @property
    def size(self) -> int:
        return self.k

    @torch.jit.export
    def g(self, x): return x * self.k

class Empty: pass
"#,
        expect![[r#"
            class Point(NamedTuple)
              x: int
              y: float = 0.0
            @(. (. torch jit) interface)
            class I(object)
              def forward(self, x: Tensor) -> Tensor
                pass
            class M((. (. torch nn) Module))
              __constants__ = (list "k")
              def __init__(self)
                (call (. (call super) __init__))
                (. self k) = 3
              @property
              def size(self) -> int
                return (. self k)
              @(. (. torch jit) export)
              def g(self, x)
                return (* x (. self k))
            class Empty()
              pass
        "#]],
    );
}

/// What `torch.jit.save` writes to an archive's code/ folder (python_print's output).
#[test]
fn python_printed_code() {
    check(
        r#"class M(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Optional[Tensor]
  training : bool
  _is_full_backward_hook : Optional[bool]
  sub : __torch__.torch.nn.modules.linear.___torch_mangle_0.Linear
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    _0 = self.sub
    weight = self.weight
    _1 = ops.prim.NumToTensor(torch.size(x, 0))
    _2 = torch.add(torch.matmul(x, weight), CONSTANTS.c0, alpha=2)
    xs = annotate(List[int], [])
    y = uninitialized(Tensor)
    if torch.eq(int(_1), 1):
      y0 = torch.neg(x)
    else:
      y0 = x
    _3, _4, = (_2, y0)
    return (_0).forward(_3, )
  def other(self: __torch__.M) -> Tuple[int, float]:
    __annotations__["x"] = List[int]
    return (1, 1.0000000000000001e-05)
"#,
        expect![[r#"
            class M(Module)
              __parameters__ = (list "weight" "bias")
              __buffers__ = (list)
              weight: Tensor
              bias: (sub Optional Tensor)
              training: bool
              _is_full_backward_hook: (sub Optional bool)
              sub: (. (. (. (. (. (. __torch__ torch) nn) modules) linear) ___torch_mangle_0) Linear)
              def forward(self: (. __torch__ M), x: Tensor) -> Tensor
                _0 = (. self sub)
                weight = (. self weight)
                _1 = (call (. (. ops prim) NumToTensor) (call (. torch size) x 0))
                _2 = (call (. torch add) (call (. torch matmul) x weight) (. CONSTANTS c0) alpha=2)
                xs = (call annotate (sub List int) (list))
                y = (call uninitialized Tensor)
                if (call (. torch eq) (call int _1) 1)
                  y0 = (call (. torch neg) x)
                else
                  y0 = x
                (tuple _3 _4) = (tuple _2 y0)
                return (call (. _0 forward) _3)
              def other(self: (. __torch__ M)) -> (sub Tuple int float)
                (sub __annotations__ "x") = (sub List int)
                return (tuple 1 1e-5)
        "#]],
    );
}

#[test]
fn type_comments() {
    check(
        r#"
def f(x, y):
    # type: (int, List[int]) -> Tuple[int, int]
    z = []  # type: List[int]
    w = 1  # type: ignore
    return x, y

def g(a):  # type: (float) -> float
    return a

class C:
    def m(self, a):
        # type: (int) -> None
        pass

def long_form(a,  # type: int
              b,  # type: List[float]
              ):
    # type: (...) -> float
    return b[a]
"#,
        expect![[r#"
            def f(x: int, y: (sub List int)) -> (sub Tuple int int)
              z: (sub List int) = (list)
              w = 1
              return (tuple x y)
            def g(a: float) -> float
              return a
            class C()
              def m(self, a: int) -> None
                pass
            def long_form(a: int, b: (sub List float)) -> float
              return (sub b a)
        "#]],
    );
    check(
        "def f(x, y):\n    # type: (int) -> int\n    return x\n",
        expect![[r#"
            t.py:1:1: error: Number of type annotations (1) did not match the number of function parameters (2)
            def f(x, y):
            ~~~~~~~~~~~~ <--- HERE"#]],
    );
}

#[test]
fn layout_variants() {
    // Line continuations, brackets over several lines, `;`, one-line bodies, comments.
    check(
        "x = 1 + \\\n    2\ny = [1,\n  2,\n      3]  # comment\na = 1; b = 2;\nif a: b = 3; c = 4\nwhile x: x -= 1\n",
        expect![[r#"
            x = (+ 1 2)
            y = (list 1 2 3)
            a = 1
            b = 2
            if a
              b = 3
              c = 4
            while x
              x -= 1
        "#]],
    );
    // A file indented as a whole (PyTorch accepts it), with no final newline.
    check(
        "    def f():\n        return 1",
        expect![[r#"
            def f()
              return 1
        "#]],
    );
}

#[test]
fn errors() {
    let cases = [
        "def f(x)\n    return x\n",
        "def f(x):\nreturn x\n",
        "x = 1\n    y = 2\n",
        "if x:\n        a\n    b\n",
        "x = (1, 2\n",
        "x = )\n",
        "f(a=1, b)\n",
        "f(a=1, a=2)\n",
        "f(**kw)\n",
        "f(x for x in y, 1)\n",
        "def f(*args): pass\n",
        "def f(**kw): pass\n",
        "def f(a=1, b): pass\n",
        "def f(a, a): pass\n",
        "f() = 1\n",
        "a + b = 1\n",
        "1 = x\n",
        "a, b += 1\n",
        "f() += 1\n",
        "a, b: int = 1, 2\n",
        "a: int = b = 1\n",
        "*a = b\n",
        "a, *b, *c = d\n",
        "x = {1, 2}\n",
        "x = {**a}\n",
        "x = [y for y in a for z in b]\n",
        "[1, x for x in y]\n",
        "try:\n    pass\n",
        "async def f(): pass\n",
        "while x:\n    pass\nelse:\n    pass\n",
        "for x in y:\n    pass\nelse:\n    pass\n",
        "nonlocal x\n",
        "from . import x\n",
        "x = yield\n",
        "x = a == not b\n",
        "x = a or lambda: 1\n",
        "@dec\nx = 1\n",
        "x = 1 2\n",
        "return *a\n",
        "x = 'abc\n",
        "x = 00\ny = 012\n",
        "x = 1__0\n",
        "x = 3 if y\n",
        "del f()\n",
        "x[]\n",
        "x = (*a)\n",
        "x = [1,\n  (2,\n",
        "def f():\n    # type: (int) -> int\n    return 1\n",
        "x = []  # type: List[\n",
        "class C:\n    def m(self, a):  # type: (int, int) -> None\n        pass\n",
        "def f(a):  # type: (int) -> int extra\n    pass\n",
        "@dec\nasync def f(): pass\n",
        "a + b: int\n",
        "def f(*, *, a): pass\n",
        "x = await y\n",
        "x = f\"{y=}\"\n",
        "x = '\\U00110000'\n",
        "x = 1 +\n",
        "(x := 1)\n",
        "if (y := f(x)) > 2: pass\n",
        "x = {i for i in y}\n",
        "def g():\n    yield from x\n",
        "async for x in y: pass\n",
        "async with x: pass\n",
    ];
    let mut out = String::new();
    for src in cases {
        out.push_str(&format!("{src:?}\n{}\n\n", parse(src)));
    }
    expect![[r#"
        "def f(x)\n    return x\n"
        t.py:1:9: error: expected ':' but found 'newline' here
        def f(x)
                ~ <--- HERE

        "def f(x):\nreturn x\n"
        t.py:2:1: error: expected an indented block but found 'return' here
        return x
        ~~~~~~ <--- HERE

        "x = 1\n    y = 2\n"
        t.py:2:1: error: unexpected indent
            y = 2
        ~~~~ <--- HERE

        "if x:\n        a\n    b\n"
        t.py:3:1: error: unindent does not match any outer indentation level
            b
        ~~~~ <--- HERE

        "x = (1, 2\n"
        t.py:1:5: error: '(' was never closed
        x = (1, 2
            ~ <--- HERE

        "x = )\n"
        t.py:1:5: error: expected an expression but found ')' here
        x = )
            ~ <--- HERE

        "f(a=1, b)\n"
        t.py:1:8: error: positional argument follows keyword argument
        f(a=1, b)
               ~ <--- HERE

        "f(a=1, a=2)\n"
        t.py:1:8: error: keyword argument repeated: a
        f(a=1, a=2)
               ~ <--- HERE

        "f(**kw)\n"
        t.py:1:5: error: keyword-arg expansion is not supported
        f(**kw)
            ~~ <--- HERE

        "f(x for x in y, 1)\n"
        t.py:1:3: error: Generator expression must be parenthesized
        f(x for x in y, 1)
          ~~~~~~~~~~~~ <--- HERE

        "def f(*args): pass\n"
        t.py:1:7: error: Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults
        def f(*args): pass
              ~~~~~ <--- HERE

        "def f(**kw): pass\n"
        t.py:1:7: error: Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults
        def f(**kw): pass
              ~~~~ <--- HERE

        "def f(a=1, b): pass\n"
        t.py:1:12: error: non-default argument follows default argument
        def f(a=1, b): pass
                   ~ <--- HERE

        "def f(a, a): pass\n"
        t.py:1:10: error: duplicate argument 'a' in function definition
        def f(a, a): pass
                 ~ <--- HERE

        "f() = 1\n"
        t.py:1:1: error: cannot assign to function call
        f() = 1
        ~~~ <--- HERE

        "a + b = 1\n"
        t.py:1:1: error: cannot assign to expression
        a + b = 1
        ~~~~~ <--- HERE

        "1 = x\n"
        t.py:1:1: error: cannot assign to literal
        1 = x
        ~ <--- HERE

        "a, b += 1\n"
        t.py:1:1: error: 'tuple' is an illegal expression for augmented assignment
        a, b += 1
        ~~~~ <--- HERE

        "f() += 1\n"
        t.py:1:1: error: 'function call' is an illegal expression for augmented assignment
        f() += 1
        ~~~ <--- HERE

        "a, b: int = 1, 2\n"
        t.py:1:1: error: only single target (not tuple) can be annotated
        a, b: int = 1, 2
        ~~~~ <--- HERE

        "a: int = b = 1\n"
        t.py:1:12: error: Annotated multiple assignment is not supported in python
        a: int = b = 1
                   ~ <--- HERE

        "*a = b\n"
        t.py:1:1: error: starred assignment target must be in a list or tuple
        *a = b
        ~~ <--- HERE

        "a, *b, *c = d\n"
        t.py:1:8: error: multiple starred expressions in assignment
        a, *b, *c = d
               ~~ <--- HERE

        "x = {1, 2}\n"
        t.py:1:5: error: Set aren't supported
        x = {1, 2}
            ~ <--- HERE

        "x = {**a}\n"
        t.py:1:6: error: Dict expansion (e.g. `{**dict}`) is not supported
        x = {**a}
             ~~ <--- HERE

        "x = [y for y in a for z in b]\n"
        t.py:1:19: error: Only a single generator is currently supported
        x = [y for y in a for z in b]
                          ~~~ <--- HERE

        "[1, x for x in y]\n"
        t.py:1:7: error: expected a single list comprehension within '[' , ']'
        [1, x for x in y]
              ~~~ <--- HERE

        "try:\n    pass\n"
        t.py:1:1: error: try blocks aren't supported
        try:
        ~~~ <--- HERE

        "async def f(): pass\n"
        t.py:1:1: error: async function definitions aren't supported
        async def f(): pass
        ~~~~~ <--- HERE

        "while x:\n    pass\nelse:\n    pass\n"
        t.py:3:1: error: else branches of while loops aren't supported
        else:
        ~~~~ <--- HERE

        "for x in y:\n    pass\nelse:\n    pass\n"
        t.py:1:1: error: else branches of for loops aren't supported
        for x in y:
        ~~~ <--- HERE

        "nonlocal x\n"
        t.py:1:1: error: nonlocal variables aren't supported
        nonlocal x
        ~~~~~~~~ <--- HERE

        "from . import x\n"
        t.py:1:6: error: relative imports are not supported
        from . import x
             ~ <--- HERE

        "x = yield\n"
        t.py:1:5: error: Yield aren't supported
        x = yield
            ~ <--- HERE

        "x = a == not b\n"
        t.py:1:10: error: expected an expression but found 'not' here
        x = a == not b
                 ~~~ <--- HERE

        "x = a or lambda: 1\n"
        t.py:1:10: error: expected an expression but found 'lambda' here
        x = a or lambda: 1
                 ~~~~~~ <--- HERE

        "@dec\nx = 1\n"
        t.py:2:1: error: expected 'def' or 'class' after a decorator but found 'ident' here
        x = 1
        ~ <--- HERE

        "x = 1 2\n"
        t.py:1:7: error: expected 'newline' but found 'number' here
        x = 1 2
              ~ <--- HERE

        "return *a\n"
        t.py:1:8: error: can't use starred expression here
        return *a
               ~~ <--- HERE

        "x = 'abc\n"
        t.py:1:5: error: unterminated string literal
        x = 'abc
            ~~~~ <--- HERE

        "x = 00\ny = 012\n"
        t.py:2:5: error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers
        y = 012
            ~~~ <--- HERE

        "x = 1__0\n"
        t.py:1:5: error: invalid number literal '1__0'
        x = 1__0
            ~~~~ <--- HERE

        "x = 3 if y\n"
        t.py:1:11: error: expected 'else' but found 'newline' here
        x = 3 if y
                  ~ <--- HERE

        "del f()\n"
        t.py:1:5: error: cannot delete function call
        del f()
            ~~~ <--- HERE

        "x[]\n"
        t.py:1:3: error: expected an expression but found ']' here
        x[]
          ~ <--- HERE

        "x = (*a)\n"
        t.py:1:6: error: can't use starred expression here
        x = (*a)
             ~~ <--- HERE

        "x = [1,\n  (2,\n"
        t.py:1:5: error: '[' was never closed
        x = [1,
            ~ <--- HERE

        "def f():\n    # type: (int) -> int\n    return 1\n"
        t.py:1:1: error: Number of type annotations (1) did not match the number of function parameters (0)
        def f():
        ~~~~~~~~ <--- HERE

        "x = []  # type: List[\n"
        t.py:1:21: error: '[' was never closed
        x = []  # type: List[
                            ~ <--- HERE

        "class C:\n    def m(self, a):  # type: (int, int) -> None\n        pass\n"
        t.py:2:5: error: Number of type annotations (2) did not match the number of method parameters (1)
            def m(self, a):  # type: (int, int) -> None
            ~~~~~~~~~~~~~~~ <--- HERE

        "def f(a):  # type: (int) -> int extra\n    pass\n"
        t.py:1:33: error: expected end of the type comment but found 'ident' here
        def f(a):  # type: (int) -> int extra
                                        ~~~~~ <--- HERE

        "@dec\nasync def f(): pass\n"
        t.py:2:1: error: async function definitions aren't supported
        async def f(): pass
        ~~~~~ <--- HERE

        "a + b: int\n"
        t.py:1:1: error: illegal target for annotation
        a + b: int
        ~~~~~ <--- HERE

        "def f(*, *, a): pass\n"
        t.py:1:10: error: * argument may appear only once
        def f(*, *, a): pass
                 ~ <--- HERE

        "x = await y\n"
        t.py:1:5: error: Await aren't supported
        x = await y
            ~ <--- HERE

        "x = f\"{y=}\"\n"
        t.py:1:8: error: Don't support conversion in JoinedStr
        x = f"{y=}"
               ~ <--- HERE

        "x = '\\U00110000'\n"
        t.py:1:6: error: invalid unicode escape in string literal
        x = '\U00110000'
             ~~~~~~~~~~ <--- HERE

        "x = 1 +\n"
        t.py:1:8: error: expected an expression but found 'newline' here
        x = 1 +
               ~ <--- HERE

        "(x := 1)\n"
        t.py:1:2: error: NamedExpr aren't supported
        (x := 1)
         ~ <--- HERE

        "if (y := f(x)) > 2: pass\n"
        t.py:1:5: error: NamedExpr aren't supported
        if (y := f(x)) > 2: pass
            ~ <--- HERE

        "x = {i for i in y}\n"
        t.py:1:5: error: SetComp aren't supported
        x = {i for i in y}
            ~ <--- HERE

        "def g():\n    yield from x\n"
        t.py:2:5: error: YieldFrom aren't supported
            yield from x
            ~ <--- HERE

        "async for x in y: pass\n"
        t.py:1:1: error: async for loops aren't supported
        async for x in y: pass
        ~~~~~ <--- HERE

        "async with x: pass\n"
        t.py:1:1: error: async with statements aren't supported
        async with x: pass
        ~~~~~ <--- HERE

    "#]].assert_eq(&out);
}

#[test]
fn parse_expr_for_type_strings() {
    let cases = [
        "List[Tuple[int, str]]",
        "  Dict[str, Optional[Tensor]]\n",
        "__torch__.torch.classes.ns.Foo",
        "Tuple[()]",
        "int int",
        "",
    ];
    let mut out = String::new();
    for src in cases {
        let file = SourceFile::new("type", src);
        let text = match parse_expr(&file) {
            Ok(e) => dump_expr(&e),
            Err(e) => e.render(&file),
        };
        out.push_str(&format!("{src:?} => {text}\n"));
    }
    expect![[r#"
        "List[Tuple[int, str]]" => (sub List (sub Tuple int str))
        "  Dict[str, Optional[Tensor]]\n" => (sub Dict str (sub Optional Tensor))
        "__torch__.torch.classes.ns.Foo" => (. (. (. (. __torch__ torch) classes) ns) Foo)
        "Tuple[()]" => (sub Tuple (tuple))
        "int int" => type:1:5: error: expected end of the expression but found 'ident' here
        int int
            ~~~ <--- HERE
        "" => type:1:1: error: expected an expression but found 'eof' here
    "#]]
    .assert_eq(&out);
}

#[test]
fn spans() {
    let src = "def f(x: int) -> int:\n    y = x + foo(1, k=2)[0]\n    return y\n";
    let file = SourceFile::new("t.py", src);
    let m = parse_module(&file).unwrap();
    let StmtKind::Def(d) = &m.body[0].kind else {
        panic!("expected a def")
    };
    let mut out = vec![
        format!("stmt: {:?}", file.slice(m.body[0].span)),
        format!("header: {:?}", file.slice(d.span)),
        format!("param: {:?}", file.slice(d.params[0].span)),
    ];
    for s in &d.body {
        out.push(format!("body stmt: {:?}", file.slice(s.span)));
        if let StmtKind::Assign {
            value: Some(v),
            targets,
            ..
        } = &s.kind
        {
            out.push(format!("target: {:?}", file.slice(targets[0].span)));
            out.push(format!("value: {:?}", file.slice(v.span)));
            if let ExprKind::BinOp { rhs, .. } = &v.kind {
                out.push(format!("rhs: {:?}", file.slice(rhs.span)));
                if let ExprKind::Subscript { value, .. } = &rhs.kind {
                    out.push(format!("call: {:?}", file.slice(value.span)));
                }
            }
        }
    }
    expect![[r#"
        stmt: "def f(x: int) -> int:\n    y = x + foo(1, k=2)[0]\n    return y"
        header: "def f(x: int) -> int:"
        param: "x: int"
        body stmt: "y = x + foo(1, k=2)[0]"
        target: "y"
        value: "x + foo(1, k=2)[0]"
        rhs: "foo(1, k=2)[0]"
        call: "foo(1, k=2)"
        body stmt: "return y""#]]
    .assert_eq(&out.join("\n"));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep_parens = format!("x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
    let deep_unary = format!("x = {}1\n", "-".repeat(10_000));
    let deep_lists = format!("x = {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let mut deep_blocks = String::new();
    for i in 0..400 {
        deep_blocks.push_str(&" ".repeat(i));
        deep_blocks.push_str("if x:\n");
    }
    deep_blocks.push_str(&" ".repeat(400));
    deep_blocks.push_str("pass\n");
    for src in [deep_parens, deep_unary, deep_lists, deep_blocks] {
        let file = SourceFile::new("t.py", src);
        let e = parse_module(&file).unwrap_err();
        assert!(
            e.message.contains("too many nested levels"),
            "{}",
            e.message
        );
    }
    // Just below the limit still parses.
    let ok = format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200));
    assert!(parse_module(&SourceFile::new("t.py", ok)).is_ok());
    // Long flat chains do not nest.
    let elifs: String = std::iter::once("if a:\n  pass\n".to_string())
        .chain((0..2000).map(|i| format!("elif x == {i}:\n  pass\n")))
        .collect();
    assert!(parse_module(&SourceFile::new("t.py", elifs)).is_ok());
    // Comparison chains copy their middle operands; nested in middle positions the copies
    // would double per level.
    let mut doubling = "x".to_string();
    for _ in 0..40 {
        doubling = format!("a < ({doubling}) < b");
    }
    let e = parse_module(&SourceFile::new("t.py", format!("y = {doubling}\n"))).unwrap_err();
    assert_eq!(e.message, "comparison chains here are too large to expand");
    // Operator chains and attribute chains build deep trees, so they count as nesting too.
    let sum = format!("x = {}1\n", "1 + ".repeat(200));
    assert!(parse_module(&SourceFile::new("t.py", sum)).is_ok());
    for long in [
        format!("x = {}1\n", "1 + ".repeat(20_000)),
        format!("x = a{}\n", ".b".repeat(20_000)),
        format!("x = a{}\n", "(1)".repeat(20_000)),
        format!("x = a{}\n", " < b".repeat(20_000)),
    ] {
        let e = parse_module(&SourceFile::new("t.py", long)).unwrap_err();
        assert!(
            e.message.contains("too many nested levels"),
            "{}",
            e.message
        );
    }
}

fn sample_dir(sub: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test/frontend/parse")
        .join(sub)
}

/// The files under test/frontend/parse/{code,src}: archive code (tools/gen/gen_parse_samples.py)
/// and hand-written TorchScript.
fn samples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for sub in ["code", "src"] {
        let mut paths: Vec<_> = std::fs::read_dir(sample_dir(sub))
            .expect("test/frontend/parse exists")
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), text));
        }
    }
    out
}

#[test]
fn archive_code_and_samples_parse() {
    let samples = samples();
    assert!(samples.len() > 20, "{} samples", samples.len());
    for (name, text) in samples {
        let file = SourceFile::new(name.as_str(), text);
        if let Err(e) = parse_module(&file) {
            panic!("{}", e.render(&file));
        }
    }
}

/// A small deterministic generator (64-bit LCG), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Applies one random edit: the kinds of damage real typing and truncation do.
fn mutate(src: &[u8], rng: &mut Rng) -> Vec<u8> {
    const PIECES: &[&str] = &[
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ":",
        ",",
        "\n",
        "\t",
        "    ",
        "\\",
        "\\\n",
        "'",
        "\"",
        "'''",
        "#",
        "# type: (int) -> int\n",
        "*",
        "**",
        "=",
        "not",
        "lambda",
        "if",
        "else",
        "for",
        "in",
        "is",
        "def f(",
        "class C:",
        "@",
        "...",
        "0x",
        "1e",
        "f\"{",
        "}",
        "é",
        "\r\n",
        ";",
        "->",
        ".",
        "yield",
        "return",
        "-",
        "~",
    ];
    let mut out = src.to_vec();
    let at = rng.below(out.len() + 1);
    match rng.below(6) {
        0 => {
            let end = (at + 1 + rng.below(8)).min(out.len());
            out.drain(at.min(end)..end);
        }
        1 | 2 => {
            let piece = PIECES[rng.below(PIECES.len())].as_bytes();
            out.splice(at..at, piece.iter().copied());
        }
        3 => out.truncate(at),
        4 => {
            // Duplicate a line elsewhere (indentation mismatches, repeated headers).
            let lines: Vec<&[u8]> = src.split(|&b| b == b'\n').collect();
            let line = lines[rng.below(lines.len())];
            let mut moved = line.to_vec();
            moved.push(b'\n');
            out.splice(at..at, moved);
        }
        _ => {
            const BYTES: &[u8] = b" \t\n()[]{}:=,.'\"#\\*-+x0";
            if at < out.len() {
                out[at] = BYTES[rng.below(BYTES.len())];
            }
        }
    }
    out
}

/// Thousands of damaged versions of real sources: parsing returns Ok or an error, never panics,
/// and rendering the error works.
#[test]
fn mutated_sources_never_panic() {
    let mut rng = Rng(0x5eed);
    let mut parsed = 0;
    let mut failed = 0;
    for (name, text) in samples() {
        // Long archive files only slow the test down; their heads have every kind of line.
        let seed = &text.as_bytes()[..text.len().min(6000)];
        for round in 0..120 {
            let mut input = seed.to_vec();
            for _ in 0..=(round % 4) {
                input = mutate(&input, &mut rng);
            }
            let text = String::from_utf8_lossy(&input).into_owned();
            let file = SourceFile::new(name.as_str(), text.clone());
            let outcome = std::panic::catch_unwind(|| match parse_module(&file) {
                Ok(m) => {
                    dump_module(&m);
                    true
                }
                Err(e) => {
                    e.render(&file);
                    false
                }
            });
            match outcome {
                Ok(true) => parsed += 1,
                Ok(false) => failed += 1,
                Err(_) => panic!("the parser panicked on this input:\n{text}"),
            }
        }
    }
    assert!(
        parsed > 100 && failed > 100,
        "{parsed} parsed, {failed} refused"
    );
}

/// The script corpus (test/script, PyTorch's results beside each case): every case parses,
/// except those PyTorch refuses for syntax, where the parser gives PyTorch's message at
/// PyTorch's line.
#[test]
fn script_corpus_parses_or_fails_as_pytorch() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/script");
    let mut cases = 0;
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "py") {
            continue;
        }
        cases += 1;
        let file = SourceFile::new(
            path.to_string_lossy().as_ref(),
            std::fs::read_to_string(path).unwrap(),
        );
        let Err(e) = parse_module(&file) else {
            continue;
        };
        let rendered = e.render(&file);
        let expected = std::fs::read_to_string(path.with_extension("error"))
            .unwrap_or_else(|_| panic!("PyTorch compiles this case but:\n{rendered}"));
        let mut lines = expected.lines();
        let message = lines.next().unwrap_or("").trim_end_matches(':');
        assert_eq!(e.message, message, "{rendered}");
        let line = lines
            .next()
            .and_then(|l| l.rsplit("line ").next())
            .and_then(|n| n.trim().parse::<u32>().ok());
        assert_eq!(Some(file.pos(e.span.start).line), line, "{rendered}");
    }
    assert!(cases > 100, "{cases} cases");
}
