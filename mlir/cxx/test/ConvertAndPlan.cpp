//===- ConvertAndPlan.cpp - a toolchain's use of lattice's C++ API --------===//
//
// What it does: the C++ test of the library as an NPU toolchain would use it. A rewrite pattern
// lowers a toolchain op (`npu.matmul_tile`, one tile of a matrix multiply: two operands copied
// into L1, moved into L0A/L0B, multiplied into L0C, written back through UB and copied out) into
// a lattice module with the generated op classes; lattice's passes run on it in a PassManager
// (`createLatticeMpasPass`, `createLatticeDlrPass` with typed options, `createLatticeCpePass`);
// the plan is read back through the op classes (phase, σ, offsets) and LirModule (metrics); the
// same pipeline as one pass (`createLatticePipelinePass`) gives the same plan.
// Exits non-zero, saying what failed, when any check fails.
//
//===----------------------------------------------------------------------===//

#include "lattice/Dialect.h"
#include "lattice/Module.h"
#include "lattice/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstdlib>

using namespace mlir;

namespace {

int failures = 0;

void check(bool ok, const char *what) {
  if (!ok) {
    llvm::errs() << "ConvertAndPlan: FAILED: " << what << "\n";
    ++failures;
  }
}

/// Lowers `npu.matmul_tile` into the lattice ops of its tile, in place of the op.
struct LowerMatmulTile : RewritePattern {
  explicit LowerMatmulTile(MLIRContext *context)
      : RewritePattern("npu.matmul_tile", /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto u32 = [&](uint32_t v) { return rewriter.getIntegerAttr(rewriter.getIntegerType(32, false), v); };
    auto u64 = [&](uint64_t v) { return rewriter.getIntegerAttr(rewriter.getIntegerType(64, false), v); };
    Type buf = lattice::BufType::get(ctx), token = lattice::TokenType::get(ctx);

    SmallVector<Attribute> tiers;
    auto tier = [&](StringRef name, uint64_t capacity, bool staging) {
      tiers.push_back(rewriter.getDictionaryAttr(
          {rewriter.getNamedAttr("capacity", u64(capacity)), rewriter.getNamedAttr("name", rewriter.getStringAttr(name)),
           rewriter.getNamedAttr("staging", rewriter.getBoolAttr(staging))}));
    };
    tier("L1", 4096, false);
    tier("UB", 1024, false);
    tier("L0A", 256, true);
    tier("L0B", 256, true);
    tier("L0C", 512, true);
    auto pipes = rewriter.getStrArrayAttr({"MTE1", "MTE2", "MTE3", "FIXP", "CUBE", "VECTOR"});

    // σ: the ops' ids in the order they are built.
    SmallVector<int64_t> order;
    auto phase = lattice::PhaseOp::create(rewriter, loc, "parsed", ArrayRef<int64_t>{});
    lattice::TargetOp::create(rewriter, loc, rewriter.getArrayAttr(tiers), pipes,
                              rewriter.getStringAttr("MTE3"), rewriter.getStringAttr("MTE2"), u64(150),
                              u64(2), rewriter.getBoolAttr(true));
    SmallVector<Value> b;
    auto buffer = [&](StringRef tierName, uint64_t size, bool backed) {
      uint32_t n = b.size();
      b.push_back(lattice::BufferOp::create(rewriter, loc, buf, u32(n), u32(n), rewriter.getStringAttr(tierName),
                                                     u64(size), rewriter.getBoolAttr(backed)));
    };
    buffer("L1", 1024, true);
    buffer("L1", 1024, true);
    buffer("L0A", 256, false);
    buffer("L0B", 256, false);
    buffer("L0C", 512, false);
    buffer("UB", 512, false);

    SmallVector<Value> t;
    auto kinds = [&](size_t n) {
      return rewriter.getStrArrayAttr(SmallVector<StringRef>(n, "precedence"));
    };
    auto next = [&]() {
      order.push_back(t.size());
      return u32(t.size());
    };
    auto alloc = [&](int buffer) {
      t.push_back(lattice::AllocOp::create(rewriter, loc, token, b[buffer], ValueRange{}, next(), IntegerAttr(), kinds(0)));
    };
    auto free = [&](int buffer, std::initializer_list<int> deps) {
      SmallVector<Value> d;
      for (int i : deps)
        d.push_back(t[i]);
      t.push_back(lattice::FreeOp::create(rewriter, loc, token, b[buffer], d, next(), kinds(d.size())));
    };
    auto command = [&](StringRef opcode, StringRef pipe, uint64_t cycles, std::initializer_list<int> buffers,
                       std::initializer_list<int> deps) {
      SmallVector<Value> bs, d;
      for (int i : buffers)
        bs.push_back(b[i]);
      for (int i : deps)
        d.push_back(t[i]);
      t.push_back(lattice::CommandOp::create(rewriter, loc, token, bs, d, next(), rewriter.getStringAttr(opcode),
                                                      rewriter.getStringAttr(pipe), u64(cycles), kinds(d.size())));
    };
    alloc(0);                                         // %0
    command("COPY_IN", "MTE2", 2198, {0}, {0});       // %1
    alloc(1);                                         // %2
    command("COPY_IN", "MTE2", 2198, {1}, {2});       // %3
    alloc(2);                                         // %4
    command("MOVE", "MTE1", 64, {2, 0}, {1, 4});      // %5
    alloc(3);                                         // %6
    command("MOVE", "MTE1", 64, {3, 1}, {3, 6});      // %7
    alloc(4);                                         // %8
    command("MATMUL", "CUBE", 256, {4, 2, 3}, {5, 7, 8}); // %9
    free(0, {5});                                     // %10
    free(1, {7});                                     // %11
    free(2, {9});                                     // %12
    free(3, {9});                                     // %13
    alloc(5);                                         // %14
    command("FIXPIPE", "FIXP", 128, {5, 4}, {9, 14}); // %15
    free(4, {15});                                    // %16
    command("COPY_OUT", "MTE3", 1174, {5}, {15});     // %17
    free(5, {17});                                    // %18
    phase.setOrder(order);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

int main() {
  DialectRegistry registry;
  lattice::registerLatticeDialect(registry);
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  context.loadDialect<lattice::LatticeDialect>();

  // The toolchain's module, converted: npu ops to lattice ops.
  auto lowered = [&]() {
    OwningOpRef<ModuleOp> top = parseSourceString<ModuleOp>(
        "module { module @matmul_tile { \"npu.matmul_tile\"() : () -> () } }", &context);
    check(bool(top), "the toolchain's module parses");
    if (!top)
      return top;
    RewritePatternSet patterns(&context);
    patterns.add<LowerMatmulTile>(&context);
    check(succeeded(applyPatternsGreedily(*top, std::move(patterns))), "the pattern applies");
    check(succeeded(verify(*top)), "the lattice module verifies");
    return top;
  };
  OwningOpRef<ModuleOp> top = lowered();
  if (!top)
    return 1;

  // The passes, with typed options, as a toolchain's pipeline adds them.
  PassManager pm(&context);
  OpPassManager &nested = pm.nest<ModuleOp>();
  nested.addPass(lattice::createLatticeMpasPass());
  lattice::LatticeDlrPassOptions dlr;
  dlr.victim = lattice::LatticeDlrVictim::Lru;
  nested.addPass(lattice::createLatticeDlrPass(dlr));
  nested.addPass(lattice::createLatticeCpePass());
  check(succeeded(pm.run(*top)), "mpas, dlr{victim=lru}, cpe run");

  // The plan, read back through the op classes.
  llvm::SmallVector<ModuleOp> modules = lattice::latticeModules(*top);
  check(modules.size() == 1, "one lattice module");
  if (modules.size() != 1)
    return 1;
  ModuleOp module = modules.front();
  lattice::PhaseOp phase = *module.getOps<lattice::PhaseOp>().begin();
  check(phase.getPhase() == "refined", "the phase is refined");
  size_t scheduled = 0, allocs = 0, placed = 0;
  module.walk([&](Operation *op) {
    if (llvm::isa<lattice::AllocOp, lattice::FreeOp, lattice::CommandOp, lattice::SpillOutOp,
                  lattice::SpillInOp>(op))
      ++scheduled;
    if (auto alloc = llvm::dyn_cast<lattice::AllocOp>(op)) {
      ++allocs;
      placed += alloc.getOffset().has_value();
    }
  });
  check(phase.getOrder().size() == scheduled, "σ lists every scheduled op");
  check(allocs == 6 && placed == allocs, "every alloc has its offset");

  // And through lattice's core: the metrics lattice-opt would print.
  FailureOr<lattice::LirModule> lir = lattice::LirModule::read(module);
  check(succeeded(lir), "the planned module reads back");
  if (succeeded(lir)) {
    std::string metrics = lir->metricsJson();
    check(metrics.find("\"phase\": \"refined\"") != std::string::npos &&
              metrics.find("\"makespan\"") != std::string::npos,
          "the metrics are those of a refined plan");
    check(lir->printLir().find("module @matmul_tile phase(refined)") != std::string::npos,
          "the LIR is the refined module");

    // The same pipeline as one pass, run by lattice's own pass manager: the same plan.
    OwningOpRef<ModuleOp> again = lowered();
    PassManager whole(&context);
    lattice::LatticePipelinePassOptions pipeline;
    pipeline.passes = "mpas,dlr{victim=lru},cpe";
    whole.nest<ModuleOp>().addPass(lattice::createLatticePipelinePass(pipeline));
    check(again && succeeded(whole.run(*again)), "lattice-pipeline runs");
    FailureOr<lattice::LirModule> same =
        again ? lattice::LirModule::read(lattice::latticeModules(*again).front())
              : FailureOr<lattice::LirModule>(failure());
    check(succeeded(same) && same->printLir() == lir->printLir(),
          "lattice-pipeline plans as the three passes");

    // A test pass in the production pipeline pass is refused at run time too (the options
    // struct skips the option check), with the reason, and the module is left as it was.
    OwningOpRef<ModuleOp> refused = lowered();
    std::string before, reason;
    if (refused)
      llvm::raw_string_ostream(before) << *refused;
    PassManager withTest(&context);
    lattice::LatticePipelinePassOptions tests;
    tests.passes = "mpas,test-fail";
    withTest.nest<ModuleOp>().addPass(lattice::createLatticePipelinePass(tests));
    {
      ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
        reason += d.str();
        return success();
      });
      check(refused && failed(withTest.run(*refused)), "lattice-pipeline refuses a test pass");
    }
    std::string after;
    if (refused)
      llvm::raw_string_ostream(after) << *refused;
    check(reason.find("`test-fail` is a test pass") != std::string::npos && before == after,
          "the refusal says why and changes nothing");

    // `write` into a module the handle does not describe (its ops found by id, not through the
    // handle): the freshly lowered, unplanned module takes the plan, op for op.
    OwningOpRef<ModuleOp> fresh = lowered();
    ModuleOp into = fresh ? lattice::latticeModules(*fresh).front() : ModuleOp();
    check(into && succeeded(lir->write(into)), "the plan writes into another lattice module");
    FailureOr<lattice::LirModule> written =
        into ? lattice::LirModule::read(into) : FailureOr<lattice::LirModule>(failure());
    check(succeeded(written) && written->printLir() == lir->printLir(),
          "the module written holds the plan");
  }
  if (failures)
    return 1;
  llvm::outs() << "ConvertAndPlan: ok\n";
  return 0;
}
