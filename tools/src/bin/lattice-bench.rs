//! `lattice-bench`: reproduces the paper's experiments on a directory of contest cases.
//!
//! `orders --cases DIR` prints the order-sensitivity table (every `*.json` case in DIR, by file
//! name, × every order: logical peak, change against `stable`, per-tier peaks, L0 max live) as
//! Markdown; `baselines --cases DIR` the baselines' table (every case × Base, HMCOS, MAGIS,
//! COSMA and the EDA placeholder: logical peak, against Base, spills, traffic, makespan, from the
//! independent replay). The work is the library's (`lattice_passes::order::order_table`,
//! `lattice_passes::baselines::baseline_table`); this file parses arguments, reads the cases and
//! renders errors. Deterministic. Exit codes: 0 success, 1 an unreadable or invalid case or a case
//! a baseline cannot order or plan, 2 bad usage.

use clap::{Parser, Subcommand};
use lattice::io::read_text;
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::diag::render_error;
use lattice_lir::Module;
use lattice_passes::baselines::baseline_table;
use lattice_passes::order::order_table;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const TOOL: &str = "lattice-bench";

/// Runs the paper's experiments on contest cases and prints Markdown tables.
#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version,
    after_help = "Examples:\n  lattice-bench orders --cases ../shared/cases\n  lattice-bench baselines --cases ../shared/cases"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Order sensitivity: logical and per-tier peaks of every order on every case.
    Orders {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
    },
    /// Baselines: logical peak, spills, traffic and makespan of every baseline on every case.
    Baselines {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Orders { cases } => read_cases(&cases)
            .and_then(|m| order_table(&m).map_err(|e| format!("{TOOL}: error: {e}\n"))),
        Command::Baselines { cases } => read_cases(&cases)
            .and_then(|m| baseline_table(&m).map_err(|e| format!("{TOOL}: error: {e}\n"))),
    };
    match result {
        Ok(table) => {
            print!("{table}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprint!("{message}");
            ExitCode::from(1)
        }
    }
}

/// Every `*.json` case in `dir`, by file name, or the first error rendered for a human.
fn read_cases(dir: &Path) -> Result<Vec<Module>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{TOOL}: error: {}: {e}\n", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!(
            "{TOOL}: error: {}: no *.json case\n",
            dir.display()
        ));
    }
    let mut modules = Vec::with_capacity(paths.len());
    for path in &paths {
        let name = path.display().to_string();
        let text = read_text(path).map_err(|e| format!("{TOOL}: error: {e}\n"))?;
        let case = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let module = import_graph(&text, &case.unwrap_or_default(), &ImportOptions::default())
            .map_err(|e| render_error(&name, Some(&text), &e))?;
        modules.push(module);
    }
    Ok(modules)
}
