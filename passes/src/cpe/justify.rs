//! The seed with justification: one forward list schedule ([`super::seed`]) keyed by downstream
//! criticality, then `rounds` of forward–backward improvement. A backward pass list-schedules
//! the reversed graph, taking ops in order of latest end in the last forward schedule (so it
//! right-justifies that schedule against the pipes); the next forward pass takes ops in order
//! of latest end in the backward schedule (left-justifying it again). Each pass is a complete
//! pipe order in its own right — a backward one read back to front — and is timed forwards;
//! the best one whose σ keeps the memory budgets is the seed.
//!
//! Invariants: every pass is a linear extension of the constraint graph (the reversed graph's
//! extensions reversed are the original's), so any of them is a valid candidate; the result is
//! deterministic. O((1 + 2·rounds) · (V + E) log V).

use super::footprint::{Footprint, METERS};
use super::seed::{seed, Keys, Seed};
use crate::timing::{evaluate, Cyclic, FixedGraph, PipeOrder, Times};
use lattice_lir::OpId;

/// The best seed found: its pipe order, its σ and its timing.
pub(crate) struct Seeded {
    /// Every pipe's issue order.
    pub order: PipeOrder,
    /// A σ carrying it within the budgets.
    pub sigma: Vec<OpId>,
    /// Its timing.
    pub times: Times,
}

/// What the seed needs besides the graph.
pub(crate) struct SeedInput<'a> {
    /// Resident-byte effects along σ, forwards.
    pub footprint: &'a Footprint,
    /// The same, backwards.
    pub back_footprint: &'a Footprint,
    /// Freeze start − earliest start, per op.
    pub slack: &'a [u64],
    /// Downstream criticality over G_fixed alone (the timing's tails), per op. The constraint
    /// graph's order-only edges delay nothing, so its tails are these.
    pub criticality: &'a [u64],
    /// Position in Freeze's σ, per op.
    pub position: &'a [usize],
    /// Most bytes each meter may hold at once along σ (physical, logical).
    pub budget: [u64; METERS],
}

/// The best schedule of the forward seed and `rounds` of justification that keeps the budgets,
/// if any does.
pub(crate) fn justified_seed(
    graph: &FixedGraph,
    input: &SeedInput<'_>,
    rounds: u32,
) -> Result<Option<Seeded>, Cyclic> {
    let n = graph.len();
    let reversed = graph.reversed();
    let back_position: Vec<usize> = input.position.iter().map(|&p| n - p).collect();
    let forward = |primary: &[u64]| {
        let keys = Keys {
            primary,
            slack: input.slack,
            position: input.position,
        };
        seed(graph, input.footprint, &keys, input.budget)
    };

    let mut best: Option<Seeded> = None;
    let mut consider = |s: Seed, times: Times| {
        if s.peaks.iter().zip(&input.budget).all(|(p, b)| p <= b)
            && best
                .as_ref()
                .is_none_or(|b| times.makespan < b.times.makespan)
        {
            best = Some(Seeded {
                order: s.order,
                sigma: s.sigma,
                times,
            });
        }
    };
    let first = forward(input.criticality);
    let times = evaluate(graph, Some(&first.order))?;
    let mut ends = times.end.clone();
    consider(first, times);
    for _ in 0..rounds {
        let keys = Keys {
            primary: &ends,
            slack: input.slack,
            position: &back_position,
        };
        let back = seed(&reversed, input.back_footprint, &keys, input.budget);
        let back_ends = evaluate(&reversed, Some(&back.order))?.end;
        let chains = back
            .order
            .chains()
            .iter()
            .map(|c| c.iter().rev().copied().collect())
            .collect();
        let order = PipeOrder::from_chains(graph, chains);
        let mut sigma = back.sigma;
        sigma.reverse();
        let times = evaluate(graph, Some(&order))?;
        consider(
            Seed {
                order,
                sigma,
                peaks: back.peaks,
            },
            times,
        );
        let next = forward(&back_ends);
        let times = evaluate(graph, Some(&next.order))?;
        ends = times.end.clone();
        consider(next, times);
    }
    Ok(best)
}
