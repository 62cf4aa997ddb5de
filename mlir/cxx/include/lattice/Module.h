//===- Module.h - lattice modules between MLIR and lattice's core -*- C++ -*-===//
//
// What it does: the C++ API over the C ABI (lattice/capi.h). A lattice module — a
// `builtin.module` holding `lattice` ops — is read into lattice's core as flat arrays
// (`LirModule::read`), lattice passes run on it there, and the result is written back into the
// same ops (`LirModule::write`: ops that stay are updated in place, new ones built, lost ones
// erased, the body put in σ order) or built afresh (`LirModule::build`). LIR text goes in and out
// (`parseLir`, `printLir`), and `metricsJson` gives `lattice-opt --metrics`.
//
// Invariants: every error about a module is an MLIR diagnostic at the op it concerns (the
// module's location when none); a handle owns its core module and frees it. Cost: reading and
// writing are O(V + E + B), one pass over the ops each.
//
//===----------------------------------------------------------------------===//

#ifndef LATTICE_MODULE_H
#define LATTICE_MODULE_H

#include "lattice/capi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace lattice {

/// Whether `op` is a lattice module: a `builtin.module` whose body holds a `lattice` op.
bool isLatticeModule(mlir::Operation *op);

/// Every lattice module at or below `root`, outermost first, in text order (a lattice module's
/// own body is not searched further).
llvm::SmallVector<mlir::ModuleOp> latticeModules(mlir::Operation *root);

/// A lattice module held by lattice's core, with the MLIR ops it was read from (when it was).
class LirModule {
public:
  /// Reads `module`'s ops, which MLIR's verifier has accepted (as it has whenever a pass runs);
  /// emits every problem of the module as a whole at its op and fails when there is one.
  static mlir::FailureOr<LirModule> read(mlir::ModuleOp module);
  /// Reads LIR text; emits the errors at `loc` (with their line and column) and fails on one.
  static mlir::FailureOr<LirModule> parseLir(llvm::StringRef text, mlir::Location loc);

  /// The module as flat arrays (ops in σ order), valid until the module changes.
  const LatticeModuleDesc &view() const;
  /// The module as LIR text.
  std::string printLir() const;
  /// `lattice-opt --metrics` of the module (JSON); empty when it does not verify.
  std::string metricsJson() const;

  /// Writes the module into the ops of `module` (the module it was read from, or any lattice
  /// module): ops that stay keep their identity, location and foreign attributes and get only
  /// what changed; the body ends up in σ order. The handle then describes `module`'s ops, as if
  /// read from them.
  mlir::LogicalResult write(mlir::ModuleOp module);
  /// `write` into the module the handle describes (the one it was read from or last written
  /// into), whose ops must not have changed since: the ops are found through the handle rather
  /// than by walking the body and hashing every op's id. What lattice's passes use between the
  /// read (or the last pass's write) and their own write.
  mlir::LogicalResult writeBack();
  /// Builds the module's ops at the end of `body` (an empty module's body).
  void build(mlir::OpBuilder &builder, mlir::Location loc) const;

  /// The op op `index` of the module was read from (ops a pass added have none).
  mlir::Operation *sourceOp(uint32_t index) const;
  /// The op a diagnostic of lattice's core is about (the module's own when none).
  mlir::Operation *anchorOp(const LatticeDiagnostic &diagnostic) const;

  LatticeModule *get() const { return handle.get(); }

private:
  /// A lattice module's ops before a write: phase and target, buffers by `pos`, the scheduled ops.
  struct Before {
    mlir::Operation *phase = nullptr;
    mlir::Operation *target = nullptr;
    std::vector<mlir::Value> buffersByPos;
    std::vector<mlir::Operation *> bufferOps;
    std::vector<mlir::Operation *> ops;
  };
  /// Writes the module into `into`, whose ops were `before` (`byIndex`: `before.ops` by the
  /// core's op index, as the handle keeps them).
  mlir::LogicalResult apply(mlir::ModuleOp into, Before before, bool byIndex);

  struct Free {
    void operator()(LatticeModule *m) const { lattice_module_free(m); }
  };
  std::unique_ptr<LatticeModule, Free> handle;
  /// What it was read from: the module, its phase and target ops, buffers and scheduled ops in
  /// the order the description listed them.
  mlir::Operation *module = nullptr;
  mlir::Operation *phase = nullptr;
  mlir::Operation *target = nullptr;
  std::vector<mlir::Operation *> buffers;
  std::vector<mlir::Operation *> ops;
};

/// Reports every diagnostic of `report` at its op of `module` (errors, warnings, remarks), each
/// prefixed with `prefix`; returns failure when one is an error.
mlir::LogicalResult emitReport(const LatticeReport *report, const LirModule *module,
                               mlir::Operation *fallback, llvm::StringRef prefix);

} // namespace lattice

#endif // LATTICE_MODULE_H
