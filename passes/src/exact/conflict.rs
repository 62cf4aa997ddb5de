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
//! The same holds between any two uses: a use u of a and a use v of b with u before v in σ lie
//! in residency segments that are disjoint along σ (u's first), so u reaches the end of its
//! segment, that end the start of v's through the address-reuse edges, and that start v.
//!
//! **A prefix fixes some of these paths.** Once a prefix of σ holds FREE(a) and not ALLOC(b)
//! (or holds ALLOC(b) after FREE(a)), every completion has FREE(a) before ALLOC(b). The bound is
//! the one of [`crate::analysis::makespan_bound`] (critical path, and Jackson's preemptive
//! one-pipe schedule with heads and tails for each pipe) over the DAG plus those edges, each of
//! 0 cycles: a timing that respects more edges cannot be shorter, and spill ops only add work and
//! edges. Pairs the prefix leaves open add nothing here (either order, or a spill, may come);
//! [`super::cases`] bounds over the ways they can be settled.
//!
//! **Reloads.** When a case of [`super::cases`] proves that some plan of every order in it holds a
//! SPILL_IN of a buffer after an op ends and before one of some ops starts, that SPILL_IN joins
//! the spill-in pipe as a job whose head is the op's end and whose tail is the least over those
//! ops of their cycles and tail (and an unbacked buffer's SPILL_OUT joins the spill-out pipe with
//! head and tail 0). One job per buffer: claims on one buffer may name the same SPILL_IN, so they
//! merge into the least head and least tail, which every claim implies.
//!
//! Cost: O(B²) to build for B buffers; a bound is O(V + E + C + X) for C pairs of conflicting
//! uses ordered by the prefix and X further edges (Kahn's algorithm orders the ops the prefix
//! leaves, since further edges may join two of them; a cycle means no order has those edges),
//! plus O(k log k) per pipe of k ops.

use crate::analysis::makespan_bound::{preemptive, Job};
use crate::analysis::Dag;
use lattice_lir::{Module, OpId};

/// A buffer with an ALLOC and a FREE, as the bound sees it.
pub struct Held {
    /// Its ALLOC.
    pub alloc: OpId,
    /// Its FREE.
    pub free: OpId,
    /// The ops that name it (its ALLOC and FREE among them), in the DAG's order.
    pub uses: Vec<OpId>,
    /// The buffers (indices of [`Conflicts::held`]) it conflicts with.
    pub conflicts: Vec<usize>,
    /// Cycles of one SPILL_IN of it, and of one SPILL_OUT (0 when backed).
    reload: u64,
    evict: u64,
}

/// A SPILL_IN that some plan of every order of a case holds: of buffer `held`, starting after
/// `after` ends, and before one of `before` starts.
#[derive(Clone, Debug)]
pub struct Reload {
    /// The buffer (an index of [`Conflicts::held`]).
    pub held: usize,
    /// The op it starts after.
    pub after: OpId,
    /// The ops one of which it precedes.
    pub before: Vec<OpId>,
}

/// A prefix as the bound sees it: the positions of its ops and the paths it fixes.
pub struct Fixed {
    /// Per op: its position in the prefix, or `usize::MAX`.
    pub pos: Vec<usize>,
    prefix: Vec<OpId>,
    /// Per op: the uses of conflicting buffers that the prefix puts before it.
    extra: Vec<Vec<OpId>>,
}

impl Fixed {
    /// Whether the prefix holds `v`.
    pub fn placed(&self, v: OpId) -> bool {
        self.pos[v.index()] != usize::MAX
    }
}

/// The conflicting pairs of a module, with what the bound needs of its DAG.
pub struct Conflicts<'a> {
    pub(super) dag: &'a Dag,
    /// Per op: its cycles and pipe (`windows` reads them too).
    pub(super) cycles: Vec<u64>,
    pub(super) pipe: Vec<Option<usize>>,
    pub(super) pipes: usize,
    spill_in: usize,
    spill_out: usize,
    /// The buffers with an ALLOC and a FREE.
    pub held: Vec<Held>,
}

