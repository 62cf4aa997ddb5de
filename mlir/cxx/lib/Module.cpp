//===- Module.cpp - lattice modules between MLIR and lattice's core ------===//
//
// What it does: reads a lattice module's ops into the C ABI's flat arrays (by the generated op
// classes' accessors: values live in the ops' properties) and writes a module from them back in
// place or afresh. See Module.h.
//
// Invariants: reading changes nothing; strings handed to the core point into MLIR's uniqued
// attributes, alive as long as the context. Writing in place touches only what differs: an op
// whose values and operands are as the result says is left alone (so a pass that only reorders
// costs one `order` and the moves), and of an op whose dependencies changed only the operand
// slots that differ are set and added dependencies appended. A handle describes the ops it was
// read from or last wrote, op by op (`ops[i]` is op `i` of the core's module), so `writeBack`
// finds each op of the result at its index — the C ABI numbers the ops a pass adds after those
// it was given — and takes it only when its id is the result's (else it looks the op up by id,
// as `write` does for any module). Cost: O(V + E + B) each way; hash lookups from values to ops
// when reading, from ids to ops when writing into a module the handle does not describe.
//
//===----------------------------------------------------------------------===//

#include "lattice/Module.h"
#include "lattice/Dialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace lattice;

namespace {

LatticeStr str(StringRef text) { return {text.data(), text.size()}; }
StringRef ref(LatticeStr text) { return {text.data, text.len}; }

/// The flat arrays of a module being read, which the description points into.
struct Reading {
  std::vector<LatticeTier> tiers;
  std::vector<LatticeStr> pipes;
  std::vector<LatticeBuffer> buffers;
  std::vector<LatticeOp> ops;
  std::vector<uint32_t> bufferRefs;
  std::vector<uint32_t> depOps;
  std::vector<LatticeDepKind> depKinds;
  LatticeModuleDesc desc{};
};

LatticeDepKind depKind(Attribute kind) {
  auto name = llvm::cast<StringAttr>(kind).getValue();
  return static_cast<LatticeDepKind>(depKindNamed(name).value_or(DepKind::Precedence));
}

/// Appends op `op`'s dependency operands and kinds to `r`.
template <typename OpT> void readDeps(OpT op, Reading &r, const llvm::DenseMap<Operation *, uint32_t> &tokens,
                                      LatticeOp &out) {
  out.deps_begin = r.depOps.size();
  ArrayAttr kinds = op.getDepKinds();
  for (auto [i, dep] : llvm::enumerate(op.getDeps())) {
    auto found = tokens.find(dep.getDefiningOp());
    r.depOps.push_back(found == tokens.end() ? LATTICE_NONE : found->second);
    r.depKinds.push_back(i < kinds.size() ? depKind(kinds[i]) : LATTICE_DEP_PRECEDENCE);
  }
  out.dep_count = r.depOps.size() - out.deps_begin;
}

/// The `id` of a scheduled lattice op, none for any other op: read from the op's properties,
/// without the by-name lookup of `getInherentAttr`.
std::optional<uint32_t> scheduledId(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<uint32_t>>(op)
      .Case<AllocOp, FreeOp, CommandOp, SpillOutOp, SpillInOp>([](auto x) { return x.getId(); })
      .Default([](Operation *) { return std::nullopt; });
}

uint32_t bufferRef(Value value, const llvm::DenseMap<Operation *, uint32_t> &buffers) {
  auto found = buffers.find(value.getDefiningOp());
  return found == buffers.end() ? LATTICE_NONE : found->second;
}

} // namespace

bool lattice::isLatticeModule(Operation *op) {
  auto module = llvm::dyn_cast<ModuleOp>(op);
  if (!module)
    return false;
  for (Operation &child : *module.getBody())
    if (llvm::isa_and_present<LatticeDialect>(child.getDialect()))
      return true;
  return false;
}

llvm::SmallVector<ModuleOp> lattice::latticeModules(Operation *root) {
  llvm::SmallVector<ModuleOp> found;
  std::function<void(Operation *)> visit = [&](Operation *op) {
    if (isLatticeModule(op)) {
      found.push_back(llvm::cast<ModuleOp>(op));
      return;
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &child : block)
          visit(&child);
  };
  visit(root);
  return found;
}

