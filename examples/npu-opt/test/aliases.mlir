// Lattice ops print their values straight to the stream and show MLIR's alias pass only their
// discardable attributes: an attribute worth an alias on a lattice op still gets one, and the
// module prints and parses back the same.
// RUN: npu-opt %s | FileCheck %s
// RUN: npu-opt %s -o %t.mlir && npu-opt %t.mlir | diff %t.mlir -
// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #map1 = affine_map<(d0) -> (d0)>
// CHECK: lattice.buffer id 0 pos 0 in "L1" size 1024 backed true {layout = #map}
// CHECK: lattice.alloc %0 id 0 {note = #map1}
// CHECK: lattice.command "COPY_IN"(%0) id 1 on "MTE2" cycles 2198 after [%1] {note = #map1}
// CHECK: lattice.free %0 id 2 after [%2] {note = #map}
module @aliases {
  lattice.phase "parsed" order [0, 1, 2]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive false
  %0 = lattice.buffer id 0 pos 0 in "L1" size 1024 backed true {layout = affine_map<(d0, d1) -> (d1, d0)>}
  %1 = lattice.alloc %0 id 0 {note = affine_map<(d0) -> (d0)>}
  %2 = lattice.command "COPY_IN"(%0) id 1 on "MTE2" cycles 2198 after [%1] {note = affine_map<(d0) -> (d0)>}
  %3 = lattice.free %0 id 2 after [%2] {note = affine_map<(d0, d1) -> (d1, d0)>}
}
