//===- LatticeOps.td - the ops of the lattice dialect ---------------------===//
//
// What it does: the eight ops of the `lattice` dialect, one per LIR concept, with the same names,
// operands, results and values as the IRDL definition (mlir/src/lattice.irdl.mlir; the test
// `ods_matches_irdl` compares the two), here as attributes kept as properties with verifiers and a custom
// assembly. Every value the generic form spells as an attribute keeps that attribute's name.
//
// Invariants the verifiers add to IRDL's (which checks only names and kinds): one dependency
// kind per dependency, a known phase, a well-formed target (tiers `{name, capacity, staging}`,
// pipes strings). Names resolving to the target, σ naming every op once and positions numbering
// the buffers are checked when a module is read (lattice_capi's assembly, with located errors),
// since they concern the whole module rather than one op.
//
//===----------------------------------------------------------------------===//

#ifndef LATTICE_OPS_TD
#define LATTICE_OPS_TD

include "lattice/LatticeDialect.td"

class Lattice_Op<string mnemonic, list<Trait> traits = []> : Op<Lattice_Dialect, mnemonic, traits> {
  // MLIR's hook that prints the op, replaced (the generated class hides `Op`'s): the name as MLIR
  // prints it, without the string MLIR's `OpState::printOpName` makes for every op it prints (on
  // Matmul_Case1 that was 39 M instructions of the printer's 190 M), then the op's assembly.
  code printHook = [{
    static ::mlir::OperationName::PrintAssemblyFn getPrintAssemblyFn() {
      return &::lattice::detail::printOp<ConcreteOpType>;
    }
  }];
  let extraClassDeclaration = printHook;
  // MLIR's hook that verifies the op, replaced for the ops a module has thousands of (buffers and
  // scheduled ops; the generated class hides `Op`'s): a cheap check that every invariant holds,
  // and MLIR's own checks, in MLIR's order and with its messages, only for an op that fails it
  // (Dialect.cpp, `verifyOp`). MLIR verifies every op after parsing and after every pass that
  // changed the module; on Matmul_Case1 its checks of these ops cost 0.125 G instructions of the
  // three-pass run's 2.56 G.
  code verifyHook = [{
    static ::mlir::OperationName::VerifyInvariantsFn getVerifyInvariantsFn() {
      return &::lattice::detail::verifyOp<ConcreteOpType>;
    }
  }];
}

def Lattice_PhaseOp : Lattice_Op<"phase"> {
  let summary = "the module's pipeline phase and σ";
  let description = [{
    `phase` is `parsed`, `scheduled`, `planned` or `refined`; `order` lists the `id`s of the
    module's scheduled ops in σ.
  }];
  let arguments = (ins StrAttr:$phase, DenseI64ArrayAttr:$order);
  let assemblyFormat = "$phase `order` $order attr-dict";
  let hasVerifier = 1;
}

def Lattice_TargetOp : Lattice_Op<"target"> {
  let summary = "the machine: tiers, pipes, spill pipes and cost, L0 exclusivity";
  let arguments = (ins
    ArrayAttr:$tiers,
    StrArrayAttr:$pipes,
    StrAttr:$spill_out,
    StrAttr:$spill_in,
    Lattice_U64Attr:$spill_cost_base,
    Lattice_U64Attr:$spill_cost_per_byte,
    BoolAttr:$l0_exclusive);
  let assemblyFormat = [{
    `tiers` $tiers `pipes` $pipes `spill` $spill_out `,` $spill_in
    `cost` $spill_cost_base `+` $spill_cost_per_byte `l0_exclusive` $l0_exclusive attr-dict
  }];
  let hasVerifier = 1;
}

def Lattice_BufferOp : Lattice_Op<"buffer"> {
  let summary = "a buffer: contest id, place among the buffers, tier, size, DDR copy";
  let arguments = (ins
    Lattice_IdAttr:$id,
    Lattice_IdAttr:$pos,
    StrAttr:$tier,
    Lattice_U64Attr:$size,
    BoolAttr:$backed);
  let results = (outs Lattice_BufType:$buffer);
  let extraClassDeclaration = printHook # verifyHook;
  // `id 0 pos 0 in "L1" size 1024 backed true` (Dialect.cpp).
  let hasCustomAssemblyFormat = 1;
}

