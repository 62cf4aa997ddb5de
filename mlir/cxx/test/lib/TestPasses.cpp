//===- TestPasses.cpp - lattice's test passes as MLIR passes --------------===//
//
// What it does: the classes of the `lattice-test-*` passes (generated, TestPasses.cpp.inc), over
// the same run as the real passes (lattice::detail::runPass). Nothing of its own to keep.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

namespace lattice {
#include "TestPasses.cpp.inc"
} // namespace lattice
