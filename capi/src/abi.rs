//! The types of the C ABI: a lattice module as flat arrays (`LatticeModuleDesc`), the text
//! references it is made of, and what a run reports. cbindgen turns this file and `lib.rs`'s
//! functions into `mlir/cxx/include/lattice/capi.h` (`tests/generated.rs` checks it is current).
//!
//! One layout serves both directions. The C++ side describes a module it read from MLIR (its ops
//! in body order, strings pointing into MLIR's attributes) and [`crate::assemble`] turns it into
//! a LIR module; [`crate::view`] describes a LIR module the same way (its ops in σ order, every
//! dependency on an earlier op), so the C++ side writes the ops back in one walk.
//! Invariants: every pointer/count pair is a valid array for the call it is passed to (a null
//! pointer only with a zero count); indices into the module's arrays are `u32`, `LATTICE_NONE`
//! marking an operand that is not a buffer or token of the module. Plain data, no cost.

use std::ffi::c_char;

/// The version of this ABI, bumped on every change to its types or functions; a C++ library
/// built against another version refuses to run (`lattice_abi_version`).
pub const LATTICE_ABI_VERSION: u32 = 3;

/// An index that names nothing: an operand that is not a buffer or token of the module.
pub const LATTICE_NONE: u32 = u32::MAX;

/// Text: `len` bytes at `data` (UTF-8 expected and checked), not NUL-terminated.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeStr {
    /// The first byte; may be null when `len` is 0.
    pub data: *const c_char,
    /// How many bytes.
    pub len: usize,
}

impl LatticeStr {
    /// A reference to `text`'s bytes, valid while `text` is.
    pub fn of(text: &str) -> Self {
        LatticeStr {
            data: text.as_ptr().cast(),
            len: text.len(),
        }
    }

    /// The bytes referenced.
    ///
    /// # Safety
    /// `data` must point at `len` readable bytes that outlive `'a` (any pointer when `len` is 0).
    pub unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: per the contract.
        unsafe { std::slice::from_raw_parts(self.data.cast(), self.len) }
    }
}

/// A memory tier of the target.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeTier {
    /// `L1`, `UB`, `L0A`, …
    pub name: LatticeStr,
    /// Bytes.
    pub capacity: u64,
    /// A staging tier (L0), which the logical peak leaves out.
    pub staging: bool,
}

/// The machine (`lattice.target`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeTarget {
    /// The tiers, `tier_count` of them.
    pub tiers: *const LatticeTier,
    /// How many tiers.
    pub tier_count: usize,
    /// The pipe names, `pipe_count` of them.
    pub pipes: *const LatticeStr,
    /// How many pipes.
    pub pipe_count: usize,
    /// The pipe spill-outs run on.
    pub spill_out: LatticeStr,
    /// The pipe spill-ins run on.
    pub spill_in: LatticeStr,
    /// Cycles of a spill transfer: base …
    pub spill_cost_base: u64,
    /// … plus this many per byte.
    pub spill_cost_per_byte: u64,
    /// At most one live buffer per staging tier.
    pub l0_exclusive: bool,
}

/// A buffer (`lattice.buffer`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeBuffer {
    /// The contest BufId (`id`).
    pub id: u32,
    /// Its place in declaration order (`pos`); a module's buffers hold 0..n once each.
    pub pos: u32,
    /// The tier's name.
    pub tier: LatticeStr,
    /// Bytes.
    pub size: u64,
    /// DDR holds a copy.
    pub backed: bool,
}

/// What a scheduled op is.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatticeOpKind {
    /// `lattice.alloc`
    Alloc = 0,
    /// `lattice.free`
    Free = 1,
    /// `lattice.command`
    Command = 2,
    /// `lattice.spill_out`
    SpillOut = 3,
    /// `lattice.spill_in`
    SpillIn = 4,
}

/// A scheduled op. Its buffers are `buffer_refs[buffers_begin .. buffers_begin + buffer_count]`
/// and its dependencies `dep_ops`/`dep_kinds[deps_begin .. deps_begin + dep_count]` of the module.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeOp {
    /// What it is.
    pub kind: LatticeOpKind,
    /// In a view, the op's index in the module, which diagnostics of later passes name
    /// (`LatticeDiagnostic::index`); ignored in a description handed in, whose ops are numbered
    /// by their place.
    pub index: u32,
    /// The node id (`id`), what `order` lists.
    pub id: u32,
    /// A command's opcode (empty for other kinds).
    pub opcode: LatticeStr,
    /// The pipe of a command or spill (empty for alloc and free).
    pub pipe: LatticeStr,
    /// Cycles of a command or spill (0 for alloc and free).
    pub cycles: u64,
    /// The offset of a planned alloc or of a spill-in, when `has_offset`.
    pub offset: u64,
    /// Whether `offset` is bound.
    pub has_offset: bool,
    /// First entry of the op's buffers in `buffer_refs`.
    pub buffers_begin: u32,
    /// How many buffers (one for every kind but a command).
    pub buffer_count: u32,
    /// First entry of the op's dependencies in `dep_ops` and `dep_kinds`.
    pub deps_begin: u32,
    /// How many dependencies.
    pub dep_count: u32,
}