FailureOr<LirModule> LirModule::read(ModuleOp module) {
  LirModule m;
  m.module = module;
  Reading r;
  llvm::DenseMap<Operation *, uint32_t> bufferIndex, tokenIndex;
  bool bad = false;
  auto fail = [&](Operation *op, const Twine &message) {
    op->emitError(message);
    bad = true;
  };
  // First the ops' places, so that operands resolve whatever the body order.
  for (Operation &op : *module.getBody()) {
    if (llvm::isa<PhaseOp>(op)) {
      if (m.phase)
        fail(&op, "the lattice module has a second `lattice.phase` op");
      m.phase = &op;
    } else if (llvm::isa<TargetOp>(op)) {
      if (m.target)
        fail(&op, "the lattice module has a second `lattice.target` op");
      m.target = &op;
    } else if (llvm::isa<BufferOp>(op)) {
      bufferIndex[&op] = m.buffers.size();
      m.buffers.push_back(&op);
    } else if (llvm::isa<AllocOp, FreeOp, CommandOp, SpillOutOp, SpillInOp>(op)) {
      tokenIndex[&op] = m.ops.size();
      m.ops.push_back(&op);
    } else {
      fail(&op, "`" + op.getName().getStringRef() +
                    "` in a lattice module: a lattice module holds only `lattice.*` ops");
    }
  }
  if (!m.phase)
    fail(module, "the lattice module has no `lattice.phase` op");
  if (!m.target)
    fail(module, "the lattice module has no `lattice.target` op");
  if (bad)
    return failure();

  auto phase = llvm::cast<PhaseOp>(m.phase);
  auto target = llvm::cast<TargetOp>(m.target);
  for (Attribute tier : target.getTiers()) {
    auto dict = llvm::cast<DictionaryAttr>(tier);
    r.tiers.push_back({str(llvm::cast<StringAttr>(dict.get("name")).getValue()),
                       llvm::cast<IntegerAttr>(dict.get("capacity")).getValue().getZExtValue(),
                       llvm::cast<BoolAttr>(dict.get("staging")).getValue()});
  }
  for (Attribute pipe : target.getPipes())
    r.pipes.push_back(str(llvm::cast<StringAttr>(pipe).getValue()));
  for (Operation *op : m.buffers) {
    auto b = llvm::cast<BufferOp>(op);
    r.buffers.push_back({b.getId(), b.getPos(), str(b.getTier()), b.getSize(), b.getBacked()});
  }
  r.ops.reserve(m.ops.size());
  r.bufferRefs.reserve(m.ops.size() * 2);
  for (Operation *op : m.ops) {
    LatticeOp out{};
    out.buffers_begin = r.bufferRefs.size();
    // What every kind has (a kind, an id, dependencies), and the one buffer of all but commands.
    auto scheduled = [&](auto x, LatticeOpKind kind) {
      out.kind = kind;
      out.id = x.getId();
      readDeps(x, r, tokenIndex, out);
    };
    auto oneBuffer = [&](auto x) { r.bufferRefs.push_back(bufferRef(x.getBuffer(), bufferIndex)); };
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](AllocOp a) {
          if (std::optional<uint64_t> offset = a.getOffset()) {
            out.offset = *offset;
            out.has_offset = true;
          }
          oneBuffer(a);
          scheduled(a, LATTICE_OP_KIND_ALLOC);
        })
        .Case([&](FreeOp f) {
          oneBuffer(f);
          scheduled(f, LATTICE_OP_KIND_FREE);
        })
        .Case([&](CommandOp c) {
          out.opcode = str(c.getOpcode());
          out.pipe = str(c.getPipe());
          out.cycles = c.getCycles();
          for (Value b : c.getBuffers())
            r.bufferRefs.push_back(bufferRef(b, bufferIndex));
          scheduled(c, LATTICE_OP_KIND_COMMAND);
        })
        .Case([&](SpillOutOp s) {
          out.pipe = str(s.getPipe());
          out.cycles = s.getCycles();
          oneBuffer(s);
          scheduled(s, LATTICE_OP_KIND_SPILL_OUT);
        })
        .Case([&](SpillInOp s) {
          out.pipe = str(s.getPipe());
          out.cycles = s.getCycles();
          out.offset = s.getOffset();
          out.has_offset = true;
          oneBuffer(s);
          scheduled(s, LATTICE_OP_KIND_SPILL_IN);
        });
    out.buffer_count = r.bufferRefs.size() - out.buffers_begin;
    r.ops.push_back(out);
  }
  ArrayRef<int64_t> order = phase.getOrder();
  std::optional<StringRef> name = module.getSymName();
  r.desc.name = str(name.value_or(""));
  r.desc.phase = str(phase.getPhase());
  r.desc.target = {r.tiers.data(),
                   r.tiers.size(),
                   r.pipes.data(),
                   r.pipes.size(),
                   str(target.getSpillOut()),
                   str(target.getSpillIn()),
                   target.getSpillCostBase(),
                   target.getSpillCostPerByte(),
                   target.getL0Exclusive()};
  r.desc.buffers = r.buffers.data();
  r.desc.buffer_count = r.buffers.size();
  r.desc.ops = r.ops.data();
  r.desc.op_count = r.ops.size();
  r.desc.buffer_refs = r.bufferRefs.data();
  r.desc.buffer_ref_count = r.bufferRefs.size();
  r.desc.dep_ops = r.depOps.data();
  r.desc.dep_kinds = r.depKinds.data();
  r.desc.dep_count = r.depOps.size();
  r.desc.order = order.data();
  r.desc.order_count = order.size();

  LatticeReport *report = nullptr;
  m.handle.reset(lattice_module_assemble(&r.desc, &report));
  LogicalResult reported = emitReport(report, &m, module, "");
  lattice_report_free(report);
  if (failed(reported) || !m.handle)
    return failure();
  return m;
}

