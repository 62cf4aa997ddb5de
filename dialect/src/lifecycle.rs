//! Lifecycle dependencies: every op that names a buffer depends on the buffer's ALLOC, and the
//! buffer's FREE depends on every such op, directly or through other ops.
//!
//! Why the structural verifier demands them rather than the pipeline deriving them: σ alone
//! orders an ALLOC before its uses, but the timing model (DESIGN §1.3) starts an op as soon as its
//! dependencies and its pipe allow, so a use with no path from its ALLOC may run before the
//! buffer's bytes are held, and a FREE with no path from a use may hand the bytes to another
//! buffer while the use still runs. Every plan of such a module would be rejected by the replay,
//! and which edge the author meant (use after ALLOC, or a producer that should have been there)
//! cannot be guessed without changing the program's meaning, so the module is refused at parse or
//! import with the missing edge named. Contest graphs always carry these paths; a front end that
//! drops one has a bug worth hearing about.
//!
//! How, per buffer: the ALLOC side visits the buffer's uses in σ order and marks each that
//! depends on the ALLOC or on an already marked op (a marked op follows the ALLOC, so the use does
//! too); the FREE side visits them in reverse σ order and marks each that a FREE or an already
//! marked op depends on. A chain of N uses of one buffer, a fan-in and a fan-out are all settled
//! this way, each use by its own edges. A use left unmarked gets a breadth-first walk (back over
//! dependencies on the ALLOC side, forward over dependents on the FREE side) that stays inside
//! the buffer's σ window (σ is a topological order by the time this runs, so no path can leave
//! it) and stops at the first marked op; the path found is marked, so later walks stop on it, and
//! the ops of a walk that finds nothing are marked as unable to reach, so no later walk of the
//! buffer enters them again.
//!
//! Complexity: O(V + E) to build the dependents and the uses, plus O(Σ over ops of their
//! dependencies and dependents × the buffers they name) for the marking, which is linear for the
//! few buffers an op names; walks add, per unmarked use, the ops visited before the first marked
//! one — nothing when every use is settled by its own edges, and O(B·(V + E)) at worst (uses
//! joined to the ALLOC and FREE only through long paths of other buffers' ops). The check counts
//! every edge it looks at, so tests hold the linear cases to a constant per edge.

use crate::ids::{BufferId, OpId};
use crate::module::Module;

/// A lifecycle dependency the module lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// `op` names the buffer but does not depend on its ALLOC.
    UseAfterAlloc {
        /// The op naming the buffer.
        op: OpId,
        /// The buffer.
        buffer: BufferId,
        /// Its ALLOC.
        alloc: OpId,
    },
    /// The buffer's FREE does not depend on `op`, which names the buffer (or is its ALLOC).
    FreeAfterUse {
        /// The op the FREE must follow.
        op: OpId,
        /// The buffer.
        buffer: BufferId,
        /// Its FREE.
        free: OpId,
    },
}

/// The lifecycle dependencies missing from `m`, per buffer in declaration order and, within a
/// buffer, in σ order (the FREE side: the ALLOC first, then the uses). `pos` is σ position by op
/// id and σ must respect every dependency; `spans[b]` is buffer b's (ALLOC, FREE), or `None` for
/// a buffer whose lifecycle is already reported broken (it is skipped).
pub(crate) fn missing_lifecycle_deps(
    m: &Module,
    pos: &[usize],
    spans: &[Option<(OpId, OpId)>],
) -> Vec<Missing> {
    check(m, pos, spans).0
}

