//! `heads-kv` and `heads-q`: flash attention over unequal query and key/value blocks, one head per
//! unit, in the two loop nestings — the same command DAG numbered two ways.
//!
//! A unit is one head: `nq` query tiles and `nk` key/value tile pairs (drawn up to 10 × 5, the
//! query side the longer), each loaded into L1 once and read by every block that needs it; block
//! (i, j) is `attention`'s key/value block of query i against pair j, with the online-softmax
//! state of query i carried from block (i, j − 1). `heads-kv` emits the key/value loop outside
//! (pair j loaded, then every query's block against it, as the shipped FlashAttention cases are
//! numbered), `heads-q` the query loop outside (query i loaded, then its blocks against every
//! pair). Every buffer sees the same ops in the same order under both nestings — a query's state
//! goes through its blocks in j order, a tile's reads come in i order after its one load — so
//! with one seed the two modules are the same DAG under other ids (the tests check it): the
//! pair the order search must find alike, whichever loop the numbering puts outside.
//!
//! Sizes: L1 tiles 1/16 of L1 (at most 10 queries, a pair and P live under `heads-kv`, 5 pairs,
//! a query and P under `heads-q`: at most 13 + 1 of 16 tiles), UB rows 1/64 and row statistics
//! 1/512 of UB (each query's state holds a row and two statistics, so at most 40 row-sized
//! slots; fewer queries on a UB of under 64 rows), within the bound of
//! [`crate::generate::space`]. Cost: nq · (44 nk + 1) + 6 nk ops.
//! O(cost).

use super::attention::{Attention, Running};
use super::{shrink_to, Unit};
use crate::generate::builder::Builder;
use crate::rng::Rng;
use lattice_lir::BufferId;

/// Most query blocks per head.
const MAX_Q: usize = 10;
/// Most key/value blocks per head.
const MAX_KV: usize = 5;

/// One head's generator: the attention block and which loop is outside.
pub(crate) struct Heads {
    attention: Attention,
    kv_outside: bool,
    /// Most query blocks whose states fit UB at once (below [`MAX_Q`] only on tiny targets).
    max_q: usize,
}

impl Heads {
    /// The generator with the key/value loop outside (`kv_outside`) or the query loop.
    pub(crate) fn new(b: &Builder, kv_outside: bool) -> Self {
        // Under `heads-kv` every query's state (a row, two statistics) is live at once, beside
        // at most five row-sized temporaries: (3 nq + 5) rows must fit the span.
        let ub = b.machine.ub;
        let rows = usize::try_from(ub.span / ub.frac(6)).unwrap_or(usize::MAX);
        Heads {
            attention: Attention::sized(b, 4, 6),
            kv_outside,
            max_q: (rows.saturating_sub(5) / 3).clamp(1, MAX_Q),
        }
    }

    /// Ops of a head of `p[0]` query and `p[1]` key/value blocks: per query its load (3 ops),
    /// its first block (34), each later block (44) and its epilogue (8); per pair two loads (6).
    fn cost(p: &[usize]) -> usize {
        p[0] * (44 * p[1] + 1) + 6 * p[1]
    }

    /// Loads a key/value pair.
    fn pair(&self, b: &mut Builder) -> (BufferId, BufferId) {
        (self.attention.load(b), self.attention.load(b))
    }
}

impl Unit for Heads {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        let nk = rng.range(1, MAX_KV);
        let mut p = [rng.range(nk + 1, MAX_Q).min(self.max_q), nk];
        if !shrink_to(&mut p, &[1, 1], budget, Heads::cost) {
            return false;
        }
        let [nq, nk] = p;
        let att = &self.attention;
        let mut queries: Vec<Option<(BufferId, Option<Running>)>> = (0..nq).map(|_| None).collect();
        let mut pairs: Vec<Option<(BufferId, BufferId)>> = vec![None; nk];
        let cells: Vec<(usize, usize)> = if self.kv_outside {
            (0..nk).flat_map(|j| (0..nq).map(move |i| (i, j))).collect()
        } else {
            (0..nq).flat_map(|i| (0..nk).map(move |j| (i, j))).collect()
        };
        for (i, j) in cells {
            let kv = *pairs[j].get_or_insert_with(|| self.pair(b));
            let (q, run) = queries[i].take().unwrap_or_else(|| (att.load(b), None));
            let run = att.block(b, q, Some(kv), run);
            if j + 1 == nk {
                att.finish(b, q, Some(run));
            } else {
                queries[i] = Some((q, Some(run)));
            }
            // Query nq − 1 reads the pair last under both nestings.
            if i + 1 == nq {
                b.free(kv.0);
                b.free(kv.1);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::{builder, check_contract};

    #[test]
    fn heads_cost_what_they_say() {
        for kv_outside in [false, true] {
            check_contract(|b| Heads::new(b, kv_outside), Heads::cost(&[1, 1]));
            for (nq, nk) in [(1, 1), (3, 2), (10, 5)] {
                let mut b = builder();
                let mut h = Heads::new(&b, kv_outside);
                // Draws up to (10, 5); a budget of exactly the cost keeps it at most that.
                let cost = Heads::cost(&[nq, nk]);
                assert!(h.emit(&mut b, &mut Rng::new(7), cost));
                assert!(b.len() <= cost && b.live() == 0);
            }
        }
        let mut b = builder();
        let mut h = Heads::new(&b, true);
        assert!(h.emit(&mut b, &mut Rng::new(1), usize::MAX));
        let mut rng = Rng::new(1);
        let nk = rng.range(1, MAX_KV);
        let nq = rng.range(nk + 1, MAX_Q);
        assert_eq!(b.len(), Heads::cost(&[nq, nk]));
    }
}
