//! MLIR → LIR: reads `lattice` dialect ops back into a [`Module`].
//!
//! A *lattice module* is a `builtin.module` whose body holds `lattice.*` ops (and nothing else);
//! it may be the top-level module or nested in one next to other MLIR. Its body holds one
//! `lattice.phase`, one `lattice.target`, the buffers and the ops (see [`crate::export`]), in any
//! order: buffers are declared in the order of their `pos`, which must number them exactly 0..n,
//! and ops scheduled in the order the phase op's `order` lists their `id`s, each exactly once
//! (MLIR gives body order no meaning; see [`crate::dialect`]). A token may name any op of the
//! module (one later in σ is then reported by the structural verifier as a dependency after its
//! user, like in LIR text).
//!
//! Invariants: the result carries, per op and buffer, the MLIR location it came from (and a LIR
//! [`Loc`] when that is a file location), so diagnostics about it point at the user's text, and
//! the attributes the lattice op does not define (a toolchain's `npu.tag`), so a rewrite can put
//! them back ([`Carried`]); every
//! name is checked against the LIR grammar, so the module prints as LIR that parses back; no
//! input, however malformed, panics — every problem is an [`ImportError`]. Integers are accepted
//! at any width up to 64 bits, signed or not, when non-negative and in range. The module is not
//! structurally verified here (callers run `lattice_lir::verify_module`). An op that uses a
//! buffer whose declaration failed to import is left out without an error of its own: the
//! declaration's error is the one to fix, and one bad tier name must not be followed by an error
//! for every op of that buffer.
//! Complexity: O(V + E + B) with hash lookups from operand values to their ops; each op's own
//! attributes are read in one pass over its dictionary, and a large module's ops across threads
//! (the result, errors included, is what one thread reads).

use crate::chunks::{chunked, threads_for, Shared};
use crate::diagnostics::{loc_of, source_file};
use crate::dialect;
use crate::error::{ImportError, ImportErrorKind as K};
use crate::export::{Carried, Kept};
use crate::names::{is_module_name, is_opcode, is_word};
use crate::strings::{attribute_text, identifier_str, op_name, string_value};
use lattice::host::Outside;
use lattice_lir::diag::Loc;
use lattice_lir::{Buffer, BufferId, Dep, DepKind, Module, Op, OpId, OpKind, Phase, PipeId};
use lattice_lir::{SpillCost, Target, Tier, TierId};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute,
    DictionaryAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationResult};
use melior::ir::{
    Attribute, AttributeLike, BlockRef, Identifier, Location, OperationRef, RegionLike,
};
use melior::Context;
use mlir_sys::{MlirAttribute, MlirIdentifier, MlirOperation};
use rustc_hash::{FxHashMap, FxHashSet};

/// A module read from MLIR, with where each of its parts came from.
pub struct Imported<'c> {
    /// The LIR module.
    pub module: Module,
    /// The MLIR location and foreign attributes of every op, buffer and header op.
    pub carried: Carried<'c>,
    /// The MLIR ops that hold it.
    pub(crate) body: Body,
}

/// The MLIR ops that hold a lattice module, by what they hold (whatever their order in the body).
/// Valid while those ops live and nothing else changes the module op.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    /// `lattice.phase`.
    pub phase: MlirOperation,
    /// `lattice.target`.
    pub target: MlirOperation,
    /// The `lattice.buffer` of each buffer, by buffer index.
    pub buffers: Vec<MlirOperation>,
    /// The op of each scheduled op, by op index.
    pub ops: Vec<MlirOperation>,
}

/// An op of a [`Body`] (one of its handles) as a reference.
pub(crate) fn held<'c, 'a>(op: MlirOperation) -> OperationRef<'c, 'a> {
    // SAFETY: every handle of a `Body` is a live op of the module op it describes (the importer
    // read it, or the writer wrote it, and nothing changed the module since: the `Body`
    // contract), and callers pass only such handles.
    unsafe { OperationRef::from_raw(op) }
}

/// Every lattice module in `root` (itself included), outermost first, in text order.
pub fn lattice_modules<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    collect_modules(root, &mut found);
    found
}

fn collect_modules<'c, 'a>(op: OperationRef<'c, 'a>, found: &mut Vec<OperationRef<'c, 'a>>) {
    if is_lattice_module(op) {
        found.push(op);
        return;
    }
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            for child in ops_of(b) {
                collect_modules(child, found);
            }
            block = b.next_in_region();
        }
    }
}

/// The ops of `root` outside its lattice modules, counted where they stand (a `func.func`, not
/// the ops of its body): every op that is neither a lattice module nor a `builtin.module` holding
/// one, which is looked into. `None` when there is none. O(ops of `root`).
pub fn outside_lattice_modules(root: OperationRef<'_, '_>) -> Option<Outside> {
    let mut count = 0;
    let mut first = None;
    if !is_lattice_module(root) {
        collect_outside(root, &mut count, &mut first);
    }
    first.map(|op| Outside {
        count,
        first: op_name(op),
        loc: loc_of(op.location()),
        file: source_file(op.location()),
    })
}

