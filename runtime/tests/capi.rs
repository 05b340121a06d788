//! The C API from C and C++: a bundle written for a small graph with a weight, embedded in a
//! C file as an `ember_compiled_model` (no compiled entry: the interpreter runs it), compiled
//! with `cc` against ember.h, linked with libember_runtime.a and run; its printed outputs
//! must be the interpreter's. A third model has an entry written in C that drives
//! `ember_rt_*` as compiled code does: it runs when the guards hold, the interpreter when not.
//! The same through ember.hpp with `c++`. Skips (saying why) when no C compiler is installed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use ember_runtime::aot::{Bundle, CompiledModel};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::Tensor;

const GRAPH: &str = "graph(%x : Tensor,
      %n : int,
      %w : Float(3, strides=[1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %w) # c.py:2:8
  %z : Tensor = aten::add(%y, %x, %one) # c.py:3:8
  %s : Tensor = aten::mul(%z, %n) # c.py:4:8
  %m : int = aten::mul(%n, %n) # c.py:5:8
  %t : (Tensor, int) = prim::TupleConstruct(%s, %m)
  return (%t)
";

fn bundle() -> Bundle {
    Bundle {
        graph_text: GRAPH.into(),
        n_user_inputs: 2,
        input_names: vec!["x".into(), "n".into()],
        guard_types: vec![
            "Float(3, strides=[1], requires_grad=0, device=cpu)".into(),
            "int".into(),
        ],
        defaults: String::new(),
        weights: vec![Tensor::from_vec(vec![0.5f32, 1.5, -2.25], &[3]).unwrap()],
        memory_plan: None,
    }
}

/// The C program: runs both models (embedded weights, and external weights from argv[1]) on
/// x = [1, 2, 3], n = 3, prints the tuple, then shows the errors of a bad shape and a wrong
/// input count, and that the caller's memory came back through the deleter.
const MAIN_C: &str = r#"
#include <stdio.h>
#include "ember.h"

extern const ember_compiled_model tiny_embedded, tiny_external;
extern const uint8_t tiny_embedded_bundle[];
static int deleted = 0;
static void on_delete(void *data, void *ctx) { (void)data; *(int *)ctx += 1; }

/* The graph compiled by hand as the contract says: registers 0 (x), 1 (n, boxed) and 2 (w)
 * are the inputs, 3 the output, 4 and 5 temporaries; nodes in pre-order. */
static int entry_calls = 0;
static int32_t tiny_entry(void *ctx) {
    entry_calls++;
    int64_t one = 0, m = 0;
    int64_t n = ember_rt_unbox(ctx, 1);
    ember_rt_op(ctx, 0, NULL, &one);
    int64_t a1[2] = {0, 2}, o1[1] = {4};
    ember_rt_op(ctx, 1, a1, o1);                 /* y = mul(x, w) */
    int64_t a2[3] = {-5, -1, one}, o2[1] = {5};
    ember_rt_op(ctx, 2, a2, o2);                 /* z = add(move y, move x, 1) */
    int64_t a3[2] = {-6, n}, o3[1] = {4};
    ember_rt_op(ctx, 3, a3, o3);                 /* s = mul(move z, n) */
    int64_t a4[2] = {n, n};
    ember_rt_op(ctx, 4, a4, &m);                 /* m = n * n */
    int64_t a5[2] = {-5, m}, o5[1] = {3};
    ember_rt_op(ctx, 5, a5, o5);                 /* (s, m) */
    return ember_rt_failed(ctx);
}
const ember_compiled_model tiny_compiled = {EMBER_ABI_VERSION, 0, "tiny", "forward",
    tiny_embedded_bundle, TINY_EMBEDDED_LEN, tiny_entry, 6};

static void print_tensor(const ember_value *t) {
    int64_t numel = 0;
    ember_tensor_numel(t, &numel);
    const float *d = NULL;
    ember_tensor_data(t, (void **)&d);
    printf("[");
    for (int64_t i = 0; i < numel; i++) printf("%s%.9g", i ? " " : "", d[i]);
    printf("]");
}

static int run(const ember_compiled_model *cm, const char *weights, const char *label) {
    ember_model *m = NULL;
    if (ember_model_open(cm, weights, &m) != EMBER_OK) {
        printf("open failed: %s\n", ember_last_error());
        return 1;
    }
    printf("%s inputs %zu: %s %s\n", label, ember_model_num_inputs(m),
           ember_model_input_name(m, 0), ember_model_input_name(m, 1));
    float x[3] = {1.0f, 2.0f, 3.0f};
    int64_t sizes[1] = {3};
    ember_value *in[2];
    in[0] = ember_tensor_wrap(x, EMBER_FLOAT32, 1, sizes, NULL, on_delete, &deleted);
    in[1] = ember_int(3);
    ember_value *out = NULL;
    ember_status s = ember_model_run(m, in, 2, &out);
    if (s != EMBER_OK) {
        printf("run failed (%d): %s\n", (int)s, ember_last_error());
        return 1;
    }
    size_t len = 0;
    ember_value_len(out, &len);
    ember_value *t = NULL, *k = NULL;
    ember_value_item(out, 0, &t);
    ember_value_item(out, 1, &k);
    int64_t m2 = 0;
    ember_value_to_int(k, &m2);
    ember_dtype dt;
    ember_tensor_dtype(t, &dt);
    printf("%s out: kind %d len %zu dtype %d ", label, (int)ember_value_kind(out), len, (int)dt);
    print_tensor(t);
    printf(" %lld\n", (long long)m2);
    ember_value_free(t);
    ember_value_free(k);
    ember_value_free(out);

    /* A shape the graph cannot broadcast: the interpreter's error, with the node. */
    int64_t two[1] = {2};
    ember_value *bad[2] = {ember_tensor_wrap(x, EMBER_FLOAT32, 1, two, NULL, NULL, NULL), in[1]};
    s = ember_model_run(m, bad, 2, &out);
    printf("%s bad shape: status %d out %s\n%s\n", label, (int)s, out ? "set" : "NULL", ember_last_error());
    /* Size 1 broadcasts: not the compiled shape, so the interpreter runs it. */
    int64_t one_size[1] = {1};
    ember_value *small[2] = {ember_tensor_wrap(x + 1, EMBER_FLOAT32, 1, one_size, NULL, NULL, NULL), in[1]};
    s = ember_model_run(m, small, 2, &out);
    printf("%s fallback: status %d ", label, (int)s);
    ember_value_item(out, 0, &t);
    print_tensor(t);
    printf("\n");
    ember_value_free(t);
    ember_value_free(out);
    ember_value_free(small[0]);
    s = ember_model_run(m, in, 1, &out);
    printf("%s one input: status %d: %s\n", label, (int)s, ember_last_error());
    s = ember_model_run(m, in, 2, NULL);
    printf("%s null output: status %d\n", label, (int)s);
    ember_value_free(bad[0]);
    ember_value_free(in[0]);
    ember_value_free(in[1]);
    ember_model_free(m);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    if (run(&tiny_embedded, NULL, "embedded")) return 1;
    if (run(&tiny_external, argv[1], "external")) return 1;
    if (run(&tiny_compiled, NULL, "compiled")) return 1;
    printf("entry calls %d\n", entry_calls);
    ember_model *m = NULL;
    ember_status s = ember_model_open(&tiny_external, NULL, &m);
    printf("external without file: status %d: %s\n", (int)s, ember_last_error());
    printf("deleted %d\n", deleted);
    return 0;
}
"#;

/// The C++ program: the embedded model through ember.hpp.
const MAIN_CPP: &str = r#"
#include <cstdio>
#include "ember.hpp"

extern "C" const ember_compiled_model tiny_embedded;

int main() {
    ember::Model model(tiny_embedded);
    float x[3] = {1.0f, 2.0f, 3.0f};
    ember::Value in0 = ember::Value::wrap(x, EMBER_FLOAT32, {3});
    ember::Value in1 = ember::Value::of(int64_t{3});
    ember::Value out = model.run({&in0, &in1});
    ember::Value t = out[0];
    std::printf("c++ %s %s: [", model.input_name(0).c_str(), model.input_name(1).c_str());
    const float *d = t.data<float>();
    for (int64_t i = 0; i < t.numel(); i++) std::printf("%s%.9g", i ? " " : "", d[i]);
    std::printf("] %lld\n", (long long)out[1].to_int());
    try {
        model.run({&in0});
    } catch (const ember::Error &e) {
        std::printf("c++ error %d\n", (int)e.status());
    }
    return 0;
}
"#;

/// A C definition of `ember_compiled_model` `symbol` over `bytes`.
fn model_definition(symbol: &str, bytes: &[u8], external: bool) -> String {
    let mut c = format!(
        "const uint8_t {symbol}_bundle[{}] __attribute__((aligned(64))) = {{",
        bytes.len()
    );
    for (i, b) in bytes.iter().enumerate() {
        if i % 24 == 0 {
            c.push_str("\n ");
        }
        write!(c, "{b},").unwrap();
    }
    write!(
        c,
        "\n}};\nconst ember_compiled_model {symbol} = {{EMBER_ABI_VERSION, {}, \"tiny\", \"forward\", \
         {symbol}_bundle, sizeof {symbol}_bundle, NULL, 0}};\n",
        if external { "EMBER_WEIGHTS_EXTERNAL" } else { "0" }
    )
    .unwrap();
    c
}

/// The runtime's static library that cargo built with this test (the newest of the deps
/// folder's `libember_runtime-*.a`, or `target/<profile>/libember_runtime.a`).
fn runtime_library() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("EMBER_RUNTIME_LIB") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    let candidates = std::fs::read_dir(deps)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libember_runtime") && n.ends_with(".a"))
        })
        .chain(deps.parent().map(|d| d.join("libember_runtime.a")))
        .filter(|p| p.exists());
    candidates.max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn compile_and_run(
    compiler: &str,
    args: &[&Path],
    extra: &[&str],
    out: &Path,
    run_args: &[&Path],
) -> String {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let status = Command::new(compiler)
        .args(extra)
        .arg("-I")
        .arg(&include)
        .args(args)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{compiler} failed:\n{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let run = Command::new(out).args(run_args).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{} failed ({}):\n{stdout}\n{}",
        out.display(),
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// What the interpreter gives for `x` and n = 3: the tensor as the C program prints it, and
/// the int.
fn interpreted(x: &[f32]) -> (String, i64) {
    // SAFETY: no compiled entry.
    let m = unsafe { CompiledModel::from_parts(bundle(), None, 0) }.unwrap();
    let x = Tensor::from_vec(x.to_vec(), &[x.len() as i64]).unwrap();
    let out = m
        .run_interpreted(vec![IValue::Tensor(x), IValue::Int(3)])
        .unwrap();
    let IValue::Tuple(items) = out else {
        panic!("not a tuple")
    };
    let t = items[0].as_tensor().unwrap().to_vec::<f32>();
    let values: Vec<String> = t.iter().map(|v| format!("{v}")).collect();
    (
        format!("[{}]", values.join(" ")),
        items[1].as_int().unwrap(),
    )
}

/// The C program's line for x = [1, 2, 3], n = 3.
fn interpreter_line(label: &str) -> String {
    let (t, m) = interpreted(&[1.0, 2.0, 3.0]);
    format!("{label} out: kind 6 len 2 dtype 6 {t} {m}")
}

#[test]
fn c_and_cpp_programs_run_a_bundled_model() {
    let Some(cc) = ["cc", "gcc", "clang"].into_iter().find(|c| have(c)) else {
        eprintln!("skipped: no C compiler (cc, gcc or clang) on PATH");
        return;
    };
    let Some(lib) = runtime_library() else {
        eprintln!("skipped: libember_runtime.a not found beside the test (set EMBER_RUNTIME_LIB)");
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (embedded, _) = bundle().to_bytes(false);
    let (external, weights) = bundle().to_bytes(true);
    let weights_path = dir.join("tiny.weights");
    std::fs::write(&weights_path, weights.unwrap()).unwrap();
    let models = dir.join("models.c");
    std::fs::write(
        &models,
        format!(
            "#include \"ember.h\"\n{}{}",
            model_definition("tiny_embedded", &embedded, false),
            model_definition("tiny_external", &external, true)
        ),
    )
    .unwrap();
    let main_c = dir.join("main.c");
    std::fs::write(&main_c, MAIN_C).unwrap();
    let exe = dir.join("main");
    let len = format!("-DTINY_EMBEDDED_LEN={}", embedded.len());
    let flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", &len];
    let out = compile_and_run(
        cc,
        &[&main_c, &models, &lib],
        &flags,
        &exe,
        &[&weights_path],
    );
    eprintln!("{out}");
    let lines: Vec<&str> = out.lines().collect();
    for label in ["embedded", "external", "compiled"] {
        assert!(
            lines.contains(&format!("{label} inputs 2: x n").as_str()),
            "{out}"
        );
        assert!(lines.contains(&interpreter_line(label).as_str()), "{out}");
        let fallback = format!("{label} fallback: status 0 {}", interpreted(&[2.0]).0);
        assert!(lines.contains(&fallback.as_str()), "{fallback}\n{out}");
        assert!(
            out.contains(&format!(
                "{label} bad shape: status 3 out NULL\nember_model_run: "
            )),
            "{out}"
        );
        assert!(out.contains(&format!("{label} one input: status 1: ember_model_run: tiny.forward takes 2 inputs (x, n), got 1")), "{out}");
        assert!(
            out.contains(&format!("{label} null output: status 1")),
            "{out}"
        );
    }
    // The broadcast error names the node and its source.
    assert!(out.contains("in aten::mul at c.py:2:8"), "{out}");
    assert!(out.contains("external without file: status 2: ember_model_open: the model's weights are in a separate file"), "{out}");
    // One compiled run: the shapes that miss the guards ran interpreted.
    assert!(lines.contains(&"entry calls 1"), "{out}");
    assert!(lines.contains(&"deleted 3"), "{out}");

    let Some(cxx) = ["c++", "g++", "clang++"].into_iter().find(|c| have(c)) else {
        eprintln!("skipped the C++ part: no C++ compiler on PATH");
        return;
    };
    let main_cpp = dir.join("main.cpp");
    std::fs::write(&main_cpp, MAIN_CPP).unwrap();
    let models_o = dir.join("models.o");
    let status = Command::new(cc)
        .arg("-c")
        .arg("-I")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("include"))
        .arg(&models)
        .arg("-o")
        .arg(&models_o)
        .status()
        .unwrap();
    assert!(status.success());
    let exe = dir.join("main_cpp");
    let out = compile_and_run(
        cxx,
        &[&main_cpp, &models_o, &lib],
        &["-std=c++17", "-Wall", "-Wextra", "-Werror"],
        &exe,
        &[],
    );
    let want = interpreter_line("x").replace("x out: kind 6 len 2 dtype 6", "c++ x n:");
    assert_eq!(out, format!("{want}\nc++ error 1\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}
