//===- npu-lsp-server.cpp - the language server of npu-opt's IR -----------===//
//
// What it does: MLIR's language server (MlirLspServerMain) for the IR npu-opt reads — lattice
// modules in the C++ dialect next to func and arith — so editors get diagnostics, hovers and
// definitions for lattice IR.
//
//===----------------------------------------------------------------------===//

#include "lattice/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  lattice::registerLatticeDialect(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
