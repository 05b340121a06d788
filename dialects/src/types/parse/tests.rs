use expect_test::{expect, Expect};

use super::*;

/// Each form PyTorch prints must come back unchanged through parse and print.
#[test]
fn printed_forms_round_trip() {
    let forms = [
        "Tensor",
        "Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)",
        "Float(*, *)",
        "Float(*, 3, strides=[3, 1], requires_grad=0, device=cpu)",
        "Float(SS(-2), 3)",
        "Long(requires_grad=0, device=cpu)",
        "Bool()",
        "Tensor()",
        "Tensor(2, 3)",
        "Tensor(requires_grad=1)",
        "Tensor(device=cuda:1)",
        "FloatTensor",
        "FloatTensor(requires_grad=0, device=cpu)",
        "BFloat16Tensor(device=cpu)",
        "Double(requires_grad=1, device=cuda:0)",
        "Float(2, 3)[Undefined]",
        "Tensor[Undefined]",
        "int[]",
        "int?[]",
        "bool[][]",
        "Tensor?",
        "Tensor[]?",
        "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)?[]",
        "(int, Tensor)",
        "()",
        "(int, (str, Tensor?))",
        "(Float(2, strides=[1], requires_grad=0, device=cpu))[]",
        "Dict(str, Tensor)",
        "Dict(int, Tensor[])",
        "Dict(str, Future(Tensor))",
        "Dict(str, RRef(Tensor))",
        "Future[int]",
        "Future[Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)][]",
        "RRef[Tensor]",
        "Await(Tensor)",
        "Union(int, str)",
        "Union(int, NoneType, str)",
        "Union(, str, Scalar)",
        "Union(, NoneType, str, Scalar)",
        "Union(Tensor, Tensor[], Dict(str, Tensor))",
        "Scalar?",
        "NoneType",
        "Device",
        "ScalarType",
        "Layout",
        "MemoryFormat",
        "Generator",
        "Storage",
        "Stream",
        "QScheme",
        "Capsule",
        "Scalar",
        "SymInt",
        "SymFloat",
        "SymBool",
        "Any",
        "complex",
        "list",
        "tuple",
        "Function",
        "PyObject",
        "number",
        "__torch__.foo.Bar",
        "__torch__.torch.nn.modules.linear.___torch_mangle_0.Linear",
        "Enum<__torch__.Color>",
        "InterfaceType<OneTwo>",
        "NamedTuple(x : float, y : float)",
        "NamedTuple(a : int, b : Tensor = 1.)",
    ];
    for form in forms {
        let ty = parse_type(form).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(ty.to_string(), form, "{ty:?}");
    }
}

#[test]
fn every_dtype_name_round_trips() {
    for dt in ScalarType::ALL {
        let text = format!("{}(2, strides=[1], requires_grad=0, device=cpu)", dt.name());
        assert_eq!(parse_type(&text).unwrap().to_string(), text);
    }
}

fn check(text: &str, expect: Expect) {
    let got = match parse_type(text) {
        Ok(ty) => format!("{ty:?}"),
        Err(e) => format!("error {e}"),
    };
    expect.assert_eq(&got);
}

#[test]
fn structure() {
    check(
        "Float(2, *, SS(-3), strides=[4, 2, 1], device=cuda:0)",
        expect![[
            r#"Tensor(TensorType { dtype: Some(Float), sizes: Some([Known(2), Unknown, Symbolic(-3)]), strides: Some([Some(4), Some(2), Some(1)]), device: Some(Device { kind: "cuda", index: Some(0) }), requires_grad: None, undefined: None })"#
        ]],
    );
    check(
        "Union(, str, Scalar)",
        expect![[r#"Union([Int, Float, Complex, Str])"#]],
    );
    check(
        "Dict(str, Tensor)?",
        expect!["Optional(Dict(Str, Tensor(TensorType { dtype: None, sizes: None, strides: None, device: None, requires_grad: None, undefined: None })))"],
    );
    check("Dynamic", expect!["Tensor(TensorType { dtype: None, sizes: None, strides: None, device: None, requires_grad: None, undefined: None })"]);
    check("__torch__.M", expect![[r#"Class("__torch__.M")"#]]);
}

#[test]
fn errors_name_the_column() {
    check(
        "Float(2, x)",
        expect![[r#"error 1:10: error: expected an integer but found 'x)'"#]],
    );
    check(
        "Dict(str Tensor)",
        expect![[r#"error 1:9: error: expected ', ' but found ' Tensor)'"#]],
    );
    check(
        "int[] junk",
        expect![[r#"error 1:7: error: unexpected 'junk' after type"#]],
    );
    check(
        "(int, ",
        expect![[r#"error 1:7: error: expected a type but found end of input"#]],
    );
    check(
        "Float(requires_grad=2)",
        expect![[r#"error 1:22: error: expected 0 or 1 after requires_grad="#]],
    );
}

#[test]
fn str_form_drops_tensor_refinements() {
    let ty = parse_type("Float(2, strides=[1], requires_grad=0, device=cpu)[]").unwrap();
    assert_eq!(ty.str(), "Tensor[]");
    let dict = Type::Dict(Box::new(Type::Str), Box::new(ty));
    assert_eq!(dict.to_string(), "Dict(str, Tensor[])");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = "(".repeat(10_000);
    assert!(parse_type(&text).is_err());
}
