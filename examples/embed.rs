//! Embedding the pass manager in a Rust program: parse a LIR module, run `mpas,dlr,cpe` from
//! the registry of lattice's passes, check the result with the independent verifier and print
//! it. Run with `cargo run --example embed -- examples/matmul_tile.lir`.

use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::{parse_module, print_module};
use lattice_passes::{verify, REGISTRY};
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/matmul_tile.lir".into());
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut module = match parse_module(&text) {
        Ok(module) => module,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The same pipeline text `lattice-opt --pass-pipeline` takes.
    let pipeline = parse_pipeline("mpas,dlr,cpe", &REGISTRY).expect("a valid pipeline");
    let manager = PassManager::new(REGISTRY, pipeline);
    let mut reports = Vec::new();
    let mut session = Session::new(&mut reports);
    let ran = manager.run(&mut module, &mut session);
    for diagnostic in &session.diagnostics {
        eprintln!("{path}: {}", diagnostic.message);
    }
    if ran.is_err() {
        return ExitCode::FAILURE;
    }
    let metrics = verify::metrics(&module);
    eprintln!(
        "valid: {}, makespan {} cycles, traffic {} bytes",
        metrics.valid, metrics.makespan, metrics.extra_traffic
    );
    print!("{}", print_module(&module));
    ExitCode::SUCCESS
}
