//! The property the `run_arg` fuzz target and its deterministic mutation test
//! (compiler/tests/fuzz_mutations.rs) check on any bytes read as lossy UTF-8: ember-run's ARG
//! parser returns an ARG or an error naming a column inside the text, never panics, hangs or
//! overflows the stack; a parsed ARG converts to a value or an error for every input type
//! (ARGs that name `.npy` files are not converted: that reads files).

use ember_compiler::driver::run_args::{parse_arg, to_ivalue, Arg};
use ember_dialects::types::{parse_type, Type};

/// Input types an ARG is matched to.
const TYPES: &[&str] = &[
    "Tensor",
    "int",
    "float",
    "bool",
    "str",
    "NoneType",
    "Any",
    "int[]",
    "float[][]",
    "(int, str)",
    "(Tensor, (int, float)?)",
    "Tensor?",
    "str[]",
    "Dict(str, int)",
];

fn names_a_file(arg: &Arg) -> bool {
    match arg {
        Arg::Npy(_) => true,
        Arg::List(items) | Arg::Tuple(items) => items.iter().any(names_a_file),
        _ => false,
    }
}

/// `Ok(true)` when the text parsed as an ARG; `Err` says which property failed.
pub fn check(data: &[u8]) -> Result<bool, String> {
    let text = String::from_utf8_lossy(data);
    let arg = match parse_arg(&text) {
        Ok(arg) => arg,
        Err(e) => {
            let column = e
                .strip_prefix("column ")
                .and_then(|r| r.split(':').next())
                .and_then(|c| c.parse::<usize>().ok())
                .ok_or_else(|| format!("the error names no column: {e}"))?;
            if column == 0 || column > text.len() + 1 {
                return Err(format!("column {column} is outside the text: {e}"));
            }
            return Ok(false);
        }
    };
    if !names_a_file(&arg) {
        for ty in TYPES {
            let ty: Type = parse_type(ty).map_err(|d| format!("test type {ty}: {d}"))?;
            let _ = to_ivalue(&arg, &ty);
        }
    }
    Ok(true)
}
