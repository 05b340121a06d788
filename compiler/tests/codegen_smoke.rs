use ember_compiler::codegen::{collect_kernels, compile, CompileOptions, EmitKind, TargetArch};
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{Dim, ScalarType, TensorType};
use ember_dialects::{AttrValue, Graph, Type};

fn float_tensor(shape: &[i64]) -> Type {
    Type::Tensor(TensorType {
        dtype: Some(ScalarType::Float),
        sizes: Some(shape.iter().map(|&d| Dim::Known(d)).collect()),
        ..Default::default()
    })
}

#[test]
fn smoke() {
    let mut g = Graph::new();
    let x = g.add_input(float_tensor(&[2, 3]));
    g.set_debug_name(x, "x");
    let y = g.add_input(float_tensor(&[3]));
    g.set_debug_name(y, "y");
    let s = g.add_input(Type::Float);
    g.set_debug_name(s, "s");
    let one = g.create_and_insert(sym::constant(), &[], 1);
    g.set_attr(one, sym::attr_value(), AttrValue::Int(1));
    let one = g.output(one, 0);
    g.set_ty(one, Type::Int);
    let a = g.create_and_insert(Symbol::aten("add"), &[x, y, one], 1);
    let a = g.output(a, 0);
    let b = g.create_and_insert(Symbol::aten("mul"), &[a, s], 1);
    let b = g.output(b, 0);
    let c = g.create_and_insert(Symbol::aten("tanh"), &[b], 1);
    let c = g.output(c, 0);
    g.register_output(c);
    let ks = collect_kernels(&g, "smoke", &Default::default()).unwrap();
    for (arch, emit) in [
        (TargetArch::X86_64, EmitKind::Mlir),
        (TargetArch::X86_64, EmitKind::Llvm),
        (TargetArch::X86_64, EmitKind::Asm),
        (TargetArch::Nvptx64, EmitKind::Mlir),
        (TargetArch::Nvptx64, EmitKind::Llvm),
        (TargetArch::Nvptx64, EmitKind::Ptx),
    ] {
        let out = compile(&ks, &CompileOptions::new(arch, emit)).unwrap();
        println!("==== {arch:?} {emit:?}\n{}", String::from_utf8_lossy(&out));
    }
}