fn collect_outside<'c, 'a>(
    op: OperationRef<'c, 'a>,
    count: &mut usize,
    first: &mut Option<OperationRef<'c, 'a>>,
) {
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            for child in ops_of(b) {
                if is_lattice_module(child) {
                    continue;
                }
                if op_name(child) == "builtin.module" && !lattice_modules(child).is_empty() {
                    collect_outside(child, count, first);
                    continue;
                }
                *count += 1;
                first.get_or_insert(child);
            }
            block = b.next_in_region();
        }
    }
}

/// Whether `op` is a `builtin.module` whose body holds a lattice op.
fn is_lattice_module(op: OperationRef<'_, '_>) -> bool {
    op_name(op) == "builtin.module"
        && body(op).is_some_and(|b| ops_of(b).any(|child| op_name(child).starts_with("lattice.")))
}

/// The body of module op `op`, if it has one.
pub(crate) fn body<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    op.region(0).ok()?.first_block()
}

/// The ops of `block`, in order.
pub(crate) fn ops_of<'c, 'a>(
    block: BlockRef<'c, 'a>,
) -> impl Iterator<Item = OperationRef<'c, 'a>> {
    std::iter::successors(block.first_operation(), |op| op.next_in_block())
}

/// The one lattice module of `root`, read as LIR.
pub fn import_single<'c>(root: OperationRef<'c, '_>) -> Result<Imported<'c>, Vec<ImportError>> {
    let modules = lattice_modules(root);
    match modules.as_slice() {
        [module] => import_module(*module),
        [] => Err(vec![error(root.location(), K::NoModule)]),
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|m| {
                    Attrs::new(*m, "builtin.module")
                        .string("sym_name")
                        .map_or_else(|_| "(unnamed)".to_owned(), |n| format!("@{n}"))
                })
                .collect();
            let kind = K::SeveralModules {
                count: several.len(),
                names: names.join(", "),
            };
            Err(vec![error(several[1].location(), kind)])
        }
    }
}

