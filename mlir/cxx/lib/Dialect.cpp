//===- Dialect.cpp - the lattice dialect: registration, verifiers, syntax ===//
//
// What it does: registers the generated ops and types, implements the verifiers the ODS
// definition asks for (one kind per dependency, a known phase, a well-formed target), the
// custom assembly of the buffer and the five scheduled ops (`%t = lattice.alloc %b id 3 offset 0
// after [%s, %u spill]`), written by hand so that printing touches no attribute dictionary, and
// the two MLIR hooks the op classes replace: printing an op's name, and the verification of
// buffers and scheduled ops (a cheap check that everything holds, else MLIR's checks;
// `operandSegmentSizes` read from the properties).
//
// Invariants: a verified scheduled op has exactly one `dep_kinds` entry per token operand, each
// `precedence`, `spill` or `reuse`; the custom assembly prints what it parses (an op printed and
// parsed again is equal); the dialect's caches (`u64Attr`, `precedenceKinds`) hand out exactly
// the attributes MLIR's uniquer would, only once made. Cost: verifiers O(operands + attributes)
// per op; a cache lookup is one hash probe under a lock.
//
//===----------------------------------------------------------------------===//

#include "lattice/Dialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace lattice;

#include "lattice/LatticeDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "lattice/LatticeTypes.cpp.inc"

#define GET_OP_CLASSES
#include "lattice/LatticeOps.cpp.inc"

/// How `dep_kinds` spells each `DepKind`, in its order.
static constexpr llvm::StringLiteral depKindNames[] = {"precedence", "spill", "reuse"};

void LatticeDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "lattice/LatticeTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "lattice/LatticeOps.cpp.inc"
      >();
  for (llvm::StringLiteral name : depKindNames)
    kindAttrs.push_back(StringAttr::get(getContext(), name));
  u32 = IntegerType::get(getContext(), 32, IntegerType::Unsigned);
  u64 = IntegerType::get(getContext(), 64, IntegerType::Unsigned);
}

IntegerAttr LatticeDialect::u64Attr(uint64_t value) const {
  // DenseMap reserves its two largest keys (empty and tombstone); such values are rare enough to
  // go to MLIR's uniquer.
  if (value >= llvm::DenseMapInfo<uint64_t>::getTombstoneKey())
    return IntegerAttr::get(u64, APInt(64, value));
  std::lock_guard<std::mutex> guard(cacheLock);
  IntegerAttr &attr = u64Attrs[value];
  if (!attr)
    attr = IntegerAttr::get(u64, APInt(64, value));
  return attr;
}

ArrayAttr LatticeDialect::precedenceKinds(size_t count) const {
  std::lock_guard<std::mutex> guard(cacheLock);
  // Only the lengths asked for are made: one op with many dependencies costs one list, not one
  // of every shorter length.
  if (precedenceLists.size() <= count)
    precedenceLists.resize(count + 1);
  ArrayAttr &list = precedenceLists[count];
  if (!list) {
    SmallVector<Attribute> kinds(count, kindAttrs[static_cast<unsigned>(DepKind::Precedence)]);
    list = ArrayAttr::get(getContext(), kinds);
  }
  return list;
}

void lattice::registerLatticeDialect(DialectRegistry &registry) {
  registry.insert<LatticeDialect>();
}

StringRef lattice::depKindName(DepKind kind) {
  return depKindNames[static_cast<unsigned>(kind)];
}

std::optional<DepKind> lattice::depKindNamed(StringRef name) {
  for (unsigned i = 0; i < std::size(depKindNames); ++i)
    if (name == depKindNames[i])
      return static_cast<DepKind>(i);
  return std::nullopt;
}

bool lattice::detail::isUnsignedBelow(Attribute attr, unsigned width) {
  auto integer = llvm::dyn_cast<IntegerAttr>(attr);
  auto type = integer ? llvm::dyn_cast<IntegerType>(integer.getType()) : IntegerType();
  if (!type)
    return false;
  // What the parser and the writer make (`ui32`, `ui64`) holds its range by its type; the
  // verifier asks this of every value of every op after every pass.
  if (type.isUnsigned() && type.getWidth() <= width)
    return true;
  APInt value = integer.getValue();
  if (value.getBitWidth() > 64)
    return false;
  if (!type.isUnsigned() && value.isNegative())
    return false;
  return value.getActiveBits() <= width;
}

