use super::*;
use crate::types::Type;

/// Parses `src` and prints it back.
fn roundtrip(src: &str) -> String {
    match parse_schema(src) {
        Ok(s) => s.to_string(),
        Err(d) => format!("error {d}"),
    }
}

#[test]
fn prints_back_as_pytorch_does() {
    // (input, what `str(torch._C.parse_schema(input))` prints in PyTorch 2.15)
    let cases = [
        ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", None),
        ("a::b(complex x=2j, complex y=-1.5j) -> ()", Some("a::b(complex x=0.+2.j, complex y=0.-1.5j) -> ()")),
        ("a::b(Device d=\"cuda:1\") -> ()", Some("a::b(Device d=cuda:1) -> ()")),
        (
            "a::b(float x=1e10, float y=-0., float z=12345678901., float w=0.1, float v=1e300, float u=1e-300) -> ()",
            Some("a::b(float x=10000000000., float y=0., float z=12345678901., float w=0.10000000000000001, float v=1.0000000000000001e+300, float u=1e-300) -> ()"),
        ),
        (
            "a::b(float? x=1, Scalar y=2.5, int[2] z=[1,2], int[1] q=3, int[3] r=[4,4,4], float[] f=[1,2.5], bool[2] b=[True,False], SymInt[2] s=1, int[] e=[]) -> ()",
            Some("a::b(float? x=1, Scalar y=2.5, int[2] z=[1, 2], int[1] q=[3], int[3] r=4, float[] f=[1., 2.5], bool[2] b=[True, False], SymInt[2] s=[1, 1], int[] e=[]) -> ()"),
        ),
        (
            "a::b(ScalarType t=long, MemoryFormat m=contiguous_format, int red=Mean, Layout l=strided, ScalarType c=complex, ScalarType f=float) -> ()",
            Some("a::b(ScalarType t=4, MemoryFormat m=0, int red=1, Layout l=0, ScalarType c=9, ScalarType f=6) -> ()"),
        ),
        (
            "a::b(Tensor(a -> b) y, Tensor(a! -> a|b) z, Tensor(*) w, Tensor(a -> *) v, Tensor! u, Tensor(a)[] l, Tensor[](a) m, Tensor(a)[][] n, Tensor(a)[2]? o) -> Tensor(a)[]",
            Some("a::b(Tensor(a -> b) y, Tensor(a! -> a|b) z, Tensor(*) w, Tensor(a -> *) v, Tensor($0! -> ) u, Tensor(a)[] l, Tensor[](a) m, Tensor[]()[] n, Tensor(a)[2]? o) -> Tensor(a)[]"),
        ),
        ("a::b(str s=\"a\\nb\", str t='x\\'y', str? u=\"q\") -> (Tensor a, (int, int) b)", Some("a::b(str s=\"a\\nb\", str t=\"x\\'y\", str? u=\"q\") -> (Tensor a, (int, int) b)")),
        ("a::b(...) -> ...", None),
        ("a::b(int x, ...) -> (int, ...)", None),
        ("a::b() -> ()", None),
        ("a::b(*, int x) -> (Tensor(a!)[])", Some("a::b(*, int x) -> Tensor(a!)[]")),
        ("a::b(Tensor x) -> (Tensor(a!) self)", Some("a::b(Tensor x) -> Tensor(a!) self")),
        ("a::b(Tensor(a!)? x) -> Tensor", None),
        ("a::b(bool x=1, int y=True, float z=1, Scalar w=-3, float v=None) -> ()", Some("a::b(bool x=1, int y=True, float z=1., Scalar w=-3, float v=None) -> ()")),
        ("a::b(int x) -> (int x, int y)", None),
        ("a::b(Tensor x=None, Generator g=None) -> ()", None),
        ("a::b(float x=1.5e10, float y=-2.5, float z=100000000000000000000000.) -> ()", Some("a::b(float x=15000000000., float y=-2.5, float z=9.9999999999999992e+22) -> ()")),
        ("a::b(int x) -> int y", None),
        ("aten::items.str(Dict(str, t) self) -> ((str, t)[])", None),
        ("a::b(Dict(str, Tensor)(a) x) -> Dict(str, Tensor)(a)", None),
        ("a::b(Future(Tensor(a)) x, (Tensor(a), int) y) -> Future(Tensor)", Some("a::b(Future(Tensor) x, (Tensor, int) y) -> Future(Tensor)")),
        ("a::b(int[]?[] x, Tensor?[]? y, t[](a) z, list l, tuple u) -> ()", None),
        ("a::b(Union(int, NoneType) x, Union(int, str)? y, int?? z) -> ()", Some("a::b(int? x, Union(int, str)? y, int? z) -> ()")),
        ("a::b(Union(int, float, complex) x, Union(int, float, complex, str) y, Union(Scalar, str) v) -> ()", Some("a::b(Union(Scalar) x, Union(, str, Scalar) y, Union(, str, Scalar) v) -> ()")),
        ("a::b(Union(str, int, Tensor, bool, float, NoneType, Device, Any) x) -> ()", Some("a::b(Any? x) -> ()")),
        ("a::b(Tensor(a|b|a) x) -> Tensor(b|a)", Some("a::b(Tensor(a|b) x) -> Tensor(b|a)")),
        ("a::b(__torch__.torch.classes.quantized.Conv2dPackedParamsBase x) -> __torch__.torch.classes.quantized.Conv2dPackedParamsBase", None),
        ("a::b(ConstQuantizerPtr q, DeviceIndex i, None n, NoneType m, SymBool s, Capsule c, AnyClassType a, AnyEnumType e, QScheme qs, Storage st, Stream sm) -> Any", Some("a::b(int q, int i, NoneType n, NoneType m, SymBool s, Capsule c, AnyClassType a, AnyEnumType e, QScheme qs, Storage st, Stream sm) -> Any")),
        ("a::b(str c=\" \\n\\t\\f\\v\", str d=\"\\\"\\'\\\\\", str e=\"\\101\") -> str", Some("a::b(str c=\" \\n\\t\\f\\v\", str d=\"\\\"\\'\\\\\", str e=\"A\") -> str")),
        ("a::b(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", None),
        ("a::b.overload(Tensor self) -> (Tensor, Tensor)", None),
        ("a::b(RRef(t) r, Await(t) w) -> ()", None),
    ];
    for (input, expected) in cases {
        let want = expected.unwrap_or(input);
        assert_eq!(roundtrip(input), want, "input: {input}");
    }
}

