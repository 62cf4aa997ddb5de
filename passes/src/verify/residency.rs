//! Residency segments, replayed from σ (DESIGN §1.3), and the violations the replay meets on the
//! way: broken ALLOC/FREE pairing, spill transitions out of sequence, reloads without a spilled
//! copy, and uses of buffers that are not resident.
//!
//! Walking σ once with a state per buffer (unallocated → resident ⇄ spilled → freed): ALLOC opens
//! a segment, SPILL_OUT closes it, SPILL_IN opens the next one (at its own offset), FREE closes the
//! last one. An event that does not fit the state is reported and otherwise ignored, so one
//! mistake yields one violation and the segments stay well formed: per buffer they are disjoint
//! in σ and alternate with spilled gaps. Also records which buffers some COPY_IN names (the
//! contest's definition of a DDR backing copy). Requires ids in range. O(V + B + uses·r) for
//! ops of at most r operands (a handful).

use super::category::{Category, Violation};
use super::sigma::Sigma;
use lattice_lir::{BufferId, Module, OpId, OpKind};

/// One residency of a buffer: the σ-interval during which its bytes are held at one offset.
pub(crate) struct Segment {
    /// The buffer resident.
    pub buffer: BufferId,
    /// The ALLOC or SPILL_IN that opens it.
    pub start: OpId,
    /// The SPILL_OUT or FREE that closes it; `None` when σ never does.
    pub end: Option<OpId>,
    /// Its byte offset, once bound.
    pub offset: Option<u64>,
    /// Compute ops naming the buffer inside the segment, in σ order, each once.
    pub users: Vec<OpId>,
    /// For a segment opened by SPILL_IN: the SPILL_OUT that closed the previous one.
    pub reloads: Option<OpId>,
}

/// Every segment, and the events that bound lifetimes.
pub(crate) struct Residencies {
    /// Segments in σ order of their starts.
    pub segments: Vec<Segment>,
    /// The segment each op opens, indexed by op id.
    pub opened_by: Vec<Option<usize>>,
    /// The segment each op closes, indexed by op id.
    pub closed_by: Vec<Option<usize>>,
    /// The accepted ALLOC of each buffer.
    pub alloc: Vec<Option<OpId>>,
    /// The accepted FREE of each buffer (it ends the lifetime even when it comes while spilled).
    pub free: Vec<Option<OpId>>,
    /// Whether some COPY_IN names the buffer, i.e. DDR holds a copy of it.
    pub copied_in: Vec<bool>,
}

#[derive(Clone, Copy)]
enum State {
    Unallocated,
    Resident(usize),
    Spilled(OpId),
    Freed(OpId),
}