namespace {

/// Reads the custom assembly of a lattice op into `result`: `keyword value` pairs, operands,
/// `after [%a, %b spill]` and the op's discardable attributes. Every lattice op's result is a
/// `!lattice.token` but a buffer's.
struct Reader {
  OpAsmParser &p;
  OperationState &result;

  ParseResult keyword(StringRef word) { return p.parseKeyword(word); }
  /// A non-negative integer of at most `width` (32 or 64) bits as a `ui<width>` attribute, read
  /// as an integer rather than through MLIR's attribute parser (on Matmul_Case1 that parser
  /// spent 143 M instructions on these values, this 116 M; 104 M with `ui64` values from the
  /// dialect's cache).
  ParseResult uint(IntegerAttr &attr, unsigned width) {
    SMLoc at = p.getCurrentLocation();
    APInt value;
    if (p.parseInteger(value))
      return failure();
    if (value.isNegative())
      return p.emitError(at, "negative integer literal not valid for unsigned integer type");
    if (value.getActiveBits() > width)
      return p.emitError(at, "integer constant out of range for attribute");
    attr = width == 64 ? dialect().u64Attr(value.getZExtValue())
                       : IntegerAttr::get(dialect().uintType(width), value.zextOrTrunc(width));
    return success();
  }
  ParseResult text(StringAttr &attr) { return p.parseAttribute(attr); }
  ParseResult flag(BoolAttr &attr) { return p.parseAttribute(attr); }

  /// `after [%a, %b spill, %c reuse]`, or nothing when the op has no dependency.
  ParseResult deps(SmallVectorImpl<OpAsmParser::UnresolvedOperand> &deps, ArrayAttr &kinds) {
    ArrayRef<StringAttr> names = dialect().depKindAttrs();
    SmallVector<Attribute, 4> kindList;
    bool allPrecedence = true;
    if (succeeded(p.parseOptionalKeyword("after"))) {
      auto one = [&]() -> ParseResult {
        OpAsmParser::UnresolvedOperand dep;
        if (p.parseOperand(dep))
          return failure();
        deps.push_back(dep);
        DepKind kind = DepKind::Precedence;
        StringRef word;
        SMLoc at = p.getCurrentLocation();
        if (succeeded(p.parseOptionalKeyword(&word))) {
          std::optional<DepKind> named = depKindNamed(word);
          if (!named || *named == DepKind::Precedence)
            return p.emitError(at, "expected `spill` or `reuse` after a dependency, found `")
                   << word << "`";
          kind = *named;
          allPrecedence = false;
        }
        kindList.push_back(names[static_cast<unsigned>(kind)]);
        return success();
      };
      if (p.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, one))
        return failure();
    }
    kinds = allPrecedence ? dialect().precedenceKinds(kindList.size())
                          : ArrayAttr::get(p.getContext(), kindList);
    return success();
  }

  /// The discardable attributes, the result type and the operands, resolved in order.
  ParseResult finish(Type resultType, ArrayRef<std::pair<ArrayRef<OpAsmParser::UnresolvedOperand>, Type>> operands) {
    if (p.parseOptionalAttrDict(result.attributes))
      return failure();
    result.addTypes(resultType);
    for (auto [list, type] : operands)
      if (p.resolveOperands(list, type, result.operands))
        return failure();
    return success();
  }

  const LatticeDialect &dialect() const {
    return *static_cast<LatticeDialect *>(result.name.getDialect());
  }
  Type buf() { return BufType::get(p.getContext()); }
  Type token() { return TokenType::get(p.getContext()); }
};

/// Writes what `Reader` reads. Numbers and strings go to the stream as MLIR spells them rather
/// than through `printAttribute`: they never have an alias, and MLIR's alias pass runs every op's
/// printer once more, where each attribute printed would be visited (on Matmul_Case1 printing
/// took 313 M instructions through attributes, 251 M this way).
struct Writer {
  OpAsmPrinter &p;

