//===- npu-translate.cpp - LIR in and out of the lattice dialect ----------===//
//
// What it does: an MlirTranslateMain tool with three translations of lattice's library:
// `--lir-to-lattice` (LIR text → a lattice module of the C++ dialect), `--lattice-to-lir` (every
// lattice module of the input → LIR, joined by `// -----`) and `--lattice-to-metrics` (their
// `lattice-opt --metrics`, one JSON document after the other). Errors are located (LIR at its line and column,
// MLIR at its op).
//
//===----------------------------------------------------------------------===//

#include "lattice/Dialect.h"
#include "lattice/Module.h"

#include "mlir/IR/Builders.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

namespace {

void dialects(mlir::DialectRegistry &registry) { lattice::registerLatticeDialect(registry); }

/// Writes `what` of every lattice module of `op` to `os`, separated by `separator`.
mlir::LogicalResult eachModule(mlir::Operation *op, llvm::raw_ostream &os, llvm::StringRef separator,
                               std::string (lattice::LirModule::*what)() const) {
  llvm::SmallVector<mlir::ModuleOp> modules = lattice::latticeModules(op);
  if (modules.empty())
    return op->emitError("the input holds no lattice module");
  for (auto [i, module] : llvm::enumerate(modules)) {
    mlir::FailureOr<lattice::LirModule> read = lattice::LirModule::read(module);
    if (mlir::failed(read))
      return mlir::failure();
    if (i)
      os << separator;
    os << ((*read).*what)();
  }
  return mlir::success();
}

} // namespace

int main(int argc, char **argv) {
  mlir::TranslateToMLIRRegistration toLattice(
      "lir-to-lattice", "LIR text to a lattice module",
      [](llvm::SourceMgr &sources, mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        context->loadDialect<lattice::LatticeDialect>();
        const llvm::MemoryBuffer *buffer = sources.getMemoryBuffer(sources.getMainFileID());
        auto at = mlir::FileLineColLoc::get(context, buffer->getBufferIdentifier(), 1, 1);
        mlir::FailureOr<lattice::LirModule> lir =
            lattice::LirModule::parseLir(buffer->getBuffer(), at);
        if (mlir::failed(lir))
          return nullptr;
        llvm::StringRef name(lir->view().name.data, lir->view().name.len);
        mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(at, name);
        mlir::OpBuilder builder = mlir::OpBuilder::atBlockEnd(module->getBody());
        lir->build(builder, at);
        return mlir::OwningOpRef<mlir::Operation *>(module.release().getOperation());
      },
      dialects);
  mlir::TranslateFromMLIRRegistration toLir(
      "lattice-to-lir", "every lattice module of the input as LIR",
      [](mlir::Operation *op, llvm::raw_ostream &os) {
        return eachModule(op, os, "// -----\n", &lattice::LirModule::printLir);
      },
      dialects);
  mlir::TranslateFromMLIRRegistration toMetrics(
      "lattice-to-metrics", "lattice-opt --metrics of every lattice module of the input",
      [](mlir::Operation *op, llvm::raw_ostream &os) {
        return eachModule(op, os, "", &lattice::LirModule::metricsJson);
      },
      dialects);
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "npu-translate"));
}
