//! A test's script: its `RUN:` lines, joined across `\` continuations, and lit's `%`
//! substitutions.

use std::path::Path;

/// One command of a test: the text of one `RUN:` line and its continuations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based line number of the first `RUN:` line of the command.
    pub line: usize,
    pub command: String,
}

/// The comment leaders a `RUN:` line may start with: C-like, Python-like and LLVM IR-like.
const COMMENT_LEADERS: &[&str] = &["//", "#", ";"];

/// The text after `RUN:` when `line` is a `RUN:` line (a comment leader, spaces, `RUN:`).
fn run_line_content(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let leader = COMMENT_LEADERS.iter().find(|l| line.starts_with(*l))?;
    line[leader.len()..].trim_start().strip_prefix("RUN:")
}

/// The keyword of a command line.
const RUN_KEYWORD: &str = "RUN:";

/// Whether `text` mentions `RUN:` anywhere, which makes a file with a test suffix a test.
pub fn mentions_run(text: &str) -> bool {
    text.contains(RUN_KEYWORD)
}

/// The commands of a test, in order. A `RUN:` line ending in `\` continues on the next `RUN:`
/// line (the `\` is dropped and the texts are joined, as lit does); a continuation that never
/// ends is an error. So is `RUN:` anywhere else in a line: lit would run what follows it.
pub fn parse_run_lines(text: &str) -> Result<Vec<RunLine>, String> {
    let mut commands: Vec<RunLine> = Vec::new();
    let mut continuing = false;
    for (index, line) in text.lines().enumerate() {
        let Some(content) = run_line_content(line) else {
            if line.contains(RUN_KEYWORD) {
                return Err(format!(
                    "line {}: `{RUN_KEYWORD}` after something other than a comment leader \
                     (lit would run the rest of the line)",
                    index + 1
                ));
            }
            continue;
        };
        let content = content.trim_end();
        if continuing {
            let last = commands
                .last_mut()
                .expect("a continuation follows a command");
            last.command.push_str(content);
        } else {
            commands.push(RunLine {
                line: index + 1,
                command: content.to_string(),
            });
        }
        let last = commands.last_mut().expect("a command was just pushed");
        continuing = last.command.ends_with('\\');
        if continuing {
            last.command.pop();
        }
    }
    if continuing {
        let line = commands.last().map_or(0, |c| c.line);
        return Err(format!(
            "the command at line {line} ends in `\\` but no RUN line continues it"
        ));
    }
    commands.retain(|c| !c.command.trim().is_empty());
    for c in &mut commands {
        c.command = c.command.trim().to_string();
    }
    Ok(commands)
}

/// The values of lit's substitutions for one test.
#[derive(Clone, Debug)]
pub struct Substitutions {
    /// `%s`: the test file.
    pub source: String,
    /// `%S` and `%p`: the directory of the test file.
    pub source_dir: String,
    /// `%t`: a temporary path unique to the test.
    pub temp: String,
    /// `%T`: a temporary directory (shared by the tests of one source directory, as in lit).
    pub temp_dir: String,
}

impl Substitutions {
    pub fn new(source: &Path, temp: &Path, temp_dir: &Path) -> Substitutions {
        let dir = source.parent().unwrap_or(Path::new("."));
        Substitutions {
            source: source.display().to_string(),
            source_dir: dir.display().to_string(),
            temp: temp.display().to_string(),
            temp_dir: temp_dir.display().to_string(),
        }
    }

    /// `command` with `%s`, `%S`, `%p`, `%t`, `%T` replaced and `%%` turned into `%`, in one
    /// pass from left to right so that a replacement is never substituted again. Any other `%`
    /// stays as written.
    pub fn apply(&self, command: &str) -> String {
        let mut out = String::with_capacity(command.len());
        let mut chars = command.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let replacement = match chars.peek() {
                Some('%') => "%",
                Some('s') => &self.source,
                Some('S') | Some('p') => &self.source_dir,
                Some('t') => &self.temp,
                Some('T') => &self.temp_dir,
                _ => {
                    out.push('%');
                    continue;
                }
            };
            chars.next();
            out.push_str(replacement);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;

    fn check_parse(text: &str, expect: Expect) {
        let got = match parse_run_lines(text) {
            Ok(lines) => lines
                .iter()
                .map(|l| format!("{}: {}\n", l.line, l.command))
                .collect(),
            Err(e) => format!("error: {e}\n"),
        };
        expect.assert_eq(&got);
    }

    #[test]
    fn run_lines_after_each_comment_leader() {
        check_parse(
            "// RUN: a %s\n# RUN: b\n; RUN: c\n  //RUN:d\n// CHECK: run\n",
            expect![[r#"
                1: a %s
                2: b
                3: c
                4: d
            "#]],
        );
    }

    #[test]
    fn continuations_join() {
        check_parse(
            "# RUN: ember-opt %s \\\n# RUN:   --dce \\\n# RUN: | FileCheck %s\n# RUN: next\n",
            expect![[r#"
                1: ember-opt %s    --dce  | FileCheck %s
                4: next
            "#]],
        );
    }

    #[test]
    fn run_outside_a_run_line_is_an_error() {
        check_parse(
            "# RUN: a\n# CHECK: RUN: b\n",
            expect![[r#"
                error: line 2: `RUN:` after something other than a comment leader (lit would run the rest of the line)
            "#]],
        );
    }

    #[test]
    fn empty_and_unterminated() {
        check_parse("# RUN:\n# nothing\n", expect![[""]]);
        check_parse(
            "x\n# RUN: a \\\n",
            expect![[r#"
                error: the command at line 2 ends in `\` but no RUN line continues it
            "#]],
        );
    }

    #[test]
    fn substitutions_in_one_pass() {
        let s = Substitutions::new(
            Path::new("/r/test/A/x.ir"),
            Path::new("/r/target/lit-tmp/A/x.ir.tmp"),
            Path::new("/r/target/lit-tmp/A"),
        );
        let cases = [
            (
                "tool %s -o %t",
                "tool /r/test/A/x.ir -o /r/target/lit-tmp/A/x.ir.tmp",
            ),
            ("ls %S %p %T", "ls /r/test/A /r/test/A /r/target/lit-tmp/A"),
            ("printf '100%%s'", "printf '100%s'"),
            ("echo %x %", "echo %x %"),
            ("%t.out", "/r/target/lit-tmp/A/x.ir.tmp.out"),
        ];
        for (input, want) in cases {
            assert_eq!(s.apply(input), want, "{input}");
        }
    }
}
