//===- emit.cpp - Diagnostics of every severity through the MLIR C API -----===//
//
// What it does: `latticeMlirEmit` reports a message at an MLIR location with the severity asked
// for (error, warning or remark), through MLIR's diagnostic engine, so the handlers a toolchain
// attached (mlir-opt's source manager handler, a verify-diagnostics handler, the bridge's own
// `Capture`) see lattice warnings and remarks like any upstream pass's.
//
// Why C++: MLIR 22's C API has `mlirEmitError` only; `mlir::emitWarning` and `mlir::emitRemark`
// exist in C++ alone. This file is the whole shim, compiled by `build.rs` against the headers of
// the MLIR the crate links (`MLIR_SYS_220_PREFIX`), so both sides agree on every layout.
//
// Invariants: the function never throws (LLVM is built without exceptions and so is this file)
// and keeps nothing: the diagnostic is reported before it returns, and MLIR copies the message.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir/IR/Diagnostics.h"

extern "C" void latticeMlirEmit(MlirLocation location, MlirDiagnosticSeverity severity,
                                MlirStringRef message) {
  // What the C API's own `unwrap` does: an `MlirLocation` holds the opaque pointer of a Location.
  mlir::Location loc = mlir::Location::getFromOpaquePointer(location.ptr);
  llvm::StringRef text(message.data, message.length);
  // The severities are `MlirDiagnosticSeverity` values; anything but a warning or a remark is an error
  // (a note stands only attached to a diagnostic, so the bridge folds notes into their error).
  // The `InFlightDiagnostic` each call returns reports itself when destroyed, at the semicolon.
  switch (severity) {
  case MlirDiagnosticWarning:
    mlir::emitWarning(loc, text);
    break;
  case MlirDiagnosticRemark:
    mlir::emitRemark(loc, text);
    break;
  default:
    mlir::emitError(loc, text);
    break;
  }
}
