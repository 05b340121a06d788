//! The property the `schema` fuzz target and its deterministic mutation test
//! (dialects/tests/fuzz_mutations.rs) check on any bytes read as lossy UTF-8: both schema
//! parsers (operator schemas, and TorchScript functions' `str(fn.schema)`) return a schema or
//! a diagnostic, never panic; a parsed schema prints as text that parses to the same schema,
//! except where PyTorch's printer writes what its parser refuses too: an alias set the parser
//! invented (`Tensor!` prints as `Tensor($0! -> )`), a string default of a non-string
//! argument (`int x="a"` prints as `int x=a`), a string default with a non-ASCII character
//! (`c10::printQuotedString` escapes its bytes as signed chars, `é` as `\0)+\/.)`, which no
//! parser reads) or a carriage return (printed `\r`, an escape PyTorch's string parser does
//! not have), and an int-list default of equal elements on a list of no fixed size or of
//! another size (`int[] x=[0, 0]` prints as `int[] x=0`, which only `int[2] x=0` may be read
//! as; `int[1] dim=[-1, -1]` as `int[1] dim=-1`, read as `[-1]`), and a nested optional
//! number (`Scalar??` prints as `Union(Scalar)?`, which PyTorch's parser reads as `Scalar?`), and
//! a list of lists of aliased tensors (`Tensor(a!)[][]` prints its outer list's alias as `(!)`,
//! a write with no set, which no parser reads; `Any(b)??[][]` prints `Any?[]()[]`, an alias
//! with no name), and an aliased optional (`Tensor(a)?` prints
//! as `Tensor?(a)`, which PyTorch's parser refuses), and a union of the numbers with other
//! types (`Union(Scalar, ())` prints as `Union(()Scalar)`, which it refuses), and a named
//! default of a float argument (`float r=float`, the ScalarType's number 6, prints as
//! `float r=6`, which reads back as 6.0, as in PyTorch).

use ember_dialects::attr::ConstValue;
use ember_dialects::schema::{parse_function_schema, parse_schema, Argument, FunctionSchema};
use ember_dialects::source::Diagnostic;
use ember_dialects::types::Type;

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
        // `Union(Scalar)?` (PyTorch's print of a nested optional number, `Scalar??`) reads
        // back as `Scalar?` in PyTorch too.
        // `(!)`: a list of lists of aliased tensors, whose outer list PyTorch's printer
        // gives a write alias with no set, which its parser refuses.
        if printed.contains('$')
            || printed.contains("Union(Scalar)?")
            || printed.contains("(!)")
            // A list of lists of an aliased optional (`Any(b)??[][]`): PyTorch prints the
            // outer list's alias as `()`, a set with no name (`Any?[]()[]`), and refuses it.
            || printed.contains("]()")
            // A union holding the numbers: PyTorch prints `Union(, str, Scalar)` or
            // `Union(()Scalar)` (no comma before `Scalar`) and refuses it.
            || printed.contains("Union(,")
            || scalar_without_separator(&printed)
            // An aliased optional (`Tensor(a)?`): PyTorch prints `Tensor?(a)` and refuses it.
            || printed.contains("?(")
            || !schema.arguments.iter().all(default_reads_back)
        {
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

/// Whether `Scalar` follows something other than a separator (`Union(()Scalar)`).
fn scalar_without_separator(printed: &str) -> bool {
    printed
        .match_indices("Scalar")
        .any(|(i, _)| i > 0 && !matches!(printed.as_bytes()[i - 1], b' ' | b'(' | b'[' | b','))
}

/// Whether PyTorch's printer writes `a`'s default as text its parser reads back: not a string
/// default of a non-string argument, a string with a non-ASCII character or a carriage
/// return, or an int list of two or more equal elements on a list of no fixed size or of
/// another size (printed as its one element), nor a complex number (`0j` prints `0.+0.j`,
/// which PyTorch's parser refuses: checked with torch._C.parse_schema), nor an int default of
/// a float or complex argument (only a named default such as `float` makes one).
fn default_reads_back(a: &Argument) -> bool {
    fn has_complex(c: &ConstValue) -> bool {
        match c {
            ConstValue::Complex(..) => true,
            ConstValue::List(items) | ConstValue::Tuple(items) => items.iter().any(has_complex),
            _ => false,
        }
    }
    if a.default.as_ref().is_some_and(has_complex) {
        return false;
    }
    // A named default (`float`, `long`: a ScalarType's number) on a float or complex argument
    // stays an int in PyTorch too: `float r=float` prints `float r=6`, read back as 6.0.
    let inner = match &a.ty {
        Type::Optional(t) => &**t,
        t => t,
    };
    let numbers_convert = matches!(inner, Type::Float | Type::Complex);
    match &a.default {
        Some(ConstValue::Int(_)) if numbers_convert => false,
        Some(ConstValue::Str(s)) => {
            let str_arg = matches!(&a.ty, Type::Str)
                || matches!(&a.ty, Type::Optional(t) if **t == Type::Str);
            str_arg && s.is_ascii() && !s.contains('\r')
        }
        Some(ConstValue::List(items)) if items.len() > 1 && a.n != Some(items.len() as _) => !items
            .iter()
            .all(|x| matches!(x, ConstValue::Int(_)) && *x == items[0]),
        _ => true,
    }
}
