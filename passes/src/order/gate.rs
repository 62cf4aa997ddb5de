//! The L0-exclusivity gate: with `target.l0_exclusive`, an ALLOC of a staging (L0) tier is not
//! ready while another buffer of that tier is live.
//!
//! # How
//! The buffers of each staging tier take turns in the order of their ALLOCs in the incoming σ: the
//! gate adds the edge FREE(previous buffer of the tier) → ALLOC(buffer) for each turn, and the Kahn
//! engine treats these edges like any other. By induction over the turns, when a tier's k-th ALLOC
//! becomes ready the (k−1)-th buffer is freed and the (k+1)-th not yet allocated, so at most one
//! buffer of the tier is live at any point of every order the engine emits, whatever the policy.
//!
//! # Why fixed turns and not "any ALLOC once the tier is free"
//! Letting the policy pick any ALLOC of a free tier deadlocks on ordinary inputs, because the FREE
//! of a live L0 buffer often depends on ALLOCs of other (or the same) L0 tiers. In a tiled matmul,
//! FREE(L0A tile k) waits for MATMUL k, which waits for MATMUL k−1 (the L0C accumulation) and so
//! for the L0A buffer of tile k−1, and for the L0C accumulator. A key such as MPAS's −C(v) prefers
//! the *later* tile's L0A ALLOC (its chain is longer): once it holds L0A, MATMUL k−1 can never get
//! its L0A operand — a deadlock. The same happens across tiers (tile 2 holds L0A and waits for
//! L0C, which tile 1 holds until it gets L0A). On the shared cases, most L0 buffers' FREEs have
//! same-tier ALLOCs among their ancestors (up to 281 of them on Conv_Case0). Fixing the turns is
//! the banker's-algorithm answer: every grant keeps the state safe with respect to one witness
//! order, so the traversal can always finish; the policies still choose everything else.
//!
//! # Why it cannot deadlock on well-formed inputs
//! Call a module well formed for the gate when the incoming σ, with each FREE moved up to just
//! after the last op it waits for (dependencies and buffer lifetimes), keeps every staging tier
//! exclusive. Every contest trace is (its ALLOCs sit just before their first use), and so is the
//! output of every ordering pass. Write σ' for that moved order. σ' respects every dependency and
//! lifetime edge (a FREE only moved up, still after all it waits for); its ALLOCs are in σ's
//! order, so each tier's turns are its buffers by start in σ', whose lifetimes in σ' are disjoint:
//! FREE(previous) comes before ALLOC(next) in σ'. So σ' is a topological order of the graph with
//! the gate's edges, the graph is acyclic, and a Kahn traversal of an acyclic graph emits every
//! node whichever ready node its key picks.
//!
//! # When the input order is not well formed
//! A renumbered input (the same DAG listed in another topological order) is usually outside that
//! class: its ALLOCs can come in an order in which the turns close a cycle. The graph then takes
//! its turns from an exclusive order derived from the graph alone (`super::exclusive`: the nested
//! decomposition into staging groups, deadlock-free by the argument in its header), and the same
//! proof applies with that order as σ'. Where the input's turns close no cycle they are kept, so
//! every well-formed input (every shipped case) is ordered exactly as before.
//!
//! # When it is impossible
//! An op naming two buffers of one staging tier forces both to be live at once; that is rejected
//! up front ([`OrderError::SharedL0Tier`], at the op). Any other input outside the argument above
//! whose gate edges close a cycle makes the engine stop with ops left, and it reports the cycle
//! ([`OrderError::Cycle`], at the waiting ALLOC) instead of emitting a partial order.
//!
//! O(V + Σ operands² + B log B) time (operand lists are a few buffers long), O(B) space.

use super::error::OrderError;
use lattice_lir::{BufferId, Module, OpId, OpKind};

/// The turns of every staging tier: for each buffer, the buffer of its tier allocated just before
/// it in the incoming σ (none for the first of a tier, and for every buffer when the target is not
/// L0-exclusive or the tier is not a staging tier).
pub(crate) struct L0Turns {
    previous: Vec<Option<BufferId>>,
}

impl L0Turns {
    /// No turns at all, for `buffers` buffers.
    pub(crate) fn none(buffers: usize) -> Self {
        L0Turns {
            previous: vec![None; buffers],
        }
    }

    /// The buffer that holds `buffer`'s tier just before it.
    pub(crate) fn previous(&self, buffer: BufferId) -> Option<BufferId> {
        self.previous[buffer.index()]
    }
}

/// Computes the turns of `module`'s staging tiers; `alloc_of` maps each buffer to its ALLOC and
/// `position` each op to its place in the incoming σ.
pub(crate) fn l0_turns(
    module: &Module,
    alloc_of: &[Option<OpId>],
    position: &[usize],
) -> Result<L0Turns, OrderError> {
    let mut previous = vec![None; module.buffers.len()];
    if !module.target.l0_exclusive {
        return Ok(L0Turns { previous });
    }
    let staging = |buffer: BufferId| module.target.tier(module.buffer(buffer).tier).staging;
    for &id in &module.schedule {
        let op = module.op(id);
        if let OpKind::Compute { operands, .. } = &op.kind {
            check_operands(module, id, operands, &staging)?;
        }
    }
    let mut by_start: Vec<(usize, BufferId)> = module
        .buffer_ids()
        .filter(|&b| staging(b))
        .filter_map(|b| alloc_of[b.index()].map(|a| (position[a.index()], b)))
        .collect();
    // Ties (an ALLOC missing from σ) fall back to buffer order, so the turns are deterministic.
    by_start.sort_unstable();
    let mut holder = vec![None; module.target.tiers.len()];
    for (_, buffer) in by_start {
        let tier = module.buffer(buffer).tier.index();
        previous[buffer.index()] = holder[tier].replace(buffer);
    }
    Ok(L0Turns { previous })
}

/// Rejects an op that names two distinct buffers of one staging tier.
fn check_operands(
    module: &Module,
    id: OpId,
    operands: &[BufferId],
    staging: &impl Fn(BufferId) -> bool,
) -> Result<(), OrderError> {
    for (i, &first) in operands.iter().enumerate() {
        if !staging(first) {
            continue;
        }
        let tier = module.buffer(first).tier;
        if let Some(&second) = operands[i + 1..]
            .iter()
            .find(|&&b| b != first && module.buffer(b).tier == tier)
        {
            return Err(OrderError::SharedL0Tier {
                op: id,
                op_name: module.op(id).name,
                tier: module.target.tier(tier).name.clone(),
                first: module.buffer(first).name,
                second: module.buffer(second).name,
            });
        }
    }
    Ok(())
}
