//! Order-independent lower bound on the logical peak (L1+UB, DESIGN §1.3): no topological order
//! of the module's ops, hence no plan, keeps fewer bytes of the non-staging tiers live at once.
//!
//! Argument. Take any op v and any order. Right after v runs, every buffer b whose ALLOC is v or
//! an ancestor of v in the [`Dag`] has been allocated, and every b whose FREE is a strict
//! descendant of v is not yet freed: b is live there. So the running sum of ALLOC minus FREE
//! sizes after v is at least `must(v) = Σ size(b)` over the non-staging b with
//! ALLOC(b) ⪯ v ≺ FREE(b) (a buffer never freed counts from its ALLOC on); v's own operands are
//! among them, since the DAG holds ALLOC(b) → v → FREE(b) for each. The logical peak is the
//! maximum of that running sum over the order, hence at least `max_v must(v)`.
//!
//! Computation: [`for_each_live`] (chunked bitset reachability of the ALLOC and FREE of each
//! buffer). O((V + E) · B / 32 + L) word operations for B buffers and L the total size of the
//! must-live sets; O(V · CHUNK_WORDS) memory.

use super::dag::Dag;
use super::must_live::for_each_live;
use lattice_lir::{BufferId, Module, OpId};

/// The bound and where it is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeakBound {
    /// No order keeps fewer bytes of the non-staging tiers live at once.
    pub bytes: u64,
    /// An op after which that many bytes are live in every order (none for an empty module).
    pub at: Option<OpId>,
}

/// The must-live bytes of the non-staging tiers after each op (`must(v)` of the header),
/// indexed by op id; spill events get 0.
pub fn must_live(module: &Module, dag: &Dag) -> Vec<u64> {
    let mut must = vec![0u64; module.ops.len()];
    let counted = |b: BufferId| !module.target.tier(module.buffer(b).tier).staging;
    for_each_live(module, dag, counted, true, |v, b| {
        must[v.index()] += module.buffer(b).size;
    });
    must
}

/// The order-independent peak bound of `module` (any phase; spill events are ignored).
pub fn peak_lower_bound(module: &Module, dag: &Dag) -> PeakBound {
    let must = must_live(module, dag);
    let best = dag
        .topo
        .iter()
        .copied()
        .max_by_key(|v| (must[v.index()], std::cmp::Reverse(v.index())));
    PeakBound {
        bytes: best.map_or(0, |v| must[v.index()]),
        at: best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    fn bound(text: &str) -> u64 {
        let m = parse_module(text).expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        peak_lower_bound(&m, &dag).bytes
    }

    const CHAIN: &str = "module @m phase(parsed) {
       target { tiers L1 = 64, L0A = 64 l0 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = false }
       buffer @b0 : L1[8]
       buffer @b1 : L1[4]
       buffer @b2 : L0A[32]
       %0 = alloc @b0
       %1 = alloc @b1
       %2 = alloc @b2
       %3 = OP P 1 (@b0, @b2) after(%0, %2)
       %4 = OP P 1 (@b1) after(%1, %3)
       %5 = OP P 1 (@b0) after(%0, %4)
       %6 = free @b0 after(%5)
       %7 = free @b1 after(%4)
       %8 = free @b2 after(%3)
     }";

    #[test]
    fn buffers_live_across_an_op_in_every_order_count_and_staging_tiers_do_not() {
        // At %4, b0 (written before, read after) and b1 (its operand) are live: 12 bytes.
        assert_eq!(bound(CHAIN), 12);
        // Without %3 → %4, b1's whole life can come after b0's: 8 bytes.
        assert_eq!(
            bound(
                &CHAIN
                    .replace("after(%1, %3)", "after(%1)")
                    .replace("after(%0, %4)", "after(%0, %3)")
            ),
            8
        );
    }
}
