//! The differential op suite: every case under test/ops/ is a graph PyTorch scripted and the
//! inputs and outputs PyTorch computed (tools/gen/gen_op_cases.py). Each is run through the
//! interpreter and compared: integers and bools exactly, float32/float64 within rtol 1e-5 and
//! atol 1e-6, float16/bfloat16 within rtol 1e-2 (a case may set its own `rtol`/`atol`), in-place
//! writes through the `after` arrays, and PyTorch's error messages where PyTorch raised.
//!
//! str values are stored as UTF-8 bytes with a `<key>__str` marker and compared exactly; dict
//! outputs are flattened as key, value, ... in insertion order (tools/gen/opcases/common.py
//! documents the format).
//!
//! `EMBER_OPS_FILTER=substring` runs only the cases whose path contains it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ember_dialects::types::Type;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::npy::{bf16_from_bits, read_npz};
use ember_runtime::tensor::{DType, Tensor};

fn ops_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/ops")
}

/// The arrays of one case, by key; `__bf16` keys are already converted.
struct Arrays(BTreeMap<String, Tensor>);

impl Arrays {
    fn load(path: &Path) -> Result<Arrays, String> {
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

    fn get(&self, key: &str) -> Option<&Tensor> {
        self.0.get(key)
    }

    /// The str stored under `key` (UTF-8 bytes with a `key__str` marker), if it is one.
    fn str(&self, key: &str) -> Option<String> {
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
fn input_value(arrays: &Arrays, i: usize, ty: &Type) -> Result<IValue, String> {
    let key = format!("in{i}");
    if let Type::Optional(inner) = ty {
        return match arrays.get(&key) {
            None if arrays.get(&format!("{key}_0")).is_none() => Ok(IValue::None),
            _ => input_value(arrays, i, inner),
        };
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
fn flatten(v: &IValue, out: &mut Vec<IValue>) {
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
fn compare(what: &str, got: &IValue, want: &Tensor, arrays: &Arrays) -> Option<String> {
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

/// Runs one case; `Err` describes the first disagreement.
fn run_case(ir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(ir).map_err(|e| e.to_string())?;
    let graph = ember_dialects::parse::parse_graph(&text).map_err(|d| format!("parse: {d}"))?;
    let arrays = Arrays::load(&ir.with_extension("npz"))?;
    let inputs: Vec<IValue> = graph
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, &v)| input_value(&arrays, i, graph.ty(v)))
        .collect::<Result<_, _>>()?;
    let code = Code::new(&graph).map_err(|e| format!("load: {e}"))?;
    let tensor_inputs: Vec<(usize, Tensor)> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.as_tensor().map(|t| (i, t.clone())))
        .collect();
    let result = run(&code, inputs);
    if let Some(expected) = arrays.get("error") {
        let bytes: Vec<u8> = expected
            .to_vec::<i64>()
            .into_iter()
            .map(|b| b as u8)
            .collect();
        let message = String::from_utf8_lossy(&bytes).into_owned();
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
    let expected = arrays
        .0
        .keys()
        .filter(|k| k.starts_with("out") && !k.contains("__"))
        .count();
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
        if let Some(m) = compare(&format!("output {k}"), got, want, &arrays) {
            return Err(m);
        }
    }
    for (i, t) in tensor_inputs {
        if let Some(want) = arrays.get(&format!("after{i}")) {
            if let Some(m) = compare(
                &format!("input {i} after the call"),
                &IValue::Tensor(t),
                want,
                &arrays,
            ) {
                return Err(m);
            }
        }
    }
    Ok(())
}

#[test]
fn differential_suite_matches_pytorch() {
    let filter = std::env::var("EMBER_OPS_FILTER").unwrap_or_default();
    let mut cases: Vec<PathBuf> = walkdir::WalkDir::new(ops_dir())
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    cases.sort();
    assert!(
        !cases.is_empty(),
        "no cases found under {} (filter '{filter}')",
        ops_dir().display()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let outcome =
            std::panic::catch_unwind(|| run_case(case)).unwrap_or_else(|_| Err("panicked".into()));
        if let Err(m) = outcome {
            let name = case
                .strip_prefix(ops_dir())
                .unwrap_or(case)
                .display()
                .to_string();
            failures.push(format!("FAIL {name}: {m}"));
        }
    }
    println!(
        "{} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with PyTorch:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
