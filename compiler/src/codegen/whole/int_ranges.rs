//! Integer value ranges for whole-graph lowering: the interval each `int` value of a graph
//! can hold, over its loops' every iteration (as LLVM's correlated value propagation knows
//! ranges, but from the TorchScript graph, where a loop's carried values are block
//! parameters). The lowering reads them to compute Python's `%` and `//` by a positive constant
//! without the sign fix-ups a negative dividend needs, or without dividing at all
//! (`(a + b) % p` of values already below `p` is a compare and a subtraction).
//!
//! Ints wrap in TorchScript, so an operation whose exact result could leave the i64 range
//! gives the full range.

use hashbrown::HashMap;

use ember_dialects::symbol::sym;
use ember_dialects::{AttrValue, Block, Graph, Node, Type, Value};

/// The values an int can hold: `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i64,
    pub hi: i64,
}

impl Range {
    pub const FULL: Range = Range {
        lo: i64::MIN,
        hi: i64::MAX,
    };

    fn exact(k: i64) -> Range {
        Range { lo: k, hi: k }
    }

    /// `lo..=hi` when both fit an i64 (the operation cannot wrap), else the full range.
    fn of_wide(lo: i128, hi: i128) -> Range {
        match (i64::try_from(lo), i64::try_from(hi)) {
            (Ok(lo), Ok(hi)) => Range { lo, hi },
            _ => Range::FULL,
        }
    }

    fn join(self, other: Range) -> Range {
        Range {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The constant this range holds, if it holds one value.
    pub fn constant(self) -> Option<i64> {
        (self.lo == self.hi).then_some(self.lo)
    }
}

/// Rounds of a loop body analyzed before bounds that still move are widened to the i64
/// limits (each bound moves at most once after that, so the fixpoint is reached).
const ROUNDS_BEFORE_WIDENING: usize = 3;

/// Rounds that narrow a loop's carried ranges after widening.
const NARROWING_ROUNDS: usize = 4;

/// The range of every int value of `g` that is narrower than the full range.
pub fn analyze(g: &Graph) -> HashMap<Value, Range> {
    let mut a = Analysis {
        g,
        ranges: HashMap::new(),
    };
    a.block(g.block());
    a.ranges.retain(|_, r| *r != Range::FULL);
    a.ranges
}

struct Analysis<'g> {
    g: &'g Graph,
    ranges: HashMap<Value, Range>,
}

impl Analysis<'_> {
    fn get(&self, v: Value) -> Range {
        self.ranges.get(&v).copied().unwrap_or(Range::FULL)
    }

    fn set(&mut self, v: Value, r: Range) {
        if *self.g.ty(v) == Type::Int {
            self.ranges.insert(v, r);
        }
    }

    fn block(&mut self, b: Block) {
        let nodes: Vec<Node> = self.g.block_nodes(b).collect();
        for n in nodes {
            self.node(n);
        }
    }

    fn node(&mut self, n: Node) {
        let g = self.g;
        let kind = g.kind(n);
        if kind == sym::loop_() {
            return self.loop_(n);
        }
        if kind == sym::if_() {
            let blocks = g.node_blocks(n).to_vec();
            for &b in &blocks {
                self.block(b);
            }
            for (i, &out) in g.node_outputs(n).iter().enumerate() {
                let r = blocks
                    .iter()
                    .map(|&b| self.get(g.block_outputs(b)[i]))
                    .reduce(Range::join)
                    .unwrap_or(Range::FULL);
                self.set(out, r);
            }
            return;
        }
        // Nodes with blocks of their own (closures, forks) and multi-output nodes: nothing known.
        for &b in g.node_blocks(n) {
            self.block(b);
        }
        let outputs = g.node_outputs(n);
        if outputs.len() != 1 || *g.ty(outputs[0]) != Type::Int {
            return;
        }
        let r = self.transfer(n);
        self.set(outputs[0], r);
    }

