//! The embedded program of a compiled model: the method's graph as text, the guard types, the
//! user inputs' names and the weights, in a versioned little-endian binary format.
//!
//! ```text
//! bundle:  0  magic "EMBERAOT"        8  version u32      12 flags u32 (1: weights external)
//!          16 total length u64         24 data offset u64 (64-aligned)
//!          32 data length u64          40 fingerprint u64 (FNV-1a of bytes 48..data offset)
//!          48 descriptors: n_user u64, graph text, input names, guard types (u64 count, then
//!             per string u64 length + UTF-8), the defaults' graph text, weights (u64 count, then per weight: dtype u8
//!             (PyTorch's ScalarType number), requires_grad u8, 2 zero bytes, ndim u32, sizes
//!             i64 x ndim, strides i64 x ndim, storage offset i64 (elements), data offset u64
//!             (from the data start, 64-aligned), data length u64), the memory plan (u64
//!             count of buffers, 0 for none, then per buffer: bytes u64 (u64::MAX: not
//!             planned) and offset u64; then the block's bytes u64)
//!          zeros up to the data offset, then the weights' bytes (embedded weights only)
//! weights: 0  magic "EMBERWTS"  8 version u32  12 zero u32  16 fingerprint u64 (the bundle's)
//!          24 data length u64   zeros up to 64, then the weights' bytes
//! ```
//!
//! Every weight's bytes start 64-byte aligned, so a bundle in an object file's data (which the
//! compiler aligns to 64) or a memory-mapped weights file is wrapped by tensors without a
//! copy. Parsing checks every count, size and offset against the bytes there are before it
//! allocates or wraps anything.

use std::path::Path;
use std::sync::Arc;

use crate::tensor::arena::MemoryPlan;
use crate::tensor::{checked_numel, DType, Device, Meta, Storage, Tensor};

const BUNDLE_MAGIC: &[u8; 8] = b"EMBERAOT";
const WEIGHTS_MAGIC: &[u8; 8] = b"EMBERWTS";
/// The format version this runtime writes and reads. 4: compiled code reads the failure flag
/// at offset 0 of the context (a runtime of version 3 would not keep it there).
pub const BUNDLE_VERSION: u32 = 4;
/// Flag bit: the weights' bytes are in a separate file.
pub const FLAG_WEIGHTS_EXTERNAL: u32 = 1;
const HEADER_LEN: usize = 48;
const WEIGHTS_HEADER_LEN: usize = 64;
const ALIGN: usize = 64;
/// More dimensions than any tensor has; bounds what a descriptor may claim.
const MAX_NDIM: u32 = 64;

/// A compiled model's program: what the interpreter needs to run the method, and the
/// specialization the compiled code was made for.
#[derive(Clone)]
pub struct Bundle {
    /// The method's graph as `Graph`'s printer writes it; its inputs are the user's inputs
    /// followed by one per weight.
    pub graph_text: String,
    pub n_user_inputs: usize,
    pub input_names: Vec<String>,
    /// One type per user input, as the type printer writes it (`Float(1, 3, strides=[3, 1],
    /// requires_grad=0, device=cpu)`, or `Tensor`, `int`, ... when not specialized).
    pub guard_types: Vec<String>,
    /// The defaults of the last user inputs, as the text of a graph with no inputs that
    /// returns them (constants); empty when no input has one. A caller may leave those
    /// inputs out.
    pub defaults: String,
    pub weights: Vec<Tensor>,
    /// Where the intermediate buffers of a compiled call go, recorded by `emberc` for the
    /// shapes it was given (the first call is served from it); `None` when it had none.
    pub memory_plan: Option<MemoryPlan>,
}

impl std::fmt::Debug for Bundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bundle")
            .field("n_user_inputs", &self.n_user_inputs)
            .field("input_names", &self.input_names)
            .field("guard_types", &self.guard_types)
            .field("weights", &self.weights.len())
            .finish_non_exhaustive()
    }
}

/// Where a parsed bundle's weight bytes live, which decides how tensors hold them.
#[derive(Clone)]
enum Backing {
    /// Static read-only bytes (an object file's data): wrapped, nothing to keep alive.
    Static,
    /// A private (copy-on-write) mapping of a weights file, kept alive by the tensors.
    Mapped(Arc<memmap2::MmapMut>),
    /// Bytes the caller keeps: copied into fresh tensors.
    Copied,
}

