//! HMCOS's hierarchical graph over the A0 op graph (baselines.md §3.1 steps 1–3 [SRC
//! `wzh99/HMCOS` `src/core/hier.cpp`, `src/sched/pass.cpp`], instantiated as §3.2 [ADAPT]):
//! commands are joined into *sequences*, and sequences into *groups* that the scheduler runs as
//! one vertex.
//!
//! - **Join** (`JoinSequencePass`): walking commands in topological order, a sequence absorbs its
//!   successor while it has exactly one successor, that successor has exactly one predecessor,
//!   and appending it raises neither any tier's stable state above the sequence's maximum so far
//!   nor any tier's transient state above the latest one (per-tier form of the source rule; the
//!   static increments are the bytes a command allocates in every order, the decrements those it
//!   frees in every order — the source's "killed" inputs, whose other users all precede it).
//! - **Groups** (`MakeGroupPass`): dominators and post-dominators of the sequence graph with a
//!   virtual source and sink (so no arbitrary "first input" is needed). Cell outputs — sequences
//!   whose first command merges two or more predecessors (`cell-out=merge`, the analogue of a
//!   NAS cell's Concat), or sink sequences (`cell-out=sink`) — are visited in reverse post-order;
//!   each ungrouped one forms a *cell group* with every ungrouped sequence it post-dominates that
//!   a backward walk reaches, and an *intruded group* from the downward-closed subset of the
//!   sequences it dominates that leaves the fewest bytes still needed outside (ties: the larger
//!   subset), when that subset has more than two sequences. The exhaustive subset search stops
//!   at `intrude-max-subsets` subsets and then intrudes nothing; a lower bound on the number of
//!   downward-closed subsets (from the region's longest-path levels) settles "over the cap"
//!   without enumerating, which changes no result.
//!
//! Invariants: sequences are chains of the op graph and partition the commands; groups are
//! disjoint, have at least two sequences, are convex (no path leaves and re-enters one), and the
//! graph with each group contracted is acyclic — a group failing a check is not formed (convexity)
//! or dissolved again (a cycle through several groups, latest group first). Deterministic: every
//! walk goes by topological position or index.
//!
//! The passes run on the transitive reduction of the op graph (same orders, no redundant edges).
//!
//! Complexity: O(V · E / 64) time and O(V² / 64) words for the reduction (21 MB on the 13K
//! commands of Matmul_Case1: this bound, not time, limits the graph sizes HMCOS takes), O(V + E)
//! for the join, O(S · E_S) worst case for the iterative dominators (fast on DAGs in reverse
//! post-order), per group O(its region) for the walks plus the subset search capped at
//! `intrude-max-subsets` subsets, and O(V + E) per dissolution check.

use super::frontier_dp::KeyHasher;
use super::projection::{Projection, NONE};
use lattice::option_enum;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashSet};
use std::hash::BuildHasherDefault;

option_enum! {
    /// Which sequences end a cell (HMCOS's `isCellOut` hook).
    pub enum CellOut {
        /// Sequences whose first command has two or more predecessors.
        Merge = "merge",
        /// Sequences without successors.
        Sink = "sink",
    }
}

/// The hierarchy of one op graph.
pub(crate) struct Hierarchy {
    /// Commands of each sequence, in run order.
    pub(crate) seqs: Vec<Vec<u32>>,
    /// Sequence of every command.
    pub(crate) seq_of: Vec<u32>,
    /// Sequences each sequence waits for (ascending).
    pub(crate) preds: Vec<Vec<u32>>,
    /// Sequences waiting for each sequence (ascending).
    pub(crate) succs: Vec<Vec<u32>>,
    /// Position of each sequence in a topological order.
    pub(crate) topo: Vec<u32>,
    /// Member sequences of each group, by topological position; dissolved groups are empty.
    pub(crate) groups: Vec<Vec<u32>>,
    /// Group of every sequence ([`NONE`] when top-level).
    pub(crate) group_of: Vec<u32>,
}