    /// The range of the one int output of `n` from its inputs' ranges.
    fn transfer(&self, n: Node) -> Range {
        let g = self.g;
        let kind = g.kind(n);
        if kind == sym::constant() {
            return match g.attr(n, sym::attr_value()) {
                Some(AttrValue::Int(k)) => Range::exact(*k),
                _ => Range::FULL,
            };
        }
        let (ns, op) = (kind.namespace(), kind.unqualified());
        let ints = g.node_inputs(n).iter().all(|&v| *g.ty(v) == Type::Int);
        if (ns != "aten" && ns != "prim") || !ints {
            return Range::FULL;
        }
        let r: Vec<Range> = g.node_inputs(n).iter().map(|&v| self.get(v)).collect();
        let wide = |r: Range| (r.lo as i128, r.hi as i128);
        match (op, r.as_slice()) {
            ("add", [a, b]) => Range::of_wide(wide(*a).0 + wide(*b).0, wide(*a).1 + wide(*b).1),
            ("sub", [a, b]) => Range::of_wide(wide(*a).0 - wide(*b).1, wide(*a).1 - wide(*b).0),
            ("mul", [a, b]) => product(*a, *b),
            ("neg", [a]) => Range::of_wide(-wide(*a).1, -wide(*a).0),
            ("__derive_index", [index, start, step]) => {
                let offset = product(*index, *step);
                if offset == Range::FULL {
                    return Range::FULL;
                }
                Range::of_wide(
                    wide(*start).0 + wide(offset).0,
                    wide(*start).1 + wide(offset).1,
                )
            }
            ("remainder" | "__mod__", [x, d]) => remainder(*x, *d),
            ("floordiv", [x, d]) => match d.constant() {
                Some(c) if c > 0 => Range {
                    lo: x.lo.div_euclid(c),
                    hi: x.hi.div_euclid(c),
                },
                _ => Range::FULL,
            },
            ("min", [a, b]) if ns == "prim" => Range {
                lo: a.lo.min(b.lo),
                hi: a.hi.min(b.hi),
            },
            ("max", [a, b]) if ns == "prim" => Range {
                lo: a.lo.max(b.lo),
                hi: a.hi.max(b.hi),
            },
            _ => Range::FULL,
        }
    }

    /// A `prim::Loop`: its index runs below the trip count; each carried value holds its
    /// initial value or what the body yields, analyzed until nothing widens.
    fn loop_(&mut self, n: Node) {
        let g = self.g;
        let body = g.node_blocks(n)[0];
        let (inputs, params) = (g.node_inputs(n), g.block_inputs(body));
        let trips = self.get(inputs[0]);
        self.set(
            params[0],
            Range {
                lo: 0,
                hi: trips.hi.saturating_sub(1).max(0),
            },
        );
        let initial: Vec<Range> = inputs[2..].iter().map(|&v| self.get(v)).collect();
        // Upward, widening bounds that keep moving, to a range every iteration stays in ...
        let mut carried = initial.clone();
        let mut yields = self.loop_body(body, &carried);
        for round in 0.. {
            let next: Vec<Range> = carried
                .iter()
                .zip(&yields)
                .map(|(c, y)| {
                    let next = c.join(*y);
                    if round < ROUNDS_BEFORE_WIDENING {
                        return next;
                    }
                    Range {
                        lo: if next.lo < c.lo { i64::MIN } else { c.lo },
                        hi: if next.hi > c.hi { i64::MAX } else { c.hi },
                    }
                })
                .collect();
            if next == carried {
                break;
            }
            carried = next;
            yields = self.loop_body(body, &carried);
        }
        // ... then downward: the initial values joined with what the body yields from that
        // range are a range every iteration stays in too, often a narrower one (a value
        // widened while it grew, then bounded by a `%`).
        for _ in 0..NARROWING_ROUNDS {
            let next: Vec<Range> = initial
                .iter()
                .zip(&yields)
                .map(|(i, y)| i.join(*y))
                .collect();
            if next == carried {
                break;
            }
            carried = next;
            yields = self.loop_body(body, &carried);
        }
        for (&out, &r) in g.node_outputs(n).iter().zip(&carried) {
            self.set(out, r);
        }
    }
}

impl Analysis<'_> {
    /// Analyzes the loop's body with its carried values in `carried`; gives the ranges of what
    /// it yields for them.
    fn loop_body(&mut self, body: Block, carried: &[Range]) -> Vec<Range> {
        let g = self.g;
        for (&p, &r) in g.block_inputs(body)[1..].iter().zip(carried) {
            self.set(p, r);
        }
        self.block(body);
        g.block_outputs(body)[1..]
            .iter()
            .map(|&y| self.get(y))
            .collect()
    }
}

