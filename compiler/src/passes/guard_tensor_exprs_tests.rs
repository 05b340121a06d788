use ember_dialects::parse::parse_graph;

use super::*;
use crate::passes::testing;

#[test]
fn placeholder_compiles() {
    let mut g = parse_graph("graph(%a : Tensor):\n  return (%a)\n").unwrap();
    assert!(!testing::run(run, &mut g));
}