/// Builds the hierarchy of `proj`.
pub(crate) fn build(proj: &Projection<'_>, cell_out: CellOut, max_subsets: usize) -> Hierarchy {
    let order = topological(proj);
    let dataflow = reduce(proj, &order);
    let (seqs, seq_of) = join(proj, &dataflow, &order);
    let s = seqs.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); s];
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); s];
    for (i, seq) in seqs.iter().enumerate() {
        let mut out: Vec<u32> = seq
            .iter()
            .flat_map(|&u| &dataflow.succs[u as usize])
            .map(|&w| seq_of[w as usize])
            .filter(|&t| t != i as u32)
            .collect();
        out.sort_unstable();
        out.dedup();
        for &t in &out {
            preds[t as usize].push(i as u32);
        }
        succs[i] = out;
    }
    // Sequences were numbered in topological order of their first commands.
    let topo: Vec<u32> = (0..s as u32).collect();
    let mut h = Hierarchy {
        seqs,
        seq_of,
        preds,
        succs,
        topo,
        groups: Vec::new(),
        group_of: vec![NONE; s],
    };
    make_groups(&mut h, proj, &dataflow, cell_out, max_subsets);
    h
}

impl Hierarchy {
    /// Dissolves group `g`: its sequences become top-level.
    pub(crate) fn ungroup(&mut self, g: u32) -> bool {
        let members = std::mem::take(&mut self.groups[g as usize]);
        for &m in &members {
            self.group_of[m as usize] = NONE;
        }
        !members.is_empty()
    }

    /// The group's sequences in HMCOS's RPO [SRC `include/hmcos/core/vertex.hpp` `RpoIter`]:
    /// from the exits (members with no successor inside), a DFS over predecessors inside the
    /// group, each sequence after all its predecessors; the commands of those sequences.
    pub(crate) fn group_rpo(&self, g: u32) -> Vec<u32> {
        let members = &self.groups[g as usize];
        let inside = |x: u32| self.group_of[x as usize] == g;
        let mut visited: BTreeSet<u32> = BTreeSet::new();
        let mut order = Vec::new();
        for &exit in members {
            if self.succs[exit as usize].iter().any(|&t| inside(t)) || !visited.insert(exit) {
                continue;
            }
            let mut stack = vec![(exit, 0usize)];
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if let Some(&p) = self.preds[v as usize].get(*next) {
                    *next += 1;
                    if inside(p) && visited.insert(p) {
                        stack.push((p, 0));
                    }
                } else {
                    // Every predecessor inside was emitted: the graph is acyclic.
                    order.push(v);
                    stack.pop();
                }
            }
        }
        order
            .iter()
            .flat_map(|&x| self.seqs[x as usize].iter().copied())
            .collect()
    }
}

/// Kahn by smallest index: a deterministic topological order of the commands. O((V + E) log V).
fn topological(proj: &Projection<'_>) -> Vec<u32> {
    let n = proj.len();
    let mut missing: Vec<usize> = (0..n as u32).map(|u| proj.preds(u).len()).collect();
    let mut ready: BinaryHeap<Reverse<u32>> = (0..n as u32)
        .filter(|&u| missing[u as usize] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(u)) = ready.pop() {
        order.push(u);
        for &w in proj.succs(u) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                ready.push(Reverse(w));
            }
        }
    }
    order
}

/// The op graph without its redundant edges (u → v when another path leads from u to v), the
/// dataflow-like graph HMCOS's passes expect: the projection adds, e.g., the edge "writer of an
/// L0 buffer → writer of the next buffer of that tier" beside the path through the buffer's
/// reader, which would make every such writer a fork. Same reachability, so the same orders.
struct Dataflow {
    succs: Vec<Vec<u32>>,
    preds: Vec<Vec<u32>>,
    /// Descendants of every command, `words` bits per command.
    reach: Vec<u64>,
    words: usize,
}

impl Dataflow {
    /// Whether `v` is a descendant of `u`.
    fn reaches(&self, u: u32, v: u32) -> bool {
        self.reach[u as usize * self.words + v as usize / 64] >> (v % 64) & 1 == 1
    }
}

