//===- Dialect.h - the lattice dialect in C++ ------------------*- C++ -*-===//
//
// What it does: the `lattice` dialect generated from LatticeDialect.td and LatticeOps.td — the
// dialect class, `!lattice.buf` and `!lattice.token`, and the op classes (`lattice::PhaseOp`,
// `TargetOp`, `BufferOp`, `AllocOp`, `FreeOp`, `CommandOp`, `SpillOutOp`, `SpillInOp`) with their
// typed accessors and builders — and `registerLatticeDialect`.
//
// Invariants: the ops hold exactly the values of the IRDL definition (mlir/src/lattice.irdl.mlir)
// under the same names, so IRDL-form text loads into them; the helpers in `detail` are what the
// generated code calls and are not meant for users.
//
//===----------------------------------------------------------------------===//

#ifndef LATTICE_DIALECT_H
#define LATTICE_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>

#include "lattice/LatticeDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "lattice/LatticeTypes.h.inc"

namespace lattice {

/// Why one op must come after another (LIR's `after(...)` kinds), in the order the C ABI numbers
/// them (`LATTICE_DEP_*` of lattice/capi.h).
enum class DepKind : uint8_t { Precedence = 0, Spill = 1, Reuse = 2 };

/// How a dependency kind is spelled in `dep_kinds`.
llvm::StringRef depKindName(DepKind kind);
/// The kind spelled `name`, if any.
std::optional<DepKind> depKindNamed(llvm::StringRef name);

namespace detail {
/// Whether `attr` is an integer attribute of at most 64 bits holding a value in [0, 2^width).
bool isUnsignedBelow(mlir::Attribute attr, unsigned width);
/// Prints `op`'s name as `mlir::OpState::printOpName` does (without `defaultDialect.` when that
/// is its dialect's prefix), with no string made for it.
void printOpName(mlir::Operation *op, mlir::OpAsmPrinter &p, llvm::StringRef defaultDialect);
/// The lattice ops' print hook: the name, then `OpT::print`.
template <typename OpT>
void printOp(mlir::Operation *op, mlir::OpAsmPrinter &p, llvm::StringRef defaultDialect) {
  printOpName(op, p, defaultDialect);
  llvm::cast<OpT>(op).print(p);
}
/// The verify hook of `lattice.buffer` and the scheduled ops (`OpT`): success at once when a
/// cheap check finds every invariant of the op holding; otherwise MLIR's checks of the op's traits
/// and its own verifier, in MLIR's order and with MLIR's messages (`lattice.command`'s
/// `operandSegmentSizes` checked on its properties).
template <typename OpT> mlir::LogicalResult verifyOp(mlir::Operation *op);
} // namespace detail

/// Registers the `lattice` dialect with `registry`.
void registerLatticeDialect(mlir::DialectRegistry &registry);

} // namespace lattice

#define GET_OP_CLASSES
#include "lattice/LatticeOps.h.inc"

#endif // LATTICE_DIALECT_H
