//! Structural verification of a [`Module`]: the invariants every phase must keep.
//!
//! Checks, in order (later checks run only when the earlier ones leave indices meaningful):
//! 1. every id a module stores (ops, buffers, tiers, pipes, dependencies) points into its arena;
//! 2. σ lists every op exactly once;
//! 3. op names and buffer names are unique;
//! 4. every dependency precedes its user in σ; when one does not and the dependencies form a
//!    cycle, the cycle is reported instead;
//! 5. every buffer has exactly one ALLOC and one FREE, ALLOC first, and every op that names the
//!    buffer lies between them in σ and depends on the ALLOC, and the FREE depends on every such
//!    op, directly or through other ops (see the `lifecycle` module for why these paths are
//!    demanded rather than derived); a buffer is declared `backed` exactly when some `COPY_IN`
//!    names it (DESIGN §1.3: only then does DDR hold a copy, which decides what a spill costs);
//! 6. every buffer fits its tier, and the sums every metric is bounded by (the ops' cycles, the
//!    buffers' sizes, the spills' traffic, the cost of spilling a full tier) fit in 64 bits, so
//!    no metric is clamped;
//! 7. phase invariants: before `planned`, no offsets, spill ops or spill/reuse dependencies; from
//!    `planned` on, every ALLOC and SPILL_IN has an offset whose range fits the tier, spill ops run
//!    on the target's spill pipes at the target's cost, and each buffer's spills alternate
//!    SPILL_OUT, SPILL_IN inside its lifetime.
//!
//! This is structure only. Whether a plan is *valid* (addresses disjoint, uses resident, timing)
//! is the independent replay's job (the `verify` pass). The rule this keeps: every module this
//! verifier accepts is one the pipeline can plan validly, or the pass that cannot fails with a
//! located error naming the defect. Complexity: O(V + E + B), plus the lifecycle walks of
//! the `lifecycle` module for lifecycle dependencies that are not direct edges.

use crate::cycle::find_cycle;
use crate::diag::{Loc, Located};
use crate::ids::{BufferId, OpId};
use crate::lifecycle::{missing_lifecycle_deps, Missing};
use crate::module::{DepKind, Module, OpKind, Phase};
use std::fmt;

/// One broken invariant, at the op or buffer it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// Where the offending entity is written, when the module came from text.
    pub loc: Option<Loc>,
    /// What is wrong.
    pub kind: VerifyErrorKind,
}

