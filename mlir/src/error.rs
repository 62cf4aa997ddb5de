//! The bridge's errors: what can go wrong setting MLIR up, converting a module, or assembling a
//! mixed MLIR/lattice pass pipeline.
//!
//! Conversion errors ([`ImportError`]) carry the source location of the offending op when the
//! MLIR came from text, so tools render them like every other lattice diagnostic
//! (`file:line:col: error: …` with the line quoted).

use lattice_lir::diag::{Loc, Located};
use std::fmt;

/// A failure of the bridge itself (not of the module it converts).
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The `lattice` IRDL definition did not load; a bug or an incompatible MLIR.
    #[error("cannot load the lattice dialect into MLIR: {0}")]
    Dialect(String),
    /// MLIR rejected an op the exporter built; a bug of the exporter.
    #[error("MLIR rejected the converted module: {0}")]
    Export(String),
}

/// One reason an MLIR module is not a lattice module, at the op it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// Where the op is written, when the MLIR came from text.
    pub loc: Option<Loc>,
    /// The file `loc` is in when it is not the input being read (MLIR bytecode carries the
    /// locations of the text it was made from).
    pub file: Option<String>,
    /// What is wrong.
    pub kind: ImportErrorKind,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for ImportError {}

impl Located for ImportError {
    fn loc(&self) -> Option<Loc> {
        self.loc
    }
}

