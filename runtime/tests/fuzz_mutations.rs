//! The deterministic mutation test of the `npy` fuzz target (fuzz/): the property of
//! fuzz/checks/npy.rs on thousands of damaged `.npy` files — the committed ones and one per
//! dtype, rank and memory order Ember writes — in a few seconds, with no nightly toolchain.

use std::path::Path;

use ember_runtime::npy::write_npy;
use ember_runtime::tensor::{DType, Tensor};

#[path = "../../fuzz/checks/mutate.rs"]
mod mutate;
#[path = "../../fuzz/checks/npy.rs"]
mod npy;

const NPY_TOKENS: &[&str] = &[
    "\u{93}NUMPY",
    "\x01\x00",
    "\x02\x00",
    "\x03\x00",
    "{",
    "}",
    "'descr': ",
    "'<f4'",
    "'<f8'",
    "'|b1'",
    "'<i8'",
    "'>i4'",
    "'<u2'",
    "'|O'",
    "'<c8'",
    "'fortran_order': ",
    "True",
    "False",
    "'shape': ",
    "(",
    ")",
    "(2, 3)",
    "(0,)",
    "(99999999999, 99999999999)",
    "(-1,)",
    ",",
    " ",
    "\n",
    "\x00\x00\x00\x00",
];

fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out: Vec<Vec<u8>> = [
        "examples/x.npy",
        "examples/b.npy",
        "test/ember-run/Inputs/i.npy",
    ]
    .iter()
    .map(|p| std::fs::read(root.join(p)).unwrap())
    .collect();
    let dtypes = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];
    for dtype in dtypes {
        for sizes in [&[][..], &[3], &[2, 3], &[0, 4]] {
            let t = Tensor::zeros(sizes, dtype).unwrap();
            out.push(write_npy(&t).unwrap());
        }
    }
    out
}

#[test]
fn mutated_npy_files_keep_the_npy_properties() {
    let (read, refused) = mutate::run(&seeds(), 150, NPY_TOKENS, 0x006e_7079, npy::check, |&ok| ok)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        read > 100 && refused > 1000,
        "{read} read, {refused} refused"
    );
}

/// A header that nests brackets deeply is refused before npyz parses it (its parser takes
/// time exponential in the nesting: the `npy` fuzzer's timeout, 26 `{`, ran for minutes).
#[test]
fn deeply_nested_headers_are_refused() {
    let header = format!(
        "{}'descr': '<f4', 'fortran_order': False, 'shape': (3,), {}",
        "{".repeat(26),
        "}".repeat(26)
    );
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[0u8; 12]);
    let err = ember_runtime::npy::read_npy(&bytes).unwrap_err();
    assert!(err.contains("not the dictionary"), "{err}");
    assert!(read_finding("npy_nested_header.npy").is_err());
    // Nesting behind a `\N{...}` escape, which runs past the quote that seems to end the
    // string (the fuzzer's second timeout).
    let err = read_finding("npy_named_escape_header.npy").unwrap_err();
    assert!(err.contains("not the dictionary"), "{err}");
    // Eight nested braces around garbage (the third timeout: 12 s for npyz's parser).
    let err = read_finding("npy_eight_brackets_header.npy").unwrap_err();
    assert!(err.contains("not the dictionary"), "{err}");
    // A shape with a zero size (no data needed) whose other sizes multiply past 2^64: npyz's
    // strides overflowed (the fourth finding).
    let err = read_finding("npy_shape_product_overflow.npy").unwrap_err();
    assert!(err.contains("multiply past 2^63"), "{err}");
}

/// Reads the fuzz finding tests/data/NAME as a .npy file.
fn read_finding(name: &str) -> Result<(), String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    ember_runtime::npy::read_npy(&bytes).map(|_| ())
}
