//===- Passes.cpp - lattice passes as MLIR passes -------------------------===//
//
// What it does: the pass classes generated from lattice's registry (Passes.cpp.inc) and what
// they share: option checks and the run through the C ABI — read each lattice module, run the
// lattice pass (or, for `lattice-pipeline`, a whole lattice pipeline) on the context's threads,
// report its diagnostics at their ops, write the result in place — and, for MLIR builds whose statistics are compiled out, lattice's own report of
// what the passes counted under `--mlir-pass-statistics`.
//
// Invariants: a failing pass leaves every module as it was (the result is written only after the
// run succeeded on that module); diagnostics keep the order the pass emitted them, each prefixed
// with the pass's argument; the work of a pass uses at most the context's threads, and only the
// calling thread when multithreading is off. The core's module kept in a lattice module's
// `CachedModule` analysis describes that module's ops exactly, op for op: it is made by reading
// the ops, and a lattice pass that changes the module writes it into the ops (`writeBack`) before
// declaring the analysis preserved, or declares everything preserved when it changed nothing;
// every other pass, and a lattice pass that fails (which drops it), leaves it to MLIR's
// invalidation, which discards it as soon as a pass that may have changed the IR does not declare
// it preserved. So a lattice pass that finds it starts from exactly the module the ops hold
// (cached-module.test: an ordinary pass editing the ops in between). Cost: per module, the read
// (only when no lattice pass kept it) and the write (O(V + E + B)) around lattice's pass.
//
//===----------------------------------------------------------------------===//

#include "lattice/Passes.h"
#include "lattice/Module.h"

#include "mlir/IR/Threading.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Support/CommandLine.h"

#include <mutex>

using namespace mlir;

namespace {

LatticeStr str(StringRef text) { return {text.data(), text.size()}; }
StringRef ref(LatticeStr text) { return {text.data, text.len}; }

/// The C ABI's view of `values`: names and values, side by side.
struct OptionArrays {
  explicit OptionArrays(const lattice::detail::OptionValues &values) {
    for (const auto &[name, value] : values) {
      names.push_back(str(name));
      texts.push_back(str(value));
    }
  }
  std::vector<LatticeStr> names, texts;
};

/// Whether `--mlir-pass-statistics` was given while MLIR's own statistics are compiled out (as
/// in release builds of LLVM such as Debian's, where `Pass::Statistic` counts nothing): then
/// lattice reports what its passes counted itself.
bool ownStatisticsReport() {
#if LLVM_ENABLE_STATS
  return false;
#else
  static const bool wanted = [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto found = options.find("mlir-pass-statistics");
    return found != options.end() && found->second->getNumOccurrences() > 0;
  }();
  return wanted;
#endif
}

/// What lattice passes counted, by pass (in the order they first reported; a lattice pipeline's
/// passes one by one), summed over modules and threads, printed when the process ends in the
/// layout of MLIR's `--mlir-pass-statistics` list.
struct StatisticsStore {
  std::mutex lock;
  /// Per pass (and place in a lattice pipeline): its title and its counters (name, value) in
  /// report order.
  llvm::MapVector<std::pair<const Pass *, uint32_t>,
                  std::pair<std::string, std::vector<std::pair<std::string, uint64_t>>>>
      passes;

  void record(const Pass &pass, const LatticeReport *report, bool pipeline) {
    size_t count = 0;
    const LatticeStatistic *stats = lattice_report_statistics(report, &count);
    std::lock_guard<std::mutex> guard(lock);
    // A lattice pass is listed even when it counted nothing.
    if (!pipeline)
      passes[{pass.getThreadingSiblingOrThis(), 0}].first = pass.getArgument().str();
    for (size_t i = 0; i < count; ++i) {
      auto &entry = passes[{pass.getThreadingSiblingOrThis(), stats[i].position}];
      entry.first = pass.getArgument().str();
      if (pipeline)
        entry.first += (" (" + Twine(stats[i].position + 1) + ": " + ref(stats[i].pass) + ")").str();
      StringRef name = ref(stats[i].name);
      auto found = llvm::find_if(entry.second, [&](auto &s) { return s.first == name; });
      if (found == entry.second.end())
        entry.second.emplace_back(name.str(), stats[i].value);
      else
        found->second += stats[i].value;
    }
  }

  ~StatisticsStore() {
    llvm::raw_ostream &os = llvm::errs();
    os << "===" << std::string(73, '-') << "===\n"
       << std::string(18, ' ') << "... lattice pass statistics report ...\n"
       << "===" << std::string(73, '-') << "===\n";
    for (auto &[pass, entry] : passes) {
      os << entry.first << "\n";
      for (auto &[name, value] : entry.second)
        os << "  (S) " << value << " " << name << "\n";
    }
    os.flush();
  }
};

StatisticsStore &store() {
  // errs() first, so that it is destroyed after the store prints to it.
  (void)llvm::errs();
  static StatisticsStore store;
  return store;
}

/// The context's threads as the C ABI's executor.
LatticeExecutor executorOf(MLIRContext *context) {
  LatticeExecutor executor{context, 1, nullptr};
  if (!context->isMultithreadingEnabled())
    return executor;
  executor.threads = context->getNumThreads();
  executor.parallel_for = [](void *ctx, size_t count, LatticeJob run, void *job) {
    mlir::parallelFor(static_cast<MLIRContext *>(ctx), 0, count,
                      [&](size_t i) { run(job, i); });
  };
  return executor;
}

} // namespace

