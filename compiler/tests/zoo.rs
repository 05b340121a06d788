//! The model zoo (test/zoo, tools/gen/gen_zoo.py): real torchvision, timm, transformers and
//! torchaudio-style models, scripted and traced by PyTorch with random weights. Every archive
//! present loads and its `forward` runs on the recorded inputs to PyTorch's outputs: the same
//! structure of tuples, lists and dicts, and every tensor within rtol 1e-4 (an element that
//! cancels to near zero, of the tensor's root mean square); detection outputs
//! (boxes, labels, scores, masks per image) are matched with ties in scores handled.
//!
//! The CI tier's archives are committed (test/zoo/models); the large tier's are written by
//! test/setup/zoo_models.sh into target/zoo (or $EMBER_ZOO) and run when present — a skip
//! line says which are absent. Archives that fail for a known reason are listed in
//! zoo_expected_failures.txt with text their error must contain; one not listed, one that
//! fails otherwise, and a listed one that passes fail the test. The largest models want a release build:
//! `cargo test --release -p ember-compiler --test compiler zoo:: -- --nocapture`.

#[path = "pt_archive/json.rs"]
#[allow(dead_code)]
mod json;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ember_compiler::driver::missing_ops;
use ember_compiler::import::{load_module, LoadOptions};
use ember_runtime::ivalue::IValue;
use ember_runtime::npz_case::Arrays;
use ember_runtime::tensor::Tensor;
use json::Json;

const RTOL: f64 = 1e-4;
const ATOL: f64 = 1e-5;
/// Mask probabilities are pasted into their box by bilinear interpolation, so a box edge
/// that moves by float32 rounding (1e-4 of a pixel) moves every pixel on the mask's edge by
/// its gradient: torchvision's own tests compare masks by their mean and deviation only.
/// Held here to this absolute tolerance, pixel by pixel.
const MASK_ATOL: f64 = 1e-2;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cache_dir() -> PathBuf {
    std::env::var_os("EMBER_ZOO")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/zoo"))
}

/// One model and mode of the manifest.
struct Entry {
    key: String,
    tier: String,
    kind: String,
    args: Vec<String>,
    structure: String,
    pytorch_error: Option<String>,
}

fn manifest() -> Vec<Entry> {
    let text = std::fs::read_to_string(repo().join("test/zoo/MANIFEST.json")).unwrap();
    let root = json::parse(&text);
    let mut out = Vec::new();
    for (key, v) in root.obj() {
        let Json::Obj(fields) = v else { continue };
        let text = |k: &str| fields.get(k).map(|v| v.str().to_string());
        out.push(Entry {
            key: key.clone(),
            tier: text("tier").unwrap(),
            kind: text("kind").unwrap(),
            args: fields
                .get("args")
                .map(|a| a.arr().iter().map(|s| s.str().to_string()).collect())
                .unwrap_or_default(),
            structure: text("structure").unwrap_or_default(),
            pytorch_error: text("pytorch_error"),
        });
    }
    out
}

/// Where `e`'s archive is, or why it is absent.
fn archive(e: &Entry) -> Result<PathBuf, String> {
    let path = if e.tier == "ci" {
        repo().join("test/zoo/models").join(format!("{}.pt", e.key))
    } else {
        cache_dir().join(format!("{}.pt", e.key))
    };
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "{} is absent (the {} tier is written by test/setup/zoo_models.sh)",
            path.display(),
            e.tier
        ))
    }
}

