//! `emberc`: outputs on disk, exit codes, and errors in `file:line:col: error:` form for bad
//! input of every kind, never a panic. The many-file sweeps run the tool's code in this process
//! (`ember_compiler::driver::emberc::compile_text`); the binary itself is run for the exit-status paths.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn emberc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_emberc"))
        .args(args)
        .output()
        .expect("emberc runs")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("emberc-cli")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exit status 1 with exactly one `FILE:LINE:COL: error: ...` line, or success.
fn assert_clean_outcome(file: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{file}: panic:\n{stderr}");
    match out.status.code() {
        Some(0) => {}
        Some(1) => {
            let line = stderr.lines().next().unwrap_or("");
            let rest = line
                .strip_prefix(&format!("{file}:"))
                .unwrap_or_else(|| panic!("{file}: {stderr}"));
            let mut parts = rest.splitn(3, ':');
            let (l, c, msg) = (parts.next(), parts.next(), parts.next());
            assert!(
                l.is_some_and(|l| l.parse::<u32>().is_ok())
                    && c.is_some_and(|c| c.parse::<u32>().is_ok())
                    && msg.is_some_and(|m| m.starts_with(" error: ")),
                "{file}: not a located error: {line}"
            );
        }
        other => panic!("{file}: exit status {other:?}\n{stderr}"),
    }
}

/// Compiles `text` as the model `file` in this process (as `emberc FILE -o OUT --emit=EMIT`
/// would) and checks the outcome: success, or one `FILE:LINE:COL: error: ...` message. A panic
/// names the file.
fn assert_compiles_or_fails_cleanly(file: &str, text: &str, emit: &str) -> bool {
    let out = scratch("in-process").join("out");
    let argv: Vec<String> = [file, "-o", out.to_str().unwrap(), "--emit", emit]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let args = ember_compiler::driver::emberc::parse_args(&argv).unwrap();
    let result = std::panic::catch_unwind(|| {
        ember_compiler::driver::emberc::compile_text(
            &args,
            text,
            ember_dialects::parse::parse_graph,
        )
    })
    .unwrap_or_else(|_| panic!("{file}: emberc panicked"));
    match result {
        Ok(()) => true,
        Err(msg) => {
            let rest = msg
                .strip_prefix(&format!("{file}:"))
                .unwrap_or_else(|| panic!("{file}: {msg}"));
            let mut parts = rest.splitn(3, ':');
            let (l, c, m) = (parts.next(), parts.next(), parts.next());
            assert!(
                l.is_some_and(|l| l.parse::<u32>().is_ok())
                    && c.is_some_and(|c| c.parse::<u32>().is_ok())
                    && m.is_some_and(|m| m.starts_with(" error: ")),
                "{file}: not a located error: {msg}"
            );
            false
        }
    }
}

#[test]
fn writes_the_object_and_the_header() {
    let dir = scratch("outputs");
    let model = repo().join("test/Conversion/FusionToObject/scalars.ir");
    let (obj, header) = (dir.join("scalars.o"), dir.join("scalars.h"));
    let out = emberc(&[
        model.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
        "--header",
        header.to_str().unwrap(),
        "--cpu",
        "native",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&obj).unwrap().starts_with(b"\x7fELF"));
    let h = std::fs::read_to_string(&header).unwrap();
    assert!(
        h.contains("void scalars(const float *a_1, const float *b_1, double s_1, float *out0);"),
        "{h}"
    );
}