#[test]
fn reads_the_parts_of_a_schema() {
    let s =
        parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
            .unwrap();
    assert_eq!(s.name, "aten::add");
    assert_eq!(s.overload_name, "Tensor");
    assert_eq!(s.full_name(), "aten::add.Tensor");
    assert_eq!(s.kind(), crate::Symbol::aten("add"));
    assert_eq!(s.arguments.len(), 3);
    assert!(!s.arguments[1].kwarg_only && s.arguments[2].kwarg_only);
    assert_eq!(s.arguments[2].ty, Type::Number);
    assert_eq!(
        s.arguments[2].default,
        Some(crate::attr::ConstValue::Int(1))
    );
    assert_eq!(s.returns[0].ty, Type::tensor());

    let s = parse_schema("a::b(ScalarType? dtype, SymInt[2] size, Tensor(a!) out) -> ()").unwrap();
    assert_eq!(s.arguments[0].ty, Type::optional(Type::ScalarType));
    assert_eq!(s.arguments[0].fake_type(), Type::optional(Type::Int));
    assert_eq!(s.arguments[1].fake_type(), Type::list(Type::Int));
    assert_eq!(s.arguments[1].n, Some(2));
    let alias = s.arguments[2].alias.as_ref().unwrap();
    assert!(alias.is_write && alias.before == ["a"] && alias.after == ["a"]);
    assert!(s.is_mutable());
    assert!(s.returns.is_empty());
}

