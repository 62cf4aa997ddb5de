//! Writing a lattice module back into the MLIR module op that held the module before it: in
//! place, changing only what differs ([`write_back`]), or afresh ([`replace_body`]).
//!
//! In place, an op that stays — same name (`%12`), same kind — keeps its MLIR identity, location
//! and foreign attributes: when nothing but its place in σ changed it is left as it is (σ is the
//! phase op's `order`, one attribute set once), otherwise its own attributes are set as the
//! exporter writes them and its operands are set anew; ops the module lost are destroyed, ops it
//! gained are built by the exporter's [`Writer`]; the body is put in σ order (MLIR gives a graph
//! region's order no meaning, but printed IR should read top to bottom in σ). That is what a
//! pass like `dlr` needs, which adds spills, binds offsets and moves nearly every op, and what
//! `mpas` and `cpe`, which only reorder, need.
//!
//! Invariants: the importer reads back exactly the new module. Ops the writer builds or changes
//! are as [`crate::export::append_ops`] writes them (foreign attributes kept), and the body is
//! in its order; so for a module the exporter wrote, the IR is the exporter's, while ops that
//! stay unchanged in a module a user wrote keep their attributes as written (a hand-written
//! `size = 64 : i64` is not rewritten as `ui64`). Every step that can fail (building the new
//! ops and attribute lists) runs before the first change, and on failure, or a panic, the ops it
//! built are destroyed, so the module is left as it was. In place needs the same name, target and
//! buffers and a result whose σ is a permutation of its ops (otherwise [`write_back`] writes
//! afresh), and the ops that hold the old module by role (a [`Body`]: the importer's, or the
//! one this writer returned), so it reads nothing back from MLIR. The new attribute dictionaries
//! and locations are made on several threads only in a context that uniques under locks; ops are
//! built and changed, and use lists and op order change, on the calling thread alone.
//! Cost: in place, O(V + E), one attribute dictionary per op that changed and an op built per
//! new op; afresh, O(V + E + B) ops built.

use crate::chunks::{chunked, threads_for, Shared};
use crate::error::BridgeError;
use crate::export::{append_ops, operands, sigma_names, Carried, Writer};
use crate::import::{self, held, ops_of, Body};
use crate::snapshot::Snapshot;
use lattice_lir::{Module, OpId};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, AttributeLike, Identifier, OperationRef, Value};
use melior::Context;
use mlir_sys::{MlirAttribute, MlirContext, MlirIdentifier, MlirOperation, MlirValue};
use rustc_hash::FxHashMap;

extern "C" {
    /// `shim/attrs.cpp`: whether `context` has multithreading enabled.
    fn latticeMlirContextIsMultithreaded(context: MlirContext) -> bool;
    /// `shim/attrs.cpp`: sets attribute `name` of `op` to `value`.
    fn latticeMlirSetAttribute(op: MlirOperation, name: MlirIdentifier, value: MlirAttribute);
    /// `shim/attrs.cpp`: replaces every attribute of `op` by those of `dictionary`.
    fn latticeMlirSetDictionary(op: MlirOperation, dictionary: MlirAttribute);
}

/// What [`write_back`] left in the module op.
pub(crate) struct Written {
    /// The ops that hold the module now.
    pub body: Body,
    /// When it wrote in place, the ops (by index) whose MLIR op it built or changed; every other
    /// op kept its MLIR op as it was but for its place, and so did the header and the buffers.
    /// `None` when it wrote afresh.
    pub touched: Option<Vec<OpId>>,
}