std::string lattice::detail::optionText(bool value) { return value ? "true" : "false"; }
std::string lattice::detail::optionText(uint32_t value) { return std::to_string(value); }
std::string lattice::detail::optionText(uint64_t value) { return std::to_string(value); }
std::string lattice::detail::optionText(const std::string &value) { return value; }

LogicalResult lattice::detail::checkOptions(
    StringRef pass, const OptionValues &values,
    llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler) {
  OptionArrays arrays(values);
  LatticeReport *report = lattice_check_options(str(pass), arrays.names.data(),
                                                arrays.texts.data(), values.size());
  LogicalResult result = success();
  size_t count = 0;
  const LatticeDiagnostic *diagnostics = lattice_report_diagnostics(report, &count);
  if (lattice_report_failed(report) && count)
    result = errorHandler("lattice-" + pass + ": " + ref(diagnostics[0].message));
  lattice_report_free(report);
  return result;
}

LogicalResult lattice::detail::checkPipeline(
    StringRef pipeline, llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler,
    bool testPasses) {
  LatticeReport *report = testPasses ? lattice_check_test_pipeline(str(pipeline))
                                     : lattice_check_pipeline(str(pipeline));
  LogicalResult result = success();
  size_t count = 0;
  const LatticeDiagnostic *diagnostics = lattice_report_diagnostics(report, &count);
  if (lattice_report_failed(report) && count)
    result = errorHandler((testPasses ? "lattice-test-pipeline: " : "lattice-pipeline: ") +
                          ref(diagnostics[0].message));
  lattice_report_free(report);
  return result;
}

namespace {

/// Runs `run` (a lattice pass or pipeline through the C ABI) on every lattice module at or below
/// `root`, as `self` (`pipeline`: `lattice-pipeline`), keeping the modules in `analyses`.
lattice::detail::Ran
runOnModules(Pass &self, Operation *root, AnalysisManager analyses, bool pipeline,
             llvm::function_ref<LatticeReport *(LatticeModule *, const LatticeExecutor *)> run) {
  using lattice::detail::Ran;
  if (lattice_abi_version() != LATTICE_ABI_VERSION) {
    root->emitError() << "lattice: the linked lattice core speaks C ABI version "
                      << lattice_abi_version() << ", this library version " << LATTICE_ABI_VERSION;
    return Ran::Failed;
  }
  LatticeExecutor executor = executorOf(root->getContext());
  std::string prefix = (self.getArgument() + ": ").str();
  bool failed = false, changed = false;
  // Every module runs, so that each reports its problems.
  for (ModuleOp module : lattice::latticeModules(root)) {
    AnalysisManager manager = module == root ? analyses : analyses.nest(module);
    auto &cached = manager.getAnalysis<lattice::detail::CachedModule>();
    if (!cached.module) {
      FailureOr<lattice::LirModule> read = lattice::LirModule::read(module);
      if (mlir::failed(read)) {
        failed = true;
        continue;
      }
      cached.module = std::move(*read);
    }
    lattice::LirModule &lir = *cached.module;
    LatticeReport *report = run(lir.get(), &executor);
    bool ok = mlir::succeeded(lattice::emitReport(report, &lir, module, prefix));
    bool wrote = lattice_report_changed(report);
    if (ownStatisticsReport())
      store().record(self, report, pipeline);
    lattice_report_free(report);
    // A failed run leaves the core's module unspecified: it is read again next time.
    if (!ok || (wrote && mlir::failed(lir.writeBack()))) {
      cached.module.reset();
      failed = true;
      continue;
    }
    changed |= wrote;
  }
  if (failed)
    return Ran::Failed;
  return changed ? Ran::Changed : Ran::Unchanged;
}

} // namespace

lattice::detail::Ran lattice::detail::runPass(Pass &self, Operation *root,
                                              AnalysisManager analyses, StringRef pass,
                                              const OptionValues &values) {
  OptionArrays arrays(values);
  return runOnModules(self, root, analyses, /*pipeline=*/false,
                      [&](LatticeModule *module, const LatticeExecutor *executor) {
                        return lattice_run_pass(module, str(pass), arrays.names.data(),
                                                arrays.texts.data(), values.size(), executor);
                      });
}

lattice::detail::Ran lattice::detail::runPipeline(Pass &self, Operation *root,
                                                  AnalysisManager analyses, StringRef pipeline,
                                                  bool testPasses) {
  return runOnModules(self, root, analyses, /*pipeline=*/true,
                      [&](LatticeModule *module, const LatticeExecutor *executor) {
                        return testPasses
                                   ? lattice_run_test_pipeline(module, str(pipeline), executor)
                                   : lattice_run_pipeline(module, str(pipeline), executor);
                      });
}

// The generated classes, in lattice's namespace (as the declarations of Passes.h).
namespace lattice {
#include "Passes.cpp.inc"
} // namespace lattice
