//! `lattice-reduce`: shrinks a LIR module or contest graph while an interestingness test holds,
//! like `mlir-reduce`, `llvm-reduce` and bugpoint, and writes the smallest module found as LIR.
//!
//! The test is one of: `--test=PROGRAM` (with `--test-arg=ARG`s before the candidate's file; the
//! candidate is interesting iff the program exits 0), `--pipeline-fails=PIPELINE` (iff the
//! pipeline fails in-process) or `--verifier-rejects=PIPELINE` (iff it succeeds with an output the
//! independent verifier rejects); `--error-contains=TEXT` narrows the built-in ones to a message.
//! The algorithm and its guarantees are the library's (`lattice_passes::reduce`); this file reads
//! the input the way `lattice-opt` does, builds the oracle, and writes the result atomically.
//! Exit codes: 0 reduced (a summary on stderr), 1 invalid input, an input the test does not hold
//! for, or a test that cannot run; 2 bad usage.

use clap::error::ErrorKind;
use clap::{ArgGroup, CommandFactory, Parser};
use lattice::error_limit::render_all;
use lattice::error_limit::ErrorLimit;
use lattice::input::{parse_source, read_source, InputKind, LoadError};
use lattice::io::{same_destination, write_atomic};
use lattice::parse_pipeline;
use lattice_lir::contest::ImportOptions;
use lattice_lir::{print_module, verify_module, Module};
use lattice_passes::reduce::{reduce, Expect, Oracle};
use lattice_passes::REGISTRY;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const EXAMPLES: &str = "\
Examples:
  lattice-reduce big.lir --pipeline-fails='mpas,dlr,cpe' --error-contains='cannot' -o small.lir
  lattice-reduce case.json --verifier-rejects='mpas,dlr' -o small.lir
  lattice-reduce big.lir --test=./still-crashes.sh -o small.lir

Exit codes: 0 reduced; 1 invalid input, input not interesting, or a test that cannot run; 2 usage error.";

/// Shrinks a LIR module or contest graph while an interestingness test holds.
#[derive(Parser, Debug)]
#[command(name = "lattice-reduce", version, after_help = EXAMPLES)]
#[command(group(ArgGroup::new("oracle").required(true).args(["test", "pipeline_fails", "verifier_rejects"])))]
struct Cli {
    /// The module to reduce: `.lir`, or a contest `.json` graph.
    input: PathBuf,
    /// Where the reduced module goes (`-`: stdout); written only when the reduction succeeds.
    #[arg(short = 'o', long = "output", default_value = "-", value_name = "FILE")]
    output: PathBuf,
    /// Print at most N errors at a place in the input, then a count of the rest (0: no limit).
    #[arg(long, value_name = "N", default_value_t = ErrorLimit::DEFAULT)]
    error_limit: ErrorLimit,
    /// Interesting iff PROGRAM [TEST-ARGS…] CANDIDATE.lir exits 0.
    #[arg(long, value_name = "PROGRAM")]
    test: Option<PathBuf>,
    /// An argument given to the --test program before the candidate (repeatable).
    #[arg(
        long,
        value_name = "ARG",
        requires = "test",
        allow_hyphen_values = true
    )]
    test_arg: Vec<String>,
    /// Interesting iff this pipeline fails on the candidate.
    #[arg(long, value_name = "PIPELINE")]
    pipeline_fails: Option<String>,
    /// Interesting iff this pipeline succeeds and the independent verifier rejects its output.
    #[arg(long, value_name = "PIPELINE")]
    verifier_rejects: Option<String>,
    /// With a built-in test: only when an error or violation message contains TEXT.
    #[arg(long, value_name = "TEXT", conflicts_with = "test")]
    error_contains: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.output != Path::new("-") && same_destination(&cli.output, &cli.input) {
        usage(&format!(
            "the output {} is also the input; refusing to overwrite it",
            cli.output.display()
        ));
    }
    let oracle = match oracle(&cli) {
        Ok(oracle) => oracle,
        Err(text) => {
            lattice::io::report(&text);
            return ExitCode::from(2);
        }
    };
    let module = match load(&cli.input, cli.error_limit) {
        Ok(module) => module,
        Err(text) => return fail(&text),
    };
    let started = Instant::now();
    let reduction = match reduce(&module, &oracle) {
        Ok(reduction) => reduction,
        Err(e) => return fail(&format!("lattice-reduce: error: {e}\n")),
    };
    let text = print_module(&reduction.module);
    match write_atomic(&cli.output, text.as_bytes()) {
        Err(e) if e.is_closed_stdout() => {}
        Err(e) => return fail(&format!("lattice-reduce: error: {e}\n")),
        Ok(()) => {}
    }
    let (from, to) = (&module, &reduction.module);
    lattice::io::report(&format!(
        "lattice-reduce: {} -> {} ops, {} -> {} buffers, {} -> {} edges; {} tests ({} malformed candidates skipped), {} rounds, {:.2} s\n",
        from.ops.len(),
        to.ops.len(),
        from.buffers.len(),
        to.buffers.len(),
        from.dep_count(),
        to.dep_count(),
        reduction.tests,
        reduction.malformed,
        reduction.rounds,
        started.elapsed().as_secs_f64()
    ));
    ExitCode::SUCCESS
}

/// The interestingness test the flags ask for; a pipeline that does not parse is a usage error,
/// returned rendered with a caret under the problem.
fn oracle(cli: &Cli) -> Result<Oracle, String> {
    if let Some(program) = &cli.test {
        return Ok(Oracle::command(program.clone(), cli.test_arg.clone()));
    }
    let (flag, text, expect) = match (&cli.pipeline_fails, &cli.verifier_rejects) {
        (Some(text), _) => ("--pipeline-fails", text, Expect::Fails),
        (None, Some(text)) => ("--verifier-rejects", text, Expect::VerifierRejects),
        // The required `oracle` group leaves no other case; clap has already exited.
        (None, None) => usage("give --test, --pipeline-fails or --verifier-rejects"),
    };
    let pipeline = parse_pipeline(text, &REGISTRY).map_err(|e| e.render(flag, text))?;
    Ok(Oracle::Pipeline {
        pipeline,
        expect,
        contains: cli.error_contains.clone(),
    })
}

/// Reads and verifies the input as `lattice-opt` does; the rendered diagnostics on failure.
fn load(path: &Path, limit: ErrorLimit) -> Result<Module, String> {
    let render = |e: &LoadError, name: &str, text: Option<&str>| {
        render_all(&e.diagnostics(), name, text, limit, "lattice-reduce")
    };
    let source = read_source(path).map_err(|e| render(&e, "lattice-reduce", None))?;
    let kind = InputKind::of_input(path, source.text.as_bytes(), None);
    let text = Some(source.text.as_str());
    // LIR and contest input hold one module each.
    let mut modules = parse_source(source.text.as_bytes(), &kind, &ImportOptions::default())
        .map_err(|e| render(&e, &source.name, text))?
        .modules;
    let module = modules
        .pop()
        .filter(|_| modules.is_empty())
        .ok_or_else(|| format!("{}: error: expected one module\n", source.name))?;
    verify_module(&module)
        .map_err(|errors| render(&LoadError::Verify(errors), &source.name, text))?;
    Ok(module)
}

fn fail(text: &str) -> ExitCode {
    lattice::io::report(text);
    ExitCode::from(1)
}

/// Reports a usage error the way clap does (exit code 2).
fn usage(message: &str) -> ! {
    Cli::command()
        .error(ErrorKind::ArgumentConflict, message)
        .exit()
}