// The five scheduled ops: an `id` (what `order` lists), a buffer or buffers, token operands
// with one kind each, a token result.
class Lattice_ScheduledOp<string mnemonic, list<Trait> traits = []> : Lattice_Op<mnemonic, traits> {
  let results = (outs Lattice_TokenType:$done);
  let hasVerifier = 1;
  let extraClassDeclaration = printHook # verifyHook;
  // Written by hand (Dialect.cpp) rather than declared: the declarative printer builds each op's
  // whole attribute dictionary (`getAttrs()`) to print its discardable attributes, which on
  // Matmul_Case1 cost a tenth of npu-opt's run.
  let hasCustomAssemblyFormat = 1;
}

def Lattice_AllocOp : Lattice_ScheduledOp<"alloc"> {
  let summary = "start of a buffer's lifetime, at `offset` once planned";
  let arguments = (ins
    Lattice_BufType:$buffer,
    Variadic<Lattice_TokenType>:$deps,
    Lattice_IdAttr:$id,
    OptionalAttr<Lattice_U64Attr>:$offset,
    ArrayAttr:$dep_kinds);
  // Assembly: $buffer `id` $id (`offset` $offset^)? custom<Deps>($deps, $dep_kinds) attr-dict
}

def Lattice_FreeOp : Lattice_ScheduledOp<"free"> {
  let summary = "end of a buffer's lifetime";
  let arguments = (ins
    Lattice_BufType:$buffer,
    Variadic<Lattice_TokenType>:$deps,
    Lattice_IdAttr:$id,
    ArrayAttr:$dep_kinds);
  // Assembly: $buffer `id` $id custom<Deps>($deps, $dep_kinds) attr-dict
}

def Lattice_CommandOp : Lattice_ScheduledOp<"command", [AttrSizedOperandSegments]> {
  let summary = "a command of the input DAG: opcode, pipe, cycles, the buffers it names";
  // Its verify hook (`verifyHook`) checks `operandSegmentSizes` on the properties rather than on
  // the attribute MLIR's trait check makes (and uniques) for every command at every
  // verification, with MLIR's messages.
  let arguments = (ins
    Variadic<Lattice_BufType>:$buffers,
    Variadic<Lattice_TokenType>:$deps,
    Lattice_IdAttr:$id,
    StrAttr:$opcode,
    StrAttr:$pipe,
    Lattice_U64Attr:$cycles,
    ArrayAttr:$dep_kinds);
  // Assembly: $opcode `(` $buffers `)` `id` $id `on` $pipe `cycles` $cycles custom<Deps>($deps, $dep_kinds) attr-dict
}

def Lattice_SpillOutOp : Lattice_ScheduledOp<"spill_out"> {
  let summary = "moves a buffer out of its tier";
  let arguments = (ins
    Lattice_BufType:$buffer,
    Variadic<Lattice_TokenType>:$deps,
    Lattice_IdAttr:$id,
    StrAttr:$pipe,
    Lattice_U64Attr:$cycles,
    ArrayAttr:$dep_kinds);
  // Assembly: $buffer `id` $id `on` $pipe `cycles` $cycles custom<Deps>($deps, $dep_kinds) attr-dict
}

def Lattice_SpillInOp : Lattice_ScheduledOp<"spill_in"> {
  let summary = "brings a spilled buffer back at `offset`";
  let arguments = (ins
    Lattice_BufType:$buffer,
    Variadic<Lattice_TokenType>:$deps,
    Lattice_IdAttr:$id,
    Lattice_U64Attr:$offset,
    StrAttr:$pipe,
    Lattice_U64Attr:$cycles,
    ArrayAttr:$dep_kinds);
  // Assembly: $buffer `id` $id `offset` $offset `on` $pipe `cycles` $cycles custom<Deps>($deps, $dep_kinds) attr-dict
}

#endif // LATTICE_OPS_TD
