//! A whole `.pt` TorchScript archive read in memory: its records, the unpickled `data.pkl`
//! (the module object tree) and `constants.pkl`, the `code/` sources with their source maps,
//! and `extra/` files. Every error names the record it is in.

use std::collections::{BTreeMap, HashMap};

use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::{DType, Storage};

use super::error::ImportError;
use super::limits::Limits;
use super::pickle::unpickle;
use super::source_map::SourceMap;
use super::storage::{storage_nbytes, swap_bytes, NoStorages, StorageLoader};
use super::zip::{PtZip, Record};

/// The file format versions this reader accepts, as PyTorch's `caffe2/serialize/versions.h`
/// (`kMinSupportedFileFormatVersion`..=`kMaxSupportedFileFormatVersion`). Versions 4 and up
/// only mark operators whose meaning changed; the module loader applies those upgraders.
pub const MIN_VERSION: u64 = 1;
pub const MAX_VERSION: u64 = 10;

/// Byte order of the storages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

/// One `code/` file: its text (what TorchScript's Python printer wrote) and its source map.
#[derive(Clone, Debug)]
pub struct CodeFile {
    pub text: String,
    /// From `<file>.debug_pkl`, when the archive has one.
    pub source_map: Option<SourceMap>,
}

/// An archive's contents, unpickled.
#[derive(Debug)]
pub struct Archive {
    /// The top-level folder name (the name the archive was saved under).
    pub folder: String,
    /// Every record, relative to the folder.
    pub records: Vec<Record>,
    /// The file format version (`version` or `.data/version`).
    pub version: u64,
    /// From `byteorder` (little when absent, as in archives before it existed).
    pub byteorder: ByteOrder,
    /// `data.pkl`: the module tree (objects in the unpickler's provisional form, see
    /// [`super::pickle`]).
    pub data: IValue,
    /// `constants.pkl`: the tensor constants `CONSTANTS.cN` of the code.
    pub constants: Vec<IValue>,
    /// `code/**/*.py` by record path (`code/__torch__.py`).
    pub code: BTreeMap<String, CodeFile>,
    /// `extra/*` files by name inside `extra/`.
    pub extra: BTreeMap<String, Vec<u8>>,
    /// The storages the pickles loaded, by record (`data/<key>` for data.pkl's,
    /// `constants/<key>` for constants.pkl's).
    pub storages: Vec<(String, DType, Storage)>,
}

