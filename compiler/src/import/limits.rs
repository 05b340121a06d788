//! Caps on what an archive may make the reader allocate or do.

/// Caps on an archive's zip container and pickles. The defaults admit every real model Ember
/// runs (a 7B-parameter float16 model is ~14 GB) and refuse zip bombs and hostile sizes.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Most entries in the zip's central directory.
    pub max_entries: usize,
    /// Most bytes all entries may decompress to, together.
    pub max_total_size: u64,
    /// Most bytes one entry may decompress to.
    pub max_entry_size: u64,
    /// Most uncompressed bytes per compressed byte of a compressed entry, once the entry is
    /// larger than `ratio_free_size` (real code compresses ~5:1; a bomb ~1000:1).
    pub max_compression_ratio: u64,
    /// Entries at most this large are not subject to the ratio cap.
    pub ratio_free_size: u64,
    /// Most bytes of one pickle (`data.pkl`, `constants.pkl`, a `.debug_pkl`).
    pub max_pickle_size: u64,
    /// Deepest nesting of containers in an unpickled value (real module trees nest a few
    /// dozen levels; conversion recurses once per level).
    pub max_nesting: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_entries: 100_000,
            max_total_size: 64 << 30,
            max_entry_size: 32 << 30,
            max_compression_ratio: 100,
            ratio_free_size: 1 << 20,
            max_pickle_size: 1 << 30,
            max_nesting: 200,
        }
    }
}