  /// ` keyword 42`. The digits are formatted here: raw_ostream's integer path (styles, padding)
  /// cost about 170 instructions a value on Matmul_Case1, which prints some 98,000 of them.
  void uint(StringRef keyword, uint64_t value) {
    raw_ostream &os = p.getStream();
    os << ' ' << keyword << ' ';
    char digits[20];
    char *end = digits + sizeof(digits), *at = end;
    do {
      *--at = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value);
    os.write(at, end - at);
  }
  void text(StringRef keyword, StringRef value) {
    p << ' ' << keyword << ' ';
    quoted(value);
  }
  /// `value` as a string literal, escaped as MLIR's printer escapes a `StringAttr`.
  void quoted(StringRef value) {
    raw_ostream &os = p.getStream();
    os << '"';
    llvm::printEscapedString(value, os);
    os << '"';
  }
  void deps(OperandRange deps, ArrayAttr kinds) {
    if (deps.empty())
      return;
    p << " after [";
    for (auto [i, dep] : llvm::enumerate(deps)) {
      if (i)
        p << ", ";
      p.printOperand(dep);
      auto name = i < kinds.size() ? llvm::dyn_cast<StringAttr>(kinds[i]) : StringAttr();
      if (name && name.getValue() != depKindName(DepKind::Precedence))
        p << ' ' << name.getValue();
    }
    p << ']';
  }
  /// The op's discardable attributes only: the dictionary the op holds apart from its properties.
  void finish(Operation *op) { p.printOptionalAttrDict(op->getRawDictionaryAttrs().getValue()); }

  /// Whether `p` is MLIR's alias pass rather than a printer. Before printing, MLIR runs every
  /// op's printer once more through a printer that only collects the attributes and types worth
  /// an alias, and which names every value by a bare `%`. Of what a lattice op prints only its
  /// discardable attributes can have an alias (numbers, strings and values cannot), so there the
  /// op shows those alone (on Matmul_Case1 the printers' second run took 100 M instructions).
  /// A printer names a value `%0`, `%name` or `<<UNKNOWN SSA VALUE>>`, never less: any printer
  /// that does prints the op in full.
  bool collectingAliases(Operation *op) {
    SmallString<16> name;
    llvm::raw_svector_ostream os(name);
    p.printOperand(op->getResult(0), os);
    return name.size() <= 1;
  }
};

} // namespace

ParseResult BufferOp::parse(OpAsmParser &parser, OperationState &result) {
  Reader r{parser, result};
  Properties &props = result.getOrAddProperties<Properties>();
  if (r.keyword("id") || r.uint(props.id, 32) || r.keyword("pos") || r.uint(props.pos, 32) ||
      r.keyword("in") || r.text(props.tier) || r.keyword("size") || r.uint(props.size, 64) ||
      r.keyword("backed") || r.flag(props.backed))
    return failure();
  return r.finish(r.buf(), {});
}

void BufferOp::print(OpAsmPrinter &p) {
  Writer w{p};
  if (w.collectingAliases(*this))
    return w.finish(*this);
  w.uint("id", getId());
  w.uint("pos", getPos());
  w.text("in", getTier());
  w.uint("size", getSize());
  p << " backed " << (getBacked() ? "true" : "false");
  w.finish(*this);
}

ParseResult AllocOp::parse(OpAsmParser &parser, OperationState &result) {
  Reader r{parser, result};
  Properties &props = result.getOrAddProperties<Properties>();
  OpAsmParser::UnresolvedOperand buffer;
  SmallVector<OpAsmParser::UnresolvedOperand, 4> deps;
  if (parser.parseOperand(buffer) || r.keyword("id") || r.uint(props.id, 32))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("offset")) && r.uint(props.offset, 64))
    return failure();
  if (r.deps(deps, props.dep_kinds))
    return failure();
  return r.finish(r.token(), {{buffer, r.buf()}, {deps, r.token()}});
}

void AllocOp::print(OpAsmPrinter &p) {
  Writer w{p};
  if (w.collectingAliases(*this))
    return w.finish(*this);
  p << ' ' << getBuffer();
  w.uint("id", getId());
  if (std::optional<uint64_t> offset = getOffset())
    w.uint("offset", *offset);
  w.deps(getDeps(), getDepKindsAttr());
  w.finish(*this);
}

ParseResult FreeOp::parse(OpAsmParser &parser, OperationState &result) {
  Reader r{parser, result};
  Properties &props = result.getOrAddProperties<Properties>();
  OpAsmParser::UnresolvedOperand buffer;
  SmallVector<OpAsmParser::UnresolvedOperand, 4> deps;
  if (parser.parseOperand(buffer) || r.keyword("id") || r.uint(props.id, 32) ||
      r.deps(deps, props.dep_kinds))
    return failure();
  return r.finish(r.token(), {{buffer, r.buf()}, {deps, r.token()}});
}

