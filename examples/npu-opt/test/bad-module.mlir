// What is wrong with a lattice module is reported at the op it concerns, before any pass runs:
// a tier the target lacks at its buffer, an op that σ leaves out at that op, a foreign op.
// RUN: npu-opt --pass-pipeline='builtin.module(lattice-mpas)' --verify-diagnostics --split-input-file %s

module @unknown_tier {
  lattice.phase "parsed" order [0, 1]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive true
  // expected-error @+1 {{unknown tier `L9`; valid tiers: L1}}
  %0 = lattice.buffer id 0 pos 0 in "L9" size 1024 backed true
  %1 = lattice.alloc %0 id 0
  %2 = lattice.free %0 id 1 after [%1]
}

// -----

module @left_out {
  lattice.phase "parsed" order [0]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive true
  %0 = lattice.buffer id 0 pos 0 in "L1" size 1024 backed true
  %1 = lattice.alloc %0 id 0
  // expected-error @+1 {{the op with `id = 1` is not in the `order` of `lattice.phase`}}
  %2 = lattice.free %0 id 1 after [%1]
}

// -----

module @foreign {
  lattice.phase "parsed" order []
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive true
  // expected-error @+1 {{`arith.constant` in a lattice module: a lattice module holds only `lattice.*` ops}}
  %c = arith.constant 0 : i32
}

// -----

module @bad_phase {
  // expected-error @+1 {{'lattice.phase' op has the unknown phase "bogus"}}
  lattice.phase "bogus" order []
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive true
}
