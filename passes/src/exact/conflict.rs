//! A lower bound on the makespan of every order that starts with a given prefix, from buffers
//! that cannot share their tier: what lets the makespan walk pass over a prefix.
//!
//! **Conflicting buffers.** Two buffers a and b of one tier *conflict* when their sizes add up
//! to more than the tier's capacity: any two placements of them in the tier share a byte. If
//! FREE(a) comes before ALLOC(b) in σ, then whatever the plan (offsets, spills of a, b or any
//! other buffer), b's first residency segment (from its ALLOC) and a's last one (to its FREE)
//! share a byte x. Take the segments that hold x in σ order between them: each one's start gets
//! an address-reuse edge from the previous one's end (DESIGN §1.3: from the last occupant of
//! each byte it takes), and within a segment its start reaches its end (ALLOC → FREE in the
//! DAG; the spill dependencies SPILL_IN → the SPILL_OUT or FREE that ends it, ALLOC → the first
//! SPILL_OUT). So every plan's timing graph has a path from FREE(a) to ALLOC(b): b is allocated
//! only once a's last user has ended. CPE keeps the plan and the reuse dependencies σ implies
//! (`cpe::accept`), so this holds for the back end's final timing too.
//!
//! **A prefix fixes some of these paths.** Once a prefix of σ holds FREE(a) and not ALLOC(b)
//! (or holds ALLOC(b) after FREE(a)), every completion has FREE(a) before ALLOC(b). The bound is
//! the one of [`crate::analysis::makespan_bound`] (critical path, and Jackson's preemptive
//! one-pipe schedule with heads and tails for each pipe) over the DAG plus those edges, each of
//! 0 cycles: a timing that respects more edges cannot be shorter, and spill ops only add work and
//! edges. Pairs the prefix leaves open are left out (either order, or a spill, may come).
//!
//! Cost: O(B²) to build for B buffers; a bound is O(V + E + C) for C conflicting pairs, plus
//! O(k log k) per pipe of k ops.

use crate::analysis::makespan_bound::{preemptive, Job};
use crate::analysis::Dag;
use lattice_lir::{Module, OpId};

/// The conflicting pairs of a module, with what the bound needs of its DAG.
pub struct Conflicts<'a> {
    dag: &'a Dag,
    /// Per op: its cycles and pipe.
    cycles: Vec<u64>,
    pipe: Vec<Option<usize>>,
    pipes: usize,
    /// Per buffer with an ALLOC and a FREE: the ops that name it (its ALLOC and FREE among
    /// them), and the buffers it conflicts with.
    buffers: Vec<(Vec<OpId>, Vec<usize>)>,
}

impl<'a> Conflicts<'a> {
    /// The conflicting pairs of `module`, whose DAG is `dag`.
    pub fn of(module: &Module, dag: &'a Dag) -> Self {
        let mut buffers = Vec::new();
        let mut index = vec![None; module.buffers.len()];
        for b in module.buffer_ids() {
            if dag.alloc_of[b.index()].is_some() && dag.free_of[b.index()].is_some() {
                index[b.index()] = Some(buffers.len());
                buffers.push((Vec::new(), Vec::new()));
            }
        }
        for id in module.op_ids().filter(|&id| dag.has(id)) {
            let mut named = module.op(id).kind.buffers().to_vec();
            named.sort_unstable();
            named.dedup();
            for b in named {
                if let Some(i) = index[b.index()] {
                    buffers[i].0.push(id);
                }
            }
        }
        for a in module.buffer_ids() {
            for b in module.buffer_ids().filter(|&b| b > a) {
                let (x, y) = (module.buffer(a), module.buffer(b));
                let (Some(i), Some(j)) = (index[a.index()], index[b.index()]) else {
                    continue;
                };
                let capacity = module.target.tier(x.tier).capacity;
                if x.tier == y.tier && x.size.saturating_add(y.size) > capacity {
                    buffers[i].1.push(j);
                    buffers[j].1.push(i);
                }
            }
        }
        Conflicts {
            dag,
            cycles: module.ops.iter().map(|op| op.kind.cycles()).collect(),
            pipe: module
                .ops
                .iter()
                .map(|op| op.kind.pipe().map(|p| p.index()))
                .collect(),
            pipes: module.target.pipes.len(),
            buffers,
        }
    }

