//! The pickler of TorchScript archives (PyTorch's torch/csrc/jit/serialization/pickler.cpp):
//! protocol 2, objects as `GLOBAL '__torch__.m C'` + `NEWOBJ` + a state dict + `BUILD`,
//! tensors as `torch._utils._rebuild_tensor_v2` over persistent storage records (each storage
//! written once, however many tensors view it), typed lists through `torch.jit._pickle`'s
//! `build_intlist`/`build_doublelist`/`build_boollist`/`build_tensorlist`. Output is
//! deterministic: the same values give the same bytes.

use std::sync::Arc;

use ember_runtime::interpreter::run;
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::{DType, Storage, Tensor};
use ember_runtime::unit::CompilationUnit;

/// A storage the pickle refers to, to be written as record `<prefix>/<key>`.
pub struct StorageRecord {
    pub key: String,
    pub dtype: DType,
    pub storage: Storage,
}

pub struct Pickler {
    out: Vec<u8>,
    /// Resolves the calls of `__getstate__` methods, which objects are pickled through.
    unit: Option<Arc<CompilationUnit>>,
    /// Storages written so far (their key is their index).
    pub storages: Vec<StorageRecord>,
}

const PROTO: u8 = 0x80;
const STOP: u8 = b'.';
const MARK: u8 = b'(';
const NONE: u8 = b'N';
const NEWTRUE: u8 = 0x88;
const NEWFALSE: u8 = 0x89;
const BININT: u8 = b'J';
const BININT1: u8 = b'K';
const BININT2: u8 = b'M';
const LONG1: u8 = 0x8a;
const BINFLOAT: u8 = b'G';
const BINUNICODE: u8 = b'X';
const EMPTY_TUPLE: u8 = b')';
const TUPLE: u8 = b't';
const EMPTY_LIST: u8 = b']';
const APPENDS: u8 = b'e';
const EMPTY_DICT: u8 = b'}';
const SETITEMS: u8 = b'u';
const GLOBAL: u8 = b'c';
const REDUCE: u8 = b'R';
const NEWOBJ: u8 = 0x81;
const BUILD: u8 = b'b';
const BINPERSID: u8 = b'Q';

impl Pickler {
    pub fn new(unit: Option<Arc<CompilationUnit>>) -> Pickler {
        Pickler {
            out: vec![PROTO, 2],
            unit,
            storages: Vec::new(),
        }
    }

    /// The pickle of everything pushed, ended.
    pub fn finish(mut self) -> (Vec<u8>, Vec<StorageRecord>) {
        self.out.push(STOP);
        (self.out, self.storages)
    }

    pub fn push(&mut self, v: &IValue) -> Result<(), String> {
        match v {
            IValue::None => self.out.push(NONE),
            IValue::Bool(b) => self.out.push(if *b { NEWTRUE } else { NEWFALSE }),
            IValue::Int(i) => self.int(*i),
            IValue::Double(d) => {
                self.out.push(BINFLOAT);
                self.out.extend_from_slice(&d.to_be_bytes());
            }
            IValue::Str(s) => self.string(s),
            IValue::Tuple(items) => {
                if items.is_empty() {
                    self.out.push(EMPTY_TUPLE);
                } else {
                    self.out.push(MARK);
                    for x in items.iter() {
                        self.push(x)?;
                    }
                    self.out.push(TUPLE);
                }
            }
            IValue::List(l) => self.list(&l.to_vec())?,
            IValue::Dict(d) => {
                self.out.push(EMPTY_DICT);
                let items = d.items();
                if !items.is_empty() {
                    self.out.push(MARK);
                    for (k, v) in items {
                        self.push(&k.to_ivalue())?;
                        self.push(&v)?;
                    }
                    self.out.push(SETITEMS);
                }
            }
            IValue::Tensor(t) => self.tensor(t)?,
            // PyTorch's form: the enum class, its value, REDUCE (no argument tuple).
            IValue::Enum(e) => {
                let (module, name) = e
                    .class_name
                    .rsplit_once('.')
                    .ok_or_else(|| format!("enum '{}' has no module path", e.class_name))?;
                self.global(module, name);
                self.push(&e.value)?;
                self.out.push(REDUCE);
            }
            IValue::Object(o) => {
                let (module, name) =
                    o.class.qualname.rsplit_once('.').ok_or_else(|| {
                        format!("class '{}' has no module path", o.class.qualname)
                    })?;
                self.global(module, name);
                self.out.extend_from_slice(&[EMPTY_TUPLE, NEWOBJ]);
                // A class with `__getstate__` is pickled through it (its `__setstate__` reads
                // the state back), as PyTorch does.
                let getstate = o
                    .class
                    .methods
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .get("__getstate__")
                    .cloned();
                if let Some(f) = getstate {
                    let code = f.code(self.unit.as_ref()).map_err(|e| e.message)?;
                    let state = run(&code, vec![IValue::Object(o.clone())])
                        .map_err(|e| format!("{}.__getstate__: {}", o.class.qualname, e.message))?;
                    let [state] = <[IValue; 1]>::try_from(state).map_err(|_| {
                        format!("{}.__getstate__ returned no one value", o.class.qualname)
                    })?;
                    self.push(&state)?;
                    self.out.push(BUILD);
                    return Ok(());
                }
                let state: Vec<(String, IValue)> = {
                    let slots = o.slots.read().unwrap_or_else(|e| e.into_inner());
                    let attrs = o.class.attributes.read().unwrap_or_else(|e| e.into_inner());
                    attrs
                        .iter()
                        .zip(slots.iter())
                        .map(|(a, v)| (a.name.clone(), v.clone()))
                        .collect()
                };
                self.out.push(EMPTY_DICT);
                if !state.is_empty() {
                    self.out.push(MARK);
                    for (name, v) in &state {
                        self.string(name);
                        self.push(v).map_err(|e| {
                            format!("attribute '{name}' of {}: {e}", o.class.qualname)
                        })?;
                    }
                    self.out.push(SETITEMS);
                }
                self.out.push(BUILD);
            }
            other => {
                return Err(format!(
                    "a value of kind {} cannot be written to an archive",
                    other.kind_name()
                ))
            }
        }
        Ok(())
    }