/// The structural invariants, one variant each. Names are the ones users read (`%12`, `@b3`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyErrorKind {
    /// An id stored in the module points past its arena.
    #[error("{what} refers to a {entity} that does not exist (index {index})")]
    DanglingId {
        /// The entity holding the id.
        what: String,
        /// "op", "buffer", "tier" or "pipe".
        entity: &'static str,
        /// The bad index.
        index: usize,
    },
    /// σ misses an op or lists one twice.
    #[error("the schedule lists op %{op} {count} times; every op must appear exactly once")]
    ScheduleCoverage {
        /// The op's name.
        op: u32,
        /// How often σ lists it.
        count: usize,
    },
    /// Two ops share a name.
    #[error("op name %{name} is used twice")]
    DuplicateOp {
        /// The name.
        name: u32,
    },
    /// Two buffers share a name.
    #[error("buffer name @b{name} is declared twice")]
    DuplicateBuffer {
        /// The name.
        name: u32,
    },
    /// A dependency is scheduled after (or at) its user.
    #[error("op %{op} depends on %{dep}, which comes after it in the schedule")]
    DepAfterUser {
        /// The user.
        op: u32,
        /// The dependency.
        dep: u32,
    },
    /// The dependencies form a cycle.
    #[error("dependency cycle: {}", cycle.iter().map(|n| format!("%{n}")).collect::<Vec<_>>().join(" -> "))]
    Cycle {
        /// The ops on the cycle, first repeated at the end.
        cycle: Vec<u32>,
    },
    /// A buffer has no ALLOC or no FREE, or more than one.
    #[error("buffer @b{buffer} has {count} {what} ops; it needs exactly one")]
    LifecycleCount {
        /// The buffer.
        buffer: u32,
        /// "alloc" or "free".
        what: &'static str,
        /// How many it has.
        count: usize,
    },
    /// A buffer is freed before it is allocated.
    #[error("buffer @b{buffer} is freed by %{free} before it is allocated by %{alloc}")]
    FreeBeforeAlloc {
        /// The buffer.
        buffer: u32,
        /// Its ALLOC.
        alloc: u32,
        /// Its FREE.
        free: u32,
    },
    /// An op names a buffer outside the buffer's ALLOC..FREE span.
    #[error("op %{op} uses buffer @b{buffer} outside its lifetime (%{alloc} .. %{free})")]
    UseOutsideLifetime {
        /// The op.
        op: u32,
        /// The buffer.
        buffer: u32,
        /// Its ALLOC.
        alloc: u32,
        /// Its FREE.
        free: u32,
    },
    /// An op names a buffer without depending on the buffer's ALLOC.
    #[error("op %{op} uses buffer @b{buffer} but does not depend on its ALLOC %{alloc}, directly or through other ops, so it could run before the buffer exists; add the dependency %{alloc} -> %{op}")]
    UseNotAfterAlloc {
        /// The op.
        op: u32,
        /// The buffer.
        buffer: u32,
        /// Its ALLOC.
        alloc: u32,
    },
    /// A buffer's FREE does not depend on an op that names the buffer.
    #[error("the FREE %{free} of buffer @b{buffer} does not depend on %{op}, which uses the buffer, directly or through other ops, so the buffer could be freed while %{op} runs; add the dependency %{op} -> %{free}")]
    FreeNotAfterUse {
        /// The FREE.
        free: u32,
        /// The buffer.
        buffer: u32,
        /// The op naming the buffer.
        op: u32,
    },
    /// A buffer's FREE does not depend on its ALLOC.
    #[error("the FREE %{free} of buffer @b{buffer} does not depend on its ALLOC %{alloc}, directly or through other ops; add the dependency %{alloc} -> %{free}")]
    FreeNotAfterAlloc {
        /// The FREE.
        free: u32,
        /// The buffer.
        buffer: u32,
        /// Its ALLOC.
        alloc: u32,
    },
    /// A buffer's `backed` flag disagrees with whether a COPY_IN names it.
    #[error("{}", if *declared {
        format!("buffer @b{buffer} is declared `backed`, but no COPY_IN names it, so DDR holds no copy; drop `backed`")
    } else {
        format!("buffer @b{buffer} is named by a COPY_IN, so DDR holds a copy, but it is not declared `backed`; add `backed`")
    })]
    BackedMismatch {
        /// The buffer.
        buffer: u32,
        /// Whether it is declared backed.
        declared: bool,
    },
    /// A buffer is larger than its tier.
    #[error("buffer @b{buffer} needs {size} bytes but tier {tier} holds {capacity}")]
    BufferTooLarge {
        /// The buffer.
        buffer: u32,
        /// Its size.
        size: u64,
        /// Its tier.
        tier: String,
        /// The tier's capacity.
        capacity: u64,
    },
    /// The ops' cycles add up past 2⁶⁴−1, so no makespan, busy time or critical path could be
    /// reported exactly.
    #[error("the cycles of the ops up to %{op} add up past 2^64-1, so the makespan could not be reported; use smaller cycle counts")]
    CycleOverflow {
        /// The op at which the running sum overflows (σ order).
        op: u32,
    },
    /// The buffers' sizes add up past 2⁶⁴−1, so no peak could be reported exactly.
    #[error("the sizes of the buffers up to @b{buffer} add up past 2^64-1, so the peaks could not be reported; use smaller sizes")]
    ByteOverflow {
        /// The buffer at which the running sum overflows.
        buffer: u32,
    },
    /// The plan's spills move more than 2⁶⁴−1 bytes, so its traffic could not be reported.
    #[error("the spills up to %{op} move more than 2^64-1 bytes between DDR and the chip, so the plan's traffic could not be reported")]
    TrafficOverflow {
        /// The SPILL_OUT at which the running sum overflows (σ order).
        op: u32,
    },
    /// A spill of a buffer filling the tier would cost more than 2⁶⁴−1 cycles.
    #[error("a spill of {capacity} bytes of {tier} would cost more than 2^64-1 cycles under spill_cost = {base} + {per_byte} * size")]
    SpillCostOverflow {
        /// The tier.
        tier: String,
        /// Its capacity.
        capacity: u64,
        /// The spill model's base.
        base: u64,
        /// Its cost per byte.
        per_byte: u64,
    },
    /// Something the module's phase does not allow yet.
    #[error(
        "op %{op}: {what} is not allowed in phase `{phase}`; it appears once the module is planned"
    )]
    TooEarly {
        /// The op.
        op: u32,
        /// What it carries.
        what: &'static str,
        /// The module's phase.
        phase: Phase,
    },
    /// A planned ALLOC without an offset.
    #[error("op %{op}: alloc of @b{buffer} has no offset in phase `{phase}`")]
    MissingOffset {
        /// The op.
        op: u32,
        /// The buffer.
        buffer: u32,
        /// The module's phase.
        phase: Phase,
    },
    /// An offset puts the buffer past the end of its tier.
    #[error("op %{op}: @b{buffer} at offset {offset} with size {size} ends past tier {tier} (capacity {capacity})")]
    OffsetOutOfRange {
        /// The op.
        op: u32,
        /// The buffer.
        buffer: u32,
        /// The offset.
        offset: u64,
        /// The buffer's size.
        size: u64,
        /// The tier.
        tier: String,
        /// Its capacity.
        capacity: u64,
    },
    /// A spill op's pipe or cycles disagree with the target.
    #[error("op %{op}: {what} is {found} but the target says {expected}")]
    SpillModel {
        /// The op.
        op: u32,
        /// "pipe" or "cycles".
        what: &'static str,
        /// What the op says.
        found: String,
        /// What the target implies.
        expected: String,
    },
    /// Spill ops of a buffer do not alternate out, in inside its lifetime.
    #[error("op %{op}: {problem}")]
    SpillSequence {
        /// The op.
        op: u32,
        /// What is out of sequence.
        problem: String,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for VerifyError {}

impl Located for VerifyError {
    fn loc(&self) -> Option<Loc> {
        self.loc
    }
}

/// Checks every structural invariant; `Ok` or every violation found.
pub fn verify_module(module: &Module) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier {
        m: module,
        errors: Vec::new(),
    };
    v.ids();
    if v.errors.is_empty() {
        v.coverage();
    }
    if v.errors.is_empty() {
        v.names();
        let pos = module.schedule_positions();
        v.order(&pos);
        let spans = v.lifetimes(&pos);
        if v.errors.is_empty() {
            // σ is now a topological order with every use inside its buffer's span, which the
            // lifecycle walks rely on.
            v.lifecycle_deps(&pos, &spans);
        }
        v.backing();
        v.sizes();
        v.totals();
        v.phase();
    }
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'m> {
    m: &'m Module,
    errors: Vec<VerifyError>,
}