/// The ways MLIR input can fail to describe a lattice module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportErrorKind {
    /// The input holds no `builtin.module` with lattice ops.
    #[error("the MLIR input holds no lattice module (a `module` whose body has `lattice.*` ops)")]
    NoModule,
    /// The input holds several lattice modules where one was expected.
    #[error("the MLIR input holds {count} lattice modules ({names}); expected exactly one")]
    SeveralModules {
        /// How many.
        count: usize,
        /// Their names, comma-separated.
        names: String,
    },
    /// The lattice module has no `sym_name`.
    #[error("a lattice module needs a name: `module @name {{ … }}`")]
    Unnamed,
    /// The module's name cannot be written in LIR.
    #[error("module name `{0}` is not a LIR name (letters, digits, `_`, `.`, `-`, `$`)")]
    BadName(String),
    /// A non-lattice op sits among the lattice ops.
    #[error("`{0}` in a lattice module: a lattice module holds only `lattice.*` ops")]
    ForeignOp(String),
    /// An op of the lattice namespace that the dialect does not define.
    #[error("unknown lattice op `{0}`; lattice ops are phase, target, buffer, alloc, free, command, spill_out and spill_in")]
    UnknownOp(String),
    /// `lattice.phase` or `lattice.target` is missing.
    #[error("the lattice module has no `{0}` op")]
    Missing(&'static str),
    /// `lattice.phase` or `lattice.target` appears twice.
    #[error("the lattice module has a second `{0}` op")]
    Duplicate(&'static str),
    /// A required attribute is absent.
    #[error("`{op}` needs the attribute `{attr}` ({expected})")]
    MissingAttribute {
        /// The op name.
        op: &'static str,
        /// The attribute name.
        attr: &'static str,
        /// What it should hold.
        expected: &'static str,
    },
    /// An attribute holds the wrong kind of value.
    #[error("attribute `{attr}` of `{op}` must be {expected}, found `{found}`")]
    BadAttribute {
        /// The op name.
        op: &'static str,
        /// The attribute name.
        attr: &'static str,
        /// What it should hold.
        expected: &'static str,
        /// What it holds, printed.
        found: String,
    },
    /// An unknown phase word.
    #[error("unknown phase `{0}`; phases are parsed, scheduled, planned and refined")]
    UnknownPhase(String),
    /// A tier name the target does not define.
    #[error("unknown tier `{name}`; valid tiers: {valid}")]
    UnknownTier {
        /// The name.
        name: String,
        /// The target's tiers.
        valid: String,
    },
    /// A pipe name the target does not define.
    #[error("unknown pipe `{name}`; valid pipes: {valid}")]
    UnknownPipe {
        /// The name.
        name: String,
        /// The target's pipes.
        valid: String,
    },
    /// The target lists no tier or no pipe.
    #[error("the target must list at least one {0}")]
    EmptyTarget(&'static str),
    /// The target declares a tier or pipe name twice.
    #[error("the target declares the {what} `{name}` twice")]
    DuplicateName {
        /// "tier" or "pipe".
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A name is not a LIR word or opcode.
    #[error("`{name}` is not a valid {what}")]
    BadWord {
        /// The name.
        name: String,
        /// "tier name", "pipe name" or "opcode".
        what: &'static str,
    },
    /// An operand that should be a buffer is not one of this module's `lattice.buffer` values.
    #[error("operand {index} of `{op}` must be a `lattice.buffer` of this module")]
    NotABuffer {
        /// The op name.
        op: &'static str,
        /// 0-based operand index.
        index: usize,
    },
    /// A dependency operand is not the token of a lattice op of this module.
    #[error("operand {index} of `{op}` must be the token of a lattice op of this module")]
    NotAToken {
        /// The op name.
        op: &'static str,
        /// 0-based operand index.
        index: usize,
    },
    /// The operand count does not fit the op's shape.
    #[error("`{op}` has {found} operands; {expected}")]
    OperandCount {
        /// The op name.
        op: &'static str,
        /// How many it has.
        found: usize,
        /// What its shape asks for.
        expected: String,
    },
    /// The op does not have the one result every lattice op defines (a buffer's value, an op's
    /// token), which `--irdl-file` would have checked.
    #[error("`{op}` has {found} results; every lattice op has exactly one ({what})")]
    ResultCount {
        /// The op name.
        op: &'static str,
        /// How many it has.
        found: usize,
        /// What the result is.
        what: &'static str,
    },
    /// `dep_kinds` does not have one entry per dependency.
    #[error("`{op}` has {deps} dependencies but {kinds} `dep_kinds`")]
    DepKindsLength {
        /// The op name.
        op: &'static str,
        /// Dependency operands.
        deps: usize,
        /// Entries of `dep_kinds`.
        kinds: usize,
    },
    /// A buffer's `pos` at or past the number of buffers of the module.
    #[error("`pos = {pos}` of `lattice.buffer` is out of range: buffer positions run from 0 to {}", count - 1)]
    PositionRange {
        /// The position given.
        pos: u64,
        /// How many buffers the module has.
        count: usize,
    },
    /// Two buffers at one `pos`.
    #[error("a second buffer at `pos = {pos}`{}", first.map_or_else(String::new, |line| format!(" (the first is on line {line})")))]
    DuplicatePosition {
        /// The position given twice.
        pos: u64,
        /// The line of the first one, when the MLIR came from text.
        first: Option<u32>,
    },
    /// Two scheduled ops with one `id`, so `order` cannot tell them apart.
    #[error("a second scheduled op with `id = {id}`{}", first.map_or_else(String::new, |line| format!(" (the first is on line {line})")))]
    DuplicateId {
        /// The id given twice.
        id: u32,
        /// The line of the first one, when the MLIR came from text.
        first: Option<u32>,
    },
    /// `order` lists a value that is the `id` of no scheduled op of the module.
    #[error("`order` lists {0}, which is the `id` of no scheduled op of this module")]
    OrderUnknown(i64),
    /// `order` lists an op twice.
    #[error("`order` lists the op with `id = {0}` twice; σ holds every scheduled op once")]
    OrderTwice(u32),
    /// `order` lists none of the module's scheduled ops (one error rather than one per op).
    #[error("`order` lists none of the module's {0} scheduled ops; it lists their `id`s in σ")]
    OrderListsNone(usize),
    /// A scheduled op `order` does not list.
    #[error("the op with `id = {0}` is not in the `order` of `lattice.phase`; σ holds every scheduled op once")]
    NotInOrder(u32),
    /// An unknown dependency kind.
    #[error("unknown dependency kind `{0}`; kinds are precedence, spill and reuse")]
    UnknownDepKind(String),
}
