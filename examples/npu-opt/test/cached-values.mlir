// The dialect hands out `ui64` values and all-`precedence` dependency lists from its own cache:
// the two largest `ui64` values (the cache's hash map reserves them as keys, so they bypass it)
// and lists of several lengths (made per length asked for) print and parse back the same.
// RUN: npu-opt %s | FileCheck %s
// RUN: npu-opt %s -o %t.mlir && npu-opt %t.mlir | diff %t.mlir -
// CHECK: lattice.buffer id 0 pos 0 in "L1" size 18446744073709551615 backed true
// CHECK: lattice.buffer id 1 pos 1 in "L1" size 18446744073709551614 backed true
// CHECK: lattice.buffer id 2 pos 2 in "L1" size 18446744073709551615 backed false
// CHECK: lattice.alloc %0 id 0
// CHECK: lattice.command "A"(%0) id 1 on "MTE2" cycles 18446744073709551614 after [%3]
// CHECK: lattice.command "B"(%0) id 2 on "MTE2" cycles 1 after [%3, %4]
// CHECK: lattice.command "C"(%0) id 3 on "MTE2" cycles 1 after [%3, %4, %5]
// CHECK: lattice.free %0 id 4 after [%4, %5, %6]
// CHECK: lattice.alloc %1 id 5 after [%3]
module @cached_values {
  lattice.phase "parsed" order [0, 1, 2, 3, 4, 5]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive false
  %0 = lattice.buffer id 0 pos 0 in "L1" size 18446744073709551615 backed true
  %1 = lattice.buffer id 1 pos 1 in "L1" size 18446744073709551614 backed true
  %2 = lattice.buffer id 2 pos 2 in "L1" size 18446744073709551615 backed false
  %3 = lattice.alloc %0 id 0
  %4 = lattice.command "A"(%0) id 1 on "MTE2" cycles 18446744073709551614 after [%3]
  %5 = lattice.command "B"(%0) id 2 on "MTE2" cycles 1 after [%3, %4]
  %6 = lattice.command "C"(%0) id 3 on "MTE2" cycles 1 after [%3, %4, %5]
  %7 = lattice.free %0 id 4 after [%4, %5, %6]
  %8 = lattice.alloc %1 id 5 after [%3]
}
