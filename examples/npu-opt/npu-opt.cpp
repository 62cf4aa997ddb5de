//===- npu-opt.cpp - an MlirOptMain tool with lattice ---------------------===//
//
// What it does: the `mlir-opt` of an NPU toolchain that embeds lattice, linked statically against
// MLIR: the upstream dialects it needs (func, arith), a few upstream passes (canonicalize, cse),
// the lattice dialect and passes (Lattice::MLIR) and, for its tests, lattice's test passes
// (Lattice::MLIRTest). `--mlir-pass-statistics` shows what lattice passes counted.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "lattice/Dialect.h"
#include "lattice/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  lattice::registerLatticeDialect(registry);
  lattice::registerLatticePasses();
  lattice::registerLatticeTestPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();

  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "npu-opt", registry));
}
