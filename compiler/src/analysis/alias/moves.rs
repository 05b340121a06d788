//! Moving a node within its block without changing what the program computes (PyTorch's
//! `AliasDb::tryMove`, `moveAfterTopologicallyValid`, `moveBeforeTopologicallyValid`).
//!
//! The node moves toward the move point one node at a time, collecting a working set of the
//! nodes it cannot pass: those that use its values or produce values it uses, and those that
//! write what it (or the working set) reads or read what it writes. Nodes with side effects
//! are never passed. If the working set can pass the move point, the node and its working set
//! move together, or — when the node must end on the other side of the move point from its
//! dependents — the node moves and its dependents go to the far side.

use hashbrown::{HashMap, HashSet};

use ember_dialects::{Graph, Node};

use super::memory::LocSet;
use super::{has_side_effects, AliasDb};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MoveSide {
    Before,
    After,
}

impl AliasDb {
    /// Moves `n` right after `point` (same block) with whatever must move with it; false (and
    /// nothing moved) when that would change the program.
    pub fn move_after_topologically_valid(&self, g: &mut Graph, n: Node, point: Node) -> bool {
        self.try_move(g, n, point, MoveSide::After, false)
    }

    /// Moves `n` right before `point` (same block); false when not possible.
    pub fn move_before_topologically_valid(&self, g: &mut Graph, n: Node, point: Node) -> bool {
        self.try_move(g, n, point, MoveSide::Before, false)
    }

    /// Whether [`AliasDb::move_after_topologically_valid`] would succeed.
    pub fn could_move_after_topologically(&self, g: &mut Graph, n: Node, point: Node) -> bool {
        self.try_move(g, n, point, MoveSide::After, true)
    }

    /// Whether [`AliasDb::move_before_topologically_valid`] would succeed.
    pub fn could_move_before_topologically(&self, g: &mut Graph, n: Node, point: Node) -> bool {
        self.try_move(g, n, point, MoveSide::Before, true)
    }

    fn try_move(
        &self,
        g: &mut Graph,
        to_move: Node,
        point: Node,
        side: MoveSide,
        dry: bool,
    ) -> bool {
        if g.owning_block(to_move) != g.owning_block(point) {
            return false;
        }
        if to_move == point {
            return true;
        }
        let forward = g.is_before(to_move, point);
        let step = |g: &Graph, n: Node| {
            if forward {
                g.next_node(n)
            } else {
                g.prev_node(n)
            }
        };
        let mut ws = WorkingSet::new(self, g, to_move);
        let mut cur = step(g, to_move);
        let on_move_side =
            (side == MoveSide::Before && forward) || (side == MoveSide::After && !forward);
        if on_move_side && cur == Some(point) {
            return true;
        }
        if has_side_effects(g, to_move) || (!on_move_side && has_side_effects(g, point)) {
            return false;
        }
        while let Some(c) = cur {
            if c == point {
                break;
            }
            if has_side_effects(g, c) {
                return false;
            }
            if ws.depends_on(self, g, c) {
                ws.add(self, g, c);
            }
            cur = step(g, c);
        }
        if cur != Some(point) {
            return false;
        }
        // When `to_move` starts before a "before" point (or after an "after" one), it goes
        // to the point and its dependents stay on the far side of it.
        let split = on_move_side;
        if split {
            ws.erase_mover();
        }
        if ws.depends_on(self, g, point) {
            return false;
        }
        if dry {
            return true;
        }
        let mv = |g: &mut Graph, n: Node, at: Node, side: MoveSide| match side {
            MoveSide::Before => g.move_before(n, at),
            MoveSide::After => g.move_after(n, at),
        };
        if split {
            mv(g, to_move, point, side);
            let reversed = match side {
                MoveSide::Before => MoveSide::After,
                MoveSide::After => MoveSide::Before,
            };
            let mut at = point;
            for &n in &ws.nodes {
                mv(g, n, at, reversed);
                at = n;
            }
        } else {
            mv(g, to_move, point, side);
            let mut at = to_move;
            for &n in &ws.nodes {
                mv(g, n, at, side);
                at = n;
            }
        }
        true
    }
}

/// The mover and the nodes that must move with it.
struct WorkingSet {
    mover: Option<Node>,
    mover_users: HashSet<Node>,
    mover_reads: LocSet,
    mover_writes: LocSet,
    nodes: Vec<Node>,
    index: HashMap<Node, usize>,
    users: HashSet<Node>,
    reads: LocSet,
    writes: LocSet,
}

impl WorkingSet {
    fn new(db: &AliasDb, g: &Graph, mover: Node) -> WorkingSet {
        WorkingSet {
            mover: Some(mover),
            mover_users: users_same_block(g, mover),
            mover_reads: db.reads(g, mover),
            mover_writes: db.writes(g, mover),
            nodes: Vec::new(),
            index: HashMap::new(),
            users: HashSet::new(),
            reads: LocSet::new(),
            writes: LocSet::new(),
        }
    }

    fn add(&mut self, db: &AliasDb, g: &Graph, n: Node) {
        self.index.insert(n, self.nodes.len());
        self.nodes.push(n);
        self.users.extend(users_same_block(g, n));
        self.writes.union_with(&db.writes(g, n));
        self.reads.union_with(&db.reads(g, n));
    }

    fn erase_mover(&mut self) {
        self.mover = None;
        self.mover_users.clear();
        self.mover_reads = LocSet::new();
        self.mover_writes = LocSet::new();
    }

    fn depends_on(&self, db: &AliasDb, g: &Graph, n: Node) -> bool {
        if self.mover.is_none() && self.nodes.is_empty() {
            return false;
        }
        self.has_data_dependency(g, n) || self.has_mutability_dependency(db, g, n)
    }

    fn has_data_dependency(&self, g: &Graph, n: Node) -> bool {
        let pivot = self.mover.unwrap_or_else(|| self.nodes[0]);
        if g.is_before(pivot, n) {
            // `n` comes later: does the set produce for it?
            self.mover_users.contains(&n) || self.users.contains(&n)
        } else {
            // `n` comes earlier: does the set consume from it?
            let users = users_same_block(g, n);
            self.mover.is_some_and(|m| users.contains(&m))
                || users.iter().any(|u| self.index.contains_key(u))
        }
    }

    fn has_mutability_dependency(&self, db: &AliasDb, g: &Graph, n: Node) -> bool {
        let n_writes = db.writes(g, n);
        if self.reads.intersects(&n_writes) || self.mover_reads.intersects(&n_writes) {
            return true;
        }
        let n_reads = db.reads(g, n);
        self.writes.intersects(&n_reads) || self.mover_writes.intersects(&n_reads)
    }
}

/// The users of `n`'s outputs, each raised to the node of `n`'s block that holds it.
fn users_same_block(g: &Graph, n: Node) -> HashSet<Node> {
    let block = g.owning_block(n);
    let mut out = HashSet::new();
    for &v in g.node_outputs(n) {
        for u in g.uses(v) {
            let mut user = u.user;
            loop {
                if g.owning_block(user) == block {
                    out.insert(user);
                    break;
                }
                match g.owning_block(user).and_then(|b| g.owning_node(b)) {
                    Some(owner) => user = owner,
                    None => break,
                }
            }
        }
    }
    out
}