FailureOr<LirModule> LirModule::parseLir(StringRef text, Location loc) {
  LirModule m;
  LatticeReport *report = nullptr;
  m.handle.reset(lattice_module_parse_lir(str(text), &report));
  size_t count = 0;
  const LatticeDiagnostic *diagnostics = lattice_report_diagnostics(report, &count);
  for (size_t i = 0; i < count; ++i) {
    const LatticeDiagnostic &d = diagnostics[i];
    Location at = loc;
    if (auto file = llvm::dyn_cast<FileLineColLoc>(loc); file && d.line)
      at = FileLineColLoc::get(file.getFilename(), d.line, d.column);
    emitError(at) << ref(d.message);
  }
  lattice_report_free(report);
  if (!m.handle)
    return failure();
  return m;
}

const LatticeModuleDesc &LirModule::view() const { return *lattice_module_view(handle.get()); }

static std::string takeText(LatticeText *text) {
  if (!text)
    return {};
  std::string result = ref(lattice_text_str(text)).str();
  lattice_text_free(text);
  return result;
}

std::string LirModule::printLir() const { return takeText(lattice_module_print_lir(handle.get())); }

std::string LirModule::metricsJson() const {
  return takeText(lattice_module_metrics_json(handle.get()));
}

Operation *LirModule::sourceOp(uint32_t index) const {
  return index < ops.size() ? ops[index] : nullptr;
}

Operation *LirModule::anchorOp(const LatticeDiagnostic &d) const {
  Operation *found = nullptr;
  switch (d.anchor) {
  case LATTICE_ANCHOR_PHASE:
    found = phase;
    break;
  case LATTICE_ANCHOR_TARGET:
    found = target;
    break;
  case LATTICE_ANCHOR_BUFFER:
    found = d.index < buffers.size() ? buffers[d.index] : nullptr;
    break;
  case LATTICE_ANCHOR_OP:
    found = sourceOp(d.index);
    break;
  default:
    break;
  }
  return found ? found : module;
}

LogicalResult lattice::emitReport(const LatticeReport *report, const LirModule *module,
                                  Operation *fallback, StringRef prefix) {
  if (!report)
    return success();
  size_t count = 0;
  const LatticeDiagnostic *diagnostics = lattice_report_diagnostics(report, &count);
  for (size_t i = 0; i < count; ++i) {
    const LatticeDiagnostic &d = diagnostics[i];
    Operation *op = module ? module->anchorOp(d) : nullptr;
    if (!op)
      op = fallback;
    std::string message = (prefix + ref(d.message)).str();
    switch (d.severity) {
    case LATTICE_SEVERITY_ERROR:
      op->emitError(message);
      break;
    case LATTICE_SEVERITY_WARNING:
      op->emitWarning(message);
      break;
    default:
      op->emitRemark(message);
      break;
    }
  }
  return failure(lattice_report_failed(report));
}

