//! The property the `graph_text` fuzz target and its deterministic mutation test
//! (dialects/tests/fuzz_mutations.rs) check on any bytes read as lossy UTF-8: the graph parser
//! returns a graph or a diagnostic inside the text, never panics or hangs; the verifier runs
//! on every graph it returns; and the printed form of that graph reads back and prints the
//! same (printing is a fixed point, as ember-opt's output must be an input too).

use ember_dialects::parse::parse_graph;
use ember_dialects::print::print_graph;
use ember_dialects::verify::verify;

/// `Ok(true)` when the input parsed, `Ok(false)` when it was refused with a diagnostic; `Err`
/// says which property failed.
pub fn check(data: &[u8]) -> Result<bool, String> {
    let text = String::from_utf8_lossy(data);
    let g = match parse_graph(&text) {
        Ok(g) => g,
        Err(d) => {
            let lines = text.split('\n').count() as u32;
            if d.pos.line == 0 || d.pos.line > lines || d.pos.col == 0 {
                return Err(format!("diagnostic outside the text: {d}"));
            }
            let _ = d.render("fuzz.ir");
            return Ok(false);
        }
    };
    if let Err(errors) = verify(&g) {
        for e in &errors {
            let _ = e.message.len();
        }
    }
    let printed = print_graph(&g);
    let again = parse_graph(&printed)
        .map_err(|d| format!("the printed graph does not read back: {d}\n{printed}"))?;
    let reprinted = print_graph(&again);
    if reprinted != printed {
        return Err(format!(
            "printing is not a fixed point:\n{printed}\n---- printed again ----\n{reprinted}"
        ));
    }
    Ok(true)
}
