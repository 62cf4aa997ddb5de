//! What every order keeps live: the buffers b with ALLOC(b) ⪯ v ⪯ FREE(b) in the [`Dag`]'s
//! reachability are live at op v in every topological order (allocated at or before v, freed at
//! or after it). A buffer with no FREE counts from its ALLOC on; one with no ALLOC never.
//!
//! [`for_each_live`] lists those (op, buffer) pairs, optionally leaving out v = FREE(b) (after
//! its FREE runs, b is no longer live — what the logical peak counts). One [`sweep`] with each
//! buffer's ALLOC and FREE as an aligned pair of marks (2i, 2i+1), buffers in [`span_order`]:
//! a word of `anc(v)` ANDed with the word of `desc(v)` shifted down by one gives 32 buffers at
//! once, for the ops v of the chunk's span (every op where one of its buffers can be live).
//! A buffer never freed gets the last op of the order as its second mark, so that its chunk's
//! span reaches the end. The sweep's cost — O((V + E) · B / 32) word operations at worst for B
//! buffers, far less when lifetimes are short — plus O(L) for the L pairs listed; memory as
//! the sweep's.

use super::dag::Dag;
use super::reach::{span_order, sweep};
use lattice_lir::{BufferId, Module, OpId, OpKind};

/// Calls `visit(v, b)` for every op v of the DAG and buffer b (one that `keep` accepts) live at
/// v in every order; with `after`, the state right after v runs (v = FREE(b) left out).
pub fn for_each_live(
    module: &Module,
    dag: &Dag,
    keep: impl Fn(BufferId) -> bool,
    after: bool,
    mut visit: impl FnMut(OpId, BufferId),
) {
    let (alloc_of, free_of) = (&dag.alloc_of, &dag.free_of);
    // Mark 2i is the i-th kept buffer's ALLOC, 2i+1 its FREE (the last op when it has none).
    let Some(&last) = dag.topo.last() else {
        return;
    };
    let listed: Vec<(BufferId, OpId, Option<OpId>)> = module
        .buffer_ids()
        .filter(|&b| keep(b))
        .filter_map(|b| Some((b, alloc_of[b.index()]?, free_of[b.index()])))
        .collect();
    let order = span_order(dag, listed.iter().map(|&(_, a, f)| (a, f.unwrap_or(last))));
    let mut marks = Vec::with_capacity(2 * listed.len());
    let mut kept: Vec<(BufferId, bool)> = Vec::with_capacity(listed.len());
    for (b, alloc, free) in order.into_iter().map(|i| listed[i]) {
        marks.extend([alloc, free.unwrap_or(last)]);
        kept.push((b, free.is_some()));
    }
    let groups: Vec<_> = (0..kept.len()).map(|i| 2 * i..2 * i + 2).collect();
    const EVEN: u64 = 0x5555_5555_5555_5555;
    sweep(dag, &marks, &groups, |chunk| {
        let first = chunk.groups.start;
        // Pairs of the chunk whose buffer is never freed: live from the ALLOC on.
        let mut open = vec![0u64; chunk.words()];
        for i in chunk.groups.clone().filter(|&i| !kept[i].1) {
            let bit = 2 * (i - first);
            open[bit / 64] |= 1 << (bit % 64);
        }
        for &v in &dag.topo[chunk.span.clone()] {
            let (anc, desc) = (chunk.anc(v), chunk.desc(v));
            // Right after FREE(b) runs, b is no longer live.
            let freed_here = match module.op(v).kind {
                OpKind::Free { buffer } if after => Some(buffer),
                _ => None,
            };
            for w in 0..chunk.words() {
                // A FREE bit sits one above its ALLOC bit, in the same word (pairs are aligned).
                let mut live = anc[w] & ((desc[w] >> 1) & !open[w] | open[w]) & EVEN;
                while live != 0 {
                    let bit = w * 64 + live.trailing_zeros() as usize;
                    live &= live - 1;
                    let b = kept[first + bit / 2].0;
                    if freed_here != Some(b) {
                        visit(v, b);
                    }
                }
            }
        }
    });
}