impl<'a> Conflicts<'a> {
    /// The conflicting pairs of `module`, whose DAG is `dag`.
    pub fn of(module: &Module, dag: &'a Dag) -> Self {
        let mut held = Vec::new();
        let mut index = vec![None; module.buffers.len()];
        for b in module.buffer_ids() {
            if let (Some(alloc), Some(free)) = (dag.alloc_of[b.index()], dag.free_of[b.index()]) {
                index[b.index()] = Some(held.len());
                let buffer = module.buffer(b);
                let reload = module.target.spill_cost.cycles(buffer.size);
                held.push(Held {
                    alloc,
                    free,
                    uses: Vec::new(),
                    conflicts: Vec::new(),
                    reload,
                    evict: if buffer.backed { 0 } else { reload },
                });
            }
        }
        for &id in &dag.topo {
            let mut named = module.op(id).kind.buffers().to_vec();
            named.sort_unstable();
            named.dedup();
            for b in named {
                if let Some(i) = index[b.index()] {
                    held[i].uses.push(id);
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
                    held[i].conflicts.push(j);
                    held[j].conflicts.push(i);
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
            spill_in: module.target.spill_in_pipe.index(),
            spill_out: module.target.spill_out_pipe.index(),
            held,
        }
    }

    /// The positions of `prefix` (a legal prefix) and the paths it fixes.
    pub fn fix(&self, prefix: &[OpId]) -> Fixed {
        let n = self.cycles.len();
        let mut pos = vec![usize::MAX; n];
        for (i, &op) in prefix.iter().enumerate() {
            pos[op.index()] = i;
        }
        // Extra predecessors of the uses of each buffer: the uses of the buffers it conflicts
        // with that the prefix puts before them.
        let mut extra: Vec<Vec<OpId>> = vec![Vec::new(); n];
        for h in &self.held {
            for &v in &h.uses {
                for &a in &h.conflicts {
                    let before = self.held[a].uses.iter();
                    extra[v.index()].extend(before.filter(|u| pos[u.index()] < pos[v.index()]));
                }
            }
        }
        Fixed {
            pos,
            prefix: prefix.to_vec(),
            extra,
        }
    }

    /// The bound over the orders that start with `fixed`'s prefix and have paths `edges` (each
    /// `(u, v)`: u ends before v starts) and the SPILL_INs `reloads`; `u64::MAX` when the edges
    /// close a cycle (no order has them).
    pub fn evaluate(&self, fixed: &Fixed, edges: &[(OpId, OpId)], reloads: &[Reload]) -> u64 {
        let n = self.cycles.len();
        let pos = &fixed.pos;
        let mut extra_succs: Vec<Vec<OpId>> = vec![Vec::new(); n];
        let mut late_preds: Vec<Vec<OpId>> = vec![Vec::new(); n];
        for &(u, v) in edges {
            extra_succs[u.index()].push(v);
            late_preds[v.index()].push(u);
        }
        // The prefix, then the rest by Kahn's algorithm over the DAG and the further edges
        // (the prefix's own extra edges all leave the prefix).
        let unplaced = |v: OpId| pos[v.index()] == usize::MAX;
        let mut waiting = vec![0usize; n];
        let mut order: Vec<OpId> = fixed.prefix.clone();
        let mut ready = Vec::new();
        for &v in self.dag.topo.iter().filter(|&&v| unplaced(v)) {
            let dag_preds = self.dag.preds(v).iter().filter(|&&p| unplaced(p)).count();
            let late = late_preds[v.index()]
                .iter()
                .filter(|&&p| unplaced(p))
                .count();
            waiting[v.index()] = dag_preds + late;
            if waiting[v.index()] == 0 {
                ready.push(v);
            }
        }
        ready.reverse();
        while let Some(v) = ready.pop() {
            order.push(v);
            for &s in self.dag.succs(v).iter().chain(&extra_succs[v.index()]) {
                if unplaced(s) {
                    waiting[s.index()] -= 1;
                    if waiting[s.index()] == 0 {
                        ready.push(s);
                    }
                }
            }
        }
        if order.len() < self.dag.topo.len() {
            return u64::MAX;
        }
        let cycles = |v: OpId| self.cycles[v.index()];
        let preds = |v: OpId| {
            self.dag
                .preds(v)
                .iter()
                .chain(&fixed.extra[v.index()])
                .chain(&late_preds[v.index()])
        };
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
        // One SPILL_IN job per reloaded buffer, with the least head and tail of its claims.
        let mut claims: Vec<(usize, u64, u64)> = Vec::new();
        for r in reloads {
            let h = head[r.after.index()].saturating_add(cycles(r.after));
            let t = r
                .before
                .iter()
                .map(|w| cycles(*w).saturating_add(tail[w.index()]));
            let t = t.min().unwrap_or(0);
            match claims.iter_mut().find(|c| c.0 == r.held) {
                Some(c) => *c = (c.0, c.1.min(h), c.2.min(t)),
                None => claims.push((r.held, h, t)),
            }
        }
        for (held, h, t) in claims {
            let (reload, evict) = (self.held[held].reload, self.held[held].evict);
            best = best.max(h.saturating_add(reload).saturating_add(t));
            jobs[self.spill_in].push((h, reload, t));
            if evict > 0 {
                jobs[self.spill_out].push((0, evict, 0));
            }
        }
        for js in &mut jobs {
            best = best.max(preemptive(js));
        }
        best
    }
}
