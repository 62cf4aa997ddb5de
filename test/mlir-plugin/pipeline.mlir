// Upstream mlir-opt with the plugin plans a shipped case exactly as lattice-opt does: the same
// module (read back as LIR) and the same metrics, canonicalize included in the pipeline.
// REQUIRES: mlir-plugin
// RUN: lattice-opt %shared/cases/Conv_Case0.json -o %t.lir
// RUN: lattice-translate --lir-to-mlir %t.lir -o %t.mlir
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(canonicalize,lattice-mpas,lattice-dlr{victim=lru},lattice-cpe)' \
// RUN:   %t.mlir -o %t.plugin.mlir
// RUN: lattice-opt --mpas --dlr=victim=lru --cpe %t.lir -o %t.opt.lir --metrics=%t.opt.json
// RUN: lattice-translate --mlir-to-lir %t.plugin.mlir -o %t.plugin.lir
// RUN: diff %t.opt.lir %t.plugin.lir
// RUN: lattice-opt %t.plugin.mlir -o /dev/null --metrics=%t.plugin.json
// RUN: diff %t.opt.json %t.plugin.json
// The metrics compared are those of a refined plan (not of two unplanned modules).
// RUN: cat %t.plugin.json | FileCheck %s
// CHECK: "module": "Conv_Case0",
// CHECK: "phase": "refined",
// CHECK: "makespan":
