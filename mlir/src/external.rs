//! LATTICE passes as MLIR external passes: any pass of a lattice [`Registry`], with its options,
//! runs inside an MLIR `PassManager` on every lattice module of the op it is scheduled on.
//!
//! Per lattice module the pass reads the ops as LIR, checks them structurally, runs the lattice
//! pass exactly as `lattice-opt` would (fresh instance, fresh analyses, an error or an emitted
//! error fails it, the phase may not move back, the result must verify), and, only if the pass
//! changed the module, replaces the module's body with the result.
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
//! Cost: the import and export (O(V + E + B)) around the pass's own.

use crate::diagnostics::file_of;
use crate::dialect;
use crate::export::{append_ops, Carried};
use crate::import::{import_module, lattice_modules};
use crate::strings::op_name;
use lattice::pipeline::PassSpec;
use lattice::{AnalysisManager, PassContext, Registry};
use lattice_lir::diag::{Loc, Severity};
use lattice_lir::{verify_module, Module, OpId};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeId;
use melior::ir::{Location, OperationRef, RegionLike};
use melior::pass::{create_external, ExternalPass, Pass, RunExternalPass};
use melior::{Context, ContextRef, StringRef};
use mlir_sys::{MlirDiagnosticSeverity, MlirLocation, MlirStringRef};

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
        if !run_on_operation(operation, &self.spec, self.registry) {
            pass.signal_failure();
        }
    }
}

/// Runs the lattice pass `spec` (a pass of `registry`) on every lattice module of `operation`
/// (itself included), as the MLIR pass of [`lattice_pass`] does; false when it failed on one of
/// them, its errors then reported to MLIR's diagnostic engine. The `mlir-opt` plugin
/// (`mlir/plugin`) calls this too, from its C++ pass.
pub fn run_on_operation(
    operation: OperationRef<'_, '_>,
    spec: &PassSpec,
    registry: Registry,
) -> bool {
    // `to_ref` borrows the `ContextRef` itself (a handle on this stack frame), so the handle
    // must live as long as the `&Context`: taking it from a temporary left a dangling
    // reference that optimized builds reused (issue 20).
    let handle = operation.context();
    // SAFETY: the context outlives every op of it, the pass runs on one of its ops, and
    // `handle` outlives every use of `context` in this call.
    let context = unsafe { handle.to_ref() };
    let mut ok = true;
    for module in lattice_modules(operation) {
        ok &= run_on(spec, registry, context, module);
    }
    ok
}

/// A diagnostic to report: its severity, the message and where.
struct Report {
    severity: Severity,
    op: Option<OpId>,
    loc: Option<Loc>,
    message: String,
}

/// Runs `spec` on one lattice module; false when it failed (diagnostics emitted).
fn run_on<'c>(
    spec: &PassSpec,
    registry: Registry,
    context: &'c Context,
    module_op: OperationRef<'c, '_>,
) -> bool {
    let arg = argument(spec.name);
    let imported = match import_module(module_op) {
        Ok(imported) => imported,
        Err(errors) => {
            for e in errors {
                let at = relocate(context, module_op.location(), e.loc);
                emit(at, Severity::Error, &format!("{arg}: {e}"));
            }
            return false;
        }
    };
    let mut module = imported.module.clone();
    let reports = run_lattice(spec, registry, &mut module);
    let failed = reports.iter().any(|r| r.severity == Severity::Error);
    for r in reports {
        let name =
            r.op.and_then(|op| module.ops.get(op.index()))
                .map(|op| op.name);
        let known = name.and_then(|name| imported.carried.ops.get(&name));
        let at = known.map_or_else(
            || relocate(context, module_op.location(), r.loc),
            |kept| kept.location,
        );
        emit(at, r.severity, &format!("{arg}: {}", r.message));
    }
    if failed {
        return false;
    }
    if module == imported.module {
        return true;
    }
    if let Err(message) = replace_body(context, module_op, &module, &imported.carried) {
        emit(
            module_op.location(),
            Severity::Error,
            &format!("{arg}: {message}"),
        );
        return false;
    }
    true
}

/// Checks `module`, runs the pass on it and checks the result, as lattice's pass manager
/// does; leaves `module` as the pass left it and returns what the pass emitted (warnings and
/// remarks too) followed by every failure. The pass failed when an error is among them.
fn run_lattice(spec: &PassSpec, registry: Registry, module: &mut Module) -> Vec<Report> {
    let at = |loc: Option<Loc>, message: String| Report {
        severity: Severity::Error,
        op: None,
        loc,
        message,
    };
    if let Err(errors) = verify_module(module) {
        return errors
            .iter()
            .map(|e| at(e.loc, format!("the lattice module is not well formed: {e}")))
            .collect();
    }
    let Some(info) = registry.get(spec.name) else {
        return vec![at(None, registry.unknown_pass(spec.name))];
    };
    let mut pass = match (info.build)(&spec.options) {
        Ok(pass) => pass,
        Err(message) => return vec![at(None, message)],
    };
    let phase = module.phase;
    let mut analyses = AnalysisManager::new();
    let mut cx = PassContext::new(&mut analyses);
    let result = pass.run(module, &mut cx);
    let (_, _, emitted) = cx.finish();
    let mut reports: Vec<Report> = emitted
        .into_iter()
        .map(|d| Report {
            severity: d.severity,
            op: d.op,
            loc: None,
            message: d.message,
        })
        .collect();
    if let Err(error) = result {
        let notes: String = error
            .notes
            .iter()
            .map(|(_, n)| format!("; note: {n}"))
            .collect();
        reports.push(Report {
            op: error.op,
            ..at(None, format!("{}{notes}", error.message))
        });
    }
    if reports.iter().any(|r| r.severity == Severity::Error) {
        return reports;
    }
    if module.phase < phase {
        let message = format!(
            "the pass moved the phase back from `{phase}` to `{}`",
            module.phase
        );
        reports.push(at(None, message));
    } else if let Err(errors) = verify_module(module) {
        reports.extend(
            errors
                .iter()
                .map(|e| at(e.loc, format!("the IR is invalid after the pass: {e}"))),
        );
    }
    reports
}

/// An MLIR location for a LIR position: at that line and column of the module's file when the
/// module came from one, else the module's own location.
fn relocate<'c>(context: &'c Context, module: Location<'c>, loc: Option<Loc>) -> Location<'c> {
    match (loc, file_of(module)) {
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

/// Replaces the body of `module_op` by `module`'s ops, which keep what `carried` holds for them
/// (locations and foreign attributes).
fn replace_body<'c>(
    context: &'c Context,
    module_op: OperationRef<'c, '_>,
    module: &Module,
    carried: &Carried<'c>,
) -> Result<(), String> {
    let body = module_op
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or("the module has no body")?;
    let old: Vec<OperationRef<'c, '_>> =
        std::iter::successors(body.first_operation(), |op| op.next_in_block()).collect();
    // Ops with results used later go last: tokens are used only by later ops (the structural
    // verifier checked it), and buffers and the header by none once the ops are gone.
    let (tokens, rest): (Vec<_>, Vec<_>) = old.into_iter().partition(|op| {
        let name = op_name(*op);
        ![dialect::BUFFER, dialect::PHASE, dialect::TARGET].contains(&name.as_str())
    });
    for op in tokens.into_iter().rev().chain(rest) {
        // SAFETY: the op belongs to this body and no op left in it uses its results.
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    append_ops(context, &body, module, carried).map_err(|e| e.to_string())
}
