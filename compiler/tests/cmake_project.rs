//! The CMake package end to end: Ember installed with `cmake --install` (cmake/CMakeLists.txt),
//! the test project test/cmake/ configured against the installed tree with
//! `find_package(Ember CONFIG REQUIRED)`, models of the .pt corpus compiled whole by
//! `ember_add_model()` and built into C and C++ programs, the programs run on the recorded
//! inputs: their outputs match PyTorch's (rtol 1e-4). resnet18 too when
//! test/setup/pt_models.sh wrote it. Skips, saying why, without cmake or a C compiler.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use ember_runtime::npz_case::Arrays;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes the arrays of `npz` named `prefix_N` as `dir/name.prefix_N.npy`, in order.
fn arrays(npz: &Path, prefix: &str, dir: &Path, name: &str) -> Vec<PathBuf> {
    let arrays = Arrays::load(npz).unwrap();
    let mut paths = Vec::new();
    while let Some(t) = arrays.get(&format!("{prefix}_{}", paths.len())) {
        let p = dir.join(format!("{name}.{prefix}_{}.npy", paths.len()));
        std::fs::write(&p, ember_runtime::npy::write_npy(t).unwrap()).unwrap();
        paths.push(p);
    }
    paths
}

#[test]
fn cmake_project_builds_and_runs_compiled_models() {
    for tool in ["cmake", "cc", "c++", "make"] {
        if !common::have(tool) {
            eprintln!("skipped: no {tool} on PATH (tools/bootstrap.sh installs it)");
            return;
        }
    }
    // The tools and the runtime library of this test's profile, fresh (as the lit harness
    // builds its tools).
    let profile_dir = common::cargo_build(&["-p", "emberc", "-p", "ember-runtime"]);
    let target = profile_dir.parent().unwrap().to_path_buf();

    let work = target.join(format!("cmake-project-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let prefix = work.join("prefix");
    run(Command::new("cmake")
        .arg("-S")
        .arg(repo().join("cmake"))
        .arg("-B")
        .arg(work.join("install"))
        .arg(format!(
            "-DEMBER_CARGO_PROFILE_DIR={}",
            profile_dir.display()
        )));
    run(Command::new("cmake")
        .arg("--install")
        .arg(work.join("install"))
        .arg("--prefix")
        .arg(&prefix));
    for installed in [
        "bin/emberc",
        "lib/libember_runtime.a",
        "include/ember.h",
        "include/ember.hpp",
        "lib/cmake/Ember/EmberConfig.cmake",
    ] {
        assert!(prefix.join(installed).exists(), "{installed} not installed");
    }

    let build = work.join("build");
    let large = repo().join("target/pt-large/resnet18.pt");
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(repo().join("test/cmake"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()));
    if large.exists() {
        configure.arg(format!("-DEMBER_RESNET18={}", large.display()));
    } else {
        eprintln!("resnet18 left out: test/setup/pt_models.sh has not written it");
    }
    run(&mut configure);
    run(Command::new("cmake").arg("--build").arg(&build).arg("-j2"));

    let pt = repo().join("test/pt");
    let mut models = vec![
        ("rnn_tagger", pt.join("rnn_tagger_scripted.npz")),
        ("lstm_cell", pt.join("script_lstm_custom_cell.npz")),
        ("module_list_dict", pt.join("module_list_dict.npz")),
        ("mlp", pt.join("mlp_scripted.npz")),
    ];
    if large.exists() {
        models.push(("resnet18", large.with_extension("npz")));
    }
    for (name, npz) in &models {
        let mut cmd = Command::new(build.join(format!("run_{name}")));
        if *name == "mlp" {
            cmd.arg("--weights")
                .arg(build.join("ember/mlp/mlp.weights"));
        }
        // Compiled with SHAPES: the first call takes every planned buffer from one block.
        let shaped = ["lstm_cell", "mlp", "resnet18"].contains(name);
        if shaped {
            cmd.arg("--memory");
        }
        cmd.args(arrays(npz, "input", &work, name))
            .arg("--expect")
            .args(arrays(npz, "output", &work, name));
        let printed = run(&mut cmd);
        assert!(
            printed.contains("matches the expected array"),
            "{name}: {printed}"
        );
        if shaped {
            let counts: Vec<&str> = printed
                .lines()
                .find_map(|l| l.strip_prefix("first call: "))
                .map(|l| l.split(' ').collect())
                .unwrap_or_default();
            assert!(
                counts.len() > 3 && counts[0] == counts[2] && counts[0] != "0",
                "{name}: {printed}"
            );
        }
        eprintln!("{name}: {}", printed.trim());
    }

    // The C++ program: the MLP's recorded input as raw float32, its printed outputs compared.
    let npz = Arrays::load(&pt.join("mlp_scripted.npz")).unwrap();
    let (x, want) = (npz.get("input_0").unwrap(), npz.get("output_0").unwrap());
    let raw: Vec<u8> = x
        .to_vec::<f32>()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(work.join("mlp.raw"), raw).unwrap();
    let printed = run(Command::new(build.join("cpp_mlp"))
        .arg(work.join("mlp.raw"))
        .arg(x.sizes()[0].to_string()));
    let got: Vec<f64> = printed.lines().map(|l| l.trim().parse().unwrap()).collect();
    let want = want.to_vec::<f64>();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-5 + 1e-4 * w.abs(),
            "C++: {g}, PyTorch {w}"
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}