void FreeOp::print(OpAsmPrinter &p) {
  Writer w{p};
  if (w.collectingAliases(*this))
    return w.finish(*this);
  p << ' ' << getBuffer();
  w.uint("id", getId());
  w.deps(getDeps(), getDepKindsAttr());
  w.finish(*this);
}

ParseResult CommandOp::parse(OpAsmParser &parser, OperationState &result) {
  Reader r{parser, result};
  Properties &props = result.getOrAddProperties<Properties>();
  SmallVector<OpAsmParser::UnresolvedOperand, 4> buffers, deps;
  if (r.text(props.opcode) ||
      parser.parseOperandList(buffers, OpAsmParser::Delimiter::Paren) || r.keyword("id") ||
      r.uint(props.id, 32) || r.keyword("on") || r.text(props.pipe) || r.keyword("cycles") ||
      r.uint(props.cycles, 64) || r.deps(deps, props.dep_kinds))
    return failure();
  props.operandSegmentSizes = {static_cast<int32_t>(buffers.size()),
                               static_cast<int32_t>(deps.size())};
  return r.finish(r.token(), {{buffers, r.buf()}, {deps, r.token()}});
}

void CommandOp::print(OpAsmPrinter &p) {
  Writer w{p};
  if (w.collectingAliases(*this))
    return w.finish(*this);
  p << ' ';
  w.quoted(getOpcode());
  p << '(' << getBuffers() << ')';
  w.uint("id", getId());
  w.text("on", getPipe());
  w.uint("cycles", getCycles());
  w.deps(getDeps(), getDepKindsAttr());
  w.finish(*this);
}

ParseResult SpillOutOp::parse(OpAsmParser &parser, OperationState &result) {
  Reader r{parser, result};
  Properties &props = result.getOrAddProperties<Properties>();
  OpAsmParser::UnresolvedOperand buffer;
  SmallVector<OpAsmParser::UnresolvedOperand, 4> deps;
  if (parser.parseOperand(buffer) || r.keyword("id") || r.uint(props.id, 32) ||
      r.keyword("on") || r.text(props.pipe) || r.keyword("cycles") || r.uint(props.cycles, 64) ||
      r.deps(deps, props.dep_kinds))
    return failure();
  return r.finish(r.token(), {{buffer, r.buf()}, {deps, r.token()}});
}

void SpillOutOp::print(OpAsmPrinter &p) {
  Writer w{p};
  if (w.collectingAliases(*this))
    return w.finish(*this);
  p << ' ' << getBuffer();
  w.uint("id", getId());
  w.text("on", getPipe());
  w.uint("cycles", getCycles());
  w.deps(getDeps(), getDepKindsAttr());
  w.finish(*this);
}

ParseResult SpillInOp::parse(OpAsmParser &parser, OperationState &result) {
  Reader r{parser, result};
  Properties &props = result.getOrAddProperties<Properties>();
  OpAsmParser::UnresolvedOperand buffer;
  SmallVector<OpAsmParser::UnresolvedOperand, 4> deps;
  if (parser.parseOperand(buffer) || r.keyword("id") || r.uint(props.id, 32) ||
      r.keyword("offset") || r.uint(props.offset, 64) || r.keyword("on") ||
      r.text(props.pipe) || r.keyword("cycles") || r.uint(props.cycles, 64) ||
      r.deps(deps, props.dep_kinds))
    return failure();
  return r.finish(r.token(), {{buffer, r.buf()}, {deps, r.token()}});
}

void SpillInOp::print(OpAsmPrinter &p) {
  Writer w{p};
  if (w.collectingAliases(*this))
    return w.finish(*this);
  p << ' ' << getBuffer();
  w.uint("id", getId());
  w.uint("offset", getOffset());
  w.text("on", getPipe());
  w.uint("cycles", getCycles());
  w.deps(getDeps(), getDepKindsAttr());
  w.finish(*this);
}

void lattice::detail::printOpName(Operation *op, OpAsmPrinter &p, StringRef defaultDialect) {
  StringRef name = op->getName().getStringRef();
  size_t prefix = defaultDialect.size();
  if (name.size() > prefix && name.starts_with(defaultDialect) && name[prefix] == '.' &&
      name.count('.') == 1)
    name = name.drop_front(prefix + 1);
  p.getStream() << name;
}

