//! The cache of compiled fusion-group kernels: in memory for the process, and on disk under
//! `$XDG_CACHE_HOME/ember/kernels` (default `~/.cache/ember/kernels`) so that a second process
//! compiles nothing: the object file is read back and linked into the JIT.
//!
//! An entry is keyed by [`jit::cache_key`]: the group's canonical text (the subgraph printed
//! with its typed inputs, which is its specialization), the CPU name and features, and the
//! versions of Ember and its code generator. A file holds
//!
//! ```text
//! "EMBERKC\x01" | key length u64 | key | object length u64 | FNV-1a 64 of the object | object
//! ```
//!
//! (little-endian), and is used only when the magic, the full key, the length and the hash all
//! match: a corrupt, truncated or foreign entry is compiled again and replaced, never linked.
//! Writers write a private temporary file and rename it over the entry, so concurrent
//! processes never leave a torn file (the last rename wins; every candidate is complete).
//!
//! `EMBER_LOG=jit` logs compile times and cache hits on stderr. `EMBER_KERNEL_CACHE=off` keeps
//! the cache in memory only.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use ember_dialects::Graph;
use hashbrown::HashMap;

use crate::codegen::jit::{self, group, CompiledGroup, JitTarget};
use crate::codegen::CodegenError;

const MAGIC: &[u8; 8] = b"EMBERKC\x01";

/// Counts of where kernels came from (for logs and tests).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub compiled: usize,
    pub memory_hits: usize,
    pub disk_hits: usize,
    /// Disk entries that were present but rejected (corrupt, truncated, foreign).
    pub rejected: usize,
}

pub struct KernelCache {
    dir: Option<PathBuf>,
    memory: Mutex<HashMap<String, Arc<CompiledGroup>>>,
    compiled: AtomicUsize,
    memory_hits: AtomicUsize,
    disk_hits: AtomicUsize,
    rejected: AtomicUsize,
    log: bool,
}

/// Where kernels are kept on disk unless `EMBER_KERNEL_CACHE=off`.
pub fn default_dir() -> Option<PathBuf> {
    if std::env::var("EMBER_KERNEL_CACHE").is_ok_and(|v| v == "off" || v == "0") {
        return None;
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("ember").join("kernels"))
}

/// Whether `EMBER_LOG` names `jit`.
pub fn log_enabled() -> bool {
    std::env::var("EMBER_LOG").is_ok_and(|v| {
        v.split(':')
            .any(|e| e.trim().trim_start_matches('>') == "jit")
    })
}

impl KernelCache {
    /// A cache keeping objects in `dir` (created when first written), or in memory only.
    pub fn new(dir: Option<PathBuf>) -> KernelCache {
        KernelCache {
            dir,
            memory: Mutex::new(HashMap::new()),
            compiled: AtomicUsize::new(0),
            memory_hits: AtomicUsize::new(0),
            disk_hits: AtomicUsize::new(0),
            rejected: AtomicUsize::new(0),
            log: log_enabled(),
        }
    }

