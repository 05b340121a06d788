//! Shared by the integration tests that run compiled kernels: calling a kernel through a small
//! C program (cc), and comparing float32 results the way DESIGN.md's tolerances say.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use ember_compiler::codegen::c_header::c_header;
use ember_compiler::codegen::fusion_to_mlir::MathLowering;
use ember_compiler::codegen::kernel::KernelArg;
use ember_compiler::codegen::{collect_kernels, compile, CompileOptions, EmitKind, TargetArch};
use ember_dialects::Graph;

/// A runtime value of one kernel argument.
pub enum Arg {
    Tensor(Vec<f32>),
    Float(f64),
    Int(i64),
}

/// Calls the compiled kernel through C and returns each output's values.
pub fn run_in_c(graph: &Graph, name: &str, args: &[Arg], math: MathLowering) -> Vec<Vec<f32>> {
    let kernels = collect_kernels(graph, name, &Default::default()).expect("kernel");
    let k = &kernels[0];
    let mut opts = CompileOptions::new(TargetArch::X86_64, EmitKind::Obj);
    opts.math = Some(math);
    let object = compile(&kernels, &opts).expect("compile");

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{math:?}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernel.o"), object).unwrap();
    std::fs::write(
        dir.join("kernel.h"),
        c_header("test.ir", &kernels, TargetArch::X86_64),
    )
    .unwrap();

    let mut c = String::from(
        "#include <stdio.h>\n#include <stdint.h>\n#include <string.h>\n#include \"kernel.h\"\n",
    );
    c.push_str("int main(void) {\n");
    let mut call = Vec::new();
    for (i, (a, decl)) in args.iter().zip(&k.args).enumerate() {
        match (a, decl) {
            (Arg::Tensor(v), KernelArg::Tensor { shape, .. }) => {
                assert_eq!(
                    v.len() as i64,
                    shape.iter().product::<i64>(),
                    "input {i} size"
                );
                let bits: Vec<String> = v
                    .iter()
                    .map(|x| format!("0x{:08x}u", x.to_bits()))
                    .collect();
                let n = v.len().max(1);
                c.push_str(&format!(
                    "  static const uint32_t b{i}[{n}] = {{{}}};\n  static float a{i}[{n}];\n  memcpy(a{i}, b{i}, sizeof a{i});\n",
                    if bits.is_empty() { "0".to_string() } else { bits.join(", ") }
                ));
                call.push(format!("a{i}"));
            }
            (Arg::Float(x), KernelArg::Float { .. }) => call.push(format!("{x:?}")),
            (Arg::Int(x), KernelArg::Int { .. }) => call.push(format!("(int64_t){x}")),
            _ => panic!("argument {i} does not match the kernel's signature"),
        }
    }
    assert_eq!(args.len(), k.args.len(), "argument count");
    for (i, o) in k.outputs.iter().enumerate() {
        let n = o.shape.iter().product::<i64>().max(1);
        c.push_str(&format!("  static float o{i}[{n}];\n"));
        call.push(format!("o{i}"));
    }
    c.push_str(&format!("  {}({});\n", k.name, call.join(", ")));
    for (i, o) in k.outputs.iter().enumerate() {
        let n = o.shape.iter().product::<i64>();
        c.push_str(&format!(
            "  for (int j = 0; j < {n}; j++) {{ uint32_t u; memcpy(&u, &o{i}[j], 4); printf(\"%d %08x\\n\", {i}, u); }}\n"
        ));
    }
    c.push_str("  return 0;\n}\n");
    std::fs::write(dir.join("main.c"), c).unwrap();
    let exe = dir.join("main");
    let status = Command::new("cc")
        .current_dir(&dir)
        .args([
            "-std=c11", "-Wall", "-Werror", "main.c", "kernel.o", "-lm", "-o",
        ])
        .arg(&exe)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc failed in {}", dir.display());
    let out = Command::new(&exe).output().expect("program runs");
    assert!(out.status.success(), "{} failed", exe.display());
    let mut outputs = vec![Vec::new(); k.outputs.len()];
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let (i, bits) = line.split_once(' ').unwrap();
        outputs[i.parse::<usize>().unwrap()]
            .push(f32::from_bits(u32::from_str_radix(bits, 16).unwrap()));
    }
    outputs
}

/// Compares with PyTorch's float32 tolerance; NaN matches NaN, infinities and zero signs exactly.
pub fn assert_close(case: &str, got: &[f32], want: &[f32], rtol: f32) {
    assert_eq!(got.len(), want.len(), "{case}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() || w == 0.0 {
            g.to_bits() == w.to_bits()
                || (w == 0.0 && g.abs() <= 1e-6 && g.is_sign_negative() == w.is_sign_negative())
        } else {
            (g - w).abs() <= 1e-6 + rtol * w.abs()
        };
        assert!(
            ok,
            "{case}[{i}]: got {g:e} ({:08x}), want {w:e} ({:08x})",
            g.to_bits(),
            w.to_bits()
        );
    }
}

/// Whether `tool --version` runs.
pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds `packages` (`cargo build -q ARGS...`, e.g. `-p ember-runtime --lib`) with this
/// test's profile and target folder, as the lit harness builds its tools, so that the
/// artifacts are fresh; returns the profile folder (`target/debug`) they are in.
pub fn cargo_build(args: &[&str]) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's executable");
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps");
    let target = profile_dir.parent().expect("the target folder");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev",
        Some(p) => p,
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(cargo)
        .current_dir(repo)
        .args(["build", "-q", "--profile", profile])
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo build {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    profile_dir.to_path_buf()
}
