//! The `lattice` MLIR dialect: its op, type and attribute names, and loading its IRDL definition
//! (`lattice.irdl.mlir`) into an MLIR context, so that its ops are registered and MLIR's verifier
//! checks them.
//!
//! **How σ is held.** A lattice module is a `builtin.module`, whose body is a *graph* region: MLIR
//! gives the order of its ops no meaning (a token may be used above its definition) and no pass
//! promises to keep it. So the order is written down, not implied: every `lattice.buffer`
//! carries `pos`, its place in declaration order, and `lattice.phase` carries `order`, the `id`s
//! of the scheduled ops (`alloc`, `free`, `command`, `spill_out`, `spill_in`) in σ. The importer
//! orders by these alone and ignores where ops stand in the body, so IR that an upstream pass (or
//! a hand edit) shuffled reads back to the same σ; positions that are not exactly `0..n`, and an
//! `order` that misses an op, lists one twice or names none, are located errors, since then no σ
//! is meant. Body order is not checked against them: MLIR is free to change it, and rejecting
//! such IR would make a legal rewrite an error.
//! Why one `order` list and not a `pos` per scheduled op (the first design): a pass that only
//! reorders then changes one attribute, where per-op positions change one attribute dictionary
//! per op that moved — on Matmul_Case1 that was 55 of the bridge's 240 ms, for every op of the
//! module after `mpas` and `cpe`. It also catches more: a foreign pass that adds, clones or
//! erases a lattice op without knowing σ leaves an op out of `order`, an op with an id given
//! twice or an id of no op, each a located import error, where per-op positions missed the
//! erasure of the last op (`0..n-1` still numbers the rest). Buffers keep `pos`: passes do not
//! change them.
//! Rejected alternative: a `lattice.module` op with an SSACFG region (where MLIR itself keeps op
//! order and checks that tokens are defined before use) cannot be defined in IRDL — an IRDL op
//! declares no traits, so MLIR would demand a terminator op in that region and the dialect could
//! not declare one as such.
//! The exporter writes ops in σ order as well, so printed IR still reads top to bottom in σ.
//!
//! Invariants: [`register`] is idempotent (a context holds the dialect at most once); a context
//! from [`context`] also knows every upstream MLIR dialect, so `.mlir` files may hold lattice
//! modules next to `func`, `arith`, … ops. Loading parses a ~5 KB definition: O(1) per context.

use crate::diagnostics::Capture;
use crate::error::BridgeError;
use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::utility::{load_irdl_dialects, register_all_dialects};
use melior::Context;

/// The IRDL text of the dialect.
pub const IRDL: &str = include_str!("lattice.irdl.mlir");

/// The dialect namespace: every lattice op is named `lattice.<op>`.
pub const NAMESPACE: &str = "lattice";

/// `lattice.phase {phase, order}`: the module's pipeline phase and σ (the ids of its scheduled
/// ops, in order).
pub const PHASE: &str = "lattice.phase";
/// `lattice.target {tiers, pipes, spill_out, spill_in, spill_cost_base, spill_cost_per_byte,
/// l0_exclusive}`: the machine.
pub const TARGET: &str = "lattice.target";
/// `lattice.buffer {id, pos, tier, size, backed} -> !lattice.buf`: a buffer declaration.
pub const BUFFER: &str = "lattice.buffer";
/// `lattice.alloc(buffer, deps...) {id, dep_kinds, offset?} -> !lattice.token`.
pub const ALLOC: &str = "lattice.alloc";
/// `lattice.free(buffer, deps...) {id, dep_kinds} -> !lattice.token`.
pub const FREE: &str = "lattice.free";
/// `lattice.command(buffers..., deps...) {id, opcode, pipe, cycles, dep_kinds,
/// operandSegmentSizes} -> !lattice.token`: a command of the input DAG.
pub const COMMAND: &str = "lattice.command";
/// `lattice.spill_out(buffer, deps...) {id, pipe, cycles, dep_kinds} -> !lattice.token`.
pub const SPILL_OUT: &str = "lattice.spill_out";
/// `lattice.spill_in(buffer, deps...) {id, offset, pipe, cycles, dep_kinds} ->
/// !lattice.token`.
pub const SPILL_IN: &str = "lattice.spill_in";

