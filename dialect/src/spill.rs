//! The two ops of one spill event, as DESIGN §1.3 defines them: a SPILL_OUT on the target's
//! spill-out pipe and a SPILL_IN on its spill-in pipe at the reload offset. The SPILL_IN always
//! costs the target's spill cost of the buffer; the SPILL_OUT costs the same unless the buffer is
//! backed (a copy in DDR exists), when it is a zero-cycle drop.
//!
//! The contest importer and the planner both build spill events here, so their costs agree by
//! construction. O(1).
//!
//! [`materialize`] turns a planner's decisions (ALLOC offsets, spills in spill order, the planned
//! σ) into a `planned` module: spill `k` is named N+2k / N+2k+1 as the contest numbers it, and
//! the spill and reuse dependencies are derived from the result. Every planner (DLR, COSMA's
//! placement) writes its plan through it. O(V + E) plus the dependency derivation.

use crate::ids::{BufferId, OpId};
use crate::module::{Module, Op, OpKind, Phase};
use crate::plan_deps::derive_plan_deps;

/// The SPILL_OUT and SPILL_IN of `buffer`, named `out_name` and `in_name`, without deps or
/// location (callers add them to the module and σ).
pub fn spill_ops(
    module: &Module,
    buffer: BufferId,
    reload_offset: u64,
    out_name: u32,
    in_name: u32,
) -> (Op, Op) {
    let target = &module.target;
    let buf = module.buffer(buffer);
    let full = target.spill_cost.cycles(buf.size);
    let spill_out = Op {
        name: out_name,
        kind: OpKind::SpillOut {
            buffer,
            pipe: target.spill_out_pipe,
            cycles: if buf.backed { 0 } else { full },
        },
        deps: Vec::new(),
        loc: None,
    };
    let spill_in = Op {
        name: in_name,
        kind: OpKind::SpillIn {
            buffer,
            offset: reload_offset,
            pipe: target.spill_in_pipe,
            cycles: full,
        },
        deps: Vec::new(),
        loc: None,
    };
    (spill_out, spill_in)
}

/// One entry of a planned σ: an op of the module, or the SPILL_OUT or SPILL_IN of spill `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanStep {
    /// An op already in the module.
    Op(OpId),
    /// The SPILL_OUT of spill `k` (0-based, in spill order).
    Out(usize),
    /// The SPILL_IN of spill `k`.
    In(usize),
}

/// A plan [`materialize`] cannot write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterializeError {
    /// So many spills that their contest ids no longer fit a `u32` name.
    #[error("too many spills to name them with 32-bit ids")]
    TooManySpills,
    /// Spills moving more than 2⁶⁴−1 bytes, a traffic no metric could report unclamped.
    #[error("the plan's spills move more than 2^64-1 bytes between DDR and the chip, so its traffic could not be reported")]
    TrafficOverflow,
}

/// `module` with its plan bound: ALLOC offsets from `alloc_offsets` (by buffer), the spill ops of
/// `spills` (buffer and reload offset, in spill order) named N+2k / N+2k+1 — N the contest's node
/// count, or past the largest name for hand-written modules — σ from `steps`, phase `planned`
/// and the derived spill and reuse dependencies.
pub fn materialize(
    module: &Module,
    alloc_offsets: &[u64],
    spills: &[(BufferId, u64)],
    steps: &[PlanStep],
) -> Result<Module, MaterializeError> {
    let mut out = module.clone();
    for op in &mut out.ops {
        if let OpKind::Alloc { buffer, offset } = &mut op.kind {
            *offset = Some(alloc_offsets[buffer.index()]);
        }
    }
    let n = out
        .ops
        .iter()
        .map(|op| u64::from(op.name) + 1)
        .max()
        .unwrap_or(0)
        .max(out.original_op_count() as u64);
    let name = |id: u64| u32::try_from(id).map_err(|_| MaterializeError::TooManySpills);
    let mut ids = Vec::with_capacity(spills.len());
    for (k, &(buffer, reload_offset)) in spills.iter().enumerate() {
        let base = n + 2 * k as u64;
        let (o, i) = spill_ops(&out, buffer, reload_offset, name(base)?, name(base + 1)?);
        ids.push((out.add_op(o), out.add_op(i)));
    }
    out.schedule = steps
        .iter()
        .map(|&step| match step {
            PlanStep::Op(id) => id,
            PlanStep::Out(k) => ids[k].0,
            PlanStep::In(k) => ids[k].1,
        })
        .collect();
    if out.spill_traffic_total().is_err() {
        return Err(MaterializeError::TrafficOverflow);
    }
    out.phase = Phase::Planned;
    derive_plan_deps(&mut out);
    Ok(out)
}
