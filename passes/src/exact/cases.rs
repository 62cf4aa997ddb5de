//! The makespan walk's prefix bound over the cases that two conflicting buffers can still take:
//! what lets the walk pass over a prefix before it has decided how such buffers share their tier.
//!
//! [`Conflicts`] bounds every order that starts with a prefix by the paths between uses of
//! conflicting buffers (a, b: same tier, sizes adding up to more than it) that the prefix
//! orders. Pairs whose uses the prefix leaves unordered add nothing there, though every order
//! settles each of them in one of a few ways, and each way forces paths or SPILL_INs. Write
//! A_a, F_a for a's ALLOC and FREE and "<" for "before in σ". Every order is in one of these
//! cases for each pair (a, b), or in the same with a and b swapped:
//!
//! 1. **F_a < A_b** (a's lifetime before b's): every use of a precedes every use of b in σ, so
//!    (the argument of [`Conflicts`]) reaches it in every plan's timing.
//! 2. **A_a < A_b < F_a, and every use of a but F_a before A_b**: those uses reach every use of
//!    b, A_b reaches F_a. At A_b both are live and b is resident (an ALLOC starts a residency
//!    segment), so a is not — no byte can hold both — and a has a SPILL_IN after A_b ([`Reload`]
//!    after A_b, before F_a: the segment it starts ends at F_a or a SPILL_OUT before it, and the
//!    reuse paths from b's first segment end reach it, since that segment comes first in σ).
//! 3. **A_a < A_b < F_a, some use w of a other than F_a after A_b, and b's first segment ends at
//!    F_b**: as in 2, a has a SPILL_IN after b's first segment ends — here after F_b — and the
//!    first use of a after A_b lies in the segment of a SPILL_IN of a that comes after A_b (uses
//!    lie in segments, none in the gap around A_b), which reaches that use (the verifier's
//!    spill orderings: a SPILL_IN before every use of its segment). So a SPILL_IN of a starts
//!    after F_b and before one of a's uses other than A_a and F_a that may follow A_b. Also
//!    A_b < F_b < F_a: A_a reaches A_b, F_b reaches F_a.
//! 4. **As 3, but b's first segment ends at a SPILL_OUT**: a's SPILL_IN after A_b and before one
//!    of those uses, and b has a SPILL_IN too (after A_b, before F_b: b's later uses, F_b at
//!    least, lie in a later segment). A_a reaches A_b, A_b reaches F_a.
//!
//! These are all the cases: either the lifetimes are disjoint (1, or 1 swapped), or one buffer
//! is allocated inside the other's lifetime (a's, say): then either all of a's uses but F_a
//! come before A_b (2) or some comes after (3, 4, by how b's first segment ends). A prefix
//! rules cases out (a relation between two ops it holds is settled; an op it holds comes before
//! every op it does not), and the paths a case adds between ops it does not hold are edges of
//! the bound's graph (a cycle rules the case out too).
//!
//! So the least, over the ways of settling the pairs still open, of [`Conflicts::evaluate`]
//! with their paths and SPILL_INs bounds every order that starts with the prefix. Pairs with one
//! way left are settled for all; the rest are searched depth first, pair by pair (fewest ways
//! first), each node's bound at least its parent's (a node's graph holds its parent's). A node
//! whose bound reaches the threshold (the walk's best makespan) is not split further; once one
//! node below a node stays under the threshold, the node's own bound is returned (it bounds
//! all its cases, and the walk keeps the prefix either way); and past the budget of bounds
//! computed, a node is not split either. Each returned value is thus a bound of every order
//! with the prefix, and the result is deterministic.
//!
//! Cost: O(P · U²) to find the cases of P conflicting pairs with U uses each, then at most
//! `budget` bounds of [`Conflicts::evaluate`].

use super::conflict::{Conflicts, Fixed, Held, Reload};
use lattice_lir::OpId;

/// Edges and SPILL_INs of one case of one pair.
#[derive(Clone, Debug, Default)]
struct Case {
    edges: Vec<(OpId, OpId)>,
    reloads: Vec<Reload>,
}