namespace {

/// What `OpTrait::impl::verifyOperandSizeAttr` checks, with its messages, on the sizes
/// `lattice.command` keeps in its properties (its `getAttr` would make a `DenseI32ArrayAttr` of
/// them, through MLIR's uniquer, for every command at every verification).
LogicalResult verifySegmentSizes(CommandOp op) {
  ArrayRef<int32_t> sizes = op.getProperties().operandSegmentSizes;
  StringRef name = CommandOp::getOperandSegmentSizeAttr();
  if (llvm::any_of(sizes, [](int32_t size) { return size < 0; }))
    return op->emitOpError("'") << name << "' attribute cannot have negative elements";
  size_t total = 0;
  for (int32_t size : sizes)
    total += size;
  if (total != op->getNumOperands())
    return op->emitOpError() << "operand count (" << op->getNumOperands()
                             << ") does not match with the total size (" << total
                             << ") specified in attribute '" << name << "'";
  return success();
}

/// One trait of `OpT`, verified as MLIR verifies it (`lattice.command`'s segment sizes on its
/// properties).
template <typename OpT, typename Trait> LogicalResult verifyOneTrait(Operation *op) {
  if constexpr (std::is_same_v<Trait, OpTrait::AttrSizedOperandSegments<OpT>>)
    return verifySegmentSizes(llvm::cast<OpT>(op));
  else
    return op_definition_impl::verifyTrait<Trait>(op);
}

/// Every trait of `OpT` (deduced from its base class, so a trait added in ODS is verified too),
/// in order, stopping at the first failure as `Op::verifyInvariants` does.
template <typename OpT, template <typename> class... Traits>
LogicalResult verifyTraits(Operation *op, mlir::Op<OpT, Traits...> *) {
  return success((succeeded(verifyOneTrait<OpT, Traits<OpT>>(op)) && ...));
}

/// Whether `attr` is set and of `type` (the dialect's `ui32` or `ui64`, which hold their range).
bool ofType(IntegerAttr attr, IntegerType type) { return attr && attr.getType() == type; }

/// Whether operands `[begin, end)` of `op` all have type `T`.
template <typename T> bool operandsOf(Operation *op, unsigned begin, unsigned end) {
  for (unsigned k = begin; k < end; ++k)
    if (!llvm::isa<T>(op->getOperand(k).getType()))
      return false;
  return true;
}

/// Whether `kinds` has one known kind (the dialect's uniqued names) for each of `deps`.
bool knownKinds(ArrayAttr kinds, unsigned deps, ArrayRef<StringAttr> known) {
  if (kinds.size() != deps)
    return false;
  for (Attribute kind : kinds)
    if (!llvm::is_contained(known, kind))
      return false;
  return true;
}

/// Whether the op's shape holds: no region or successor, one result of type `T`.
template <typename T> bool shaped(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumSuccessors() == 0 && op->getNumResults() == 1 &&
         llvm::isa<T>(op->getResult(0).getType());
}

/// Whether every check MLIR's verification makes of `op` passes (its traits: regions,
/// successors, results, operand counts and segments; ODS's checks of its values and operand
/// types; its verifier), decided with a few loads and comparisons: what MLIR's generic path
/// spends on each op at each verification, a function call and a diagnostic callback per value,
/// is most of the verifier's time on lattice modules. It may say no where MLIR's checks pass (a
/// value of another integer type in range); then those checks decide.
template <typename OpT> bool holds(OpT op, const LatticeDialect &d) {
  Operation *o = op.getOperation();
  const auto &p = op.getProperties();
  IntegerType u32 = d.uintType(32), u64 = d.uintType(64);
  unsigned n = o->getNumOperands();
  if constexpr (std::is_same_v<OpT, BufferOp>) {
    return shaped<BufType>(o) && n == 0 && ofType(p.id, u32) && ofType(p.pos, u32) && p.tier &&
           ofType(p.size, u64) && p.backed;
  } else {
    if (!shaped<TokenType>(o) || !ofType(p.id, u32) || !p.dep_kinds)
      return false;
    unsigned buffers = 1;
    if constexpr (std::is_same_v<OpT, CommandOp>) {
      ArrayRef<int32_t> sizes = p.operandSegmentSizes;
      if (sizes[0] < 0 || sizes[1] < 0 ||
          static_cast<uint64_t>(sizes[0]) + static_cast<uint64_t>(sizes[1]) != n ||
          !p.opcode || !p.pipe || !ofType(p.cycles, u64))
        return false;
      buffers = sizes[0];
    } else {
      if (n < 1)
        return false;
      if constexpr (std::is_same_v<OpT, AllocOp>) {
        if (p.offset && p.offset.getType() != u64)
          return false;
      } else if constexpr (std::is_same_v<OpT, SpillOutOp>) {
        if (!p.pipe || !ofType(p.cycles, u64))
          return false;
      } else if constexpr (std::is_same_v<OpT, SpillInOp>) {
        if (!p.pipe || !ofType(p.cycles, u64) || !ofType(p.offset, u64))
          return false;
      }
    }
    return operandsOf<BufType>(o, 0, buffers) && operandsOf<TokenType>(o, buffers, n) &&
           knownKinds(p.dep_kinds, n - buffers, d.depKindAttrs());
  }
}

} // namespace

