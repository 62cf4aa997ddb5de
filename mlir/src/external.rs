//! LATTICE passes as MLIR external passes: any pass of a lattice [`Registry`], with its options,
//! runs inside an MLIR `PassManager` on every lattice module of the op it is scheduled on.
//!
//! Per lattice module the pass reads the ops as LIR, checks them structurally, runs the lattice
//! pass exactly as `lattice-opt` would (fresh instance, fresh analyses, an error or an emitted
//! error fails it, the phase may not move back, the result must verify), and, only if the pass
//! changed the module, writes the result into the module's ops in place (`crate::rewrite`: ops
//! that stay get only what changed, new ops are built, lost ops destroyed).
//!
//! Consecutive lattice passes do not read the ops again: each keeps the LIR module it leaves in
//! a lattice module op (with the locations and foreign attributes it carries, and the ops that
//! hold it) as an MLIR analysis of that op (`shim/cache.cpp`), and the next lattice pass starts
//! from it, without checking it again (the previous pass verified it). Sound because MLIR's
//! pass manager drops every analysis a pass does not declare preserved, at and below the op it ran
//! on, and a pass that changes IR may not declare preserved what it did not keep valid; a lattice
//! pass declares only these states preserved, and only after writing the ops from the very state
//! it keeps, or everything when it changed nothing. So any other pass that touches a lattice
//! module in between makes the next lattice pass read it again; states live for one
//! `PassManager` run. A state is the module the previous pass produced — what `lattice-opt` hands
//! its next pass — whose ops are what the module op holds: the importer reads them back to the
//! same module (the bridge's round-trip invariant), with the locations and foreign attributes the
//! ops were written with.
//!
//! Invariants: every diagnostic of a lattice pass reaches MLIR's diagnostic engine at the op it
//! concerns (its MLIR location, or the module's when the op is new or unknown), prefixed by the
//! pass name (`lattice-dlr: …`), in the order the pass emitted it: errors as errors (the pass then
//! signals failure), warnings as warnings, remarks as remarks — the latter two through
//! `shim/emit.cpp`, since MLIR's C API emits errors only. MLIR has no free-standing note, so a
//! note a pass emits on its own is a remark, and the notes of a failure are folded into its
//! message. A failing module is left as it was. Ops that survive a rewrite keep their MLIR
//! locations and their foreign attributes (`npu.tag = "x"`); ops a pass creates have none. MLIR
//! prints the pass with its options (see [`textual`]).
//! Cost: around the pass's own, a snapshot of the module before it (O(V + E + B), a few flat
//! arrays), the in-place write after a pass that changed the module (O(V + E), an attribute
//! dictionary per op that changed, one `order` array when σ changed), the import
//! (O(V + E + B)) before a pass whose module no state describes, and one thread started per
//! lattice module and pass (the work runs on it, away from the heap the IR crowds; see
//! `run_on`).

use crate::chunks::on_own_thread;
use crate::diagnostics::file_of;
use crate::dialect;
use crate::export::{Carried, Kept};
use crate::import::{held, import_module, lattice_modules, Imported};
use crate::rewrite::{write_back, Written};
use crate::run::run_pass;
use crate::snapshot::Snapshot;
use crate::strings::{identifier, op_name};
use lattice::pipeline::PassSpec;
use lattice::Registry;
use lattice_lir::diag::{Loc, Severity};
use lattice_lir::Module;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeId;
use melior::ir::{Attribute, Identifier, Location, OperationRef};
use melior::pass::{create_external, ExternalPass, Pass, RunExternalPass};
use melior::{Context, ContextRef, StringRef};
use mlir_sys::{MlirDiagnosticSeverity, MlirLocation, MlirOperation, MlirStringRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::ffi::c_void;

/// The MLIR pass argument of a lattice pass: `lattice-` and its registered name.
pub fn argument(pass: &str) -> String {
    format!("lattice-{pass}")
}

/// The MLIR pass running `spec` (a pass of `registry`) on every lattice module it reaches.
pub fn lattice_pass(spec: PassSpec, registry: Registry) -> Pass {
    let name = argument(spec.name);
    let description = registry.get(spec.name).map_or("", |info| info.summary);
    create_external(
        LatticePass {
            spec: spec.clone(),
            registry,
        },
        TypeId::create(&PASS_ID),
        &name,
        &textual(&spec),
        description,
        "",
        &[],
    )
}

/// What MLIR prints for the pass: `lattice-dlr{victim=lru …}`, every option with its canonical
/// value. MLIR prints a pass as its argument followed by the options registered with it, and the
/// C API's external passes register none (`mlir::ExternalPass` keeps `passOptions` empty and does
/// not override `initializeOptions`), so the argument itself carries them; [`crate::add_pipeline`]
/// parses the printed text back to the same passes.
pub fn textual(spec: &PassSpec) -> String {
    format!("lattice-{spec}")
}

/// The address MLIR identifies lattice passes by (one for all: MLIR tells passes of one
/// identity apart by their arguments).
#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct LatticePass {
    spec: PassSpec,
    registry: Registry,
}