/// Transitive reduction along a topological `order`: in reverse order, each command keeps the
/// successors (by topological position) not reachable from a kept one. O(V · E / 64) time,
/// O(V² / 64) words.
fn reduce(proj: &Projection<'_>, order: &[u32]) -> Dataflow {
    let n = proj.len();
    let words = n.div_ceil(64).max(1);
    let mut position = vec![0usize; n];
    for (p, &u) in order.iter().enumerate() {
        position[u as usize] = p;
    }
    let mut reach = vec![0u64; n * words];
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut covered = vec![0u64; words];
    for &u in order.iter().rev() {
        let mut near = proj.succs(u).to_vec();
        near.sort_by_key(|&v| position[v as usize]);
        covered.iter_mut().for_each(|w| *w = 0);
        for v in near {
            let (vw, vb) = (v as usize / 64, v % 64);
            if covered[vw] >> vb & 1 == 1 {
                continue;
            }
            covered[vw] |= 1 << vb;
            let row = &reach[v as usize * words..(v as usize + 1) * words];
            for (c, r) in covered.iter_mut().zip(row) {
                *c |= r;
            }
            succs[u as usize].push(v);
        }
        succs[u as usize].sort_unstable();
        reach[u as usize * words..(u as usize + 1) * words].copy_from_slice(&covered);
    }
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (u, list) in succs.iter().enumerate() {
        for &v in list {
            preds[v as usize].push(u as u32);
        }
    }
    Dataflow {
        succs,
        preds,
        reach,
        words,
    }
}

/// The join pass: sequences in topological order of their first commands.
fn join(proj: &Projection<'_>, dataflow: &Dataflow, order: &[u32]) -> (Vec<Vec<u32>>, Vec<u32>) {
    let model = &proj.model;
    let tiers = model.tiers();
    let n = proj.len();
    // Static per-command increments and decrements (bytes per tier): what a command allocates in
    // every order (its buffer's other openers all come after it) and frees in every order (the
    // buffer's other closers all come before it: the source's "killed" inputs).
    let mut inc = vec![0i64; n * tiers];
    let mut dec = vec![0i64; n * tiers];
    for item in model.items() {
        let first = item.openers.iter().copied().find(|&v| {
            item.openers
                .iter()
                .all(|&w| w == v || dataflow.reaches(v, w))
        });
        if let Some(v) = first {
            inc[v as usize * tiers + item.tier] += item.size as i64;
        }
        let last = item.closers.iter().copied().find(|&v| {
            item.closers
                .iter()
                .all(|&w| w == v || dataflow.reaches(w, v))
        });
        if let Some(v) = last {
            dec[v as usize * tiers + item.tier] += item.size as i64;
        }
    }
    let mut seq_of = vec![NONE; n];
    let mut seqs: Vec<Vec<u32>> = Vec::new();
    for &v in order {
        if seq_of[v as usize] != NONE {
            continue;
        }
        let id = seqs.len() as u32;
        seq_of[v as usize] = id;
        let mut seq = vec![v];
        let row = |x: &Vec<i64>, u: u32| x[u as usize * tiers..(u as usize + 1) * tiers].to_vec();
        let mut max = row(&inc, v);
        let mut latest: Vec<i64> = max.iter().zip(row(&dec, v)).map(|(s, d)| s - d).collect();
        let mut cur = v;
        while let [next] = dataflow.succs[cur as usize][..] {
            if dataflow.preds[next as usize].len() != 1 || seq_of[next as usize] != NONE {
                break;
            }
            let stable: Vec<i64> = latest
                .iter()
                .zip(row(&inc, next))
                .map(|(l, i)| l + i)
                .collect();
            let transient: Vec<i64> = stable
                .iter()
                .zip(row(&dec, next))
                .map(|(s, d)| s - d)
                .collect();
            let raises = stable.iter().zip(&max).any(|(s, m)| s > m)
                || transient.iter().zip(&latest).any(|(t, l)| t > l);
            if raises {
                break;
            }
            for (m, s) in max.iter_mut().zip(&stable) {
                *m = (*m).max(*s);
            }
            latest = transient;
            seq_of[next as usize] = id;
            seq.push(next);
            cur = next;
        }
        seqs.push(seq);
    }
    (seqs, seq_of)
}

