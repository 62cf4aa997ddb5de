//! MLIR as `lattice-opt`'s host IR (`lattice_passes::REGISTRY.with_host(&MLIR_HOST)`): `.mlir`
//! and `.mlirbc` input (and MLIR on standard input) read through MLIR's parser, results written
//! back into the user's MLIR, and pipelines that mix upstream MLIR passes with lattice passes
//! (`builtin.module(canonicalize,lattice-mpas,lattice-dlr{victim=lru})`) run by an MLIR
//! `PassManager`.
//!
//! Invariants: reading returns every lattice module in text order (see
//! [`crate::import::lattice_modules`]), what MLIR's parser reported besides errors, and the
//! parsed input ([`ParsedMlir`], its context and module), and never panics; writing takes that
//! parsed input (or parses the input again when the caller kept none) and replaces exactly the
//! lattice modules, in that order, by the results — each only if its result differs
//! from what it held, and then op by op as a lattice pass in a `PassManager` does (ops keep their
//! MLIR locations and foreign attributes) — so everything else (a `func.func`, attributes on the
//! enclosing module) is what MLIR parsed; the output is MLIR text checked by MLIR's verifier
//! (bytecode input gives text output). A pipeline runs as [`crate::add_pipeline`] builds it, so
//! lattice passes are spelled `lattice-<pass>` there. Cost: one MLIR parse per input, plus the
//! imports and exports (O(V + E + B) per lattice module) and the passes.

use crate::diagnostics::Capture;
use crate::dialect;
use crate::export::{lir_locations, lir_to_mlir, lir_to_mlir_carrying};
use crate::import::{import_module, lattice_modules, outside_lattice_modules, Imported};
use crate::pipeline::{add_pipeline, pipeline_text};
use crate::rewrite::write_back;
use crate::snapshot::Snapshot;
use crate::strings::operation_text;
use crate::text::{import_diagnostic, parse};
use lattice::diagnostic::Diagnostic;
use lattice::host::{Host, HostInput, HostRun, Hosted, Parsed};
use lattice_lir::diag::Severity;
use lattice_lir::Module;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;
use melior::pass::PassManager;
use melior::Context;

/// MLIR as the host IR of `lattice-opt`.
pub const MLIR_HOST: Host = Host {
    name: "MLIR",
    extensions: &["mlir", "mlirbc"],
    missing: None,
    sniff: crate::sniff::looks_like_mlir,
    read,
    write,
    check_pipeline,
    run_pipeline,
};

fn context() -> Result<Context, Vec<Diagnostic>> {
    dialect::context().map_err(|e| vec![Diagnostic::error(None, e.to_string())])
}

/// Every lattice module of `root`, as LIR; every import error otherwise.
fn import_all(root: OperationRef<'_, '_>) -> Result<Vec<Module>, Vec<Diagnostic>> {
    let found = lattice_modules(root);
    if found.is_empty() {
        let none = crate::ImportError {
            loc: crate::diagnostics::loc_of(root.location()),
            file: crate::diagnostics::source_file(root.location()),
            kind: crate::ImportErrorKind::NoModule,
        };
        return Err(vec![import_diagnostic(&none)]);
    }
    let mut modules = Vec::with_capacity(found.len());
    let mut errors = Vec::new();
    for module_op in found {
        match import_module(module_op) {
            Ok(imported) => modules.push(imported.module),
            Err(e) => errors.extend(e.iter().map(import_diagnostic)),
        }
    }
    if errors.is_empty() {
        Ok(modules)
    } else {
        Err(errors)
    }
}

/// An MLIR input as [`read`] parsed it, kept for [`write`]: the context and the module in it.
struct ParsedMlir {
    /// The parsed module, owned: destroyed by `Drop`, before the context.
    module: mlir_sys::MlirModule,
    context: Context,
}

impl ParsedMlir {
    /// Keeps `module`, a module of `context` that [`into_raw`] released.
    fn new(context: Context, module: mlir_sys::MlirModule) -> Self {
        ParsedMlir { module, context }
    }

    /// The module, borrowed for as long as `self` is.
    fn module(&self) -> OperationRef<'_, '_> {
        // SAFETY: `self.module` is a live module of `self.context` (owned by `self` until `Drop`).
        unsafe { OperationRef::from_raw(mlir_sys::mlirModuleGetOperation(self.module)) }
    }
}

/// `module`'s handle, which the caller now owns (to destroy once, before the module's context).
fn into_raw(module: melior::ir::Module<'_>) -> mlir_sys::MlirModule {
    let raw = module.to_raw();
    // The handle's owner destroys the module instead of melior's `Drop`.
    std::mem::forget(module);
    raw
}

impl Drop for ParsedMlir {
    fn drop(&mut self) {
        // SAFETY: the module is live and owned here, and its context is dropped after this
        // (fields drop after `drop` returns).
        unsafe { mlir_sys::mlirModuleDestroy(self.module) }
    }
}

fn read(input: &[u8]) -> Result<Hosted, Vec<Diagnostic>> {
    let context = context()?;
    let (mlir, reported) = parse(&context, input)?;
    let root = mlir.as_operation();
    let (modules, outside) = match import_all(root) {
        Ok(modules) => (modules, outside_lattice_modules(root)),
        Err(errors) => return Err(reported.into_iter().chain(errors).collect()),
    };
    let module = into_raw(mlir);
    let parsed = ParsedMlir::new(context, module);
    Ok(Hosted {
        modules,
        outside,
        diagnostics: reported,
        parsed: Some(Parsed(Box::new(parsed))),
    })
}