impl Bundle {
    /// The bundle's bytes and, with `external_weights`, the weights file's bytes. The same
    /// bundle always gives the same bytes.
    pub fn to_bytes(&self, external_weights: bool) -> (Vec<u8>, Option<Vec<u8>>) {
        let mut desc = Vec::new();
        put_u64(&mut desc, self.n_user_inputs as u64);
        put_str(&mut desc, &self.graph_text);
        put_u64(&mut desc, self.input_names.len() as u64);
        for name in &self.input_names {
            put_str(&mut desc, name);
        }
        put_u64(&mut desc, self.guard_types.len() as u64);
        for ty in &self.guard_types {
            put_str(&mut desc, ty);
        }
        put_str(&mut desc, &self.defaults);
        put_u64(&mut desc, self.weights.len() as u64);
        let mut data = Vec::new();
        for w in &self.weights {
            let meta = w.meta();
            let (bytes, storage_offset) = held_bytes(w, &meta);
            data.resize(data.len().next_multiple_of(ALIGN), 0);
            desc.push(meta.dtype.code() as u8);
            desc.push(meta.requires_grad as u8);
            desc.extend_from_slice(&[0, 0]);
            put_u32(&mut desc, meta.sizes.len() as u32);
            for &s in meta.sizes.iter() {
                put_u64(&mut desc, s as u64);
            }
            for &s in meta.strides.iter() {
                put_u64(&mut desc, s as u64);
            }
            put_u64(&mut desc, storage_offset as u64);
            put_u64(&mut desc, data.len() as u64);
            put_u64(&mut desc, bytes.len() as u64);
            data.extend_from_slice(bytes);
        }
        let (slots, total) = self
            .memory_plan
            .as_ref()
            .map_or((&[][..], 0), |p| (&p.slots[..], p.total));
        put_u64(&mut desc, slots.len() as u64);
        for slot in slots {
            let (bytes, offset) = slot.unwrap_or((usize::MAX, 0));
            put_u64(&mut desc, bytes as u64);
            put_u64(&mut desc, offset as u64);
        }
        put_u64(&mut desc, total as u64);
        let data_offset = (HEADER_LEN + desc.len()).next_multiple_of(ALIGN);
        let total = if external_weights {
            data_offset
        } else {
            data_offset + data.len()
        };
        let mut padded = desc;
        padded.resize(data_offset - HEADER_LEN, 0);
        let fingerprint = fnv1a(&padded);
        let flags = if external_weights {
            FLAG_WEIGHTS_EXTERNAL
        } else {
            0
        };
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(BUNDLE_MAGIC);
        put_u32(&mut out, BUNDLE_VERSION);
        put_u32(&mut out, flags);
        put_u64(&mut out, total as u64);
        put_u64(&mut out, data_offset as u64);
        put_u64(&mut out, data.len() as u64);
        put_u64(&mut out, fingerprint);
        out.extend_from_slice(&padded);
        if !external_weights {
            out.extend_from_slice(&data);
            return (out, None);
        }
        let mut file = Vec::with_capacity(WEIGHTS_HEADER_LEN + data.len());
        file.extend_from_slice(WEIGHTS_MAGIC);
        put_u32(&mut file, BUNDLE_VERSION);
        put_u32(&mut file, 0);
        put_u64(&mut file, fingerprint);
        put_u64(&mut file, data.len() as u64);
        file.resize(WEIGHTS_HEADER_LEN, 0);
        file.extend_from_slice(&data);
        (out, Some(file))
    }

    /// Reads a bundle in static memory (an object file's), its embedded weights wrapped
    /// without a copy, or its external weights memory-mapped from `weights_file`.
    ///
    /// Embedded weights are read-only when the bundle is in read-only memory: a program that
    /// writes its weights in place needs the bundle in writable data (or external weights,
    /// which are mapped copy-on-write).
    pub fn parse(bundle: &'static [u8], weights_file: Option<&Path>) -> Result<Bundle, String> {
        let header = Header::read(bundle)?;
        if !header.external {
            if weights_file.is_some() {
                return Err("the bundle embeds its weights: no weights file is read".into());
            }
            return header.bundle(bundle, bundle, Backing::Static);
        }
        let Some(path) = weights_file else {
            return Err("the model's weights are in a separate file: give its path".into());
        };
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot open weights file {}: {e}", path.display()))?;
        // SAFETY: a private mapping: the process's writes never reach the file, and the file
        // is the model's own weights, not expected to change while the model is open.
        let map = unsafe { memmap2::MmapOptions::new().map_copy(&file) }
            .map_err(|e| format!("cannot map weights file {}: {e}", path.display()))?;
        let map = Arc::new(map);
        let data = header
            .weights_data(&map[..])
            .map_err(|e| format!("weights file {}: {e}", path.display()))?;
        header.bundle(bundle, data, Backing::Mapped(map.clone()))
    }

