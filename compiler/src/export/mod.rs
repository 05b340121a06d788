//! Writing TorchScript archives that `torch.jit.load` reads (PyTorch's
//! torch/csrc/jit/serialization/export_module.cpp and the stream writer of
//! caffe2/serialize/inline_container.cc): a zip of stored records under one folder —
//! `data.pkl` (the module's object tree), `constants.pkl` (the tensors the code names as
//! `CONSTANTS.cN`), `code/__torch__/…py` (every class, printed by the Python printer),
//! `data/N` storages aligned to 64 bytes as PyTorch aligns them, `version`, `byteorder`,
//! `.data/serialization_id` and `extra/` files. The same model gives the same bytes.

mod classes;
pub mod pickler;
mod placeholder;
mod version;

pub use placeholder::{frozen_model, placeholder_model, source_module};

use std::io::{Cursor, Write};
use std::path::Path;

use ember_dialects::Graph;
use ember_runtime::ivalue::IValue;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use crate::model::Model;
use pickler::{Pickler, StorageRecord};

/// PyTorch pads records to 64-byte boundaries with an extra field of this id ("FB").
const ALIGNMENT: u16 = 64;
const ALIGNMENT_HEADER_ID: u16 = 0x4246;

/// The archive of `model` (a module loaded from `.pt`, with whatever passes changed its
/// methods' graphs), its records under folder `folder`.
pub fn write_archive(model: &Model, folder: &str) -> Result<Vec<u8>, String> {
    let module = model
        .module
        .as_ref()
        .ok_or("only a module (a .pt model) can be written as an archive yet")?;
    let mut constants = Vec::new();
    let code = classes::print_classes(model, module, &mut constants)?;

    let mut data = Pickler::new(Some(model.unit.clone()));
    data.push(&IValue::Object(module.clone()))?;
    let (data_pkl, data_storages) = data.finish();

    let mut consts = Pickler::new(None);
    let values = constants
        .iter()
        .map(classes::constant_ivalue)
        .collect::<Result<Vec<_>, _>>()?;
    consts.push(&IValue::tuple(values))?;
    let (constants_pkl, constant_storages) = consts.finish();

    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let mut put = |name: &str, bytes: &[u8]| -> Result<(), String> {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .last_modified_time(DateTime::default())
            .with_alignment_and_header_id(ALIGNMENT, ALIGNMENT_HEADER_ID);
        zip.start_file(format!("{folder}/{name}"), options)
            .map_err(|e| format!("{name}: {e}"))?;
        zip.write_all(bytes).map_err(|e| format!("{name}: {e}"))
    };
    for s in &data_storages {
        put(&format!("data/{}", s.key), &storage_bytes(s)?)?;
    }
    put("data.pkl", &data_pkl)?;
    for (path, file) in &code {
        put(path, file.text.as_bytes())?;
        // PyTorch's reader refuses an empty one; code with no source ranges has none.
        if !file.ranges.is_empty() {
            put(&format!("{path}.debug_pkl"), &debug_pkl(file, model)?)?;
        }
    }
    for s in &constant_storages {
        put(&format!("constants/{}", s.key), &storage_bytes(s)?)?;
    }
    put("constants.pkl", &constants_pkl)?;
    for (name, bytes) in &model.extra {
        put(&format!("extra/{name}"), bytes)?;
    }
    let mut graphs: Vec<Graph> = model
        .unit
        .functions()
        .iter()
        .map(|f| f.graph.clone())
        .collect();
    for class in model.unit.classes() {
        let methods = class.methods.read().unwrap_or_else(|e| e.into_inner());
        graphs.extend(methods.values().map(|f| f.graph.clone()));
    }
    let version = version::file_format_version(&graphs);
    put(
        version::record_name(version),
        format!("{version}\n").as_bytes(),
    )?;
    put("byteorder", b"little")?;
    // PyTorch writes a random id; a digest of the contents keeps the output deterministic.
    let id = serialization_id(&data_pkl, &constants_pkl, &code);
    put(".data/serialization_id", id.as_bytes())?;
    let cursor = zip.finish().map_err(|e| e.to_string())?;
    Ok(cursor.into_inner())
}

/// The bytes of a storage, little-endian as written by a little-endian machine.
fn storage_bytes(s: &StorageRecord) -> Result<Vec<u8>, String> {
    if cfg!(target_endian = "big") {
        return Err("archives are written on little-endian machines only".into());
    }
    let n = s.storage.nbytes();
    // SAFETY: the storage owns `nbytes` initialized bytes while `s` holds it.
    let bytes = unsafe { std::slice::from_raw_parts(s.storage.as_ptr() as *const u8, n) };
    Ok(bytes.to_vec())
}

