//! The npz encoding of a call's inputs and results that Ember's differential suites share with
//! their generators (tools/gen/opcases/common.py documents it): `in0..` inputs (Python scalars
//! as 0-d arrays, int lists as 1-d int64, lists of tensors and strs element-wise as `in<i>_<j>`,
//! None inputs absent), `out0..` results flattened depth-first, `after<k>` tensor inputs after
//! the call, `error` when PyTorch raised, `rtol`/`atol` overrides; strs as UTF-8 bytes with a
//! `<key>__str` marker; bfloat16 as uint16 bits under `<key>__bf16`.
//!
//! Used by runtime/tests/differential.rs (test/ops) and compiler/tests/script_corpus.rs
//! (test/script). Comparison: integers and bools exactly, float32/float64 within rtol 1e-5 and
//! atol 1e-6, float16/bfloat16 within rtol 1e-2, unless the case sets its own.

use std::collections::BTreeMap;
use std::path::Path;

use ember_dialects::types::Type;

use crate::interpreter::RuntimeError;
use crate::ivalue::IValue;
use crate::npy::{bf16_from_bits, read_npz};
use crate::tensor::{DType, Tensor};

/// The arrays of one case, by key; `__bf16` keys are already converted.
pub struct Arrays(BTreeMap<String, Tensor>);

