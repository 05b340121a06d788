use super::*;

#[test]
fn every_builtin_function_of_the_data_parses() {
    let functions = parse_builtin_functions(BUILTIN_FUNCTIONS_TXT).unwrap();
    let headers = BUILTIN_FUNCTIONS_TXT.matches("\n## ").count();
    assert_eq!(functions.len(), headers);
    assert_eq!(functions.len(), 49);
}

#[test]
fn builtin_functions_keep_registration_order() {
    let mul: Vec<String> = builtin_functions_for(Symbol::aten("mul"))
        .iter()
        .map(|f| f.schema.to_string())
        .collect();
    assert_eq!(
        mul,
        [
            "mul(float a, Tensor b) -> Tensor",
            "mul(int a, Tensor b) -> Tensor",
            "mul(complex a, Tensor b) -> Tensor"
        ]
    );
    assert_eq!(builtin_functions_for(Symbol::prim("ndim")).len(), 1);
    assert!(builtin_functions_for(Symbol::aten("relu")).is_empty());
}

#[test]
fn python_builtins_bind_as_the_emitter_globals() {
    assert_eq!(
        python_builtin("len"),
        Some(PythonBuiltin::Function {
            op: Symbol::aten("len"),
            magic: Some("__len__")
        })
    );
    assert_eq!(
        python_builtin("min"),
        Some(PythonBuiltin::Function {
            op: Symbol::prim("min"),
            magic: None
        })
    );
    assert_eq!(
        python_builtin("int"),
        Some(PythonBuiltin::Cast {
            ty: Type::Int,
            op: Symbol::aten("Int"),
            magic: Some("__int__")
        })
    );
    assert_eq!(
        python_builtin("range"),
        Some(PythonBuiltin::SpecialForm(Symbol::prim("range")))
    );
    assert_eq!(python_builtin("print"), Some(PythonBuiltin::Print));
    assert_eq!(python_builtin("open"), None);
}

#[test]
fn module_attributes_resolve_as_pytorch_finds_them() {
    let op = |s: &str| Some(ModuleAttr::Op(Symbol::new(s)));
    assert_eq!(module_attr("torch", "relu"), op("aten::relu"));
    assert_eq!(module_attr("torch.nn.functional", "gelu"), op("aten::gelu"));
    assert_eq!(
        module_attr("torch.nn.functional", "linear"),
        op("aten::linear")
    );
    assert_eq!(
        module_attr("torch.nn.functional", "conv2d"),
        op("aten::conv2d")
    );
    assert_eq!(
        module_attr("torch.nn.functional", "relu"),
        Some(ModuleAttr::PythonFunction)
    );
    assert_eq!(
        module_attr("torch.nn.functional", "max_pool2d"),
        Some(ModuleAttr::BooleanDispatch {
            arg_name: "return_indices".to_string(),
            index: 6,
            default: false,
            if_true: "torch.nn.functional.max_pool2d_with_indices".to_string(),
            if_false: "torch.nn.functional._max_pool2d".to_string(),
        })
    );
    assert_eq!(module_attr("math", "sqrt"), op("aten::sqrt"));
    assert_eq!(module_attr("math", "remainder"), op("aten::mathremainder"));
    assert_eq!(
        module_attr("math", "pi"),
        Some(ModuleAttr::Constant(ConstValue::Float(
            std::f64::consts::PI
        )))
    );
    assert_eq!(
        module_attr("torch", "float32"),
        Some(ModuleAttr::Constant(ConstValue::Int(6)))
    );
    assert_eq!(
        module_attr("torch", "nn"),
        Some(ModuleAttr::Module("torch.nn".to_string()))
    );
    assert_eq!(
        module_attr("torch.ops.aten", "anything"),
        op("aten::anything")
    );
    assert_eq!(module_attr("torch", "no_such_name"), None);
    assert!(
        matches!(module_attr("math", "inf"), Some(ModuleAttr::Constant(ConstValue::Float(f))) if f == f64::INFINITY)
    );
}

#[test]
fn properties_name_their_builtins() {
    assert_eq!(
        property_builtin(&Type::tensor(), "shape"),
        Some(Symbol::prim("shape"))
    );
    assert_eq!(
        property_builtin(&Type::tensor(), "mT"),
        Some(Symbol::aten("mT"))
    );
    assert_eq!(
        property_builtin(&Type::Device, "type"),
        Some(Symbol::prim("type"))
    );
    assert_eq!(property_builtin(&Type::Int, "shape"), None);
}

#[test]
fn python_functions_carry_their_scripted_code() {
    let relu = python_function_code("torch.nn.functional.relu").unwrap();
    assert!(relu.starts_with("def relu(input: Tensor,"), "{relu}");
    assert!(relu.contains("torch.relu(input)"));
    // Helpers the code calls by qualified name are in the table too.
    let softmax = python_function_code("torch.nn.functional.softmax").unwrap();
    assert!(softmax.contains("__torch__.torch.nn.functional._get_softmax_dim"));
    assert!(python_function_code("torch.nn.functional._get_softmax_dim").is_some());
    assert!(python_function_code("torch.nn.functional._max_pool2d").is_some());
    assert!(python_function_code("torch.nn.functional.gelu").is_none());
}
