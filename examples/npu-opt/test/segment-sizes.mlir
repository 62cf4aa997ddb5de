// `lattice.command`'s verifier reads `operandSegmentSizes` from the op's properties (rather than
// through the attribute MLIR's trait check would make for it) and reports what MLIR reports.
// RUN: npu-opt %s -split-input-file -verify-diagnostics

module {
  %0 = "lattice.buffer"() <{backed = true, id = 0 : ui32, pos = 0 : ui32, size = 1024 : ui64, tier = "L1"}> : () -> !lattice.buf
  // expected-error @+1 {{'lattice.command' op operand count (1) does not match with the total size (2) specified in attribute 'operandSegmentSizes'}}
  %1 = "lattice.command"(%0) <{cycles = 3 : ui64, dep_kinds = [], id = 0 : ui32, opcode = "X", operandSegmentSizes = array<i32: 2, 0>, pipe = "MTE2"}> : (!lattice.buf) -> !lattice.token
}

// -----

module {
  %0 = "lattice.buffer"() <{backed = true, id = 0 : ui32, pos = 0 : ui32, size = 1024 : ui64, tier = "L1"}> : () -> !lattice.buf
  // expected-error @+1 {{'lattice.command' op 'operandSegmentSizes' attribute cannot have negative elements}}
  %1 = "lattice.command"(%0) <{cycles = 3 : ui64, dep_kinds = [], id = 0 : ui32, opcode = "X", operandSegmentSizes = array<i32: -1, 2>, pipe = "MTE2"}> : (!lattice.buf) -> !lattice.token
}

// -----

module {
  %0 = "lattice.buffer"() <{backed = true, id = 0 : ui32, pos = 0 : ui32, size = 1024 : ui64, tier = "L1"}> : () -> !lattice.buf
  %1 = "lattice.alloc"(%0) <{dep_kinds = [], id = 0 : ui32}> : (!lattice.buf) -> !lattice.token
  // expected-error @+1 {{'lattice.command' op operand #1 must be variadic of completion of a scheduled op}}
  %2 = "lattice.command"(%0, %0) <{cycles = 3 : ui64, dep_kinds = ["precedence"], id = 1 : ui32, opcode = "X", operandSegmentSizes = array<i32: 1, 1>, pipe = "MTE2"}> : (!lattice.buf, !lattice.buf) -> !lattice.token
}
