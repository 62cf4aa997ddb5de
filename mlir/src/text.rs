//! The bridge at the level of text, as the tools use it: a LIR module as MLIR text, and MLIR
//! (text, or bytecode as `mlir-opt --emit-bytecode` writes it) parsed and read as LIR with every
//! problem reported as a located diagnostic.
//!
//! Invariants: MLIR text is printed only after MLIR's verifier accepted the module; reading MLIR
//! never panics and never prints (MLIR's diagnostics are captured and returned, located in the
//! input, or — for bytecode, whose locations are those of the text it was made from — in the file
//! they name). Bytes go to MLIR's parser unchanged: it tells bytecode from text by its magic.
//! Each public call builds its own MLIR context: O(1) set-up plus the size of the module.

use crate::diagnostics::Capture;
use crate::dialect;
use crate::error::BridgeError;
use crate::export::lir_to_mlir;
use crate::import::import_single;
use crate::strings::operation_text;
use lattice::diagnostic::Diagnostic;
use lattice_lir::Module;
use melior::ir::operation::OperationLike;
use melior::Context;

/// `module` as MLIR text: a `builtin.module` of `lattice` ops in generic form, checked by MLIR's
/// verifier before it is printed.
pub fn lir_to_mlir_text(module: &Module) -> Result<String, BridgeError> {
    let context = dialect::context()?;
    let capture = Capture::new(&context);
    let mlir = lir_to_mlir(&context, module)?;
    if !mlir.as_operation().verify() {
        let messages: Vec<String> = capture.take().into_iter().map(|d| d.message).collect();
        return Err(BridgeError::Export(messages.join("; ")));
    }
    Ok(operation_text(mlir.as_operation()))
}

/// MLIR `input`, text or bytecode, parsed and verified by MLIR in `context`, with what MLIR
/// reported besides errors; or MLIR's diagnostics.
pub fn parse<'c>(
    context: &'c Context,
    input: &[u8],
) -> Result<(melior::ir::Module<'c>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let capture = Capture::new(context);
    let source = mlir_sys::MlirStringRef {
        data: input.as_ptr().cast(),
        length: input.len(),
    };
    // SAFETY: `source` points at `input`'s bytes, which outlive the call; MLIR's parser reads them
    // during the call only (it copies names and attributes into the context), and a null module
    // (a failed parse) becomes `None`.
    let parsed = unsafe {
        melior::ir::Module::from_option_raw(mlir_sys::mlirModuleCreateParse(
            context.to_raw(),
            source,
        ))
    };
    match parsed {
        Some(module) => Ok((module, capture.take())),
        None => {
            let mut diagnostics = capture.take();
            if diagnostics.is_empty() {
                diagnostics.push(Diagnostic::error(None, "MLIR could not parse the input"));
            }
            Err(diagnostics)
        }
    }
}

/// Reads the one lattice module of MLIR `input` (text or bytecode; parsed and verified by MLIR,
/// then converted). The result is not structurally verified as LIR: callers run
/// `lattice_lir::verify_module`, as they do after parsing LIR.
pub fn mlir_to_lir(input: impl AsRef<[u8]>) -> Result<Module, Vec<Diagnostic>> {
    let context = dialect::context().map_err(|e| vec![Diagnostic::error(None, e.to_string())])?;
    let (mlir, reported) = parse(&context, input.as_ref())?;
    match import_single(mlir.as_operation()) {
        Ok(imported) => Ok(imported.module),
        Err(errors) => {
            let mut diagnostics = reported;
            diagnostics.extend(errors.iter().map(import_diagnostic));
            Err(diagnostics)
        }
    }
}

/// An import error as a diagnostic, in the file its location names (bytecode) if any.
pub fn import_diagnostic(error: &crate::ImportError) -> Diagnostic {
    Diagnostic::from_located(error).in_file(error.file.clone())
}
