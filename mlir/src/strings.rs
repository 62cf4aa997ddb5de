//! Text out of MLIR without panics: string values, identifiers and printed forms.
//!
//! melior's own accessors unwrap: `StringAttribute::value` panics on bytes that are not UTF-8,
//! and its `StringRef::as_str` indexes the last byte, so an empty string (`tier = ""`, an empty
//! chunk from a printer, as its pass-pipeline `Display` may receive) panics. Input is user text,
//! so the bridge reads strings through these functions instead. Invariant: none of them panics;
//! what is not UTF-8 is `None` (values) or replaced lossily (printed forms, which are only shown
//! to users). O(length) each.

use melior::ir::attribute::{AttributeLike, StringAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, Identifier, OperationRef};
use melior::pass::OperationPassManager;
use mlir_sys::{MlirDiagnostic, MlirStringRef};
use std::ffi::c_void;

/// The bytes of an MLIR string reference.
///
/// # Safety
/// `s` must point at `s.length` readable bytes that outlive `'a`.
unsafe fn bytes<'a>(s: MlirStringRef) -> &'a [u8] {
    if s.length == 0 || s.data.is_null() {
        return &[];
    }
    // SAFETY: the caller guarantees `length` readable bytes at `data`.
    unsafe { std::slice::from_raw_parts(s.data.cast::<u8>(), s.length) }
}

/// The value of a string attribute, if `attribute` is one and its bytes are UTF-8.
pub fn string_value<'c>(attribute: Attribute<'c>) -> Option<&'c str> {
    let string = StringAttribute::try_from(attribute).ok()?;
    // SAFETY: string attributes are uniqued in the context, which outlives `'c`.
    let raw = unsafe { bytes(mlir_sys::mlirStringAttrGetValue(string.to_raw())) };
    std::str::from_utf8(raw).ok()
}

/// An identifier as text (lossy).
pub fn identifier(id: Identifier<'_>) -> String {
    // SAFETY: identifiers are uniqued in the context and outlive this call.
    let raw = unsafe { bytes(mlir_sys::mlirIdentifierStr(id.to_raw())) };
    String::from_utf8_lossy(raw).into_owned()
}

/// An identifier's text, borrowed from the context (no copy), if it is UTF-8.
pub fn identifier_str<'c>(id: Identifier<'c>) -> Option<&'c str> {
    // SAFETY: identifiers are uniqued in the context, which outlives `'c`.
    let raw = unsafe { bytes(mlir_sys::mlirIdentifierStr(id.to_raw())) };
    std::str::from_utf8(raw).ok()
}

/// The name of an op (`lattice.alloc`).
pub fn op_name(op: OperationRef<'_, '_>) -> String {
    identifier(op.name())
}

unsafe extern "C" fn collect(chunk: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `Vec<u8>` a `printed` call passed; MLIR hands a valid chunk.
    unsafe { (*data.cast::<Vec<u8>>()).extend_from_slice(bytes(chunk)) };
}

/// Collects what `print` writes through an MLIR print callback.
fn printed(print: impl FnOnce(mlir_sys::MlirStringCallback, *mut c_void)) -> String {
    let mut out: Vec<u8> = Vec::new();
    print(Some(collect), (&mut out as *mut Vec<u8>).cast());
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// An attribute as MLIR prints it.
pub fn attribute_text(attribute: Attribute<'_>) -> String {
    // SAFETY: the attribute is valid; the callback only appends to the vector it is given.
    printed(|callback, data| unsafe {
        mlir_sys::mlirAttributePrint(attribute.to_raw(), callback, data)
    })
}

/// An op as MLIR prints it (generic form for ops without a custom one, as lattice ops).
pub fn operation_text(op: OperationRef<'_, '_>) -> String {
    // SAFETY: the op is valid; the callback only appends to the vector it is given.
    printed(|callback, data| unsafe { mlir_sys::mlirOperationPrint(op.to_raw(), callback, data) })
}

/// A pass manager's pipeline as MLIR prints it (`printAsTextualPipeline`).
pub fn pass_pipeline_text(manager: OperationPassManager<'_, '_>) -> String {
    // SAFETY: the manager is valid; the callback only appends to the vector it is given.
    printed(|callback, data| unsafe {
        mlir_sys::mlirPrintPassPipeline(manager.to_raw(), callback, data)
    })
}

/// The message of a diagnostic.
///
/// # Safety
/// `diagnostic` must be valid: call this from the diagnostic handler that received it.
pub unsafe fn diagnostic_text(diagnostic: MlirDiagnostic) -> String {
    // SAFETY: per the contract; the callback only appends to the vector it is given.
    printed(|callback, data| unsafe { mlir_sys::mlirDiagnosticPrint(diagnostic, callback, data) })
}

/// A pipeline parser's message chunk appended to `message`.
///
/// # Safety
/// `data` must be a `*mut String` valid for the call.
pub unsafe extern "C" fn append_message(chunk: MlirStringRef, data: *mut c_void) {
    // SAFETY: per the contract, and MLIR hands a valid chunk.
    let (message, chunk) = unsafe { (&mut *data.cast::<String>(), bytes(chunk)) };
    message.push_str(&String::from_utf8_lossy(chunk));
}
