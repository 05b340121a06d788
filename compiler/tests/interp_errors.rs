//! Errors raised inside loops, branches and calls report PyTorch's message at PyTorch's
//! location: test/interp/errors/ (tools/gen/gen_interp_errors.py) holds programs with the
//! message and the traceback real PyTorch gave. Each is compiled by Ember's frontend and run
//! in the interpreter; the message must be PyTorch's, and the frames PyTorch names must be
//! Ember's, outermost first, at the same line and column. PyTorch's executor inlines calls,
//! so its innermost frame may carry a callee's location under the caller's name: that frame
//! is matched by location against Ember's innermost.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ember_compiler::frontend::compile_source;
use ember_runtime::interpreter::{run, RuntimeError};
use ember_runtime::ivalue::IValue;

struct Expected {
    args: Vec<IValue>,
    message: String,
    /// (function, 1-based line, 0-based column), outermost first.
    frames: Vec<(String, u32, u32)>,
}

fn read_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).unwrap();
    let mut e = Expected {
        args: Vec::new(),
        message: String::new(),
        frames: Vec::new(),
    };
    for line in text.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "args" => {
                e.args = rest
                    .split_whitespace()
                    .map(|a| match a {
                        "True" => IValue::Bool(true),
                        "False" => IValue::Bool(false),
                        _ => match a.parse::<i64>() {
                            Ok(i) => IValue::Int(i),
                            Err(_) => IValue::Double(a.parse().unwrap()),
                        },
                    })
                    .collect()
            }
            "message" => e.message = rest.to_string(),
            "frame" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                e.frames.push((
                    parts[0].to_string(),
                    parts[1].parse().unwrap(),
                    parts[2].parse().unwrap(),
                ));
            }
            other => panic!("{}: unknown key {other}", path.display()),
        }
    }
    e
}

/// Ember's frames: (function, line, column) outermost first.
fn ember_frames(entry: &str, e: &RuntimeError) -> Vec<(String, u32, u32)> {
    if e.call_stack.is_empty() {
        let s = e.source.as_ref().expect("the error has a source location");
        return vec![(entry.to_string(), s.line, s.col)];
    }
    e.call_stack
        .iter()
        .map(|f| {
            let s = f
                .source
                .as_ref()
                .expect("every frame has a source location");
            (f.function.clone(), s.line, s.col)
        })
        .collect()
}

fn check(py: &Path) -> Result<(), String> {
    let source = std::fs::read_to_string(py).unwrap();
    let want = read_expected(&py.with_extension("expected"));
    let name = format!(
        "test/interp/errors/{}",
        py.file_name().unwrap().to_string_lossy()
    );
    let unit = Arc::new(compile_source(&name, &source)?);
    let entry = source
        .lines()
        .filter_map(|l| l.strip_prefix("def "))
        .last()
        .and_then(|l| l.split('(').next())
        .ok_or("no top-level def")?;
    let f = unit.function(entry).ok_or("no entry function")?;
    let code = f.code(Some(&unit)).map_err(|e| e.to_string())?;
    let err = match run(&code, want.args.clone()) {
        Ok(out) => return Err(format!("ran to {} outputs, PyTorch raised", out.len())),
        Err(e) => e,
    };
    if err.message != want.message {
        return Err(format!(
            "message {:?}, PyTorch's {:?}",
            err.message, want.message
        ));
    }
    let got = ember_frames(entry, &err);
    let (innermost, outer) = want.frames.split_last().ok_or("no frames")?;
    let mut at = 0;
    for frame in outer {
        match got[at..].iter().position(|g| g == frame) {
            Some(i) => at += i + 1,
            None => return Err(format!("frame {frame:?} is not in Ember's {got:?}")),
        }
    }
    let last = got.last().ok_or("no frames")?;
    if (last.1, last.2) != (innermost.1, innermost.2) {
        return Err(format!(
            "the error is at {}:{} in Ember ({got:?}), at {}:{} in PyTorch",
            last.1, last.2, innermost.1, innermost.2
        ));
    }
    Ok(())
}

#[test]
fn errors_in_loops_branches_and_calls_are_where_pytorch_puts_them() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test/interp/errors");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 8,
        "only {} cases in {}",
        cases.len(),
        dir.display()
    );
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|py| {
            check(py)
                .err()
                .map(|e| format!("{}: {e}", py.file_stem().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
