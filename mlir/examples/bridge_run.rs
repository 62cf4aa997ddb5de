//! Times lattice passes in an MLIR `PassManager` on an MLIR file, the way issue 20 measured the
//! bridge: each run parses the file into a fresh context (not timed), then runs the pipeline
//! (timed), with MLIR's verifier off unless `--verify-each` is given. Prints each run's wall time,
//! then the fastest and the median.
//!
//! `cargo run --release -p lattice-mlir --features mlir --example bridge_run -- FILE.mlir [RUNS]
//! [--verify-each] [--pipeline=TEXT]`; the pipeline defaults to
//! `builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)`. Its one run (`RUNS` = 1) is also what
//! `valgrind --tool=callgrind --toggle-collect=mlirPassManagerRunOnOp
//! --toggle-collect=lattice_mlir::external::apply` counts in docs/mlir.md (`--toggle-collect`
//! counts only the thread that enters the function: the pipeline's, and each pass's own), under
//! `taskset -c 0` so that no other work goes to threads of its own.

use lattice_mlir::{add_pipeline, dialect};
use lattice_passes::REGISTRY;
use melior::ir::Module;
use melior::pass::PassManager;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bridge_run: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut path = None;
    let mut runs = 5usize;
    let mut verify = false;
    let mut pipeline = "builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)".to_owned();
    for arg in std::env::args().skip(1) {
        if arg == "--verify-each" {
            verify = true;
        } else if let Some(text) = arg.strip_prefix("--pipeline=") {
            pipeline = text.to_owned();
        } else if path.is_none() {
            path = Some(arg);
        } else {
            runs = arg
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("RUNS must be a positive integer, not `{arg}`"))?;
        }
    }
    let path =
        path.ok_or("usage: bridge_run FILE.mlir [RUNS] [--verify-each] [--pipeline=TEXT]")?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let mut times = Vec::with_capacity(runs);
    for run in 1..=runs {
        let context = dialect::context().map_err(|e| e.to_string())?;
        let mut module = Module::parse(&context, &text).ok_or(format!("{path}: does not parse"))?;
        let manager = PassManager::new(&context);
        manager.enable_verifier(verify);
        add_pipeline(&manager, &pipeline, REGISTRY).map_err(|e| e.to_string())?;
        let start = Instant::now();
        manager
            .run(&mut module)
            .map_err(|_| format!("{pipeline} failed on {path}"))?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        println!("run {run}: {ms:.1} ms");
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "fastest {:.1} ms, median {:.1} ms",
        times[0],
        times[times.len() / 2]
    );
    Ok(())
}
