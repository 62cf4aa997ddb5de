//===- attrs.cpp - Setting an op's attributes by uniqued name -------------===//
//
// What it does: `latticeMlirSetAttribute` sets one attribute of an op under a name already uniqued
// as an identifier, and `latticeMlirSetAttributes` replaces all of an op's attributes at once. The
// bridge's in-place writer (`src/rewrite.rs`) updates tens of thousands of ops per pass this way,
// across threads when `latticeMlirContextIsMultithreaded` says the context uniques under locks.
//
// Why C++: MLIR 22's C API sets attributes only by string name (`mlirOperationSetAttributeByName`
// uniques the name again on every call) and one at a time (each call builds and uniques a new
// attribute dictionary, so k changed attributes cost k dictionaries instead of one), and can turn
// multithreading on and off but not say whether it is on.
//
// Invariants: both functions keep nothing and never throw; the names and values belong to the
// op's context (the caller guarantees it, as for every C API call).
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"

namespace {
// What the C API's own `unwrap` does: each handle holds the opaque pointer of its C++ value.
mlir::Operation *op(MlirOperation operation) {
  return static_cast<mlir::Operation *>(operation.ptr);
}
mlir::StringAttr name(MlirIdentifier identifier) {
  return mlir::StringAttr::getFromOpaquePointer(identifier.ptr);
}
mlir::Attribute value(MlirAttribute attribute) {
  return mlir::Attribute::getFromOpaquePointer(attribute.ptr);
}
} // namespace

extern "C" bool latticeMlirContextIsMultithreaded(MlirContext context) {
  return static_cast<mlir::MLIRContext *>(context.ptr)->isMultithreadingEnabled();
}

extern "C" void latticeMlirSetAttribute(MlirOperation operation, MlirIdentifier identifier,
                                        MlirAttribute attribute) {
  op(operation)->setAttr(name(identifier), value(attribute));
}

extern "C" void latticeMlirSetAttributes(MlirOperation operation, intptr_t count,
                                         const MlirNamedAttribute *attributes) {
  llvm::SmallVector<mlir::NamedAttribute, 8> named;
  named.reserve(count);
  for (intptr_t i = 0; i < count; ++i)
    named.emplace_back(name(attributes[i].name), value(attributes[i].attribute));
  op(operation)->setAttrs(named);
}
