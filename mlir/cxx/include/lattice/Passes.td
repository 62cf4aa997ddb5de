// Generated from lattice_passes::REGISTRY by lattice-capi (capi/src/cxx.rs); do not edit: `LATTICE_BLESS=1 cargo test -p lattice-capi --test generated`.
// Every lattice pass of the group as an MLIR pass `lattice-<pass>` with typed options.

#ifndef LATTICE_PASSES_TD
#define LATTICE_PASSES_TD

include "mlir/Pass/PassBase.td"

def LatticeMpasPass : Pass<"lattice-mpas"> {
  let summary = "Memory-pressure-aware topological scheduling (paper §IV-B): choose σ before planning";
  let options = [
    Option<"lookahead", "lookahead", "uint64_t", [{32}],
           "Rank ready ops within this many positions of the incoming order's first op left (0: all).">,
    Option<"pull", "pull", "bool", [{true}],
           "Hold loaders (ops waiting only for ALLOCs) back until nothing else can run.">,
  ];
}

def LatticeOrderPass : Pass<"lattice-order"> {
  let summary = "Reorder σ by a reference policy: input, stable, memory-first or critical-first";
  let options = [
    Option<"policy", "policy", "::lattice::LatticeOrderPolicy", [{::lattice::LatticeOrderPolicy::Stable}],
           "Which order to produce: input, stable, memory-first or critical-first.",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeOrderPolicy::Input, "input", ""), clEnumValN(::lattice::LatticeOrderPolicy::Stable, "stable", ""), clEnumValN(::lattice::LatticeOrderPolicy::MemoryFirst, "memory-first", ""), clEnumValN(::lattice::LatticeOrderPolicy::CriticalFirst, "critical-first", ""))}]>,
  ];
}

def LatticeOrderSearchPass : Pass<"lattice-order-search"> {
  let summary = "Search σ with DLR (and CPE) in the loop for the least peak, traffic or makespan";
  let options = [
    Option<"objective", "objective", "::lattice::LatticeOrderSearchObjective", [{::lattice::LatticeOrderSearchObjective::Makespan}],
           "What to minimize: peak, traffic or makespan (ties broken by the other two, then spills).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeOrderSearchObjective::Peak, "peak", ""), clEnumValN(::lattice::LatticeOrderSearchObjective::Traffic, "traffic", ""), clEnumValN(::lattice::LatticeOrderSearchObjective::Makespan, "makespan", ""))}]>,
    Option<"budget", "budget", "std::string", [{"auto"}],
           "What to spend: `auto` (a fixed amount of work), `N` steps or `work:N` units; deterministic for a seed.">,
    Option<"seed", "seed", "uint64_t", [{1}],
           "Seed of the local search.">,
    Option<"threads", "threads", "uint32_t", [{2}],
           "Worker threads; the result does not depend on it.">,
    Option<"timeLimit", "time-limit", "uint64_t", [{0}],
           "End the whole search within this many seconds (0: no limit); a limit makes the result timing-dependent.">,
    Option<"backEnd", "back-end", "std::string", [{"pipeline"}],
           "The back end the search plans its candidates with: `pipeline` (the passes that follow it, with the victim key searched when `dlr` leaves it at its default) or `dlr{…}[,cpe{…}]`.">,
  ];
}

def LatticeOrderExactPass : Pass<"lattice-order-exact"> {
  let summary = "Provably optimal σ for the peak, traffic or makespan on small modules (refuses past max-states)";
  let options = [
    Option<"objective", "objective", "::lattice::LatticeOrderExactObjective", [{::lattice::LatticeOrderExactObjective::Peak}],
           "What to minimize: peak (exact over all orders), traffic or makespan (exact over all orders as the back end plans them).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeOrderExactObjective::Peak, "peak", ""), clEnumValN(::lattice::LatticeOrderExactObjective::Traffic, "traffic", ""), clEnumValN(::lattice::LatticeOrderExactObjective::Makespan, "makespan", ""))}]>,
    Option<"maxStates", "max-states", "uint64_t", [{2000000}],
           "Most states (peak: sets of ops run; traffic and makespan: prefixes and orders visited) before the pass refuses.">,
    Option<"backEnd", "back-end", "std::string", [{"pipeline"}],
           "The passes that plan the orders: `pipeline` (those that follow) or `dlr{…}` or `dlr{…},cpe{…}`; DLR's own victim key either way.">,
  ];
}

