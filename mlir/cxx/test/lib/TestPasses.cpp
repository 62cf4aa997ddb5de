//===- TestPasses.cpp - lattice's test passes as MLIR passes --------------===//
//
// What it does: the classes of the `lattice-test-*` passes (generated, TestPasses.cpp.inc), over
// the same run as the real passes (lattice::detail::runPass), and one ordinary MLIR pass that
// edits lattice ops itself, `lattice-test-scale-cycles`, as a toolchain's own pass would: tests
// put it between lattice passes, where the next lattice pass must plan the module as it edited
// it, not the one the lattice pass before kept (`CachedModule`).
//
// Invariants: `lattice-test-scale-cycles` multiplies every command's `cycles` by its factor,
// wrapping around at 2^64, and declares nothing preserved, as any pass that changes the
// IR. Cost: one walk over the ops.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "lattice/Dialect.h"

namespace lattice {
#include "TestPasses.cpp.inc"
} // namespace lattice

namespace {

/// `lattice-test-scale-cycles{factor=N}`: every command's `cycles` times N (a spill's follow from
/// the target's spill cost, so they stay).
struct ScaleCyclesPass
    : mlir::PassWrapper<ScaleCyclesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ScaleCyclesPass)

  ScaleCyclesPass() = default;
  ScaleCyclesPass(const ScaleCyclesPass &other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const override { return "lattice-test-scale-cycles"; }
  llvm::StringRef getDescription() const override {
    return "Multiplies the cycles of every lattice command (an ordinary MLIR pass editing "
           "lattice ops, for tests)";
  }

  void runOnOperation() override {
    auto *dialect = getContext().getLoadedDialect<lattice::LatticeDialect>();
    if (!dialect)
      return;
    auto scaled = [&](uint64_t cycles) { return dialect->u64Attr(cycles * factor); };
    getOperation()->walk([&](mlir::Operation *op) {
      if (auto command = llvm::dyn_cast<lattice::CommandOp>(op))
        command.setCyclesAttr(scaled(command.getCycles()));
    });
  }

  Option<uint64_t> factor{*this, "factor", llvm::cl::desc("What every cycle count is multiplied by"),
                          llvm::cl::init(2)};
};

} // namespace

void lattice::registerScaleCyclesTestPass() { mlir::PassRegistration<ScaleCyclesPass>(); }
