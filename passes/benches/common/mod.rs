//! What the benches share: reading files of `../shared` (beside the checkout), importing a
//! shipped case, and the generated conv network with fragmented L1.

use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::Module;
use lattice_passes::generate::{generate, GenSpec, Shape};
use std::path::PathBuf;

/// The path (for messages) and text of `../shared/<parts…>`.
pub fn shared(parts: &[&str]) -> (String, String) {
    let mut path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "shared"]
        .iter()
        .collect();
    path.extend(parts);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the bench needs ../shared beside the checkout)",
            path.display()
        )
    });
    (path.display().to_string(), text)
}

/// The shipped case `name` (e.g. `Matmul_Case1`), imported with `options`.
pub fn case(name: &str, options: &ImportOptions) -> Module {
    let (_, json) = shared(&["cases", &format!("{name}.json")]);
    import_graph(&json, name, options).expect("imports")
}

/// The deep residual conv network of 36,000 nodes (`resnet`, seed 1) on a core with a quarter
/// of the contest's L1 (1 KiB): its thousands of 1–64-byte tiles no longer fit, so every order
/// spills, and L1 fragments (MPAS's order: hundreds of eviction rounds that free bytes but no
/// single hole could serve).
#[allow(dead_code)] // Not every bench that includes this module uses it.
pub fn fragmented() -> Module {
    let mut module = generate(&GenSpec {
        shape: Shape::Resnet,
        nodes: 36_000,
        seed: 1,
    });
    let l1 = module
        .target
        .tier_named("L1")
        .expect("the contest core has L1");
    module.target.tiers[l1.index()].capacity /= 4;
    module
}
