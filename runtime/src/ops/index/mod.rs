//! Indexing operators: advanced indexing (`index`, `index_put`), selection by index or mask,
//! gather/scatter along a dim, and writes into existing tensors (copy_, fill_).

pub mod advanced;
pub mod fill;
pub mod put;
pub mod scatter;
pub mod select;

use super::registry::Registry;

pub fn register(r: &mut Registry) {
    advanced::register(r);
    select::register(r);
    scatter::register(r);
    fill::register(r);
    put::register(r);
}
