//! The archive's constants table (`constants.pkl`), which code/ names `CONSTANTS.c0`,
//! `CONSTANTS.c1`, ...: PyTorch's Python printer lifts into it the constants it cannot spell
//! as literals — tensors (traced literals, frozen parameters) and strings that are not ASCII.
//! Each becomes the value of a `prim::Constant` where the code names it.

use ember_dialects::attr::ConstValue;
use ember_runtime::ivalue::IValue;

/// `CONSTANTS.cN` → N; `None` for any other name.
pub fn constant_index(name: &str) -> Option<usize> {
    let digits = name.strip_prefix("CONSTANTS.c")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The constant a value of the table becomes; `Err` says why it cannot be one.
pub fn to_const_value(v: &IValue) -> Result<ConstValue, String> {
    Ok(match v {
        IValue::None => ConstValue::None,
        IValue::Bool(b) => ConstValue::Bool(*b),
        IValue::Int(i) => ConstValue::Int(*i),
        IValue::Double(f) => ConstValue::Float(*f),
        IValue::Complex(c) => ConstValue::Complex(c.0, c.1),
        IValue::Str(s) => ConstValue::Str(s.to_string()),
        IValue::Tensor(t) => ConstValue::Tensor(crate::fold::tensor::tensor_constant(t)),
        IValue::Tuple(items) => {
            ConstValue::Tuple(items.iter().map(to_const_value).collect::<Result<_, _>>()?)
        }
        IValue::List(l) => {
            let items = l.0.read().unwrap_or_else(|e| e.into_inner());
            ConstValue::List(items.iter().map(to_const_value).collect::<Result<_, _>>()?)
        }
        other => return Err(format!("a {} cannot be a constant", other.kind_name())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_runtime::tensor::Tensor;

    #[test]
    fn constant_names() {
        let got: Vec<_> = [
            "CONSTANTS.c0",
            "CONSTANTS.c12",
            "CONSTANTS.c",
            "CONSTANTS.cx",
            "c0",
        ]
        .iter()
        .map(|n| constant_index(n))
        .collect();
        assert_eq!(got, [Some(0), Some(12), None, None, None]);
    }

    #[test]
    fn transposed_tensor_becomes_row_major_literal() {
        let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let tt = t.transpose(0, 1).unwrap();
        let ConstValue::Tensor(lit) = to_const_value(&IValue::Tensor(tt)).unwrap() else {
            panic!("not a tensor literal")
        };
        assert_eq!(lit.sizes, [3, 2]);
        let floats: Vec<f32> = lit
            .data
            .unwrap()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(floats, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }
}