/// Reads the lattice module `module_op` (a `builtin.module`) as LIR.
pub fn import_module<'c>(
    module_op: OperationRef<'c, '_>,
) -> Result<Imported<'c>, Vec<ImportError>> {
    let at_module = |kind| vec![error(module_op.location(), kind)];
    let name = Attrs::new(module_op, "builtin.module")
        .string("sym_name")
        .map_err(|_| at_module(K::Unnamed))?;
    if !is_module_name(name) {
        return Err(at_module(K::BadName(name.to_owned())));
    }
    let Some(block) = body(module_op) else {
        return Err(at_module(K::Missing(dialect::TARGET)));
    };
    let handle = module_op.context();
    // SAFETY: the context outlives its ops, and `handle` outlives this use.
    let own = OwnNames::new(unsafe { handle.to_ref() });

    // Sort the body into header, buffers and ops, numbering buffers and ops as they come.
    let mut errors = Vec::new();
    let mut phase_op = None;
    let mut target_op = None;
    let mut buffer_ops = Vec::new();
    let mut lir_ops = Vec::new();
    for op in ops_of(block) {
        // Names are read in place: a module has tens of thousands of ops.
        let Some(known) = identifier_str(op.name()).and_then(dialect::op_named) else {
            let name = op_name(op);
            let kind = if name.starts_with("lattice.") {
                K::UnknownOp(name)
            } else {
                K::ForeignOp(name)
            };
            errors.push(error(op.location(), kind));
            continue;
        };
        let slot = match known {
            dialect::PHASE => &mut phase_op,
            dialect::TARGET => &mut target_op,
            dialect::BUFFER => {
                buffer_ops.push(op);
                continue;
            }
            _ => {
                lir_ops.push((op, known));
                continue;
            }
        };
        if slot.is_some() {
            errors.push(error(op.location(), K::Duplicate(known)));
        }
        slot.get_or_insert(op);
    }
    let buffers = in_position_order(buffer_ops, &own, &mut errors);
    let phase_op = phase_op.ok_or_else(|| at_module(K::Missing(dialect::PHASE)))?;
    let lir_ops = in_sigma_order(lir_ops, phase_op, &mut errors);
    let target_op = target_op.ok_or_else(|| at_module(K::Missing(dialect::TARGET)))?;
    let phase = read_phase(phase_op).map_err(|e| vec![e])?;
    let target = read_target(target_op).map_err(|e| vec![e])?;

    let mut module = Module::new(name, target);
    module.phase = phase;
    let mut carried = Carried {
        header: vec![
            kept(phase_op, &own.of(dialect::PHASE).identifiers),
            kept(target_op, &own.of(dialect::TARGET).identifiers),
        ],
        ..Carried::default()
    };
    let mut buffer_ids: FxHashMap<usize, BufferId> =
        FxHashMap::with_capacity_and_hasher(buffers.len(), Default::default());
    let mut broken_buffers = FxHashSet::default();
    for a in &buffers {
        match read_buffer(a, &module.target, &own) {
            Ok((buffer, kept)) => {
                carried.buffers.insert(buffer.name, kept);
                let id = module.add_buffer(buffer);
                buffer_ids.insert(key(a.op_ref), id);
            }
            Err(e) => {
                broken_buffers.insert(key(a.op_ref));
                errors.push(e);
            }
        }
    }
    let op_ids: FxHashMap<usize, OpId> = lir_ops
        .iter()
        .enumerate()
        .map(|(i, (op, _))| (key(*op), OpId::new(i)))
        .collect();
    let refs = Refs {
        buffers: &buffer_ids,
        broken_buffers: &broken_buffers,
        ops: &op_ids,
    };
    // The ops are read across threads when they are many; a worker never prints an attribute
    // into an error (`quiet`), so on any error they are read again on this thread, whose errors
    // are the ones reported.
    // Reading creates and changes nothing in MLIR, so it needs no lock and suits any context.
    let threads = threads_for(lir_ops.len());
    let mut read = read_ops(&lir_ops, &module.target, &refs, &own, threads);
    if threads > 1 && read.iter().any(Result::is_err) {
        read = read_ops(&lir_ops, &module.target, &refs, &own, 1);
    }
    // Sized up front, and each op read without temporaries (`read_op`): an allocation per list
    // the module keeps, none freed along the way (a module has tens of thousands of ops).
    module.ops.reserve_exact(lir_ops.len());
    module.schedule.reserve_exact(lir_ops.len());
    carried.ops.reserve(lir_ops.len());
    for result in read {
        match result {
            // Its buffer's declaration is already reported.
            Ok(None) => {}
            Ok(Some((lir_op, kept))) => {
                carried.ops.insert(lir_op.name, kept);
                module.push_op(lir_op);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        // No error: every buffer and op was read, in these orders.
        let body = Body {
            phase: phase_op.to_raw(),
            target: target_op.to_raw(),
            buffers: buffers.iter().map(|a| a.op_ref.to_raw()).collect(),
            ops: lir_ops.iter().map(|(op, _)| op.to_raw()).collect(),
        };
        Ok(Imported {
            module,
            carried,
            body,
        })
    } else {
        Err(errors)
    }
}

/// The buffer declarations `ops`, their attributes read (what [`read_buffer`] reads them from),
/// in the order of their `pos`, which must number them exactly 0..n. On any problem, reported in
/// `errors`, the body order instead: every buffer is still read, so none is reported again as a
/// dangling operand of an op. O(n).
fn in_position_order<'c: 'a, 'a>(
    ops: Vec<OperationRef<'c, 'a>>,
    own: &OwnNames,
    errors: &mut Vec<ImportError>,
) -> Vec<Attrs<'c, 'a>> {
    let read: Vec<Attrs<'c, 'a>> = ops
        .into_iter()
        .map(|op| Attrs::read(op, dialect::BUFFER, own, false))
        .collect();
    let count = read.len();
    let mut slots: Vec<Option<usize>> = vec![None; count];
    let mut ordered = true;
    for (i, a) in read.iter().enumerate() {
        let pos = match a.uint(dialect::POS, u64::from(u32::MAX)) {
            Ok(pos) => pos,
            Err(e) => {
                errors.push(e);
                ordered = false;
                continue;
            }
        };
        let slot = usize::try_from(pos).ok().and_then(|p| slots.get_mut(p));
        let problem = match slot {
            None => K::PositionRange { pos, count },
            Some(Some(first)) => K::DuplicatePosition {
                pos,
                first: read[*first].loc.map(|l| l.line),
            },
            Some(slot) => {
                *slot = Some(i);
                continue;
            }
        };
        errors.push(a.error(problem));
        ordered = false;
    }
    if !ordered {
        return read;
    }
    // `count` buffers in distinct slots below `count`: every slot is filled, and each buffer is
    // taken once.
    let mut taken: Vec<Option<Attrs<'c, 'a>>> = read.into_iter().map(Some).collect();
    slots
        .into_iter()
        .flatten()
        .filter_map(|i| taken[i].take())
        .collect()
}