namespace {

/// Builds and updates lattice ops from a description (one writer for both `write` and `build`).
class Writer {
public:
  Writer(OpBuilder &builder, const LatticeModuleDesc &desc, Location loc)
      : b(builder), desc(desc), loc(loc), ctx(builder.getContext()),
        u32(IntegerType::get(ctx, 32, IntegerType::Unsigned)),
        u64(IntegerType::get(ctx, 64, IntegerType::Unsigned)), buf(BufType::get(ctx)),
        token(TokenType::get(ctx)), dialect(*ctx->getOrLoadDialect<LatticeDialect>()) {
    for (DepKind kind : {DepKind::Precedence, DepKind::Spill, DepKind::Reuse})
      kindNames.push_back(StringAttr::get(ctx, depKindName(kind)));
  }

  IntegerAttr id(uint32_t v) { return IntegerAttr::get(u32, v); }
  IntegerAttr big(uint64_t v) { return dialect.u64Attr(v); }
  StringAttr text(LatticeStr s) { return StringAttr::get(ctx, ref(s)); }

  /// Op `i`'s buffers and dependency tokens (ops built or found so far, σ order).
  SmallVector<Value> bufferValues(const LatticeOp &op) {
    SmallVector<Value> values;
    for (uint32_t k = 0; k < op.buffer_count; ++k)
      values.push_back(buffers[desc.buffer_refs[op.buffers_begin + k]]);
    return values;
  }
  SmallVector<Value> depValues(const LatticeOp &op) {
    SmallVector<Value> values;
    for (uint32_t k = 0; k < op.dep_count; ++k)
      values.push_back(tokens[desc.dep_ops[op.deps_begin + k]]);
    return values;
  }
  ArrayAttr kinds(const LatticeOp &op) {
    ArrayRef<LatticeDepKind> kinds(desc.dep_kinds + op.deps_begin, op.dep_count);
    if (llvm::all_of(kinds, [](LatticeDepKind k) { return k == LATTICE_DEP_PRECEDENCE; }))
      return dialect.precedenceKinds(op.dep_count);
    SmallVector<Attribute, 4> names;
    for (LatticeDepKind kind : kinds)
      names.push_back(kindNames[kind]);
    return ArrayAttr::get(ctx, names);
  }

  PhaseOp phase() {
    return PhaseOp::create(b, loc, text(desc.phase),
                             b.getDenseI64ArrayAttr(ArrayRef(desc.order, desc.order_count)));
  }

  void header() {
    phase();
    SmallVector<Attribute> tiers, pipes;
    for (size_t i = 0; i < desc.target.tier_count; ++i) {
      const LatticeTier &t = desc.target.tiers[i];
      NamedAttribute fields[] = {b.getNamedAttr("capacity", big(t.capacity)),
                                 b.getNamedAttr("name", text(t.name)),
                                 b.getNamedAttr("staging", b.getBoolAttr(t.staging))};
      tiers.push_back(DictionaryAttr::getWithSorted(ctx, fields));
    }
    for (size_t i = 0; i < desc.target.pipe_count; ++i)
      pipes.push_back(text(desc.target.pipes[i]));
    const LatticeTarget &t = desc.target;
    TargetOp::create(b, loc, b.getArrayAttr(tiers), b.getArrayAttr(pipes), text(t.spill_out),
                       text(t.spill_in), big(t.spill_cost_base), big(t.spill_cost_per_byte),
                       b.getBoolAttr(t.l0_exclusive));
    for (size_t i = 0; i < desc.buffer_count; ++i) {
      const LatticeBuffer &x = desc.buffers[i];
      buffers.push_back(BufferOp::create(b, loc, buf, id(x.id), id(x.pos), text(x.tier),
                                           big(x.size), b.getBoolAttr(x.backed)));
    }
  }