impl<'c> RunExternalPass<'c> for LatticePass {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        // A panic must not unwind into MLIR (this runs inside its C++ pass manager, where it
        // would abort the process): it becomes an error at the op, as in the plugin.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: the C API's `MlirExternalPass` wraps its `mlir::ExternalPass`, a class
            // derived from `mlir::Pass` alone (single, non-virtual inheritance: the `Pass` is at
            // the same address), and that pass is running on `operation` now.
            unsafe { run_on_operation(operation, &self.spec, self.registry, pass.to_raw().ptr) }
        }));
        let ok = ran.unwrap_or_else(|_| {
            let message = format!(
                "{}: internal error: the pass panicked",
                argument(self.spec.name)
            );
            emit(operation.location(), Severity::Error, &message);
            false
        });
        if !ok {
            pass.signal_failure();
        }
    }
}

/// Runs the lattice pass `spec` (a pass of `registry`) on every lattice module of `operation`
/// (itself included), as the MLIR pass of [`lattice_pass`] does; false when it failed on one of
/// them, its errors then reported to MLIR's diagnostic engine. The `mlir-opt` plugin
/// (`mlir/plugin`) calls this too, from its C++ pass. `pass` is the `mlir::Pass` this runs as,
/// whose analyses keep the LIR modules between lattice passes, or null to keep none.
///
/// # Safety
/// `pass` is null or points at the `mlir::Pass` running on `operation` at the time of the call.
pub unsafe fn run_on_operation(
    operation: OperationRef<'_, '_>,
    spec: &PassSpec,
    registry: Registry,
    pass: *mut c_void,
) -> bool {
    // `to_ref` borrows the `ContextRef` itself (a handle on this stack frame), so the handle
    // must live as long as the `&Context`: taking it from a temporary left a dangling
    // reference that optimized builds reused (issue 20).
    let handle = operation.context();
    // SAFETY: the context outlives every op of it, the pass runs on one of its ops, and
    // `handle` outlives every use of `context` in this call.
    let context = unsafe { handle.to_ref() };
    let cache = (!pass.is_null()).then_some(Cache {
        pass,
        root: operation.to_raw(),
    });
    let (mut changed, mut failed) = (false, false);
    // Every module runs, so that each reports its failures.
    for module in lattice_modules(operation) {
        match run_on(spec, registry, context, cache, module) {
            Outcome::Failed => failed = true,
            Outcome::Unchanged => {}
            Outcome::Changed => changed = true,
        }
    }
    if failed {
        return false;
    }
    if let Some(cache) = cache {
        // SAFETY: per the contract, `pass` is running.
        unsafe { latticeMlirCachePreserve(cache.pass, !changed) };
    }
    true
}

/// What a lattice pass did to one lattice module.
enum Outcome {
    /// It failed (errors emitted); MLIR stops the pipeline.
    Failed,
    /// The module is as it was.
    Unchanged,
    /// The module op holds the pass's result.
    Changed,
}

/// The analyses of the MLIR pass running on `root` (see `shim/cache.cpp`): the LIR module each
/// lattice module op holds, as the last lattice pass left it.
#[derive(Clone, Copy)]
struct Cache {
    pass: *mut c_void,
    root: MlirOperation,
}

