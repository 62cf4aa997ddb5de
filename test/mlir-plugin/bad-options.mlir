// Bad pass options are refused by mlir-opt with lattice's own message (bad values) or MLIR's
// (unknown options), before anything runs.
// REQUIRES: mlir-plugin
// RUN: not mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-dlr{victim=sometimes})' %s 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: error: lattice-dlr: bad value for option `victim` of pass `dlr`: expected one of `paper`, `cost`, `lru`, `auto`, found `sometimes`
// VALUE: failed to add `lattice-dlr` with options `victim=sometimes`
// RUN: not mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas{lookahead=-1})' %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: lattice-mpas: bad value for option `lookahead` of pass `mpas`
// RUN: not mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-dlr{victimm=lru})' %s 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: no such option victimm
// RUN: not mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-dl)' %s 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: 'lattice-dl' does not refer to a registered pass or pass pipeline

module @empty {
}