impl Arrays {
    pub fn load(path: &Path) -> Result<Arrays, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut map = BTreeMap::new();
        for (name, t) in read_npz(std::io::BufReader::new(file))? {
            match name.strip_suffix("__bf16") {
                Some(base) => map.insert(base.to_string(), bf16_from_bits(&t)?),
                None => map.insert(name, t),
            };
        }
        Ok(Arrays(map))
    }

    pub fn get(&self, key: &str) -> Option<&Tensor> {
        self.0.get(key)
    }

    /// The str stored under `key` (UTF-8 bytes with a `key__str` marker), if it is one.
    pub fn str(&self, key: &str) -> Option<String> {
        self.0.get(&format!("{key}__str"))?;
        let bytes: Vec<u8> = self
            .get(key)?
            .to_vec::<i64>()
            .into_iter()
            .map(|b| b as u8)
            .collect();
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// The IValue for graph input `i` of type `ty`.
pub fn input_value(arrays: &Arrays, i: usize, ty: &Type) -> Result<IValue, String> {
    let key = format!("in{i}");
    if let Type::Optional(inner) = ty {
        return match arrays.get(&key) {
            None if arrays.get(&format!("{key}_0")).is_none() => Ok(IValue::None),
            _ => input_value(arrays, i, inner),
        };
    }
    // A Union (or Any) input holds whatever was stored: a str when it has the marker.
    if matches!(ty, Type::Union(_) | Type::Any) {
        if let Some(text) = arrays.str(&key) {
            return Ok(IValue::str(text));
        }
    }
    if *ty == Type::Str {
        return arrays
            .str(&key)
            .map(IValue::str)
            .ok_or_else(|| format!("input {i} (str) has no str array {key}"));
    }
    if let Type::List(elem) = ty {
        if **elem == Type::Str {
            let mut items = Vec::new();
            while let Some(s) = arrays.str(&format!("{key}_{}", items.len())) {
                items.push(IValue::str(s));
            }
            return Ok(IValue::list(items));
        }
        if elem.is_tensor() {
            let mut items = Vec::new();
            while let Some(t) = arrays.get(&format!("{key}_{}", items.len())) {
                items.push(IValue::Tensor(t.clone()));
            }
            return Ok(IValue::list(items));
        }
    }
    let a = arrays
        .get(&key)
        .ok_or_else(|| format!("input {i} ({ty}) has no array {key}"))?;
    Ok(match ty {
        Type::Tensor(_) => IValue::Tensor(a.clone()),
        Type::List(elem) => IValue::list(
            a.to_vec::<f64>()
                .into_iter()
                .zip(a.to_vec::<i64>())
                .map(|(f, n)| scalar(elem, a.dtype(), f, n))
                .collect(),
        ),
        // A tuple of Python scalars is stored as a list of them is.
        Type::Tuple(t) if a.sizes().len() == 1 && a.numel() == t.elements.len() => IValue::tuple(
            t.elements
                .iter()
                .zip(a.to_vec::<f64>().into_iter().zip(a.to_vec::<i64>()))
                .map(|(elem, (f, n))| scalar(elem, a.dtype(), f, n))
                .collect(),
        ),
        _ => {
            let (f, n) = (a.to_vec::<f64>(), a.to_vec::<i64>());
            if f.len() != 1 {
                return Err(format!("input {i} ({ty}) is not a scalar array"));
            }
            scalar(ty, a.dtype(), f[0], n[0])
        }
    })
}

/// A Python scalar of type `ty` (or, for Number/Scalar, of the array's dtype).
fn scalar(ty: &Type, dtype: DType, f: f64, n: i64) -> IValue {
    match ty {
        Type::Int => IValue::Int(n),
        Type::Float => IValue::Double(f),
        Type::Bool => IValue::Bool(n != 0),
        _ => match dtype {
            DType::Bool => IValue::Bool(n != 0),
            d if d.is_floating() => IValue::Double(f),
            _ => IValue::Int(n),
        },
    }
}

/// Flattens outputs depth-first through tuples and lists of non-scalars.
pub fn flatten(v: &IValue, out: &mut Vec<IValue>) {
    match v {
        IValue::Tuple(items) => items.iter().for_each(|x| flatten(x, out)),
        IValue::List(l) => {
            let items = l.to_vec();
            let scalars = !items.is_empty()
                && items
                    .iter()
                    .all(|x| matches!(x, IValue::Int(_) | IValue::Double(_) | IValue::Bool(_)));
            if scalars {
                out.push(v.clone());
            } else {
                items.iter().for_each(|x| flatten(x, out));
            }
        }
        IValue::Dict(d) => {
            for (k, v) in d.items() {
                flatten(&k.to_ivalue(), out);
                flatten(&v, out);
            }
        }
        other => out.push(other.clone()),
    }
}

struct Tolerance {
    rtol: f64,
    atol: f64,
}

fn tolerance(arrays: &Arrays, dtype: DType) -> Tolerance {
    let own = |k: &str| arrays.get(k).map(|t| t.to_vec::<f64>()[0]);
    let (rtol, atol) = match dtype {
        DType::F16 | DType::BF16 => (1e-2, 1e-3),
        _ => (1e-5, 1e-6),
    };
    Tolerance {
        rtol: own("rtol").unwrap_or(rtol),
        atol: own("atol").unwrap_or(atol),
    }
}

/// Compares Ember's value with PyTorch's array; `None` when they agree.
pub fn compare(what: &str, got: &IValue, want: &Tensor, arrays: &Arrays) -> Option<String> {
    let got_tensor = match got {
        IValue::Tensor(t) => t.clone(),
        IValue::None => {
            return (want.sizes().as_slice() != [0, 0, 0]).then(|| {
                format!(
                    "{what}: got None, PyTorch gave an array of shape {:?}",
                    want.sizes().as_slice()
                )
            });
        }
        IValue::Int(n) => Tensor::from_vec(vec![*n], &[]).unwrap(),
        IValue::Double(d) => Tensor::from_vec(vec![*d], &[]).unwrap(),
        IValue::Bool(b) => Tensor::from_vec(vec![*b], &[]).unwrap(),
        IValue::List(l) => {
            let items = l.to_vec();
            let values: Vec<f64> = items
                .iter()
                .map(|x| {
                    x.as_double()
                        .or(x.as_bool().map(|b| b as u8 as f64))
                        .unwrap_or(f64::NAN)
                })
                .collect();
            let n = values.len() as i64;
            Tensor::from_vec(values, &[n]).unwrap()
        }
        other => {
            return Some(format!(
                "{what}: got a {}, PyTorch gave an array",
                other.kind_name()
            ))
        }
    };
    let is_tensor = matches!(got, IValue::Tensor(_));
    if is_tensor && got_tensor.dtype() != want.dtype() {
        return Some(format!(
            "{what}: dtype {} but PyTorch gave {}",
            got_tensor.dtype(),
            want.dtype()
        ));
    }
    if got_tensor.sizes() != want.sizes() {
        return Some(format!(
            "{what}: shape {:?} but PyTorch gave {:?}",
            got_tensor.sizes().as_slice(),
            want.sizes().as_slice()
        ));
    }
    let exact = !want.dtype().is_floating();
    let tol = tolerance(arrays, want.dtype());
    let (g, w) = (got_tensor.to_vec::<f64>(), want.to_vec::<f64>());
    if exact {
        let (gi, wi) = (got_tensor.to_vec::<i64>(), want.to_vec::<i64>());
        if let Some(i) = (0..gi.len()).find(|&i| gi[i] != wi[i]) {
            return Some(format!(
                "{what}: element {i} is {} but PyTorch gave {}",
                gi[i], wi[i]
            ));
        }
        return None;
    }
    for i in 0..g.len() {
        let (a, b) = (g[i], w[i]);
        let ok = if b.is_nan() {
            a.is_nan()
        } else if b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= tol.atol + tol.rtol * b.abs()
        };
        if !ok {
            return Some(format!(
                "{what}: element {i} is {a} but PyTorch gave {b} (rtol {}, atol {})",
                tol.rtol, tol.atol
            ));
        }
    }
    None
}

