//! `lattice-opt`: reads LIR (or a contest JSON graph), checks it and prints it as LIR.
//!
//! Exit codes: 0 success, 1 invalid input or IR (diagnostics on stderr), 2 bad usage.

use clap::Parser;
use lattice::driver::{run, OptConfig, Outcome};
use lattice_lir::contest::ImportOptions;
use std::path::PathBuf;
use std::process::ExitCode;

/// The lattice optimizer driver.
#[derive(Parser, Debug)]
#[command(name = "lattice-opt", version, about)]
struct Cli {
    /// Input: a `.lir` module or a contest `.json` graph (`-` reads LIR from stdin).
    #[arg(default_value = "-")]
    input: PathBuf,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', default_value = "-")]
    output: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = OptConfig {
        input: cli.input,
        output: cli.output,
        import: ImportOptions::default(),
    };
    let outcome = run(&config);
    if let Outcome::Failed(message) = &outcome {
        eprint!("{message}");
    }
    ExitCode::from(outcome.exit_code())
}