extern "C" {
    /// `shim/cache.cpp`: takes the state cached for `module` (null: none).
    fn latticeMlirCacheTake(
        pass: *mut c_void,
        root: MlirOperation,
        module: MlirOperation,
    ) -> *mut c_void;
    /// `shim/cache.cpp`: caches `state` for `module`; `drop` frees it.
    fn latticeMlirCachePut(
        pass: *mut c_void,
        root: MlirOperation,
        module: MlirOperation,
        state: *mut c_void,
        drop: unsafe extern "C" fn(*mut c_void),
    );
    /// `shim/cache.cpp`: declares every analysis preserved (`everything`) or only the states.
    fn latticeMlirCachePreserve(pass: *mut c_void, everything: bool);
}

impl Cache {
    /// The module `module_op` holds, if a lattice pass of this run left it and nothing touched
    /// the op since.
    fn take<'c>(self, module_op: OperationRef<'c, '_>) -> Option<Imported<'c>> {
        // SAFETY: `pass` runs on `root` (`run_on_operation`'s contract), an ancestor of
        // `module_op` or the op itself.
        let state = unsafe { latticeMlirCacheTake(self.pass, self.root, module_op.to_raw()) };
        if state.is_null() {
            return None;
        }
        // SAFETY: every state is a `Box<Imported>` made by `put` for an op of this context, which
        // is alive (a pass runs on one of its ops), so the handles it holds are valid for `'c`.
        Some(*unsafe { Box::from_raw(state.cast::<Imported<'c>>()) })
    }

    /// Keeps `state` as what `module_op` holds.
    fn put(self, module_op: OperationRef<'_, '_>, state: Imported<'_>) {
        let state = Box::into_raw(Box::new(state)).cast::<c_void>();
        // SAFETY: as in `take`; the analysis owns `state` from now on and frees it with
        // `drop_state`, within the pass manager's run, while the context lives.
        unsafe { latticeMlirCachePut(self.pass, self.root, module_op.to_raw(), state, drop_state) }
    }
}

/// Frees a state made by [`Cache::put`].
unsafe extern "C" fn drop_state(state: *mut c_void) {
    // SAFETY: `state` came from `Box::into_raw` in `Cache::put`, and the analysis frees it once.
    // Dropping its MLIR handles touches no MLIR object.
    drop(unsafe { Box::from_raw(state.cast::<Imported<'static>>()) });
}

/// Runs `spec` on one lattice module, starting from the module `cache` keeps for it, if any, and
/// leaving the result there. The work runs on a thread of its own ([`on_own_thread`]): with a
/// per-thread allocator such as glibc's, the pass's allocations then come from a heap of their
/// own instead of the one the module's IR crowds, where each allocation walks cold free lists
/// (on Matmul_Case1, a tenth of the pipeline's time; see docs/mlir.md). The analyses and the
/// diagnostics stay on the calling thread, which MLIR's pass manager knows: its parallel
/// diagnostic handler orders diagnostics by the thread that emits them.
fn run_on<'c>(
    spec: &PassSpec,
    registry: Registry,
    context: &'c Context,
    cache: Option<Cache>,
    module_op: OperationRef<'c, '_>,
) -> Outcome {
    let cached = cache.and_then(|cache| cache.take(module_op));
    let keep = cache.is_some();
    let mut diagnostics = Vec::new();
    // A panic in the pass still lets what it reported before reach MLIR, then goes on to the
    // caller, which reports it (see `LatticePass::run`).
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: MLIR ties no object to a thread, and the calling thread waits for the work, so
        // the context, the op and the cached handles are used by one thread at a time, as the
        // pass manager hands them to this pass; the analyses and the diagnostic engine, which
        // key their state by thread, are used here and not there.
        unsafe {
            on_own_thread(|| {
                apply(
                    spec,
                    registry,
                    context,
                    cached,
                    keep,
                    module_op,
                    &mut diagnostics,
                )
            })
        }
    }));
    for (at, severity, message) in &diagnostics {
        emit(*at, *severity, message);
    }
    let ran = ran.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    if let (Some(cache), Some(state)) = (cache, ran.state) {
        cache.put(module_op, state);
    }
    ran.outcome
}

/// What [`apply`] did to one lattice module.
struct Ran<'c> {
    /// What became of the module.
    outcome: Outcome,
    /// What the next lattice pass may start from, when asked to keep it.
    state: Option<Imported<'c>>,
}

/// Runs `spec` on the lattice module `module_op`, starting from `cached` (what the previous
/// lattice pass left) or else from the ops, and writes the result into the ops; adds what there
/// is to report to `diagnostics` (where, how severe, the message), in order, and returns what
/// became of the module and, when `keep`, the module with the ops that hold it now.
fn apply<'c>(
    spec: &PassSpec,
    registry: Registry,
    context: &'c Context,
    cached: Option<Imported<'c>>,
    keep: bool,
    module_op: OperationRef<'c, '_>,
    diagnostics: &mut Vec<(Location<'c>, Severity, String)>,
) -> Ran<'c> {
    let arg = argument(spec.name);
    let failed = Ran {
        outcome: Outcome::Failed,
        state: None,
    };
    // A cached module is the result of the previous lattice pass, which verified it.
    let verified = cached.is_some();
    let imported = match cached.map_or_else(|| import_module(module_op), Ok) {
        Ok(imported) => imported,
        Err(errors) => {
            for e in errors {
                let at = relocate(context, module_op.location(), e.loc, e.file.as_deref());
                diagnostics.push((at, Severity::Error, format!("{arg}: {e}")));
            }
            return failed;
        }
    };
    // The pass runs on the module itself; the writer learns what it changed from a snapshot,
    // which is cheaper to take and drop than a clone (see `crate::snapshot`).
    let before = Snapshot::of(&imported.module);
    let Imported {
        mut module,
        carried,
        body,
    } = imported;
    let ran = run_pass(spec, registry, &mut module, verified);
    let failure = ran.failed();
    for r in ran.reports {
        let name =
            r.op.and_then(|op| module.ops.get(op.index()))
                .map(|op| op.name);
        let known = name.and_then(|name| carried.ops.get(&name));
        let at = known.map_or_else(
            || relocate(context, module_op.location(), r.loc, None),
            |kept| kept.location,
        );
        diagnostics.push((at, r.severity, format!("{arg}: {}", r.message)));
    }
    if failure {
        return failed;
    }
    let unchanged = before.describes(&module);
    // What the next lattice pass may start from: the module, with the ops that now hold it.
    let next = if unchanged {
        Some((carried, body))
    } else {
        let written = match write_back(context, module_op, &body, &before, &module, &carried) {
            Ok(written) => written,
            Err(message) => {
                let at = module_op.location();
                diagnostics.push((at, Severity::Error, format!("{arg}: {message}")));
                return failed;
            }
        };
        // Only a kept state needs what the ops now carry.
        written
            .filter(|_| keep)
            .map(|written| (carried_after(&written, &module, carried), written.body))
    };
    Ran {
        outcome: if unchanged {
            Outcome::Unchanged
        } else {
            Outcome::Changed
        },
        state: next.filter(|_| keep).map(|(carried, body)| Imported {
            module,
            carried,
            body,
        }),
    }
}

