//! A LIR [`Module`] as a [`LatticeModuleDesc`]: what the C++ side writes back into MLIR ops.
//!
//! Invariants: buffers are in declaration order with `pos` their index; ops are in σ order, so
//! every dependency (which LIR puts earlier in σ) is an index below its op's and the C++ side
//! builds or updates the ops in one walk; `order` is the ops' ids in σ; every string points into
//! the module, so the view is valid while the module is unchanged (the handle rebuilds it after a
//! pass). Cost: O(V + E + B) to build.

use crate::abi::*;
use lattice_lir::{DepKind, Module, OpKind, PipeId};

/// The arrays a description points into.
pub struct View {
    /// The description itself.
    pub desc: LatticeModuleDesc,
    _tiers: Vec<LatticeTier>,
    _pipes: Vec<LatticeStr>,
    _buffers: Vec<LatticeBuffer>,
    _ops: Vec<LatticeOp>,
    _buffer_refs: Vec<u32>,
    _dep_ops: Vec<u32>,
    _dep_kinds: Vec<LatticeDepKind>,
    _order: Vec<i64>,
}

/// The ABI's number for a dependency kind.
pub fn dep_kind(kind: DepKind) -> LatticeDepKind {
    match kind {
        DepKind::Precedence => LATTICE_DEP_PRECEDENCE,
        DepKind::Spill => LATTICE_DEP_SPILL,
        DepKind::Reuse => LATTICE_DEP_REUSE,
    }
}

/// The name of pipe `pipe` of `module`'s target (empty when there is no such pipe).
fn pipe_name(module: &Module, pipe: PipeId) -> LatticeStr {
    let name = module.target.pipes.get(pipe.index());
    name.map_or(LatticeStr::of(""), |p| LatticeStr::of(p))
}

/// The flat description of `module`, whose strings point into it. A verified module's
/// dependencies all come earlier in σ; one outside σ is `LATTICE_NONE`, an unknown name empty.
pub fn view(module: &Module) -> View {
    let target = &module.target;
    let tiers: Vec<LatticeTier> = target
        .tiers
        .iter()
        .map(|t| LatticeTier {
            name: LatticeStr::of(&t.name),
            capacity: t.capacity,
            staging: t.staging,
        })
        .collect();
    let pipes: Vec<LatticeStr> = target.pipes.iter().map(|p| LatticeStr::of(p)).collect();
    let buffers: Vec<LatticeBuffer> = module
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| LatticeBuffer {
            id: b.name,
            pos: i as u32,
            tier: target
                .tiers
                .get(b.tier.index())
                .map_or(LatticeStr::of(""), |t| LatticeStr::of(&t.name)),
            size: b.size,
            backed: b.backed,
        })
        .collect();
    let position = module.schedule_positions();
    let mut ops = Vec::with_capacity(module.schedule.len());
    let mut buffer_refs = Vec::with_capacity(module.schedule.len() * 2);
    let mut dep_ops = Vec::with_capacity(module.dep_count());
    let mut dep_kinds = Vec::with_capacity(module.dep_count());
    for &id in &module.schedule {
        let op = module.op(id);
        let buffers_begin = buffer_refs.len() as u32;
        buffer_refs.extend(op.kind.buffers().iter().map(|b| b.index() as u32));
        let deps_begin = dep_ops.len() as u32;
        for dep in &op.deps {
            let at = position.get(dep.op.index()).copied().unwrap_or(usize::MAX);
            dep_ops.push(u32::try_from(at).unwrap_or(LATTICE_NONE));
            dep_kinds.push(dep_kind(dep.kind));
        }
        let pipe = op
            .kind
            .pipe()
            .map_or(LatticeStr::of(""), |p| pipe_name(module, p));
        let (kind, opcode, offset) = match &op.kind {
            OpKind::Alloc { offset, .. } => (LatticeOpKind::Alloc, "", *offset),
            OpKind::Free { .. } => (LatticeOpKind::Free, "", None),
            OpKind::Compute { opcode, .. } => (LatticeOpKind::Command, opcode.as_str(), None),
            OpKind::SpillOut { .. } => (LatticeOpKind::SpillOut, "", None),
            OpKind::SpillIn { offset, .. } => (LatticeOpKind::SpillIn, "", Some(*offset)),
        };
        ops.push(LatticeOp {
            kind,
            index: id.index() as u32,
            id: op.name,
            opcode: LatticeStr::of(opcode),
            pipe,
            cycles: op.kind.cycles(),
            offset: offset.unwrap_or(0),
            has_offset: offset.is_some(),
            buffers_begin,
            buffer_count: buffer_refs.len() as u32 - buffers_begin,
            deps_begin,
            dep_count: op.deps.len() as u32,
        });
    }
    let order: Vec<i64> = ops.iter().map(|op| i64::from(op.id)).collect();
    let desc = LatticeModuleDesc {
        name: LatticeStr::of(&module.name),
        phase: LatticeStr::of(module.phase.keyword()),
        target: LatticeTarget {
            tiers: tiers.as_ptr(),
            tier_count: tiers.len(),
            pipes: pipes.as_ptr(),
            pipe_count: pipes.len(),
            spill_out: pipe_name(module, target.spill_out_pipe),
            spill_in: pipe_name(module, target.spill_in_pipe),
            spill_cost_base: target.spill_cost.base,
            spill_cost_per_byte: target.spill_cost.per_byte,
            l0_exclusive: target.l0_exclusive,
        },
        buffers: buffers.as_ptr(),
        buffer_count: buffers.len(),
        ops: ops.as_ptr(),
        op_count: ops.len(),
        buffer_refs: buffer_refs.as_ptr(),
        buffer_ref_count: buffer_refs.len(),
        dep_ops: dep_ops.as_ptr(),
        dep_kinds: dep_kinds.as_ptr(),
        dep_count: dep_ops.len(),
        order: order.as_ptr(),
        order_count: order.len(),
    };
    View {
        desc,
        _tiers: tiers,
        _pipes: pipes,
        _buffers: buffers,
        _ops: ops,
        _buffer_refs: buffer_refs,
        _dep_ops: dep_ops,
        _dep_kinds: dep_kinds,
        _order: order,
    }
}