/// Writes `after`, the result of a pass on the module `before` is the snapshot of, into
/// `module_op`, which holds that module in the ops of `body`, with what `carried` says of them;
/// returns what it wrote (`None` when σ is not a permutation of its ops, which no verified
/// result has). In place when it can (see the module header), else afresh.
pub(crate) fn write_back<'c, 'a>(
    context: &'c Context,
    module_op: OperationRef<'c, 'a>,
    body: &Body,
    before: &Snapshot,
    after: &Module,
    carried: &Carried<'c>,
) -> Result<Option<Written>, String> {
    // In place needs the same frame, and a result the pass manager lets through (σ a
    // permutation of the ops, dependencies on ops); otherwise the exporter writes what it can.
    let same_frame = before.same_frame(after);
    let well_formed = well_formed(after);
    let (written, touched) = if same_frame && well_formed {
        let (written, touched) = in_place(context, module_op, body, before, after, carried)?;
        (written, Some(touched))
    } else {
        (replace_body(context, module_op, after, carried)?, None)
    };
    let body = well_formed.then(|| body_of(&written, after)).flatten();
    Ok(body.map(|body| Written { body, touched }))
}

/// Whether σ of `module` holds every op exactly once and every dependency names an op: what
/// the in-place writer relies on (the structural verifier checks more). O(V + E).
fn well_formed(module: &Module) -> bool {
    let mut seen = vec![false; module.ops.len()];
    let once = module.schedule.len() == module.ops.len()
        && module.schedule.iter().all(|id| {
            seen.get_mut(id.index())
                .is_some_and(|s| !std::mem::replace(s, true))
        });
    once && module
        .ops
        .iter()
        .all(|op| op.deps.iter().all(|d| d.op.index() < module.ops.len()))
}

/// The ops holding `module` (well formed) among `written` (phase, target, buffers, then σ, as
/// both writers return them), or `None` when they are not as many as the module needs.
fn body_of(written: &[OperationRef<'_, '_>], module: &Module) -> Option<Body> {
    let first = 2 + module.buffers.len();
    if written.len() != first + module.schedule.len() {
        return None;
    }
    let mut ops = vec![written[0].to_raw(); module.ops.len()];
    for (op, id) in written[first..].iter().zip(&module.schedule) {
        ops[id.index()] = op.to_raw();
    }
    Some(Body {
        phase: written[0].to_raw(),
        target: written[1].to_raw(),
        buffers: written[2..first].iter().map(|op| op.to_raw()).collect(),
        ops,
    })
}

/// What becomes of an op of the new module.
#[derive(Clone, Copy)]
enum Fate {
    /// The op of the old module with the same name and kind stays, otherwise unchanged.
    Moved(OpId),
    /// That op stays, with new attributes or operands.
    Changed(OpId),
    /// The op is new (or changed kind): it is built.
    New,
}

