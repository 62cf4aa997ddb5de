//! The `beam` portfolio member: a beam search over op orders for the least logical peak, read
//! off the graph's structure and buffer sizes alone, never off the input's numbering.
//!
//! A state is a set of executed ops of the precedence graph without L0 turns, with its live
//! bytes over the non-staging tiers (the logical peak's), the peak it has reached, and its open
//! main task (`super::tasks`). A step runs one ready op that is neither an ALLOC nor a FREE;
//! around it, an ALLOC that became ready is *deferred* (done for its successors, emitted right
//! before the first op that waits for it) and a FREE that became ready runs at once (both only
//! lower the peak). Each step keeps the `W` best children of the beam's states by (peak so far,
//! live bytes after the op and the FREEs it readies, structural key), one per structural key.
//!
//! L0 exclusivity and no deadlock, as in realization: a main task's ops run in one fixed
//! L0-exclusive order, and a main task may open only once every main task it waits for
//! (directly or through tasks that are not main) is closed. Then everything an open task's next
//! op waits for outside the task is an op of no main task whose own main ancestors are closed,
//! so it can run: no open task ever waits for another. The fixed order inside a task is the
//! nested decomposition's exclusive order (`crate::order::exclusive`) keyed by fingerprint —
//! not τ, which follows the numbering. Two openings ([`Opening`]), each a member:
//! - `Alone`: at most one main task is open at a time; a staging buffer belongs to one main
//!   task, so two are never live at once.
//! - `Guests`: a task that opens while no host is open is the *host*; another may open as a
//!   *guest* while its staging tiers (all it ever uses) are disjoint from the other guests'
//!   and from those where the host has a live buffer, and the host may not allocate in a tier
//!   of an open guest. So each tier has at most one live buffer (the host's or one guest's),
//!   a guest never waits for the host's tiers and always finishes (the rule above), and the
//!   host waits at most until the guests in its way have. Why: a random program runs short
//!   tasks (a move or a drain whose buffers only they use) while a long accumulation holds its
//!   L0C; keeping them out until it closes keeps their inputs live (gen-random-n1000-s1: the
//!   least peak found 3,820 alone, 2,892 with guests; docs/search.md).
//!
//! The structural key of a state is the sum of the fingerprints of the ops its steps ran
//! (`super::family::fingerprints`): the same for two numberings of one DAG, and for two states
//! that differ by a symmetry of it, which are worth the same, so keeping one of them is a
//! symmetry reduction, not a loss. Ids enter only where fingerprints tie, so two numberings of
//! one DAG can differ only where the refinement cannot tell ops apart.
//!
//! Why: on attention heads the least peak splits a key/value pair's use — every Q·Kᵀ, freeing
//! K tiles early, then the P·V phase — which neither the task-level members (a block's tasks
//! together) nor the op-level ones (the input's L0 turns) reach; a beam over ALLOCs and FREEs
//! does (docs/search.md).
//!
//! O(S · W · (R · (a + d²) + V/64)) for S steps (ops that are neither ALLOC nor FREE), width W
//! ([`WORK`] / V within [`MIN_WIDTH`]..=[`WIDTH`]), R ready ops per state, degree d and a the
//! ALLOCs a task defers before it opens (an open task keeps a cursor into its fixed order, so
//! finding its next op is amortised O(1) along a state's lineage), plus O(M · (T + E_T)) for the main tasks each main task waits for (M main tasks of
//! T, E_T task edges) and the exclusive order's cost; only on modules of at most [`BEAM_OPS`]
//! ops.

use super::tasks::{Class, Tasks};
use crate::order::exclusive::exclusive_order_retrying;
use crate::order::graph::{Graph, Role};
use lattice_lir::{BufferId, OpId};
use std::collections::HashSet;

/// Most states kept per step.
const WIDTH: usize = 256;
/// States × ops the beam may expand: its width is this over the module's ops, within
/// [`MIN_WIDTH`]..=[`WIDTH`], so its time stays about that of a 1,000-op module at full width.
const WORK: usize = 262_144;
/// Fewest states kept per step.
const MIN_WIDTH: usize = 8;
/// The largest module the beam orders: its bitset copies grow with V², and above this its width
/// is too small to find what the chains do not.
pub(crate) const BEAM_OPS: usize = 4096;
/// How many steps between two questions to `go_on`.
const ASK_EVERY: usize = 64;