/// The output's containers as gen_zoo.py's `structure` writes them.
fn structure(v: &IValue) -> String {
    let join = |items: &[IValue]| items.iter().map(structure).collect::<Vec<_>>().join(", ");
    match v {
        IValue::Tensor(_) => "T".into(),
        IValue::Tuple(items) => format!("({})", join(items)),
        IValue::List(l) => format!("[{}]", join(&l.to_vec())),
        IValue::Dict(d) => {
            let items: Vec<String> = d
                .items()
                .iter()
                .map(|(k, v)| match k.to_ivalue() {
                    IValue::Str(s) => format!("{s}: {}", structure(v)),
                    other => format!("{}: {}", other.kind_name(), structure(v)),
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        IValue::None => "None".into(),
        IValue::Bool(_) => "bool".into(),
        IValue::Int(_) => "int".into(),
        IValue::Double(_) => "float".into(),
        other => other.kind_name().to_string(),
    }
}

/// Tensors depth-first, dict values in order (gen_zoo.py's `flatten`).
fn flatten(v: &IValue, out: &mut Vec<Tensor>) {
    match v {
        IValue::Tensor(t) => out.push(t.clone()),
        IValue::Tuple(items) => items.iter().for_each(|x| flatten(x, out)),
        IValue::List(l) => l.to_vec().iter().for_each(|x| flatten(x, out)),
        IValue::Dict(d) => d.items().iter().for_each(|(_, x)| flatten(x, out)),
        IValue::Int(i) => out.push(Tensor::from_vec(vec![*i], &[]).unwrap()),
        IValue::Double(x) => out.push(Tensor::from_vec(vec![*x], &[]).unwrap()),
        IValue::Bool(b) => out.push(Tensor::from_vec(vec![*b], &[]).unwrap()),
        _ => {}
    }
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= ATOL + RTOL * b.abs()
}

fn compare(what: &str, got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.sizes().as_slice() != want.sizes().as_slice() {
        return Err(format!(
            "{what}: shape {:?}, PyTorch {:?}",
            got.sizes().as_slice(),
            want.sizes().as_slice()
        ));
    }
    let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
    // An element that cancels to near zero (a logit of -0.008 among logits of 10) keeps the
    // rounding of its terms, not of itself: it is held to rtol of the tensor's root mean
    // square instead of its own magnitude.
    let finite: Vec<f64> = w.iter().copied().filter(|x| x.is_finite()).collect();
    let rms = (finite.iter().map(|x| x * x).sum::<f64>() / finite.len().max(1) as f64).sqrt();
    let ok = |a: f64, b: f64| close(a, b) || (a - b).abs() <= RTOL * rms;
    let bad = g.iter().zip(&w).filter(|(a, b)| !ok(**a, **b)).count();
    if let Some(k) = g.iter().zip(&w).position(|(a, b)| !ok(*a, *b)) {
        return Err(format!(
            "{what}[{k}]: {}, PyTorch {} ({bad} of {} elements differ)",
            g[k],
            w[k],
            g.len()
        ));
    }
    Ok(())
}

/// One detection: label, score, box and (Mask R-CNN) mask.
struct Detection {
    label: f64,
    score: f64,
    boxes: Vec<f64>,
    mask: Option<Vec<f64>>,
}

fn detections(fields: &BTreeMap<String, Tensor>) -> Result<Vec<Detection>, String> {
    let get = |k: &str| fields.get(k).ok_or_else(|| format!("no '{k}'"));
    let (boxes, labels, scores) = (get("boxes")?, get("labels")?, get("scores")?);
    let n = scores.numel();
    let b = boxes.to_vec::<f64>();
    let (l, s) = (labels.to_vec::<f64>(), scores.to_vec::<f64>());
    let masks = fields.get("masks").map(|m| m.to_vec::<f64>());
    let per_mask = masks.as_ref().map_or(0, |m| m.len() / n.max(1));
    if b.len() != 4 * n || l.len() != n {
        return Err(format!(
            "{} boxes, {} labels, {n} scores",
            b.len() / 4,
            l.len()
        ));
    }
    Ok((0..n)
        .map(|i| Detection {
            label: l[i],
            score: s[i],
            boxes: b[4 * i..4 * i + 4].to_vec(),
            mask: masks
                .as_ref()
                .map(|m| m[per_mask * i..per_mask * (i + 1)].to_vec()),
        })
        .collect())
}

/// Detections of one image against PyTorch's: as many, and in PyTorch's order of scores each
/// matched to one of ours with the same label, score, box and mask — among those whose score
/// ties with it (equal within the tolerance), in any order.
fn compare_detections(
    what: &str,
    got: &BTreeMap<String, Tensor>,
    want: &BTreeMap<String, Tensor>,
) -> Result<(), String> {
    let (g, w) = (detections(got)?, detections(want)?);
    if g.len() != w.len() {
        return Err(format!(
            "{what}: {} detections, PyTorch {}",
            g.len(),
            w.len()
        ));
    }
    // A box coordinate's rounding is a fraction of the box's and the image's size, whatever
    // the coordinate: a box at x = 4 is no more precise than one at x = 100. Coordinates are
    // held to rtol of the image's extent (the largest coordinate PyTorch gives).
    let extent = w
        .iter()
        .flat_map(|d| d.boxes.iter())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let same = |a: &Detection, b: &Detection| {
        a.label == b.label
            && close(a.score, b.score)
            && a.boxes
                .iter()
                .zip(&b.boxes)
                .all(|(x, y)| (x - y).abs() <= ATOL + RTOL * extent.max(y.abs()))
            && match (&a.mask, &b.mask) {
                (Some(x), Some(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= MASK_ATOL)
                }
                (None, None) => true,
                _ => false,
            }
    };
    let mut used = vec![false; g.len()];
    for (i, d) in w.iter().enumerate() {
        let found =
            (0..g.len()).find(|&j| !used[j] && close(g[j].score, d.score) && same(&g[j], d));
        match found {
            Some(j) => used[j] = true,
            None => {
                return Err(format!(
                    "{what}: PyTorch's detection {i} (label {}, score {}, box {:?}) has no match",
                    d.label, d.score, d.boxes
                ))
            }
        }
    }
    Ok(())
}

/// The (boxes, labels, scores, masks) dicts of a scripted detection model's output
/// `(losses, detections)`, with PyTorch's tensors taken in the same order.
fn check_detection(out: &IValue, want: &[Tensor]) -> Result<(), String> {
    let IValue::Tuple(items) = out else {
        return Err("not a (losses, detections) tuple".into());
    };
    let IValue::List(images) = &items[1] else {
        return Err("detections are not a list".into());
    };
    let mut at = 0;
    for (i, image) in images.to_vec().iter().enumerate() {
        let IValue::Dict(d) = image else {
            return Err(format!("image {i}: not a dict"));
        };
        let (mut got, mut expected) = (BTreeMap::new(), BTreeMap::new());
        for (k, v) in d.items() {
            let (IValue::Str(name), IValue::Tensor(t)) = (k.to_ivalue(), v) else {
                return Err(format!("image {i}: not a Dict[str, Tensor]"));
            };
            let w = want.get(at).ok_or("fewer outputs than PyTorch's")?;
            at += 1;
            got.insert(name.to_string(), t);
            expected.insert(name.to_string(), w.clone());
        }
        compare_detections(&format!("image {i}"), &got, &expected)?;
    }
    Ok(())
}

/// Loads and runs one archive against its expected outputs.
fn check(e: &Entry, pt: &Path) -> Result<(), String> {
    let bytes = std::fs::read(pt).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let module = load_module(&bytes, &LoadOptions::default()).map_err(|e| format!("load: {e}"))?;
    let load_ms = start.elapsed().as_secs_f64() * 1e3;
    let missing = missing_ops::missing_in_unit(&module.unit);
    if !missing.is_empty() {
        let mut kinds: Vec<String> = missing.iter().map(|m| m.error.kind.to_string()).collect();
        kinds.sort();
        kinds.dedup();
        eprintln!("  {}: missing operators: {}", e.key, kinds.join(", "));
    }
    let npz = repo()
        .join("test/zoo/expected")
        .join(format!("{}.npz", e.key));
    let arrays = Arrays::load(&npz)?;
    let mut tensors = (0..)
        .map_while(|i| arrays.get(&format!("input_{i}")).cloned())
        .map(IValue::Tensor);
    let mut inputs = Vec::new();
    for spec in &e.args {
        let t = tensors.next().ok_or("fewer inputs than arguments")?;
        inputs.push(if spec == "[T]" {
            IValue::list(vec![t])
        } else {
            t
        });
    }
    let start = Instant::now();
    let outputs = module
        .forward(inputs)
        .map_err(|e| format!("forward: {}", e.to_string().replace('\n', " | ")))?;
    let run_ms = start.elapsed().as_secs_f64() * 1e3;
    eprintln!(
        "  {}: loaded in {load_ms:.1} ms, ran in {run_ms:.1} ms",
        e.key
    );
    let out = match outputs.len() {
        1 => outputs.into_iter().next().unwrap(),
        _ => IValue::tuple(outputs),
    };
    let shape = structure(&out);
    if shape != e.structure {
        return Err(format!("output is {shape}, PyTorch's {}", e.structure));
    }
    let want: Vec<Tensor> = (0..)
        .map_while(|i| arrays.get(&format!("output_{i}")).cloned())
        .collect();
    if e.kind == "detection" {
        return check_detection(&out, &want);
    }
    let mut got = Vec::new();
    flatten(&out, &mut got);
    if got.len() != want.len() {
        return Err(format!("{} tensors, PyTorch {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        compare(&format!("output {i}"), g, w)?;
    }
    Ok(())
}

fn expected_failures() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zoo_expected_failures.txt");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((k, why)) => (k.trim().to_string(), why.trim().to_string()),
            None => (l.trim().to_string(), String::new()),
        })
        .collect()
}

#[test]
fn zoo_models_run_to_pytorch_outputs() {
    let entries = manifest();
    assert!(entries.len() > 40, "the zoo manifest is missing");
    let expected = expected_failures();
    let filter = std::env::var("EMBER_ZOO_FILTER").unwrap_or_default();
    let (mut passed, mut ran, mut skipped, mut unscriptable) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    for e in entries.iter().filter(|e| e.key.contains(&filter)) {
        if let Some(why) = &e.pytorch_error {
            eprintln!("skip {}: PyTorch itself cannot make it ({why})", e.key);
            unscriptable += 1;
            continue;
        }
        let pt = match archive(e) {
            Ok(p) => p,
            Err(why) => {
                eprintln!("skip {}: {why}", e.key);
                skipped += 1;
                continue;
            }
        };
        ran += 1;
        let outcome = check(e, &pt);
        let listed = expected.get(&e.key);
        match (&outcome, listed) {
            (Ok(()), None) => {
                passed += 1;
                eprintln!("pass {}", e.key);
            }
            (Ok(()), Some(_)) => {
                problems.push(format!("{}: passes but is listed as failing", e.key))
            }
            (Err(why), Some(reason)) if why.contains(reason.as_str()) => {
                eprintln!("FAIL {} (listed): {why}", e.key)
            }
            (Err(why), Some(reason)) => problems.push(format!(
                "{}: fails, but not as listed ({reason}): {why}",
                e.key
            )),
            (Err(why), None) => problems.push(format!("{}: {why}", e.key)),
        }
    }
    eprintln!(
        "zoo: {passed}/{ran} archives run to PyTorch's outputs; {skipped} absent, {unscriptable} PyTorch cannot script or trace"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The comparison of detections itself: reordered ties match, anything else does not.
#[test]
fn detections_match_across_tied_scores_only() {
    let t = |v: Vec<f32>, s: &[i64]| Tensor::from_vec(v, s).unwrap();
    let dets = |boxes: Vec<f32>, labels: Vec<f32>, scores: Vec<f32>| {
        let n = scores.len() as i64;
        BTreeMap::from([
            ("boxes".to_string(), t(boxes, &[n, 4])),
            ("labels".to_string(), t(labels, &[n])),
            ("scores".to_string(), t(scores, &[n])),
        ])
    };
    let want = dets(
        vec![0., 0., 1., 1., 2., 2., 3., 3., 4., 4., 5., 5.],
        vec![1., 2., 1.],
        vec![0.9, 0.5, 0.5],
    );
    let swapped = dets(
        vec![0., 0., 1., 1., 4., 4., 5., 5., 2., 2., 3., 3.],
        vec![1., 1., 2.],
        vec![0.9, 0.5, 0.5],
    );
    assert_eq!(compare_detections("x", &swapped, &want), Ok(()));
    let moved = dets(
        vec![0., 0., 1., 1., 4., 4., 5., 5., 2., 2., 3., 3.5],
        vec![1., 1., 2.],
        vec![0.9, 0.5, 0.5],
    );
    assert!(compare_detections("x", &moved, &want).is_err());
    let fewer = dets(vec![0., 0., 1., 1.], vec![1.], vec![0.9]);
    assert!(compare_detections("x", &fewer, &want).is_err());
    // Coordinates near 0 are held to rtol of the image's extent (here 100), not their own.
    let image = dets(vec![0.5, 0., 100., 50.], vec![1.], vec![0.9]);
    let rounded = dets(vec![0.505, 0.001, 100.005, 50.], vec![1.], vec![0.9]);
    assert_eq!(compare_detections("x", &rounded, &image), Ok(()));
    let off = dets(vec![0.52, 0., 100., 50.], vec![1.], vec![0.9]);
    assert!(compare_detections("x", &off, &image).is_err());
}
