module {
  lattice.phase "parsed" order [0, 1]
  lattice.target tiers [{capacity = 4096 : ui64, name = "L1", staging = false}] pipes ["MTE2"] spill "MTE2", "MTE2" cost 150 + 2 l0_exclusive false
  %0 = "lattice.buffer"() <{id = 0 : i64, pos = 0 : i32, tier = "L1", size = 64 : i64, backed = true}> : () -> !lattice.buf
  %1 = "lattice.alloc"(%0) <{id = 0 : i64, offset = 0 : i16, dep_kinds = []}> : (!lattice.buf) -> !lattice.token
  %2 = "lattice.command"(%0, %1) <{id = 1 : i32, opcode = "A", pipe = "MTE2", cycles = 5 : i64, dep_kinds = ["reuse"], operandSegmentSizes = array<i32: 1, 1>}> : (!lattice.buf, !lattice.token) -> !lattice.token
}
