//! The LIR data model: a module holds a target, buffers, ops and the schedule σ.
//!
//! Ops live in an arena indexed by [`OpId`]; `Module::schedule` lists every op exactly once and *is*
//! σ — the printer writes ops in that order and the parser reads them back in it. Reordering passes
//! permute `schedule`; planning passes append spill ops to the arena and splice them into it.
//! Dependencies are stored on the consumer (`after(...)` in the text), each with a kind. Structural
//! invariants are checked by [`crate::verify`], not enforced by construction, so passes and tests
//! can build any module and ask whether it is well formed.

use crate::diag::Loc;
use crate::ids::{BufferId, OpId, PipeId, TierId};
use crate::target::Target;
use std::fmt;

/// How far a module has come through the pipeline. Moves only forward; selects the invariants the
/// verifier checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Read from text or JSON; σ is whatever order the input had.
    Parsed,
    /// σ was chosen by an ordering pass; no addresses yet.
    Scheduled,
    /// Offsets, spill events and spill/reuse dependencies are bound (the memory-plan contract).
    Planned,
    /// The per-pipe order was refined without touching the plan.
    Refined,
}

impl Phase {
    /// Every phase, in pipeline order.
    pub const ALL: [Phase; 4] = [
        Phase::Parsed,
        Phase::Scheduled,
        Phase::Planned,
        Phase::Refined,
    ];

    /// The keyword used in `phase(...)`.
    pub fn keyword(self) -> &'static str {
        match self {
            Phase::Parsed => "parsed",
            Phase::Scheduled => "scheduled",
            Phase::Planned => "planned",
            Phase::Refined => "refined",
        }
    }

    /// Parses a `phase(...)` keyword.
    pub fn from_keyword(word: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.keyword() == word)
    }

    /// Whether a module in this phase carries a memory plan (offsets, spills, reuse deps).
    pub fn has_plan(self) -> bool {
        self >= Phase::Planned
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// A buffer: a block of bytes in one tier, allocated once and freed once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The contest `BufId`, printed as `@b<name>`.
    pub name: u32,
    /// The tier the buffer lives in.
    pub tier: TierId,
    /// Size in bytes.
    pub size: u64,
    /// A copy exists in DDR (the buffer is read by a COPY_IN), so spilling it writes nothing back.
    pub backed: bool,
    /// Where the declaration is in the source text, if it came from text.
    pub loc: Option<Loc>,
}

impl Buffer {
    /// Extra DDR bytes one spill of this buffer moves (DESIGN §1.3): the reload only when it is
    /// backed, else the writeback too; `None` when that exceeds 2⁶⁴−1.
    pub fn spill_traffic(&self) -> Option<u64> {
        if self.backed {
            Some(self.size)
        } else {
            self.size.checked_mul(2)
        }
    }
}

/// Why one op must come after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepKind {
    /// An edge of the input DAG.
    Precedence,
    /// An edge added around a spill event (DESIGN §1.3).
    Spill,
    /// An address-reuse hand-off: the previous occupant of the bytes ends before the next starts.
    Reuse,
}

impl DepKind {
    /// The suffix written after the op name in `after(...)`; precedence has none.
    pub fn suffix(self) -> Option<&'static str> {
        match self {
            DepKind::Precedence => None,
            DepKind::Spill => Some("spill"),
            DepKind::Reuse => Some("reuse"),
        }
    }
}

/// One incoming dependency of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dep {
    /// The op that must finish first.
    pub op: OpId,
    /// Why.
    pub kind: DepKind,
}

/// What an op does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// Start of a buffer's lifetime; `offset` is bound once planned.
    Alloc {
        /// The buffer allocated.
        buffer: BufferId,
        /// Byte offset in the buffer's tier.
        offset: Option<u64>,
    },
    /// End of a buffer's lifetime.
    Free {
        /// The buffer freed.
        buffer: BufferId,
    },
    /// A command of the input DAG running on a pipe.
    Compute {
        /// The command's opcode (`COPY_IN`, `MATMUL`, …).
        opcode: String,
        /// The pipe it runs on.
        pipe: PipeId,
        /// Its duration.
        cycles: u64,
        /// The buffers it reads or writes, `operands[0]` normally the one written.
        operands: Vec<BufferId>,
    },
    /// Moves a buffer out of its tier (dropped when backed: zero cycles, zero traffic).
    SpillOut {
        /// The buffer evicted.
        buffer: BufferId,
        /// The pipe it runs on (the target's spill-out pipe).
        pipe: PipeId,
        /// Its duration.
        cycles: u64,
    },
    /// Brings a spilled buffer back, possibly at a new offset.
    SpillIn {
        /// The buffer reloaded.
        buffer: BufferId,
        /// Byte offset of the new residency.
        offset: u64,
        /// The pipe it runs on (the target's spill-in pipe).
        pipe: PipeId,
        /// Its duration.
        cycles: u64,
    },
}

impl OpKind {
    /// The pipe this op occupies, if any (ALLOC and FREE take none).
    pub fn pipe(&self) -> Option<PipeId> {
        match *self {
            OpKind::Alloc { .. } | OpKind::Free { .. } => None,
            OpKind::Compute { pipe, .. }
            | OpKind::SpillOut { pipe, .. }
            | OpKind::SpillIn { pipe, .. } => Some(pipe),
        }
    }

