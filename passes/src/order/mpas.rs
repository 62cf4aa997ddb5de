//! MPAS, the paper's Memory-Pressure-Aware Topological Scheduling (§IV-B, Alg. 1): a Kahn
//! traversal whose ready heap pops the op of lexicographically smallest
//! K(v) = (L(v), Δ(v), −C(v), inputpos(v), id(v)):
//! - L(v): 0 for a FREE, 1 for an ordinary op, 2 for an ALLOC (advance releases, delay allocations);
//! - Δ(v): −size of the buffer for a FREE, +size for an ALLOC, 0 otherwise (larger releases and
//!   smaller allocations first within a class);
//! - C(v): the downstream bottom level ([`BottomLevels`], paper Eq. 3), larger first;
//! - inputpos(v): position in the incoming σ; id(v): the op's name (`%<id>`). inputpos is a
//!   permutation, so id only decides between keys built outside a module.
//!
//! ALLOC and FREE are keyed like every op. Three readiness adaptations decide *when* an op joins
//! the ready set; the key that ranks the ready set is unchanged.
//!
//! 1. **Demanded ALLOCs.** An ALLOC joins the ready heap only once it is demanded — some op
//!    waiting for it has every other predecessor done (`Lifecycle::OnDemand`). Alg. 1 read
//!    literally inserts every indegree-0 node, and on the contest traces every ALLOC is one:
//!    whenever no FREE or ordinary op is ready, it then pops the smallest ALLOC anywhere in the
//!    graph, mostly for ops that cannot run yet, which only lengthens lifetimes (logical peak on
//!    Conv_Case0 80,170 B literally, 39,010 B on demand).
//! 2. **Pulled loaders** (`super::pull`, option `pull`). A loader — an op whose predecessors
//!    are all ALLOCs, on the contest traces exactly the COPY_INs — is held back until nothing
//!    else can run, and then woken for the consumer of smallest incoming position that could run
//!    once its loaders ran. Why: comparing `stable`'s peak on Conv_Case0 (7,488 B, which MPAS
//!    without this rule ties) with the depth-first placeholder order's (6,912 B), the live sets
//!    at the two peaks are the same four input activations (4 × 768 B), three finished outputs
//!    and the running accumulator (1,536 B) of one layer, plus, in `stable`'s only, four weight
//!    tiles (4 × 144 B = 576 B) that a COPY_IN loaded about 70 positions before the MOVE into
//!    L0B that reads them, which waits for its L0B turn. A loader waits for nothing but its
//!    ALLOC, so it is ready from the start and demand alone issues it early. Pulled, the load
//!    comes just before the consumer it unblocks and MPAS reaches 6,912 B there (−7.7%), while
//!    the other shipped cases keep `stable`'s peak (next paragraph). On generated workloads
//!    (shapes matmul, attention, conv and random, 10–4,000 nodes, seeds 0–39: 1,760 modules) it
//!    is below `stable` on 899 and above on 15, all of shape random, where −C(v) runs chains far
//!    ahead; without the rule MPAS is above `stable` on most of them (497 of a 700-module subset).
//! 3. **A lookahead window** (`super::window`, option `lookahead`) keeps the key from trading
//!    the incoming order's tile structure for breadth: the key ranks only ready ops within that
//!    many positions of the first op of the incoming σ not yet emitted (`lookahead=0`: the whole
//!    ready set). Without the pull rule it is what keeps MPAS near `stable` (unbounded and
//!    unpulled, "smaller allocation first" prefetches small buffers of far tiles: 39,010 B on
//!    Conv_Case0); with it, the window no longer changes any shipped case's peak and changes
//!    few generated ones. The default, 32, is one fixed number for every input.
//!
//! No deadlock: the gate's argument (`super::gate`) makes the graph acyclic on well-formed
//! inputs, and none of the three rules ever leaves the engine without a candidate while an op
//! could run: a demanded ALLOC is in the selector; the window hands out a parked op when it has
//! nothing else; a sleeping loader is woken when the selector and the FREE queue are empty.
//! So the traversal stops early only when no op at all is ready — a cycle, which it reports.
//!
//! Why the peak is no lower on the Matmul cases: they sit at the minimum over every legal order.
//! Model them as an n×n grid of output tiles, each computed atomically (its L0C accumulator is
//! exclusive) by steps k = 0..n−1 that read `A[i][k]` and `B[k][j]`, an L1 tile live from its first to
//! its last read. An exhaustive search over every order of the cells (dynamic programming over
//! the subsets of finished cells) gives the least peak 2, 5, 12 and 20 tiles for n = 1..4 — for
//! n ≥ 3, n(n+1): all n² B tiles plus the current row's A tiles — and the row-major order, the
//! traces' own (and `stable`'s), reaches it; the search is exhaustive only up to n = 4, and for
//! larger n only row-major's n(n+1) is computed. Matmul_Case0 is n = 8 (72 tiles × 128 B =
//! 9,216 B) and Matmul_Case1 n = 16 (272 × 128 = 34,816 B), their `stable` and MPAS peaks. The
//! test `passes/tests/order_matmul_model.rs` runs the search. On the FlashAttention cases MPAS
//! also ties `stable`; most of the L1 bytes live at the peak are K/V tiles that every query block
//! of the query-outer loop reads, and whether another loop order could go lower was not searched. The
//! paper compares with the literal input order (FREEs last), which MPAS beats by far.
//!
//! The L0 gate of the shared graph keeps the order L0-exclusive when the target asks for it.
//! Keys are computed once: O((V + E) log V) in all.

