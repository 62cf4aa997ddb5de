//! Import and export of the contest format: JSON command graphs and schedule/memory/spill trios.
//!
//! [`import_graph`] turns a contest JSON graph into a `parsed` module, [`import_solution`] binds a
//! solution trio to such a module and yields a `planned` one, and [`export_trio`] writes a module
//! back as the three files. Invariants kept by all three: node ids are op names (`%12` is contest
//! node 12), BufIds are buffer names, spill ops of the k-th spill (σ order of SPILL_OUTs) carry ids
//! N+2k and N+2k+1, and every module returned passes [`crate::verify_module`]. No input, however
//! malformed, makes them panic; every failure is one [`ContestError`] naming the node, edge or
//! `file:line` it concerns. Complexity: O(text + (V + E) log V) for each direction.

mod export;
mod graph;
mod locate;
mod range;
mod solution;

pub use export::{export_trio, Trio};
pub use graph::{import_graph, ImportOptions};
pub use solution::{import_solution, SolutionFile};

use crate::diag::{Loc, Located};
use crate::ids::OpId;
use crate::module::{Module, Phase};
use crate::verify::VerifyError;
use std::fmt;

/// A node of the JSON graph, as users find it: its position in `Nodes` and its `Id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRef {
    /// 0-based position in the `Nodes` array.
    pub index: usize,
    /// The node's `Id` field.
    pub id: u32,
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node #{} (Id {})", self.index, self.id)
    }
}