/// Collects the relations a case needs, or finds that the prefix rules it out.
struct Needs<'f> {
    fixed: &'f Fixed,
    case: Case,
    possible: bool,
}

impl Needs<'_> {
    /// `u` before `v` in σ (u ends before v starts in every timing: uses of conflicting buffers).
    fn before(&mut self, u: OpId, v: OpId) {
        match (self.fixed.placed(u), self.fixed.placed(v)) {
            (true, true) => self.possible &= self.fixed.pos[u.index()] < self.fixed.pos[v.index()],
            (true, false) => {}
            (false, true) => self.possible = false,
            (false, false) => self.case.edges.push((u, v)),
        }
    }

    /// Whether `u` may come before `v` in an order with the prefix.
    fn may_precede(&self, u: OpId, v: OpId) -> bool {
        let (fu, fv) = (self.fixed.placed(u), self.fixed.placed(v));
        match (fu, fv) {
            (true, true) => self.fixed.pos[u.index()] < self.fixed.pos[v.index()],
            (false, true) => false,
            _ => true,
        }
    }
}

/// The cases of pair (`ia`, `ib`) with a allocated first or with a's lifetime first (cases 1–4
/// of the header), given the prefix.
fn cases_a_first(fixed: &Fixed, held: &[Held], ia: usize, ib: usize, out: &mut Vec<Case>) {
    let (a, b) = (&held[ia], &held[ib]);
    let start = |fixed| Needs {
        fixed,
        case: Case::default(),
        possible: true,
    };
    // 1: a's lifetime before b's.
    let mut n = start(fixed);
    for &u in &a.uses {
        for &v in &b.uses {
            n.before(u, v);
        }
    }
    if n.possible {
        out.push(n.case);
    }
    // 2: b allocated inside a's lifetime after all of a's uses but F_a.
    let mut n = start(fixed);
    for &u in a.uses.iter().filter(|&&u| u != a.free) {
        for &v in &b.uses {
            n.before(u, v);
        }
    }
    n.before(b.alloc, a.free);
    n.case.reloads.push(Reload {
        held: ia,
        after: b.alloc,
        before: vec![a.free],
    });
    if n.possible {
        out.push(n.case);
    }
    // 3 and 4: some use of a other than A_a and F_a after A_b.
    let mut n = start(fixed);
    n.before(a.alloc, b.alloc);
    n.before(b.alloc, a.free);
    let later: Vec<OpId> = a
        .uses
        .iter()
        .copied()
        .filter(|&w| w != a.alloc && w != a.free && n.may_precede(b.alloc, w))
        .collect();
    if !n.possible || later.is_empty() {
        return;
    }
    let mut three = Needs {
        fixed,
        case: n.case.clone(),
        possible: true,
    };
    three.before(b.free, a.free);
    three.case.reloads.push(Reload {
        held: ia,
        after: b.free,
        before: later.clone(),
    });
    if three.possible {
        out.push(three.case);
    }
    let mut four = n.case;
    four.reloads.push(Reload {
        held: ia,
        after: b.alloc,
        before: later,
    });
    four.reloads.push(Reload {
        held: ib,
        after: b.alloc,
        before: vec![b.free],
    });
    out.push(four);
}

/// The depth-first search over the open pairs' cases.
struct Split<'c, 'a> {
    conflicts: &'c Conflicts<'a>,
    fixed: &'c Fixed,
    open: Vec<Vec<Case>>,
    threshold: u64,
    budget: usize,
    edges: Vec<(OpId, OpId)>,
    reloads: Vec<Reload>,
}

