//! The zip container of a `.pt` archive, read from bytes in memory: one top-level folder
//! (any name) holding the records. Entry names, sizes and compression ratios are checked
//! before anything is decompressed, and every record's data must match its declared size.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use ::zip::read::{ArchiveOffset, Config};
use ::zip::{CompressionMethod, ZipArchive};

use super::error::{refuse, ImportError};
use super::limits::Limits;

/// One record of the archive: a file inside the top-level folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The path inside the top-level folder (`data.pkl`, `code/__torch__.py`, `data/0`).
    pub name: String,
    /// Declared uncompressed size in bytes.
    pub size: u64,
    /// Size of the stored (possibly compressed) data in bytes.
    pub compressed_size: u64,
    /// Whether the data is deflate-compressed (else stored).
    pub deflated: bool,
    index: usize,
}

/// An open archive: its top-level folder and records, read on demand from `bytes`.
pub struct PtZip<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    folder: String,
    records: Vec<Record>,
    by_name: HashMap<String, usize>,
}

impl std::fmt::Debug for PtZip<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtZip")
            .field("folder", &self.folder)
            .field("records", &self.records)
            .finish()
    }
}

impl<'a> PtZip<'a> {
    /// Opens the zip in `bytes`, checking every entry's name and declared sizes against
    /// `limits`. Nothing is decompressed yet.
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<PtZip<'a>, ImportError> {
        if bytes.is_empty() {
            refuse!("not a zip archive: the file is empty");
        }
        // The archive starts at byte 0: no guessing of prepended data.
        let config = Config {
            archive_offset: ArchiveOffset::Known(0),
        };
        let mut archive = ZipArchive::with_config(config, Cursor::new(bytes))
            .map_err(|e| ImportError::new(format!("not a zip archive: {e}")))?;
        if archive.len() > limits.max_entries {
            refuse!(
                "the archive has {} entries, more than the limit of {}",
                archive.len(),
                limits.max_entries
            );
        }
        if archive.has_duplicate_names() {
            refuse!("the archive has duplicate entry names");
        }
        let mut folder: Option<String> = None;
        let mut records = Vec::new();
        let mut by_name = HashMap::new();
        let mut total: u64 = 0;
        for index in 0..archive.len() {
            let entry = archive
                .by_index_data(index)
                .map_err(|e| ImportError::new(format!("bad zip entry {index}: {e}")))?;
            let name = check_entry_name(entry.name_raw())?;
            let (top, rest) = match name.split_once('/') {
                Some((top, rest)) => (top, rest),
                None => refuse!("entry '{name}' is outside the archive's top-level folder"),
            };
            match &folder {
                None => folder = Some(top.to_string()),
                Some(f) if f != top => {
                    refuse!("the archive has more than one top-level folder: '{f}' and '{top}'")
                }
                Some(_) => {}
            }
            if entry.encrypted() {
                refuse!("entry '{name}' is encrypted");
            }
            if entry.is_dir() || rest.is_empty() {
                continue;
            }
            let deflated = match entry.compression() {
                CompressionMethod::Stored => false,
                CompressionMethod::Deflated => true,
                other => refuse!("entry '{name}' uses unsupported compression {other:?}"),
            };
            let (size, compressed_size) = (entry.size(), entry.compressed_size());
            if size > limits.max_entry_size {
                refuse!(
                    "entry '{name}' declares {size} bytes, more than the limit of {} per entry",
                    limits.max_entry_size
                );
            }
            if !deflated && size != compressed_size {
                refuse!(
                    "entry '{name}' is stored uncompressed but declares {size} bytes of data and {compressed_size} stored bytes"
                );
            }
            if deflated
                && size > limits.ratio_free_size
                && size / compressed_size.max(1) > limits.max_compression_ratio
            {
                refuse!(
                    "entry '{name}' expands {compressed_size} compressed bytes to {size} bytes, a ratio over the limit of {} (a zip bomb?)",
                    limits.max_compression_ratio
                );
            }
            total = total.saturating_add(size);
            if total > limits.max_total_size {
                refuse!(
                    "the archive's entries declare more than {} bytes in all",
                    limits.max_total_size
                );
            }
            by_name.insert(rest.to_string(), records.len());
            records.push(Record {
                name: rest.to_string(),
                size,
                compressed_size,
                deflated,
                index,
            });
        }
        let Some(folder) = folder else {
            refuse!("the archive has no entries");
        };
        // Entries sharing bytes multiply what a small file decompresses to, and a local
        // header that disagrees with the central directory hides what is really read.
        match archive.has_overlapping_entries() {
            Ok(false) => {}
            Ok(true) => refuse!("the archive has overlapping entries (a zip bomb?)"),
            Err(e) => refuse!("bad zip archive: {e}"),
        }
        archive
            .validate_header_consistency()
            .map_err(|e| ImportError::new(format!("bad zip archive: {e}")))?;
        Ok(PtZip {
            archive,
            folder,
            records,
            by_name,
        })
    }

    /// The archive's top-level folder name.
    pub fn folder(&self) -> &str {
        &self.folder
    }

    /// Every record, in the order of the central directory.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn record(&self, name: &str) -> Option<&Record> {
        self.by_name.get(name).map(|&i| &self.records[i])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The data of record `name`, decompressed and checked against its declared size and CRC.
    pub fn read(&mut self, name: &str) -> Result<Vec<u8>, ImportError> {
        let rec = self.lookup(name)?;
        let mut out = vec![0u8; rec.size as usize];
        self.read_record(&rec, &mut out)?;
        Ok(out)
    }

    /// Reads record `name` into `dst`, which must be exactly its declared size.
    pub fn read_into(&mut self, name: &str, dst: &mut [u8]) -> Result<(), ImportError> {
        let rec = self.lookup(name)?;
        if dst.len() as u64 != rec.size {
            return Err(ImportError::in_record(
                name,
                format!("holds {} bytes, expected {}", rec.size, dst.len()),
            ));
        }
        self.read_record(&rec, dst)
    }

    fn lookup(&self, name: &str) -> Result<Record, ImportError> {
        self.record(name)
            .cloned()
            .ok_or_else(|| ImportError::in_record(name, "record is missing from the archive"))
    }

    fn read_record(&mut self, rec: &Record, dst: &mut [u8]) -> Result<(), ImportError> {
        let err = |e: &dyn std::fmt::Display| ImportError::in_record(&rec.name, format!("{e}"));
        let mut file = self.archive.by_index(rec.index).map_err(|e| err(&e))?;
        file.read_exact(dst).map_err(|e| {
            err(&format!(
                "the data is smaller than its declared {} bytes or corrupt: {e}",
                rec.size
            ))
        })?;
        // One more byte must not exist; reading to the end also checks the CRC.
        let mut extra = [0u8; 1];
        match file.read(&mut extra) {
            Ok(0) => Ok(()),
            Ok(_) => Err(err(&format!(
                "the data is larger than its declared {} bytes",
                rec.size
            ))),
            Err(e) => Err(err(&format!("corrupt data: {e}"))),
        }
    }
}