fn product(a: Range, b: Range) -> Range {
    let corners = [
        a.lo as i128 * b.lo as i128,
        a.lo as i128 * b.hi as i128,
        a.hi as i128 * b.lo as i128,
        a.hi as i128 * b.hi as i128,
    ];
    Range::of_wide(
        *corners.iter().min().expect("four corners"),
        *corners.iter().max().expect("four corners"),
    )
}

/// Python's `x % d`: it takes the divisor's sign, below it in magnitude.
fn remainder(x: Range, d: Range) -> Range {
    if d.lo > 0 {
        if x.lo >= 0 && x.hi < d.lo {
            return x;
        }
        return Range {
            lo: 0,
            hi: d.hi - 1,
        };
    }
    if d.hi < 0 {
        return Range {
            lo: d.lo + 1,
            hi: 0,
        };
    }
    Range::FULL
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges_of(src: &str) -> HashMap<String, Range> {
        let g = ember_dialects::parse::parse_graph(src).expect("parses");
        let ranges = analyze(&g);
        ranges
            .into_iter()
            .map(|(v, r)| (g.value_name(v).to_string(), r))
            .collect()
    }

    #[test]
    fn modular_fibonacci_stays_below_its_modulus() {
        let r = ranges_of(
            "graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %p : int = prim::Constant[value=1000000007]()
  %a : int, %b : int = prim::Loop(%n, %t, %zero, %one)
    block0(%i : int, %a0 : int, %b0 : int):
      %s : int = aten::add(%a0, %b0)
      %c : int = aten::remainder(%s, %p)
      -> (%t, %b0, %c)
  return (%a)
",
        );
        let below = Range {
            lo: 0,
            hi: 1000000006,
        };
        assert_eq!(r["a0"], below);
        assert_eq!(r["b0"], below);
        assert_eq!(
            r["s"],
            Range {
                lo: 0,
                hi: 2000000012
            }
        );
        assert_eq!(r["c"], below);
        assert_eq!(
            r["i"],
            Range {
                lo: 0,
                hi: i64::MAX - 1
            }
        );
    }

    #[test]
    fn values_that_may_wrap_are_unknown() {
        let r = ranges_of(
            "graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %seven : int = prim::Constant[value=7]()
  %three : int = prim::Constant[value=3]()
  %k : int = prim::Constant[value=100]()
  %s : int = prim::Loop(%k, %t, %zero)
    block0(%i : int, %s0 : int):
      %m : int = aten::mul(%i, %seven)
      %s1 : int = aten::add(%s0, %m)
      %q : int = aten::floordiv(%s1, %three)
      %neg : int = aten::neg(%q)
      %w : int = aten::mul(%n, %seven)
      -> (%t, %s1)
  return (%s)
",
        );
        assert_eq!(r["i"], Range { lo: 0, hi: 99 });
        assert_eq!(r["m"], Range { lo: 0, hi: 693 });
        // The sum grows each round, and its upper bound widens to i64::MAX, where adding to
        // it may wrap: nothing is known of it.
        for unknown in ["s0", "s1", "w"] {
            assert!(!r.contains_key(unknown), "{unknown}: {:?}", r.get(unknown));
        }
        let third = Range {
            lo: i64::MIN.div_euclid(3),
            hi: i64::MAX / 3,
        };
        assert_eq!(r["q"], third);
        assert_eq!(
            r["neg"],
            Range {
                lo: -third.hi,
                hi: -third.lo
            }
        );
    }

    #[test]
    fn branches_join_and_negative_divisors_give_nonpositive_remainders() {
        let r = ranges_of(
            "graph(%x : int, %c : bool):
  %five : int = prim::Constant[value=5]()
  %m5 : int = prim::Constant[value=-5]()
  %two : int = prim::Constant[value=2]()
  %y : int = prim::If(%c)
    block0():
      -> (%five)
    block1():
      -> (%two)
  %r : int = aten::remainder(%x, %m5)
  %z : int = aten::remainder(%y, %five)
  %u : int = aten::remainder(%x, %y)
  return (%r, %z, %u)
",
        );
        assert_eq!(r["y"], Range { lo: 2, hi: 5 });
        assert_eq!(r["r"], Range { lo: -4, hi: 0 });
        assert_eq!(r["z"], Range { lo: 0, hi: 4 });
        assert_eq!(r["u"], Range { lo: 0, hi: 4 });
    }
}