#[test]
fn bad_graph_text_exits_1_with_a_location() {
    let file = scratch("bad").join("bad.ir");
    std::fs::write(
        &file,
        "graph(%x : Float(2)):\n  %y : Tensor = aten::exp(%x\n  return (%y)\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let out = emberc(&[f, "-o", "-"]);
    assert_eq!(out.status.code(), Some(1));
    assert_clean_outcome(f, &out);
}

#[test]
fn command_line_mistakes_exit_1() {
    for (args, want) in [
        (
            &["missing.ir", "-o", "-"][..],
            "emberc: error: cannot read missing.ir",
        ),
        (&["x.ir"][..], "emberc: error: missing -o OUT"),
        (
            &["x.ir", "-o", "-", "--emit=exe"][..],
            "emberc: error: unknown --emit 'exe'",
        ),
    ] {
        let out = emberc(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with(want), "{args:?}: {stderr}");
    }
    let model = repo().join("test/Conversion/FusionToMLIR/elementwise.ir");
    let out = emberc(&[
        model.to_str().unwrap(),
        "-o",
        "-",
        "--target",
        "nvptx64",
        "--emit=obj",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nvptx64 has no object files"));
    let out = emberc(&[model.to_str().unwrap(), "-o", "-", "--cpu", "sm_80"]);
    assert_eq!(out.status.code(), Some(1), "sm_80 is not an x86-64 CPU");
}

#[test]
fn truncated_and_garbled_models_fail_cleanly() {
    // Every prefix (by line) of every codegen test graph, and a few byte-level manglings.
    let dir = scratch("garbled");
    let mut sources = Vec::new();
    for sub in [
        "FusionToMLIR",
        "FusionToLLVM",
        "FusionToPTX",
        "FusionToObject",
    ] {
        for entry in std::fs::read_dir(repo().join("test/Conversion").join(sub)).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "ir") {
                sources.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    assert!(sources.len() >= 5);
    let mut n = 0;
    for src in &sources {
        let lines: Vec<&str> = src.lines().collect();
        let mut variants: Vec<String> = (1..lines.len()).map(|k| lines[..k].join("\n")).collect();
        variants.push(src.replace("Float(", "Float(("));
        variants.push(src.replace("3,", "-3,"));
        variants.push(src.replace("aten::", "aten:"));
        variants.push(src.replace("%x.1", "%nope"));
        for v in variants {
            let file = dir.join(format!("g{n}.ir"));
            n += 1;
            std::fs::write(&file, &v).unwrap();
            assert_compiles_or_fails_cleanly(file.to_str().unwrap(), &v, "llvm");
        }
    }
}

/// The sweeps skip the few whole-model dumps (torchvision, 50-350 KB: three quarters of the
/// corpus by size); they exercise only the parser, whose own tests read them.
const MAX_SWEEP_BYTES: u64 = 50_000;

/// Runs emberc on every `.ir` under `dir` up to [`MAX_SWEEP_BYTES`]; returns the files that
/// compiled.
fn compile_all_under(dir: &Path) -> Vec<PathBuf> {
    let mut compiled = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "ir")
                && p.metadata().unwrap().len() <= MAX_SWEEP_BYTES
            {
                seen += 1;
                let text = std::fs::read_to_string(&p).unwrap();
                if assert_compiles_or_fails_cleanly(p.to_str().unwrap(), &text, "obj") {
                    compiled.push(p);
                }
            }
        }
    }
    assert!(seen > 0, "no graphs under {}", dir.display());
    compiled
}

#[test]
fn real_pytorch_dumps_compile_or_fail_cleanly() {
    // Real PyTorch graphs (the parser's samples and the graph corpus): most are not
    // elementwise, and each must either compile or say why, at a location.
    let mut compiled = compile_all_under(&repo().join("dialects/tests/data/graphs"));
    compiled.extend(compile_all_under(&repo().join("test/corpus/graphs")));
    // TensorExpr fusion groups of add/sub/mul/sigmoid/tanh/relu with broadcasting, and a
    // traced graph with a 0-dim tensor input.
    for want in [
        "dialects/tests/data/graphs/profiled_fusible.ir",
        "test/corpus/graphs/profiled/broadcast.te.optimized.ir",
        "test/corpus/graphs/profiled/mixed_fusible.te.optimized.ir",
        "test/corpus/graphs/traced/zero_dim.ir",
    ] {
        assert!(
            compiled.iter().any(|p| p.ends_with(want)),
            "{want} did not compile"
        );
    }
}
