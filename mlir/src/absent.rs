//! The MLIR bridge in a build without the `mlir` feature: `.mlir` input under the same format
//! name as the bridge's, so `lattice-opt x.mlir` says what to rebuild instead of reading MLIR as
//! LIR, and the sentence every MLIR-only flag of the tools answers with. O(1).

use lattice::diagnostic::Diagnostic;
use lattice::input::InputFormat;
use lattice_lir::Module;

/// What an MLIR-only input or flag says in this build.
pub const WITHOUT_BRIDGE: &str =
    "built without the `mlir` feature; rebuild with `--features mlir` (docs/mlir.md)";

/// `.mlir` input for `lattice-opt`, refused with the feature to build
/// (`lattice_passes::REGISTRY.with_formats(&[MLIR_INPUT])` in either build).
pub const MLIR_INPUT: InputFormat = InputFormat {
    extension: "mlir",
    parse: refuse,
    sniff: crate::sniff::looks_like_mlir,
};

fn refuse(_: &str) -> Result<Module, Vec<Diagnostic>> {
    Err(vec![Diagnostic::error(
        None,
        format!("MLIR input: {WITHOUT_BRIDGE}"),
    )])
}

#[cfg(test)]
mod tests {
    use super::MLIR_INPUT;

    #[test]
    fn mlir_input_without_the_bridge_names_the_feature() {
        let errors = (MLIR_INPUT.parse)("module {}").unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .message
                .contains("built without the `mlir` feature; rebuild with `--features mlir`"),
            "{errors:?}"
        );
    }
}
