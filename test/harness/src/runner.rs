//! Running test files: each file's commands in order until one fails, many files at once.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::config::{absolute, Config};
use crate::exec::{run_command, with_suffix, CommandEnv};
use crate::report::{Outcome, Summary, TestResult};
use crate::script::{parse_run_lines, Substitutions};

/// Runs one test file: its `RUN:` commands in order, stopping at the first that fails. All
/// commands together get `cfg.timeout`.
pub fn run_test(cfg: &Config, test: &Path) -> TestResult {
    let path = absolute(test);
    let shown = cfg.display_path(&path);
    let outcome = run_file(cfg, &path);
    TestResult {
        path,
        shown,
        outcome,
    }
}

fn run_file(cfg: &Config, path: &Path) -> Outcome {
    let text = match fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return Outcome::Broken(format!("cannot read the file: {e}")),
    };
    let commands = match parse_run_lines(&text) {
        Ok(c) if c.is_empty() => return Outcome::Broken("no command in its RUN lines".to_string()),
        Ok(c) => c,
        Err(e) => return Outcome::Broken(e),
    };
    let tmp_base = cfg.tmp_base(path);
    let tmp_dir = tmp_base.parent().unwrap_or(&cfg.tmp_root).to_path_buf();
    if let Err(e) = fs::create_dir_all(&tmp_dir) {
        return Outcome::Broken(format!("cannot create {}: {e}", tmp_dir.display()));
    }
    let subs = Substitutions::new(path, &with_suffix(&tmp_base, ".tmp"), &tmp_dir);
    let search_path = cfg.search_path();
    let cwd = path.parent().unwrap_or(Path::new("/"));
    let capture = with_suffix(&tmp_base, ".out");
    let env = CommandEnv {
        path: &search_path,
        cwd,
        capture: &capture,
    };
    let deadline = Instant::now() + cfg.timeout;
    for run in commands {
        let command = subs.apply(&run.command);
        let result = run_command(&command, &env, deadline).map_err(|e| e.to_string());
        if !result.as_ref().is_ok_and(|r| r.success()) {
            return Outcome::Fail {
                line: run.line,
                command,
                result,
                timeout: cfg.timeout,
            };
        }
    }
    Outcome::Pass
}

/// Runs `tests` on `cfg.jobs` threads, calling `on_done` as each finishes; the summary lists
/// them in the order given.
pub fn run_tests<F>(cfg: &Config, tests: &[impl AsRef<Path> + Sync], on_done: F) -> Summary
where
    F: Fn(&TestResult) + Sync,
{
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<TestResult>>> = tests.iter().map(|_| Mutex::new(None)).collect();
    let workers = cfg.jobs.clamp(1, tests.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(test) = tests.get(i) else { break };
                let result = run_test(cfg, test.as_ref());
                on_done(&result);
                *slots[i].lock().unwrap() = Some(result);
            });
        }
    });
    let results = slots
        .into_iter()
        .filter_map(|s| s.into_inner().unwrap())
        .collect();
    Summary { results }
}