/// The scheduled ops `ops` (with their op names) in σ: the order in which `phase_op`'s `order`
/// lists their `id`s, which must name every op exactly once and nothing else. On any problem,
/// reported in `errors`, the body order instead, as for buffers; an op whose `id` does not read
/// leaves the order unchecked, since the order cannot be matched without it and `read_op` then
/// fails on that op (or its buffer's error stands). An `order` that lists none of the ops is one
/// error, not one per op. O(n) hash lookups.
fn in_sigma_order<'c: 'a, 'a>(
    ops: Vec<(OperationRef<'c, 'a>, &'static str)>,
    phase_op: OperationRef<'c, 'a>,
    errors: &mut Vec<ImportError>,
) -> Vec<(OperationRef<'c, 'a>, &'static str)> {
    let phase = Attrs::new(phase_op, dialect::PHASE);
    let order = match phase.order() {
        Ok(order) => order,
        Err(e) => {
            errors.push(e);
            return ops;
        }
    };
    // Read without `Attrs`, which looks up the op's location: this runs for every op.
    let Some(ids) = ops
        .iter()
        .map(|&(op, _)| op.attribute("id").ok().and_then(id_value))
        .collect::<Option<Vec<u32>>>()
    else {
        return ops;
    };
    let reported = errors.len();
    let mut by_id: FxHashMap<u32, usize> =
        FxHashMap::with_capacity_and_hasher(ops.len(), Default::default());
    for (index, (&id, &(op, name))) in ids.iter().zip(&ops).enumerate() {
        if let Some(&first) = by_id.get(&id) {
            let first = loc_of(ops[first].0.location()).map(|l| l.line);
            errors.push(Attrs::new(op, name).error(K::DuplicateId { id, first }));
        } else {
            by_id.insert(id, index);
        }
    }
    if errors.len() > reported {
        return ops;
    }
    let mut listed = vec![false; ops.len()];
    let mut ordered = Vec::with_capacity(ops.len());
    for value in order {
        let index = u32::try_from(value).ok().and_then(|id| by_id.get(&id));
        match index {
            None => errors.push(phase.error(K::OrderUnknown(value))),
            Some(&index) if listed[index] => errors.push(phase.error(K::OrderTwice(ids[index]))),
            Some(&index) => {
                listed[index] = true;
                ordered.push(ops[index]);
            }
        }
    }
    if ordered.is_empty() && !ops.is_empty() {
        errors.truncate(reported);
        errors.push(phase.error(K::OrderListsNone(ops.len())));
        return ops;
    }
    for ((&id, &(op, name)), listed) in ids.iter().zip(&ops).zip(listed) {
        if !listed {
            errors.push(Attrs::new(op, name).error(K::NotInOrder(id)));
        }
    }
    if errors.len() > reported {
        return ops;
    }
    ordered
}

/// The attributes each lattice op defines ([`dialect::own_attributes`], in that order), as
/// identifiers uniqued in the module's context. An identifier is uniqued, so telling an op's
/// own attributes from foreign ones compares pointers, not text: the importer reads every op
/// by these ([`Attrs::read`], [`kept`]). Valid while the context lives.
struct OwnNames {
    /// By op, in [`dialect::OPS`] order.
    ops: [Own; dialect::OPS.len()],
    /// For any other op: none.
    none: Own,
}

/// The attributes one lattice op defines: their names, and the same as identifiers.
#[derive(Default)]
struct Own {
    names: &'static [&'static str],
    identifiers: Vec<MlirIdentifier>,
}

impl OwnNames {
    fn new(context: &Context) -> Self {
        let ops = dialect::OPS.map(|op| {
            let names = dialect::own_attributes(op);
            let identifiers = names
                .iter()
                .map(|name| Identifier::new(context, name).to_raw())
                .collect();
            Own { names, identifiers }
        });
        OwnNames {
            ops,
            none: Own::default(),
        }
    }

    /// The attributes lattice op `op` (one of [`dialect::OPS`]; none for another op) defines.
    fn of(&self, op: &str) -> &Own {
        dialect::op_index(op).map_or(&self.none, |i| &self.ops[i])
    }
}

/// The location and foreign attributes of lattice op `op`, which defines the attributes `own`.
fn kept<'c>(op: OperationRef<'c, '_>, own: &[MlirIdentifier]) -> Kept<'c> {
    let attributes = (0..op.attribute_count())
        .filter_map(|i| op.attribute_at(i).ok())
        .filter(|(name, _)| !own.iter().any(|o| o.ptr == name.to_raw().ptr))
        .collect();
    Kept {
        location: op.location(),
        attributes,
    }
}