impl Arrays {
    /// The keys stored, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.keys()
    }

    /// PyTorch's error message, when the call raised.
    pub fn error(&self) -> Option<String> {
        let bytes: Vec<u8> = self
            .get("error")?
            .to_vec::<i64>()
            .into_iter()
            .map(|b| b as u8)
            .collect();
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The number of results stored (`out<k>` keys without a `__` marker suffix).
    pub fn output_count(&self) -> usize {
        self.0
            .keys()
            .filter(|k| k.starts_with("out") && !k.contains("__"))
            .count()
    }

    /// The inputs of a call to a function whose inputs have types `types`.
    pub fn inputs(&self, types: &[Type]) -> Result<Vec<IValue>, String> {
        types
            .iter()
            .enumerate()
            .map(|(i, ty)| input_value(self, i, ty))
            .collect()
    }
}

/// Compares a call's result with PyTorch's: the error it raised, or its outputs and the tensor
/// inputs after the call (`tensor_inputs`: input index and the tensor passed). `Err` describes
/// the first disagreement.
pub fn check_result(
    arrays: &Arrays,
    result: Result<Vec<IValue>, RuntimeError>,
    tensor_inputs: &[(usize, Tensor)],
) -> Result<(), String> {
    if let Some(message) = arrays.error() {
        return match result {
            Ok(_) => Err(format!(
                "PyTorch raised \"{message}\" but Ember returned normally"
            )),
            Err(e) if e.message.contains(message.trim()) => Ok(()),
            Err(e) => Err(format!(
                "PyTorch raised \"{message}\" but Ember raised \"{}\"",
                e.message
            )),
        };
    }
    let outputs = result.map_err(|e| format!("run: {e}"))?;
    let mut flat = Vec::new();
    outputs.iter().for_each(|v| flatten(v, &mut flat));
    let expected = arrays.output_count();
    if flat.len() != expected {
        return Err(format!(
            "{} outputs but PyTorch gave {expected}",
            flat.len()
        ));
    }
    for (k, got) in flat.iter().enumerate() {
        if let Some(want) = arrays.str(&format!("out{k}")) {
            match got {
                IValue::Str(s) if **s == want => continue,
                other => {
                    return Err(format!(
                        "output {k}: got {other:?}, PyTorch gave the str {want:?}"
                    ))
                }
            }
        }
        let want = arrays.get(&format!("out{k}")).ok_or(format!("no out{k}"))?;
        if let Some(m) = compare(&format!("output {k}"), got, want, arrays) {
            return Err(m);
        }
    }
    for (i, t) in tensor_inputs {
        let (i, t) = (*i, t.clone());
        if let Some(want) = arrays.get(&format!("after{i}")) {
            if let Some(m) = compare(
                &format!("input {i} after the call"),
                &IValue::Tensor(t),
                want,
                arrays,
            ) {
                return Err(m);
            }
        }
    }
    Ok(())
}
