// Generated from lattice_passes::REGISTRY by lattice-capi (capi/src/cxx.rs); do not edit: `LATTICE_BLESS=1 cargo test -p lattice-capi --test generated`.
// The enums of lattice's choice options (Passes.td's typed options).

#ifndef LATTICE_PASS_ENUMS_H
#define LATTICE_PASS_ENUMS_H

#include "llvm/ADT/StringRef.h"

namespace lattice {

/// `policy` of `lattice-order`: Which order to produce: input, stable, memory-first or critical-first.
enum class LatticeOrderPolicy { Input, Stable, MemoryFirst, CriticalFirst };
/// How lattice spells a `LatticeOrderPolicy`.
inline llvm::StringRef optionText(LatticeOrderPolicy value) {
  static const char *const names[] = {"input", "stable", "memory-first", "critical-first"};
  return names[static_cast<int>(value)];
}

/// `objective` of `lattice-order-search`: What to minimize: peak, traffic or makespan (ties broken by the other two, then spills).
enum class LatticeOrderSearchObjective { Peak, Traffic, Makespan };
/// How lattice spells a `LatticeOrderSearchObjective`.
inline llvm::StringRef optionText(LatticeOrderSearchObjective value) {
  static const char *const names[] = {"peak", "traffic", "makespan"};
  return names[static_cast<int>(value)];
}

/// `objective` of `lattice-order-exact`: What to minimize: peak (exact over all orders), traffic or makespan (exact over all orders as the back end plans them).
enum class LatticeOrderExactObjective { Peak, Traffic, Makespan };
/// How lattice spells a `LatticeOrderExactObjective`.
inline llvm::StringRef optionText(LatticeOrderExactObjective value) {
  static const char *const names[] = {"peak", "traffic", "makespan"};
  return names[static_cast<int>(value)];
}

/// `victim` of `lattice-dlr`: Victim policy in L1/UB: `paper` (the paper's key), `cost`, `lru` or `auto` (the better of paper and cost).
enum class LatticeDlrVictim { Paper, Cost, Lru, Auto };
/// How lattice spells a `LatticeDlrVictim`.
inline llvm::StringRef optionText(LatticeDlrVictim value) {
  static const char *const names[] = {"paper", "cost", "lru", "auto"};
  return names[static_cast<int>(value)];
}

/// `l0` of `lattice-dlr`: Staging-tier placement: `double` (alternate halves) or `single` (offset 0, the paper's).
enum class LatticeDlrL0 { Double, Single };
/// How lattice spells a `LatticeDlrL0`.
inline llvm::StringRef optionText(LatticeDlrL0 value) {
  static const char *const names[] = {"double", "single"};
  return names[static_cast<int>(value)];
}

/// `evict` of `lattice-dlr`: Making room where no hole fits: `window` (cheapest address range), `rank` (the paper's loop) or `auto` (rank with l0=single).
enum class LatticeDlrEvict { Auto, Window, Rank };
/// How lattice spells a `LatticeDlrEvict`.
inline llvm::StringRef optionText(LatticeDlrEvict value) {
  static const char *const names[] = {"auto", "window", "rank"};
  return names[static_cast<int>(value)];
}

/// `cell-out` of `lattice-hmcos`: Cell outputs: `merge` (first command has 2+ predecessors) or `sink`.
enum class LatticeHmcosCellOut { Merge, Sink };
/// How lattice spells a `LatticeHmcosCellOut`.
inline llvm::StringRef optionText(LatticeHmcosCellOut value) {
  static const char *const names[] = {"merge", "sink"};
  return names[static_cast<int>(value)];
}

/// `rpo-graph` of `lattice-magis`: Graph of the initial reverse post-order: `op` (A0 op graph) or `raw` (ALLOC/FREE too).
enum class LatticeMagisRpoGraph { Op, Raw };
/// How lattice spells a `LatticeMagisRpoGraph`.
inline llvm::StringRef optionText(LatticeMagisRpoGraph value) {
  static const char *const names[] = {"op", "raw"};
  return names[static_cast<int>(value)];
}

/// `order` of `lattice-cosma`: The order to place: `mpmf-window` (min-peak windows), `base` or `traffic-greedy`.
enum class LatticeCosmaOrder { MpmfWindow, Base, TrafficGreedy };
/// How lattice spells a `LatticeCosmaOrder`.
inline llvm::StringRef optionText(LatticeCosmaOrder value) {
  static const char *const names[] = {"mpmf-window", "base", "traffic-greedy"};
  return names[static_cast<int>(value)];
}

/// `traversal` of `lattice-eda`: Placeholder traversal: dfs-consumer, bfs-level, inductor-bfs or inductor-dfs.
enum class LatticeEdaTraversal { DfsConsumer, BfsLevel, InductorBfs, InductorDfs };
/// How lattice spells a `LatticeEdaTraversal`.
inline llvm::StringRef optionText(LatticeEdaTraversal value) {
  static const char *const names[] = {"dfs-consumer", "bfs-level", "inductor-bfs", "inductor-dfs"};
  return names[static_cast<int>(value)];
}

/// `what` of `lattice-test-corrupt`: `order` (a dependence on a later op) or `phase` (phase moved back).
enum class LatticeTestCorruptWhat { Order, Phase };
/// How lattice spells a `LatticeTestCorruptWhat`.
inline llvm::StringRef optionText(LatticeTestCorruptWhat value) {
  static const char *const names[] = {"order", "phase"};
  return names[static_cast<int>(value)];
}

} // namespace lattice

#endif // LATTICE_PASS_ENUMS_H