/// MLIR's verdict on `op` and its text, or the verifier's diagnostics (`capture` records them).
fn verified_text(
    op: OperationRef<'_, '_>,
    capture: &Capture<'_>,
) -> Result<String, Vec<Diagnostic>> {
    if op.verify() {
        return Ok(operation_text(op));
    }
    let mut errors = capture.take();
    errors.insert(
        0,
        Diagnostic::error(None, "MLIR's verifier rejects the result"),
    );
    Err(errors)
}

fn write(
    source: Option<&[u8]>,
    parsed: Option<Parsed>,
    results: &[Module],
) -> Result<String, Vec<Diagnostic>> {
    // The input as `read` parsed it, or parsed now.
    let parsed = match parsed.map(|p| p.0.downcast::<ParsedMlir>()) {
        Some(Ok(parsed)) => *parsed,
        Some(Err(_)) => {
            let message = "internal error: the parsed input handed back is not MLIR";
            return Err(vec![Diagnostic::error(None, message)]);
        }
        None => {
            let context = context()?;
            let Some(source) = source else {
                return write_new(&context, results);
            };
            let (mlir, _) = parse(&context, source)?;
            let module = into_raw(mlir);
            ParsedMlir::new(context, module)
        }
    };
    let context = &parsed.context;
    let capture = Capture::new(context);
    let root = parsed.module();
    let found = lattice_modules(root);
    if found.len() != results.len() {
        let message = format!(
            "the input holds {} lattice modules, but {} results were given",
            found.len(),
            results.len()
        );
        return Err(vec![Diagnostic::error(None, message)]);
    }
    for (module_op, result) in found.into_iter().zip(results) {
        let imported = import_module(module_op)
            .map_err(|errors| errors.iter().map(import_diagnostic).collect::<Vec<_>>())?;
        if imported.module == *result {
            continue;
        }
        replace(context, module_op, &imported, result)?;
    }
    verified_text(root, &capture)
}

/// `results` alone, as MLIR text (there was no MLIR input to write them into).
fn write_new(context: &Context, results: &[Module]) -> Result<String, Vec<Diagnostic>> {
    let capture = Capture::new(context);
    let mut texts = Vec::with_capacity(results.len());
    for module in results {
        let mlir = lir_to_mlir(context, module)
            .map_err(|e| vec![Diagnostic::error(None, e.to_string())])?;
        texts.push(verified_text(mlir.as_operation(), &capture)?);
    }
    Ok(texts.join("\n"))
}

/// Writes `result` into lattice module `module_op`, which holds `imported`, as a lattice pass
/// does (in place: ops that stay keep their identity, location and foreign attributes).
fn replace<'c>(
    context: &'c Context,
    module_op: OperationRef<'c, '_>,
    imported: &Imported<'c>,
    result: &Module,
) -> Result<(), Vec<Diagnostic>> {
    let (before, body, carried) = (
        Snapshot::of(&imported.module),
        &imported.body,
        &imported.carried,
    );
    write_back(context, module_op, body, &before, result, carried)
        .map(|_written| ())
        .map_err(|message| {
            let location = module_op.location();
            let loc = crate::diagnostics::loc_of(location);
            let file = crate::diagnostics::source_file(location);
            vec![Diagnostic::error(loc, message).in_file(file)]
        })
}

fn check_pipeline(text: &str) -> Result<String, String> {
    let context = dialect::context().map_err(|e| e.to_string())?;
    let manager = PassManager::new(&context);
    add_pipeline(&manager, text, lattice_passes::REGISTRY).map_err(|e| e.to_string())?;
    Ok(pipeline_text(&manager))
}

fn run_pipeline(input: HostInput<'_>, text: &str) -> Result<HostRun, Vec<Diagnostic>> {
    let context = context()?;
    let capture = Capture::new(&context);
    // What MLIR's parser reported besides errors (warnings, remarks) comes first.
    let (mut mlir, mut diagnostics) = match input {
        HostInput::Source(bytes) => parse(&context, bytes)?,
        // MLIR's diagnostics about its ops then point at the LIR lines.
        HostInput::Module(module) => {
            let mlir = lir_to_mlir_carrying(&context, module, &lir_locations(&context, module))
                .map_err(|e| vec![Diagnostic::error(None, e.to_string())])?;
            (mlir, Vec::new())
        }
    };
    let manager = PassManager::new(&context);
    add_pipeline(&manager, text, lattice_passes::REGISTRY)
        .map_err(|e| vec![Diagnostic::error(None, format!("--pass-pipeline: {e}"))])?;
    let ran = manager.run(&mut mlir);
    diagnostics.extend(capture.take());
    if ran.is_err() {
        if !diagnostics.iter().any(|d| d.severity == Severity::Error) {
            diagnostics.push(Diagnostic::error(None, "the MLIR pipeline failed"));
        }
        return Err(diagnostics);
    }
    let root = mlir.as_operation();
    let text = verified_text(root, &capture)?;
    let modules = import_all(root)?;
    Ok(HostRun {
        text,
        modules,
        outside: outside_lattice_modules(root),
        diagnostics,
    })
}