/// [`missing_lifecycle_deps`], and the edges it looked at, marking and walking together: the work
/// the header's bound is about.
fn check(m: &Module, pos: &[usize], spans: &[Option<(OpId, OpId)>]) -> (Vec<Missing>, u64) {
    let uses = Csr::uses(m, spans);
    let dependents = Csr::dependents(m);
    let mut search = Search::new(m.ops.len());
    let mut missing = Vec::new();
    for b in m.buffer_ids() {
        let Some((alloc, free)) = spans[b.index()] else {
            continue;
        };
        let uses = uses.of(b.index());
        let after_alloc = Side {
            m,
            dependents: &dependents,
            pos,
            back: true,
            bound: pos[alloc.index()],
        };
        search.start(alloc);
        for &op in uses {
            if !search.settle(&after_alloc, op) {
                missing.push(Missing::UseAfterAlloc {
                    op,
                    buffer: b,
                    alloc,
                });
            }
        }
        // The FREE must follow the ALLOC and every use; reported in that order.
        let before_free = Side {
            back: false,
            bound: pos[free.index()],
            ..after_alloc
        };
        search.start(free);
        let mut unordered: Vec<OpId> = uses
            .iter()
            .rev()
            .copied()
            .chain(std::iter::once(alloc))
            .filter(|&op| !search.settle(&before_free, op))
            .collect();
        unordered.reverse();
        missing.extend(unordered.into_iter().map(|op| Missing::FreeAfterUse {
            op,
            buffer: b,
            free,
        }));
    }
    (missing, search.steps)
}

/// Lists per index in one array: `list[start[i]..start[i + 1]]`.
struct Csr {
    start: Vec<usize>,
    list: Vec<OpId>,
}

impl Csr {
    /// Entry `i` from `(i, op)` pairs produced twice by `pairs` (once to count, once to fill), in
    /// the order produced.
    fn build<I: Iterator<Item = (usize, OpId)>>(len: usize, pairs: impl Fn() -> I) -> Self {
        let mut start = vec![0usize; len + 1];
        for (i, _) in pairs() {
            start[i + 1] += 1;
        }
        for i in 0..len {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![OpId::new(0); start[len]];
        for (i, op) in pairs() {
            list[fill[i]] = op;
            fill[i] += 1;
        }
        Csr { start, list }
    }

    /// Every buffer's uses (the ops naming it, other than its ALLOC and FREE) in σ order; an op
    /// naming the buffer twice is one use.
    fn uses(m: &Module, spans: &[Option<(OpId, OpId)>]) -> Self {
        Csr::build(m.buffers.len(), || {
            m.schedule.iter().flat_map(move |&id| {
                let named = m.op(id).kind.buffers();
                named.iter().enumerate().filter_map(move |(k, &b)| {
                    let (a, f) = spans[b.index()]?;
                    (id != a && id != f && !named[..k].contains(&b)).then_some((b.index(), id))
                })
            })
        })
    }

    /// Every op's dependents.
    fn dependents(m: &Module) -> Self {
        Csr::build(m.ops.len(), || {
            m.op_ids()
                .flat_map(move |id| m.op(id).deps.iter().map(move |d| (d.op.index(), id)))
        })
    }

    fn of(&self, i: usize) -> &[OpId] {
        &self.list[self.start[i]..self.start[i + 1]]
    }
}

/// One side of a buffer's lifecycle: the direction its paths are walked and the σ window.
#[derive(Clone, Copy)]
struct Side<'a> {
    m: &'a Module,
    dependents: &'a Csr,
    pos: &'a [usize],
    /// Back over dependencies towards the ALLOC (σ positions ≥ `bound`), or forward over
    /// dependents towards the FREE (σ positions ≤ `bound`).
    back: bool,
    bound: usize,
}

impl Side<'_> {
    /// Calls `visit` on each neighbour of `v` inside the window.
    fn neighbours(&self, v: OpId, mut visit: impl FnMut(OpId)) {
        let inside = |n: OpId| {
            let p = self.pos[n.index()];
            if self.back {
                p >= self.bound
            } else {
                p <= self.bound
            }
        };
        if self.back {
            self.m
                .op(v)
                .deps
                .iter()
                .map(|d| d.op)
                .filter(|&n| inside(n))
                .for_each(&mut visit);
        } else {
            self.dependents
                .of(v.index())
                .iter()
                .copied()
                .filter(|&n| inside(n))
                .for_each(visit);
        }
    }
}

