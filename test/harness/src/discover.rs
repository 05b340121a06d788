//! Finding test files: every file under the given paths whose name ends in a test suffix and
//! that mentions `RUN:` (its RUN lines, after a comment leader).

use std::fs;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::script::mentions_run;

/// File name endings of test files, as `test/lit.cfg.py` lists them for `lit`.
pub const TEST_SUFFIXES: &[&str] = &[".ir", ".py", ".mlir", ".ll", ".c", ".test"];

/// Directories never searched below a root: `Inputs` holds files that tests read (lit's
/// convention), `Output` is where `lit` keeps its temporary files.
const SKIPPED_DIRS: &[&str] = &["Inputs", "Output"];

/// Files that carry the suffix of a test but are configuration.
const SKIPPED_FILES: &[&str] = &["lit.cfg.py", "lit.site.cfg.py"];

/// Whether `path` has a test suffix and is not a configuration file.
pub fn has_test_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    !SKIPPED_FILES.contains(&name) && TEST_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Whether `path` is a test: a test name and `RUN:` in its text (as for lit). A file that
/// mentions `RUN:` other than on a RUN line is a test that fails and says why.
pub fn is_test_file(path: &Path) -> bool {
    if !has_test_name(path) {
        return false;
    }
    let Ok(bytes) = fs::read(path) else {
        return false;
    };
    mentions_run(&String::from_utf8_lossy(&bytes))
}

/// The test files under `roots`, sorted and without duplicates. A root that is a file is taken
/// as a test whatever its name (a file without `RUN:` lines then fails when it runs); a root
/// that does not exist is an error.
pub fn find_tests(roots: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for root in roots {
        if root.is_file() {
            found.push(root.clone());
            continue;
        }
        if !root.is_dir() {
            return Err(format!("{}: no such file or directory", root.display()));
        }
        let walk = WalkDir::new(root)
            .follow_links(true)
            .into_iter()
            .filter_entry(|e| {
                let skipped = e.depth() > 0
                    && e.file_type().is_dir()
                    && e.file_name()
                        .to_str()
                        .is_some_and(|n| SKIPPED_DIRS.contains(&n));
                !skipped
            });
        for entry in walk {
            let entry = entry.map_err(|e| format!("{}: {e}", root.display()))?;
            if entry.file_type().is_file() && is_test_file(entry.path()) {
                found.push(entry.into_path());
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for (name, want) in [
            ("a.ir", true),
            ("x/b.test", true),
            ("c.py", true),
            ("d.mlir", true),
            ("e.ll", true),
            ("f.c", true),
            ("lit.cfg.py", false),
            ("g.rs", false),
            ("h.irx", false),
            ("Cargo.toml", false),
        ] {
            assert_eq!(has_test_name(Path::new(name)), want, "{name}");
        }
    }
}
