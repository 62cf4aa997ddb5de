//! `.mlir` input in a build without the `mlir` feature: the same format name as the bridge's,
//! so `lattice-opt x.mlir` says what to rebuild instead of reading MLIR as LIR. O(1).

use lattice::diagnostic::Diagnostic;
use lattice::input::InputFormat;
use lattice_lir::Module;

/// `.mlir` input for `lattice-opt`, refused with the feature to build
/// (`lattice_passes::REGISTRY.with_formats(&[MLIR_INPUT])` in either build).
pub const MLIR_INPUT: InputFormat = InputFormat {
    extension: "mlir",
    parse: refuse,
};

fn refuse(_: &str) -> Result<Module, Vec<Diagnostic>> {
    Err(vec![Diagnostic::error(
        None,
        "`.mlir` input needs the MLIR bridge: build the tools with `--features mlir` \
         (docs/mlir.md)"
            .to_string(),
    )])
}

#[cfg(test)]
mod tests {
    use super::MLIR_INPUT;

    #[test]
    fn mlir_input_without_the_bridge_names_the_feature() {
        let errors = (MLIR_INPUT.parse)("module {}").unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains("--features mlir"), "{errors:?}");
    }
}