impl Verifier<'_> {
    fn at_op(&mut self, op: OpId, kind: VerifyErrorKind) {
        let loc = self.m.op(op).loc;
        self.errors.push(VerifyError { loc, kind });
    }

    fn at_buffer(&mut self, buffer: BufferId, kind: VerifyErrorKind) {
        let loc = self.m.buffer(buffer).loc;
        self.errors.push(VerifyError { loc, kind });
    }

    fn dangling(&mut self, what: String, entity: &'static str, index: usize) {
        self.errors.push(VerifyError {
            loc: None,
            kind: VerifyErrorKind::DanglingId {
                what,
                entity,
                index,
            },
        });
    }

    fn ids(&mut self) {
        let m = self.m;
        for (i, b) in m.buffers.iter().enumerate() {
            if b.tier.index() >= m.target.tiers.len() {
                self.dangling(format!("buffer #{i}"), "tier", b.tier.index());
            }
        }
        for &p in &[m.target.spill_out_pipe, m.target.spill_in_pipe] {
            if p.index() >= m.target.pipes.len() {
                self.dangling("the target's spill model".into(), "pipe", p.index());
            }
        }
        for (i, op) in m.ops.iter().enumerate() {
            let what = || format!("op #{i} (%{})", op.name);
            for b in op.kind.buffers() {
                if b.index() >= m.buffers.len() {
                    self.dangling(what(), "buffer", b.index());
                }
            }
            if let Some(p) = op.kind.pipe() {
                if p.index() >= m.target.pipes.len() {
                    self.dangling(what(), "pipe", p.index());
                }
            }
            for d in &op.deps {
                if d.op.index() >= m.ops.len() {
                    self.dangling(what(), "op", d.op.index());
                }
            }
        }
        for id in &m.schedule {
            if id.index() >= m.ops.len() {
                self.dangling("the schedule".into(), "op", id.index());
            }
        }
    }

    fn coverage(&mut self) {
        let mut count = vec![0usize; self.m.ops.len()];
        for id in &self.m.schedule {
            count[id.index()] += 1;
        }
        for (i, &c) in count.iter().enumerate() {
            if c != 1 {
                let op = OpId::new(i);
                let name = self.m.op(op).name;
                self.at_op(op, VerifyErrorKind::ScheduleCoverage { op: name, count: c });
            }
        }
    }

    fn names(&mut self) {
        let m = self.m;
        for id in repeated(m.ops.iter().map(|op| op.name)) {
            let op = OpId::new(id);
            self.at_op(
                op,
                VerifyErrorKind::DuplicateOp {
                    name: m.op(op).name,
                },
            );
        }
        for id in repeated(m.buffers.iter().map(|b| b.name)) {
            let buffer = BufferId::new(id);
            let name = m.buffer(buffer).name;
            self.at_buffer(buffer, VerifyErrorKind::DuplicateBuffer { name });
        }
    }

    fn order(&mut self, pos: &[usize]) {
        let m = self.m;
        let mut late = Vec::new();
        for &id in &m.schedule {
            for d in &m.op(id).deps {
                if pos[d.op.index()] >= pos[id.index()] {
                    late.push((id, d.op));
                }
            }
        }
        if late.is_empty() {
            return;
        }
        if let Some(cycle) = find_cycle(m.ops.len(), |i| &m.ops[i].deps) {
            let names = cycle.iter().map(|&i| m.ops[i].name).collect();
            self.at_op(OpId::new(cycle[0]), VerifyErrorKind::Cycle { cycle: names });
            return;
        }
        for (id, dep) in late {
            let kind = VerifyErrorKind::DepAfterUser {
                op: m.op(id).name,
                dep: m.op(dep).name,
            };
            self.at_op(id, kind);
        }
    }

    /// Checks lifetimes in σ; returns each buffer's (ALLOC, FREE) when it has exactly one of each,
    /// in that order.
    fn lifetimes(&mut self, pos: &[usize]) -> Vec<Option<(OpId, OpId)>> {
        let m = self.m;
        let mut allocs: Vec<Vec<OpId>> = vec![Vec::new(); m.buffers.len()];
        let mut frees: Vec<Vec<OpId>> = vec![Vec::new(); m.buffers.len()];
        for id in m.op_ids() {
            match m.op(id).kind {
                OpKind::Alloc { buffer, .. } => allocs[buffer.index()].push(id),
                OpKind::Free { buffer } => frees[buffer.index()].push(id),
                _ => {}
            }
        }
        let mut spans = vec![None; m.buffers.len()];
        for b in m.buffer_ids() {
            let name = m.buffer(b).name;
            let (a, f) = (&allocs[b.index()], &frees[b.index()]);
            for (what, list) in [("alloc", a), ("free", f)] {
                if list.len() != 1 {
                    let count = list.len();
                    let kind = VerifyErrorKind::LifecycleCount {
                        buffer: name,
                        what,
                        count,
                    };
                    match list.get(1) {
                        Some(&second) => self.at_op(second, kind),
                        None => self.at_buffer(b, kind),
                    }
                }
            }
            if let ([a], [f]) = (a.as_slice(), f.as_slice()) {
                if pos[f.index()] < pos[a.index()] {
                    let kind = VerifyErrorKind::FreeBeforeAlloc {
                        buffer: name,
                        alloc: m.op(*a).name,
                        free: m.op(*f).name,
                    };
                    self.at_op(*f, kind);
                } else {
                    spans[b.index()] = Some((*a, *f));
                }
            }
        }
        for &id in &m.schedule {
            let op = m.op(id);
            if matches!(op.kind, OpKind::Alloc { .. } | OpKind::Free { .. }) {
                continue;
            }
            for &b in op.kind.buffers() {
                let Some((a, f)) = spans[b.index()] else {
                    continue;
                };
                let p = pos[id.index()];
                if p < pos[a.index()] || p > pos[f.index()] {
                    let kind = VerifyErrorKind::UseOutsideLifetime {
                        op: op.name,
                        buffer: m.buffer(b).name,
                        alloc: m.op(a).name,
                        free: m.op(f).name,
                    };
                    self.at_op(id, kind);
                }
            }
        }
        spans
    }

    fn lifecycle_deps(&mut self, pos: &[usize], spans: &[Option<(OpId, OpId)>]) {
        let m = self.m;
        for missing in missing_lifecycle_deps(m, pos, spans) {
            let (at, kind) = match missing {
                Missing::UseAfterAlloc { op, buffer, alloc } => (
                    op,
                    VerifyErrorKind::UseNotAfterAlloc {
                        op: m.op(op).name,
                        buffer: m.buffer(buffer).name,
                        alloc: m.op(alloc).name,
                    },
                ),
                Missing::FreeAfterUse { op, buffer, free } => {
                    let (free_name, buffer) = (m.op(free).name, m.buffer(buffer).name);
                    let kind = if matches!(m.op(op).kind, OpKind::Alloc { .. }) {
                        VerifyErrorKind::FreeNotAfterAlloc {
                            free: free_name,
                            buffer,
                            alloc: m.op(op).name,
                        }
                    } else {
                        VerifyErrorKind::FreeNotAfterUse {
                            free: free_name,
                            buffer,
                            op: m.op(op).name,
                        }
                    };
                    (free, kind)
                }
            };
            self.at_op(at, kind);
        }
    }

    /// `backed` must say whether DDR holds a copy, which is what a COPY_IN naming the buffer
    /// means; the spill cost of every plan depends on it.
    fn backing(&mut self) {
        let m = self.m;
        let copied_in = m.copied_in();
        for b in m.buffer_ids() {
            let buffer = m.buffer(b);
            if buffer.backed != copied_in[b.index()] {
                let kind = VerifyErrorKind::BackedMismatch {
                    buffer: buffer.name,
                    declared: buffer.backed,
                };
                self.at_buffer(b, kind);
            }
        }
    }

    fn sizes(&mut self) {
        let m = self.m;
        for b in m.buffer_ids() {
            let buf = m.buffer(b);
            let tier = m.target.tier(buf.tier);
            if buf.size > tier.capacity {
                let kind = VerifyErrorKind::BufferTooLarge {
                    buffer: buf.name,
                    size: buf.size,
                    tier: tier.name.clone(),
                    capacity: tier.capacity,
                };
                self.at_buffer(b, kind);
            }
        }
    }

    /// Every reported number is bounded by one of these sums — the makespan, each pipe's busy
    /// time and the critical path by the total of the ops' cycles, every peak by the total of the
    /// buffers' sizes, a spill's cycles by the cost of spilling a full tier — so a module whose
    /// sums fit in 64 bits never overflows a metric, and one whose sums do not is refused here
    /// rather than reported with a clamped number.
    fn totals(&mut self) {
        let m = self.m;
        let mut cycles = 0u64;
        for &id in &m.schedule {
            let Some(sum) = cycles.checked_add(m.op(id).kind.cycles()) else {
                let op = m.op(id).name;
                self.at_op(id, VerifyErrorKind::CycleOverflow { op });
                break;
            };
            cycles = sum;
        }
        let mut bytes = 0u64;
        for b in m.buffer_ids() {
            let Some(sum) = bytes.checked_add(m.buffer(b).size) else {
                let buffer = m.buffer(b).name;
                self.at_buffer(b, VerifyErrorKind::ByteOverflow { buffer });
                break;
            };
            bytes = sum;
        }
        if let Err(id) = m.spill_traffic_total() {
            let op = m.op(id).name;
            self.at_op(id, VerifyErrorKind::TrafficOverflow { op });
        }
        let cost = m.target.spill_cost;
        for tier in &m.target.tiers {
            let full = cost
                .per_byte
                .checked_mul(tier.capacity)
                .and_then(|c| c.checked_add(cost.base));
            if full.is_none() {
                self.errors.push(VerifyError {
                    loc: None,
                    kind: VerifyErrorKind::SpillCostOverflow {
                        tier: tier.name.clone(),
                        capacity: tier.capacity,
                        base: cost.base,
                        per_byte: cost.per_byte,
                    },
                });
            }
        }
    }

    fn phase(&mut self) {
        let m = self.m;
        let phase = m.phase;
        if !phase.has_plan() {
            for &id in &m.schedule {
                let op = m.op(id);
                let what = match op.kind {
                    OpKind::Alloc {
                        offset: Some(_), ..
                    } => Some("an offset"),
                    OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => Some("a spill op"),
                    _ if op.deps.iter().any(|d| d.kind == DepKind::Spill) => {
                        Some("a spill dependency")
                    }
                    _ if op.deps.iter().any(|d| d.kind == DepKind::Reuse) => {
                        Some("a reuse dependency")
                    }
                    _ => None,
                };
                if let Some(what) = what {
                    let kind = VerifyErrorKind::TooEarly {
                        op: op.name,
                        what,
                        phase,
                    };
                    self.at_op(id, kind);
                }
            }
            return;
        }
        // Spill state per buffer: whether the last spill op seen was a SPILL_OUT.
        let mut out = vec![false; m.buffers.len()];
        let t = &m.target;
        for &id in &m.schedule {
            let op = m.op(id);
            let offset = match op.kind {
                OpKind::Alloc { buffer, offset } => match offset {
                    Some(o) => Some((buffer, o)),
                    None => {
                        let kind = VerifyErrorKind::MissingOffset {
                            op: op.name,
                            buffer: m.buffer(buffer).name,
                            phase,
                        };
                        self.at_op(id, kind);
                        None
                    }
                },
                OpKind::SpillIn { buffer, offset, .. } => Some((buffer, offset)),
                _ => None,
            };
            if let Some((b, o)) = offset {
                let buf = m.buffer(b);
                let tier = t.tier(buf.tier);
                if o.checked_add(buf.size)
                    .is_none_or(|end| end > tier.capacity)
                {
                    let kind = VerifyErrorKind::OffsetOutOfRange {
                        op: op.name,
                        buffer: buf.name,
                        offset: o,
                        size: buf.size,
                        tier: tier.name.clone(),
                        capacity: tier.capacity,
                    };
                    self.at_op(id, kind);
                }
            }
            match op.kind {
                OpKind::SpillOut {
                    buffer,
                    pipe,
                    cycles,
                } => {
                    let buf = m.buffer(buffer);
                    let cost = if buf.backed {
                        0
                    } else {
                        t.spill_cost.cycles(buf.size)
                    };
                    self.spill_model(id, pipe, t.spill_out_pipe, cycles, cost);
                    if out[buffer.index()] {
                        self.spill_sequence(
                            id,
                            format!(
                                "@b{} is spilled twice without a reload in between",
                                buf.name
                            ),
                        );
                    }
                    out[buffer.index()] = true;
                }
                OpKind::SpillIn {
                    buffer,
                    pipe,
                    cycles,
                    ..
                } => {
                    let buf = m.buffer(buffer);
                    let cost = t.spill_cost.cycles(buf.size);
                    self.spill_model(id, pipe, t.spill_in_pipe, cycles, cost);
                    if !out[buffer.index()] {
                        self.spill_sequence(
                            id,
                            format!("@b{} is reloaded but was not spilled", buf.name),
                        );
                    }
                    out[buffer.index()] = false;
                }
                OpKind::Free { buffer } if out[buffer.index()] => {
                    let name = m.buffer(buffer).name;
                    self.spill_sequence(
                        id,
                        format!("@b{name} is freed while spilled; its SPILL_OUT needs a SPILL_IN"),
                    );
                }
                _ => {}
            }
        }
    }

    fn spill_model(
        &mut self,
        id: OpId,
        pipe: crate::ids::PipeId,
        expected_pipe: crate::ids::PipeId,
        cycles: u64,
        expected_cycles: u64,
    ) {
        let t = &self.m.target;
        let name = self.m.op(id).name;
        if pipe != expected_pipe {
            let kind = VerifyErrorKind::SpillModel {
                op: name,
                what: "pipe",
                found: t.pipe(pipe).to_owned(),
                expected: t.pipe(expected_pipe).to_owned(),
            };
            self.at_op(id, kind);
        }
        if cycles != expected_cycles {
            let kind = VerifyErrorKind::SpillModel {
                op: name,
                what: "cycles",
                found: cycles.to_string(),
                expected: expected_cycles.to_string(),
            };
            self.at_op(id, kind);
        }
    }

    fn spill_sequence(&mut self, id: OpId, problem: String) {
        let op = self.m.op(id).name;
        self.at_op(id, VerifyErrorKind::SpillSequence { op, problem });
    }
}

/// The indices of the names that repeat an earlier one, in index order. Sorting the names
/// rather than hashing them: a million of them are checked after every pass. O(n log n).
fn repeated(names: impl Iterator<Item = u32>) -> Vec<usize> {
    let mut sorted: Vec<(u32, usize)> = names.enumerate().map(|(i, n)| (n, i)).collect();
    sorted.sort_unstable();
    let mut out: Vec<usize> = sorted
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| w[1].1)
        .collect();
    out.sort_unstable();
    out
}
