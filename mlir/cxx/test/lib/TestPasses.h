//===- TestPasses.h - lattice's test passes as MLIR passes -----*- C++ -*-===//
//
// What it does: declares the `lattice-test-*` passes (failures, remarks, corrupted IR on demand:
// what tests of the infrastructure need), generated like the real ones but kept in their own
// library, liblattice-mlir-test.a, so that production tools do not carry them.
//
//===----------------------------------------------------------------------===//

#ifndef LATTICE_TEST_PASSES_H
#define LATTICE_TEST_PASSES_H

#include "lattice/Passes.h"

namespace lattice {

#define GEN_PASS_DECL
#include "lattice/TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "lattice/TestPasses.h.inc"

} // namespace lattice

#endif // LATTICE_TEST_PASSES_H
