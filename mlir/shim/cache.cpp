//===- cache.cpp - The last LIR module of a lattice module, as an MLIR analysis ===//
//
// What it does: keeps, per lattice module op, the LIR module (and what the bridge carries with
// it) that the last lattice pass read or wrote there, as an analysis in the running pass
// manager's `AnalysisManager`, so the next lattice pass can skip reading the ops back
// (`external.rs`). The state itself is Rust's: an opaque pointer and the function that frees it.
//
// Why an analysis: MLIR already tracks exactly when cached facts about IR go stale. After every
// pass, the pass manager invalidates every analysis the pass did not declare preserved, at the op
// it ran on and below; a pass that changes IR must not declare preserved what it did not keep
// valid (MLIR's contract, which all of MLIR's analyses rely on). So an upstream pass that touches
// a lattice module — or any op above it — drops the state, and the next lattice pass reads the
// ops again; only a lattice pass, which rewrites the ops *from* the state, keeps it (and declares
// only this analysis preserved). Analyses live for one `PassManager::run`, inside which the
// context, and so every handle the state holds, is alive.
//
// Why C++: the analysis manager and `markAnalysesPreserved` exist in MLIR's C++ API only. A pass
// reaches them through `mlir::Pass`'s protected members by pointers to member formed in a derived
// class (`Access`), which C++ allows, and which works for any pass: the bridge's C API external
// passes and the plugin's `LatticePass` alike.
//
// Invariants: a state belongs to at most one analysis and is freed exactly once (taking it leaves
// the analysis empty; putting one frees the state it replaces); nothing here throws.
// Cost: O(depth) to find the analysis of a nested op.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Pass/AnalysisManager.h"
#include "mlir/Pass/Pass.h"

// Named (not anonymous), since MLIR shows analyses by their type's name (`--mlir-timing`).
namespace lattice {

/// The state of one lattice module op: Rust's pointer and its destructor (null: none).
struct CachedModule {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CachedModule)

  explicit CachedModule(mlir::Operation *) {}
  CachedModule(const CachedModule &) = delete;
  CachedModule &operator=(const CachedModule &) = delete;
  ~CachedModule() { reset(nullptr, nullptr); }

  void reset(void *newState, void (*newDrop)(void *)) {
    if (state && drop)
      drop(state);
    state = newState;
    drop = newDrop;
  }

  void *state = nullptr;
  void (*drop)(void *) = nullptr;
};

} // namespace lattice

namespace {

/// Reaches `mlir::Pass`'s protected members: `&Access::member` names a member of `Pass`, which a
/// class derived from it may form a pointer to and then apply to any pass. Never instantiated.
struct Access : mlir::Pass {
  static mlir::AnalysisManager analyses(mlir::Pass &pass) {
    return (pass.*(&Access::getAnalysisManager))();
  }
  static void preserveAll(mlir::Pass &pass) { (pass.*(&Access::markAllAnalysesPreserved))(); }
  static void preserve(mlir::Pass &pass, mlir::TypeID id) {
    void (mlir::Pass::*mark)(mlir::TypeID) = &Access::markAnalysesPreserved;
    (pass.*mark)(id);
  }
};

/// The analysis manager of `module`, an op at or below the op `pass` runs on (`root`).
mlir::AnalysisManager managerOf(mlir::Pass &pass, mlir::Operation *root, mlir::Operation *module) {
  mlir::AnalysisManager manager = Access::analyses(pass);
  return module == root ? manager : manager.nest(module);
}

} // namespace

extern "C" {

/// Takes the state cached for `module` (null when there is none); the caller owns it after.
/// `pass` is the `mlir::Pass` running on `root`, an ancestor of `module` or `module` itself.
void *latticeMlirCacheTake(void *pass, MlirOperation root, MlirOperation module) {
  auto cached = managerOf(*static_cast<mlir::Pass *>(pass), unwrap(root), unwrap(module))
                    .getCachedAnalysis<lattice::CachedModule>();
  if (!cached)
    return nullptr;
  lattice::CachedModule &entry = cached->get();
  void *state = entry.state;
  entry.state = nullptr;
  entry.drop = nullptr;
  return state;
}

/// Caches `state` for `module` (freed by `drop` when replaced or invalidated), as above.
void latticeMlirCachePut(void *pass, MlirOperation root, MlirOperation module, void *state,
                         void (*drop)(void *)) {
  managerOf(*static_cast<mlir::Pass *>(pass), unwrap(root), unwrap(module))
      .getAnalysis<lattice::CachedModule>()
      .reset(state, drop);
}

/// Declares what the running `pass` preserved: every analysis when it changed nothing, else only
/// the lattice states (which it keeps equal to the ops it wrote).
void latticeMlirCachePreserve(void *pass, bool everything) {
  auto &running = *static_cast<mlir::Pass *>(pass);
  if (everything)
    Access::preserveAll(running);
  else
    Access::preserve(running, mlir::TypeID::get<lattice::CachedModule>());
}
}
