// MLIR prints lattice passes with every option at its canonical value (`--dump-pass-pipeline`,
// as in crash reproducers), and the printed pipeline replays: same pipeline, same output.
// REQUIRES: mlir-plugin
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas{lookahead=8},lattice-dlr{victim=lru})' \
// RUN:   --dump-pass-pipeline %s -o %t.first.mlir 2> %t.dump
// RUN: cat %t.dump | FileCheck %s
// CHECK:      Pass Manager with 2 passes:
// CHECK-NEXT: builtin.module(
// CHECK-NEXT:   lattice-mpas{lookahead=8 pull=true},
// CHECK-NEXT:   lattice-dlr{evict=auto l0=double prefetch=0 victim=lru}
// CHECK-NEXT: )
// RUN: sed 1d %t.dump | tr -d '\n' > %t.pipeline
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline="$(cat %t.pipeline)" --dump-pass-pipeline %s -o %t.replay.mlir 2> %t.replay.dump
// RUN: diff %t.dump %t.replay.dump
// RUN: diff %t.first.mlir %t.replay.mlir
// Unwritten options print at their defaults.
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas,lattice-dlr)' --dump-pass-pipeline %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: lattice-mpas{lookahead=32 pull=true},
// DEFAULT: lattice-dlr{evict=auto l0=double prefetch=0 victim=paper}
// Bools are MLIR bools: a bare key sets one, as in lattice-opt.
// RUN: mlir-opt --load-pass-plugin=$LATTICE_MLIR_PLUGIN --irdl-file=%S/../../mlir/src/lattice.irdl.mlir \
// RUN:   --pass-pipeline='builtin.module(lattice-mpas{pull=false},lattice-mpas{pull})' --dump-pass-pipeline %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL:      lattice-mpas{lookahead=32 pull=false},
// BOOL-NEXT: lattice-mpas{lookahead=32 pull=true}

