//! Where things are: the directories of the tools, the temporary tree, the sources.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// LLVM 22's tools: the real `FileCheck`, `not` and `count`.
pub const LLVM_BIN_DIR: &str = "/usr/lib/llvm-22/bin";

/// How long one test file may run before its command is killed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// How the harness runs tests.
#[derive(Clone, Debug)]
pub struct Config {
    /// Directories put in front of `PATH`, first searched first.
    pub tool_dirs: Vec<PathBuf>,
    /// Root of the temporary files (`%t`, `%T`, captured output).
    pub tmp_root: PathBuf,
    /// Test paths under this root are shown and mirrored in `tmp_root` relative to it.
    pub source_root: PathBuf,
    /// Tests run at the same time.
    pub jobs: usize,
    /// Time limit for all commands of one test file together.
    pub timeout: Duration,
}

impl Config {
    /// The configuration for Ember binaries built in `profile_dir` (`target/debug`): the tools
    /// there and LLVM's come first in `PATH`; temporaries go to `<target>/lit-tmp`.
    pub fn for_profile_dir(profile_dir: &Path) -> Config {
        let profile_dir = absolute(profile_dir);
        Config {
            tmp_root: target_root_of(&profile_dir).join("lit-tmp"),
            tool_dirs: vec![profile_dir, PathBuf::from(LLVM_BIN_DIR)],
            source_root: repo_root(),
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The `PATH` commands see: the tool directories, then the inherited `PATH`.
    pub fn search_path(&self) -> String {
        let mut dirs: Vec<PathBuf> = self.tool_dirs.clone();
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        std::env::join_paths(dirs).map_or_else(
            |_| std::env::var("PATH").unwrap_or_default(),
            |p| p.to_string_lossy().into_owned(),
        )
    }

    /// `path` as shown in reports: relative to the source root when under it.
    pub fn display_path(&self, path: &Path) -> String {
        match path.strip_prefix(&self.source_root) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// The temporary base of a test (`%t` without `.tmp`): its path below `tmp_root`, relative
    /// to the source root when under it, else its whole absolute path.
    pub fn tmp_base(&self, test: &Path) -> PathBuf {
        let rel = test
            .strip_prefix(&self.source_root)
            .unwrap_or_else(|_| test.strip_prefix("/").unwrap_or(test));
        self.tmp_root.join(rel)
    }
}

/// The repository root: this crate lives in `<root>/test/harness`.
pub fn repo_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .unwrap_or(manifest_dir)
        .to_path_buf()
}

/// The default tests: the repository's `test/` directory.
pub fn default_test_root() -> PathBuf {
    repo_root().join("test")
}

/// Cargo's target directory holding `profile_dir`: the nearest ancestor with the
/// `CACHEDIR.TAG` cargo writes there (`target/` for `target/debug` and for
/// `target/x86_64-unknown-linux-gnu/debug`), else the parent.
pub fn target_root_of(profile_dir: &Path) -> PathBuf {
    profile_dir
        .ancestors()
        .skip(1)
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .or_else(|| profile_dir.parent())
        .unwrap_or(profile_dir)
        .to_path_buf()
}

/// `path` made absolute against the current directory, without resolving links.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_root_is_found_by_its_tag() {
        let root = std::env::temp_dir().join(format!("ember-lit-cfg-{}", std::process::id()));
        let triple = root.join("x86_64-unknown-linux-gnu/release");
        std::fs::create_dir_all(&triple).unwrap();
        std::fs::write(
            root.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n",
        )
        .unwrap();
        assert_eq!(target_root_of(&triple), root);
        assert_eq!(target_root_of(&root.join("debug")), root);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn temporaries_mirror_the_sources() {
        let mut cfg = Config::for_profile_dir(Path::new("/r/target/debug"));
        cfg.source_root = PathBuf::from("/r");
        assert_eq!(
            cfg.tmp_base(Path::new("/r/test/A/x.ir")),
            Path::new("/r/target/lit-tmp/test/A/x.ir")
        );
        assert_eq!(
            cfg.tmp_base(Path::new("/elsewhere/y.ir")),
            Path::new("/r/target/lit-tmp/elsewhere/y.ir")
        );
        assert_eq!(cfg.display_path(Path::new("/r/test/A/x.ir")), "test/A/x.ir");
        assert_eq!(
            cfg.search_path().split(':').take(2).collect::<Vec<_>>(),
            ["/r/target/debug", LLVM_BIN_DIR]
        );
    }
}
