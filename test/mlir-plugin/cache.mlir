// Consecutive lattice passes hand the module on without reading the ops again, and that changes
// nothing: the same IR, locations included, as when an upstream pass in between (here
// loop-invariant-code-motion, which changes nothing but keeps no analysis) makes every lattice
// pass read the ops. The timing report shows the kept module made once, by the first pass.
// Passes that only reorder σ (mpas, cpe) have the ops moved rather than rewritten; the IR is
// what lattice-translate writes for lattice-opt's result (`diff -B`: mlir-opt ends the file with
// an empty line).
// REQUIRES: mlir-plugin
// RUN: lattice-opt %shared/cases/Conv_Case0.json -o %t.lir
// RUN: lattice-translate --lir-to-mlir %t.lir -o %t.mlir
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)' \
// RUN:   --mlir-print-debuginfo --mlir-timing %t.mlir -o %t.kept.mlir 2> %t.timing
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas,loop-invariant-code-motion,lattice-dlr,loop-invariant-code-motion,lattice-cpe)' \
// RUN:   --mlir-print-debuginfo --mlir-timing %t.mlir -o %t.read.mlir 2> %t.read.timing
// RUN: diff %t.kept.mlir %t.read.mlir
// RUN: cat %t.timing | FileCheck %s
// CHECK:      lattice-mpas
// CHECK-NEXT:   (A) lattice::CachedModule
// CHECK-NEXT: lattice-dlr
// CHECK-NEXT: lattice-cpe
// RUN: cat %t.read.timing | FileCheck %s --check-prefix=READ
// READ:      lattice-dlr
// READ-NEXT:   (A) lattice::CachedModule
// READ:      lattice-cpe
// READ-NEXT:   (A) lattice::CachedModule
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas)' %t.mlir -o %t.mpas.mlir
// RUN: lattice-opt --mpas %t.lir -o %t.mpas.lir
// RUN: lattice-translate --lir-to-mlir %t.mpas.lir -o %t.mpas.expected.mlir
// RUN: diff -B %t.mpas.expected.mlir %t.mpas.mlir
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)' %t.mlir -o %t.cpe.mlir
// RUN: lattice-opt --mpas --dlr --cpe %t.lir -o %t.cpe.lir
// RUN: lattice-translate --lir-to-mlir %t.cpe.lir -o %t.cpe.expected.mlir
// RUN: diff -B %t.cpe.expected.mlir %t.cpe.mlir
