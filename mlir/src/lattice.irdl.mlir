// The `lattice` dialect, defined in IRDL and loaded into an MLIR context at run time
// (lattice_mlir::dialect). One op per LIR concept; every op carries its LIR facts as attributes.
// IRDL checks op names, operand and result types and the presence and kind of each attribute;
// the rest (values in range, names resolving to the target) is lattice_mlir::import's job.
// Optional facts that IRDL cannot mark optional (the offset of an unplanned `alloc`) are left
// out of the definition and checked by the importer.
// The order MLIR does not hold is written down: a module's body is a graph region, whose op
// order means nothing, so each buffer carries `pos`, its place in declaration order (0, 1, …),
// and `lattice.phase` carries `order`, the ids of the scheduled ops in σ; the importer orders by
// them and checks they name each buffer and op exactly once. An SSACFG region would keep the
// order itself but needs a terminator, which an IRDL op cannot be (see lattice_mlir::dialect).
irdl.dialect @lattice {
  // A buffer declared by `lattice.buffer`, named by the ops that allocate, use or spill it.
  irdl.type @buf
  // Completion of an op: the dependencies of later ops are their token operands.
  irdl.type @token

  // The state of the enclosing module: its pipeline phase ("parsed", "scheduled", "planned" or
  // "refined") and σ, the `id`s of its scheduled ops in order.
  irdl.operation @phase {
    %phase = irdl.base "#builtin.string"
    %order = irdl.base "#builtin.dense_array"
    irdl.attributes {"phase" = %phase, "order" = %order}
  }

  // The machine: tiers (dictionaries {name, capacity, staging}), pipes, spill pipes and cost,
  // and the L0 exclusivity rule.
  irdl.operation @target {
    %tiers = irdl.base "#builtin.array"
    %pipes = irdl.base "#builtin.array"
    %spill_out = irdl.base "#builtin.string"
    %spill_in = irdl.base "#builtin.string"
    %spill_cost_base = irdl.base "#builtin.integer"
    %spill_cost_per_byte = irdl.base "#builtin.integer"
    %l0_exclusive = irdl.base "#builtin.integer"
    irdl.attributes {
      "tiers" = %tiers,
      "pipes" = %pipes,
      "spill_out" = %spill_out,
      "spill_in" = %spill_in,
      "spill_cost_base" = %spill_cost_base,
      "spill_cost_per_byte" = %spill_cost_per_byte,
      "l0_exclusive" = %l0_exclusive
    }
  }

  // A buffer: contest BufId, place among the buffers, tier, size in bytes, and whether DDR
  // holds a copy.
  irdl.operation @buffer {
    %id = irdl.base "#builtin.integer"
    %pos = irdl.base "#builtin.integer"
    %tier = irdl.base "#builtin.string"
    %size = irdl.base "#builtin.integer"
    %backed = irdl.base "#builtin.integer"
    %buffer_type = irdl.base @lattice::@buf
    irdl.attributes {
      "id" = %id,
      "pos" = %pos,
      "tier" = %tier,
      "size" = %size,
      "backed" = %backed
    }
    irdl.results(buffer: %buffer_type)
  }

  // Start of a buffer's lifetime; `offset` (optional) is bound by planning. This op and the
  // four below are the scheduled ops: `id` is what `order` lists.
  irdl.operation @alloc {
    %id = irdl.base "#builtin.integer"
    %dep_kinds = irdl.base "#builtin.array"
    %buffer_type = irdl.base @lattice::@buf
    %deps_type = irdl.base @lattice::@token
    %done_type = irdl.base @lattice::@token
    irdl.attributes {"id" = %id, "dep_kinds" = %dep_kinds}
    irdl.operands(buffer: %buffer_type, deps: variadic %deps_type)
    irdl.results(done: %done_type)
  }

  // End of a buffer's lifetime.
  irdl.operation @free {
    %id = irdl.base "#builtin.integer"
    %dep_kinds = irdl.base "#builtin.array"
    %buffer_type = irdl.base @lattice::@buf
    %deps_type = irdl.base @lattice::@token
    %done_type = irdl.base @lattice::@token
    irdl.attributes {"id" = %id, "dep_kinds" = %dep_kinds}
    irdl.operands(buffer: %buffer_type, deps: variadic %deps_type)
    irdl.results(done: %done_type)
  }

  // A command of the input DAG: opcode, pipe, cycles and the buffers it names.
  irdl.operation @command {
    %id = irdl.base "#builtin.integer"
    %opcode = irdl.base "#builtin.string"
    %pipe = irdl.base "#builtin.string"
    %cycles = irdl.base "#builtin.integer"
    %dep_kinds = irdl.base "#builtin.array"
    %buffers_type = irdl.base @lattice::@buf
    %deps_type = irdl.base @lattice::@token
    %done_type = irdl.base @lattice::@token
    irdl.attributes {
      "id" = %id,
      "opcode" = %opcode,
      "pipe" = %pipe,
      "cycles" = %cycles,
      "dep_kinds" = %dep_kinds
    }
    irdl.operands(buffers: variadic %buffers_type, deps: variadic %deps_type)
    irdl.results(done: %done_type)
  }

  // Moves a buffer out of its tier.
  irdl.operation @spill_out {
    %id = irdl.base "#builtin.integer"
    %pipe = irdl.base "#builtin.string"
    %cycles = irdl.base "#builtin.integer"
    %dep_kinds = irdl.base "#builtin.array"
    %buffer_type = irdl.base @lattice::@buf
    %deps_type = irdl.base @lattice::@token
    %done_type = irdl.base @lattice::@token
    irdl.attributes {
      "id" = %id,
      "pipe" = %pipe,
      "cycles" = %cycles,
      "dep_kinds" = %dep_kinds
    }
    irdl.operands(buffer: %buffer_type, deps: variadic %deps_type)
    irdl.results(done: %done_type)
  }

  // Brings a spilled buffer back at `offset`.
  irdl.operation @spill_in {
    %id = irdl.base "#builtin.integer"
    %offset = irdl.base "#builtin.integer"
    %pipe = irdl.base "#builtin.string"
    %cycles = irdl.base "#builtin.integer"
    %dep_kinds = irdl.base "#builtin.array"
    %buffer_type = irdl.base @lattice::@buf
    %deps_type = irdl.base @lattice::@token
    %done_type = irdl.base @lattice::@token
    irdl.attributes {
      "id" = %id,
      "offset" = %offset,
      "pipe" = %pipe,
      "cycles" = %cycles,
      "dep_kinds" = %dep_kinds
    }
    irdl.operands(buffer: %buffer_type, deps: variadic %deps_type)
    irdl.results(done: %done_type)
  }
}