/// `(input, "line:col: message")` for schemas PyTorch rejects.
#[test]
fn errors_point_at_the_offending_token() {
    let cases = [
        ("a::b", "1:5: error: expected '(' after the operator name 'a::b': a function schema needs an argument list"),
        ("a::b(Foo x) -> ()", "1:6: error: unknown type specifier 'Foo'. Common valid schema types include Tensor, SymInt, int, float, bool, Scalar"),
        ("a::b(int x) -> (int, int)[]", "1:26: error: expected end of input but found '['"),
        ("a::b(Tensor?(a!) x) -> Tensor", "1:13: error: expected an identifier but found '('"),
        ("aten::add.default(int x) -> ()", "1:11: error: default is not a legal overload name for aten operators"),
        ("a::b(str x=\"\\x41\") -> ()", "1:12: error: unsupported hex specifier"),
        ("a::b(int[2][] x) -> ()", "1:12: error: expected an identifier but found '['"),
        ("a::b(Tensor(*|a) y) -> Tensor", "1:15: error: expected ')' but found identifier 'a'"),
        ("a::b(..., int x) -> ()", "1:11: error: ... must be the last element of the argument list"),
        ("a::b(int x=1, ...) -> ()", "1:20: error: schemas with vararg (...) can't have default value args"),
        ("a::b(int x) -> (..., int)", "1:22: error: ... must be the last element of the return list"),
        ("a::b(int x=foo) -> ()", "1:12: error: invalid numeric default value"),
        // std::stod's range, as PyTorch reads float defaults (a fuzz finding: 1e708 read as
        // inf, which prints as a default nothing reads).
        ("a::b(float x=1e708) -> ()", "1:14: error: invalid number '1e708'"),
        ("a::b(float x=1e-400) -> ()", "1:14: error: invalid number '1e-400'"),
        ("a::b(float[] x=[\"s\"]) -> ()", "1:16: error: expected a list of float in default value"),
        ("a::b(str[] x=[\"s\"]) -> ()", "1:14: error: lists are only supported for float, int and complex types"),
        ("a::b(Union(int) x) -> ()", "1:11: error: After type unification was performed, the Union with the original types {int} has the single type int. Use the common supertype instead of creating a Union type"),
        ("a::b(None? x) -> ()", "1:10: error: After type unification was performed, the Union with the original types {NoneType, NoneType} has the single type NoneType. Use the common supertype instead of creating a Union type"),
        ("a::b(__torch__.foo.Bar x) -> ()", "1:16: error: Expected classes namespace but got foo"),
        ("a::b(str x=\"abc) -> ()", "1:12: error: unterminated string literal"),
        ("a::b(int x) -> ()\n  extra", "2:3: error: expected end of input but found identifier 'extra'"),
        ("a::b(int x) ~ ()", "1:13: error: unexpected character '~'"),
        ("a::b(int x=99999999999999999999) -> ()", "1:12: error: invalid number '99999999999999999999'"),
        ("a::b(Tensor x=1) -> ()", "1:15: error: expected 'None' but found number '1'"),
        ("a::b(Quantizer q) -> ()", "1:6: error: type Quantizer is not supported by Ember"),
        ("", "1:1: error: expected an identifier but found end of input"),
    ];
    for (input, want) in cases {
        let got = match parse_schema(input) {
            Ok(s) => format!("parsed: {s}"),
            Err(d) => d.to_string(),
        };
        assert_eq!(got, want, "input: {input}");
    }
}

#[test]
fn function_schemas_name_program_types_and_take_tuple_defaults() {
    // (input as `str(fn.schema)` prints it, what Ember prints back or the error)
    let cases = [
        (
            "f(Tensor x, (int, int) shape=(1, 2)) -> Tensor",
            "f(Tensor x, (int, int) shape=(1, 2)) -> Tensor",
        ),
        (
            "f(Tensor x) -> __torch__.m.Stats",
            "f(Tensor x) -> __torch__.m.Stats",
        ),
        (
            "f(__torch__.a.b.Point p, __torch__.torch.classes.q.C c) -> ()",
            "f(__torch__.a.b.Point p, __torch__.torch.classes.q.C c) -> ()",
        ),
        // Strings inside a tuple print unquoted, as PyTorch's `operator<<(IValue)` does.
        (
            "f((float, (str, int?)) t=(1.5, (\"a\", None)), (int) u=(3,)) -> ()",
            "f((float, (str, int?)) t=(1.5, (a, None)), (int) u=(3,)) -> ()",
        ),
        (
            "f((int, int) t=(1,)) -> ()",
            "error 1:19: error: expected a number but found ')'",
        ),
        (
            "f((int) t=(1)) -> ()",
            "error 1:13: error: expected ',' but found ')'",
        ),
        (
            "f(__torch__.) -> ()",
            "error 1:13: error: expected an identifier but found ')'",
        ),
    ];
    for (input, want) in cases {
        let got = match parse_function_schema(input) {
            Ok(s) => s.to_string(),
            Err(d) => format!("error {d}"),
        };
        assert_eq!(got, want, "input: {input}");
    }
    // Operator schemas keep PyTorch's rules.
    assert!(parse_schema("f(Tensor x, (int, int) shape=(1, 2)) -> Tensor").is_err());
}