/// A code file's `.debug_pkl` in the record form PyTorch's loader reads: for the byte offset
/// of each statement, the range it came from as `((text, filename, starting_line), start,
/// end)`, so PyTorch's messages quote the original source. Where the model does not hold a
/// file's text, the source is empty text starting at the node's line (file and line only).
fn debug_pkl(file: &classes::CodeText, model: &Model) -> Result<Vec<u8>, String> {
    // One source tuple per original text (shared, as PyTorch shares them through the memo).
    let mut shared: std::collections::BTreeMap<(String, i64), IValue> =
        std::collections::BTreeMap::new();
    let mut source = |text: &str, filename: &str, line: i64| {
        shared
            .entry((filename.to_string(), line))
            .or_insert_with(|| {
                IValue::tuple(vec![
                    IValue::str(text.to_string()),
                    IValue::str(filename.to_string()),
                    IValue::Int(line),
                ])
            })
            .clone()
    };
    let records = file
        .ranges
        .iter()
        .map(|(offset, r)| {
            let text = model.sources.get(&*r.file);
            let span = text.map(|t| line_col_span(t, r.line, r.col));
            // A range into an archive's generated code goes on to the Python it came from.
            let original = span
                .zip(model.source_maps.get(&*r.file))
                .and_then(|((at, _), map)| {
                    let e = map.find(at)?;
                    Some((e.source.clone(), e.start, e.end))
                });
            let (src, start, end) = match (original, text, span) {
                (Some((o, start, end)), _, _) => (
                    source(
                        &o.text,
                        o.filename.as_deref().unwrap_or(""),
                        o.starting_line,
                    ),
                    start,
                    end,
                ),
                (None, Some(t), Some((start, end))) => (source(t, &r.file, 1), start, end),
                _ => (source("", &r.file, r.line as i64), 0, 0),
            };
            IValue::tuple(vec![
                IValue::Int(*offset as i64),
                IValue::tuple(vec![
                    src,
                    IValue::Int(start as i64),
                    IValue::Int(end as i64),
                ]),
            ])
        })
        .collect();
    let mut p = Pickler::new(None);
    p.push(&IValue::tuple(records))?;
    Ok(p.finish().0)
}

/// The byte range in `text` from 1-based `line` and 0-based `col` (as source ranges count
/// them) to the end of that line (an empty range at the end when the position lies past the
/// text).
fn line_col_span(text: &str, line: u32, col: u32) -> (usize, usize) {
    let mut start = 0;
    for _ in 1..line.max(1) {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return (text.len(), text.len()),
        }
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let at = (start + col as usize).min(line_end);
    (at, line_end)
}

fn serialization_id(data: &[u8], constants: &[u8], code: &[(String, classes::CodeText)]) -> String {
    // FNV-1a over everything, as 40 decimal digits like PyTorch's ids.
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u128;
            h = h.wrapping_mul(0x0000000001000000000000000000013B);
        }
    };
    feed(data);
    feed(constants);
    for (p, t) in code {
        feed(p.as_bytes());
        feed(t.text.as_bytes());
    }
    format!("{:040}", h % 10u128.pow(38))
}

/// Writes `bytes` to `path` without ever leaving a partial file there: a temporary file in
/// the same folder, renamed over `path` once complete.
pub fn save(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("'{}' names no file", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write '{}': {e}", path.display())
    })
}

/// The folder name PyTorch uses: the file's stem.
pub fn folder_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "archive".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::archive::read_archive;
    use crate::import::limits::Limits;

    const SOURCE: &str = "import torch\ndef helper(x: torch.Tensor) -> torch.Tensor:\n    return x.view(7, 7)\n\ndef f(x: torch.Tensor) -> torch.Tensor:\n    y = x + 1\n    return helper(y)\n";

    /// The source map of a written archive quotes the original source of each statement.
    #[test]
    fn debug_pkl_points_at_the_original_source() {
        let model = Model::from_source("err.py", SOURCE).unwrap();
        let model = placeholder_model(&model, "f").unwrap();
        let bytes = write_archive(&model, "err").unwrap();
        assert_eq!(
            bytes,
            write_archive(&model, "err").unwrap(),
            "deterministic"
        );
        let archive = read_archive(&bytes, &Limits::default()).unwrap();
        let code = &archive.code["code/__torch__.py"];
        let map = code.source_map.as_ref().expect("a source map");
        let view = code.text.find("torch.view").unwrap();
        let entry = map.find(view).expect("a range for the view");
        assert_eq!(entry.source.filename.as_deref(), Some("err.py"));
        assert_eq!(entry.snippet(), Some("x.view(7, 7)"));
    }

    /// An archive written from an archive maps its code to the original Python the input
    /// archive's source maps name, not to the input's generated code.
    #[test]
    fn rewritten_archives_keep_the_original_source() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../test/pt/mlp_scripted.pt");
        let input = std::fs::read(path).unwrap();
        let original = read_archive(&input, &Limits::default()).unwrap();
        let model = Model::from_bytes(
            "mlp.pt",
            crate::model::ModelKind::Archive,
            &input,
            &Default::default(),
        )
        .unwrap();
        let written =
            read_archive(&write_archive(&model, "mlp").unwrap(), &Limits::default()).unwrap();
        let files = |a: &crate::import::archive::Archive| -> Vec<String> {
            let mut names: Vec<String> = a
                .code
                .values()
                .filter_map(|c| c.source_map.as_ref())
                .flat_map(|m| m.entries.iter().filter_map(|e| e.source.filename.clone()))
                .collect();
            names.sort();
            names.dedup();
            names
        };
        let (theirs, ours) = (files(&original), files(&written));
        assert!(
            ours.iter().all(|f| theirs.contains(f)),
            "{ours:?} beyond {theirs:?}"
        );
        assert!(
            ours.iter().any(|f| f.ends_with("gen_pt_corpus.py")),
            "{ours:?}"
        );
    }
}
