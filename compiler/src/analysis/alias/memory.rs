//! The memory graph behind [`AliasDb`](super::AliasDb), after PyTorch's `MemoryDAG`.
//!
//! Every value of a mutable type has an element. An element either is a memory location of
//! its own (it points to nothing: a fresh allocation, a graph input, a wildcard) or points to
//! the elements it may be (a view points to its base, an `If` output to both branches'
//! outputs). Containers also list the elements they contain. The memory locations of an
//! element are the locations reachable through points-to edges, computed once the graph is
//! analyzed; loops may make the edges cyclic, so they are found by iterating to a fixpoint.

use smallvec::SmallVec;

/// An element of the memory graph.
pub type Elem = u32;

/// A set of elements, kept sorted: most values have one or two memory locations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocSet(SmallVec<[Elem; 2]>);

impl LocSet {
    pub fn new() -> LocSet {
        LocSet(SmallVec::new())
    }

    pub fn single(e: Elem) -> LocSet {
        let mut s = SmallVec::new();
        s.push(e);
        LocSet(s)
    }

    pub fn insert(&mut self, e: Elem) -> bool {
        match self.0.binary_search(&e) {
            Ok(_) => false,
            Err(i) => {
                self.0.insert(i, e);
                true
            }
        }
    }

    pub fn contains(&self, e: Elem) -> bool {
        self.0.binary_search(&e).is_ok()
    }

    /// Adds every element of `other`; whether anything was new.
    pub fn union_with(&mut self, other: &LocSet) -> bool {
        if other.0.iter().all(|e| self.contains(*e)) {
            return false;
        }
        let mut merged: SmallVec<[Elem; 2]> = SmallVec::with_capacity(self.0.len() + other.0.len());
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.0, &other.0);
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(&x), Some(&y)) if x == y => {
                    i += 1;
                    j += 1;
                    x
                }
                (Some(&x), Some(&y)) if x < y => {
                    i += 1;
                    x
                }
                (Some(_), Some(&y)) => {
                    j += 1;
                    y
                }
                (Some(&x), None) => {
                    i += 1;
                    x
                }
                (None, Some(&y)) => {
                    j += 1;
                    y
                }
                (None, None) => unreachable!(),
            };
            merged.push(next);
        }
        self.0 = merged;
        true
    }

    pub fn intersects(&self, other: &LocSet) -> bool {
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() && j < other.0.len() {
            match self.0[i].cmp(&other.0[j]) {
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
            }
        }
        false
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = Elem> + '_ {
        self.0.iter().copied()
    }
}

/// One element: what it points to and what it contains.
#[derive(Clone, Debug, Default)]
pub struct Element {
    pub points_to: Vec<Elem>,
    pub contained: Vec<Elem>,
}

/// The elements and, once [`MemoryGraph::finish`] ran, their memory locations.
#[derive(Default)]
pub struct MemoryGraph {
    pub elements: Vec<Element>,
    locations: Vec<LocSet>,
}

impl MemoryGraph {
    pub fn fresh(&mut self) -> Elem {
        self.elements.push(Element::default());
        (self.elements.len() - 1) as Elem
    }

    pub fn make_pointer_to(&mut self, from: Elem, to: Elem) {
        if from != to && !self.elements[from as usize].points_to.contains(&to) {
            self.elements[from as usize].points_to.push(to);
        }
    }

    pub fn add_contained(&mut self, inner: Elem, container: Elem) {
        if !self.elements[container as usize].contained.contains(&inner) {
            self.elements[container as usize].contained.push(inner);
        }
    }

    /// Computes every element's memory locations: itself if it points nowhere, else the union
    /// of its targets' locations. Then each memory location of a wildcard value (`(element,
    /// wildcard)` in `wildcards`) also points to the wildcard of its type: values that may be
    /// that location may be anything the wildcard holds (PyTorch's `setWildcards`).
    pub fn finish(&mut self, wildcards: &[(Elem, Elem)]) {
        let n = self.elements.len();
        let mut locs: Vec<LocSet> = (0..n)
            .map(|e| {
                if self.elements[e].points_to.is_empty() {
                    LocSet::single(e as Elem)
                } else {
                    LocSet::new()
                }
            })
            .collect();
        fixpoint(&self.elements, &mut locs);
        // Extra locations per leaf: the locations of the wildcards it was given.
        let mut extra: hashbrown::HashMap<Elem, LocSet> = hashbrown::HashMap::new();
        for &(value, wildcard) in wildcards {
            let w = locs[wildcard as usize].clone();
            for leaf in locs[value as usize].clone().iter() {
                if leaf != wildcard {
                    extra.entry(leaf).or_default().union_with(&w);
                }
            }
        }
        if !extra.is_empty() {
            for set in &mut locs {
                let mut add = LocSet::new();
                for l in set.iter() {
                    if let Some(x) = extra.get(&l) {
                        add.union_with(x);
                    }
                }
                set.union_with(&add);
            }
        }
        self.locations = locs;
    }

    /// A new element after [`MemoryGraph::finish`]: its own memory location.
    pub fn fresh_finished(&mut self) -> Elem {
        let e = self.fresh();
        self.locations.push(LocSet::single(e));
        e
    }

    /// The memory locations of `e` (after [`MemoryGraph::finish`]).
    pub fn locations(&self, e: Elem) -> &LocSet {
        &self.locations[e as usize]
    }

    /// `e`, its memory locations, and recursively everything they contain (PyTorch's
    /// `collectAllContainedMemoryLocations`), added to `out`.
    pub fn collect_contained(&self, e: Elem, out: &mut LocSet) {
        if !out.insert(e) {
            return;
        }
        for l in self.locations(e).clone().iter() {
            self.collect_contained(l, out);
        }
        for &c in &self.elements[e as usize].contained {
            self.collect_contained(c, out);
        }
    }
}

/// Propagates locations along points-to edges until nothing changes.
fn fixpoint(elements: &[Element], locs: &mut [LocSet]) {
    let mut changed = true;
    while changed {
        changed = false;
        for e in 0..elements.len() {
            if elements[e].points_to.is_empty() {
                continue;
            }
            let mut acc = locs[e].clone();
            for &t in &elements[e].points_to {
                acc.union_with(&locs[t as usize]);
            }
            if acc != locs[e] {
                locs[e] = acc;
                changed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_follow_pointers_and_cycles() {
        let mut m = MemoryGraph::default();
        let (a, b, view, phi) = (m.fresh(), m.fresh(), m.fresh(), m.fresh());
        m.make_pointer_to(view, a);
        // A loop-carried value: starts as `b`, becomes the view, and points to itself.
        m.make_pointer_to(phi, b);
        m.make_pointer_to(phi, view);
        m.make_pointer_to(view, phi);
        m.finish(&[]);
        assert!(m.locations(a).contains(a));
        assert!(m.locations(view).contains(a) && m.locations(view).contains(b));
        assert!(m.locations(phi).intersects(m.locations(a)));
        assert!(!m.locations(a).intersects(m.locations(b)));
    }

    #[test]
    fn loc_sets_merge_sorted() {
        let mut s = LocSet::single(5);
        assert!(s.union_with(&LocSet(SmallVec::from_slice(&[1, 5, 9]))));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![1, 5, 9]);
        assert!(!s.union_with(&LocSet::single(9)));
        assert!(s.intersects(&LocSet::single(1)));
        assert!(!s.intersects(&LocSet::single(2)));
    }
}
