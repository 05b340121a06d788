//! The `.debug_pkl` source maps beside each `code/` file: for byte ranges of the generated
//! code, the range of the original Python source they came from. Both formats PyTorch wrote
//! are read: the current `("FORMAT_WITH_STRING_TABLE", texts, records)` and the older tuple
//! of records, as `source_range_serialization.cpp` defines them.

use std::collections::HashMap;
use std::sync::Arc;

use ember_runtime::ivalue::IValue;

/// Original source text a range points into.
#[derive(Clone, Debug, PartialEq)]
pub struct OriginalSource {
    pub text: String,
    pub filename: Option<String>,
    /// Line number of the text's first line in `filename`.
    pub starting_line: i64,
}

/// One record: the generated code from `byte_offset` on came from `source[start..end]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceMapEntry {
    pub byte_offset: usize,
    pub source: Arc<OriginalSource>,
    pub start: usize,
    pub end: usize,
    /// The source range tag (-1 when the archive has none).
    pub tag: i64,
}

impl SourceMapEntry {
    /// The original source text of the range, when it lies inside its source.
    pub fn snippet(&self) -> Option<&str> {
        self.source.text.get(self.start..self.end)
    }
}

/// A code file's source map, records sorted by byte offset.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceMap {
    pub entries: Vec<SourceMapEntry>,
}

/// Most bytes of original source text a source map may assemble in all.
const MAX_TEXT: usize = 256 << 20;

impl SourceMap {
    /// Decodes an unpickled `.debug_pkl`.
    pub fn decode(v: &IValue) -> Result<SourceMap, String> {
        let top = tuple(v, "the source map")?;
        let mut d = Decoder {
            texts: Vec::new(),
            cache: HashMap::new(),
            assembled: 0,
        };
        let records = match top.as_slice() {
            [IValue::Str(f), texts, records] if f.as_str() == "FORMAT_WITH_STRING_TABLE" => {
                for t in tuple(texts, "the string table")?.iter() {
                    d.texts.push(
                        t.as_str()
                            .ok_or("string table entries must be str")?
                            .to_string(),
                    );
                }
                tuple(records, "the records")?
            }
            _ => top,
        };
        let mut entries = Vec::with_capacity(records.len());
        for r in records.iter() {
            let r = tuple(r, "a source map record")?;
            // (offset, range, tag) now; (offset, range) and (offset, tag, range) before.
            let (offset, range, tag) = match r.as_slice() {
                [o, range @ IValue::Tuple(_)] => (o, range, -1),
                [o, range @ IValue::Tuple(_), t] | [o, t, range @ IValue::Tuple(_)] => {
                    (o, range, t.as_int().ok_or("a record's tag must be an int")?)
                }
                _ => return Err("a source map record must be (offset, range, tag)".into()),
            };
            let offset = offset
                .as_int()
                .and_then(|o| usize::try_from(o).ok())
                .ok_or("a record's byte offset must be a non-negative int")?;
            let range = tuple(range, "a source range")?;
            let [source, start, end] = range.as_slice() else {
                return Err("a source range must be (source, start, end)".into());
            };
            let source = d.source(source)?;
            // Not checked against the text: traced code has ranges into empty sources.
            let (start, end) = (index(start)?, index(end)?);
            entries.push(SourceMapEntry {
                byte_offset: offset,
                source,
                start,
                end,
                tag,
            });
        }
        entries.sort_by_key(|e| e.byte_offset);
        Ok(SourceMap { entries })
    }

    /// The original range that generated the code at `byte_offset` (the last record at or
    /// before it), as PyTorch's `findSourceRangeThatGenerated`.
    pub fn find(&self, byte_offset: usize) -> Option<&SourceMapEntry> {
        let i = self
            .entries
            .partition_point(|e| e.byte_offset <= byte_offset);
        i.checked_sub(1).map(|i| &self.entries[i])
    }
}

struct Decoder {
    texts: Vec<String>,
    cache: HashMap<usize, Arc<OriginalSource>>,
    assembled: usize,
}

impl Decoder {
    fn source(&mut self, v: &IValue) -> Result<Arc<OriginalSource>, String> {
        let IValue::Tuple(t) = v else {
            return Err("a source must be a tuple".into());
        };
        // Sources are shared through the pickle memo: decode each once.
        let key = Arc::as_ptr(t) as usize;
        if let Some(s) = self.cache.get(&key) {
            return Ok(s.clone());
        }
        let [text, filename, line] = t.as_slice() else {
            return Err("a source must be (text, filename, starting line)".into());
        };
        let starting_line = line.as_int().ok_or("a source's line must be an int")?;
        let (text, filename) = if self.texts.is_empty() {
            let text = text
                .as_str()
                .ok_or("a source's text must be a str")?
                .to_string();
            let filename = match filename {
                IValue::None => None,
                f => Some(
                    f.as_str()
                        .ok_or("a source's filename must be a str")?
                        .to_string(),
                ),
            };
            (text, filename)
        } else {
            let IValue::List(parts) = text else {
                return Err("a source's text must be a list of string table indexes".into());
            };
            let mut s = String::new();
            for p in parts.to_vec() {
                s.push_str(self.text(&p)?);
                if self.assembled + s.len() > MAX_TEXT {
                    return Err("source texts are larger than 256 MiB in all".into());
                }
            }
            (s, Some(self.text(filename)?.to_string()))
        };
        self.assembled += text.len();
        let s = Arc::new(OriginalSource {
            text,
            filename,
            starting_line,
        });
        self.cache.insert(key, s.clone());
        Ok(s)
    }

    fn text(&self, i: &IValue) -> Result<&str, String> {
        i.as_int()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.texts.get(i))
            .map(|s| s.as_str())
            .ok_or_else(|| format!("string table index {i:?} is out of range"))
    }
}

fn tuple<'a>(v: &'a IValue, what: &str) -> Result<&'a Arc<Vec<IValue>>, String> {
    match v {
        IValue::Tuple(t) => Ok(t),
        other => Err(format!("{what} must be a tuple, got {}", other.kind_name())),
    }
}

fn index(v: &IValue) -> Result<usize, String> {
    v.as_int()
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| "a source range bound must be a non-negative int".to_string())
}