  /// A new op for `op`.
  Operation *create(const LatticeOp &op) {
    SmallVector<Value> bs = bufferValues(op), deps = depValues(op);
    switch (op.kind) {
    case LATTICE_OP_KIND_ALLOC:
      return AllocOp::create(b, loc, token, bs[0], deps, id(op.id),
                               op.has_offset ? big(op.offset) : IntegerAttr(), kinds(op));
    case LATTICE_OP_KIND_FREE:
      return FreeOp::create(b, loc, token, bs[0], deps, id(op.id), kinds(op));
    case LATTICE_OP_KIND_COMMAND:
      return CommandOp::create(b, loc, token, bs, deps, id(op.id), text(op.opcode), text(op.pipe),
                                 big(op.cycles), kinds(op));
    case LATTICE_OP_KIND_SPILL_OUT:
      return SpillOutOp::create(b, loc, token, bs[0], deps, id(op.id), text(op.pipe),
                                  big(op.cycles), kinds(op));
    default:
      return SpillInOp::create(b, loc, token, bs[0], deps, id(op.id), big(op.offset),
                                 text(op.pipe), big(op.cycles), kinds(op));
    }
  }

  /// Whether `have` (an op's `dep_kinds`) lists `op`'s dependency kinds (without making the list).
  bool sameKinds(ArrayAttr have, const LatticeOp &op) {
    if (have.size() != op.dep_count)
      return false;
    for (uint32_t k = 0; k < op.dep_count; ++k)
      if (have[k] != kindNames[desc.dep_kinds[op.deps_begin + k]])
        return false;
    return true;
  }

  /// Whether `existing` (a lattice op of the kind `op` has) holds exactly `op`'s operands.
  bool sameOperands(Operation *existing, const LatticeOp &op) {
    unsigned n = existing->getNumOperands();
    if (n != op.buffer_count + op.dep_count)
      return false;
    for (uint32_t k = 0; k < op.buffer_count; ++k)
      if (existing->getOperand(k) != buffers[desc.buffer_refs[op.buffers_begin + k]])
        return false;
    for (uint32_t k = 0; k < op.dep_count; ++k)
      if (existing->getOperand(op.buffer_count + k) != tokens[desc.dep_ops[op.deps_begin + k]])
        return false;
    return true;
  }

  /// Operand `k` of `op`: its buffers, then its dependency tokens.
  Value operandOf(const LatticeOp &op, uint32_t k) {
    return k < op.buffer_count ? buffers[desc.buffer_refs[op.buffers_begin + k]]
                               : tokens[desc.dep_ops[op.deps_begin + (k - op.buffer_count)]];
  }

  /// Gives `existing` (which holds `buffersHad` buffer operands, then its dependencies) `op`'s
  /// operands, touching only what differs: a slot that holds another value is set, and the
  /// dependencies the result adds after the existing ones are appended (DLR adds one to many
  /// ops). Setting an operand unlinks it from one value's use list and links it into another's,
  /// two places anywhere in the IR, so rewriting every slot of each changed op cost DLR's write
  /// most of its time. Returns how many dependencies were appended; a result with fewer operands
  /// or another number of buffers sets them all.
  unsigned assignOperands(Operation *existing, const LatticeOp &op, unsigned buffersHad) {
    unsigned have = existing->getNumOperands(), want = op.buffer_count + op.dep_count;
    if (buffersHad != op.buffer_count || want < have) {
      SmallVector<Value> values = bufferValues(op);
      values.append(depValues(op));
      existing->setOperands(values);
      return 0;
    }
    for (unsigned k = 0; k < have; ++k) {
      Value value = operandOf(op, k);
      if (existing->getOperand(k) != value)
        existing->setOperand(k, value);
    }
    if (want == have)
      return 0;
    SmallVector<Value> added;
    for (unsigned k = have; k < want; ++k)
      added.push_back(operandOf(op, k));
    existing->insertOperands(have, added);
    return want - have;
  }