/// Why a contest graph, solution or export is rejected. Graph errors concern the JSON text
/// (located by line and column when possible); solution errors carry the name of the solution
/// file their line is in (see [`ContestError::file`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContestError {
    /// The text is not JSON.
    #[error("malformed JSON: {message}")]
    Syntax {
        /// Where the parser stopped.
        loc: Loc,
        /// What it expected.
        message: String,
    },
    /// The JSON lacks a field or has one of the wrong type.
    #[error("{message}")]
    Shape {
        /// Where the offending value ends.
        loc: Loc,
        /// serde's description of the mismatch.
        message: String,
    },
    /// A number that does not fit its field's integer type.
    #[error("{place}: {text} is not an integer in {range}")]
    NumberOutOfRange {
        /// Where the number is written.
        loc: Loc,
        /// The node and field, or the edge, holding it.
        place: String,
        /// The number as written.
        text: String,
        /// The field's range.
        range: &'static str,
    },
    /// A capacity override names a tier the target does not have.
    #[error("capacity override names unknown tier \"{tier}\"; valid tiers: {valid}")]
    UnknownCapacityTier {
        /// The name given.
        tier: String,
        /// The target's tiers.
        valid: String,
    },
    /// A node is neither a lifecycle node nor an operation.
    #[error("{node}: {problem}")]
    NodeShape {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The node.
        node: NodeRef,
        /// Which fields are missing or out of place.
        problem: String,
    },
    /// An `Op` that LIR cannot spell as an opcode.
    #[error("{node}: Op \"{opcode}\" is not a valid opcode; opcodes start with an upper-case letter followed by upper-case letters, digits or `_`")]
    BadOpcode {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The node.
        node: NodeRef,
        /// The `Op` field.
        opcode: String,
    },
    /// A `Type` that is not a tier of the target.
    #[error("{node}: unknown tier \"{found}\"; valid tiers: {valid}")]
    UnknownTier {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The node.
        node: NodeRef,
        /// The `Type` field.
        found: String,
        /// The target's tiers.
        valid: String,
    },
    /// A `Pipe` that is not a pipe of the target.
    #[error("{node}: unknown pipe \"{found}\"; valid pipes: {valid}")]
    UnknownPipe {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The node.
        node: NodeRef,
        /// The `Pipe` field.
        found: String,
        /// The target's pipes.
        valid: String,
    },
    /// Two nodes share an `Id`.
    #[error("{node}: Id {} is already used by node #{first}; ids must be exactly 0..N-1, one per node", node.id)]
    DuplicateId {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The second node with the id.
        node: NodeRef,
        /// Index of the first one.
        first: usize,
    },
    /// An `Id` outside 0..N-1, which leaves a gap.
    #[error("{node}: Id {} is out of range; ids must be exactly 0..{} for {count} nodes, and Id {missing} is missing", node.id, count.saturating_sub(1))]
    IdGap {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The node.
        node: NodeRef,
        /// Number of nodes.
        count: usize,
        /// The smallest id no node has.
        missing: u32,
    },
    /// An edge that is not a `[src, dst]` pair.
    #[error("edge #{index} has {len} entries; an edge is a pair [src, dst]")]
    EdgeShape {
        /// The edge's place in the JSON text.
        loc: Option<Loc>,
        /// Position in `Edges`.
        index: usize,
        /// How many entries it has.
        len: usize,
    },
    /// An edge names a node that does not exist.
    #[error("edge #{index} [{src}, {dst}]: node {missing} does not exist")]
    EdgeEndpoint {
        /// The edge's place in the JSON text.
        loc: Option<Loc>,
        /// Position in `Edges`.
        index: usize,
        /// Source id.
        src: u32,
        /// Destination id.
        dst: u32,
        /// The endpoint that does not exist.
        missing: u32,
    },
    /// An edge from a node to itself.
    #[error("edge #{index} [{node}, {node}] is a self-edge: node {node} cannot come after itself")]
    SelfEdge {
        /// The edge's place in the JSON text.
        loc: Option<Loc>,
        /// Position in `Edges`.
        index: usize,
        /// The node.
        node: u32,
    },
    /// The edges form a cycle, so no schedule exists.
    #[error("the edges form a cycle: {}", join_ids(cycle, " -> "))]
    Cycle {
        /// The node ids on the cycle in edge direction, the first repeated at the end.
        cycle: Vec<u32>,
    },
    /// A buffer is allocated but never freed.
    #[error(
        "{node}: buffer {buffer} is allocated but never freed (no FREE node has BufId {buffer})"
    )]
    AllocWithoutFree {
        /// The ALLOC node's place in the JSON text.
        loc: Option<Loc>,
        /// The ALLOC node.
        node: NodeRef,
        /// The BufId.
        buffer: u32,
    },
    /// A buffer is freed but never allocated.
    #[error(
        "{node}: buffer {buffer} is freed but never allocated (no ALLOC node has BufId {buffer})"
    )]
    FreeWithoutAlloc {
        /// The FREE node's place in the JSON text.
        loc: Option<Loc>,
        /// The FREE node.
        node: NodeRef,
        /// The BufId.
        buffer: u32,
    },
    /// Two ALLOC or two FREE nodes for one buffer.
    #[error("{node}: buffer {buffer} already has a{} {what} node ({first}); each buffer has exactly one", if *what == "ALLOC" { "n" } else { "" })]
    DuplicateLifecycle {
        /// The second node's place in the JSON text.
        loc: Option<Loc>,
        /// The second node.
        node: NodeRef,
        /// `ALLOC` or `FREE`.
        what: &'static str,
        /// The BufId.
        buffer: u32,
        /// The first node.
        first: NodeRef,
    },
    /// ALLOC and FREE of a buffer disagree on its size or tier.
    #[error("{node}: FREE of buffer {buffer} has {field} {found} but its ALLOC, {alloc}, has {field} {expected}")]
    LifecycleMismatch {
        /// The FREE node's place in the JSON text.
        loc: Option<Loc>,
        /// The FREE node.
        node: NodeRef,
        /// The BufId.
        buffer: u32,
        /// The ALLOC node.
        alloc: NodeRef,
        /// `Size` or `Type`.
        field: &'static str,
        /// The FREE's value.
        found: String,
        /// The ALLOC's value.
        expected: String,
    },
    /// An operation names a buffer no ALLOC declares.
    #[error("{node}: Bufs names buffer {buffer}, which no ALLOC node declares")]
    UndeclaredBuffer {
        /// The node's place in the JSON text.
        loc: Option<Loc>,
        /// The operation.
        node: NodeRef,
        /// The BufId.
        buffer: u32,
    },
    /// A buffer does not fit its tier.
    #[error("{node}: buffer {buffer} has Size {size} but tier {tier} holds only {capacity} bytes")]
    BufferTooLarge {
        /// The ALLOC node's place in the JSON text.
        loc: Option<Loc>,
        /// The ALLOC node.
        node: NodeRef,
        /// The BufId.
        buffer: u32,
        /// Its size.
        size: u64,
        /// Its tier.
        tier: String,
        /// The tier's capacity (after overrides).
        capacity: u64,
    },
    /// A buffer of size zero.
    #[error("{node}: buffer {buffer} has Size 0; a buffer must occupy at least one byte, or it has no address range to plan")]
    EmptyBuffer {
        /// The ALLOC node's place in the JSON text.
        loc: Option<Loc>,
        /// The ALLOC node.
        node: NodeRef,
        /// The BufId.
        buffer: u32,
    },
    /// A solution line that does not have the expected form.
    #[error("malformed line: expected {expected}, found \"{found}\"")]
    MalformedLine {
        /// The solution file.
        file: String,
        /// The line.
        loc: Loc,
        /// What the line should look like.
        expected: &'static str,
        /// The line as written (trimmed).
        found: String,
    },
    /// A schedule id that is neither a node nor a spill of the spill file.
    #[error("id {id} is neither a node of the graph (0..{}) nor a spill id{}", nodes.saturating_sub(1), match spills {
        Some(s) => format!(" of the {s} spills in the spill file ({nodes}..{})", (*nodes as u64 + 2 * *s as u64).saturating_sub(1)),
        None => " (no spill file was given)".to_owned(),
    })]
    UnknownId {
        /// The schedule file.
        file: String,
        /// The line.
        loc: Loc,
        /// The id.
        id: u64,
        /// Number of nodes of the graph.
        nodes: usize,
        /// Number of spill lines, when a spill file was given.
        spills: Option<usize>,
    },
    /// A schedule lists an id twice.
    #[error("id {id} is listed twice (first on line {first_line})")]
    DuplicateScheduleId {
        /// The schedule file.
        file: String,
        /// The second occurrence.
        loc: Loc,
        /// The id.
        id: u64,
        /// Line of the first occurrence.
        first_line: u32,
    },
    /// Nodes of the graph that the schedule does not list.
    #[error("{}", missing_list(*count, missing, ["node", "is missing from the schedule"], ["nodes", "are missing from the schedule"]))]
    MissingFromSchedule {
        /// The schedule file.
        file: String,
        /// The first few missing ids.
        missing: Vec<u32>,
        /// How many are missing.
        count: usize,
    },
    /// A memory or spill line names a buffer the graph does not have.
    #[error("unknown buffer {buffer}; the graph has no buffer with this BufId")]
    UnknownBuffer {
        /// The memory or spill file.
        file: String,
        /// The line.
        loc: Loc,
        /// The BufId written.
        buffer: u64,
    },
    /// The memory file lists a buffer twice.
    #[error("buffer {buffer} is listed twice (first on line {first_line})")]
    DuplicateBuffer {
        /// The memory file.
        file: String,
        /// The second occurrence.
        loc: Loc,
        /// The BufId.
        buffer: u32,
        /// Line of the first occurrence.
        first_line: u32,
    },
    /// Buffers the memory file does not place.
    #[error("{}", missing_list(*count, missing, ["buffer", "has no offset in the memory file"], ["buffers", "have no offset in the memory file"]))]
    MissingBuffers {
        /// The memory file.
        file: String,
        /// The first few missing BufIds.
        missing: Vec<u32>,
        /// How many are missing.
        count: usize,
    },
    /// An offset that puts a buffer past the end of its tier.
    #[error("buffer {buffer} at offset {offset} with size {size} ends past tier {tier} (capacity {capacity})")]
    OffsetOutOfRange {
        /// The memory or spill file.
        file: String,
        /// The line.
        loc: Loc,
        /// The BufId.
        buffer: u32,
        /// The offset.
        offset: u64,
        /// The buffer's size.
        size: u64,
        /// Its tier.
        tier: String,
        /// The tier's capacity.
        capacity: u64,
    },
    /// A spill line whose SPILL_OUT or SPILL_IN id the schedule does not list.
    #[error("spill #{spill} (buffer {buffer}) needs ids {} (SPILL_OUT) and {} (SPILL_IN) in the schedule, but {missing}", spill_out_id(*nodes, *spill), spill_out_id(*nodes, *spill).saturating_add(1))]
    SpillIncomplete {
        /// The spill file.
        file: String,
        /// The spill's line.
        loc: Loc,
        /// The spill's index k.
        spill: usize,
        /// Its buffer.
        buffer: u32,
        /// Number of nodes of the graph.
        nodes: usize,
        /// Which ids are missing, in words.
        missing: &'static str,
    },
    /// A SPILL_IN scheduled before its SPILL_OUT.
    #[error("SPILL_IN {id} of spill #{spill} comes before its SPILL_OUT {} (line {out_line})", id.saturating_sub(1))]
    ReloadBeforeSpill {
        /// The schedule file.
        file: String,
        /// The SPILL_IN's line.
        loc: Loc,
        /// The spill's index k.
        spill: usize,
        /// The SPILL_IN's id.
        id: u64,
        /// Line of the SPILL_OUT.
        out_line: u32,
    },
    /// A solution was given for a module that already has a plan.
    #[error("the graph is already in phase `{phase}` or has spill ops; a solution binds only to an unplanned graph")]
    AlreadyPlanned {
        /// Its phase.
        phase: Phase,
    },
    /// Original ops are not named exactly 0..N-1, so their names are not contest ids.
    #[error("{problem}; the contest format needs the {count} original ops named exactly %0..%{}", count.saturating_sub(1))]
    OpNames {
        /// What is wrong.
        problem: String,
        /// Number of original ops.
        count: usize,
    },
    /// Spill ops that do not pair up as SPILL_OUT then SPILL_IN of one buffer.
    #[error("op %{op}: {problem}")]
    UnpairedSpill {
        /// The op.
        op: u32,
        /// What is wrong.
        problem: String,
    },
    /// A planned module whose buffer has no ALLOC offset.
    #[error("buffer @b{buffer} has {problem}; a planned module needs exactly one ALLOC with an offset per buffer")]
    MissingOffset {
        /// The buffer.
        buffer: u32,
        /// What it has instead.
        problem: &'static str,
    },
    /// The imported module breaks a structural invariant.
    #[error("{}{}", errors.first().map(ToString::to_string).unwrap_or_default(), match errors.len() { 0 | 1 => String::new(), n => format!(" (and {} more violations)", n - 1) })]
    Invalid {
        /// The solution file the locations refer to; `None` for the JSON graph.
        file: Option<String>,
        /// Every violation, located at its node or schedule line.
        errors: Vec<VerifyError>,
    },
}

