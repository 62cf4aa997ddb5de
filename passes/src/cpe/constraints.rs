//! What every σ CPE emits must keep, as one graph: G_fixed (every dependency of the plan, timed)
//! plus three kinds of order-only edge, which bind σ but delay nothing in time:
//!
//! - **residency containment**: each residency's start (ALLOC or SPILL_IN) → every use inside
//!   it → its end (SPILL_OUT or FREE), as Freeze places them, so every use stays in the same
//!   residency (the contest traces' dependencies imply this; a hand-written plan need not);
//! - **L0 exclusivity**: on an L0-exclusive target, each residency end of a staging tier → the
//!   next residency start of that tier in Freeze. Reuse dependencies only order residencies that
//!   share bytes, and with `dlr{l0=double}` consecutive L0 buffers do not, so without these edges
//!   a reordered σ could keep two buffers of a tier live at once, which the contest forbids;
//! - **spill export order**: each SPILL_OUT → the next SPILL_OUT of Freeze. The contest numbers
//!   spills in σ order of their SPILL_OUTs, so keeping that order keeps the exported spill file
//!   byte-identical.
//!
//! With every address hand-off ordered by a reuse dependency, any linear extension of this graph
//! places the same residencies in the same order on every byte, so it derives the same spill and
//! reuse dependencies; acceptance checks that rather than assuming it. O(V + uses) plus the
//! graph's edge sort.

use super::canonical::Canonical;
use crate::timing::FixedGraph;
use lattice_lir::{Module, OpId, OpKind};

/// G_fixed of `module` with the containment, L0-exclusivity and spill-order edges of its σ, in
/// the ids of `canon` (Freeze positions).
pub(crate) fn constraint_graph(module: &Module, canon: &Canonical) -> FixedGraph {
    let mut extra = Vec::new();
    let mut open: Vec<Option<OpId>> = vec![None; module.buffers.len()];
    let mut uses: Vec<Vec<OpId>> = vec![Vec::new(); module.buffers.len()];
    let mut last_spill_out: Option<OpId> = None;
    let mut last_end: Vec<Option<OpId>> = vec![None; module.target.tiers.len()];
    let exclusive_tier = |buffer: lattice_lir::BufferId| {
        let tier = module.buffers.get(buffer.index())?.tier;
        (module.target.l0_exclusive && module.target.tiers.get(tier.index())?.staging)
            .then_some(tier.index())
    };
    for &original in &module.schedule {
        let Some(op) = module.ops.get(original.index()) else {
            continue;
        };
        let id = canon.id(original);
        match op.kind {
            OpKind::Alloc { buffer, .. } | OpKind::SpillIn { buffer, .. } => {
                if let Some(tier) = exclusive_tier(buffer) {
                    extra.extend(last_end[tier].map(|end| (end, id)));
                }
                if let Some(slot) = open.get_mut(buffer.index()) {
                    *slot = Some(id);
                }
            }
            OpKind::SpillOut { buffer, .. } | OpKind::Free { buffer } => {
                if op.kind.is_spill() {
                    extra.extend(last_spill_out.replace(id).map(|prev| (prev, id)));
                }
                if let Some(tier) = exclusive_tier(buffer) {
                    last_end[tier] = Some(id);
                }
                if let Some(start) = open.get_mut(buffer.index()).and_then(Option::take) {
                    extra.push((start, id));
                    extra.extend(uses[buffer.index()].drain(..).map(|user| (user, id)));
                }
            }
            OpKind::Compute { ref operands, .. } => {
                for b in operands {
                    if let Some(&Some(start)) = open.get(b.index()) {
                        extra.push((start, id));
                        uses[b.index()].push(id);
                    }
                }
            }
        }
    }
    FixedGraph::relabeled(module, &canon.position, extra)
}
