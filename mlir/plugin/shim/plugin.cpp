//===- plugin.cpp - lattice passes as registered MLIR passes ---------------===//
//
// What it does: the C++ half of the `mlir-opt` pass plugin. `latticePluginInfo` fills MLIR's
// `PassPluginLibraryInfo` (the Rust half exports it as `mlirGetPassPluginInfo`), and
// `latticePluginRegisterPass` registers one `mlir::Pass` per lattice pass, described by the Rust
// half from lattice's registry: its argument (`lattice-dlr`), summary, and one option per lattice
// option (a bool for lattice's bools, else a string) with the option's canonical default. The pass
// hands option checking and running to Rust (`latticePluginOptions`, `latticePluginRun`), so C++
// knows no lattice pass by name and a pass added to the registry needs nothing here.
//
// Why C++: registering a pass with options (`mlir::registerPass`, `Pass::Option`) and the plugin
// entry point exist in MLIR's C++ API only; the C API's external passes can register no option,
// so MLIR could not print a pass's options back (`--dump-pass-pipeline`, IR-printing headers,
// reproducers).
//
// Invariants: a pass's options always hold canonical lattice values (every option starts at its
// canonical default, and `initializeOptions` stores the canonical spelling of what MLIR's option
// parser read, or reports lattice's error through MLIR's error handler), so MLIR prints `lattice-dlr{l0=double
// prefetch=0 victim=lru}`, which parses back to the same pass. Pass descriptions live as long as
// the process (the registry keeps allocators that point at them; a plugin is never unloaded).
// Nothing here throws (LLVM and this file are built without exceptions) and nothing lets a Rust
// panic through: the Rust functions catch them.
// Cost: registration O(passes × options); a run adds O(options) to the Rust pass.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

/// One option of a lattice pass: its name, one-line summary, canonical default, and whether it is
/// a bool (then MLIR parses it as one, so a bare `pull` means `pull=true`, as in lattice).
struct OptionDesc {
  std::string name;
  std::string summary;
  std::string defaultValue;
  bool isBool;
};

/// One lattice pass: its lattice name (`dlr`), MLIR argument (`lattice-dlr`), summary, options.
struct PassDesc {
  std::string name;
  std::string argument;
  std::string description;
  std::vector<OptionDesc> options;
};

/// Every registered pass; a deque so that registering one more never moves the others, whose
/// addresses the allocators and pass instances hold (and which serve as their `TypeID`s).
std::deque<PassDesc> &descriptions() {
  static std::deque<PassDesc> all;
  return all;
}

llvm::StringRef toStringRef(MlirStringRef text) { return {text.data, text.length}; }

MlirStringRef toMlir(llvm::StringRef text) { return {text.data(), text.size()}; }

} // namespace

extern "C" {
/// Rust: registers every lattice pass through `latticePluginRegisterPass`.
void latticePluginRegisterPasses();
/// Rust: checks `values` (declaration order) as the options of lattice pass `pass`; on success
/// calls `set(user, i, value)` with the canonical value of every option `i` and returns true;
/// else calls `fail(user, message)` once and returns false.
bool latticePluginOptions(MlirStringRef pass, const MlirStringRef *values, size_t count,
                          void (*set)(void *user, size_t index, MlirStringRef value),
                          void (*fail)(void *user, MlirStringRef message), void *user);
/// Rust: runs lattice pass `pass` with these option values (declaration order) on every lattice
/// module of `op`, as `mlirPass` (an `mlir::Pass *`, whose analyses keep the LIR modules between
/// lattice passes); false when it failed (its errors are already MLIR diagnostics).
bool latticePluginRun(MlirStringRef pass, const MlirStringRef *values, size_t count,
                      MlirOperation op, void *mlirPass);
}

namespace {

/// A lattice pass as an MLIR pass: any op, options as strings that lattice validates.
class LatticePass final : public mlir::Pass {
public:
  explicit LatticePass(const PassDesc &desc)
      // The description's address is unique and lives as long as the process: a TypeID per pass,
      // as MLIR's registry expects of passes registered under different arguments.
      : Pass(mlir::TypeID::getFromOpaquePointer(&desc)), desc(desc) {
    for (const OptionDesc &option : desc.options) {
      Held held;
      if (option.isBool)
        held.flag = std::make_unique<Option<bool>>(*this, option.name,
                                                   llvm::cl::desc(option.summary),
                                                   llvm::cl::init(option.defaultValue == "true"));
      else
        held.text = std::make_unique<Option<std::string>>(*this, option.name,
                                                          llvm::cl::desc(option.summary),
                                                          llvm::cl::init(option.defaultValue));
      options.push_back(std::move(held));
    }
  }