def LatticeDlrPass : Pass<"lattice-dlr"> {
  let summary = "Deterministic Linear Repackaging: offsets, spills and the memory-plan contract";
  let options = [
    Option<"victim", "victim", "::lattice::LatticeDlrVictim", [{::lattice::LatticeDlrVictim::Paper}],
           "Victim policy in L1/UB: `paper` (the paper's key), `cost`, `lru` or `auto` (the better of paper and cost).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeDlrVictim::Paper, "paper", ""), clEnumValN(::lattice::LatticeDlrVictim::Cost, "cost", ""), clEnumValN(::lattice::LatticeDlrVictim::Lru, "lru", ""), clEnumValN(::lattice::LatticeDlrVictim::Auto, "auto", ""))}]>,
    Option<"l0", "l0", "::lattice::LatticeDlrL0", [{::lattice::LatticeDlrL0::Double}],
           "Staging-tier placement: `double` (alternate halves) or `single` (offset 0, the paper's).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeDlrL0::Double, "double", ""), clEnumValN(::lattice::LatticeDlrL0::Single, "single", ""))}]>,
    Option<"prefetch", "prefetch", "uint32_t", [{0}],
           "Move SPILL_INs up to this many σ positions early into free bytes, SPILL_OUTs to their last use (0: off).">,
    Option<"evict", "evict", "::lattice::LatticeDlrEvict", [{::lattice::LatticeDlrEvict::Auto}],
           "Making room where no hole fits: `window` (cheapest address range), `rank` (the paper's loop) or `auto` (rank with l0=single).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeDlrEvict::Auto, "auto", ""), clEnumValN(::lattice::LatticeDlrEvict::Window, "window", ""), clEnumValN(::lattice::LatticeDlrEvict::Rank, "rank", ""))}]>,
  ];
}

def LatticeCpePass : Pass<"lattice-cpe"> {
  let summary = "Critical Path Enhancement: refine the per-pipe order, keeping the memory plan";
  let options = [
    Option<"passes", "passes", "uint32_t", [{2}],
           "Rounds of local search after the seed.">,
    Option<"candidates", "candidates", "uint32_t", [{4}],
           "Swaps timed per round (the bounded neighbourhood of a critical chain).">,
    Option<"radius", "radius", "uint32_t", [{1}],
           "Pipe positions on each side of a chain op whose adjacent pairs are candidates.">,
    Option<"seed", "seed", "bool", [{true}],
           "Build the list-scheduling seed (off: local search from Freeze only).">,
    Option<"justify", "justify", "uint32_t", [{1}],
           "Rounds of forward-backward justification of the seed.">,
    Option<"keepLogicalPeak", "keep-logical-peak", "bool", [{true}],
           "Keep the logical peak (L1+UB along σ) no higher than Freeze's, like the physical one.">,
  ];
}

def LatticeVerifyPass : Pass<"lattice-verify"> {
  let summary = "Independent replay of σ, memory plan and timing (DESIGN §1.3): report every violation and the metrics";
  let options = [
    Option<"ignoreReuse", "ignore-reuse", "bool", [{false}],
           "Time the plan without its reuse dependencies (Table III \"Ignore\") and count the ownership conflicts that timing creates (counted, not errors).">,
    Option<"maxPerCategory", "max-per-category", "uint32_t", [{20}],
           "Errors shown per category; the rest are counted in a note.">,
  ];
}

def LatticeBasePass : Pass<"lattice-base"> {
  let summary = "Base reference (baselines.md §2): order{policy=stable} then dlr{victim=lru l0=single}, no CPE (Freeze)";
}

def LatticeHmcosPass : Pass<"lattice-hmcos"> {
  let summary = "HMCOS baseline (baselines.md §3): hierarchical grouping and frontier DP under a budget; reorder σ";
  let options = [
    Option<"maxStates", "max-states", "uint64_t", [{256}],
           "Beam of every frontier DP (top level and groups).">,
    Option<"maxIters", "max-iters", "uint64_t", [{8}],
           "Most schedule-and-ungroup iterations (the source loops until nothing changes).">,
    Option<"cellOut", "cell-out", "::lattice::LatticeHmcosCellOut", [{::lattice::LatticeHmcosCellOut::Merge}],
           "Cell outputs: `merge` (first command has 2+ predecessors) or `sink`.",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeHmcosCellOut::Merge, "merge", ""), clEnumValN(::lattice::LatticeHmcosCellOut::Sink, "sink", ""))}]>,
    Option<"intrudeMaxSubsets", "intrude-max-subsets", "uint64_t", [{256}],
           "Cap on the intrusion subset search; past it, no intrusion.">,
    Option<"budgetInit", "budget-init", "bool", [{false}],
           "Start from the capacities as budget instead of no budget.">,
  ];
}