    /// Reads a bundle from bytes the caller keeps (and its weights file's bytes when the
    /// weights are external); the weights are copied into fresh tensors.
    pub fn parse_copied(bundle: &[u8], weights_file: Option<&[u8]>) -> Result<Bundle, String> {
        let header = Header::read(bundle)?;
        match (header.external, weights_file) {
            (false, None) => header.bundle(bundle, bundle, Backing::Copied),
            (false, Some(_)) => {
                Err("the bundle embeds its weights: no weights file is read".into())
            }
            (true, None) => Err("the model's weights are in a separate file: give it".into()),
            (true, Some(file)) => {
                let data = header
                    .weights_data(file)
                    .map_err(|e| format!("weights file: {e}"))?;
                header.bundle(bundle, data, Backing::Copied)
            }
        }
    }

    /// Whether `bundle` (a valid bundle's header) says its weights are in a separate file.
    pub fn weights_external(bundle: &[u8]) -> Result<bool, String> {
        Header::read(bundle).map(|h| h.external)
    }
}

/// The bytes that hold every element of `t` (from its lowest to its highest addressed
/// element) and element 0's offset among them, in elements.
fn held_bytes<'a>(t: &'a Tensor, meta: &Meta) -> (&'a [u8], i64) {
    let item = meta.dtype.size() as i64;
    if meta.sizes.contains(&0) {
        return (&[], 0);
    }
    let (mut low, mut high) = (0i64, 0i64);
    for (&n, &s) in meta.sizes.iter().zip(meta.strides.iter()) {
        if s < 0 {
            low += (n - 1) * s;
        } else {
            high += (n - 1) * s;
        }
    }
    let len = ((high - low + 1) * item) as usize;
    // SAFETY: a tensor's elements all lie in its storage (checked when its metadata was
    // set), so the bytes from its lowest to its highest element are readable; the slice
    // lives as long as the borrow of `t` that keeps the storage.
    let bytes =
        unsafe { std::slice::from_raw_parts(t.data_ptr().offset((low * item) as isize), len) };
    (bytes, -low)
}

/// The fixed fields of a bundle's header, checked.
struct Header {
    external: bool,
    data_offset: usize,
    data_len: usize,
    fingerprint: u64,
}

impl Header {
    fn read(bytes: &[u8]) -> Result<Header, String> {
        let mut c = Reader::new(bytes, "bundle");
        if c.take(8)? != BUNDLE_MAGIC {
            return Err("not an Ember model bundle (wrong magic)".into());
        }
        let version = c.u32()?;
        if version != BUNDLE_VERSION {
            return Err(format!(
                "bundle format version {version}; this runtime reads version {BUNDLE_VERSION}"
            ));
        }
        let flags = c.u32()?;
        if flags & !FLAG_WEIGHTS_EXTERNAL != 0 {
            return Err(format!("unknown bundle flags {flags:#x}"));
        }
        let external = flags & FLAG_WEIGHTS_EXTERNAL != 0;
        let total = c.len()?;
        let data_offset = c.len()?;
        let data_len = c.len()?;
        let fingerprint = c.u64()?;
        if total != bytes.len() {
            return Err(format!(
                "bundle is {} bytes, its header says {total} (truncated or padded)",
                bytes.len()
            ));
        }
        let expected_end = if external {
            Some(data_offset)
        } else {
            data_offset.checked_add(data_len)
        };
        if data_offset % ALIGN != 0 || data_offset < HEADER_LEN || expected_end != Some(total) {
            return Err(format!(
                "bundle data at {data_offset} ({data_len} bytes) does not fit its {total} bytes"
            ));
        }
        Ok(Header {
            external,
            data_offset,
            data_len,
            fingerprint,
        })
    }