impl Split<'_, '_> {
    /// A bound of every order with the prefix, the settled pairs' cases and those of the open
    /// pairs before `depth` as chosen; `parent` is a bound of them already.
    fn explore(&mut self, depth: usize, parent: u64) -> u64 {
        if self.budget == 0 {
            return parent;
        }
        self.budget -= 1;
        let own = self
            .conflicts
            .evaluate(self.fixed, &self.edges, &self.reloads)
            .max(parent);
        if own >= self.threshold || depth == self.open.len() {
            return own;
        }
        let mut least = u64::MAX;
        for i in 0..self.open[depth].len() {
            let (edges, reloads) = (self.edges.len(), self.reloads.len());
            let case = &self.open[depth][i];
            self.edges.extend_from_slice(&case.edges);
            self.reloads.extend_from_slice(&case.reloads);
            let value = self.explore(depth + 1, own);
            self.edges.truncate(edges);
            self.reloads.truncate(reloads);
            if value < self.threshold {
                return own;
            }
            least = least.min(value);
        }
        least
    }
}

/// A bound of every order that starts with `prefix` (a legal prefix) from the cases its
/// conflicting pairs can take, searched until it reaches `threshold` or `budget` bounds have
/// been computed.
pub fn split_bound(
    conflicts: &Conflicts<'_>,
    prefix: &[OpId],
    threshold: u64,
    budget: usize,
) -> u64 {
    let fixed = conflicts.fix(prefix);
    let held = &conflicts.held;
    let mut settled = Case::default();
    let mut open = Vec::new();
    for (ia, a) in held.iter().enumerate() {
        for &ib in a.conflicts.iter().filter(|&&ib| ib > ia) {
            let mut cases = Vec::new();
            cases_a_first(&fixed, held, ia, ib, &mut cases);
            cases_a_first(&fixed, held, ib, ia, &mut cases);
            match cases.len() {
                // No order with the prefix: it has none (a legal prefix always has one).
                0 => return u64::MAX,
                1 => {
                    let case = cases.pop().expect("one case");
                    settled.edges.extend(case.edges);
                    settled.reloads.extend(case.reloads);
                }
                _ => open.push(cases),
            }
        }
    }
    open.sort_by_key(Vec::len);
    let mut split = Split {
        conflicts,
        fixed: &fixed,
        open,
        threshold,
        budget,
        edges: settled.edges,
        reloads: settled.reloads,
    };
    split.explore(0, 0)
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::analysis::{any_order_bounds, Dag};
    use crate::exact::seed::{squeezed_modules, tried_orders};
    use crate::search::BackEnd;

    #[test]
    fn no_prefix_bound_exceeds_the_back_ends_makespan_of_an_order_that_starts_with_it() {
        let back_end = BackEnd::default();
        let (mut orders, mut above_root, mut prefixes, mut split_above) = (0, 0, 0, 0);
        for m in squeezed_modules(0) {
            let dag = Dag::of(&m).expect("acyclic");
            let conflicts = Conflicts::of(&m, &dag);
            let plain = |prefix: &[OpId]| conflicts.evaluate(&conflicts.fix(prefix), &[], &[]);
            let root = plain(&[]);
            assert!(root >= any_order_bounds(&m).expect("bounds").makespan);
            for (tight, makespan) in tried_orders(&m, &dag.topo, &back_end) {
                for k in 0..=tight.len() {
                    let b = plain(&tight[..k]);
                    assert!(b <= makespan, "{} prefix {k}: {b} > {makespan}", m.name);
                    // The split bound, searched to prune this very order: it must not.
                    let split = split_bound(&conflicts, &tight[..k], makespan + 1, 4096);
                    assert!(
                        split <= makespan,
                        "{} prefix {k}: split {split} > {makespan}",
                        m.name
                    );
                    assert!(split >= b, "{} prefix {k}: split {split} < {b}", m.name);
                    prefixes += 1;
                    split_above += usize::from(split > b);
                }
                orders += 1;
                above_root += usize::from(plain(&tight) > root);
            }
        }
        // The bound is checked on many orders, and a whole order's often exceeds the root's.
        assert!(orders >= 400, "{orders}");
        assert!(above_root * 4 >= orders, "{above_root} of {orders}");
        // The cases raise the bound of many prefixes above what the prefix fixes alone.
        assert!(split_above * 10 >= prefixes, "{split_above} of {prefixes}");
    }
}
