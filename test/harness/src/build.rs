//! Building the tools the tests run: every binary of the workspace, with the profile and
//! target directory of the harness itself, so that the tests never run stale tools.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use crate::config::{repo_root, target_root_of};

/// Runs `cargo build --workspace --bins` so that the binaries land in `profile_dir`
/// (`<target>[/<triple>]/<profile>`). Cargo's output is returned in the error when it fails.
pub fn build_tools(cargo: &OsStr, profile_dir: &Path) -> Result<(), String> {
    let target_root = target_root_of(profile_dir);
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev",
        Some(name) => name,
    };
    let mut cmd = Command::new(cargo);
    cmd.current_dir(repo_root())
        .args(["build", "--workspace", "--bins", "--profile", profile])
        .env("CARGO_TARGET_DIR", &target_root);
    // A cross build puts the profile directory under `<target>/<triple>/`.
    if let Some(above) = profile_dir.parent().filter(|&a| a != target_root) {
        if let Some(triple) = above.file_name() {
            cmd.arg("--target").arg(triple);
        }
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cargo.to_string_lossy()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "building the tools failed ({cmd:?}):\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
