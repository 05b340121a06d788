//! The deterministic mutation test of the `run_arg` fuzz target (fuzz/): the property of
//! fuzz/checks/run_arg.rs on thousands of damaged ember-run ARGs, in a few seconds, with no
//! nightly toolchain.

#[path = "../../fuzz/checks/mutate.rs"]
mod mutate;
#[path = "../../fuzz/checks/run_arg.rs"]
mod run_arg;

const ARG_TOKENS: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    ",",
    ", ",
    " ",
    "\"",
    "\\",
    "\\\"",
    "'",
    "-",
    "+",
    ".",
    "e",
    "e-3",
    "1",
    "0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "1e400",
    "inf",
    "nan",
    "true",
    "false",
    "none",
    "x.npy",
    "é",
];

const SEEDS: &[&str] = &[
    "3",
    "-2",
    "2.5",
    "1e-3",
    "-0.0",
    "true",
    "false",
    "none",
    "\"text\"",
    "\"a \\\"quoted\\\" \\\\ string\"",
    "[1, 2, 3]",
    "[]",
    "()",
    "(1,)",
    "(1, \"a\")",
    "[[1.5, 2], [3]]",
    "(x.npy, [1, (2, none)])",
    "[true, false, none]",
    "  [ 1 ,2 ]  ",
];

#[test]
fn mutated_args_keep_the_run_arg_properties() {
    let seeds: Vec<Vec<u8>> = SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect();
    let (parsed, refused) = mutate::run(
        &seeds,
        600,
        ARG_TOKENS,
        0x000a_49a5,
        run_arg::check,
        |&ok| ok,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        parsed > 1000 && refused > 1000,
        "{parsed} parsed, {refused} refused"
    );
}

/// Lists nested past the parser's limit are refused with an error, not a stack overflow.
#[test]
fn deeply_nested_args_are_refused() {
    for open in ["[", "("] {
        let text = open.repeat(100_000);
        assert_eq!(run_arg::check(text.as_bytes()), Ok(false));
    }
}
