//! `cargo test` runs the whole lit suite: it builds the workspace's binaries with the profile
//! and target directory of this test, then runs every test file under `test/` with them.

use std::path::PathBuf;

use ember_lit::build::build_tools;
use ember_lit::config::default_test_root;
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

#[test]
fn lit_suite() {
    let profile_dir = profile_dir();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    if let Err(e) = build_tools(&cargo, &profile_dir) {
        panic!("{e}");
    }
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
