//! The C++ declarations of lattice's passes, generated from a lattice [`Registry`] for the MLIR
//! library (`mlir/cxx`): `Passes.td` for `mlir-tblgen -gen-pass-decls` (one `Pass` per lattice
//! pass, named `lattice-<pass>`, its options typed: `bool`, `uint32_t`/`uint64_t`, an enum for a
//! choice, `std::string` for the rest), `PassEnums.h` (those enums) and `Passes.cpp.inc` (each
//! pass's class over the generated base: it hands its options, as text, to the C ABI's run).
//! Real passes and `test-` passes go to separate files, so test passes live in a test library.
//! The real passes' files also hold `lattice-pipeline`, which is no pass of the registry: a whole
//! lattice pipeline as one MLIR pass, run by lattice's own pass manager
//! (`lattice_run_pipeline`), of real passes only; the test passes' files hold its twin
//! `lattice-test-pipeline`, which may name test passes too (`lattice_run_test_pipeline`).
//! `tests/generated.rs` checks the checked-in files are what this writes.
//!
//! Invariants: a pass's C++ names derive from its lattice name alone (`order-search` →
//! `LatticeOrderSearchPass`, `createLatticeOrderSearchPass`), an option's from its name
//! (`keep-logical-peak` → `keepLogicalPeak`); defaults are the registry's canonical defaults, so
//! what MLIR prints parses back. Cost: O(passes × options).

use lattice::options::{OptionInfo, OptionKind};
use lattice::{PassInfo, Registry};
use std::fmt::Write as _;

/// Which passes a file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The real passes (`liblattice-mlir`).
    Passes,
    /// The `test-` passes (the test library).
    Test,
}

impl Group {
    fn holds(self, pass: &PassInfo) -> bool {
        pass.is_test() == (self == Group::Test)
    }
}

/// `order-search` → `OrderSearch`.
fn camel(kebab: &str) -> String {
    kebab
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// `keep-logical-peak` → `keepLogicalPeak`.
fn lower_camel(kebab: &str) -> String {
    let upper = camel(kebab);
    let mut chars = upper.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_ascii_lowercase().to_string() + chars.as_str()
    })
}

/// The C++ class (and tblgen record) of a pass: `LatticeMpasPass`.
pub fn class_name(pass: &str) -> String {
    format!("Lattice{}Pass", camel(pass))
}

/// The enum of a choice option: `LatticeDlrVictim`.
fn enum_name(pass: &str, option: &str) -> String {
    format!("Lattice{}{}", camel(pass), camel(option))
}

