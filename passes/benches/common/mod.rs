//! What the benches share: reading files of `../shared` (beside the checkout) and importing a
//! shipped case.

use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::Module;
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