/// Identity of an op: its address, stable while the module is not modified.
fn key(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

fn error(location: Location<'_>, kind: K) -> ImportError {
    ImportError {
        loc: loc_of(location),
        file: source_file(location),
        kind,
    }
}

fn read_phase(op: OperationRef<'_, '_>) -> Result<Phase, ImportError> {
    let a = Attrs::new(op, dialect::PHASE);
    let word = a.string("phase")?;
    Phase::from_keyword(word).ok_or_else(|| a.error(K::UnknownPhase(word.to_owned())))
}

fn read_target(op: OperationRef<'_, '_>) -> Result<Target, ImportError> {
    let a = Attrs::new(op, dialect::TARGET);
    let tier_list = a.array("tiers")?;
    let mut tiers = Vec::with_capacity(tier_list.len());
    for i in 0..tier_list.len() {
        let entry = tier_list.element(i).ok();
        let tier = entry.and_then(|e| DictionaryAttribute::try_from(e).ok());
        let found = || entry.map_or_else(String::new, |e| shorten(attribute_text(e)));
        let bad = || {
            a.error(K::BadAttribute {
                op: dialect::TARGET,
                attr: "tiers",
                expected: "an array of {name = \"L1\", capacity = 4096 : ui64, staging = false}",
                found: found(),
            })
        };
        let tier = tier.ok_or_else(bad)?;
        let name = tier.element_by_name("name").and_then(string_value);
        let capacity = tier
            .element_by_name("capacity")
            .and_then(|c| uint(c, u64::MAX));
        let staging = tier.element_by_name("staging");
        let staging = staging.and_then(|s| BoolAttribute::try_from(s).ok());
        let (Some(name), Some(capacity), Some(staging)) = (name, capacity, staging) else {
            return Err(bad());
        };
        tiers.push(Tier {
            name: a.word(name, "tier name", is_word)?,
            capacity,
            staging: staging.value(),
        });
    }
    let pipe_list = a.array("pipes")?;
    let mut pipes = Vec::with_capacity(pipe_list.len());
    for i in 0..pipe_list.len() {
        let entry = pipe_list.element(i).ok();
        let name = entry.and_then(string_value);
        let name = name.ok_or_else(|| {
            a.error(K::BadAttribute {
                op: dialect::TARGET,
                attr: "pipes",
                expected: "an array of pipe names",
                found: entry.map_or_else(String::new, |e| shorten(attribute_text(e))),
            })
        })?;
        pipes.push(a.word(name, "pipe name", is_word)?);
    }
    if tiers.is_empty() {
        return Err(a.error(K::EmptyTarget("tier")));
    }
    if pipes.is_empty() {
        return Err(a.error(K::EmptyTarget("pipe")));
    }
    for (i, tier) in tiers.iter().enumerate() {
        if tiers[..i].iter().any(|t| t.name == tier.name) {
            return Err(a.error(K::DuplicateName {
                what: "tier",
                name: tier.name.clone(),
            }));
        }
    }
    for (i, pipe) in pipes.iter().enumerate() {
        if pipes[..i].contains(pipe) {
            return Err(a.error(K::DuplicateName {
                what: "pipe",
                name: pipe.clone(),
            }));
        }
    }
    let mut target = Target {
        tiers,
        pipes,
        spill_out_pipe: PipeId::new(0),
        spill_in_pipe: PipeId::new(0),
        spill_cost: SpillCost {
            base: a.uint("spill_cost_base", u64::MAX)?,
            per_byte: a.uint("spill_cost_per_byte", u64::MAX)?,
        },
        l0_exclusive: a.boolean("l0_exclusive")?,
    };
    target.spill_out_pipe = a.pipe(&target, "spill_out")?;
    target.spill_in_pipe = a.pipe(&target, "spill_in")?;
    Ok(target)
}

/// Reads one buffer declaration from its attributes, with what the op carries beyond it.
fn read_buffer<'c>(
    a: &Attrs<'c, '_>,
    target: &Target,
    own: &OwnNames,
) -> Result<(Buffer, Kept<'c>), ImportError> {
    let op = a.op_ref;
    one_result(a, "the buffer's value")?;
    if op.operand_count() != 0 {
        return Err(a.error(K::OperandCount {
            op: dialect::BUFFER,
            found: op.operand_count(),
            expected: "a buffer declaration takes none".into(),
        }));
    }
    let buffer = Buffer {
        name: a.id()?,
        tier: a.tier(target, "tier")?,
        size: a.uint("size", u64::MAX)?,
        backed: a.boolean("backed")?,
        loc: a.loc,
    };
    Ok((buffer, a.kept(own)))
}

/// The op must have one result, `what`: the passes' rewrite takes it as the op's value.
fn one_result(a: &Attrs<'_, '_>, what: &'static str) -> Result<(), ImportError> {
    match a.op_ref.result_count() {
        1 => Ok(()),
        found => Err(a.error(K::ResultCount {
            op: a.op,
            found,
            what,
        })),
    }
}

/// Where operand values come from: op addresses of this module's buffers and ops.
struct Refs<'m> {
    buffers: &'m FxHashMap<usize, BufferId>,
    /// Buffer declarations that failed to import (their errors are reported).
    broken_buffers: &'m FxHashSet<usize>,
    ops: &'m FxHashMap<usize, OpId>,
}