/// What the importer would carry for the ops `written` for `module`, with what `carried` held:
/// the same location and foreign attributes for the ops it knew (the writer kept those, except
/// attributes named like one of the op's own, none unless an op changed kind), the location the
/// writer chose for the others (read off the op; they have no foreign attribute), nothing for
/// ops that are gone. Written in place, only the ops the writer built or changed can differ from
/// what `carried` holds (the rest, the header and the buffers kept their MLIR ops as they were):
/// O(touched) lookups then, O(V + B) after writing afresh; only new ops are read.
fn carried_after<'c>(written: &Written, module: &Module, mut carried: Carried<'c>) -> Carried<'c> {
    let body = &written.body;
    if let Some(touched) = &written.touched {
        for &id in touched {
            refresh(&mut carried.ops, module.op(id).name, body.ops[id.index()]);
        }
        drop_gone(&mut carried.ops, module.ops.iter().map(|op| op.name));
        return carried;
    }
    let header = [held(body.phase), held(body.target)];
    carried.header = header
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let attributes = carried
                .header
                .get(i)
                .map_or_else(Vec::new, |kept| without_own(op, &kept.attributes));
            Kept {
                location: op.location(),
                attributes,
            }
        })
        .collect();
    let buffers = module.buffers.iter().zip(&body.buffers);
    update(&mut carried.buffers, buffers.map(|(b, &op)| (b.name, op)));
    let ops = module.ops.iter().zip(&body.ops);
    update(&mut carried.ops, ops.map(|(op, &held)| (op.name, held)));
    carried
}