#[test]
fn formats_doubles_like_cpp_streams() {
    let cases = [
        (1.0, "1."),
        (-0.0, "0."),
        (0.5, "0.5"),
        (1e-5, "1.0000000000000001e-05"),
        (1.0 / 3.0, "0.33333333333333331"),
        (1e-8, "1e-08"),
        (0.0001, "0.0001"),
        (1e23, "9.9999999999999992e+22"),
        (-2.5e-10, "-2.5000000000000002e-10"),
        (f64::INFINITY, "inf"),
        (9.2e18, "9200000000000000000."),
        (1e19, "1e+19"),
    ];
    for (d, want) in cases {
        assert_eq!(format_double(d), want, "{d:e}");
    }
}

#[test]
fn quotes_strings_like_printquotedstring() {
    assert_eq!(
        quoted_string("a'b\"c\\\n\r\u{7}"),
        "\"a\\'b\\\"c\\\\\\n\\r\\a\""
    );
    assert_eq!(quoted_string("\u{1}"), "\"\\001\"");
    // Non-ASCII bytes go through C++'s signed-char arithmetic.
    assert_eq!(quoted_string("é"), "\"\\0)+\\/.)\"");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!(
        "a::b({}int{} x) -> ()",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let err = parse_schema(&deep).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1:70: error: type nests more than 64 levels deep"
    );
    let lists = format!("a::b(int{} x) -> ()", "[]".repeat(100_000));
    assert!(parse_schema(&lists)
        .unwrap_err()
        .message
        .contains("nests more than"));
    assert!("a::b(int[][][] x) -> ()".parse::<FunctionSchema>().is_ok());
}

/// A small deterministic generator (xorshift) for mutating inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_catalogue_lines_never_panic() {
    let lines: Vec<&str> = crate::catalogue::SCHEMAS_TXT
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    let alphabet: Vec<char> = "()[],.:*?!=|-> \"'abtTNx019e_jé".chars().collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let mut s: Vec<char> = lines[rng.below(lines.len())].chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(s.len() + 1);
            match rng.below(3) {
                0 if at < s.len() => {
                    s.remove(at);
                }
                1 if at < s.len() => s[at] = alphabet[rng.below(alphabet.len())],
                _ => s.insert(at, alphabet[rng.below(alphabet.len())]),
            }
        }
        let text: String = s.into_iter().collect();
        if let Ok(schema) = parse_schema(&text) {
            // Whatever parses also prints.
            let _ = schema.to_string();
        }
    }
}

#[test]
fn device_defaults_are_device_strings() {
    // What c10::Device's string constructor accepts (checked with torch._C.parse_schema).
    for ok in ["cpu", "cuda", "cuda:0", "cuda:12", "mps", "xpu:1"] {
        let text = format!("f(Device d=\"{ok}\") -> str");
        assert!(parse_schema(&text).is_ok(), "{text}");
    }
    for bad in [
        "",
        "foo",
        "cuda:",
        "cuda:01",
        "cuda:-1",
        " cpu",
        "cpu:x",
        "cuda:1000",
    ] {
        let text = format!("f(Device d=\"{bad}\") -> str");
        assert!(parse_schema(&text).is_err(), "{text}");
    }
}