/// One beam state.
#[derive(Clone)]
struct State {
    /// Executed ops, and deferred ALLOCs, one bit per op.
    done: Vec<u64>,
    /// Deferred ALLOCs not yet emitted.
    pending: Vec<u64>,
    /// Ready ops that are neither ALLOCs nor FREEs.
    ready: Vec<OpId>,
    /// The open main tasks: task, how many of its ops are still to run, and a cursor into its
    /// fixed order before which every op is done (so finding its next op is amortised O(1)).
    open: Vec<(usize, usize, usize)>,
    /// The open task that may allocate in any tier not held by a guest, if any.
    host: Option<usize>,
    /// The staging tiers where the host has a live buffer, one bit per tier.
    host_live: u64,
    /// The staging tiers of the open guests (every tier each may use), one bit per tier.
    guests: u64,
    /// Closed main tasks (every op run), one bit per task.
    closed: Vec<u64>,
    live: u64,
    peak: u64,
    /// Sum of the fingerprints of the ops its steps ran (ALLOCs and FREEs follow from them).
    key: u64,
    /// Index of this state's step record (its op list) in `trail`.
    trail: usize,
}

/// Which main tasks may be open together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// One main task at a time.
    Alone,
    /// A host and guests (see the module docs).
    Guests,
}

/// The beam's order of `graph` (built without L0 turns; `print`: its ops' fingerprints,
/// `super::family::fingerprints`), `None` when every state dead-ends, when guests are asked for
/// on a target with more than 64 staging tiers, or when `go_on` says stop (asked every
/// [`ASK_EVERY`] steps: a time limit).
pub(crate) fn beam(
    graph: &Graph<'_>,
    print: &[u64],
    tasks: &Tasks,
    opening: Opening,
    go_on: &dyn Fn() -> bool,
) -> Option<Vec<OpId>> {
    let n = graph.len();
    if n == 0 || n > BEAM_OPS {
        return None;
    }
    let width = (WORK / n).clamp(MIN_WIDTH, WIDTH);
    let module = graph.module;
    let main = |v: OpId| tasks.class[tasks.of_op[v.index()]] == Class::Main;
    let waits = main_waits(tasks);
    let counted = |b: BufferId| !module.target.tier(module.buffer(b).tier).staging;
    // Each main task's ops in an L0-exclusive order read off the structure (not τ, which
    // follows the input's numbering): the exclusive order by fingerprint, restricted.
    let keys: Vec<(u64, usize)> = (0..n).map(|v| (print[v], v)).collect();
    let xorder = exclusive_order_retrying(graph, &keys).ok()?;
    let mut inner: Vec<Vec<OpId>> = vec![Vec::new(); tasks.len()];
    for &v in &xorder {
        inner[tasks.of_op[v.index()]].push(v);
    }
    let guests = opening == Opening::Guests;
    // Each staging tier's bit in the tier masks, numbered among the staging tiers; guests need
    // one bit per staging tier, so they are left to modules with at most 64.
    let mut dense = vec![None; module.target.tiers.len()];
    for (bit, (i, _)) in (0u32..).zip(
        module
            .target
            .tiers
            .iter()
            .enumerate()
            .filter(|(_, t)| t.staging),
    ) {
        dense[i] = 1u64.checked_shl(bit);
    }
    if guests && module.target.tiers.iter().filter(|t| t.staging).count() > 64 {
        return None;
    }
    let staging_bit = |b: BufferId| dense[module.buffer(b).tier.index()];
    let mut tiers = vec![0u64; tasks.len()];
    for &k in &tasks.main {
        for &v in &tasks.ops[k] {
            for &b in module.op(v).kind.buffers() {
                tiers[k] |= staging_bit(b).unwrap_or(0);
            }
        }
    }
    let words = n.div_ceil(64);
    let is_done = |done: &[u64], v: OpId| done[v.index() / 64] >> (v.index() % 64) & 1 == 1;
    // Trail: per recorded step, (parent record, ops run in it); record 0 is the start.
    let mut trail: Vec<(usize, Vec<OpId>)> = vec![(usize::MAX, Vec::new())];

    let set = |bits: &mut [u64], v: usize| bits[v / 64] |= 1 << (v % 64);
    // Emits `u`: its bytes, its main task's bookkeeping, its place in the order.
    let emit = |s: &mut State, u: OpId, ran: &mut Vec<OpId>| {
        ran.push(u);
        match graph.role(u) {
            Role::Alloc(b) if counted(b) => {
                s.live += module.buffer(b).size;
                s.peak = s.peak.max(s.live);
            }
            Role::Free(b) if counted(b) => s.live -= module.buffer(b).size,
            _ => {}
        }
        if main(u) {
            let k = tasks.of_op[u.index()];
            let at = match s.open.iter().position(|&(open, _, _)| open == k) {
                Some(at) => at,
                None => {
                    s.open.push((k, tasks.ops[k].len(), 0));
                    if s.host.is_none() {
                        s.host = Some(k);
                    } else {
                        s.guests |= tiers[k];
                    }
                    s.open.len() - 1
                }
            };
            if s.host == Some(k) {
                match graph.role(u) {
                    Role::Alloc(b) => s.host_live |= staging_bit(b).unwrap_or(0),
                    Role::Free(b) => s.host_live &= !staging_bit(b).unwrap_or(0),
                    Role::Work => {}
                }
            }
            s.open[at].1 -= 1;
            let cursor = &mut s.open[at].2;
            while inner[k].get(*cursor).is_some_and(|&w| is_done(&s.done, w)) {
                *cursor += 1;
            }
            if s.open[at].1 == 0 {
                s.open.swap_remove(at);
                if s.host == Some(k) {
                    s.host = None;
                    s.host_live = 0;
                } else {
                    s.guests &= !tiers[k];
                }
                set(&mut s.closed, k);
            }
        }
    };
    // Runs `v` in `s`: first the deferred ALLOCs it waits for, then `v`, then every FREE that
    // became ready (each after the deferred ALLOCs it waits for); an ALLOC that becomes ready
    // is deferred — done for its successors, emitted before the first op that waits for it.
    let run = |s: &mut State, v: OpId, ran: &mut Vec<OpId>| {
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            let deferred = matches!(graph.role(u), Role::Alloc(_));
            set(&mut s.done, u.index());
            if deferred {
                set(&mut s.pending, u.index());
            } else {
                for &p in graph.preds(u) {
                    if is_done(&s.pending, p) {
                        s.pending[p.index() / 64] &= !(1 << (p.index() % 64));
                        emit(s, p, ran);
                    }
                }
                emit(s, u, ran);
            }
            for &w in graph.succs(u) {
                if is_done(&s.done, w) || !graph.preds(w).iter().all(|&p| is_done(&s.done, p)) {
                    continue;
                }
                match graph.role(w) {
                    Role::Free(_) | Role::Alloc(_) => stack.push(w),
                    Role::Work => s.ready.push(w),
                }
            }
        }
    };

    let is_closed = |s: &State, k: usize| s.closed[k / 64] >> (k % 64) & 1 == 1;
    // An op of a main task runs in its task's fixed order, in the open task or opening an
    // available one.
    let runnable = |s: &State, v: OpId| {
        let k = tasks.of_op[v.index()];
        let open = s.open.iter().find(|&&(open, _, _)| open == k);
        let from = open.map_or(0, |&(_, _, cursor)| cursor);
        let next = inner[k][from..].iter().find(|&&u| !is_done(&s.done, u));
        if next != Some(&v) {
            return false;
        }
        // The staging tiers `v`'s deferred ALLOCs take.
        let takes = graph
            .preds(v)
            .iter()
            .filter(|&&p| is_done(&s.pending, p))
            .filter_map(|&p| match graph.role(p) {
                Role::Alloc(b) => staging_bit(b),
                _ => None,
            })
            .fold(0, |a, t| a | t);
        if s.host == Some(k) {
            return takes & s.guests == 0;
        }
        if open.is_some() {
            return true;
        }
        if !waits[k].iter().all(|&w| is_closed(s, w)) {
            return false;
        }
        match s.host {
            None => (guests || s.open.is_empty()) && takes & s.guests == 0,
            Some(_) => guests && tiers[k] & (s.host_live | s.guests) == 0,
        }
    };
    let mut start = State {
        done: vec![0; words],
        pending: vec![0; words],
        ready: Vec::new(),
        open: Vec::new(),
        host: None,
        host_live: 0,
        guests: 0,
        closed: vec![0; tasks.len().div_ceil(64)],
        live: 0,
        peak: 0,
        key: 0,
        trail: 0,
    };
    let mut first = Vec::new();
    for v in (0..n).map(OpId::new) {
        if graph.preds(v).is_empty() {
            match graph.role(v) {
                Role::Free(_) | Role::Alloc(_) => run(&mut start, v, &mut first),
                Role::Work => start.ready.push(v),
            }
        }
    }
    trail[0].1 = first;
    let mut beam = vec![start];
    // Every step runs one op that is neither an ALLOC nor a FREE; those run in the closures.
    let steps = (0..n)
        .filter(|&v| matches!(graph.role(OpId::new(v)), Role::Work))
        .count();
    for step in 0..steps {
        if step % ASK_EVERY == 0 && !go_on() {
            return None;
        }
        // Every child, scored without building it: (peak, live, key, state index, ready index).
        let mut children: Vec<(u64, u64, u64, usize, usize)> = Vec::new();
        for (i, s) in beam.iter().enumerate() {
            for (j, &v) in s.ready.iter().enumerate() {
                if main(v) && !runnable(s, v) {
                    continue;
                }
                let (mut live, mut peak) = (s.live, s.peak);
                for &p in graph.preds(v) {
                    if let Role::Alloc(b) = graph.role(p) {
                        if is_done(&s.pending, p) && counted(b) {
                            live += module.buffer(b).size;
                        }
                    }
                }
                peak = peak.max(live);
                // FREEs that only wait for `v` lower the live bytes right after it.
                for &w in graph.succs(v) {
                    if let Role::Free(b) = graph.role(w) {
                        let waits_only_for_v = graph
                            .preds(w)
                            .iter()
                            .all(|&p| p == v || is_done(&s.done, p));
                        if waits_only_for_v && counted(b) {
                            live -= module.buffer(b).size;
                        }
                    }
                }
                let key = s.key.wrapping_add(print[v.index()]);
                children.push((peak, live, key, i, j));
            }
        }
        if children.is_empty() {
            return None;
        }
        children.sort_unstable_by_key(|&(peak, live, key, i, j)| {
            (peak, live, key, i, print[beam[i].ready[j].index()])
        });
        let mut kept: Vec<State> = Vec::with_capacity(width);
        let mut seen: HashSet<u64> = HashSet::new();
        for &(_, _, key, i, j) in &children {
            if kept.len() == width {
                break;
            }
            if !seen.insert(key) {
                continue;
            }
            let mut s = beam[i].clone();
            let v = s.ready.swap_remove(j);
            s.key = key;
            let mut ran = Vec::new();
            run(&mut s, v, &mut ran);
            trail.push((s.trail, ran));
            s.trail = trail.len() - 1;
            kept.push(s);
        }
        beam = kept;
    }
    // The best finished state's order, read back along its trail.
    let best = beam.iter().min_by_key(|s| (s.peak, s.key))?;
    let mut records = Vec::new();
    let mut at = best.trail;
    while at != usize::MAX {
        records.push(at);
        at = trail[at].0;
    }
    Some(
        records
            .into_iter()
            .rev()
            .flat_map(|k| trail[k].1.iter().copied())
            .collect(),
    )
}

/// Per main task, the main tasks it waits for, directly or through tasks that are not main.
fn main_waits(tasks: &Tasks) -> Vec<Vec<usize>> {
    let t = tasks.len();
    let mut waits = vec![Vec::new(); t];
    for &k in &tasks.main {
        let mut seen = vec![false; t];
        let mut stack = tasks.pred[k].clone();
        while let Some(p) = stack.pop() {
            if std::mem::replace(&mut seen[p], true) {
                continue;
            }
            if tasks.class[p] == Class::Main {
                waits[k].push(p);
            } else {
                stack.extend(tasks.pred[p].iter().copied());
            }
        }
    }
    waits
}