/// `text` as a C++ or TableGen string literal.
fn quoted(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The C++ type and default expression of an option.
fn cxx_type(pass: &str, option: &OptionInfo) -> (String, String) {
    match &option.kind {
        OptionKind::Bool => ("bool".into(), option.default.clone()),
        OptionKind::Unsigned { max } if *max <= u64::from(u32::MAX) => {
            ("uint32_t".into(), option.default.clone())
        }
        OptionKind::Unsigned { .. } => ("uint64_t".into(), option.default.clone()),
        OptionKind::Choice(words) => {
            let name = enum_name(pass, &option.name);
            let chosen = words
                .iter()
                .find(|w| **w == option.default)
                .map_or_else(|| camel(words[0]), |w| camel(w));
            (
                format!("::lattice::{name}"),
                format!("::lattice::{name}::{chosen}"),
            )
        }
        OptionKind::Text => ("std::string".into(), quoted(&option.default)),
    }
}

const GENERATED: &str = "Generated from lattice_passes::REGISTRY by lattice-capi (capi/src/cxx.rs); \
                         do not edit: `LATTICE_BLESS=1 cargo test -p lattice-capi --test generated`.";

/// `Passes.td` / `TestPasses.td`.
pub fn passes_td(registry: &Registry, group: Group) -> String {
    let guard = match group {
        Group::Passes => "LATTICE_PASSES_TD",
        Group::Test => "LATTICE_TEST_PASSES_TD",
    };
    let mut out = format!(
        "// {GENERATED}\n// Every lattice pass of the group as an MLIR pass `lattice-<pass>` with \
         typed options.\n\n#ifndef {guard}\n#define {guard}\n\ninclude \"mlir/Pass/PassBase.td\"\n"
    );
    for pass in registry.passes().iter().filter(|p| group.holds(p)) {
        let _ = write!(
            out,
            "\ndef {} : Pass<\"lattice-{}\"> {{\n  let summary = {};\n",
            class_name(pass.name),
            pass.name,
            quoted(pass.summary)
        );
        let options = (pass.options)();
        if !options.is_empty() {
            out.push_str("  let options = [\n");
            for option in &options {
                let (ty, default) = cxx_type(pass.name, option);
                let _ = write!(
                    out,
                    "    Option<\"{}\", \"{}\", \"{ty}\", [{{{default}}}],\n           {}",
                    lower_camel(&option.name),
                    option.name,
                    quoted(&option.summary)
                );
                if let OptionKind::Choice(words) = &option.kind {
                    let name = enum_name(pass.name, &option.name);
                    let values: Vec<String> = words
                        .iter()
                        .map(|w| {
                            format!("clEnumValN(::lattice::{name}::{}, \"{w}\", \"\")", camel(w))
                        })
                        .collect();
                    let _ = write!(
                        out,
                        ",\n           [{{::llvm::cl::values({})}}]",
                        values.join(", ")
                    );
                }
                out.push_str(">,\n");
            }
            out.push_str("  ];\n");
        }
        out.push_str("}\n");
    }
    out.push_str(&pipeline_td(group));
    let _ = write!(out, "\n#endif // {guard}\n");
    out
}

/// The pipeline pass of a group's file: `lattice-pipeline` (real passes) or
/// `lattice-test-pipeline` (test passes too): its record name, argument and summary.
fn pipeline_pass(group: Group) -> (&'static str, &'static str, &'static str) {
    match group {
        Group::Passes => (
            "LatticePipelinePass",
            "lattice-pipeline",
            "A lattice pipeline as one pass, run as lattice-opt runs it: each pass sees the passes \
             after it and what the one before it left",
        ),
        Group::Test => (
            "LatticeTestPipelinePass",
            "lattice-test-pipeline",
            "lattice-pipeline for tests: the lattice pipeline may name test passes",
        ),
    }
}

/// The pipeline pass in `Passes.td` / `TestPasses.td`.
fn pipeline_td(group: Group) -> String {
    let (class, argument, summary) = pipeline_pass(group);
    format!(
        "\ndef {class} : Pass<\"{argument}\"> {{\n  let summary = {};\n  let options = [\n    \
         Option<\"passes\", \"passes\", \"std::string\", [{{\"\"}}],\n           \
         \"The lattice pipeline in lattice-opt's --pass-pipeline syntax: `order-search,dlr,cpe`.\">,\n  \
         ];\n}}\n",
        quoted(summary)
    )
}

/// What a pass class does with what `runPass` or `runPipeline` returns.
const RAN_SWITCH: &str =
    "    case ::lattice::detail::Ran::Failed:\n      signalPassFailure();\n      break;\n    \
     case ::lattice::detail::Ran::Unchanged:\n      markAllAnalysesPreserved();\n      break;\n    \
     case ::lattice::detail::Ran::Changed:\n      \
     markAnalysesPreserved<::lattice::detail::CachedModule>();\n      break;\n    }\n  }\n};\n";

/// The class of the pipeline pass in `Passes.cpp.inc` / `TestPasses.cpp.inc` (its run switch
/// follows).
fn pipeline_class(group: Group) -> String {
    let (class, _, _) = pipeline_pass(group);
    let tests = group == Group::Test;
    format!(
        "\nstruct {class} final : ::lattice::impl::{class}Base<{class}> {{\n  \
         using {class}Base::{class}Base;\n  \
         ::llvm::LogicalResult initializeOptions(\n      ::llvm::StringRef options,\n      \
         ::llvm::function_ref<::llvm::LogicalResult(const ::llvm::Twine &)> errorHandler) override {{\n    \
         if (::mlir::failed({class}Base::initializeOptions(options, errorHandler)))\n      \
         return ::mlir::failure();\n    \
         return ::lattice::detail::checkPipeline(passes.getValue(), errorHandler, /*testPasses=*/{tests});\n  }}\n  \
         void runOnOperation() override {{\n    \
         switch (::lattice::detail::runPipeline(*this, getOperation(), getAnalysisManager(), passes.getValue(),\n                                           \
         /*testPasses=*/{tests})) {{\n"
    )
}

/// `PassEnums.h`: the enums of every choice option, and their spellings.
pub fn enums_h(registry: &Registry) -> String {
    let mut out = format!(
        "// {GENERATED}\n// The enums of lattice's choice options (Passes.td's typed options).\n\n\
         #ifndef LATTICE_PASS_ENUMS_H\n#define LATTICE_PASS_ENUMS_H\n\n#include \"llvm/ADT/StringRef.h\"\n\n\
         namespace lattice {{\n"
    );
    for pass in registry.passes() {
        for option in (pass.options)() {
            let OptionKind::Choice(words) = &option.kind else {
                continue;
            };
            let name = enum_name(pass.name, &option.name);
            let variants: Vec<String> = words.iter().map(|w| camel(w)).collect();
            let _ = write!(
                out,
                "\n/// `{}` of `lattice-{}`: {}\nenum class {name} {{ {} }};\n\
                 /// How lattice spells a `{name}`.\ninline llvm::StringRef optionText({name} value) {{\n  \
                 static const char *const names[] = {{{}}};\n  return names[static_cast<int>(value)];\n}}\n",
                option.name,
                pass.name,
                option.summary,
                variants.join(", "),
                words.iter().map(|w| quoted(w)).collect::<Vec<_>>().join(", ")
            );
        }
    }
    out.push_str("\n} // namespace lattice\n\n#endif // LATTICE_PASS_ENUMS_H\n");
    out
}

/// `Passes.cpp.inc` / `TestPasses.cpp.inc`: each pass's class over its generated base, and the
/// definitions tblgen generates for it (the file includes `<group>.h.inc` itself).
pub fn passes_inc(registry: &Registry, group: Group) -> String {
    let file = match group {
        Group::Passes => "Passes",
        Group::Test => "TestPasses",
    };
    let passes: Vec<&PassInfo> = registry
        .passes()
        .iter()
        .filter(|p| group.holds(p))
        .collect();
    let mut out = format!("// {GENERATED}\n// The classes of the passes of lattice/{file}.td.\n\n");
    for pass in &passes {
        let _ = writeln!(
            out,
            "#define GEN_PASS_DEF_{}",
            class_name(pass.name).to_ascii_uppercase()
        );
    }
    let _ = writeln!(
        out,
        "#define GEN_PASS_DEF_{}",
        pipeline_pass(group).0.to_ascii_uppercase()
    );
    let _ = writeln!(out, "#include \"lattice/{file}.h.inc\"\n\nnamespace {{");
    for pass in &passes {
        let class = class_name(pass.name);
        let values: Vec<String> = (pass.options)()
            .iter()
            .map(|o| {
                let field = lower_camel(&o.name);
                let text = match o.kind {
                    OptionKind::Choice(_) => {
                        format!("::lattice::optionText({field}.getValue()).str()")
                    }
                    _ => format!("::lattice::detail::optionText({field}.getValue())"),
                };
                format!("{{\"{}\", {text}}}", o.name)
            })
            .collect();
        let _ = write!(
            out,
            "\nstruct {class} final : ::lattice::impl::{class}Base<{class}> {{\n  \
             using {class}Base::{class}Base;\n  \
             ::lattice::detail::OptionValues values() const {{ return {{{}}}; }}\n  \
             ::llvm::LogicalResult initializeOptions(\n      ::llvm::StringRef options,\n      \
             ::llvm::function_ref<::llvm::LogicalResult(const ::llvm::Twine &)> errorHandler) override {{\n    \
             if (::mlir::failed({class}Base::initializeOptions(options, errorHandler)))\n      \
             return ::mlir::failure();\n    \
             return ::lattice::detail::checkOptions(\"{}\", values(), errorHandler);\n  }}\n  \
             void runOnOperation() override {{\n    \
             switch (::lattice::detail::runPass(*this, getOperation(), getAnalysisManager(), \"{}\", values())) {{\n{RAN_SWITCH}",
            values.join(", "),
            pass.name,
            pass.name
        );
    }
    out.push_str(&pipeline_class(group));
    out.push_str(RAN_SWITCH);
    out.push_str("\n} // namespace\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_lattice_names() {
        assert_eq!(class_name("order-search"), "LatticeOrderSearchPass");
        assert_eq!(lower_camel("keep-logical-peak"), "keepLogicalPeak");
        assert_eq!(enum_name("dlr", "victim"), "LatticeDlrVictim");
        assert_eq!(quoted("a \"b\" \\"), "\"a \\\"b\\\" \\\\\"");
    }

    #[test]
    fn every_option_gets_its_type_and_canonical_default() {
        let td = passes_td(&lattice_passes::REGISTRY, Group::Passes);
        assert!(
            td.contains("def LatticeDlrPass : Pass<\"lattice-dlr\">"),
            "{td}"
        );
        assert!(td.contains(
            "Option<\"victim\", \"victim\", \"::lattice::LatticeDlrVictim\", [{::lattice::LatticeDlrVictim::Paper}]"
        ));
        assert!(td.contains("Option<\"pull\", \"pull\", \"bool\", [{true}]"));
        assert!(td.contains("Option<\"seed\", \"seed\", \"uint64_t\", [{1}]"));
        assert!(
            !td.contains("lattice-test-"),
            "test passes go to their own file"
        );
        let test = passes_td(&lattice_passes::REGISTRY, Group::Test);
        assert!(test.contains(
            "Option<\"message\", \"message\", \"std::string\", [{\"requested failure\"}]"
        ));
    }

    #[test]
    fn only_the_test_library_pipeline_pass_takes_test_passes() {
        let registry = &lattice_passes::REGISTRY;
        let (td, test_td) = (
            passes_td(registry, Group::Passes),
            passes_td(registry, Group::Test),
        );
        assert!(td.contains("Pass<\"lattice-pipeline\">") && !td.contains("lattice-test-pipeline"));
        assert!(test_td.contains("Pass<\"lattice-test-pipeline\">"));
        let (inc, test_inc) = (
            passes_inc(registry, Group::Passes),
            passes_inc(registry, Group::Test),
        );
        assert!(inc.contains("/*testPasses=*/false") && !inc.contains("/*testPasses=*/true"));
        assert!(
            test_inc.contains("/*testPasses=*/true") && !test_inc.contains("/*testPasses=*/false")
        );
    }
}
