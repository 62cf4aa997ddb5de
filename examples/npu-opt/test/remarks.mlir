// Remarks and warnings of a lattice pass reach MLIR with their severity, at their op.
// RUN: npu-opt --pass-pipeline='builtin.module(lattice-test-remark{op=%9 message=hello},lattice-test-remark{op=%17 message=careful warning=true})' --verify-diagnostics %s -o /dev/null
module @matmul_tile {
  lattice.phase "parsed" order [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}, {capacity = 1024 : ui64, name = "UB", staging = false}, {capacity = 256 : ui64, name = "L0A", staging = true}, {capacity = 256 : ui64, name = "L0B", staging = true}, {capacity = 512 : ui64, name = "L0C", staging = true}] pipes ["MTE1", "MTE2", "MTE3", "FIXP", "CUBE", "VECTOR"] spill "MTE3", "MTE2" cost 150 + 2 l0_exclusive true
  %0 = lattice.buffer id 0 pos 0 in "L1" size 1024 backed true
  %1 = lattice.buffer id 1 pos 1 in "L1" size 1024 backed true
  %2 = lattice.buffer id 2 pos 2 in "L0A" size 256 backed false
  %3 = lattice.buffer id 3 pos 3 in "L0B" size 256 backed false
  %4 = lattice.buffer id 4 pos 4 in "L0C" size 512 backed false
  %5 = lattice.buffer id 5 pos 5 in "UB" size 512 backed false
  %6 = lattice.alloc %0 id 0
  %7 = lattice.command "COPY_IN"(%0) id 1 on "MTE2" cycles 2198 after [%6]
  %8 = lattice.alloc %1 id 2
  %9 = lattice.command "COPY_IN"(%1) id 3 on "MTE2" cycles 2198 after [%8]
  %10 = lattice.alloc %2 id 4
  %11 = lattice.command "MOVE"(%2, %0) id 5 on "MTE1" cycles 64 after [%7, %10]
  %12 = lattice.alloc %3 id 6
  %13 = lattice.command "MOVE"(%3, %1) id 7 on "MTE1" cycles 64 after [%9, %12]
  %14 = lattice.alloc %4 id 8
  // expected-remark @+1 {{lattice-test-remark: hello}}
  %15 = lattice.command "MATMUL"(%4, %2, %3) id 9 on "CUBE" cycles 256 after [%11, %13, %14]
  %16 = lattice.free %0 id 10 after [%11]
  %17 = lattice.free %1 id 11 after [%13]
  %18 = lattice.free %2 id 12 after [%15]
  %19 = lattice.free %3 id 13 after [%15]
  %20 = lattice.alloc %5 id 14
  %21 = lattice.command "FIXPIPE"(%5, %4) id 15 on "FIXP" cycles 128 after [%15, %20]
  %22 = lattice.free %4 id 16 after [%21]
  // expected-warning @+1 {{lattice-test-remark: careful}}
  %23 = lattice.command "COPY_OUT"(%5) id 17 on "MTE3" cycles 1174 after [%21]
  %24 = lattice.free %5 id 18 after [%23]
}
