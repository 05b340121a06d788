//! The property the `schema` fuzz target and its deterministic mutation test
//! (dialects/tests/fuzz_mutations.rs) check on any bytes read as lossy UTF-8: both schema
//! parsers (operator schemas, and TorchScript functions' `str(fn.schema)`) return a schema or
//! a diagnostic, never panic; a parsed schema prints as text that parses to the same schema,
//! except where it prints an alias set PyTorch's parser invented (`Tensor!` prints as
//! `Tensor($0! -> )`, which PyTorch's parser refuses too).

use ember_dialects::schema::{parse_function_schema, parse_schema, FunctionSchema};
use ember_dialects::source::Diagnostic;

/// A schema parser: `parse_schema` or `parse_function_schema`.
type Parse = fn(&str) -> Result<FunctionSchema, Diagnostic>;

/// `Ok(n)`: how many of the two parsers accepted the input; `Err` says which property failed.
pub fn check(data: &[u8]) -> Result<usize, String> {
    let text = String::from_utf8_lossy(data);
    let parsers: [(&str, Parse); 2] = [
        ("parse_schema", parse_schema),
        ("parse_function_schema", parse_function_schema),
    ];
    let mut accepted = 0;
    for (name, parse) in parsers {
        let schema = match parse(&text) {
            Ok(s) => s,
            Err(d) => {
                let _ = d.render("fuzz");
                continue;
            }
        };
        accepted += 1;
        let printed = schema.to_string();
        if printed.contains('$') {
            continue;
        }
        let again = parse(&printed).map_err(|d| {
            format!("{name}: the printed schema does not read back: {d}\n{printed}")
        })?;
        if again.to_string() != printed {
            return Err(format!(
                "{name}: printing is not a fixed point:\n{printed}\n{again}"
            ));
        }
    }
    Ok(accepted)
}