/// Marks of one side at a time; stamps make clearing them O(1).
struct Search {
    /// The current side's stamp.
    side: u32,
    /// The current walk's stamp.
    walk: u32,
    /// `side` on ops known to be on the side's path (after the ALLOC / before the FREE).
    reached: Vec<u32>,
    /// `side` on ops known not to be.
    unreached: Vec<u32>,
    /// `walk` on ops the current walk has queued.
    seen: Vec<u32>,
    /// The op each queued op was reached from.
    parent: Vec<OpId>,
    /// The current walk's queue, kept whole so that a walk that finds nothing can mark it.
    queue: Vec<OpId>,
    steps: u64,
}

impl Search {
    fn new(ops: usize) -> Self {
        Search {
            side: 0,
            walk: 0,
            reached: vec![0; ops],
            unreached: vec![0; ops],
            seen: vec![0; ops],
            parent: vec![OpId::new(0); ops],
            queue: Vec::new(),
            steps: 0,
        }
    }

    /// Starts a side whose path ends at `end` (the ALLOC or the FREE).
    fn start(&mut self, end: OpId) {
        self.side = self.side.wrapping_add(1);
        if self.side == 0 {
            // After 2³² sides the stamps could collide; start over with cleared marks.
            self.reached.fill(0);
            self.unreached.fill(0);
            self.side = 1;
        }
        self.reached[end.index()] = self.side;
    }

    /// Whether `op` is on the side's path, marking what it learns. Uses must come in σ order
    /// on the ALLOC side and in reverse σ order on the FREE side, so that the marked ops a use's
    /// own edges can reach are marked before it.
    fn settle(&mut self, side: &Side, op: OpId) -> bool {
        let mut direct = false;
        side.neighbours(op, |n| {
            self.steps += 1;
            direct |= self.reached[n.index()] == self.side;
        });
        if !direct && !self.walk_from(side, op) {
            return false;
        }
        self.reached[op.index()] = self.side;
        true
    }