  llvm::StringRef getName() const override { return desc.argument; }
  llvm::StringRef getArgument() const override { return desc.argument; }
  llvm::StringRef getDescription() const override { return desc.description; }

  /// MLIR's parser splits the text into options (its quoting: `message={a b}`, `"a b"`), so what
  /// MLIR prints parses back; lattice then checks every value and stores its canonical spelling,
  /// as `lattice-opt` would. Options not written keep their defaults.
  mlir::LogicalResult
  initializeOptions(llvm::StringRef text,
                    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) override {
    if (mlir::failed(Pass::initializeOptions(text, errorHandler)))
      return mlir::failure();
    std::vector<MlirStringRef> values = optionValues();
    if (!latticePluginOptions(toMlir(desc.name), values.data(), values.size(), setOption,
                              failOptions, this))
      // `failOptions` left the message in `failure`.
      return errorHandler(desc.argument + ": " + failure);
    return mlir::success();
  }

  /// Lattice passes find the lattice modules under the op they run on, so any op will do.
  bool canScheduleOn(mlir::RegisteredOperationName) const override { return true; }

  void runOnOperation() override {
    std::vector<MlirStringRef> values = optionValues();
    if (!latticePluginRun(toMlir(desc.name), values.data(), values.size(), wrap(getOperation()),
                          static_cast<mlir::Pass *>(this)))
      signalPassFailure();
  }

  std::unique_ptr<mlir::Pass> clonePass() const override {
    return std::make_unique<LatticePass>(desc);
  }

private:
  /// One option: a bool or a string, exactly one of the two set.
  struct Held {
    std::unique_ptr<Option<std::string>> text;
    std::unique_ptr<Option<bool>> flag;
  };

  /// Every option's value as lattice spells it, in declaration order (references into the
  /// options, or to static text for bools).
  std::vector<MlirStringRef> optionValues() const {
    std::vector<MlirStringRef> values;
    values.reserve(options.size());
    for (const Held &option : options)
      values.push_back(option.flag ? toMlir(option.flag->getValue() ? "true" : "false")
                                   : toMlir(option.text->getValue()));
    return values;
  }

  static void setOption(void *user, size_t index, MlirStringRef value) {
    auto *pass = static_cast<LatticePass *>(user);
    if (index >= pass->options.size())
      return;
    Held &option = pass->options[index];
    if (option.flag)
      *option.flag = toStringRef(value) == "true";
    else
      *option.text = toStringRef(value).str();
  }

  static void failOptions(void *user, MlirStringRef message) {
    static_cast<LatticePass *>(user)->failure = toStringRef(message).str();
  }

  const PassDesc &desc;
  std::vector<Held> options;
  /// The last option error, handed from `failOptions` to `initializeOptions`.
  std::string failure;
};

} // namespace

extern "C" {

/// What `mlirGetPassPluginInfo` returns: MLIR checks the API version when loading the plugin.
mlir::PassPluginLibraryInfo latticePluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "lattice", LLVM_VERSION_STRING, latticePluginRegisterPasses};
}

/// The option of a lattice pass as the Rust half describes it (strings it keeps alive during the
/// call only).
struct LatticeOptionDesc {
  MlirStringRef name;
  MlirStringRef summary;
  MlirStringRef defaultValue;
  bool isBool;
};

/// Registers lattice pass `name` as `argument` with MLIR's pass registry; copies every string.
void latticePluginRegisterPass(MlirStringRef name, MlirStringRef argument,
                               MlirStringRef description, const LatticeOptionDesc *options,
                               size_t count) {
  // A plugin loaded twice registers nothing new (MLIR would abort on a second pass identity
  // under one argument).
  for (const PassDesc &known : descriptions())
    if (known.argument == toStringRef(argument))
      return;
  PassDesc desc{toStringRef(name).str(), toStringRef(argument).str(),
                toStringRef(description).str(), {}};
  for (size_t i = 0; i < count; ++i)
    desc.options.push_back({toStringRef(options[i].name).str(),
                            toStringRef(options[i].summary).str(),
                            toStringRef(options[i].defaultValue).str(), options[i].isBool});
  const PassDesc &kept = descriptions().emplace_back(std::move(desc));
  mlir::registerPass([&kept] { return std::make_unique<LatticePass>(kept); });
}
}
