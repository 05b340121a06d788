use super::*;
use crate::schema::parse_schema;
use crate::types::*;

/// The type written in schema syntax (`int[]`, `Tensor?`, `Dict(str, t)`).
fn ty(text: &str) -> Type {
    parse_schema(&format!("a::b({text} x) -> ()"))
        .unwrap_or_else(|d| panic!("{text}: {d}"))
        .arguments
        .remove(0)
        .ty
}

fn float_tensor(sizes: &[i64]) -> Type {
    Type::Tensor(TensorType {
        dtype: Some(ScalarType::Float),
        sizes: Some(sizes.iter().map(|&s| Dim::Known(s)).collect()),
        ..Default::default()
    })
}

#[test]
fn subtyping_follows_pytorch() {
    let cases = [
        ("int", "Scalar", true),
        ("float", "Scalar", true),
        ("complex", "Scalar", true),
        ("bool", "Scalar", false),
        ("bool", "int", false),
        ("int", "float", false),
        ("int", "int?", true),
        ("None", "int?", true),
        ("None", "Tensor[]?", true),
        ("int?", "int", false),
        ("int?", "Scalar?", true),
        ("int", "Any", true),
        ("Tensor?", "Any", true),
        ("Any", "int", false),
        ("Any", "Any?", true),
        ("int[]", "Scalar[]", false),
        ("int[]", "int[]?", true),
        ("(int, float)", "(Scalar, Scalar)", true),
        ("(int, float)", "(Scalar, Scalar, Scalar)", false),
        ("Dict(str, int)", "Dict(str, Scalar)", false),
        ("Future(int)", "Future(Scalar)", true),
        ("int", "Union(int, str)", true),
        ("Union(int, str)", "Union(int, str, float)", true),
        ("Union(int, str)", "Union(int, float)", false),
        ("Union(int, str)", "Any", true),
        ("Union(int, float, complex)", "Scalar", true),
        // As in PyTorch: `canHoldType` asks whether the whole element fits one member.
        ("Union(int, str)?", "Union(int, str, NoneType)", false),
        ("Union(int, str, NoneType)", "Union(int, str)?", true),
        ("int?", "Union(int, NoneType, str)", true),
        ("str?", "Union(int, str)", false),
        ("Scalar", "Union(int, float, complex, str)", true),
        ("Scalar", "Union(int, float, str)", false),
        ("t", "t", true),
        // PyTorch compares type variables by kind, not name.
        ("t", "t1", true),
        ("Device", "Device?", true),
        ("ScalarType", "int", false),
        (
            "__torch__.torch.classes.quantized.Conv2dPackedParamsBase",
            "AnyClassType",
            true,
        ),
        ("int[]", "list", false),
    ];
    for (a, b, want) in cases {
        assert_eq!(ty(a).is_subtype_of(&ty(b)), want, "{a} <: {b}");
    }
    assert!(Type::list(Type::Int).is_subtype_of(&Type::AnyList));
    assert!(Type::tuple(vec![Type::Int]).is_subtype_of(&Type::AnyTuple));
    assert!(Type::Enum("__torch__.Color".into()).is_subtype_of(&Type::AnyEnum));
    assert!(Type::Class("__torch__.M".into()).is_subtype_of(&Type::Class("__torch__.M".into())));
    assert!(!Type::Class("__torch__.M".into()).is_subtype_of(&Type::Class("__torch__.N".into())));
}

#[test]
fn tensor_refinements_are_subtypes_of_tensor() {
    let f23 = float_tensor(&[2, 3]);
    assert!(f23.is_subtype_of(&Type::tensor()));
    assert!(f23.is_subtype_of(&Type::optional(Type::tensor())));
    assert!(!Type::tensor().is_subtype_of(&f23));
    assert!(!f23.is_subtype_of(&float_tensor(&[2, 4])));
    let f2x = Type::Tensor(TensorType {
        dtype: Some(ScalarType::Float),
        sizes: Some(vec![Dim::Known(2), Dim::Unknown]),
        ..Default::default()
    });
    assert!(f23.is_subtype_of(&f2x));
    assert!(!f2x.is_subtype_of(&f23));
    let on_cpu = Type::Tensor(TensorType {
        device: Some(Device {
            kind: "cpu".into(),
            index: None,
        }),
        ..Default::default()
    });
    assert!(!f23.is_subtype_of(&on_cpu));
    // Lists are invariant, even in refinements.
    assert!(!Type::list(f23.clone()).is_subtype_of(&Type::list(Type::tensor())));
    assert!(Type::tuple(vec![f23.clone()]).is_subtype_of(&Type::tuple(vec![Type::tensor()])));
}

