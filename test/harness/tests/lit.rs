//! `cargo test` runs the whole lit suite: it builds the workspace's binaries with the profile
//! and target directory of this test, then runs every test file under `test/` with them.

use std::path::{Path, PathBuf};
use std::process::Command;

use ember_lit::config::{default_test_root, repo_root, target_root_of};
use ember_lit::{find_tests, run_tests, Config};

/// The directory cargo put this test in: `<target>[/<triple>]/<profile>`, the parent of
/// `deps/` where the test executable lives.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let deps = exe.parent().expect("the test executable is in deps/");
    deps.parent()
        .expect("deps/ is in the profile directory")
        .to_path_buf()
}

/// Builds every binary of the workspace (ember-opt, emberc, ...) into `profile_dir` with the
/// cargo that runs this test.
fn build_binaries(profile_dir: &Path) {
    let target_root = target_root_of(profile_dir);
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_string(),
        Some(name) => name.to_string(),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(repo_root())
        .args(["build", "--workspace", "--bins", "--profile", &profile])
        .env("CARGO_TARGET_DIR", &target_root);
    // A cross build puts the profile directory under `<target>/<triple>/`.
    let above = profile_dir
        .parent()
        .expect("the profile directory has a parent");
    if above != target_root {
        let triple = above
            .file_name()
            .expect("a target triple")
            .to_string_lossy()
            .into_owned();
        cmd.args(["--target", &triple]);
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "building the tools failed ({:?}):\n{}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn lit_suite() {
    let profile_dir = profile_dir();
    build_binaries(&profile_dir);
    let root = default_test_root();
    let tests = find_tests(std::slice::from_ref(&root)).expect("the test tree can be read");
    assert!(
        !tests.is_empty(),
        "no test files found under {}",
        root.display()
    );
    let summary = run_tests(&Config::for_profile_dir(&profile_dir), &tests, |_| {});
    assert!(
        summary.failed() == 0,
        "lit tests failed:\n{}",
        summary.report()
    );
    println!("{}", summary.totals());
}
