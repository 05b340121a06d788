//! Shape operators: views, joins and splits, repeats, reorders, and tensor queries. The
//! schema-driven kernel framework (`call`) and the element-moving helpers (`elements`) are
//! shared with the indexing and creation operators.

pub mod call;
pub mod copies;
pub mod diff;
pub mod elements;
pub mod join;
pub mod pad;
pub mod query;
pub mod reorder;
pub mod split;
pub mod tile;
pub mod views;

use super::registry::Registry;

pub fn register(r: &mut Registry) {
    views::register(r);
    join::register(r);
    split::register(r);
    tile::register(r);
    reorder::register(r);
    query::register(r);
    pad::register(r);
    copies::register(r);
    diff::register(r);
}

#[cfg(test)]
pub(crate) mod tests;
