//! The .pt archive reader against the corpus of test/pt/ (written by real PyTorch,
//! tools/gen/gen_pt_corpus.py) and the malformed suite of test/pt/malformed/
//! (tools/gen/gen_pt_malformed.py), plus deterministic mutations of both: every good archive
//! unpickles to what PyTorch saved, every bad one is refused with a message naming the
//! problem, and nothing panics or hangs.

#[path = "pt_archive/json.rs"]
mod json;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ember_compiler::import::pickle::unpickle;
use ember_compiler::import::storage::NoStorages;
use ember_compiler::import::{read_archive, Archive, ImportError, Limits, PickledObject};
use ember_runtime::ivalue::{DictKey, IValue};
use ember_runtime::tensor::Tensor;
use json::Json;

fn pt_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/pt")
}

fn read(path: &Path) -> Result<Archive, ImportError> {
    let bytes = std::fs::read(path).unwrap();
    match catch_unwind(AssertUnwindSafe(|| {
        read_archive(&bytes, &Limits::default())
    })) {
        Ok(r) => r,
        Err(_) => panic!("{}: the reader panicked", path.display()),
    }
}

/// The value at a state-dict path (`fc1.weight`) of an unpickled module tree.
fn lookup(root: &IValue, path: &str) -> Option<IValue> {
    let mut cur = root.clone();
    for part in path.split('.') {
        let obj = PickledObject::from_ivalue(&cur)?;
        match &obj.state {
            IValue::Dict(d) => cur = d.get(&DictKey::Str(part.to_string().into()))?,
            // `__setstate__` classes keep their `__getstate__` tuple: match by position below.
            IValue::Tuple(items) => {
                return items
                    .iter()
                    .find(|v| matches!(v, IValue::Tensor(_)))
                    .cloned();
            }
            _ => return None,
        }
    }
    Some(cur)
}

fn check_tensor(name: &str, t: &Tensor, want: &Json) {
    assert_eq!(t.dtype().name(), want.get("dtype").str(), "{name}: dtype");
    let shape: Vec<i64> = want
        .get("shape")
        .arr()
        .iter()
        .map(|v| v.num() as i64)
        .collect();
    assert_eq!(t.sizes().to_vec(), shape, "{name}: shape");
    let strides: Vec<i64> = want
        .get("strides")
        .arr()
        .iter()
        .map(|v| v.num() as i64)
        .collect();
    assert_eq!(t.strides().to_vec(), strides, "{name}: strides");
    assert_eq!(
        t.storage_offset(),
        want.get("storage_offset").num() as i64,
        "{name}: offset"
    );
    let values = t.to_vec::<f64>();
    let head: Vec<f64> = want.get("head").arr().iter().map(|v| v.num()).collect();
    assert_eq!(&values[..head.len()], &head[..], "{name}: first values");
    let sum: f64 = values.iter().sum();
    let want_sum = want.get("sum").num();
    assert!(
        (sum - want_sum).abs() <= 1e-9 * want_sum.abs().max(1.0),
        "{name}: sum {sum} vs {want_sum}"
    );
}

fn check_against_summary(name: &str, a: &Archive, s: &Json) {
    assert_eq!(a.folder, s.get("folder").str(), "{name}: folder");
    assert_eq!(a.version, s.get("version").num() as u64, "{name}: version");
    let mut records: Vec<&str> = a.records.iter().map(|r| r.name.as_str()).collect();
    records.sort();
    let want: Vec<&str> = s.get("records").arr().iter().map(|r| r.str()).collect();
    assert_eq!(records, want, "{name}: records");
    let root = PickledObject::from_ivalue(&a.data).expect("data.pkl holds an object");
    assert_eq!(root.class, s.get("root_class").str(), "{name}: root class");
    for (path, want) in s.get("tensors").obj() {
        let v = lookup(&a.data, path).unwrap_or_else(|| panic!("{name}: no {path}"));
        let IValue::Tensor(t) = v else {
            panic!("{name}: {path} is a {}", v.kind_name())
        };
        check_tensor(&format!("{name}:{path}"), &t, want);
    }
    for (file, code) in &a.code {
        let map = code
            .source_map
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: {file} has no source map"));
        assert!(!map.entries.is_empty(), "{name}: {file}: empty source map");
        for e in &map.entries {
            assert!(
                e.byte_offset <= code.text.len(),
                "{name}: {file}: offset past the code"
            );
        }
    }
}

/// Where test/setup/pt_models.sh puts the archives too large to commit.
fn large_dir() -> PathBuf {
    std::env::var_os("EMBER_PT_LARGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/pt-large"))
}