/// Each op of `ops` (with its op name) read by [`read_op`], in order, on `threads` threads
/// (`quiet` when more than one).
fn read_ops<'c>(
    ops: &[(OperationRef<'c, '_>, &'static str)],
    target: &Target,
    refs: &Refs<'_>,
    own: &OwnNames,
    threads: usize,
) -> Vec<Result<Option<(Op, Kept<'c>)>, ImportError>> {
    let quiet = threads > 1;
    // SAFETY (of the `Shared` and `chunked`): every thread only reads — ops, their attributes,
    // operands and locations, and `own`'s identifiers — and reading (printing aside, which
    // `quiet` rules out) neither creates nor changes anything in the context, so no lock is
    // needed whatever its threading; the maps and the target are plain Rust data; each op is
    // read by the one thread whose chunk holds it, and what it yields is handed back whole.
    let own = unsafe { Shared::new(own) };
    let lists = unsafe {
        chunked(threads, ops, |chunk| {
            chunk
                .iter()
                .map(|&(op, name)| read_op(op, name, target, refs, own.get(), quiet))
                .collect::<Vec<_>>()
        })
    };
    lists.into_iter().flatten().collect()
}

/// Reads one LIR op, with what the MLIR op carries beyond it; `None` when it uses a buffer whose
/// declaration failed to import. `quiet`: errors do not print the attribute found.
fn read_op<'c>(
    op: OperationRef<'c, '_>,
    name: &'static str,
    target: &Target,
    refs: &Refs<'_>,
    own: &OwnNames,
    quiet: bool,
) -> Result<Option<(Op, Kept<'c>)>, ImportError> {
    let a = Attrs::read(op, name, own, quiet);
    one_result(&a, "the op's token")?;
    // Commands name any number of buffers (first operand segment); the others exactly one.
    let buffer_count = if name == dialect::COMMAND {
        let segments = a.segments()?;
        if segments.0 + segments.1 != op.operand_count() {
            return Err(a.error(K::OperandCount {
                op: a.op,
                found: op.operand_count(),
                expected: format!(
                    "`{}` says {} buffers and {} dependencies",
                    dialect::SEGMENT_SIZES,
                    segments.0,
                    segments.1
                ),
            }));
        }
        segments.0
    } else {
        if op.operand_count() == 0 {
            return Err(a.error(K::OperandCount {
                op: a.op,
                found: 0,
                expected: "the first operand is the buffer".into(),
            }));
        }
        1
    };
    let operand_count = op.operand_count();
    let producer = |index: usize| {
        let operand = op.operand(index).ok()?;
        OperationResult::try_from(operand)
            .ok()
            .map(|r| key(r.owner()))
    };
    let mut buffers = Vec::with_capacity(buffer_count);
    for index in 0..buffer_count {
        if producer(index).is_some_and(|k| refs.broken_buffers.contains(&k)) {
            return Ok(None);
        }
        let id = producer(index).and_then(|k| refs.buffers.get(&k).copied());
        buffers.push(id.ok_or_else(|| a.error(K::NotABuffer { op: a.op, index }))?);
    }
    // Every kind is read before any token: a bad kind is the error such an op reports.
    let kinds = a.dep_kinds(operand_count - buffer_count)?;
    let mut deps = Vec::with_capacity(kinds.len());
    for i in 0..kinds.len() {
        let kind = a.dep_kind(&kinds, i)?;
        deps.push(Dep {
            op: OpId::new(0),
            kind,
        });
    }
    for (dep, index) in deps.iter_mut().zip(buffer_count..operand_count) {
        let op = producer(index).and_then(|k| refs.ops.get(&k).copied());
        dep.op = op.ok_or_else(|| a.error(K::NotAToken { op: a.op, index }))?;
    }
    let buffer = buffers.first().copied().unwrap_or(BufferId::new(0));
    let kind = match name {
        dialect::ALLOC => OpKind::Alloc {
            buffer,
            offset: match a.get_optional("offset") {
                Some(_) => Some(a.uint("offset", u64::MAX)?),
                None => None,
            },
        },
        dialect::FREE => OpKind::Free { buffer },
        dialect::COMMAND => OpKind::Compute {
            opcode: a.word(a.string("opcode")?, "opcode", is_opcode)?,
            pipe: a.pipe(target, "pipe")?,
            cycles: a.uint("cycles", u64::MAX)?,
            operands: buffers,
        },
        dialect::SPILL_OUT => OpKind::SpillOut {
            buffer,
            pipe: a.pipe(target, "pipe")?,
            cycles: a.uint("cycles", u64::MAX)?,
        },
        _ => OpKind::SpillIn {
            buffer,
            offset: a.uint("offset", u64::MAX)?,
            pipe: a.pipe(target, "pipe")?,
            cycles: a.uint("cycles", u64::MAX)?,
        },
    };
    let lir_op = Op {
        name: a.id()?,
        kind,
        deps,
        loc: a.loc,
    };
    Ok(Some((lir_op, a.kept(own))))
}

/// How many own attributes [`Attrs::read`] holds: as many as an op defines at most
/// (`lattice.target`'s seven), with room to spare. An op defining more would have the rest
/// looked up by name, which is slower but reads the same.
const HELD: usize = 8;

/// Typed access to the attributes of one op, with errors located at it.
struct Attrs<'c, 'a> {
    op_ref: OperationRef<'c, 'a>,
    op: &'static str,
    loc: Option<Loc>,
    /// The op's own attributes read up front (see [`OwnNames`]), and their values (`None` when
    /// absent); any other is looked up by name.
    held: &'static [&'static str],
    values: [Option<Attribute<'c>>; HELD],
    /// How many attributes of the op are not among the `held` (none: it has no foreign one).
    others: usize,
    /// Whether errors leave out the attribute found instead of printing it (see [`read_ops`]).
    quiet: bool,
}

