//===- attrs.cpp - Setting an op's attributes by uniqued name -------------===//
//
// What it does: `latticeMlirSetAttribute` sets one attribute of an op under a name already uniqued
// as an identifier, and `latticeMlirSetDictionary` replaces all of an op's attributes by a
// dictionary made beforehand. The bridge's in-place writer (`src/rewrite.rs`) updates tens of
// thousands of ops per pass this way, their dictionaries made across threads when
// `latticeMlirContextIsMultithreaded` says the context uniques under locks.
// `latticeMlirReadAttributes` is the importer's (`src/import.rs`) way in: every attribute of an
// op it knows, by uniqued name, in one pass over the op's dictionary; `latticeMlirReadUnsigned`
// reads a non-negative integer of any signedness in one call.
//
// Why C++: MLIR 22's C API sets attributes only by string name (`mlirOperationSetAttributeByName`
// uniques the name again on every call) and one at a time (each call builds and uniques a new
// attribute dictionary, so k changed attributes cost k dictionaries instead of one), reads them
// by string name too (a binary search comparing strings, per attribute), takes six calls (and an
// interface lookup for the type) to read an integer and its signedness, and can turn
// multithreading on and off but not say whether it is on.
//
// Invariants: the functions keep nothing and never throw; the names and values belong to the
// op's context (the caller guarantees it, as for every C API call). Reading changes nothing, so
// it may run on any thread.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
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
mlir::Attribute value_of(MlirAttribute attribute) {
  return mlir::Attribute::getFromOpaquePointer(attribute.ptr);
}
} // namespace

extern "C" bool latticeMlirContextIsMultithreaded(MlirContext context) {
  return static_cast<mlir::MLIRContext *>(context.ptr)->isMultithreadingEnabled();
}

extern "C" void latticeMlirSetAttribute(MlirOperation operation, MlirIdentifier identifier,
                                        MlirAttribute attribute) {
  op(operation)->setAttr(name(identifier), value_of(attribute));
}

// `dictionary` is a dictionary attribute.
extern "C" void latticeMlirSetDictionary(MlirOperation operation, MlirAttribute dictionary) {
  op(operation)->setAttrs(mlir::cast<mlir::DictionaryAttr>(value_of(dictionary)));
}

// `values[i]` is the attribute of the op named `names[i]` (null when it has none); the result is
// how many of its attributes have none of the names.
extern "C" intptr_t latticeMlirReadAttributes(MlirOperation operation, intptr_t count,
                                              const MlirIdentifier *names, MlirAttribute *values) {
  for (intptr_t i = 0; i < count; ++i)
    values[i] = MlirAttribute{nullptr};
  intptr_t others = 0;
  // An op without properties (every IRDL op) holds all its attributes in this dictionary.
  for (mlir::NamedAttribute attribute : op(operation)->getAttrs()) {
    const void *key = attribute.getName().getAsOpaquePointer();
    intptr_t i = 0;
    while (i < count && names[i].ptr != key)
      ++i;
    if (i < count)
      values[i] = MlirAttribute{attribute.getValue().getAsOpaquePointer()};
    else
      ++others;
  }
  return others;
}

// An integer attribute of at most 64 bits, unsigned or else read as signed, into `value` when
// it is not negative; false for anything else.
extern "C" bool latticeMlirReadUnsigned(MlirAttribute attribute, uint64_t *value) {
  auto integer = llvm::dyn_cast<mlir::IntegerAttr>(value_of(attribute));
  if (!integer)
    return false;
  auto type = llvm::dyn_cast<mlir::IntegerType>(integer.getType());
  if (!type || type.getWidth() > 64)
    return false;
  const llvm::APInt &bits = integer.getValue();
  // A zero-bit integer holds 0 (and has no sign bit to test).
  if (type.getWidth() == 0) {
    *value = 0;
    return true;
  }
  if (type.isUnsigned()) {
    *value = bits.getZExtValue();
    return true;
  }
  if (bits.isNegative())
    return false;
  *value = bits.getZExtValue();
  return true;
}
