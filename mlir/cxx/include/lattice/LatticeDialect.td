//===- LatticeDialect.td - the lattice dialect, its types and properties --===//
//
// What it does: declares the `lattice` dialect for mlir-tblgen: its two types (`!lattice.buf`,
// `!lattice.token`) and the integer attributes its ops keep their LIR facts in. The ops are in
// LatticeOps.td.
//
// Why attributes kept as properties: an op's values live in the op's own allocation rather than
// in an attribute dictionary uniqued per op, so a pass that changes an offset or adds a
// dependency re-uniques one small attribute, not the op's whole dictionary (docs/mlir-cxx.md).
// They stay attributes, of exactly the kinds the IRDL definition (mlir/src/lattice.irdl.mlir)
// and the Rust exporter use — ids `ui32`; sizes, cycles and offsets `ui64`; flags `i1`; names
// strings; dependency kinds an array of strings — so generic-form text written for the IRDL
// dialect (attributes in `{…}`) parses into these ops, and the generic form they print
// (`<{…}>`) holds the same values. (Native properties, `I64Prop` and the like, were tried: MLIR
// 22 does not move a generic `{id = 3 : ui32}` into them, so IRDL-form text would not load.)
//
//===----------------------------------------------------------------------===//

#ifndef LATTICE_DIALECT_TD
#define LATTICE_DIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def Lattice_Dialect : Dialect {
  let name = "lattice";
  let cppNamespace = "::lattice";
  let summary = "NPU command DAGs with their memory plan (LATTICE)";
  let description = [{
    One op per LIR concept: `lattice.phase` and `lattice.target` head a lattice module (a
    `builtin.module` holding only lattice ops), `lattice.buffer` declares a buffer, and the
    scheduled ops (`alloc`, `free`, `command`, `spill_out`, `spill_in`) each yield a token that
    later ops depend on. σ, the schedule, is the `order` of `lattice.phase`.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The dependency kinds' names as attributes, by `DepKind` (made once: every dependency
    /// parsed names one).
    ::llvm::ArrayRef<::mlir::StringAttr> depKindAttrs() const { return kindAttrs; }
    /// `ui32` or `ui64` (made once: the parser gives every id, size and cycle count one).
    ::mlir::IntegerType uintType(unsigned width) const { return width == 32 ? u32 : u64; }
    /// `value` as a `ui64` attribute. Sizes, cycle counts and offsets repeat (a module has few
    /// distinct ones), so the dialect keeps the ones it made and hands them out after one hash
    /// lookup, where MLIR's uniquer would hash the integer and take the context's locks again
    /// (on Matmul_Case1 about 600 instructions a value). Any thread may call it.
    ::mlir::IntegerAttr u64Attr(uint64_t value) const;
    /// The `dep_kinds` of `count` dependencies that are all `precedence` (most ops' list), kept
    /// per length asked for as `u64Attr` keeps its values (one op with many dependencies makes
    /// one list, not one of every shorter length).
    ::mlir::ArrayAttr precedenceKinds(size_t count) const;

  private:
    ::llvm::SmallVector<::mlir::StringAttr, 3> kindAttrs;
    ::mlir::IntegerType u32, u64;
    /// Guards the two caches below (filled on demand, read by the parser and the writer).
    mutable std::mutex cacheLock;
    mutable ::llvm::DenseMap<uint64_t, ::mlir::IntegerAttr> u64Attrs;
    mutable ::llvm::SmallVector<::mlir::ArrayAttr> precedenceLists;
  }];
}

class Lattice_Type<string name, string typeMnemonic> : TypeDef<Lattice_Dialect, name> {
  let mnemonic = typeMnemonic;
  // Buildable, so the custom assembly never spells it.
  let builderCall = "$_builder.getType<::lattice::" # name # "Type>()";
}

def Lattice_BufType : Lattice_Type<"Buf", "buf"> {
  let summary = "a buffer declared by `lattice.buffer`";
}

def Lattice_TokenType : Lattice_Type<"Token", "token"> {
  let summary = "completion of a scheduled op; later ops name it as a dependency";
}

// A non-negative integer below 2^width, as the IRDL definition's `#builtin.integer` holds it: the
// Rust exporter writes `N : ui32` (ids) or `N : ui64` (sizes, cycles, offsets), and any integer
// attribute of at most 64 bits whose value is non-negative and fits is accepted, as the Rust
// importer accepts it. The accessor returns the value; the custom assembly writes it bare.
class Lattice_UIntAttr<UI valueType, string cppType, int width>
    : TypedAttrBase<valueType, "IntegerAttr",
                    CPred<"::lattice::detail::isUnsignedBelow($_self, " # width # ")">,
                    "non-negative integer below 2^" # width> {
  let returnType = cppType;
  let convertFromStorage = "$_self.getValue().getZExtValue()";
}

def Lattice_IdAttr : Lattice_UIntAttr<UI32, "uint32_t", 32>;
def Lattice_U64Attr : Lattice_UIntAttr<UI64, "uint64_t", 64>;

#endif // LATTICE_DIALECT_TD
