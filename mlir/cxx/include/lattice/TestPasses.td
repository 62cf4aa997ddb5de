// Generated from lattice_passes::REGISTRY by lattice-capi (capi/src/cxx.rs); do not edit: `LATTICE_BLESS=1 cargo test -p lattice-capi --test generated`.
// Every lattice pass of the group as an MLIR pass `lattice-<pass>` with typed options.

#ifndef LATTICE_TEST_PASSES_TD
#define LATTICE_TEST_PASSES_TD

include "mlir/Pass/PassBase.td"

def LatticeTestAnalysesPass : Pass<"lattice-test-analyses"> {
  let summary = "Request analyses and report whether they were cached";
  let options = [
    Option<"preserve", "preserve", "bool", [{true}],
           "Declare both analyses preserved.">,
  ];
}

def LatticeTestCorruptPass : Pass<"lattice-test-corrupt"> {
  let summary = "Break the IR on purpose, so the pass manager's checks must fail";
  let options = [
    Option<"what", "what", "::lattice::LatticeTestCorruptWhat", [{::lattice::LatticeTestCorruptWhat::Order}],
           "`order` (a dependence on a later op) or `phase` (phase moved back).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeTestCorruptWhat::Order, "order", ""), clEnumValN(::lattice::LatticeTestCorruptWhat::Phase, "phase", ""))}]>,
  ];
}

def LatticeTestCountPass : Pass<"lattice-test-count"> {
  let summary = "Count ops, buffers and dependencies as statistics; change nothing";
}

def LatticeTestFailPass : Pass<"lattice-test-fail"> {
  let summary = "Fail with an error at an op, to test failure handling";
  let options = [
    Option<"op", "op", "std::string", [{""}],
           "The op to report at, as `%N` (empty: the whole module).">,
    Option<"message", "message", "std::string", [{"requested failure"}],
           "The message.">,
  ];
}

def LatticeTestRemarkPass : Pass<"lattice-test-remark"> {
  let summary = "Emit a remark or warning at an op, to test diagnostics";
  let options = [
    Option<"op", "op", "std::string", [{""}],
           "The op to report at, as `%N` (empty: the whole module).">,
    Option<"message", "message", "std::string", [{"requested remark"}],
           "The message.">,
    Option<"warning", "warning", "bool", [{false}],
           "Emit a warning rather than a remark.">,
  ];
}

def LatticeTestReversePass : Pass<"lattice-test-reverse"> {
  let summary = "Reverse the order of independent ops (unplanned modules only)";
}

def LatticeTestPipelinePass : Pass<"lattice-test-pipeline"> {
  let summary = "lattice-pipeline for tests: the lattice pipeline may name test passes";
  let options = [
    Option<"passes", "passes", "std::string", [{""}],
           "The lattice pipeline in lattice-opt's --pass-pipeline syntax: `order-search,dlr,cpe`.">,
  ];
}

#endif // LATTICE_TEST_PASSES_TD