    fn int(&mut self, i: i64) {
        if (0..256).contains(&i) {
            self.out.extend_from_slice(&[BININT1, i as u8]);
        } else if (0..65536).contains(&i) {
            self.out.push(BININT2);
            self.out.extend_from_slice(&(i as u16).to_le_bytes());
        } else if i32::try_from(i).is_ok() {
            self.out.push(BININT);
            self.out.extend_from_slice(&(i as i32).to_le_bytes());
        } else {
            self.out.extend_from_slice(&[LONG1, 8]);
            self.out.extend_from_slice(&i.to_le_bytes());
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push(BINUNICODE);
        self.out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.out.extend_from_slice(s.as_bytes());
    }

    fn global(&mut self, module: &str, name: &str) {
        self.out.push(GLOBAL);
        self.out.extend_from_slice(module.as_bytes());
        self.out.push(b'\n');
        self.out.extend_from_slice(name.as_bytes());
        self.out.push(b'\n');
    }

    /// A list of one element kind through its `torch.jit._pickle` builder, as PyTorch pickles
    /// `List[int]`, `List[float]`, `List[bool]` and `List[Tensor]`; any other list as a plain
    /// list (its type comes from the attribute's annotation when loaded).
    fn list(&mut self, items: &[IValue]) -> Result<(), String> {
        let all = |f: fn(&IValue) -> bool| !items.is_empty() && items.iter().all(f);
        let builder = if all(|v| matches!(v, IValue::Int(_))) {
            Some("build_intlist")
        } else if all(|v| matches!(v, IValue::Double(_))) {
            Some("build_doublelist")
        } else if all(|v| matches!(v, IValue::Bool(_))) {
            Some("build_boollist")
        } else if all(|v| matches!(v, IValue::Tensor(_))) {
            Some("build_tensorlist")
        } else {
            None
        };
        if let Some(b) = builder {
            self.global("torch.jit._pickle", b);
            self.out.push(MARK);
        }
        self.out.push(EMPTY_LIST);
        if !items.is_empty() {
            self.out.push(MARK);
            for x in items {
                self.push(x)?;
            }
            self.out.push(APPENDS);
        }
        if builder.is_some() {
            self.out.extend_from_slice(&[TUPLE, REDUCE]);
        }
        Ok(())
    }

    /// `_rebuild_tensor_v2((storage record), offset, sizes, strides, requires_grad,
    /// OrderedDict())`.
    fn tensor(&mut self, t: &Tensor) -> Result<(), String> {
        let meta = t.meta();
        if !matches!(meta.device, ember_runtime::tensor::Device::Cpu) {
            return Err(format!(
                "a tensor on {} cannot be written (only cpu tensors)",
                meta.device
            ));
        }
        let storage = meta.storage.clone();
        let dtype = meta.dtype;
        let key = match self.storages.iter().position(|s| s.storage.same(&storage)) {
            Some(i) => {
                if self.storages[i].dtype != dtype {
                    return Err("one storage viewed with two dtypes cannot be written".into());
                }
                i
            }
            None => {
                self.storages.push(StorageRecord {
                    key: self.storages.len().to_string(),
                    dtype,
                    storage: storage.clone(),
                });
                self.storages.len() - 1
            }
        };
        self.global("torch._utils", "_rebuild_tensor_v2");
        self.out.push(MARK);
        // The persistent id: ('storage', torch.FloatStorage, key, 'cpu', numel).
        self.out.push(MARK);
        self.string("storage");
        let storage_class = dtype
            .legacy_tensor_name()
            .trim_start_matches("torch.")
            .replace("Tensor", "Storage");
        self.global("torch", &storage_class);
        self.string(&key.to_string());
        self.string("cpu");
        self.int((storage.nbytes() / dtype.size()) as i64);
        self.out.push(TUPLE);
        self.out.push(BINPERSID);
        self.int(meta.offset);
        for dims in [&meta.sizes, &meta.strides] {
            if dims.is_empty() {
                self.out.push(EMPTY_TUPLE);
            } else {
                self.out.push(MARK);
                for &d in dims.iter() {
                    self.int(d);
                }
                self.out.push(TUPLE);
            }
        }
        self.out.push(if meta.requires_grad {
            NEWTRUE
        } else {
            NEWFALSE
        });
        self.global("collections", "OrderedDict");
        self.out.extend_from_slice(&[EMPTY_TUPLE, REDUCE]);
        self.out.extend_from_slice(&[TUPLE, REDUCE]);
        Ok(())
    }
}
