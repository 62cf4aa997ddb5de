//! The two ops of one spill event, as DESIGN §1.3 defines them: a SPILL_OUT on the target's
//! spill-out pipe and a SPILL_IN on its spill-in pipe at the reload offset. The SPILL_IN always
//! costs the target's spill cost of the buffer; the SPILL_OUT costs the same unless the buffer is
//! backed (a copy in DDR exists), when it is a zero-cycle drop.
//!
//! The contest importer and the planner both build spill events here, so their costs agree by
//! construction. O(1).

use crate::ids::BufferId;
use crate::module::{Module, Op, OpKind};

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