impl ContestError {
    /// The solution file the error is in, when it is in one; `None` means the JSON graph (or,
    /// for options and export errors, no file at all).
    pub fn file(&self) -> Option<&str> {
        match self {
            ContestError::MalformedLine { file, .. }
            | ContestError::UnknownId { file, .. }
            | ContestError::DuplicateScheduleId { file, .. }
            | ContestError::MissingFromSchedule { file, .. }
            | ContestError::UnknownBuffer { file, .. }
            | ContestError::DuplicateBuffer { file, .. }
            | ContestError::MissingBuffers { file, .. }
            | ContestError::OffsetOutOfRange { file, .. }
            | ContestError::SpillIncomplete { file, .. }
            | ContestError::ReloadBeforeSpill { file, .. } => Some(file),
            ContestError::Invalid { file, .. } => file.as_deref(),
            _ => None,
        }
    }
}

impl Located for ContestError {
    fn loc(&self) -> Option<Loc> {
        match self {
            ContestError::Syntax { loc, .. }
            | ContestError::Shape { loc, .. }
            | ContestError::NumberOutOfRange { loc, .. }
            | ContestError::MalformedLine { loc, .. }
            | ContestError::UnknownId { loc, .. }
            | ContestError::DuplicateScheduleId { loc, .. }
            | ContestError::UnknownBuffer { loc, .. }
            | ContestError::DuplicateBuffer { loc, .. }
            | ContestError::OffsetOutOfRange { loc, .. }
            | ContestError::SpillIncomplete { loc, .. }
            | ContestError::ReloadBeforeSpill { loc, .. } => Some(*loc),
            ContestError::NodeShape { loc, .. }
            | ContestError::BadOpcode { loc, .. }
            | ContestError::UnknownTier { loc, .. }
            | ContestError::UnknownPipe { loc, .. }
            | ContestError::DuplicateId { loc, .. }
            | ContestError::IdGap { loc, .. }
            | ContestError::EdgeShape { loc, .. }
            | ContestError::EdgeEndpoint { loc, .. }
            | ContestError::SelfEdge { loc, .. }
            | ContestError::AllocWithoutFree { loc, .. }
            | ContestError::FreeWithoutAlloc { loc, .. }
            | ContestError::DuplicateLifecycle { loc, .. }
            | ContestError::LifecycleMismatch { loc, .. }
            | ContestError::UndeclaredBuffer { loc, .. }
            | ContestError::BufferTooLarge { loc, .. }
            | ContestError::EmptyBuffer { loc, .. } => *loc,
            ContestError::Invalid { errors, .. } => errors.first().and_then(|e| e.loc),
            ContestError::UnknownCapacityTier { .. }
            | ContestError::Cycle { .. }
            | ContestError::MissingFromSchedule { .. }
            | ContestError::MissingBuffers { .. }
            | ContestError::AlreadyPlanned { .. }
            | ContestError::OpNames { .. }
            | ContestError::UnpairedSpill { .. }
            | ContestError::MissingOffset { .. } => None,
        }
    }
}

