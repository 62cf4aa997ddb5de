//===- npu-opt.cpp - an MlirOptMain tool with lattice ---------------------===//
//
// What it does: the `mlir-opt` of an NPU toolchain that embeds lattice, linked statically against
// MLIR: the upstream dialects it needs (func, arith), a few upstream passes (canonicalize, cse),
// the lattice dialect and passes (Lattice::MLIR) and, for its tests, lattice's test passes
// (Lattice::MLIRTest). `--mlir-pass-statistics` shows what lattice passes counted.
//
// Invariants: the printer skips its own verification only when MLIR has verified exactly what it
// prints (see `printVerifiedModulesAsIs`); an explicit `--mlir-print-assume-verified=…` wins.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "lattice/Dialect.h"
#include "lattice/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"

#include <cstdlib>
#ifdef NPU_OPT_MIMALLOC
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <mimalloc.h>
#include <string>
#include <sys/mman.h>
#endif

namespace {

/// Backs the heap with transparent huge pages (2 MiB), unless `MIMALLOC_LARGE_OS_PAGES` says
/// otherwise. An MLIR module is a web of separately allocated ops, operands and uses that every
/// walk (parser, verifier, printer, lattice's reads and writes) follows pointer by pointer; with
/// 4 KiB pages those walks miss the TLB and the heap faults in page by page. On Matmul_Case1
/// huge pages cut the three-pass run's page faults from 21,600 to 8,600 and its time by about
/// 7% (docs/mlir.md, "Whole-process speed"), for 7% more resident memory. mimalloc then maps
/// its segments with `madvise(MADV_HUGEPAGE)` (which Linux honours in THP's default `madvise`
/// mode); the segment it mapped before `main`, when the option was still off and which takes
/// the first 32 MiB of small objects, is advised here (the mapping holding a fresh block).
void backHeapWithHugePages() {
#ifdef NPU_OPT_MIMALLOC
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES"))
    return;
  mi_option_enable(mi_option_large_os_pages);
  void *probe = mi_malloc(16);
  auto at = reinterpret_cast<uintptr_t>(probe);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &begin, &end) == 2 && begin <= at &&
        at < end) {
      (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
      break;
    }
  }
  mi_free(probe);
#endif
}

/// Before printing, MLIR's printer verifies the module once more (to fall back to the generic
/// form if it is invalid) unless told `--mlir-print-assume-verified`. With the parser's
/// verification and `--verify-each` on (both MlirOptMain's defaults) that is a second
/// verification of verified IR: the parser verified the module, the pass manager verified it after
/// every pass that did not declare it unchanged, and a failure prints nothing. So in that case
/// npu-opt tells the printer so (on Matmul_Case1 that verification was 0.107 G instructions of
/// the three-pass pipeline's 3.0 G). The option is global: it also reaches the IR dumps of
/// `--mlir-print-ir-*`, which may show a module that failed verification (after a failure), so
/// with any of those, with either verification off, when the option is given, or under
/// `--run-reproducer` (whose file may turn `--verify-each` off), the printer behaves as MLIR's
/// default.
void printVerifiedModulesAsIs() {
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (!config.shouldVerifyPasses() || !config.shouldVerifyOnParsing() ||
      config.shouldRunReproducer())
    return;
  auto &options = llvm::cl::getRegisteredOptions();
  for (auto &[name, option] : options)
    if (name.starts_with("mlir-print-ir-") && option->getNumOccurrences() > 0)
      return;
  auto found = options.find("mlir-print-assume-verified");
  if (found == options.end() || found->second->getNumOccurrences() > 0)
    return;
  llvm::cl::Option *option = found->second;
  (void)option->addOccurrence(0, option->ArgStr, "true");
}

} // namespace

int main(int argc, char **argv) {
  backHeapWithHugePages();
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  lattice::registerLatticeDialect(registry);
  lattice::registerLatticePasses();
  lattice::registerLatticeTestPasses();
  lattice::registerScaleCyclesTestPass();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();

  auto [input, output] = mlir::registerAndParseCLIOptions(argc, argv, "npu-opt", registry);
  printVerifiedModulesAsIs();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