template <typename OpT> LogicalResult lattice::detail::verifyOp(Operation *op) {
  auto typed = llvm::cast<OpT>(op);
  if (holds(typed, *static_cast<const LatticeDialect *>(op->getDialect())))
    return success();
  if (failed(verifyTraits(op, static_cast<OpT *>(nullptr))))
    return failure();
  if constexpr (std::is_same_v<OpT, BufferOp>)
    return success(); // no verifier of its own
  else
    return typed.verify();
}

template LogicalResult lattice::detail::verifyOp<BufferOp>(Operation *);
template LogicalResult lattice::detail::verifyOp<AllocOp>(Operation *);
template LogicalResult lattice::detail::verifyOp<FreeOp>(Operation *);
template LogicalResult lattice::detail::verifyOp<CommandOp>(Operation *);
template LogicalResult lattice::detail::verifyOp<SpillOutOp>(Operation *);
template LogicalResult lattice::detail::verifyOp<SpillInOp>(Operation *);

/// One `dep_kinds` entry per token operand, each a known kind (the dialect's uniqued names, so
/// each check is a pointer comparison).
static LogicalResult verifyDepKinds(Operation *op, ArrayAttr kinds, size_t deps) {
  if (kinds.size() != deps)
    return op->emitOpError() << "has " << deps << " dependencies but " << kinds.size()
                             << " `dep_kinds`";
  ArrayRef<StringAttr> known = static_cast<LatticeDialect *>(op->getDialect())->depKindAttrs();
  for (Attribute kind : kinds)
    if (!llvm::is_contained(known, kind))
      return op->emitOpError() << "has the dependency kind " << kind
                               << "; kinds are \"precedence\", \"spill\" and \"reuse\"";
  return success();
}

LogicalResult AllocOp::verify() { return verifyDepKinds(*this, getDepKinds(), getDeps().size()); }
LogicalResult FreeOp::verify() { return verifyDepKinds(*this, getDepKinds(), getDeps().size()); }
LogicalResult CommandOp::verify() {
  return verifyDepKinds(*this, getDepKinds(), getDeps().size());
}
LogicalResult SpillOutOp::verify() {
  return verifyDepKinds(*this, getDepKinds(), getDeps().size());
}
LogicalResult SpillInOp::verify() {
  return verifyDepKinds(*this, getDepKinds(), getDeps().size());
}

LogicalResult PhaseOp::verify() {
  static constexpr llvm::StringLiteral phases[] = {"parsed", "scheduled", "planned", "refined"};
  if (!llvm::is_contained(phases, getPhase()))
    return emitOpError() << "has the unknown phase \"" << getPhase()
                         << "\"; phases are parsed, scheduled, planned and refined";
  return success();
}

LogicalResult TargetOp::verify() {
  for (Attribute tier : getTiers()) {
    auto dict = llvm::dyn_cast<DictionaryAttr>(tier);
    bool ok = dict && dict.size() == 3 && llvm::isa_and_present<StringAttr>(dict.get("name")) &&
              lattice::detail::isUnsignedBelow(dict.get("capacity"), 64) &&
              llvm::isa_and_present<BoolAttr>(dict.get("staging"));
    if (!ok)
      return emitOpError() << "has the tier " << tier
                           << "; a tier is {name = \"…\", capacity = N, staging = true|false}";
  }
  return success();
}
