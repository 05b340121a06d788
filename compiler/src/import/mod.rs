//! Reading TorchScript `.pt` archives safely: the zip layer ([`zip`]), the restricted
//! unpickler ([`pickle`]), tensor rebuilding from storage records ([`storage`]), the
//! `.debug_pkl` source maps ([`source_map`]) and the whole-archive reader ([`archive`]).
//!
//! Everything is read in memory from the archive's bytes, never extracted to disk, and every
//! size an archive declares is checked against [`Limits`] before anything is allocated for it.

pub mod archive;
pub mod constants;
pub mod defaults;
pub mod error;
pub mod limits;
pub mod module;
pub mod pickle;
pub mod source_importer;
pub mod source_map;
pub mod storage;
pub mod zip;

pub use archive::{read_archive, Archive};
pub use error::ImportError;
pub use limits::Limits;
pub use module::{load_module, LoadOptions, Module, FILE_OPS};
pub use pickle::{object_state, unpickle, PickledObject, Unpickled};