#[test]
fn corpus_archives_unpickle_to_what_pytorch_saved() {
    let summary = json::parse(&std::fs::read_to_string(pt_dir().join("SUMMARY.json")).unwrap());
    assert!(summary.obj().len() >= 17);
    let mut dirs = vec![(pt_dir(), summary)];
    // resnet18 and mobilenet_v3_small, when the set-up script has generated them.
    if let Ok(text) = std::fs::read_to_string(large_dir().join("SUMMARY.json")) {
        dirs.push((large_dir(), json::parse(&text)));
    }
    for (dir, summary) in &dirs {
        for (name, s) in summary.obj() {
            let started = Instant::now();
            let a = read(&dir.join(format!("{name}.pt"))).unwrap_or_else(|e| panic!("{name}: {e}"));
            eprintln!("{name}: read in {:?}", started.elapsed());
            check_against_summary(name, &a, s);
        }
    }
}

#[test]
fn corpus_details() {
    let a = read(&pt_dir().join("mlp_scripted.pt")).unwrap();
    // Methods are printed into code/ and their source maps point at the generator's source.
    let code = &a.code["code/__torch__.py"];
    assert!(code.text.contains("def forward("), "{}", code.text);
    let map = code.source_map.as_ref().unwrap();
    let origin = map
        .entries
        .iter()
        .find(|e| e.snippet().is_some_and(|s| s.contains("self.fc2")))
        .expect("a range of forward's source");
    let file = origin.source.filename.as_deref().unwrap_or("");
    assert!(file.ends_with("gen_pt_corpus.py"), "{origin:?}");
    assert!(origin.source.text.contains("def forward"), "{origin:?}");
    assert_eq!(map.find(origin.byte_offset).unwrap(), origin);
    // Parameters share nothing, and the module's other attributes are there.
    let root = PickledObject::from_ivalue(&a.data).unwrap();
    let IValue::Dict(state) = &root.state else {
        panic!("state is not a dict")
    };
    let training = state
        .get(&DictKey::Str("training".to_string().into()))
        .unwrap();
    assert_eq!(training.as_bool(), Some(false));

    // The old source-map format decodes the same way.
    let old = read(&pt_dir().join("mlp_old_debug_format.pt")).unwrap();
    let m = old.code["code/__torch__.py"].source_map.as_ref().unwrap();
    assert!(m
        .entries
        .iter()
        .any(|e| e.source.text.contains("def forward")));

    // Extra files come back byte for byte.
    let x = read(&pt_dir().join("mlp_extra_files.pt")).unwrap();
    assert_eq!(x.extra["notes.txt"], b"hello");
    assert_eq!(x.extra["meta.json"], br#"{"producer": "gen_pt_corpus"}"#);

    // Custom classes, enums and dict attributes.
    let c = read(&pt_dir().join("custom_class_dict_attrs.pt")).unwrap();
    let origin = lookup(&c.data, "origin").unwrap();
    let point = PickledObject::from_ivalue(&origin).unwrap();
    assert_eq!(point.class, "__torch__.Point");
    let color = lookup(&c.data, "color").unwrap();
    let IValue::Enum(e) = color else {
        panic!("color is a {}", color.kind_name())
    };
    assert_eq!(e.class_name, "__torch__.Color");
    assert_eq!(e.value.as_int(), Some(2));
    let IValue::Dict(table) = lookup(&c.data, "table").unwrap() else {
        panic!("table is not a dict")
    };
    assert_eq!(
        table
            .get(&DictKey::Str("b".to_string().into()))
            .unwrap()
            .as_int(),
        Some(2)
    );
    assert!(matches!(lookup(&c.data, "maybe"), Some(IValue::None)));

    // A `__setstate__` module keeps its `__getstate__` tuple.
    let s = read(&pt_dir().join("setstate_module.pt")).unwrap();
    let obj = PickledObject::from_ivalue(&s.data).unwrap();
    let IValue::Tuple(items) = &obj.state else {
        panic!("state is a {}", obj.state.kind_name())
    };
    assert_eq!(items[0].as_int(), Some(7));

    // The non-contiguous buffer is a view sharing storage with nothing else of the module, and
    // constants come from constants.pkl.
    let b = read(&pt_dir().join("buffers_constants_final.pt")).unwrap();
    let IValue::Tensor(t) = lookup(&b.data, "strided").unwrap() else {
        panic!()
    };
    assert!(!t.is_contiguous());
    assert_eq!(
        t.to_vec::<f64>(),
        vec![0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7., 11.]
    );
}

#[test]
fn malformed_archives_are_refused_with_clear_errors() {
    let dir = pt_dir().join("malformed");
    let expected = std::fs::read_to_string(dir.join("EXPECTED.tsv")).unwrap();
    let mut count = 0;
    let base = read(&pt_dir().join("mlp_scripted.pt")).unwrap();
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let (name, expect) = line.split_once('\t').unwrap();
        let path = dir.join(format!("{name}.pt"));
        let started = Instant::now();
        let result = read(&path);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{name}: too slow"
        );
        count += 1;
        match expect {
            "ok" => {
                let a = result.unwrap_or_else(|e| panic!("{name}: {e}"));
                for (key, _, _) in &base.storages {
                    let got = a.storages.iter().find(|(k, _, _)| k == key).unwrap();
                    let want = base.storages.iter().find(|(k, _, _)| k == key).unwrap();
                    assert_eq!(got.1, want.1);
                    // SAFETY: both storages hold nbytes initialized bytes.
                    let bytes = |s: &ember_runtime::tensor::Storage| unsafe {
                        std::slice::from_raw_parts(s.as_ptr(), s.nbytes()).to_vec()
                    };
                    assert_eq!(bytes(&got.2), bytes(&want.2), "{name}: storage {key}");
                }
            }
            _ if expect.starts_with("loader:") => {
                // Read fine here; the module loader refuses the operator it names.
                let a = result.unwrap_or_else(|e| panic!("{name}: {e}"));
                let op = expect.trim_start_matches("loader:").replace("::", ".");
                assert!(
                    a.code.values().any(|c| c.text.contains(&op)),
                    "{name}: no {op}"
                );
            }
            _ => match result {
                Ok(_) => panic!("{name}: read without error, expected '{expect}'"),
                Err(e) => {
                    let shown = e.to_string();
                    assert!(
                        shown.contains(expect),
                        "{name}: error '{shown}' lacks '{expect}'"
                    );
                }
            },
        }
    }
    assert!(count >= 60, "only {count} malformed archives");
}