/// A zip entry name as a relative path, or why it is refused.
fn check_entry_name(raw: &[u8]) -> Result<&str, ImportError> {
    let shown = String::from_utf8_lossy(raw).escape_debug().to_string();
    let Ok(name) = std::str::from_utf8(raw) else {
        refuse!("entry name '{shown}' is not UTF-8");
    };
    if name.is_empty() {
        refuse!("an entry has an empty name");
    }
    if name.contains('\0') {
        refuse!("entry name '{shown}' contains a NUL byte");
    }
    if name.contains('\\') {
        refuse!("entry name '{shown}' contains a backslash");
    }
    if name.starts_with('/') {
        refuse!("entry name '{shown}' is an absolute path");
    }
    let body = name.strip_suffix('/').unwrap_or(name);
    for part in body.split('/') {
        match part {
            "" => refuse!("entry name '{shown}' has an empty path component"),
            "." | ".." => refuse!("entry name '{shown}' has a '{part}' path component"),
            _ if part.ends_with(':') => refuse!("entry name '{shown}' starts with a drive letter"),
            _ => {}
        }
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names() {
        assert!(check_entry_name(b"m/data.pkl").is_ok());
        for (bad, why) in [
            (&b"../x"[..], "'..'"),
            (b"m/../../etc/passwd", "'..'"),
            (b"/etc/passwd", "absolute"),
            (b"m\\data.pkl", "backslash"),
            (b"m/a\0b", "NUL"),
            (b"m//x", "empty path component"),
            (b"C:/x", "drive letter"),
            (b"m/\xff", "UTF-8"),
        ] {
            let e = check_entry_name(bad).unwrap_err();
            assert!(e.message.contains(why), "{e}");
        }
    }
}