#[test]
fn unification_follows_pytorch() {
    let cases = [
        ("int", "int", Some("int")),
        ("int", "Scalar", Some("Scalar")),
        ("int", "float", None),
        ("None", "int", Some("int?")),
        ("int", "None", Some("int?")),
        ("int?", "int", Some("int?")),
        ("(int, None)", "(int, str)", Some("(int, str?)")),
        ("(int, str)", "(int, str, int)", None),
        ("Future(int)", "Future(None)", Some("Future(int?)")),
        ("int[]", "float[]", None),
        ("Dict(str, int)", "Dict(str, float)", None),
        ("Tensor", "int", None),
    ];
    for (a, b, want) in cases {
        let got = unify_types(&ty(a), &ty(b)).map(|t| t.schema_str());
        assert_eq!(got.as_deref(), want, "unify({a}, {b})");
    }
    let merged = unify_types(&float_tensor(&[2, 3]), &float_tensor(&[2, 4])).unwrap();
    let Type::Tensor(m) = merged else {
        panic!("not a tensor")
    };
    assert_eq!(m.dtype, Some(ScalarType::Float));
    assert_eq!(m.sizes, Some(vec![Dim::Known(2), Dim::Unknown]));
    // Mutable containers of different refinements unify to their unshaped form.
    let l = unify_types(
        &Type::list(float_tensor(&[1])),
        &Type::list(float_tensor(&[2])),
    );
    assert_eq!(l, Some(Type::list(Type::tensor())));
    assert_eq!(
        unify_types_ext(&ty("int"), &ty("str"), true, None)
            .map(|t| t.schema_str())
            .as_deref(),
        Some("Union(int, str)")
    );
    assert_eq!(
        unify_type_list(&[ty("int"), ty("str")]).unwrap_err(),
        "Could not unify type list since element 1 of type str did not match the types before it (int)"
    );
}

#[test]
fn unions_standardize() {
    let u = |ts: &[&str]| union_of(ts.iter().map(|t| ty(t)).collect()).map(|t| t.schema_str());
    assert_eq!(u(&["str", "int"]).as_deref(), Ok("Union(int, str)"));
    assert_eq!(u(&["Tensor", "Tensor?"]).as_deref(), Ok("Tensor?"));
    assert_eq!(
        u(&["int", "float", "complex", "None"]).as_deref(),
        Ok("Scalar?")
    );
    assert_eq!(
        u(&["Union(int, str)", "bool"]).as_deref(),
        Ok("Union(int, str, bool)")
    );
    assert!(u(&["int", "int"]).is_err());
    assert_eq!(
        optional_of(Type::Number).map(|t| t.schema_str()).as_deref(),
        Ok("Scalar?")
    );
    assert_eq!(
        Type::Union(vec![Type::Int, Type::Str]).repr_str(),
        "Union[int, str]"
    );
    assert_eq!(
        ty("Dict(str, int[])?").repr_str(),
        "Optional[Dict[str, List[int]]]"
    );
    assert_eq!(ty("Scalar").repr_str(), "number");
}

#[test]
fn type_variables_match_and_substitute() {
    let mut env = TypeEnv::new();
    assert!(match_type_variables(&ty("t[]"), &ty("int[]"), &mut env).is_ok());
    assert_eq!(
        eval_type_variables(&ty("Dict(str, t)"), &env),
        Some(ty("Dict(str, int)"))
    );
    assert_eq!(
        match_type_variables(&ty("t"), &ty("str"), &mut env).unwrap_err(),
        "Type variable 't' previously matched to type int is matched to type str"
    );
    assert!(match_type_variables(&ty("t"), &ty("Scalar"), &mut env).is_ok());
    assert_eq!(eval_type_variables(&ty("t1"), &env), None);
    let mut env = TypeEnv::new();
    assert!(match_type_variables(&ty("t?"), &ty("None"), &mut env).is_ok());
    assert!(env.is_empty());
    assert!(match_type_variables(&ty("t[]"), &ty("(int, int)"), &mut env).is_ok());
    assert_eq!(env.get("t"), Some(&Type::Int));
}
