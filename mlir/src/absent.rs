//! The MLIR bridge in a build without the `mlir` feature: the same host IR as the bridge's
//! (`.mlir` and `.mlirbc` files, MLIR on standard input), which refuses everything with the
//! feature to build, so `lattice-opt x.mlir` says what to rebuild instead of reading MLIR as LIR,
//! and the sentence every MLIR-only flag of the tools answers with. O(1).

use lattice::diagnostic::Diagnostic;
use lattice::host::{Host, HostInput, HostRun, Hosted, Parsed};
use lattice_lir::Module;

/// What an MLIR-only input or flag says in this build.
pub const WITHOUT_BRIDGE: &str =
    "built without the `mlir` feature; rebuild with `--features mlir` (docs/mlir.md)";

/// MLIR as `lattice-opt`'s host IR, refused with the feature to build
/// (`lattice_passes::REGISTRY.with_host(&MLIR_HOST)` in either build).
pub const MLIR_HOST: Host = Host {
    name: "MLIR",
    extensions: &["mlir", "mlirbc"],
    missing: Some(WITHOUT_BRIDGE),
    sniff: crate::sniff::looks_like_mlir,
    read,
    write,
    check_pipeline,
    run_pipeline,
};

fn refusal(what: &str) -> Vec<Diagnostic> {
    vec![Diagnostic::error(None, format!("{what}: {WITHOUT_BRIDGE}"))]
}

fn read(_: &[u8]) -> Result<Hosted, Vec<Diagnostic>> {
    Err(refusal("MLIR input"))
}

fn write(_: Option<&[u8]>, _: Option<Parsed>, _: &[Module]) -> Result<String, Vec<Diagnostic>> {
    Err(refusal("MLIR output"))
}

fn check_pipeline(_: &str) -> Result<String, String> {
    Err(format!("pipelines with MLIR passes: {WITHOUT_BRIDGE}"))
}

fn run_pipeline(_: HostInput<'_>, _: &str) -> Result<HostRun, Vec<Diagnostic>> {
    Err(refusal("pipelines with MLIR passes"))
}

#[cfg(test)]
mod tests {
    use super::MLIR_HOST;

    #[test]
    fn mlir_without_the_bridge_names_the_feature() {
        let feature = "built without the `mlir` feature; rebuild with `--features mlir`";
        let errors = (MLIR_HOST.read)(b"module {}").unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains(feature), "{errors:?}");
        let errors = (MLIR_HOST.write)(None, None, &[]).unwrap_err();
        assert!(errors[0].message.starts_with("MLIR output: "), "{errors:?}");
        assert!((MLIR_HOST.check_pipeline)("canonicalize")
            .unwrap_err()
            .contains(feature));
        assert!(MLIR_HOST.missing.is_some_and(|m| m.contains(feature)));
    }
}