/// Replays σ into residency segments, reporting what does not fit.
pub(crate) fn residencies(m: &Module, sigma: &Sigma, out: &mut Vec<Violation>) -> Residencies {
    let mut r = Residencies {
        segments: Vec::new(),
        opened_by: vec![None; m.ops.len()],
        closed_by: vec![None; m.ops.len()],
        alloc: vec![None; m.buffers.len()],
        free: vec![None; m.buffers.len()],
        copied_in: m.copied_in(),
    };
    let mut state = vec![State::Unallocated; m.buffers.len()];
    let op_name = |id: OpId| m.op(id).name;
    for &id in &sigma.order {
        let name = op_name(id);
        let mut report = |category, message: String| {
            out.push(Violation::new(Some(id), category, message));
        };
        match m.op(id).kind {
            OpKind::Alloc { buffer, offset } => {
                let b = m.buffer(buffer).name;
                match state[buffer.index()] {
                    State::Unallocated => {
                        r.alloc[buffer.index()] = Some(id);
                        state[buffer.index()] =
                            State::Resident(open(&mut r, buffer, id, offset, None));
                    }
                    _ => {
                        let first = r.alloc[buffer.index()].map_or(0, op_name);
                        report(
                            Category::Lifecycle,
                            format!("%{name} allocates @b{b} again; %{first} already did"),
                        );
                    }
                }
            }
            OpKind::Free { buffer } => {
                let b = m.buffer(buffer).name;
                match state[buffer.index()] {
                    State::Resident(s) => {
                        close(&mut r, s, id);
                        r.free[buffer.index()] = Some(id);
                        state[buffer.index()] = State::Freed(id);
                    }
                    State::Spilled(by) => {
                        report(
                            Category::Residency,
                            format!(
                                "%{name} frees @b{b} while it is spilled out by %{}; a SPILL_IN \
                                 must bring it back first",
                                op_name(by)
                            ),
                        );
                        r.free[buffer.index()] = Some(id);
                        state[buffer.index()] = State::Freed(id);
                    }
                    State::Unallocated => report(
                        Category::Lifecycle,
                        format!("%{name} frees @b{b} before any ALLOC of it"),
                    ),
                    State::Freed(by) => report(
                        Category::Lifecycle,
                        format!("%{name} frees @b{b} again; %{} already did", op_name(by)),
                    ),
                }
            }
            OpKind::SpillOut { buffer, .. } => {
                let b = m.buffer(buffer).name;
                match state[buffer.index()] {
                    State::Resident(s) => {
                        close(&mut r, s, id);
                        state[buffer.index()] = State::Spilled(id);
                    }
                    other => report(
                        Category::Residency,
                        format!(
                            "%{name} spills @b{b} out, but it is not resident ({})",
                            describe(other, op_name)
                        ),
                    ),
                }
            }
            OpKind::SpillIn { buffer, offset, .. } => {
                let b = m.buffer(buffer).name;
                match state[buffer.index()] {
                    State::Spilled(by) => {
                        state[buffer.index()] =
                            State::Resident(open(&mut r, buffer, id, Some(offset), Some(by)));
                    }
                    other => report(
                        Category::Backing,
                        format!(
                            "%{name} reloads @b{b}, but no SPILL_OUT since its last residency \
                             left a copy to reload ({})",
                            describe(other, op_name)
                        ),
                    ),
                }
            }
            OpKind::Compute { ref operands, .. } => {
                for (i, &buffer) in operands.iter().enumerate() {
                    // An operand named twice is one use.
                    if operands[..i].contains(&buffer) {
                        continue;
                    }
                    match state[buffer.index()] {
                        State::Resident(s) => r.segments[s].users.push(id),
                        other => report(
                            Category::UseOutsideResidency,
                            format!(
                                "%{name} uses @b{}, which is not resident here ({})",
                                m.buffer(buffer).name,
                                describe(other, op_name)
                            ),
                        ),
                    }
                }
            }
        }
    }
    for b in m.buffer_ids() {
        let name = m.buffer(b).name;
        let problem = match state[b.index()] {
            State::Unallocated => Some((None, format!("@b{name} is never allocated"))),
            State::Resident(_) | State::Spilled(_) => {
                Some((r.alloc[b.index()], format!("@b{name} is never freed")))
            }
            State::Freed(_) => None,
        };
        if let Some((op, message)) = problem {
            out.push(Violation::new(op, Category::Lifecycle, message));
        }
    }
    r
}

fn open(
    r: &mut Residencies,
    buffer: BufferId,
    start: OpId,
    offset: Option<u64>,
    reloads: Option<OpId>,
) -> usize {
    let s = r.segments.len();
    r.segments.push(Segment {
        buffer,
        start,
        end: None,
        offset,
        users: Vec::new(),
        reloads,
    });
    r.opened_by[start.index()] = Some(s);
    s
}

fn close(r: &mut Residencies, s: usize, end: OpId) {
    r.segments[s].end = Some(end);
    r.closed_by[end.index()] = Some(s);
}

/// Why a buffer is not resident, for messages.
fn describe(state: State, op_name: impl Fn(OpId) -> u32) -> String {
    match state {
        State::Unallocated => "not allocated yet".into(),
        State::Resident(_) => "it is resident".into(),
        State::Spilled(by) => format!("spilled out by %{}", op_name(by)),
        State::Freed(by) => format!("freed by %{}", op_name(by)),
    }
}