    /// The data of a weights file, after checking that it is this bundle's.
    fn weights_data<'a>(&self, file: &'a [u8]) -> Result<&'a [u8], String> {
        let mut c = Reader::new(file, "weights file");
        if c.take(8)? != WEIGHTS_MAGIC {
            return Err("not an Ember weights file (wrong magic)".into());
        }
        let version = c.u32()?;
        if version != BUNDLE_VERSION {
            return Err(format!(
                "format version {version}; this runtime reads version {BUNDLE_VERSION}"
            ));
        }
        c.u32()?;
        if c.u64()? != self.fingerprint {
            return Err("it belongs to another model (fingerprints differ)".into());
        }
        let len = c.len()?;
        if len != self.data_len || file.len() != WEIGHTS_HEADER_LEN.saturating_add(len) {
            return Err(format!(
                "{} bytes; the model expects {} bytes of weights after a {WEIGHTS_HEADER_LEN}-byte header",
                file.len(),
                self.data_len
            ));
        }
        Ok(&file[WEIGHTS_HEADER_LEN..])
    }

    /// The bundle's descriptors, with its weights over `data` (the weight data region when
    /// embedded: the whole bundle, offsets counting from `data_offset`).
    fn bundle(&self, bytes: &[u8], data: &[u8], backing: Backing) -> Result<Bundle, String> {
        let desc = &bytes[HEADER_LEN..self.data_offset];
        if fnv1a(desc) != self.fingerprint {
            return Err("bundle descriptors are corrupt (fingerprint mismatch)".into());
        }
        let data = if self.external {
            data
        } else {
            &data[self.data_offset..]
        };
        let mut c = Reader::new(desc, "bundle");
        let n_user_inputs = c.len()?;
        let graph_text = c.string()?;
        let input_names = c.strings()?;
        let guard_types = c.strings()?;
        let defaults = c.string()?;
        // The smallest weight descriptor: dtype..ndim and three u64 fields.
        let count = c.count(8 + 24)?;
        let mut weights = Vec::with_capacity(count);
        for i in 0..count {
            let w = read_weight(&mut c, data, &backing).map_err(|e| format!("weight {i}: {e}"))?;
            weights.push(w);
        }
        let memory_plan = read_memory_plan(&mut c)?;
        if desc[c.pos..].iter().any(|&b| b != 0) {
            return Err("bundle has unexpected bytes after its descriptors".into());
        }
        if input_names.len() != n_user_inputs || guard_types.len() != n_user_inputs {
            return Err(format!(
                "bundle has {n_user_inputs} user inputs but {} names and {} guard types",
                input_names.len(),
                guard_types.len()
            ));
        }
        Ok(Bundle {
            graph_text,
            n_user_inputs,
            input_names,
            guard_types,
            defaults,
            weights,
            memory_plan,
        })
    }
}

/// The memory plan's descriptor, checked ([`MemoryPlan::check`]); `None` when it has no buffers.
fn read_memory_plan(c: &mut Reader) -> Result<Option<MemoryPlan>, String> {
    let count = c.count(16)?;
    let mut slots = Vec::with_capacity(count);
    for _ in 0..count {
        let (bytes, offset) = (c.u64()?, c.u64()?);
        slots.push(if bytes == u64::MAX {
            None
        } else {
            Some((
                usize::try_from(bytes).unwrap_or(usize::MAX),
                usize::try_from(offset).unwrap_or(usize::MAX),
            ))
        });
    }
    let total = c.len()?;
    if count == 0 {
        return Ok(None);
    }
    let plan = MemoryPlan { slots, total };
    plan.check().map_err(|e| format!("bundle: {e}"))?;
    Ok(Some(plan))
}

