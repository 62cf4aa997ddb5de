//! Fixed-order traffic lower bound: how many bytes of extra DDR traffic any memory plan must move
//! when the ops run in a given σ.
//!
//! Model. Take σ's original ops (spill events left out). A buffer must be resident at each op
//! that names it — its uses, and its ALLOC and FREE, since a residency starts at the ALLOC and a
//! spilled buffer is reloaded before its FREE (DESIGN §1.3). Between two consecutive such
//! accesses it is either kept resident — its bytes then count against its tier's capacity at
//! every access of another buffer of the tier strictly inside the gap — or spilled, which costs
//! the spill's traffic (`size` when backed, `2·size` not).
//! Keeping `y ∈ [0, size]` bytes of a gap costs `traffic · (1 − y / size)`; at each access
//! position of a tier, the buffers accessed there plus the kept bytes of the gaps spanning it
//! fit the capacity.
//! The bound is the optimum of that linear program, solved per tier with `microlp`.
//!
//! Why it is a bound: every plan with σ's order of ops keeps each gap whole or spills it at least
//! once, and its residents fit the tier at each use, so it is a feasible integral point of the
//! program. It ignores addresses (contiguity and fragmentation) and the L0 exclusivity rule, so
//! it is not always reachable. Rows are only needed at access positions: between two accesses
//! of a tier the set of spanning gaps only shrinks into the next access's row. With columns
//! scaled to bytes, each gap's column is an interval of its tier's rows (a consecutive-ones
//! matrix, totally unimodular): the LP optimum is integral in bytes, and where a tier's buffers
//! are all backed and of one size it equals Belady's optimal paging count times that size. The
//! value is rounded up after a relative tolerance of 1e-9, so float error cannot lift it above
//! the true optimum's ceiling.
//!
//! Complexity: building is O(V + E + Z) for Z nonzeros (gaps × rows they span); the simplex is
//! microlp's (polynomial in practice, exponential in the worst case).

use lattice_lir::{BufferId, Module};
use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome};

/// The bound of one module.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrafficBound {
    /// No plan with this order of ops moves fewer extra bytes.
    pub bytes: u64,
    /// The LP optimum before rounding.
    pub exact: f64,
}

/// Why no bound could be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrafficBoundError {
    /// An op's operands in one tier exceed its capacity: no plan exists for this σ.
    #[error("the operands of %{op} need {needed} bytes of {tier}, which holds {capacity}")]
    Overfull {
        /// The op's name.
        op: u32,
        /// The tier.
        tier: String,
        /// Bytes its operands need there.
        needed: u64,
        /// The tier's capacity.
        capacity: u64,
    },
    /// The solver failed.
    #[error("the traffic bound's LP for {tier} failed: {message}")]
    Solver {
        /// The tier.
        tier: String,
        /// The solver's message.
        message: String,
    },
}

/// One gap between consecutive uses of a buffer, as LP rows of its tier.
struct Gap {
    /// Rows strictly inside the gap: `first..end` of the tier's access rows.
    rows: std::ops::Range<usize>,
    size: u64,
    traffic: u64,
}

/// The fixed-order traffic lower bound of `module`'s σ (any phase; spill ops are skipped).
pub fn traffic_lower_bound(module: &Module) -> Result<TrafficBound, TrafficBoundError> {
    let m = module;
    let tiers = m.target.tiers.len();
    // Per tier: the access rows (σ order) with the bytes their buffers need there.
    let mut rows: Vec<Vec<u64>> = vec![Vec::new(); tiers];
    // Per buffer: the row of its latest access in its tier.
    let mut last_row: Vec<Option<usize>> = vec![None; m.buffers.len()];
    let mut gaps: Vec<Vec<Gap>> = (0..tiers).map(|_| Vec::new()).collect();
    let mut operands: Vec<BufferId> = Vec::new();
    let mut used = vec![false; tiers];
    for &id in &m.schedule {
        let kind = &m.op(id).kind;
        if kind.is_spill() {
            continue;
        }
        operands.clear();
        operands.extend(kind.buffers());
        operands.sort_unstable();
        operands.dedup();
        used.fill(false);
        for &b in &operands {
            let buf = m.buffer(b);
            let t = buf.tier.index();
            if !used[t] {
                used[t] = true;
                rows[t].push(0);
            }
            let row = rows[t].len() - 1;
            rows[t][row] += buf.size;
            if let Some(prev) = last_row[b.index()].replace(row) {
                if prev + 1 < row && buf.size > 0 {
                    gaps[t].push(Gap {
                        rows: prev + 1..row,
                        size: buf.size,
                        // An LP weight: a spill too large to count is the costliest.
                        traffic: buf.spill_traffic().unwrap_or(u64::MAX),
                    });
                }
            }
        }
        for (t, &u) in used.iter().enumerate() {
            let capacity = m.target.tiers[t].capacity;
            let needed = rows[t].last().copied().unwrap_or(0);
            if u && needed > capacity {
                return Err(TrafficBoundError::Overfull {
                    op: m.op(id).name,
                    tier: m.target.tiers[t].name.clone(),
                    needed,
                    capacity,
                });
            }
        }
    }
    let mut exact = 0.0;
    for t in 0..tiers {
        exact += tier_bound(m, t, &rows[t], &gaps[t])?;
    }
    let tolerance = 1e-9 * f64::max(exact, 1.0);
    Ok(TrafficBound {
        bytes: (exact - tolerance).ceil().max(0.0) as u64,
        exact,
    })
}

/// The LP optimum of one tier: the traffic of the gaps not kept.
fn tier_bound(m: &Module, t: usize, rows: &[u64], gaps: &[Gap]) -> Result<f64, TrafficBoundError> {
    let capacity = m.target.tiers[t].capacity;
    if gaps.is_empty() {
        return Ok(0.0);
    }
    let mut pb = Problem::new(OptimizationDirection::Maximize);
    let mut by_row: Vec<Vec<(microlp::Variable, f64)>> = vec![Vec::new(); rows.len()];
    let mut all = 0.0;
    for gap in gaps {
        let per_byte = gap.traffic as f64 / gap.size as f64;
        let kept = pb.add_var(per_byte, (0.0, gap.size as f64));
        all += gap.traffic as f64;
        for row in gap.rows.clone() {
            by_row[row].push((kept, 1.0));
        }
    }
    for (row, terms) in by_row.into_iter().enumerate() {
        if !terms.is_empty() {
            // The caller checked that the operands of every row fit the tier.
            pb.add_constraint(terms, ComparisonOp::Le, (capacity - rows[row]) as f64);
        }
    }
    let failed = |message: String| TrafficBoundError::Solver {
        tier: m.target.tiers[t].name.clone(),
        message,
    };
    match pb.solve().map_err(|e| failed(e.to_string()))? {
        SolveOutcome::Solution(solved) => Ok((all - solved.objective()).max(0.0)),
        // Without limits the solver is never interrupted; an interrupted LP bounds nothing.
        SolveOutcome::Interrupted(_) => Err(failed("interrupted".into())),
    }
}
