// Buffers and scheduled ops are verified through their own hook: a cheap check that every
// invariant holds, and MLIR's checks, with MLIR's messages, for an op that fails it. Values of
// another integer type in range fail the cheap check (it knows `ui32` and `ui64` only) and pass
// MLIR's; every kind of problem still gets MLIR's message at its op.
// RUN: npu-opt %s --split-input-file --verify-diagnostics
// RUN: npu-opt %S/Inputs/other-int-types.mlir | FileCheck %s
// CHECK: %0 = lattice.buffer id 0 pos 0 in "L1" size 64 backed true
// CHECK: %1 = lattice.alloc %0 id 0 offset 0
// CHECK: %2 = lattice.command "A"(%0) id 1 on "MTE2" cycles 5 after [%1 reuse]

module {
  %0 = "lattice.buffer"() <{id = 0 : ui32, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
  %1 = "lattice.alloc"(%0) <{id = 0 : ui32, dep_kinds = []}> : (!lattice.buf) -> !lattice.token
  // expected-error @below {{'lattice.free' op operand #1 must be variadic of completion of a scheduled op; later ops name it as a dependency, but got '!lattice.buf'}}
  %2 = "lattice.free"(%0, %0) <{id = 1 : ui32, dep_kinds = ["precedence"]}> : (!lattice.buf, !lattice.buf) -> !lattice.token
}

// -----

module {
  %0 = "lattice.buffer"() <{id = 0 : ui32, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
  %1 = "lattice.alloc"(%0) <{id = 0 : ui32, dep_kinds = []}> : (!lattice.buf) -> !lattice.token
  // expected-error @below {{'lattice.free' op has 1 dependencies but 0 `dep_kinds`}}
  %2 = "lattice.free"(%0, %1) <{id = 1 : ui32, dep_kinds = []}> : (!lattice.buf, !lattice.token) -> !lattice.token
}

// -----

module {
  // expected-error @below {{'lattice.buffer' op attribute 'id' failed to satisfy constraint: non-negative integer below 2^32}}
  %0 = "lattice.buffer"() <{id = 4294967296 : i64, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
}

// -----

module {
  %0 = "lattice.buffer"() <{id = 0 : ui32, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
  // expected-error @below {{'lattice.spill_in' op requires attribute 'offset'}}
  %1 = "lattice.spill_in"(%0) <{id = 0 : ui32, pipe = "MTE2", cycles = 3 : ui64, dep_kinds = []}> : (!lattice.buf) -> !lattice.token
}

// -----

module {
  %0 = "lattice.buffer"() <{id = 0 : ui32, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
  // expected-error @below {{'lattice.alloc' op result #0 must be completion of a scheduled op; later ops name it as a dependency, but got '!lattice.buf'}}
  %1 = "lattice.alloc"(%0) <{id = 0 : ui32, dep_kinds = []}> : (!lattice.buf) -> !lattice.buf
}

// -----

module {
  %0 = "lattice.buffer"() <{id = 0 : ui32, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
  // expected-error @below {{'lattice.alloc' op attribute 'offset' failed to satisfy constraint: non-negative integer below 2^64}}
  %1 = "lattice.alloc"(%0) <{id = 0 : ui32, dep_kinds = [], offset = -1 : i64}> : (!lattice.buf) -> !lattice.token
}

// -----

module {
  %0 = "lattice.buffer"() <{id = 0 : ui32, pos = 0 : ui32, tier = "L1", size = 64 : ui64, backed = true}> : () -> !lattice.buf
  %1 = "lattice.alloc"(%0) <{id = 0 : ui32, dep_kinds = []}> : (!lattice.buf) -> !lattice.token
  // expected-error @below {{'lattice.command' op has the dependency kind "later"; kinds are "precedence", "spill" and "reuse"}}
  %2 = "lattice.command"(%0, %1) <{id = 1 : ui32, opcode = "A", pipe = "MTE2", cycles = 5 : ui64, dep_kinds = ["later"], operandSegmentSizes = array<i32: 1, 1>}> : (!lattice.buf, !lattice.token) -> !lattice.token
}
