module @tile {
  lattice.phase "bogus" order [0]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive true
  %0 = lattice.buffer id 0 pos 0 in "L1" size 1024 backed true
  %1 = lattice.alloc %0 id 0
}
