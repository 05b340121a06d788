//! Test outcomes and the report: each failing file with its failing command and output,
//! then the line `N passed, N failed`.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::exec::CommandResult;

/// How a test file ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    Pass,
    /// The file could not be run at all (unreadable, no `RUN:` line, ...).
    Broken(String),
    /// A command failed or ran out of time; the commands after it did not run.
    Fail {
        /// Line of the failing `RUN:` command.
        line: usize,
        /// The command after substitution, as bash ran it.
        command: String,
        /// How it ended, or why it could not be started.
        result: Result<CommandResult, String>,
        /// The time limit of the file, for the message when it was reached.
        timeout: Duration,
    },
}

/// One test file and its outcome.
#[derive(Clone, Debug)]
pub struct TestResult {
    pub path: PathBuf,
    /// The path as the report shows it.
    pub shown: String,
    pub outcome: Outcome,
}

impl TestResult {
    pub fn passed(&self) -> bool {
        matches!(self.outcome, Outcome::Pass)
    }

    /// The report of a failed test (empty for a passing one).
    pub fn failure_report(&self) -> String {
        let mut out = String::new();
        match &self.outcome {
            Outcome::Pass => {}
            Outcome::Broken(why) => {
                let _ = writeln!(out, "FAIL: {}\n  {why}", self.shown);
            }
            Outcome::Fail {
                line,
                command,
                result,
                timeout,
            } => {
                let _ = writeln!(out, "FAIL: {}", self.shown);
                let _ = writeln!(out, "  command at line {line}: {command}");
                match result {
                    Ok(r) => {
                        let _ = match r.status {
                            None => {
                                writeln!(out, "  timed out after {} s; killed", timeout.as_secs())
                            }
                            Some(s) => match s.code() {
                                Some(127) => writeln!(
                                    out,
                                    "  exit code 127: a command was not found \
                                     (are the tools built? `cargo build --bins`)"
                                ),
                                Some(code) => writeln!(out, "  exit code {code}"),
                                None => writeln!(out, "  {s}"),
                            },
                        };
                        section(&mut out, "stdout", &r.stdout);
                        section(&mut out, "stderr", &r.stderr);
                    }
                    Err(why) => {
                        let _ = writeln!(out, "  could not run: {why}");
                    }
                }
            }
        }
        out
    }
}

fn section(out: &mut String, name: &str, text: &str) {
    if text.is_empty() {
        return;
    }
    let _ = writeln!(out, "--- {name} ---");
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

/// The results of a run, sorted by path.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub results: Vec<TestResult>,
}

impl Summary {
    pub fn passed(&self) -> usize {
        self.results.iter().filter(|r| r.passed()).count()
    }

    pub fn failed(&self) -> usize {
        self.results.len() - self.passed()
    }

    /// The final line: `N passed, N failed`.
    pub fn totals(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }

    /// Every failure report, then the totals line.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for r in &self.results {
            out.push_str(&r.failure_report());
        }
        out.push_str(&self.totals());
        out.push('\n');
        out
    }
}
