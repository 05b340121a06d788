//! The db as text, for `ember-opt --print-alias-db` and lit tests, in the spirit of PyTorch's
//! `AliasDb::toString`: for each tracked value (in value order) its memory locations, what it
//! contains, whether it is a wildcard; then each node that writes, with what it writes.
//!
//! ```text
//! %x : wildcard Tensor
//! %y : %x, WILDCARD(Tensor)
//! %l : fresh, contains WILDCARD(Tensor)
//! writes:
//!   aten::add_ (%y): %x, WILDCARD(Tensor)
//! ```
//!
//! A location is named by the first value that owns it, or `WILDCARD(type)`.

use std::fmt::Write as _;

use ember_dialects::{Graph, Node};
use hashbrown::HashMap;

use super::memory::{Elem, LocSet};
use super::AliasDb;

impl AliasDb {
    /// The db in text form (see the module documentation).
    pub fn to_text(&self, g: &Graph) -> String {
        let names = self.location_names(g);
        let show = |locs: &LocSet| {
            locs.iter()
                .filter_map(|l| names.get(&l).cloned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = String::new();
        for v in self.tracked_values() {
            let e = self.elements[&v];
            let locs = self.memory.locations(e);
            let own = locs.contains(e) && locs.iter().count() == 1;
            let _ = write!(out, "%{} : ", g.value_name(v));
            if let Some(w) = self.wildcard_values.get(&v) {
                let _ = write!(out, "wildcard {}", type_of_wildcard(&names, *w));
                let others: LocSet = locs_without(locs, &[e, *w]);
                if !others.is_empty() {
                    let _ = write!(out, ", also {}", show(&others));
                }
            } else if own {
                out.push_str("fresh");
            } else {
                out.push_str(&show(&locs_without(locs, &[e])));
            }
            let contained = &self.memory.elements[e as usize].contained;
            if !contained.is_empty() {
                let mut set = LocSet::new();
                for &c in contained {
                    set.insert(c);
                }
                let _ = write!(out, ", contains {}", show(&set));
            }
            out.push('\n');
        }
        let mut writers: Vec<Node> = self.writing_nodes().into_iter().collect();
        writers.sort_by_key(|n| n.as_u32());
        if !writers.is_empty() {
            out.push_str("writes:\n");
        }
        for n in writers {
            let outputs: Vec<String> = g
                .node_outputs(n)
                .iter()
                .map(|&v| format!("%{}", g.value_name(v)))
                .collect();
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                g.kind(n),
                outputs.join(", "),
                show(&self.node_writes[&n])
            );
        }
        out
    }

    /// Names of locations: the first tracked value whose own element it is, or its wildcard.
    fn location_names(&self, g: &Graph) -> HashMap<Elem, String> {
        let mut names = HashMap::new();
        for (ty, &w) in &self.wildcards {
            names.insert(w, format!("WILDCARD({ty})"));
        }
        for v in self.tracked_values() {
            names
                .entry(self.elements[&v])
                .or_insert_with(|| format!("%{}", g.value_name(v)));
        }
        names
    }
}

fn locs_without(locs: &LocSet, drop: &[Elem]) -> LocSet {
    let mut out = LocSet::new();
    for l in locs.iter().filter(|l| !drop.contains(l)) {
        out.insert(l);
    }
    out
}

fn type_of_wildcard(names: &HashMap<Elem, String>, w: Elem) -> String {
    names
        .get(&w)
        .and_then(|n| n.strip_prefix("WILDCARD(")?.strip_suffix(')'))
        .unwrap_or("?")
        .to_string()
}