extern "C" {
    /// `shim/attrs.cpp`: the attribute of `op` named `names[i]` into `values[i]` (null when
    /// absent) for each of the `count`, in one pass over its dictionary; returns how many of
    /// its attributes have none of these names.
    fn latticeMlirReadAttributes(
        op: MlirOperation,
        count: isize,
        names: *const MlirIdentifier,
        values: *mut MlirAttribute,
    ) -> isize;
}

impl<'c, 'a> Attrs<'c, 'a> {
    /// Attributes of `op_ref`, lattice op `op` (or another op), each looked up by name.
    fn new(op_ref: OperationRef<'c, 'a>, op: &'static str) -> Self {
        Attrs {
            op_ref,
            op,
            loc: loc_of(op_ref.location()),
            held: &[],
            values: [None; HELD],
            others: op_ref.attribute_count(),
            quiet: false,
        }
    }

    /// Attributes of `op_ref`, lattice op `op`, its own read up front (see [`OwnNames`]): one
    /// pass over its attributes instead of a lookup by name for each; `quiet` as the field.
    fn read(op_ref: OperationRef<'c, 'a>, op: &'static str, own: &OwnNames, quiet: bool) -> Self {
        let Own { names, identifiers } = own.of(op);
        let count = identifiers.len().min(HELD);
        let mut raw = [MlirAttribute {
            ptr: std::ptr::null(),
        }; HELD];
        // SAFETY: the op is live; `identifiers` holds `count` of its context and `raw` has
        // room for as many values; the shim keeps nothing and only reads the op.
        let others = unsafe {
            latticeMlirReadAttributes(
                op_ref.to_raw(),
                count as isize,
                identifiers.as_ptr(),
                raw.as_mut_ptr(),
            )
        };
        // SAFETY: each non-null value is an attribute of the op, uniqued in its context.
        let values = raw.map(|v| (!v.ptr.is_null()).then(|| unsafe { Attribute::from_raw(v) }));
        Attrs {
            op_ref,
            op,
            loc: loc_of(op_ref.location()),
            held: &names[..count],
            values,
            others: usize::try_from(others).unwrap_or(usize::MAX),
            quiet,
        }
    }

