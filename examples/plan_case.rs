//! Planning a contest case from Rust: import a `../shared/cases/<case>.json` graph, run the
//! paper's pipeline `mpas,dlr,cpe` over it and print the independent verifier's metrics of the
//! plan (the numbers `lattice-opt --mpas --dlr --cpe --metrics-text` prints).
//! Run with `cargo run --release --example plan_case -- ../shared/cases/Matmul_Case0.json`.

use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_passes::{verify, REGISTRY};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Imports the case in `path`, plans it and writes its metrics as text to `out`. (Public for
/// `tests/examples.rs`, which runs it in-process.)
pub fn run(path: &Path, out: &mut dyn Write) -> Result<(), String> {
    let shown = path.display();
    let json = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let name = path
        .file_stem()
        .map_or_else(|| "case".into(), |s| s.to_string_lossy().into_owned());
    let mut module = import_graph(&json, &name, &ImportOptions::default())
        .map_err(|e| format!("{shown}: {e}"))?;
    let pipeline = parse_pipeline("mpas,dlr,cpe", &REGISTRY)
        .map_err(|e| e.render("pipeline", "mpas,dlr,cpe"))?;
    let mut dumps = Vec::new();
    let mut session = Session::new(&mut dumps);
    let ran = PassManager::new(REGISTRY, pipeline).run(&mut module, &mut session);
    let messages: Vec<&str> = session
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    ran.map_err(|_| format!("{shown}: the pipeline failed: {}", messages.join("; ")))?;
    let metrics = verify::metrics(&module);
    write!(
        out,
        "{name} ({} ops, phase {})\n{}",
        module.ops.len(),
        module.phase,
        metrics.to_text()
    )
    .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        let _ = writeln!(
            std::io::stderr(),
            "usage: plan_case ../shared/cases/<case>.json"
        );
        return ExitCode::from(2);
    };
    match run(Path::new(&path), &mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "plan_case: error: {message}");
            ExitCode::FAILURE
        }
    }
}