use super::engine::{traverse, KeyHeap, Lifecycle};
use super::error::OrderError;
use super::graph::Graph;
use super::window::Window;
use crate::analysis::BottomLevels;
use lattice::pass_options;
use lattice_lir::{Module, OpId, OpKind};
use std::cmp::Reverse;

/// K_MPAS(v), compared field by field in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MpasKey {
    /// L(v).
    pub lifecycle: u8,
    /// Δ(v) in bytes.
    pub delta: i128,
    /// −C(v), as C(v) in reverse.
    pub bottom_level: Reverse<u64>,
    /// inputpos(v).
    pub input_position: usize,
    /// id(v).
    pub id: u32,
}

/// K_MPAS of `op`; `position` is its place in the incoming σ.
pub fn mpas_key(module: &Module, op: OpId, levels: &BottomLevels, position: usize) -> MpasKey {
    let size = |buffer: lattice_lir::BufferId| i128::from(module.buffer(buffer).size);
    let (lifecycle, delta) = match module.op(op).kind {
        OpKind::Free { buffer } => (0, -size(buffer)),
        OpKind::Alloc { buffer, .. } => (2, size(buffer)),
        _ => (1, 0),
    };
    MpasKey {
        lifecycle,
        delta,
        // A levels table of another module must not panic here; it only weakens the key.
        bottom_level: Reverse(levels.0.get(op.index()).copied().unwrap_or(0)),
        input_position: position,
        id: module.op(op).name,
    }
}

pass_options! {
    /// Options of `mpas`.
    pub struct MpasOptions {
        /// Rank ready ops within this many positions of the incoming order's first op left (0: all).
        #[range(0..=4294967295)]
        lookahead: usize = 32,
        /// Hold loaders (ops waiting only for ALLOCs) back until nothing else can run.
        pull: bool = true,
    }
}

/// The MPAS order of `module`'s ops, C(v) taken from `levels`.
pub fn mpas_order(
    module: &Module,
    levels: &BottomLevels,
    options: &MpasOptions,
) -> Result<Vec<OpId>, OrderError> {
    let graph = Graph::build(module)?;
    let keys = module
        .op_ids()
        .map(|op| mpas_key(module, op, levels, graph.position[op.index()]))
        .collect();
    let width = match options.lookahead {
        0 => usize::MAX,
        n => n,
    };
    let mut window = Window::new(KeyHeap::new(keys), width, &graph.position);
    traverse(
        &graph,
        Lifecycle::OnDemand { pull: options.pull },
        &mut window,
    )
}