  /// Brings `existing` in line with `op`; false when it is another kind of op.
  bool update(Operation *existing, const LatticeOp &op) {
    auto sameDeps = [&](ArrayAttr have) { return sameKinds(have, op) && sameOperands(existing, op); };
    auto setDeps = [&](auto x) {
      if (sameDeps(x.getDepKinds()))
        return;
      x.setDepKindsAttr(kinds(op));
      assignOperands(existing, op, /*buffersHad=*/1);
    };
    return llvm::TypeSwitch<Operation *, bool>(existing)
        .Case([&](AllocOp a) {
          if (op.kind != LATTICE_OP_KIND_ALLOC)
            return false;
          std::optional<uint64_t> offset = a.getOffset();
          if (op.has_offset != offset.has_value() || (offset && *offset != op.offset))
            a.setOffsetAttr(op.has_offset ? big(op.offset) : IntegerAttr());
          setDeps(a);
          return true;
        })
        .Case([&](FreeOp f) {
          if (op.kind != LATTICE_OP_KIND_FREE)
            return false;
          setDeps(f);
          return true;
        })
        .Case([&](CommandOp c) {
          if (op.kind != LATTICE_OP_KIND_COMMAND)
            return false;
          if (c.getOpcode() != ref(op.opcode))
            c.setOpcodeAttr(text(op.opcode));
          if (c.getPipe() != ref(op.pipe))
            c.setPipeAttr(text(op.pipe));
          if (c.getCycles() != op.cycles)
            c.setCyclesAttr(big(op.cycles));
          if (!sameDeps(c.getDepKinds())) {
            c.setDepKindsAttr(kinds(op));
            auto &sizes = c.getProperties().operandSegmentSizes;
            unsigned buffersHad = static_cast<unsigned>(sizes[0]);
            if (buffersHad == op.buffer_count && op.buffer_count + op.dep_count >=
                                                     c->getNumOperands()) {
              // Appended operands go after the last segment, the dependencies.
              sizes[1] += static_cast<int32_t>(assignOperands(c, op, buffersHad));
            } else {
              c.getBuffersMutable().assign(bufferValues(op));
              c.getDepsMutable().assign(depValues(op));
            }
          }
          return true;
        })
        .Case([&](SpillOutOp s) {
          if (op.kind != LATTICE_OP_KIND_SPILL_OUT)
            return false;
          if (s.getPipe() != ref(op.pipe))
            s.setPipeAttr(text(op.pipe));
          if (s.getCycles() != op.cycles)
            s.setCyclesAttr(big(op.cycles));
          setDeps(s);
          return true;
        })
        .Case([&](SpillInOp s) {
          if (op.kind != LATTICE_OP_KIND_SPILL_IN)
            return false;
          if (s.getOffset() != op.offset)
            s.setOffsetAttr(big(op.offset));
          if (s.getPipe() != ref(op.pipe))
            s.setPipeAttr(text(op.pipe));
          if (s.getCycles() != op.cycles)
            s.setCyclesAttr(big(op.cycles));
          setDeps(s);
          return true;
        })
        .Default([](Operation *) { return false; });
  }

  OpBuilder &b;
  const LatticeModuleDesc &desc;
  Location loc;
  MLIRContext *ctx;
  IntegerType u32, u64;
  Type buf, token;
  const LatticeDialect &dialect;
  SmallVector<StringAttr, 3> kindNames;
  /// The buffer values by `pos`, the tokens by σ position.
  std::vector<Value> buffers, tokens;
};

} // namespace

void LirModule::build(OpBuilder &builder, Location loc) const {
  const LatticeModuleDesc &desc = view();
  Writer w(builder, desc, loc);
  w.header();
  w.tokens.reserve(desc.op_count);
  for (size_t i = 0; i < desc.op_count; ++i)
    w.tokens.push_back(w.create(desc.ops[i])->getResult(0));
}

LogicalResult LirModule::write(ModuleOp into) {
  Block *body = into.getBody();
  Before before;
  before.buffersByPos.resize(view().buffer_count);
  before.bufferOps.resize(view().buffer_count);
  for (Operation &op : *body) {
    if (llvm::isa<PhaseOp>(op))
      before.phase = &op;
    else if (auto b = llvm::dyn_cast<BufferOp>(op)) {
      uint32_t pos = b.getPos();
      if (pos >= before.buffersByPos.size())
        return op.emitError("the lattice module's buffers changed under a lattice pass");
      before.buffersByPos[pos] = b.getResult();
      before.bufferOps[pos] = &op;
    } else if (llvm::isa<TargetOp>(op))
      before.target = &op;
    else if (scheduledId(&op))
      before.ops.push_back(&op);
    else
      return op.emitError("the lattice module gained a foreign op under a lattice pass");
  }
  return apply(into, std::move(before), /*byIndex=*/false);
}

