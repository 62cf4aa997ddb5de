//===- create.cpp - Building ops under a name looked up once ---------------===//
//
// What it does: `latticeMlirOperationName` looks an op name up in a context once, and
// `latticeMlirCreateOperation` builds a detached op under it from its location, attribute
// dictionary, operands and at most one result type. The exporter (`src/export.rs`) builds every op it
// writes this way: tens of thousands per module, and thousands per pass for `dlr`'s spills.
//
// Why C++: MLIR 22's C API builds ops only through `MlirOperationState`, which takes the op name
// as a string and looks it up again for every op, and copies the attributes, operands and types
// into lists of its own before the op is built. Taking a dictionary made beforehand lets the
// exporter make it on another thread, ahead of the operands.
//
// Invariants: neither function keeps anything or throws; the name, location, attributes,
// operands and type belong to one context (the caller guarantees it, as for every C API call);
// an op is built exactly as `mlirOperationCreate` would build it without result type inference
// (no properties, no successors, no regions), and the caller owns it.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

// The op name `name` in `context` (registered or not), as an opaque handle valid while the
// context lives.
extern "C" const void *latticeMlirOperationName(MlirContext context, MlirStringRef name) {
  auto *ctx = static_cast<mlir::MLIRContext *>(context.ptr);
  return mlir::OperationName(llvm::StringRef(name.data, name.length), ctx).getAsOpaquePointer();
}

// A detached op named `name` (from `latticeMlirOperationName`) at `location`, with the
// attributes of `dictionary` (a dictionary attribute) and the `operandCount` operands given, and
// one result of type `result` unless that is null.
extern "C" MlirOperation latticeMlirCreateOperation(const void *name, MlirLocation location,
                                                    MlirAttribute dictionary,
                                                    intptr_t operandCount,
                                                    const MlirValue *operands,
                                                    MlirType result) {
  // What the C API's own `unwrap` does: each handle holds the opaque pointer of its C++ value.
  auto loc = mlir::Location::getFromOpaquePointer(location.ptr);
  llvm::SmallVector<mlir::Value, 8> values;
  values.reserve(operandCount);
  for (intptr_t i = 0; i < operandCount; ++i)
    values.push_back(mlir::Value::getFromOpaquePointer(operands[i].ptr));
  llvm::SmallVector<mlir::Type, 1> types;
  if (result.ptr)
    types.push_back(mlir::Type::getFromOpaquePointer(result.ptr));
  auto attributes = mlir::cast<mlir::DictionaryAttr>(
      mlir::Attribute::getFromOpaquePointer(dictionary.ptr));
  mlir::Operation *op = mlir::Operation::create(
      loc, mlir::OperationName::getFromOpaquePointer(name), types, values, attributes,
      /*properties=*/nullptr, /*successors=*/{}, /*numRegions=*/0);
  return MlirOperation{op};
}