    /// How long this op runs; ALLOC and FREE take zero cycles.
    pub fn cycles(&self) -> u64 {
        match *self {
            OpKind::Alloc { .. } | OpKind::Free { .. } => 0,
            OpKind::Compute { cycles, .. }
            | OpKind::SpillOut { cycles, .. }
            | OpKind::SpillIn { cycles, .. } => cycles,
        }
    }

    /// The buffers this op names: its operands, or the one buffer of a lifecycle or spill op.
    pub fn buffers(&self) -> &[BufferId] {
        match self {
            OpKind::Compute { operands, .. } => operands,
            OpKind::Alloc { buffer, .. }
            | OpKind::Free { buffer }
            | OpKind::SpillOut { buffer, .. }
            | OpKind::SpillIn { buffer, .. } => std::slice::from_ref(buffer),
        }
    }

    /// Whether this is a spill event inserted by planning.
    pub fn is_spill(&self) -> bool {
        matches!(self, OpKind::SpillOut { .. } | OpKind::SpillIn { .. })
    }
}

/// One node of the command DAG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// The contest node id, printed as `%<name>`; unique in the module.
    pub name: u32,
    /// What the op does.
    pub kind: OpKind,
    /// Ops that must come first, in the order written.
    pub deps: Vec<Dep>,
    /// Where the op is in the source text, if it came from text.
    pub loc: Option<Loc>,
}

/// A whole program: the unit every pass transforms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// The module's name (the case name for imported workloads).
    pub name: String,
    /// Pipeline phase.
    pub phase: Phase,
    /// The machine.
    pub target: Target,
    /// Buffers, indexed by [`BufferId`].
    pub buffers: Vec<Buffer>,
    /// Ops, indexed by [`OpId`].
    pub ops: Vec<Op>,
    /// σ: every op exactly once, in execution order.
    pub schedule: Vec<OpId>,
}

impl Module {
    /// An empty module for `target`.
    pub fn new(name: impl Into<String>, target: Target) -> Self {
        Module {
            name: name.into(),
            phase: Phase::Parsed,
            target,
            buffers: Vec::new(),
            ops: Vec::new(),
            schedule: Vec::new(),
        }
    }

    /// The op with this id.
    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.index()]
    }

    /// The op with this id, mutably.
    pub fn op_mut(&mut self, id: OpId) -> &mut Op {
        &mut self.ops[id.index()]
    }

    /// The buffer with this id.
    pub fn buffer(&self, id: BufferId) -> &Buffer {
        &self.buffers[id.index()]
    }

    /// Declares a buffer and returns its id.
    pub fn add_buffer(&mut self, buffer: Buffer) -> BufferId {
        self.buffers.push(buffer);
        BufferId::new(self.buffers.len() - 1)
    }

    /// Adds an op to the arena (not to σ) and returns its id.
    pub fn add_op(&mut self, op: Op) -> OpId {
        self.ops.push(op);
        OpId::new(self.ops.len() - 1)
    }

    /// Adds an op and appends it to σ.
    pub fn push_op(&mut self, op: Op) -> OpId {
        let id = self.add_op(op);
        self.schedule.push(id);
        id
    }

    /// All op ids in arena order.
    pub fn op_ids(&self) -> impl Iterator<Item = OpId> + '_ {
        (0..self.ops.len()).map(OpId::new)
    }

    /// All buffer ids in declaration order.
    pub fn buffer_ids(&self) -> impl Iterator<Item = BufferId> + '_ {
        (0..self.buffers.len()).map(BufferId::new)
    }

    /// The position of every op in σ, indexed by op id (`usize::MAX` for ops missing from σ).
    pub fn schedule_positions(&self) -> Vec<usize> {
        let mut pos = vec![usize::MAX; self.ops.len()];
        for (i, &id) in self.schedule.iter().enumerate() {
            if let Some(slot) = pos.get_mut(id.index()) {
                *slot = i;
            }
        }
        pos
    }

    /// Number of ops of the input DAG (everything but spill events): the contest's N.
    pub fn original_op_count(&self) -> usize {
        self.ops.iter().filter(|op| !op.kind.is_spill()).count()
    }

    /// The extra DDR traffic of the plan (DESIGN §1.3): the sum over SPILL_OUTs of their buffer's
    /// [`Buffer::spill_traffic`], or, when it exceeds 2⁶⁴−1 bytes (which no metric may clamp), the
    /// SPILL_OUT at which the running sum, in σ order, overflows.
    pub fn spill_traffic_total(&self) -> Result<u64, OpId> {
        self.schedule
            .iter()
            .try_fold(0u64, |sum, &id| match self.op(id).kind {
                OpKind::SpillOut { buffer, .. } => self
                    .buffer(buffer)
                    .spill_traffic()
                    .and_then(|t| sum.checked_add(t))
                    .ok_or(id),
                _ => Ok(sum),
            })
    }

    /// By buffer: whether some COPY_IN names it, which is what `backed` must say (DESIGN §1.3:
    /// only then does DDR hold a copy).
    pub fn copied_in(&self) -> Vec<bool> {
        let mut copied_in = vec![false; self.buffers.len()];
        for op in &self.ops {
            if let OpKind::Compute {
                opcode, operands, ..
            } = &op.kind
            {
                if opcode == "COPY_IN" {
                    for b in operands {
                        if let Some(slot) = copied_in.get_mut(b.index()) {
                            *slot = true;
                        }
                    }
                }
            }
        }
        copied_in
    }

    /// Number of dependencies over all ops.
    pub fn dep_count(&self) -> usize {
        self.ops.iter().map(|op| op.deps.len()).sum()
    }
}