/// Every lattice op.
pub const OPS: [&str; 8] = [
    PHASE, TARGET, BUFFER, ALLOC, FREE, COMMAND, SPILL_OUT, SPILL_IN,
];

/// The attributes lattice op `op` defines (every other attribute on it is foreign: the importer
/// keeps it aside and the bridge puts it back when a pass rewrites the module).
pub fn own_attributes(op: &str) -> &'static [&'static str] {
    match op {
        PHASE => &["phase", ORDER],
        TARGET => &[
            "tiers",
            "pipes",
            "spill_out",
            "spill_in",
            "spill_cost_base",
            "spill_cost_per_byte",
            "l0_exclusive",
        ],
        BUFFER => &["id", POS, "tier", "size", "backed"],
        ALLOC => &["id", "dep_kinds", "offset"],
        FREE => &["id", "dep_kinds"],
        COMMAND => &["id", "opcode", "pipe", "cycles", "dep_kinds", SEGMENT_SIZES],
        SPILL_OUT => &["id", "pipe", "cycles", "dep_kinds"],
        SPILL_IN => &["id", "offset", "pipe", "cycles", "dep_kinds"],
        _ => &[],
    }
}

/// The lattice op called `name`, as its constant.
pub fn op_named(name: &str) -> Option<&'static str> {
    op_index(name).map(|i| OPS[i])
}

/// The place of the lattice op called `name` in [`OPS`] (what per-op tables are indexed by).
pub fn op_index(name: &str) -> Option<usize> {
    OPS.iter().position(|op| *op == name)
}

/// The type of a buffer value.
pub const BUF_TYPE: &str = "!lattice.buf";
/// The type of an op's completion, used as a dependency operand.
pub const TOKEN_TYPE: &str = "!lattice.token";

/// The place of a buffer among the buffers (declaration order), from 0 (see the header: MLIR
/// gives the order of a module's body no meaning).
pub const POS: &str = "pos";

/// σ on `lattice.phase`: the `id`s of the module's scheduled ops in order (an `array<i64: …>`).
pub const ORDER: &str = "order";

/// The attribute MLIR uses to split two variadic operand groups.
pub const SEGMENT_SIZES: &str = "operandSegmentSizes";

/// A context that knows every upstream MLIR dialect and the `lattice` dialect. Multithreading is
/// on, as in MLIR's own default (and `mlir-opt`'s): the pass manager runs passes on sibling
/// modules in parallel, and the in-place writer makes the dictionaries of the ops a pass built
/// or changed across threads (`crate::rewrite`); MLIR starts its threads only when given
/// parallel work. As with any MLIR context, printing IR from a pass manager needs threads off
/// first (`Context::enable_multi_threading(false)`).
pub fn context() -> Result<Context, BridgeError> {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, true);
    register(&context)?;
    Ok(context)
}

/// Loads the `lattice` dialect into `context` (which must know the `irdl` dialect, as every
/// context from [`context`] does). Does nothing when the dialect is already there.
pub fn register(context: &Context) -> Result<(), BridgeError> {
    if context.is_registered_operation(ALLOC) {
        return Ok(());
    }
    let capture = Capture::new(context);
    let loaded = match Module::parse(context, IRDL) {
        Some(defs) => defs.as_operation().verify() && load_irdl_dialects(&defs),
        None => false,
    };
    if loaded {
        return Ok(());
    }
    let messages: Vec<String> = capture.take().into_iter().map(|d| d.message).collect();
    Err(BridgeError::Dialect(messages.join("; ")))
}