    /// The bound over every legal order of the module that starts with `prefix` (a legal prefix).
    pub fn bound(&self, prefix: &[OpId]) -> u64 {
        let n = self.cycles.len();
        let mut pos = vec![usize::MAX; n];
        for (i, &op) in prefix.iter().enumerate() {
            pos[op.index()] = i;
        }
        // Extra predecessors of the uses of each buffer: the uses of the buffers it conflicts
        // with that the prefix puts before them.
        let mut extra: Vec<Vec<OpId>> = vec![Vec::new(); n];
        for (uses, conflicts) in &self.buffers {
            for &v in uses {
                for &a in conflicts {
                    let before = self.buffers[a].0.iter();
                    extra[v.index()].extend(before.filter(|u| pos[u.index()] < pos[v.index()]));
                }
            }
        }
        // The prefix, then the rest in the DAG's order: every extra edge leaves the prefix.
        let rest = self
            .dag
            .topo
            .iter()
            .filter(|v| pos[v.index()] == usize::MAX);
        let order: Vec<OpId> = prefix.iter().chain(rest).copied().collect();
        let cycles = |v: OpId| self.cycles[v.index()];
        let preds = |v: OpId| self.dag.preds(v).iter().chain(&extra[v.index()]);
        let mut head = vec![0u64; n];
        for &v in &order {
            let start = preds(v).map(|p| head[p.index()].saturating_add(cycles(*p)));
            head[v.index()] = start.max().unwrap_or(0);
        }
        let mut tail = vec![0u64; n];
        for &v in order.iter().rev() {
            let after = cycles(v).saturating_add(tail[v.index()]);
            for p in preds(v) {
                tail[p.index()] = tail[p.index()].max(after);
            }
        }
        let mut best = 0u64;
        let mut jobs: Vec<Vec<Job>> = vec![Vec::new(); self.pipes];
        for &v in &order {
            let (h, c, t) = (head[v.index()], cycles(v), tail[v.index()]);
            best = best.max(h.saturating_add(c).saturating_add(t));
            if let Some(p) = self.pipe[v.index()] {
                jobs[p].push((h, c, t));
            }
        }
        for js in &mut jobs {
            best = best.max(preemptive(js));
        }
        best
    }
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::analysis::any_order_bounds;
    use crate::dlr::plan_in;
    use crate::exact::report::{squeezed, PERCENTS};
    use crate::exact::seed::tightened;
    use crate::generate::{generate, random_topological, GenSpec, Shape};
    use crate::search::score::Evaluator;
    use crate::search::{BackEnd, Objective};
    use lattice_lir::Phase;

    #[test]
    fn no_prefix_bound_exceeds_the_back_ends_makespan_of_an_order_that_starts_with_it() {
        let back_end = BackEnd::default();
        let (mut orders, mut above_root) = (0, 0);
        for shape in Shape::ALL {
            for nodes in [10, 14, 18, 24, 30] {
                for percent in PERCENTS {
                    let generated = generate(&GenSpec {
                        shape,
                        nodes,
                        seed: nodes as u64,
                    });
                    let m = Module {
                        phase: Phase::Scheduled,
                        ..squeezed(&generated, percent)
                    };
                    let dag = Dag::of(&m).expect("acyclic");
                    let conflicts = Conflicts::of(&m, &dag);
                    let root = conflicts.bound(&[]);
                    assert!(root >= any_order_bounds(&m).expect("bounds").makespan);
                    let evaluator = Evaluator::new(&m, Objective::Makespan, &back_end);
                    for seed in 0..6 {
                        let order = if seed == 0 {
                            dag.topo.clone()
                        } else {
                            random_topological(&m, seed).expect("a valid module orders")
                        };
                        let Ok(planned) = plan_in(&m, &order, &back_end.dlr) else {
                            continue;
                        };
                        let tight = tightened(&m, &planned.module);
                        let makespan = evaluator.finish(&tight).expect("plans").makespan;
                        for k in 0..=tight.len() {
                            let b = conflicts.bound(&tight[..k]);
                            assert!(b <= makespan, "{} prefix {k}: {b} > {makespan}", m.name);
                        }
                        orders += 1;
                        above_root += usize::from(conflicts.bound(&tight) > root);
                    }
                }
            }
        }
        // The bound is checked on many orders, and a whole order's often exceeds the root's.
        assert!(orders >= 400, "{orders}");
        assert!(above_root * 4 >= orders, "{above_root} of {orders}");
    }
}