/// The original (non-spill) ops indexed by contest id, after checking they are named exactly
/// 0..N-1 so that op names can be written as contest ids. O(V).
fn originals_by_name(module: &Module) -> Result<Vec<OpId>, ContestError> {
    let count = module.original_op_count();
    let mut slots: Vec<Option<OpId>> = vec![None; count];
    for id in module.op_ids() {
        let op = module.op(id);
        if op.kind.is_spill() {
            continue;
        }
        let problem = match slots.get_mut(op.name as usize) {
            Some(slot @ None) => {
                *slot = Some(id);
                continue;
            }
            Some(Some(_)) => format!("two ops are named %{}", op.name),
            None => format!("op %{} is named beyond the last contest id", op.name),
        };
        return Err(ContestError::OpNames { problem, count });
    }
    // N distinct names below N fill every slot.
    Ok(slots.into_iter().flatten().collect())
}

/// The contest id of the SPILL_OUT of spill `k` in a graph of `nodes` nodes (the SPILL_IN is the
/// next id); computed in u64 so that no count overflows.
fn spill_out_id(nodes: usize, k: usize) -> u64 {
    (nodes as u64).saturating_add((k as u64).saturating_mul(2))
}

/// "node 5 is missing …" or "3 nodes are missing …: 5, 6, 9", listing the first few `ids`;
/// `one` and `many` are the noun and the rest of the sentence in singular and plural.
fn missing_list(count: usize, ids: &[u32], one: [&str; 2], many: [&str; 2]) -> String {
    match ids {
        [id] if count == 1 => format!("{} {id} {}", one[0], one[1]),
        _ => {
            let more = if count > ids.len() { ", …" } else { "" };
            format!(
                "{count} {} {}: {}{more}",
                many[0],
                many[1],
                join_ids(ids, ", ")
            )
        }
    }
}

fn join_ids(ids: &[u32], sep: &str) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(sep)
}