/// Immediate dominators of a DAG given as adjacency with a virtual entry `entry` (Cooper, Harvey
/// and Kennedy's iteration over reverse post-order). `preds[v]` are the predecessors in the
/// direction of domination.
fn dominators(succs: &[Vec<u32>], preds: &[Vec<u32>], entry: u32) -> (Vec<u32>, Vec<u32>) {
    let n = succs.len();
    // Reverse post-order from the entry, iterative.
    let mut rpo = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(entry, 0usize)];
    seen[entry as usize] = true;
    while let Some(&mut (v, ref mut next)) = stack.last_mut() {
        if let Some(&w) = succs[v as usize].get(*next) {
            *next += 1;
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push((w, 0));
            }
        } else {
            rpo.push(v);
            stack.pop();
        }
    }
    rpo.reverse();
    let mut rank = vec![u32::MAX; n];
    for (i, &v) in rpo.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    let mut idom = vec![NONE; n];
    idom[entry as usize] = entry;
    let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
        while a != b {
            while rank[a as usize] > rank[b as usize] {
                a = idom[a as usize];
            }
            while rank[b as usize] > rank[a as usize] {
                b = idom[b as usize];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in rpo.iter().skip(1) {
            let mut new = NONE;
            for &p in &preds[v as usize] {
                if idom[p as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if new != NONE && idom[v as usize] != new {
                idom[v as usize] = new;
                changed = true;
            }
        }
    }
    (idom, rpo)
}

/// Pre/post numbers of a tree given by parent pointers, for O(1) ancestor tests.
fn tree_numbers(idom: &[u32], root: u32) -> (Vec<u32>, Vec<u32>) {
    let n = idom.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n as u32 {
        let p = idom[v as usize];
        if v != root && p != NONE {
            children[p as usize].push(v);
        }
    }
    let (mut pre, mut post) = (vec![0u32; n], vec![0u32; n]);
    let mut clock = 0u32;
    let mut stack = vec![(root, 0usize)];
    pre[root as usize] = clock;
    while let Some(&mut (v, ref mut next)) = stack.last_mut() {
        if let Some(&c) = children[v as usize].get(*next) {
            *next += 1;
            clock += 1;
            pre[c as usize] = clock;
            stack.push((c, 0));
        } else {
            clock += 1;
            post[v as usize] = clock;
            stack.pop();
        }
    }
    (pre, post)
}

fn make_groups(
    h: &mut Hierarchy,
    proj: &Projection<'_>,
    dataflow: &Dataflow,
    cell_out: CellOut,
    max_subsets: usize,
) {
    let s = h.seqs.len();
    let (source, sink) = (s as u32, s as u32 + 1);
    let mut fwd: Vec<Vec<u32>> = h.succs.clone();
    let mut bwd: Vec<Vec<u32>> = h.preds.clone();
    fwd.push(Vec::new());
    fwd.push(Vec::new());
    bwd.push(Vec::new());
    bwd.push(Vec::new());
    for v in 0..s as u32 {
        if h.preds[v as usize].is_empty() {
            fwd[source as usize].push(v);
            bwd[v as usize].push(source);
        }
        if h.succs[v as usize].is_empty() {
            fwd[v as usize].push(sink);
            bwd[sink as usize].push(v);
        }
    }
    let (idom, rpo) = dominators(&fwd, &bwd, source);
    let (ipdom, _) = dominators(&bwd, &fwd, sink);
    let (dpre, dpost) = tree_numbers(&idom, source);
    let (ppre, ppost) = tree_numbers(&ipdom, sink);
    let dominates = |a: u32, b: u32| {
        idom[b as usize] != NONE
            && dpre[a as usize] <= dpre[b as usize]
            && dpost[b as usize] <= dpost[a as usize]
    };
    let postdominates = |a: u32, b: u32| {
        ipdom[b as usize] != NONE
            && ppre[a as usize] <= ppre[b as usize]
            && ppost[b as usize] <= ppost[a as usize]
    };
    let cell_outs: Vec<bool> = (0..s)
        .map(|v| match cell_out {
            CellOut::Merge => dataflow.preds[h.seqs[v][0] as usize].len() >= 2,
            CellOut::Sink => h.succs[v].is_empty(),
        })
        .collect();
    // Membership of the current cell and intrusion region, stamped with the cell output's rank
    // (dense arrays rather than ordered sets: thousands of regions, up to thousands of members).
    let mut marks = Marks {
        stamp: 0,
        cell: vec![0; s],
        region: vec![0; s],
        local: vec![0; s],
    };
    for &o in &rpo {
        if o >= s as u32 || h.group_of[o as usize] != NONE || !cell_outs[o as usize] {
            continue;
        }
        marks.stamp += 1;
        let stamp = marks.stamp;
        // Cell group: o and the ungrouped sequences it post-dominates, walking backwards.
        let mut cell = vec![o];
        marks.cell[o as usize] = stamp;
        let mut i = 0;
        while i < cell.len() {
            let x = cell[i];
            i += 1;
            for &p in &h.preds[x as usize] {
                if h.group_of[p as usize] == NONE
                    && marks.cell[p as usize] != stamp
                    && postdominates(o, p)
                {
                    marks.cell[p as usize] = stamp;
                    cell.push(p);
                }
            }
        }
        add_group(h, cell);
        // Intrusion: the ungrouped sequences o strictly dominates, forwards. A region of
        // `max_subsets` sequences already has more downward-closed subsets than the cap.
        let mut dominated = Vec::new();
        let mut queue = vec![o];
        while let Some(x) = queue.pop() {
            if dominated.len() >= max_subsets {
                break;
            }
            for &t in &h.succs[x as usize] {
                if t < s as u32
                    && h.group_of[t as usize] == NONE
                    && marks.region[t as usize] != stamp
                    && dominates(o, t)
                {
                    marks.region[t as usize] = stamp;
                    dominated.push(t);
                    queue.push(t);
                }
            }
        }
        if dominated.len() >= max_subsets {
            continue;
        }
        dominated.sort_by_key(|&d| h.topo[d as usize]);
        for (i, &x) in dominated.iter().enumerate() {
            marks.local[x as usize] = i as u32;
        }
        if let Some(intruded) = intrusion(h, proj, o, &marks, &dominated, max_subsets) {
            if intruded.len() > 2 {
                add_group(h, intruded);
            }
        }
    }
    // A cycle through several contracted groups: dissolve the latest group on it, repeat.
    while let Some(g) = cyclic_group(h) {
        h.ungroup(g);
    }
}

/// Which sequences belong to the cell and the intrusion region of the current cell output:
/// those whose entry equals `stamp`; `local` numbers the region's members in topological order.
struct Marks {
    stamp: u32,
    cell: Vec<u32>,
    region: Vec<u32>,
    local: Vec<u32>,
}

/// Records `members` as a group when there are at least two and no path leaves and re-enters it.
fn add_group(h: &mut Hierarchy, mut members: Vec<u32>) {
    if members.len() < 2 {
        return;
    }
    members.sort_by_key(|&m| h.topo[m as usize]);
    let inside: BTreeSet<u32> = members.iter().copied().collect();
    let last = h.topo[*members.last().unwrap_or(&0) as usize];
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut stack: Vec<u32> = members
        .iter()
        .flat_map(|&m| h.succs[m as usize].iter().copied())
        .filter(|t| !inside.contains(t))
        .collect();
    while let Some(x) = stack.pop() {
        if h.topo[x as usize] > last || !seen.insert(x) {
            continue;
        }
        for &t in &h.succs[x as usize] {
            if inside.contains(&t) {
                return;
            }
            stack.push(t);
        }
    }
    let g = h.groups.len() as u32;
    for &m in &members {
        h.group_of[m as usize] = g;
    }
    h.groups.push(members);
}

/// The best intrusion subset of `dominated` (topologically sorted; downward closed within it):
/// fewest bytes of buffers opened by o or the subset that something outside the cell and the
/// subset still closes, then the most sequences, then the first enumerated. `None` when there
/// are more than `max_subsets` downward-closed subsets.
///
/// Breadth-first over subsets, each one larger than its parent by one addable sequence, with
/// 128-bit Zobrist codes for duplicates and the score updated by the added sequence only:
/// O(max_subsets · (|D|/64 + touched buffers · closers)).
fn intrusion(
    h: &Hierarchy,
    proj: &Projection<'_>,
    o: u32,
    marks: &Marks,
    dominated: &[u32],
    max_subsets: usize,
) -> Option<Vec<u32>> {
    let d = dominated.len();
    if d == 0 {
        return Some(Vec::new());
    }
    let local = |x: u32| {
        (marks.region.get(x as usize) == Some(&marks.stamp))
            .then(|| marks.local[x as usize] as usize)
    };
    let words = d.div_ceil(64);
    let member = |set: &[u64], i: usize| set[i / 64] >> (i % 64) & 1 == 1;
    let in_preds: Vec<Vec<usize>> = dominated
        .iter()
        .map(|&x| {
            h.preds[x as usize]
                .iter()
                .filter_map(|&p| local(p))
                .collect()
        })
        .collect();
    if ideals_lower_bound(&in_preds) > max_subsets {
        return None;
    }
    let in_succs: Vec<Vec<usize>> = dominated
        .iter()
        .map(|&x| {
            h.succs[x as usize]
                .iter()
                .filter_map(|&t| local(t))
                .collect()
        })
        .collect();
    // Buffers o or a member opens: producer (None for o), size, closers in D, closed elsewhere
    // (outside the cell and D) too.
    struct Output {
        producer: Option<usize>,
        size: u64,
        in_d: Vec<usize>,
        elsewhere: bool,
    }
    let mut outputs: Vec<Output> = Vec::new();
    let producers =
        std::iter::once((o, None)).chain(dominated.iter().enumerate().map(|(i, &x)| (x, Some(i))));
    for (seq, producer) in producers {
        let mut items: Vec<u32> = h.seqs[seq as usize]
            .iter()
            .flat_map(|&u| proj.model.opens(u).iter().copied())
            .collect();
        items.sort_unstable();
        items.dedup();
        for j in items {
            let item = &proj.model.items()[j as usize];
            let mut in_d = Vec::new();
            let mut elsewhere = false;
            for &w in &item.closers {
                let x = h.seq_of[w as usize];
                match local(x) {
                    Some(i) => in_d.push(i),
                    None => elsewhere |= marks.cell[x as usize] != marks.stamp,
                }
            }
            in_d.sort_unstable();
            in_d.dedup();
            outputs.push(Output {
                producer,
                size: item.size,
                in_d,
                elsewhere,
            });
        }
    }
    let mut produced: Vec<Vec<usize>> = vec![Vec::new(); d];
    let mut closing: Vec<Vec<usize>> = vec![Vec::new(); d];
    for (k, out) in outputs.iter().enumerate() {
        if let Some(p) = out.producer {
            produced[p].push(k);
        }
        for &i in &out.in_d {
            closing[i].push(k);
        }
    }
    let code = |i: usize| -> u128 {
        let mix = |mut z: u64| {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        (u128::from(mix(i as u64 ^ 0x5151)) << 64) | u128::from(mix(i as u64 + 0x0F0F))
    };
    // Latest closer first: in a downward-closed subset it is the one most likely missing.
    let needed = |out: &Output, set: &[u64]| {
        out.elsewhere || out.in_d.iter().rev().any(|&i| !member(set, i))
    };
    // Subset k: bits, hash, score, size, and its addable sequences (frontier).
    let mut bits: Vec<u64> = vec![0; words];
    let mut hashes: Vec<u128> = vec![0];
    let mut scores: Vec<u64> = vec![outputs
        .iter()
        .filter(|out| out.producer.is_none() && needed(out, &vec![0; words]))
        .map(|out| out.size)
        .sum()];
    let mut sizes: Vec<u32> = vec![0];
    // Frontiers of all subsets, flat: subset k's is front[front_start[k]..front_start[k + 1]].
    let mut front: Vec<usize> = (0..d).filter(|&i| in_preds[i].is_empty()).collect();
    let mut front_start: Vec<usize> = vec![0, front.len()];
    let mut seen: HashSet<u128, BuildHasherDefault<KeyHasher>> = HashSet::default();
    seen.insert(0);
    let mut k = 0;
    while k < hashes.len() {
        for f in front_start[k]..front_start[k + 1] {
            let i = front[f];
            let hash = hashes[k] ^ code(i);
            if !seen.insert(hash) {
                continue;
            }
            if hashes.len() >= max_subsets {
                return None;
            }
            // The new subset's bits go straight to the end of the table.
            let new = hashes.len();
            bits.extend_from_within(k * words..(k + 1) * words);
            bits[new * words + i / 64] |= 1 << (i % 64);
            let set = &bits[k * words..(k + 1) * words];
            let next = &bits[new * words..(new + 1) * words];
            let mut score = scores[k];
            for &j in &produced[i] {
                if needed(&outputs[j], next) {
                    score += outputs[j].size;
                }
            }
            for &j in &closing[i] {
                let out = &outputs[j];
                let live_producer = out.producer.is_none_or(|p| p != i && member(set, p));
                if live_producer && !out.elsewhere && !needed(out, next) {
                    score -= out.size;
                }
            }
            let tail = front.len();
            for g in front_start[k]..front_start[k + 1] {
                if front[g] != i {
                    front.push(front[g]);
                }
            }
            for &t in &in_succs[i] {
                if in_preds[t].iter().all(|&p| member(next, p)) {
                    front.push(t);
                }
            }
            front[tail..].sort_unstable();
            front_start.push(front.len());
            hashes.push(hash);
            scores.push(score);
            sizes.push(sizes[k] + 1);
        }
        k += 1;
    }
    let best = (0..hashes.len()).min_by_key(|&k| (scores[k], Reverse(sizes[k]), k))?;
    let set = &bits[best * words..(best + 1) * words];
    Some(
        dominated
            .iter()
            .enumerate()
            .filter(|&(i, _)| member(set, i))
            .map(|(_, &x)| x)
            .collect(),
    )
}

/// A lower bound on the number of downward-closed subsets of a poset given topologically sorted
/// with its predecessor lists: the elements of one longest-path level form an antichain whose
/// predecessors all lie on lower levels, so every full prefix of levels plus any non-empty subset
/// of the next level is a distinct ideal: `1 + Σ_levels (2^|level| − 1)`. The search exceeds its
/// cap exactly when the true count does, so a bound above the cap settles it without
/// enumerating (saturating). O(|D| + edges).
fn ideals_lower_bound(preds: &[Vec<usize>]) -> usize {
    let mut level = vec![0usize; preds.len()];
    let mut width: Vec<usize> = Vec::new();
    for i in 0..preds.len() {
        level[i] = preds[i].iter().map(|&p| level[p] + 1).max().unwrap_or(0);
        if width.len() <= level[i] {
            width.resize(level[i] + 1, 0);
        }
        width[level[i]] += 1;
    }
    width.iter().fold(1usize, |bound, &w| {
        let subsets = if w >= usize::BITS as usize - 1 {
            usize::MAX
        } else {
            (1usize << w) - 1
        };
        bound.saturating_add(subsets)
    })
}

/// A group on a cycle of the contracted graph (the latest formed), if there is a cycle.
fn cyclic_group(h: &Hierarchy) -> Option<u32> {
    let s = h.seqs.len();
    // Vertex of a sequence: s + group for grouped ones.
    let vertex = |x: u32| match h.group_of[x as usize] {
        NONE => x as usize,
        g => s + g as usize,
    };
    let n = s + h.groups.len();
    let mut missing = vec![0usize; n];
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for x in 0..s as u32 {
        for &t in &h.succs[x as usize] {
            let (a, b) = (vertex(x), vertex(t));
            if a != b {
                edges[a].push(b);
            }
        }
    }
    for list in &mut edges {
        list.sort_unstable();
        list.dedup();
    }
    for list in &edges {
        for &b in list {
            missing[b] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&v| missing[v] == 0).collect();
    while let Some(v) = ready.pop() {
        for &b in &edges[v] {
            missing[b] -= 1;
            if missing[b] == 0 {
                ready.push(b);
            }
        }
    }
    (s..n)
        .rev()
        .find(|&v| missing[v] > 0)
        .map(|v| (v - s) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    /// a → b, a → c, (b, c) → d → e, each command writing one buffer its successors read.
    fn diamond() -> lattice_lir::Module {
        parse_module(
            "module @d phase(parsed) {
               target { tiers L1 = 4096 pipes P spill_out P, spill_in P, spill_cost = 0 + 1 * size l0_exclusive = false }
               buffer @b0 : L1[64]
               buffer @b1 : L1[32]
               buffer @b2 : L1[32]
               buffer @b3 : L1[16]
               buffer @b4 : L1[8]
               %0 = alloc @b0
               %1 = A P 1 (@b0) after(%0)
               %2 = alloc @b1
               %3 = B P 1 (@b1, @b0) after(%1, %2)
               %4 = alloc @b2
               %5 = C P 1 (@b2, @b0) after(%1, %4)
               %6 = free @b0 after(%3, %5)
               %7 = alloc @b3
               %8 = D P 1 (@b3, @b1, @b2) after(%3, %5, %7)
               %9 = free @b1 after(%8)
               %10 = free @b2 after(%8)
               %11 = alloc @b4
               %12 = E P 1 (@b4, @b3) after(%8, %11)
               %13 = free @b3 after(%12)
               %14 = free @b4 after(%12)
             }",
        )
        .unwrap()
    }

    #[test]
    fn the_ideal_bound_is_exact_on_chains_antichains_and_a_diamond() {
        // A chain of 3: 4 ideals; 3 unrelated: 8; the diamond a < b, c < d: 6.
        assert_eq!(ideals_lower_bound(&[vec![], vec![0], vec![1]]), 4);
        assert_eq!(ideals_lower_bound(&[vec![], vec![], vec![]]), 8);
        assert_eq!(
            ideals_lower_bound(&[vec![], vec![0], vec![0], vec![1, 2]]),
            6
        );
        // Below the true count when levels interleave: a < b and an unrelated c.
        assert!(ideals_lower_bound(&[vec![], vec![0], vec![]]) <= 6);
        // Wide levels saturate instead of overflowing.
        assert_eq!(ideals_lower_bound(&vec![vec![]; 70]), usize::MAX);
    }

    #[test]
    fn a_freeing_chain_joins_and_a_merge_groups_what_it_post_dominates() {
        let module = diamond();
        let proj = Projection::build(&module).unwrap();
        let h = build(&proj, CellOut::Merge, 256);
        let names = |cmds: &[u32]| cmds.iter().map(|&u| proj.name(u)).collect::<Vec<_>>();
        let seqs: Vec<Vec<u32>> = h.seqs.iter().map(|s| names(s)).collect();
        // D frees both its inputs and E frees D's output: one sequence.
        assert_eq!(seqs, vec![vec![1], vec![3], vec![5], vec![8, 12]]);
        let groups: Vec<&Vec<u32>> = h.groups.iter().filter(|g| !g.is_empty()).collect();
        assert_eq!(groups, vec![&vec![0, 1, 2, 3]]);
        assert_eq!(names(&h.group_rpo(0)), vec![1, 3, 5, 8, 12]);
        // Sinks as cell outputs: the same group here (E's sequence post-dominates everything).
        let sink = build(&proj, CellOut::Sink, 256);
        assert_eq!(sink.groups.iter().filter(|g| !g.is_empty()).count(), 1);
    }

    #[test]
    fn dissolving_a_group_frees_its_sequences() {
        let module = diamond();
        let proj = Projection::build(&module).unwrap();
        let mut h = build(&proj, CellOut::Merge, 256);
        assert!(h.ungroup(0));
        assert!(!h.ungroup(0));
        assert!(h.group_of.iter().all(|&g| g == NONE));
    }
}
