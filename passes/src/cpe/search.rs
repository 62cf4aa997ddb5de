//! Bounded local search (paper Alg. 3, lines 7–15): each round takes a critical chain of the
//! incumbent's timing, lists adjacent same-pipe swaps in a bounded neighbourhood of it, times
//! each with the engine, and offers the improving ones to the acceptance check best first; the
//! first accepted becomes the incumbent. A round without an accepted move ends the search.
//!
//! The neighbourhood, in the order candidates are taken: first every pipe link of the chain (an
//! op that waits for the op issued before it on its pipe: swapping the two lets it go first),
//! from the end of the chain backwards; then, for each op of the chain from the end, the pairs
//! of its pipe within `radius` positions of it. Pairs joined by a constraint edge (which a swap
//! would turn into a cycle) are skipped; at most `candidates` pairs are timed per round.
//!
//! Invariants: the incumbent only changes to an accepted candidate, so its makespan strictly
//! drops each round and it stays valid. Cost: O(passes · candidates · (V + E)) for the timing
//! (the candidates of a round are timed in parallel) plus one acceptance check per offered
//! candidate.

use crate::timing::{critical_chain, evaluate, FixedGraph, PipeOrder, Times, Via};
use lattice_lir::OpId;

/// How hard to search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// Rounds.
    pub passes: u32,
    /// Swaps timed per round.
    pub candidates: u32,
    /// Pipe positions around a chain op whose pairs are in the neighbourhood.
    pub radius: u32,
}

/// Improves `order` in place (and `times` with it); `accept` decides on a candidate and returns
/// whether it was accepted. Returns the number of accepted moves.
pub(crate) fn local_search(
    graph: &FixedGraph,
    order: &mut PipeOrder,
    times: &mut Times,
    bounds: Bounds,
    mut accept: impl FnMut(&PipeOrder) -> bool,
) -> u64 {
    let mut moves = 0;
    for _ in 0..bounds.passes {
        let pairs = neighbourhood(graph, order, times, bounds);
        let mut improving: Vec<(u64, usize, OpId, Times)> = time_swaps(graph, order, &pairs)
            .into_iter()
            .zip(&pairs)
            .enumerate()
            .filter_map(|(i, (t, &x))| t.map(|t| (t.makespan, i, x, t)))
            .filter(|&(makespan, ..)| makespan < times.makespan)
            .collect();
        improving.sort_by_key(|&(makespan, i, _, _)| (makespan, i));
        let mut accepted = false;
        for (_, _, x, t) in improving {
            order.swap_with_next(graph, x);
            if accept(order) {
                *times = t;
                moves += 1;
                accepted = true;
                break;
            }
            if let Some(w) = order.prev(graph, x) {
                order.swap_with_next(graph, w);
            }
        }
        if !accepted {
            break;
        }
    }
    moves
}

/// The timing of `order` with each pair of `pairs` swapped (`None`: the swap makes a cycle), in
/// the order of `pairs`. The candidates are independent, so they are timed on up to as many
/// threads as the machine has (each on its own copy of the order); the result does not depend
/// on how many.
fn time_swaps(graph: &FixedGraph, order: &PipeOrder, pairs: &[OpId]) -> Vec<Option<Times>> {
    let time = |order: &mut PipeOrder, x: OpId| {
        order.swap_with_next(graph, x);
        let t = evaluate(graph, Some(order)).ok();
        // x moved one place later; the op now before it is the one it was swapped with.
        if let Some(w) = order.prev(graph, x) {
            order.swap_with_next(graph, w);
        }
        t
    };
    let threads = lattice::parallel::threads().min(pairs.len());
    if threads <= 1 {
        let mut order = order.clone();
        return pairs.iter().map(|&x| time(&mut order, x)).collect();
    }
    let mut out: Vec<Option<Times>> = vec![None; pairs.len()];
    // One worker per thread, each with its own copy of the order, over every threads-th pair.
    let timed = lattice::parallel::map(threads, |k| {
        let mut order = order.clone();
        (k..pairs.len())
            .step_by(threads)
            .map(|i| (i, time(&mut order, pairs[i])))
            .collect::<Vec<_>>()
    });
    for (i, t) in timed.into_iter().flatten() {
        out[i] = t;
    }
    out
}

/// The first ops of the candidate pairs (each swaps with the next op of its pipe), at most
/// `bounds.candidates`, without repeats, in the order the module doc gives.
fn neighbourhood(
    graph: &FixedGraph,
    order: &PipeOrder,
    times: &Times,
    bounds: Bounds,
) -> Vec<OpId> {
    let chain = critical_chain(graph, Some(order), times);
    let limit = bounds.candidates as usize;
    let mut picked: Vec<OpId> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut offer = |x: OpId, picked: &mut Vec<OpId>| {
        let Some(y) = order.next(graph, x) else {
            return;
        };
        if picked.len() < limit && !graph.has_edge(x, y) && seen.insert(x) {
            picked.push(x);
        }
    };
    for link in chain.iter().rev().filter(|l| l.via == Via::Pipe) {
        if let Some(x) = order.prev(graph, link.op) {
            offer(x, &mut picked);
        }
    }
    for link in chain.iter().rev() {
        if graph.pipe(link.op).is_none() {
            continue;
        }
        let mut before = link.op;
        for _ in 0..bounds.radius {
            match order.prev(graph, before) {
                Some(p) => before = p,
                None => break,
            }
        }
        let mut x = before;
        for _ in 0..2 * bounds.radius {
            offer(x, &mut picked);
            match order.next(graph, x) {
                Some(n) => x = n,
                None => break,
            }
        }
        if picked.len() >= limit {
            break;
        }
    }
    picked
}