/// Reads the archive in `bytes`.
pub fn read_archive(bytes: &[u8], limits: &Limits) -> Result<Archive, ImportError> {
    let mut zip = PtZip::open(bytes, limits)?;
    if zip.contains("model.json") && !zip.contains("data.pkl") {
        return Err(ImportError::in_record(
            "model.json",
            "the legacy JSON archive format of PyTorch 1.0 is not supported; re-save the model with a newer PyTorch",
        ));
    }
    let version = read_version(&mut zip)?;
    let byteorder = read_byteorder(&mut zip)?;

    // As PyTorch's readArchiveAndTensors, each pickle's storages live in the folder of its
    // name: data.pkl's in data/, constants.pkl's (the code's tensor constants) in constants/.
    let mut loader = RecordStorages {
        zip: &mut zip,
        folder: "data",
        byteorder,
        loaded: HashMap::new(),
    };
    let data_bytes = read_pickle_record(loader.zip, "data.pkl", limits)?;
    let data = unpickle(&data_bytes, &mut loader, limits).map_err(|e| e.with_record("data.pkl"))?;
    loader.folder = "constants";
    let const_bytes = read_pickle_record(loader.zip, "constants.pkl", limits)?;
    let consts =
        unpickle(&const_bytes, &mut loader, limits).map_err(|e| e.with_record("constants.pkl"))?;
    let constants = match consts.value {
        IValue::Tuple(t) => t.to_vec(),
        other => {
            return Err(ImportError::in_record(
                "constants.pkl",
                format!("must hold a tuple, found a {}", other.kind_name()),
            ))
        }
    };
    let storages = (data
        .storages
        .into_iter()
        .map(|(k, d, s)| (format!("data/{k}"), d, s)))
    .chain((consts.storages.into_iter()).map(|(k, d, s)| (format!("constants/{k}"), d, s)))
    .collect();

    let names: Vec<String> = zip.records().iter().map(|r| r.name.clone()).collect();
    let mut code = BTreeMap::new();
    for name in names
        .iter()
        .filter(|n| n.starts_with("code/") && n.ends_with(".py"))
    {
        let bytes = zip.read(name)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            ImportError::in_record(
                name.as_str(),
                format!(
                    "code is not UTF-8 text (byte {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        let debug_name = format!("{name}.debug_pkl");
        let source_map = if zip.contains(&debug_name) {
            let bytes = read_pickle_record(&mut zip, &debug_name, limits)?;
            let v = unpickle(&bytes, &mut NoStorages, limits)
                .map_err(|e| e.with_record(&debug_name))?;
            Some(
                SourceMap::decode(&v.value)
                    .map_err(|m| ImportError::in_record(debug_name.as_str(), m))?,
            )
        } else {
            None
        };
        code.insert(name.clone(), CodeFile { text, source_map });
    }
    let mut extra = BTreeMap::new();
    for name in names.iter().filter(|n| n.starts_with("extra/")) {
        let data = zip.read(name)?;
        extra.insert(name["extra/".len()..].to_string(), data);
    }
    Ok(Archive {
        folder: zip.folder().to_string(),
        records: zip.records().to_vec(),
        version,
        byteorder,
        data: data.value,
        constants,
        code,
        extra,
        storages,
    })
}

fn read_pickle_record(
    zip: &mut PtZip,
    name: &str,
    limits: &Limits,
) -> Result<Vec<u8>, ImportError> {
    let Some(rec) = zip.record(name) else {
        return Err(ImportError::in_record(
            name,
            "record is missing from the archive",
        ));
    };
    if rec.size > limits.max_pickle_size {
        return Err(ImportError::in_record(
            name,
            format!(
                "pickle of {} bytes is larger than the limit of {}",
                rec.size, limits.max_pickle_size
            ),
        ));
    }
    zip.read(name)
}

fn read_version(zip: &mut PtZip) -> Result<u64, ImportError> {
    // torch.save-style archives keep it in `.data/version`; PyTorch prefers that one.
    let name = if zip.contains(".data/version") && !zip.contains("version") {
        ".data/version"
    } else {
        "version"
    };
    if zip.record(name).is_some_and(|r| r.size > 64) {
        return Err(ImportError::in_record(
            name,
            "the version record is too long",
        ));
    }
    let bytes = zip.read(name)?;
    let text = String::from_utf8_lossy(&bytes);
    let version: u64 = text.trim().parse().map_err(|_| {
        ImportError::in_record(
            name,
            format!("the version {:?} is not a number", text.trim()),
        )
    })?;
    if !(MIN_VERSION..=MAX_VERSION).contains(&version) {
        return Err(ImportError::in_record(
            name,
            format!(
                "file format version {version} is not supported: this reader accepts versions {MIN_VERSION} to {MAX_VERSION}"
            ),
        ));
    }
    Ok(version)
}

fn read_byteorder(zip: &mut PtZip) -> Result<ByteOrder, ImportError> {
    if !zip.contains("byteorder") {
        return Ok(ByteOrder::Little);
    }
    if zip.record("byteorder").is_some_and(|r| r.size > 16) {
        return Err(ImportError::in_record(
            "byteorder",
            "the byteorder record is too long",
        ));
    }
    let bytes = zip.read("byteorder")?;
    match String::from_utf8_lossy(&bytes).trim() {
        "little" => Ok(ByteOrder::Little),
        "big" => Ok(ByteOrder::Big),
        other => Err(ImportError::in_record(
            "byteorder",
            format!("unknown byte order {other:?} (expected \"little\" or \"big\")"),
        )),
    }
}

/// Loads `<folder>/<key>` records as storages, byte-swapped on big-endian archives.
struct RecordStorages<'z, 'a> {
    zip: &'z mut PtZip<'a>,
    /// `data` or `constants`: the folder of the pickle being read.
    folder: &'static str,
    byteorder: ByteOrder,
    /// Storages already read, by record name: the tensors of one pickle that share a
    /// storage share it here too.
    loaded: HashMap<String, (DType, u64, Storage)>,
}

impl StorageLoader for RecordStorages<'_, '_> {
    fn load(&mut self, key: &str, dtype: DType, numel: u64) -> Result<Storage, ImportError> {
        let name = format!("{}/{key}", self.folder);
        if let Some((d, n, s)) = self.loaded.get(&name) {
            if (*d, *n) != (dtype, numel) {
                return Err(ImportError::in_record(
                    name.as_str(),
                    format!(
                        "storage is declared as {n} {d} elements and as {numel} {dtype} elements"
                    ),
                ));
            }
            return Ok(s.clone());
        }
        let need = storage_nbytes(dtype, numel).ok_or_else(|| {
            ImportError::in_record(name.as_str(), format!("{numel} {dtype} elements overflow"))
        })?;
        if numel == 0 {
            // PyTorch does not read the record of an empty storage.
            return Storage::zeroed(0)
                .map_err(|e| ImportError::in_record(name.as_str(), e.message));
        }
        let Some(rec) = self.zip.record(&name) else {
            return Err(ImportError::in_record(
                name.as_str(),
                format!("storage record is missing (the pickle declares {numel} {dtype} elements)"),
            ));
        };
        if rec.size < need {
            return Err(ImportError::in_record(
                name.as_str(),
                format!(
                    "storage holds {} bytes but the pickle declares {numel} {dtype} elements ({need} bytes)",
                    rec.size
                ),
            ));
        }
        let storage = Storage::zeroed(need as usize)
            .map_err(|e| ImportError::in_record(name.as_str(), e.message))?;
        // SAFETY: a fresh storage of exactly `need` bytes, not shared with anything yet.
        let dst = unsafe { std::slice::from_raw_parts_mut(storage.as_ptr(), need as usize) };
        if rec.size == need {
            self.zip.read_into(&name, dst)?;
        } else {
            let all = self.zip.read(&name)?;
            dst.copy_from_slice(&all[..need as usize]);
        }
        if self.byteorder == ByteOrder::Big {
            swap_bytes(dst, dtype.size());
        }
        self.loaded.insert(name, (dtype, numel, storage.clone()));
        Ok(storage)
    }
}
