//! The bridge at the level of text, as the tools use it: a LIR module as MLIR text, and MLIR text
//! as a LIR module with every problem reported as a located diagnostic.
//!
//! Invariants: MLIR text is printed only after MLIR's verifier accepted the module; reading MLIR
//! text never panics and never prints (MLIR's diagnostics are captured and returned, located in
//! the text). Each call builds its own MLIR context: O(1) set-up plus the size of the module.

use crate::diagnostics::Capture;
use crate::dialect;
use crate::error::BridgeError;
use crate::export::lir_to_mlir;
use crate::import::import_single;
use crate::strings::operation_text;
use lattice::diagnostic::Diagnostic;
use lattice::input::InputFormat;
use lattice_lir::Module;
use melior::ir::operation::OperationLike;

/// `.mlir` input for `lattice-opt` (`lattice_passes::REGISTRY.with_formats(&[MLIR_INPUT])`).
pub const MLIR_INPUT: InputFormat = InputFormat {
    extension: "mlir",
    parse: mlir_to_lir,
    sniff: crate::sniff::looks_like_mlir,
};

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

/// Reads the one lattice module of MLIR `text` (parsed and verified by MLIR, then converted).
/// The result is not structurally verified as LIR: callers run `lattice_lir::verify_module`, as
/// they do after parsing LIR.
pub fn mlir_to_lir(text: &str) -> Result<Module, Vec<Diagnostic>> {
    let context = dialect::context().map_err(|e| vec![Diagnostic::error(None, e.to_string())])?;
    let capture = Capture::new(&context);
    let Some(mlir) = melior::ir::Module::parse(&context, text) else {
        let mut diagnostics = capture.take();
        if diagnostics.is_empty() {
            diagnostics.push(Diagnostic::error(None, "MLIR could not parse the input"));
        }
        return Err(diagnostics);
    };
    // The parser verifies what it reads; what it reports besides errors is kept with them.
    let reported = capture.take();
    match import_single(mlir.as_operation()) {
        Ok(imported) => Ok(imported.module),
        Err(errors) => {
            let mut diagnostics = reported;
            diagnostics.extend(errors.iter().map(|e| Diagnostic::from_located(e)));
            Err(diagnostics)
        }
    }
}