/// [`write_back`] in place, for modules of one name, target and buffers; returns the ops
/// written and the ops of `after` it built or changed.
fn in_place<'c, 'a>(
    context: &'c Context,
    module_op: OperationRef<'c, 'a>,
    body: &Body,
    before: &Snapshot,
    after: &Module,
    carried: &Carried<'c>,
) -> Result<(Vec<OperationRef<'c, 'a>>, Vec<OpId>), String> {
    let block = import::body(module_op).ok_or("the module has no body")?;
    let fates = fates(before, after);
    let w = Writer::new(context, &after.target).map_err(|e| e.to_string())?;

    // Build what is new, at the end of the body, in σ order (so every dependency's token exists).
    // Operands are written only for ops built or changed: when every op merely moved (`mpas`,
    // `cpe`), no op's values are read.
    let rebuilt = fates.iter().any(|fate| !matches!(fate, Fate::Moved(_)));
    let buffer_ops: Vec<OperationRef<'c, 'a>> = body.buffers.iter().map(|&op| held(op)).collect();
    let buffers: Vec<Value<'c, 'a>> = buffer_ops
        .iter()
        .filter(|_| rebuilt)
        .map(|op| op.result(0).map(Into::into))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    // What every op built or changed needs but its operands — its attributes (the exporter's own,
    // then the foreign ones the importer kept) as one dictionary, the location of a new op —
    // made ahead, across threads: the operands need the ops before it in σ, the rest does not.
    let pending: Vec<OpId> = after
        .schedule
        .iter()
        .copied()
        .filter(|id| !matches!(fates[id.index()], Fate::Moved(_)))
        .collect();
    let threads = dictionary_threads(context, pending.len());
    // SAFETY (of both `Shared`s and `chunked`): more than one thread only in a context that
    // uniques under locks (`dictionary_threads`); the writer's names, types and attributes, and
    // the carried ones, are uniqued, so immutable; each thread reads its own ops of `after`.
    let (shared, kept) = unsafe { (Shared::new(&w), Shared::new(carried)) };
    let lists = unsafe {
        chunked(threads, &pending, |chunk| {
            chunk
                .iter()
                .map(|&id| shared.get().prepare_scheduled(after, id, kept.get()))
                .collect::<Result<Vec<_>, BridgeError>>()
        })
    };
    let mut prepared = Vec::with_capacity(pending.len());
    for list in lists {
        prepared.extend(list.map_err(|e| e.to_string())?);
    }
    let mut prepared = prepared.into_iter();

    let mut tokens: Vec<Option<Value<'c, 'a>>> = vec![None; after.ops.len()];
    let mut placed: Vec<OperationRef<'c, 'a>> = Vec::with_capacity(after.schedule.len());
    let mut changes: Vec<(OperationRef<'c, 'a>, Attribute<'c>, Vec<MlirValue>)> = Vec::new();
    // Until every fallible step is done, the ops built so far go again on any way out (an error,
    // or a panic, which the pass turns into an error), leaving the module as it was.
    let mut built = Undo(Vec::new());
    let building = (|| -> Result<(), String> {
        for &id in &after.schedule {
            let op = match fates[id.index()] {
                Fate::Moved(old) => held(body.ops[old.index()]),
                Fate::Changed(old) => {
                    let op = held(body.ops[old.index()]);
                    let ready = prepared.next().ok_or("an op was not prepared")?;
                    let operands = operands(after, id, &buffers, &tokens);
                    changes.push((op, ready.dictionary, operands.map_err(|e| e.to_string())?));
                    op
                }
                Fate::New => {
                    let ready = prepared.next().ok_or("an op was not prepared")?;
                    let operands = operands(after, id, &buffers, &tokens);
                    let operands = operands.map_err(|e| e.to_string())?;
                    let new = w.create_scheduled(&ready, &operands);
                    let new = block.append_operation(new);
                    built.0.push(new);
                    new
                }
            };
            if rebuilt {
                tokens[id.index()] = Some(op.result(0).map_err(|e| e.to_string())?.into());
            }
            placed.push(op);
        }
        Ok(())
    })();
    building?;
    // The new ops stay.
    std::mem::take(&mut built.0);

    // Nothing below fails.
    if before.phase() != after.phase {
        let (name, value) = w.phase(after.phase);
        set_attribute(held(body.phase), name, value);
    }
    if before.sigma_names().ne(sigma_names(after)) {
        let (name, value) = w.order(after);
        set_attribute(held(body.phase), name, value);
    }
    for (op, dictionary, _) in &changes {
        // SAFETY: the op is live and the dictionary belongs to its context.
        unsafe { latticeMlirSetDictionary(op.to_raw(), dictionary.to_raw()) };
    }
    // Use lists are shared between ops (a buffer's value has many users): one thread.
    for (op, _, operands) in &changes {
        set_operands(*op, operands);
    }
    // The body in the exporter's order: phase, target, buffers, σ.
    let header = [held(body.phase), held(body.target)];
    let written = [&header[..], &buffer_ops, &placed].concat();
    if block.first_operation() != Some(written[0]) {
        if let Some(first) = block.first_operation() {
            // SAFETY: both ops belong to this body and differ.
            unsafe { mlir_sys::mlirOperationMoveBefore(written[0].to_raw(), first.to_raw()) };
        }
    }
    for pair in written.windows(2) {
        let (anchor, op) = (pair[0], pair[1]);
        if anchor.next_in_block() != Some(op) {
            // SAFETY: both ops belong to this body and differ (`written` holds each op once).
            unsafe { mlir_sys::mlirOperationMoveAfter(op.to_raw(), anchor.to_raw()) };
        }
    }
    let mut stays = vec![false; before.op_count()];
    for fate in &fates {
        if let Fate::Moved(old) | Fate::Changed(old) = *fate {
            stays[old.index()] = true;
        }
    }
    let gone: Vec<OperationRef<'c, 'a>> = body
        .ops
        .iter()
        .zip(&stays)
        .filter(|(_, &stays)| !stays)
        .map(|(&op, _)| held(op))
        .collect();
    // No op that stays uses them any more: each one whose dependencies changed (a dependency
    // gone or rebuilt included) got its operands anew.
    destroy_all(&gone);
    let touched = fates
        .iter()
        .enumerate()
        .filter(|(_, fate)| !matches!(fate, Fate::Moved(_)))
        .map(|(i, _)| OpId::new(i))
        .collect();
    Ok((written, touched))
}

/// For each op of `after` (by index), what becomes of it: the op of `before` with its name and
/// kind stays — moved only when it is otherwise equal, with dependencies on ops that stay as
/// the same ops — else it is new. O(V + E).
fn fates(before: &Snapshot, after: &Module) -> Vec<Fate> {
    let kept: Vec<Option<OpId>> = namesakes(before, after)
        .into_iter()
        .zip(&after.ops)
        .map(|(old, op)| old.filter(|&old| before.same_variant(old, &op.kind)))
        .collect();
    let mut scratch = Vec::new();
    after
        .ops
        .iter()
        .zip(&kept)
        .map(|(op, old)| {
            let Some(old) = *old else {
                return Fate::New;
            };
            let deps = before.deps(old);
            let same_deps = deps.len() == op.deps.len()
                && deps
                    .iter()
                    .zip(&op.deps)
                    .all(|(a, b)| a.kind == b.kind && kept[b.op.index()] == Some(a.op));
            if same_deps && before.same_kind(old, &op.kind, &mut scratch) {
                Fate::Moved(old)
            } else {
                Fate::Changed(old)
            }
        })
        .collect()
}

/// For each op of `after` (by index), the op of `before` with its name, if any. Passes keep
/// the ops they do not remove at their indices and append new ones, so when the first ops of
/// `after` bear the names of `before`'s, index for index, those are the namesakes and the rest
/// have none (names are unique in both modules: each was verified); only otherwise are names
/// looked up, in a map of `before`'s. O(V).
fn namesakes(before: &Snapshot, after: &Module) -> Vec<Option<OpId>> {
    let count = before.op_count();
    let aligned = after.ops.len() >= count
        && (0..count).all(|i| after.ops[i].name == before.op_name(OpId::new(i)));
    if aligned {
        return (0..after.ops.len())
            .map(|i| (i < count).then(|| OpId::new(i)))
            .collect();
    }
    let by_name: FxHashMap<u32, OpId> = (0..count)
        .map(|i| (before.op_name(OpId::new(i)), OpId::new(i)))
        .collect();
    after
        .ops
        .iter()
        .map(|op| by_name.get(&op.name).copied())
        .collect()
}

/// Sets attribute `name` of `op`.
fn set_attribute(op: OperationRef<'_, '_>, name: Identifier<'_>, value: Attribute<'_>) {
    // SAFETY: the op is live; the name and value belong to its context.
    unsafe { latticeMlirSetAttribute(op.to_raw(), name.to_raw(), value.to_raw()) }
}

/// How many threads to make `count` ops' dictionaries on: one, unless the context uniques
/// attributes under locks (multithreading enabled, MLIR's default); then as [`threads_for`].
fn dictionary_threads(context: &Context, count: usize) -> usize {
    // SAFETY: the context is live.
    let threaded = unsafe { latticeMlirContextIsMultithreaded(context.to_raw()) };
    if threaded {
        threads_for(count)
    } else {
        1
    }
}

/// Sets the operands of `op`.
fn set_operands(op: OperationRef<'_, '_>, operands: &[MlirValue]) {
    let count = operands.len() as isize;
    // SAFETY: the op is live and every value is defined in its body (of its context).
    unsafe { mlir_sys::mlirOperationSetOperands(op.to_raw(), count, operands.as_ptr()) }
}

/// Ops built into a body, destroyed when this goes out of scope holding them.
struct Undo<'c, 'a>(Vec<OperationRef<'c, 'a>>);

impl Drop for Undo<'_, '_> {
    fn drop(&mut self) {
        destroy_all(&self.0);
    }
}

/// Replaces the body of `module_op` by `module`'s ops, which keep what `carried` holds for them
/// (locations and foreign attributes); returns the ops written, in order. The new ops are written
/// after the old ones before any is destroyed, so when writing fails the module is left as it was
/// (the partly written ops are removed instead).
fn replace_body<'c, 'a>(
    context: &'c Context,
    module_op: OperationRef<'c, 'a>,
    module: &Module,
    carried: &Carried<'c>,
) -> Result<Vec<OperationRef<'c, 'a>>, String> {
    let body = import::body(module_op).ok_or("the module has no body")?;
    let old: Vec<OperationRef<'c, '_>> = ops_of(body).collect();
    let written = append_ops(context, &body, module, carried);
    let new: Vec<OperationRef<'c, '_>> = std::iter::successors(
        old.last()
            .map_or(body.first_operation(), |last| last.next_in_block()),
        |op| op.next_in_block(),
    )
    .collect();
    // The old and the new ops use only values of their own set (the exporter builds every
    // value it uses), so destroying one set leaves the other whole.
    destroy_all(if written.is_ok() { &old } else { &new });
    written.map_err(|e| e.to_string())?;
    Ok(ops_of(body).collect())
}

/// Destroys `ops`, which no op outside them uses. Their operands are dropped first: the body
/// of a lattice module is a graph region, where a token may be used above its definition (σ is
/// `order`, not body order), so no order of destruction is safe while uses remain.
fn destroy_all(ops: &[OperationRef<'_, '_>]) {
    for op in ops {
        // SAFETY: the op is live and in this body; zero operands need no array.
        unsafe { mlir_sys::mlirOperationSetOperands(op.to_raw(), 0, std::ptr::null()) };
    }
    for op in ops {
        // SAFETY: the op is live, uses no value any more, and no op outside `ops` uses its
        // results; each op is destroyed once.
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::planned;
    use lattice_passes::generate::Shape;

    /// `namesakes` by the name map alone, as it answers when the ops are not aligned.
    fn by_map(before: &Module, after: &Module) -> Vec<Option<OpId>> {
        after
            .ops
            .iter()
            .map(|op| before.op_ids().find(|&id| before.op(id).name == op.name))
            .collect()
    }

    /// The aligned shortcut answers as the name map does, whether the ops stay at their
    /// indices, gain ops at the end, move, lose one or are renamed.
    #[test]
    fn namesakes_are_the_ops_of_the_same_name() {
        let before = planned(Shape::Attention, 5);
        let snapshot = Snapshot::of(&before);
        let count = before.ops.len();
        let mut edits: Vec<(&str, Module)> = vec![("unchanged", before.clone())];
        let mut grown = before.clone();
        grown.ops.push(grown.ops[0].clone());
        grown.ops.last_mut().expect("an op").name = u32::MAX - 2;
        edits.push(("one op more", grown));
        let mut moved = before.clone();
        moved.ops.swap(1, count - 1);
        edits.push(("two ops swapped", moved));
        let mut shorter = before.clone();
        shorter.ops.swap_remove(2);
        edits.push(("one op fewer", shorter));
        let mut renamed = before.clone();
        renamed.ops[3].name = u32::MAX - 3;
        edits.push(("one op renamed", renamed));
        for (what, after) in &edits {
            assert_eq!(
                namesakes(&snapshot, after),
                by_map(&before, after),
                "{what}"
            );
        }
    }
}