module @matmul_tile {
  "lattice.phase"() {order = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18>, phase = "parsed"} : () -> ()
  "lattice.target"() {l0_exclusive = true, pipes = ["MTE1", "MTE2", "MTE3", "FIXP", "CUBE", "VECTOR"], spill_cost_base = 150 : ui64, spill_cost_per_byte = 2 : ui64, spill_in = "MTE2", spill_out = "MTE3", tiers = [{capacity = 4096 : ui64, name = "L1", staging = false}, {capacity = 1024 : ui64, name = "UB", staging = false}, {capacity = 256 : ui64, name = "L0A", staging = true}, {capacity = 256 : ui64, name = "L0B", staging = true}, {capacity = 512 : ui64, name = "L0C", staging = true}]} : () -> ()
  %0 = "lattice.buffer"() {backed = true, id = 0 : ui32, pos = 0 : ui32, size = 1024 : ui64, tier = "L1"} : () -> !lattice.buf
  %1 = "lattice.buffer"() {backed = true, id = 1 : ui32, pos = 1 : ui32, size = 1024 : ui64, tier = "L1"} : () -> !lattice.buf
  %2 = "lattice.buffer"() {backed = false, id = 2 : ui32, pos = 2 : ui32, size = 256 : ui64, tier = "L0A"} : () -> !lattice.buf
  %3 = "lattice.buffer"() {backed = false, id = 3 : ui32, pos = 3 : ui32, size = 256 : ui64, tier = "L0B"} : () -> !lattice.buf
  %4 = "lattice.buffer"() {backed = false, id = 4 : ui32, pos = 4 : ui32, size = 512 : ui64, tier = "L0C"} : () -> !lattice.buf
  %5 = "lattice.buffer"() {backed = false, id = 5 : ui32, pos = 5 : ui32, size = 512 : ui64, tier = "UB"} : () -> !lattice.buf
  %6 = "lattice.alloc"(%0) {dep_kinds = [], id = 0 : ui32} : (!lattice.buf) -> !lattice.token
  %7 = "lattice.command"(%0, %6) {cycles = 2198 : ui64, dep_kinds = ["precedence"], id = 1 : ui32, opcode = "COPY_IN", operandSegmentSizes = array<i32: 1, 1>, pipe = "MTE2"} : (!lattice.buf, !lattice.token) -> !lattice.token
  %8 = "lattice.alloc"(%1) {dep_kinds = [], id = 2 : ui32} : (!lattice.buf) -> !lattice.token
  %9 = "lattice.command"(%1, %8) {cycles = 2198 : ui64, dep_kinds = ["precedence"], id = 3 : ui32, opcode = "COPY_IN", operandSegmentSizes = array<i32: 1, 1>, pipe = "MTE2"} : (!lattice.buf, !lattice.token) -> !lattice.token
  %10 = "lattice.alloc"(%2) {dep_kinds = [], id = 4 : ui32} : (!lattice.buf) -> !lattice.token
  %11 = "lattice.command"(%2, %0, %7, %10) {cycles = 64 : ui64, dep_kinds = ["precedence", "precedence"], id = 5 : ui32, opcode = "MOVE", operandSegmentSizes = array<i32: 2, 2>, pipe = "MTE1"} : (!lattice.buf, !lattice.buf, !lattice.token, !lattice.token) -> !lattice.token
  %12 = "lattice.alloc"(%3) {dep_kinds = [], id = 6 : ui32} : (!lattice.buf) -> !lattice.token
  %13 = "lattice.command"(%3, %1, %9, %12) {cycles = 64 : ui64, dep_kinds = ["precedence", "precedence"], id = 7 : ui32, opcode = "MOVE", operandSegmentSizes = array<i32: 2, 2>, pipe = "MTE1"} : (!lattice.buf, !lattice.buf, !lattice.token, !lattice.token) -> !lattice.token
  %14 = "lattice.alloc"(%4) {dep_kinds = [], id = 8 : ui32} : (!lattice.buf) -> !lattice.token
  %15 = "lattice.command"(%4, %2, %3, %11, %13, %14) {cycles = 256 : ui64, dep_kinds = ["precedence", "precedence", "precedence"], id = 9 : ui32, opcode = "MATMUL", operandSegmentSizes = array<i32: 3, 3>, pipe = "CUBE"} : (!lattice.buf, !lattice.buf, !lattice.buf, !lattice.token, !lattice.token, !lattice.token) -> !lattice.token
  %16 = "lattice.free"(%0, %11) {dep_kinds = ["precedence"], id = 10 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
  %17 = "lattice.free"(%1, %13) {dep_kinds = ["precedence"], id = 11 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
  %18 = "lattice.free"(%2, %15) {dep_kinds = ["precedence"], id = 12 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
  %19 = "lattice.free"(%3, %15) {dep_kinds = ["precedence"], id = 13 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
  %20 = "lattice.alloc"(%5) {dep_kinds = [], id = 14 : ui32} : (!lattice.buf) -> !lattice.token
  %21 = "lattice.command"(%5, %4, %15, %20) {cycles = 128 : ui64, dep_kinds = ["precedence", "precedence"], id = 15 : ui32, opcode = "FIXPIPE", operandSegmentSizes = array<i32: 2, 2>, pipe = "FIXP"} : (!lattice.buf, !lattice.buf, !lattice.token, !lattice.token) -> !lattice.token
  %22 = "lattice.free"(%4, %21) {dep_kinds = ["precedence"], id = 16 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
  %23 = "lattice.command"(%5, %21) {cycles = 1174 : ui64, dep_kinds = ["precedence"], id = 17 : ui32, opcode = "COPY_OUT", operandSegmentSizes = array<i32: 1, 1>, pipe = "MTE3"} : (!lattice.buf, !lattice.token) -> !lattice.token
  %24 = "lattice.free"(%5, %23) {dep_kinds = ["precedence"], id = 18 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
}