    /// A breadth-first walk from `from` to the first op marked reached, marking the path found,
    /// or every op seen if there is none. Breadth first because lifecycle paths are short: a
    /// depth-first walk would wander through a long-lived buffer's whole window first.
    fn walk_from(&mut self, side: &Side, from: OpId) -> bool {
        self.walk = self.walk.wrapping_add(1);
        if self.walk == 0 {
            self.seen.fill(0);
            self.walk = 1;
        }
        let (walk, mark) = (self.walk, self.side);
        self.seen[from.index()] = walk;
        self.queue.clear();
        self.queue.push(from);
        let mut found = None;
        let mut head = 0;
        while let Some(&v) = self.queue.get(head) {
            head += 1;
            side.neighbours(v, |n| {
                self.steps += 1;
                let i = n.index();
                if found.is_some() || self.seen[i] == walk || self.unreached[i] == mark {
                    return;
                }
                self.seen[i] = walk;
                self.parent[i] = v;
                if self.reached[i] == mark {
                    found = Some(n);
                } else {
                    self.queue.push(n);
                }
            });
            if found.is_some() {
                break;
            }
        }
        let Some(mut v) = found else {
            for &v in &self.queue {
                self.unreached[v.index()] = mark;
            }
            return false;
        };
        while v != from {
            v = self.parent[v.index()];
            self.reached[v.index()] = mark;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    //! The work of the check against the module's size: on the families whose lifecycle paths
    //! run through uses of the buffer (a chain, a fan-in, a fan-out) or a few ops of other
    //! buffers (a chain whose links alternate between two buffers, random DAGs built that way),
    //! every edge is looked at a bounded number of times, at every size.

    use super::*;
    use crate::module::OpKind;
    use crate::parse_module;
    use proptest::prelude::*;
    use std::fmt::Write;

    const HEADER: &str = "module @m phase(parsed) {\n  target {\n    tiers UB = 1048576\n    \
                          pipes MTE2, MTE3, VECTOR\n    spill_out MTE3, spill_in MTE2, \
                          spill_cost = 1 + 1 * size\n    l0_exclusive = false\n  }\n";

    /// A module of `buffers` UB buffers, allocated first and freed last, and the ops `ops`
    /// lists in σ order as (buffers named, dependencies); op `i` is `%(buffers + i)`, and each
    /// FREE depends on the ops given in `frees[b]`.
    fn module(buffers: usize, ops: &[(Vec<usize>, Vec<usize>)], frees: &[Vec<usize>]) -> Module {
        let mut text = HEADER.to_owned();
        for b in 0..buffers {
            let _ = writeln!(text, "  buffer @b{b} : UB[16]");
        }
        for b in 0..buffers {
            let _ = writeln!(text, "  %{b} = alloc @b{b}");
        }
        let list = |ids: &mut dyn Iterator<Item = String>| ids.collect::<Vec<_>>().join(", ");
        for (i, (named, deps)) in ops.iter().enumerate() {
            let named = list(&mut named.iter().map(|b| format!("@b{b}")));
            let deps = list(&mut deps.iter().map(|d| format!("%{d}")));
            let after = if deps.is_empty() {
                String::new()
            } else {
                format!(" after({deps})")
            };
            let _ = writeln!(text, "  %{} = VADD VECTOR 1 ({named}){after}", buffers + i);
        }
        for (b, deps) in frees.iter().enumerate() {
            let deps = list(&mut deps.iter().map(|d| format!("%{d}")));
            let _ = writeln!(
                text,
                "  %{} = free @b{b} after({deps})",
                buffers + ops.len() + b
            );
        }
        text.push_str("}\n");
        parse_module(&text).expect("the generated module parses")
    }

    /// The check's result and its steps per edge (dependencies, at least one).
    fn check(m: &Module) -> (Vec<Missing>, f64) {
        let pos = m.schedule_positions();
        let (mut alloc, mut free) = (vec![None; m.buffers.len()], vec![None; m.buffers.len()]);
        for id in m.op_ids() {
            match m.op(id).kind {
                OpKind::Alloc { buffer, .. } => alloc[buffer.index()] = Some(id),
                OpKind::Free { buffer } => free[buffer.index()] = Some(id),
                _ => {}
            }
        }
        let spans: Vec<_> = alloc.iter().zip(&free).map(|(a, f)| a.zip(*f)).collect();
        let (missing, steps) = super::check(m, &pos, &spans);
        (missing, steps as f64 / m.dep_count().max(1) as f64)
    }

    fn chain(n: usize) -> Module {
        let ops: Vec<_> = (0..n).map(|i| (vec![0], vec![i])).collect();
        module(1, &ops, &[vec![n]])
    }

    fn fan_out(n: usize) -> Module {
        let ops: Vec<_> = (0..n).map(|_| (vec![0], vec![0])).collect();
        module(1, &ops, &[(1..=n).collect()])
    }

    fn fan_in(n: usize) -> Module {
        let mut ops: Vec<_> = (0..n).map(|_| (vec![0], vec![0])).collect();
        ops.push((vec![0], (1..=n).collect()));
        module(1, &ops, &[vec![n + 1]])
    }

    /// Links alternate between the buffers: each use of a buffer reaches the previous one only
    /// through an op of the other, so every use needs a walk of two steps.
    fn alternating(n: usize) -> Module {
        let ops: Vec<_> = (0..n)
            .map(|i| match i {
                0 => (vec![0], vec![0]),
                1 => (vec![1], vec![1, 2]),
                _ => (vec![i % 2], vec![i + 1]),
            })
            .collect();
        module(2, &ops, &[vec![n], vec![n + 1]])
    }

    #[test]
    fn the_linear_families_cost_a_bounded_number_of_steps_per_edge_at_every_size() {
        for family in [chain, fan_out, fan_in, alternating] {
            let mut per_edge = Vec::new();
            for n in [1_000, 8_000, 64_000] {
                let (missing, steps) = check(&family(n));
                assert!(
                    missing.is_empty(),
                    "{} missing, first {:?}",
                    missing.len(),
                    missing[0]
                );
                per_edge.push(steps);
            }
            assert!(
                per_edge.iter().all(|&s| s <= 8.0) && per_edge[2] <= per_edge[0] * 1.1,
                "steps per edge grow with the size: {per_edge:?}"
            );
        }
    }

    #[test]
    fn a_missing_path_is_reported_and_its_walk_is_not_repeated() {
        // Every use depends on the previous one, but the first on nothing: all uses miss their
        // ALLOC (and the FREE, after the last use, misses the ALLOC too), and each use's walk
        // stops at the ops the first walk found unreachable.
        let n = 8_000;
        let ops: Vec<_> = (0..n)
            .map(|i| (vec![0], if i == 0 { vec![] } else { vec![i] }))
            .collect();
        let (missing, steps) = check(&module(1, &ops, &[vec![n]]));
        assert_eq!(missing.len(), n + 1);
        assert!(steps <= 4.0, "{steps} steps per edge");
    }

    proptest! {
        /// Random DAGs whose lifecycle paths may pass through other buffers' ops: each op names
        /// one or two buffers and depends on one to three earlier ops chosen so that every
        /// lifecycle path exists (an op follows a buffer's ALLOC when one of its dependencies
        /// does); each FREE depends on the ops nothing later follows.
        #[test]
        fn random_dags_with_paths_through_other_ops_cost_steps_linear_in_their_edges(
            buffers in 1usize..12,
            picks in proptest::collection::vec((0usize..12, 0usize..12, 0usize..1000, 0usize..1000, any::<bool>()), 100..3000),
        ) {
            // after[i]: the buffers op i follows the ALLOC of (bit sets; at most 12 buffers).
            let mut after: Vec<u32> = (0..buffers).map(|b| 1 << b).collect();
            let mut ops = Vec::new();
            let mut used = vec![false; buffers + picks.len()];
            for (i, &(b1, b2, d1, d2, two)) in picks.iter().enumerate() {
                let id = buffers + i;
                let named = if two && b1 % buffers != b2 % buffers {
                    vec![b1 % buffers, b2 % buffers]
                } else {
                    vec![b1 % buffers]
                };
                // A dependency that follows every named ALLOC: the ALLOC itself, or an earlier op
                // that follows them all; plus one at random.
                let need: u32 = named.iter().map(|&b| 1u32 << b).sum();
                let candidates: Vec<usize> = (0..id).filter(|&o| after[o] & need == need).collect();
                let mut deps = if named.len() == 1 && candidates.len() > 1 {
                    vec![candidates[d1 % candidates.len()]]
                } else {
                    named.clone()
                };
                for &b in &named {
                    if !deps.iter().any(|&d| after[d] & (1 << b) != 0) {
                        deps.push(b);
                    }
                }
                deps.push(d2 % id);
                deps.sort_unstable();
                deps.dedup();
                let mut mine = need;
                for &d in &deps {
                    mine |= after[d];
                    used[d] = true;
                }
                after.push(mine);
                ops.push((named, deps));
            }
            // A FREE after every op that nothing follows and that follows its ALLOC.
            let sinks: Vec<usize> = (buffers..buffers + ops.len()).filter(|&o| !used[o]).collect();
            let frees: Vec<Vec<usize>> = (0..buffers)
                .map(|b| {
                    let mut deps: Vec<usize> =
                        sinks.iter().copied().filter(|&o| after[o] & (1 << b) != 0).collect();
                    deps.push(b);
                    deps
                })
                .collect();
            let (missing, steps) = check(&module(buffers, &ops, &frees));
            prop_assert!(missing.is_empty(), "{:?}", missing);
            prop_assert!(steps <= 12.0, "{} steps per edge", steps);
        }
    }
}