    /// The op's location and foreign attributes; `own` names its own attributes.
    fn kept(&self, own: &OwnNames) -> Kept<'c> {
        if self.others == 0 {
            return Kept {
                location: self.op_ref.location(),
                attributes: Vec::new(),
            };
        }
        kept(self.op_ref, &own.of(self.op).identifiers)
    }

    fn error(&self, kind: K) -> ImportError {
        ImportError {
            loc: self.loc,
            file: source_file(self.op_ref.location()),
            kind,
        }
    }

    fn get_optional(&self, attr: &str) -> Option<Attribute<'c>> {
        match self.held.iter().position(|name| *name == attr) {
            Some(i) => self.values[i],
            None => self.op_ref.attribute(attr).ok(),
        }
    }

    fn get(
        &self,
        attr: &'static str,
        expected: &'static str,
    ) -> Result<Attribute<'c>, ImportError> {
        self.get_optional(attr).ok_or_else(|| {
            self.error(K::MissingAttribute {
                op: self.op,
                attr,
                expected,
            })
        })
    }

    /// `attribute` as an error shows it (nothing when `quiet`).
    fn text(&self, attribute: Attribute<'_>) -> String {
        if self.quiet {
            String::new()
        } else {
            shorten(attribute_text(attribute))
        }
    }

    fn bad(&self, attr: &'static str, expected: &'static str, found: Attribute<'_>) -> ImportError {
        self.error(K::BadAttribute {
            op: self.op,
            attr,
            expected,
            found: self.text(found),
        })
    }

    fn string(&self, attr: &'static str) -> Result<&'c str, ImportError> {
        const EXPECTED: &str = "a UTF-8 string";
        let value = self.get(attr, EXPECTED)?;
        string_value(value).ok_or_else(|| self.bad(attr, EXPECTED, value))
    }

    fn uint(&self, attr: &'static str, max: u64) -> Result<u64, ImportError> {
        const EXPECTED: &str = "a non-negative integer such as `4 : ui64`";
        let value = self.get(attr, EXPECTED)?;
        uint(value, max).ok_or_else(|| self.bad(attr, EXPECTED, value))
    }

    fn id(&self) -> Result<u32, ImportError> {
        const EXPECTED: &str = "an id such as `12 : ui32`";
        let value = self.get("id", EXPECTED)?;
        id_value(value).ok_or_else(|| self.bad("id", EXPECTED, value))
    }

    fn boolean(&self, attr: &'static str) -> Result<bool, ImportError> {
        const EXPECTED: &str = "`true` or `false`";
        let value = self.get(attr, EXPECTED)?;
        BoolAttribute::try_from(value)
            .map(|b| b.value())
            .map_err(|_| self.bad(attr, EXPECTED, value))
    }

    fn array(&self, attr: &'static str) -> Result<ArrayAttribute<'c>, ImportError> {
        const EXPECTED: &str = "an array";
        let value = self.get(attr, EXPECTED)?;
        ArrayAttribute::try_from(value).map_err(|_| self.bad(attr, EXPECTED, value))
    }

    fn word(
        &self,
        name: &str,
        what: &'static str,
        valid: fn(&str) -> bool,
    ) -> Result<String, ImportError> {
        if valid(name) {
            Ok(name.to_owned())
        } else {
            Err(self.error(K::BadWord {
                name: name.to_owned(),
                what,
            }))
        }
    }

    fn tier(&self, target: &Target, attr: &'static str) -> Result<TierId, ImportError> {
        let name = self.string(attr)?;
        target.tier_named(name).ok_or_else(|| {
            self.error(K::UnknownTier {
                name: name.to_owned(),
                valid: target.tier_names(),
            })
        })
    }

    fn pipe(&self, target: &Target, attr: &'static str) -> Result<PipeId, ImportError> {
        let name = self.string(attr)?;
        target.pipe_named(name).ok_or_else(|| {
            self.error(K::UnknownPipe {
                name: name.to_owned(),
                valid: target.pipe_names(),
            })
        })
    }

    /// σ as the phase op's `order` lists it: op ids (not yet checked to be ids).
    fn order(&self) -> Result<Vec<i64>, ImportError> {
        const EXPECTED: &str = "the `id`s of the scheduled ops in σ, `array<i64: 0, 1, …>`";
        let value = self.get(dialect::ORDER, EXPECTED)?;
        let order = DenseI64ArrayAttribute::try_from(value)
            .map_err(|_| self.bad(dialect::ORDER, EXPECTED, value))?;
        Ok((0..order.len())
            .filter_map(|i| order.element(i).ok())
            .collect())
    }

    /// `(buffers, dependencies)` from `operandSegmentSizes`.
    fn segments(&self) -> Result<(usize, usize), ImportError> {
        const EXPECTED: &str = "`array<i32: buffers, dependencies>`";
        let value = self.get(dialect::SEGMENT_SIZES, EXPECTED)?;
        let sizes = DenseI32ArrayAttribute::try_from(value).ok();
        let sizes = sizes.filter(|s| s.len() == 2).and_then(|s| {
            let buffers = usize::try_from(s.element(0).ok()?).ok()?;
            let deps = usize::try_from(s.element(1).ok()?).ok()?;
            Some((buffers, deps))
        });
        sizes.ok_or_else(|| self.bad(dialect::SEGMENT_SIZES, EXPECTED, value))
    }

    /// The kinds of `count` dependencies, as the array that lists them (read with
    /// [`Attrs::dep_kind`]).
    fn dep_kinds(&self, count: usize) -> Result<ArrayAttribute<'c>, ImportError> {
        let kinds = self.array("dep_kinds")?;
        if kinds.len() != count {
            return Err(self.error(K::DepKindsLength {
                op: self.op,
                deps: count,
                kinds: kinds.len(),
            }));
        }
        Ok(kinds)
    }

    /// Entry `i` of `kinds` as a dependency kind.
    fn dep_kind(&self, kinds: &ArrayAttribute<'c>, i: usize) -> Result<DepKind, ImportError> {
        let entry = kinds.element(i).ok();
        match entry.and_then(string_value).unwrap_or_default() {
            "precedence" => Ok(DepKind::Precedence),
            "spill" => Ok(DepKind::Spill),
            "reuse" => Ok(DepKind::Reuse),
            _ => Err(self.error(K::UnknownDepKind(
                entry.map_or_else(String::new, |e| self.text(e)),
            ))),
        }
    }
}

extern "C" {
    /// `shim/attrs.cpp`: the value of `attribute` into `value` when it is an integer of at most
    /// 64 bits (unsigned, or else read as signed) and not negative; otherwise false.
    fn latticeMlirReadUnsigned(attribute: MlirAttribute, value: *mut u64) -> bool;
}

/// A non-negative integer attribute of at most 64 bits whose value is at most `max`.
fn uint(value: Attribute<'_>, max: u64) -> Option<u64> {
    let mut v = 0;
    // SAFETY: the attribute is live (uniqued in its context) and `v` is writable; the shim only
    // reads the attribute.
    let read = unsafe { latticeMlirReadUnsigned(value.to_raw(), &mut v) };
    (read && v <= max).then_some(v)
}

/// An `id` attribute's value: a non-negative integer that fits in 32 bits.
fn id_value(value: Attribute<'_>) -> Option<u32> {
    uint(value, u64::from(u32::MAX)).and_then(|v| u32::try_from(v).ok())
}

/// An attribute as printed, cut to a readable length.
fn shorten(text: String) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}
