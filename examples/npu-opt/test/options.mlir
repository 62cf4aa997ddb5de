// Lattice passes are registered MLIR passes with typed options: MLIR parses and prints them
// (every option at its canonical value), lists them in --help, and refuses a bad value before
// anything runs, with MLIR's words for a word that is no choice and lattice's for a value out of
// its range.
// RUN: npu-opt --pass-pipeline='builtin.module(lattice-mpas,lattice-dlr{victim=lru prefetch=4},lattice-cpe{seed=false})' \
// RUN:   --dump-pass-pipeline %S/Inputs/matmul_tile.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK:      builtin.module(
// CHECK-NEXT:   lattice-mpas{lookahead=32 pull=true},
// CHECK-NEXT:   lattice-dlr{evict=auto l0=double prefetch=4 victim=lru},
// CHECK-NEXT:   lattice-cpe{candidates=4 justify=1 keep-logical-peak=true passes=2 radius=1 seed=false}
// The options change the plan as they do in lattice-opt.
// RUN: npu-opt --pass-pipeline='builtin.module(lattice-mpas,lattice-dlr{victim=lru l0=single})' %S/Inputs/matmul_tile.mlir \
// RUN:   | npu-translate --lattice-to-lir -o %t.npu.lir
// RUN: lattice-opt --pass-pipeline='builtin.module(mpas,dlr{victim=lru l0=single})' %repo/examples/matmul_tile.lir -o %t.opt.lir
// RUN: diff %t.opt.lir %t.npu.lir
// RUN: not npu-opt --pass-pipeline='builtin.module(lattice-dlr{victim=sometimes})' %S/Inputs/matmul_tile.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WORD
// WORD: Cannot find option named 'sometimes'!
// RUN: not npu-opt --pass-pipeline='builtin.module(lattice-cpe{candidates=0})' %S/Inputs/matmul_tile.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: error: lattice-cpe: bad value for option `candidates` of pass `cpe`: `0` is outside the valid range 1..=256
// RUN: npu-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --lattice-dlr
// HELP: --victim=<value>
// HELP: =lru
