//===- TestPasses.h - lattice's test passes as MLIR passes -----*- C++ -*-===//
//
// What it does: declares the `lattice-test-*` passes (failures, remarks, corrupted IR on demand,
// an edit of lattice ops by an ordinary MLIR pass: what tests of the infrastructure need),
// generated like the real ones (but the edit) and kept in their own
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

/// Registers `lattice-test-scale-cycles`, an ordinary MLIR pass (not one of lattice's) that
/// multiplies the cycles of every lattice command: what tests put between lattice
/// passes to change a lattice module as a toolchain's own pass would.
void registerScaleCyclesTestPass();

} // namespace lattice

#endif // LATTICE_TEST_PASSES_H
