//! The PTX of fused kernels assembles with NVIDIA's ptxas for sm_80 and sm_90. ptxas comes
//! from the PyPI package nvidia-cuda-nvcc-cu12, installed by test/setup/ptxas.sh into a venv
//! outside the repository (no GPU and no CUDA install needed).

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Every supported op in one group: x [4, 1, 3] and y [5, 3] broadcast to [4, 5, 3], a float
/// scalar input and constants.
fn all_ops_graph() -> Graph {
    let mut g = Graph::new();
    let x = g.add_input(float_tensor(&[4, 1, 3]));
    g.set_debug_name(x, "x");
    let y = g.add_input(float_tensor(&[5, 3]));
    g.set_debug_name(y, "y");
    let s = g.add_input(Type::Float);
    g.set_debug_name(s, "s");
    let constant = |g: &mut Graph, v: AttrValue, ty: Type| {
        let n = g.create_and_insert(sym::constant(), &[], 1);
        g.set_attr(n, sym::attr_value(), v);
        let out = g.output(n, 0);
        g.set_ty(out, ty);
        out
    };
    let alpha = constant(&mut g, AttrValue::Float(0.5), Type::Float);
    let two = constant(&mut g, AttrValue::Int(2), Type::Int);
    let op = |g: &mut Graph, name: &str, inputs: &[ember_dialects::Value]| {
        let n = g.create_and_insert(Symbol::aten(name), inputs, 1);
        g.output(n, 0)
    };
    let a = op(&mut g, "add", &[x, y, alpha]);
    let b = op(&mut g, "sub", &[a, s, two]);
    let c = op(&mut g, "mul", &[b, y]);
    let d = op(&mut g, "div", &[c, x]);
    let e = op(&mut g, "exp", &[d]);
    let f = op(&mut g, "log", &[e]);
    let t = op(&mut g, "tanh", &[f]);
    let sg = op(&mut g, "sigmoid", &[t]);
    let r = op(&mut g, "relu", &[sg]);
    let n = op(&mut g, "neg", &[r]);
    g.register_output(n);
    g.register_output(a);
    g
}

fn ptxas() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/setup/ptxas.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {}: {e}", script.display());
        });
    assert!(
        out.status.success(),
        "ptxas could not be installed by {} (it needs PyPI access once):\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn ptx_assembles_for_sm80_and_sm90() {
    let ptxas = ptxas();
    let graph = all_ops_graph();
    let kernels = collect_kernels(&graph, "all_ops", &Default::default()).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ptx");
    std::fs::create_dir_all(&dir).unwrap();
    for sm in ["sm_80", "sm_90"] {
        let mut opts = CompileOptions::new(TargetArch::Nvptx64, EmitKind::Ptx);
        opts.cpu = Some(sm.to_string());
        let ptx = String::from_utf8(compile(&kernels, &opts).unwrap()).unwrap();
        // A real kernel entry with one thread per element and a bounds check against 60.
        assert!(ptx.contains(&format!(".target {sm}")), "{ptx}");
        assert!(ptx.contains(".visible .entry all_ops("), "{ptx}");
        assert!(ptx.contains("%tid.x") && ptx.contains("%ctaid.x") && ptx.contains("%ntid.x"));
        assert!(
            ptx.contains("setp.gt.u64") && ptx.contains(", 59;"),
            "bounds check missing:\n{ptx}"
        );
        assert!(
            !ptx.contains(".extern"),
            "the kernel calls something undefined:\n{ptx}"
        );
        let file = dir.join(format!("all_ops_{sm}.ptx"));
        std::fs::write(&file, &ptx).unwrap();
        let cubin = dir.join(format!("all_ops_{sm}.cubin"));
        let out = Command::new(&ptxas)
            .arg(format!("-arch={sm}"))
            .arg(&file)
            .arg("-o")
            .arg(&cubin)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ptxas -arch={sm} rejected {}:\n{}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(std::fs::metadata(&cubin).unwrap().len() > 0);
    }
}