fn read_weight(c: &mut Reader, data: &[u8], backing: &Backing) -> Result<Tensor, String> {
    let code = c.take(1)?[0];
    let dtype = DType::from_code(code as i64).ok_or_else(|| format!("bad dtype code {code}"))?;
    let requires_grad = match c.take(1)?[0] {
        0 => false,
        1 => true,
        b => return Err(format!("bad requires_grad byte {b}")),
    };
    c.take(2)?;
    let ndim = c.u32()?;
    if ndim > MAX_NDIM {
        return Err(format!("{ndim} dimensions (at most {MAX_NDIM})"));
    }
    let ndim = ndim as usize;
    let mut sizes = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        sizes.push(c.u64()? as i64);
    }
    let mut strides = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        strides.push(c.u64()? as i64);
    }
    let storage_offset = c.u64()? as i64;
    let offset = c.len()?;
    let len = c.len()?;
    let numel = checked_numel(&sizes).map_err(|e| e.to_string())?;
    let end = offset
        .checked_add(len)
        .filter(|&end| end <= data.len())
        .ok_or_else(|| format!("data at {offset} ({len} bytes) is outside the weights' bytes"))?;
    if offset % ALIGN != 0 {
        return Err(format!("data offset {offset} is not {ALIGN}-byte aligned"));
    }
    check_span(&sizes, &strides, storage_offset, numel, len, dtype.size())?;
    let bytes = &data[offset..end];
    let aligned = (bytes.as_ptr() as usize).is_multiple_of(dtype.size());
    let storage = match backing {
        Backing::Static if aligned => {
            // SAFETY: static bytes live for the whole program; nothing frees them.
            unsafe { Storage::from_external(bytes.as_ptr() as *mut u8, len, Box::new(())) }
        }
        Backing::Mapped(map) if aligned => {
            // SAFETY: the mapping is private and writable, and the storage keeps it alive.
            unsafe { Storage::from_external(bytes.as_ptr() as *mut u8, len, Box::new(map.clone())) }
        }
        _ => Storage::from_bytes(bytes).map_err(|e| e.to_string())?,
    };
    Tensor::from_meta(Meta {
        storage,
        dtype,
        device: Device::Cpu,
        sizes: sizes.as_slice().into(),
        strides: strides.as_slice().into(),
        offset: storage_offset,
        requires_grad,
    })
    .map_err(|e| e.to_string())
}

/// Checks that every element a weight's sizes, strides and offset address lies in its `len`
/// bytes, with arithmetic that cannot overflow.
fn check_span(
    sizes: &[i64],
    strides: &[i64],
    offset: i64,
    numel: usize,
    len: usize,
    item: usize,
) -> Result<(), String> {
    let bad = || {
        format!("sizes {sizes:?}, strides {strides:?} and offset {offset} do not fit {len} bytes")
    };
    if numel == 0 {
        return if offset >= 0 { Ok(()) } else { Err(bad()) };
    }
    let (mut low, mut high) = (offset as i128, offset as i128);
    for (&n, &s) in sizes.iter().zip(strides) {
        let reach = (n as i128 - 1).checked_mul(s as i128).ok_or_else(bad)?;
        if reach < 0 {
            low = low.checked_add(reach).ok_or_else(bad)?;
        } else {
            high = high.checked_add(reach).ok_or_else(bad)?;
        }
    }
    let end = (high + 1).checked_mul(item as i128).ok_or_else(bad)?;
    if low < 0 || end > len as i128 {
        return Err(bad());
    }
    Ok(())
}

/// A bounds-checked little-endian reader.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], what: &'static str) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            what,
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "{} truncated: {n} bytes needed at offset {}, {} there",
                    self.what,
                    self.pos,
                    self.bytes.len().saturating_sub(self.pos)
                )
            })?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// A length or offset: a u64 that must fit in memory.
    fn len(&mut self) -> Result<usize, String> {
        let at = self.pos;
        let v = self.u64()?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v <= isize::MAX as usize)
            .ok_or_else(|| format!("{}: size {v} at offset {at} is too large", self.what))
    }

    /// A count of items at least `min_item` bytes each, checked against the bytes left.
    fn count(&mut self, min_item: usize) -> Result<usize, String> {
        let at = self.pos;
        let n = self.len()?;
        if n.checked_mul(min_item)
            .is_none_or(|need| need > self.bytes.len() - self.pos)
        {
            return Err(format!(
                "{}: count {n} at offset {at} exceeds the bytes left",
                self.what
            ));
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, String> {
        let at = self.pos;
        let n = self.len()?;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec())
            .map_err(|_| format!("{}: the string at offset {at} is not UTF-8", self.what))
    }

    fn strings(&mut self) -> Result<Vec<String>, String> {
        let n = self.count(8)?;
        (0..n).map(|_| self.string()).collect()
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// FNV-1a, 64 bits: a fingerprint that ties a weights file to its bundle.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
#[path = "bundle_tests.rs"]
mod tests;
