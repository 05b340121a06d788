//! Runs the Python package's pytest suite (bindings/python/tests/test_ember.py) against the
//! extension module cargo built beside this test (`libember.so`, copied as `ember.abi3.so`),
//! with the Python that tools/bootstrap.sh prepares (target/py-venv, numpy and pytest) or
//! `$EMBER_TEST_PYTHON`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("EMBER_TEST_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = workspace().join("target/py-venv/bin/python");
    venv.exists().then_some(venv)
}

#[test]
fn pytest_suite_passes() {
    let Some(python) = python() else {
        println!(
            "skipped: no Python with numpy and pytest (run tools/bootstrap.sh, which makes \
             target/py-venv, or set EMBER_TEST_PYTHON)"
        );
        return;
    };
    // The test runs as target/debug/deps/pytest-HASH; cargo builds the extension beside it
    // (deps/libember.so), and `cargo build` copies it to target/debug.
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let lib = [
        deps.join("libember.so"),
        deps.parent().unwrap().join("libember.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .unwrap_or_else(|| panic!("libember.so was not built beside {}", exe.display()));
    let dir = std::env::temp_dir().join(format!("ember-py-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&lib, dir.join("ember.abi3.so")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("ember.pyi"),
        dir.join("ember.pyi"),
    )
    .unwrap();
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"))
        .env("PYTHONPATH", &dir)
        .output()
        .expect("python runs");
    let _ = std::fs::remove_dir_all(&dir);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "pytest failed:\n{text}");
}