LogicalResult LirModule::writeBack() {
  if (!module)
    return failure();
  Before before;
  before.phase = phase;
  before.target = target;
  size_t count = view().buffer_count;
  if (buffers.size() != count)
    return module->emitError("the lattice module's buffers changed under a lattice pass");
  before.buffersByPos.resize(count);
  before.bufferOps.resize(count);
  for (Operation *op : buffers) {
    auto b = llvm::cast<BufferOp>(op);
    uint32_t pos = b.getPos();
    if (pos >= count)
      return op->emitError("the lattice module's buffers changed under a lattice pass");
    before.buffersByPos[pos] = b.getResult();
    before.bufferOps[pos] = op;
  }
  before.ops = ops;
  return apply(llvm::cast<ModuleOp>(module), std::move(before), /*byIndex=*/true);
}

LogicalResult LirModule::apply(ModuleOp into, Before before, bool byIndex) {
  const LatticeModuleDesc &desc = view();
  Block *body = into.getBody();
  auto phaseOp = llvm::dyn_cast_or_null<PhaseOp>(before.phase);
  if (!phaseOp)
    return into.emitError("the lattice module lost its `lattice.phase` op");
  OpBuilder builder(into.getContext());
  builder.setInsertionPointToEnd(body);
  Writer w(builder, desc, into.getLoc());
  w.buffers = std::move(before.buffersByPos);
  w.tokens.reserve(desc.op_count);
  // `existing` holds the scheduled ops before the write; an entry is cleared once the result
  // reuses its op, so what is left at the end is what the pass removed. By index, op `i` of the
  // description is `existing[i]` when it was there before the pass (the C ABI numbers the ops a
  // pass adds after those it was given), checked by its id; otherwise, and for any op whose id
  // does not match, the op is found by id.
  std::vector<Operation *> &existing = before.ops;
  llvm::DenseMap<uint32_t, uint32_t> byId;
  bool mapped = false;
  auto find = [&](const LatticeOp &op) -> Operation ** {
    if (byIndex && op.index < existing.size() && existing[op.index] &&
        scheduledId(existing[op.index]) == op.id)
      return &existing[op.index];
    if (byIndex && op.index >= existing.size())
      return nullptr;
    if (!mapped) {
      byId.reserve(existing.size());
      for (auto [i, candidate] : llvm::enumerate(existing))
        if (candidate)
          byId[*scheduledId(candidate)] = i;
      mapped = true;
    }
    auto found = byId.find(op.id);
    return found != byId.end() && existing[found->second] ? &existing[found->second] : nullptr;
  };
  std::vector<Operation *> sigma;
  sigma.reserve(desc.op_count);
  for (size_t i = 0; i < desc.op_count; ++i) {
    const LatticeOp &op = desc.ops[i];
    Operation **slot = find(op);
    Operation *written = nullptr;
    if (slot && w.update(*slot, op)) {
      written = *slot;
      *slot = nullptr;
    } else {
      written = w.create(op);
    }
    sigma.push_back(written);
    w.tokens.push_back(written->getResult(0));
  }
  if (phaseOp.getPhase() != ref(desc.phase))
    phaseOp.setPhaseAttr(w.text(desc.phase));
  ArrayRef<int64_t> order(desc.order, desc.order_count);
  if (phaseOp.getOrder() != order)
    phaseOp.setOrderAttr(builder.getDenseI64ArrayAttr(order));
  // Ops the result no longer has (their tokens are used only by ops that are gone too).
  SmallVector<Operation *> gone;
  for (Operation *op : existing)
    if (op)
      gone.push_back(op);
  for (Operation *op : gone)
    op->dropAllUses();
  for (Operation *op : gone)
    op->erase();
  // The body in σ order after the header and buffers; nothing moves when it already is.
  Operation *first = sigma.empty() ? nullptr : sigma.front();
  bool inOrder = true;
  if (first) {
    Operation *at = first;
    for (Operation *op : sigma) {
      if (op != at) {
        inOrder = false;
        break;
      }
      at = at->getNextNode();
    }
    inOrder = inOrder && !at;
  }
  if (!inOrder)
    for (Operation *op : sigma)
      op->moveBefore(body, body->end());
  // From now on the handle describes these ops: buffers by `pos`, ops by their index.
  module = into;
  phase = phaseOp;
  target = before.target;
  buffers = std::move(before.bufferOps);
  ops.assign(desc.op_count, nullptr);
  for (size_t i = 0; i < desc.op_count; ++i)
    if (desc.ops[i].index < ops.size())
      ops[desc.ops[i].index] = sigma[i];
  return success();
}