/// Why one op comes after another, as `dep_kinds` holds it.
pub type LatticeDepKind = u8;
/// An edge of the input DAG.
pub const LATTICE_DEP_PRECEDENCE: LatticeDepKind = 0;
/// An edge around a spill.
pub const LATTICE_DEP_SPILL: LatticeDepKind = 1;
/// An address-reuse hand-off.
pub const LATTICE_DEP_REUSE: LatticeDepKind = 2;

/// A lattice module as flat arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeModuleDesc {
    /// The module's name (`module @name`).
    pub name: LatticeStr,
    /// `parsed`, `scheduled`, `planned` or `refined`.
    pub phase: LatticeStr,
    /// The machine.
    pub target: LatticeTarget,
    /// The buffers, `buffer_count` of them (any order: `pos` places them).
    pub buffers: *const LatticeBuffer,
    /// How many buffers.
    pub buffer_count: usize,
    /// The scheduled ops, `op_count` of them (any order: `order` places them).
    pub ops: *const LatticeOp,
    /// How many ops.
    pub op_count: usize,
    /// Every op's buffers, as indices into `buffers` (`LATTICE_NONE`: not a buffer of the module).
    pub buffer_refs: *const u32,
    /// How many entries `buffer_refs` has.
    pub buffer_ref_count: usize,
    /// Every op's dependencies, as indices into `ops` (`LATTICE_NONE`: not a token of the module).
    pub dep_ops: *const u32,
    /// The kind of each dependency (`LATTICE_DEP_*`).
    pub dep_kinds: *const LatticeDepKind,
    /// How many entries `dep_ops` and `dep_kinds` have.
    pub dep_count: usize,
    /// σ: the ops' `id`s in schedule order.
    pub order: *const i64,
    /// How many entries `order` has.
    pub order_count: usize,
}

/// How severe a diagnostic is.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatticeSeverity {
    /// The module or the pass failed.
    Error = 0,
    /// Worth a look; nothing failed.
    Warning = 1,
    /// Information.
    Remark = 2,
}

/// What a diagnostic is about.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatticeAnchor {
    /// The module as a whole.
    Module = 0,
    /// The phase op.
    Phase = 1,
    /// The target op.
    Target = 2,
    /// `buffers[index]` of the module described.
    Buffer = 3,
    /// `ops[index]` of the module described; for a pass, an op of the module it ran on (ops the
    /// pass added come after the ones described).
    Op = 4,
}

/// One diagnostic: its severity, what it is about, and the message (valid while the report is).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeDiagnostic {
    /// How severe.
    pub severity: LatticeSeverity,
    /// What it is about.
    pub anchor: LatticeAnchor,
    /// Which buffer or op, for those anchors.
    pub index: u32,
    /// The line in LIR text the problem is at (1-based), 0 when it is not about text.
    pub line: u32,
    /// The column (1-based), 0 when it is not about text.
    pub column: u32,
    /// The message, one sentence.
    pub message: LatticeStr,
}

/// A counter a pass reported (`--pass-statistics` in `lattice-opt`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeStatistic {
    /// The pass that reported it (`dlr`).
    pub pass: LatticeStr,
    /// That pass's place in the run, from 0 (0 for `lattice_run_pass`).
    pub position: u32,
    /// Its name, as the registry declares it (`logical-peak-after`).
    pub name: LatticeStr,
    /// Its value.
    pub value: u64,
}

/// A job the C++ side runs on its threads: `run(job, i)` for every `i` in `0..count`, any order,
/// any thread, returning once all have returned.
pub type LatticeJob = unsafe extern "C" fn(job: *mut std::ffi::c_void, index: usize);

/// The threads a pass may use: `parallel_for(context, count, run, job)` runs `run(job, i)` for
/// every `i < count` and returns when all are done; `threads` is how many run at once (1: the
/// calling thread alone, as under `--mlir-disable-threading`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LatticeExecutor {
    /// Handed back to `parallel_for`.
    pub context: *mut std::ffi::c_void,
    /// How many jobs may run at once.
    pub threads: usize,
    /// Runs `count` jobs; null when `threads` is 1.
    pub parallel_for: Option<
        unsafe extern "C" fn(
            context: *mut std::ffi::c_void,
            count: usize,
            run: LatticeJob,
            job: *mut std::ffi::c_void,
        ),
    >,
}