/// Brings `kept` (by name) in line with `written`, every op written by its name (see
/// [`carried_after`]).
fn update<'c>(
    kept: &mut FxHashMap<u32, Kept<'c>>,
    written: impl ExactSizeIterator<Item = (u32, MlirOperation)> + Clone,
) {
    for (name, op) in written.clone() {
        refresh(kept, name, op);
    }
    drop_gone(kept, written.map(|(name, _)| name));
}

/// Brings what `kept` holds for `name` in line with `op`, written by that name (see
/// [`carried_after`]).
fn refresh<'c>(kept: &mut FxHashMap<u32, Kept<'c>>, name: u32, op: MlirOperation) {
    let op = held(op);
    match kept.get_mut(&name) {
        Some(old) if !old.attributes.is_empty() => {
            old.attributes = without_own(&op, &old.attributes);
        }
        Some(_) => {}
        None => {
            let fresh = Kept {
                location: op.location(),
                attributes: Vec::new(),
            };
            kept.insert(name, fresh);
        }
    }
}

/// Leaves in `kept` only the `live` names, every one of which it holds.
fn drop_gone(kept: &mut FxHashMap<u32, Kept<'_>>, live: impl ExactSizeIterator<Item = u32>) {
    // Names are unique (the structural verifier checked), so more entries than live names means
    // some ops are gone.
    if kept.len() != live.len() {
        let live: FxHashSet<u32> = live.collect();
        kept.retain(|name, _| live.contains(name));
    }
}

/// `attributes` without those named like an attribute `op` defines (which the exporter left out).
fn without_own<'c>(
    op: &OperationRef<'c, '_>,
    attributes: &[(Identifier<'c>, Attribute<'c>)],
) -> Vec<(Identifier<'c>, Attribute<'c>)> {
    if attributes.is_empty() {
        return Vec::new();
    }
    let own = dialect::own_attributes(&op_name(*op));
    attributes
        .iter()
        .filter(|(name, _)| !own.contains(&identifier(*name).as_str()))
        .copied()
        .collect()
}

/// An MLIR location for a LIR position: at that line and column of `file` when one is given (an
/// import error at an op whose location names another file than the module's, as bytecode or
/// `loc(...)` aliases carry), else of the module's file when the module came from one, else the
/// module's own location.
fn relocate<'c>(
    context: &'c Context,
    module: Location<'c>,
    loc: Option<Loc>,
    file: Option<&str>,
) -> Location<'c> {
    match (loc, file.map(str::to_owned).or_else(|| file_of(module))) {
        (Some(loc), Some(file)) => {
            Location::new(context, &file, loc.line as usize, loc.col as usize)
        }
        _ => module,
    }
}

extern "C" {
    /// `shim/emit.cpp`: reports `message` at `location` with an `MlirDiagnosticSeverity`.
    fn latticeMlirEmit(
        location: MlirLocation,
        severity: MlirDiagnosticSeverity,
        message: MlirStringRef,
    );
}

/// Emits an MLIR diagnostic of `severity` (a note, which MLIR cannot report alone, as a remark).
fn emit(location: Location<'_>, severity: Severity, message: &str) {
    let severity = match severity {
        Severity::Error => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticError,
        Severity::Warning => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticWarning,
        Severity::Remark | Severity::Note => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticRemark,
    };
    // SAFETY: the location belongs to a live context (the op being run on holds it), the string
    // reference points at `message`'s bytes, which outlive the call, and the shim neither keeps
    // them (MLIR copies the message into the diagnostic) nor unwinds.
    unsafe {
        latticeMlirEmit(
            location.to_raw(),
            severity,
            StringRef::new(message).to_raw(),
        )
    }
}
