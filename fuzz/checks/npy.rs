//! The property the `npy` fuzz target and its deterministic mutation test
//! (runtime/tests/fuzz_mutations.rs) check on any bytes: `read_npy` returns a tensor or an
//! error, never panics or allocates past what the bytes can hold; a tensor it returns writes
//! back as `.npy` bytes that read to the same dtype, shape and bytes.

use ember_runtime::npy::{read_npy, write_npy};

/// `Ok(true)` when the bytes were a `.npy` file; `Err` says which property failed.
pub fn check(data: &[u8]) -> Result<bool, String> {
    let Ok(t) = read_npy(data) else {
        return Ok(false);
    };
    let written = write_npy(&t).map_err(|e| format!("a tensor read does not write: {e}"))?;
    let back = read_npy(&written).map_err(|e| format!("a written .npy does not read: {e}"))?;
    if back.dtype() != t.dtype() || back.sizes().as_slice() != t.sizes().as_slice() {
        return Err(format!(
            "read back as {:?} {:?}, written from {:?} {:?}",
            back.dtype(),
            back.sizes().as_slice(),
            t.dtype(),
            t.sizes().as_slice()
        ));
    }
    let rewritten =
        write_npy(&back).map_err(|e| format!("the tensor read back does not write: {e}"))?;
    if rewritten != written {
        return Err("writing what was read back gives other bytes".into());
    }
    Ok(true)
}