#[test]
fn caps_are_enforced() {
    let bytes = std::fs::read(pt_dir().join("transformer_encoder_layer.pt")).unwrap();
    let tight = |f: &dyn Fn(&mut Limits)| {
        let mut l = Limits::default();
        f(&mut l);
        read_archive(&bytes, &l).unwrap_err().to_string()
    };
    assert!(tight(&|l| l.max_entries = 5).contains("more than the limit of 5"));
    assert!(tight(&|l| l.max_entry_size = 1000).contains("per entry"));
    assert!(tight(&|l| l.max_total_size = 10_000).contains("in all"));
    assert!(tight(&|l| {
        l.max_compression_ratio = 1;
        l.ratio_free_size = 0;
    })
    .contains("zip bomb"));
    assert!(tight(&|l| l.max_pickle_size = 100).contains("larger than the limit"));
    assert!(tight(&|l| l.max_nesting = 2).contains("nest deeper"));
}

/// A deterministic xorshift generator: the mutations are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, data: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    match rng.below(4) {
        0 => d.truncate(rng.below(d.len())),
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(d.len());
                if let Some(b) = d.get_mut(i) {
                    *b ^= 1 << rng.below(8);
                }
            }
        }
        2 => {
            let i = rng.below(d.len());
            if let Some(b) = d.get_mut(i) {
                *b = rng.next() as u8;
            }
        }
        _ => {
            // Splice a chunk of the data over another place.
            let (a, b) = (rng.below(d.len()), rng.below(d.len()));
            let n = rng.below(64).min(d.len() - a.max(b));
            let chunk = d[a..a + n].to_vec();
            d[b..b + n].copy_from_slice(&chunk);
        }
    }
    d
}

#[test]
fn mutated_archives_never_panic() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut files: Vec<PathBuf> = std::fs::read_dir(pt_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pt"))
        .collect();
    files.sort();
    let limits = Limits {
        max_total_size: 64 << 20,
        ..Limits::default()
    };
    let mut refused = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        for _ in 0..150 {
            let m = mutate(&mut rng, &bytes);
            let started = Instant::now();
            let r = catch_unwind(AssertUnwindSafe(|| read_archive(&m, &limits)));
            assert!(r.is_ok(), "{}: panicked on a mutation", path.display());
            refused += r.unwrap().is_err() as usize;
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{}: slow",
                path.display()
            );
        }
    }
    assert!(refused > 0);
}

#[test]
fn mutated_pickles_never_panic() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let mut pickles = Vec::new();
    for name in [
        "mlp_scripted",
        "custom_class_dict_attrs",
        "multihead_attention",
    ] {
        let bytes = std::fs::read(pt_dir().join(format!("{name}.pt"))).unwrap();
        let mut zip = ember_compiler::import::zip::PtZip::open(&bytes, &Limits::default()).unwrap();
        pickles.push(zip.read("code/__torch__.py.debug_pkl").unwrap());
        pickles.push(zip.read("constants.pkl").unwrap());
        pickles.push(zip.read("data.pkl").unwrap());
    }
    for p in &pickles {
        for _ in 0..700 {
            let m = mutate(&mut rng, p);
            let r = catch_unwind(AssertUnwindSafe(|| {
                unpickle(&m, &mut NoStorages, &Limits::default()).map(|_| ())
            }));
            assert!(r.is_ok(), "the unpickler panicked on a mutation");
        }
    }
}