def LatticeMagisPass : Pass<"lattice-magis"> {
  let summary = "MAGIS baseline (baselines.md §4): forward RPO, then windowed exact re-scheduling; reorder σ";
  let options = [
    Option<"window", "window", "uint64_t", [{12}],
           "W: most commands per re-scheduling window (the source's limit is 20).">,
    Option<"maxStates", "max-states", "uint64_t", [{256}],
           "Beam of the frontier DP inside a window (256 keeps W = 12 exact but for the widest windows).">,
    Option<"passes", "passes", "uint64_t", [{1}],
           "Re-scheduling passes; the second shifts the windows by half a window.">,
    Option<"narrowWaist", "narrow-waist", "bool", [{true}],
           "Cut windows at narrow-waist commands (nw <= 1).">,
    Option<"rpoGraph", "rpo-graph", "::lattice::LatticeMagisRpoGraph", [{::lattice::LatticeMagisRpoGraph::Op}],
           "Graph of the initial reverse post-order: `op` (A0 op graph) or `raw` (ALLOC/FREE too).",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeMagisRpoGraph::Op, "op", ""), clEnumValN(::lattice::LatticeMagisRpoGraph::Raw, "raw", ""))}]>,
    Option<"extendBound", "extend-bound", "bool", [{true}],
           "Push each window end onto a narrower waist (ExtendBound: at most 20 steps, 10/4 rule).">,
  ];
}

def LatticeCosmaPass : Pass<"lattice-cosma"> {
  let summary = "COSMA baseline (baselines.md §5): min-peak windowed order, then best-fit placement with min-cost eviction windows; plans the module";
  let options = [
    Option<"order", "order", "::lattice::LatticeCosmaOrder", [{::lattice::LatticeCosmaOrder::MpmfWindow}],
           "The order to place: `mpmf-window` (min-peak windows), `base` or `traffic-greedy`.",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeCosmaOrder::MpmfWindow, "mpmf-window", ""), clEnumValN(::lattice::LatticeCosmaOrder::Base, "base", ""), clEnumValN(::lattice::LatticeCosmaOrder::TrafficGreedy, "traffic-greedy", ""))}]>,
    Option<"window", "window", "uint64_t", [{12}],
           "W: most commands per min-peak window.">,
    Option<"maxStates", "max-states", "uint64_t", [{256}],
           "Beam of the frontier DP inside a window.">,
    Option<"align", "align", "uint64_t", [{1}],
           "Offsets are multiples of this many bytes.">,
    Option<"ilpWindow", "ilp-window", "uint64_t", [{0}],
           "Exact placement: 0 = off (the greedy); N = per-tier MILP windows of N steps (small inputs only).">,
  ];
}

def LatticeEdaPass : Pass<"lattice-eda"> {
  let summary = "EDA PLACEHOLDER (baselines.md §6; not the EDA paper's rule, which is unidentified): reorder σ by a stand-in traversal";
  let options = [
    Option<"traversal", "traversal", "::lattice::LatticeEdaTraversal", [{::lattice::LatticeEdaTraversal::DfsConsumer}],
           "Placeholder traversal: dfs-consumer, bfs-level, inductor-bfs or inductor-dfs.",
           [{::llvm::cl::values(clEnumValN(::lattice::LatticeEdaTraversal::DfsConsumer, "dfs-consumer", ""), clEnumValN(::lattice::LatticeEdaTraversal::BfsLevel, "bfs-level", ""), clEnumValN(::lattice::LatticeEdaTraversal::InductorBfs, "inductor-bfs", ""), clEnumValN(::lattice::LatticeEdaTraversal::InductorDfs, "inductor-dfs", ""))}]>,
  ];
}

def LatticePipelinePass : Pass<"lattice-pipeline"> {
  let summary = "A lattice pipeline as one pass, run as lattice-opt runs it: each pass sees the passes after it and what the one before it left";
  let options = [
    Option<"passes", "passes", "std::string", [{""}],
           "The lattice pipeline in lattice-opt's --pass-pipeline syntax: `order-search,dlr,cpe`.">,
  ];
}

#endif // LATTICE_PASSES_TD