    /// The process's cache, in [`default_dir`].
    pub fn global() -> &'static KernelCache {
        static CACHE: OnceLock<KernelCache> = OnceLock::new();
        CACHE.get_or_init(|| KernelCache::new(default_dir()))
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            compiled: self.compiled.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
        }
    }

    /// The kernel of `subgraph` for the current CPU form.
    pub fn get(&self, subgraph: &Graph) -> Result<Arc<CompiledGroup>, CodegenError> {
        self.get_for(subgraph, &JitTarget::current())
    }

    pub fn get_for(
        &self,
        subgraph: &Graph,
        target: &JitTarget,
    ) -> Result<Arc<CompiledGroup>, CodegenError> {
        let start = Instant::now();
        let key = jit::cache_key(subgraph, target);
        if let Some(hit) = self.memory().get(&key) {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit.clone());
        }
        let kernel = group::build(subgraph)?;
        let symbol = jit::symbol_for(&key);
        let path = self.dir.as_ref().map(|d| d.join(format!("{symbol}.ekc")));
        if let Some(path) = &path {
            match read_entry(path, &key) {
                Entry::Valid(object) => {
                    if let Ok(group) = CompiledGroup::from_object(kernel.clone(), &symbol, &object)
                    {
                        self.disk_hits.fetch_add(1, Ordering::Relaxed);
                        self.note(&symbol, "disk cache hit", start);
                        return Ok(self.remember(key, group));
                    }
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                }
                Entry::Invalid(why) => {
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                    self.note(&symbol, &format!("disk entry rejected ({why})"), start);
                }
                Entry::Missing => {}
            }
        }
        let object = jit::compile_object(&kernel, &symbol, target)?;
        let compiled_at = Instant::now();
        let group = CompiledGroup::from_object(kernel, &symbol, &object)?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if let Some(path) = &path {
            if let Err(e) = write_entry(path, &key, &object) {
                // The kernel works without its disk copy; say why it was not kept.
                self.note(
                    &symbol,
                    &format!("not written to {}: {e}", path.display()),
                    start,
                );
            }
        }
        self.note(
            &symbol,
            &format!(
                "compiled in {:.2} ms (link {:.2} ms)",
                (compiled_at - start).as_secs_f64() * 1e3,
                compiled_at.elapsed().as_secs_f64() * 1e3
            ),
            start,
        );
        Ok(self.remember(key, group))
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<CompiledGroup>>> {
        self.memory.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn remember(&self, key: String, group: CompiledGroup) -> Arc<CompiledGroup> {
        self.memory()
            .entry(key)
            .or_insert_with(|| Arc::new(group))
            .clone()
    }

    fn note(&self, symbol: &str, what: &str, start: Instant) {
        if self.log {
            eprintln!(
                "[jit] {symbol}: {what} ({:.2} ms total)",
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

enum Entry {
    Missing,
    Invalid(&'static str),
    Valid(Vec<u8>),
}

fn encode(key: &str, object: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + key.len() + object.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(key.len() as u64).to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(object.len() as u64).to_le_bytes());
    out.extend_from_slice(&jit::fnv1a64(object).to_le_bytes());
    out.extend_from_slice(object);
    out
}

/// Checks an entry's bytes against `key`; returns the object only when everything matches.
fn decode(bytes: &[u8], key: &str) -> Result<Vec<u8>, &'static str> {
    let mut rest = bytes;
    let mut take = |n: usize| -> Result<&[u8], &'static str> {
        if rest.len() < n {
            return Err("truncated");
        }
        let (head, tail) = rest.split_at(n);
        rest = tail;
        Ok(head)
    };
    if take(8)? != MAGIC {
        return Err("not a kernel cache entry of this version");
    }
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let key_len = u64_at(take(8)?);
    if key_len != key.len() as u64 {
        return Err("a different kernel");
    }
    if take(key.len())? != key.as_bytes() {
        return Err("a different kernel");
    }
    let len = u64_at(take(8)?);
    let hash = u64_at(take(8)?);
    if rest.len() as u64 != len {
        return Err("truncated or extended");
    }
    if jit::fnv1a64(rest) != hash {
        return Err("corrupt");
    }
    Ok(rest.to_vec())
}

fn read_entry(path: &Path, key: &str) -> Entry {
    match std::fs::read(path) {
        Err(_) => Entry::Missing,
        Ok(bytes) => match decode(&bytes, key) {
            Ok(object) => Entry::Valid(object),
            Err(why) => Entry::Invalid(why),
        },
    }
}

/// Writes the entry through a temporary file renamed into place (atomic on one file system).
fn write_entry(path: &Path, key: &str, object: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = path.parent().expect("entry paths have a directory");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result =
        std::fs::write(&tmp, encode(key, object)).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_reject_damage() {
        let key = "ember 0.1.0 codegen 1\ncpu x\ngraph()";
        let object = b"\x7fELF pretend object bytes".to_vec();
        let bytes = encode(key, &object);
        assert_eq!(decode(&bytes, key), Ok(object.clone()));
        assert_eq!(
            decode(&bytes[..bytes.len() - 1], key),
            Err("truncated or extended")
        );
        assert_eq!(decode(&bytes[..20], key), Err("truncated"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, key), Err("truncated or extended"));
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&flipped, key), Err("corrupt"));
        assert_eq!(decode(&bytes, "another key"), Err("a different kernel"));
        let other_same_len: String = key.chars().rev().collect();
        assert_eq!(decode(&bytes, &other_same_len), Err("a different kernel"));
        assert_eq!(
            decode(b"garbage!garbage!", key),
            Err("not a kernel cache entry of this version")
        );
        assert_eq!(decode(b"", key), Err("truncated"));
    }
}
