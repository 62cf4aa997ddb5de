//! `lattice-translate`: converts between the contest format and LIR, and (built with the feature
//! `mlir`) between LIR and MLIR.
//!
//! `--import-contest CASE.json` prints the graph as a `parsed` module (with `--schedule`,
//! `--memory` and `--spill`, the solution as a `planned` one); `--export-contest IN.lir -o DIR`
//! writes `DIR/<module>_schedule.txt` and, for planned modules, `_memory.txt` and `_spill.txt`.
//! `--lir-to-mlir IN.lir` prints the module as `lattice` dialect MLIR; `--mlir-to-lir IN.mlir`
//! (text, or bytecode such as `IN.mlirbc`) prints the lattice modules of an MLIR file as LIR
//! (several joined by `// -----`, as `lattice-opt --split-input-file` reads them), with a warning
//! naming what the file holds outside them, which LIR cannot.
//! The work is the libraries' (`lattice_lir::contest`, `lattice_mlir::text`); this file parses
//! arguments, reads and writes files and renders errors. Outputs are written atomically and only
//! after every input was accepted, so a failure never creates, truncates or overwrites a file,
//! inputs included; an exported trio is written all or nothing, and the files of an older export
//! it does not replace are removed, so a directory never holds a mixed trio.
//! `--export-trace IN.lir` writes the module's Chrome trace (`lattice_passes::trace`) to `-o`,
//! streamed into its temporary; a module the independent replay finds invalid gets its
//! violations, located, and no trace. `--export-svg A.lir [B.lir …] -o DIR` (feature `svg`)
//! draws `DIR/activity-<module>.svg` (the pipe activity of every module given, on one time axis)
//! and `DIR/residency-<module>.svg` (the first's residency map per tier, spills marked), the
//! pictures `lattice-bench paper` draws for each case (`lattice_figures::PlanFigures`).
//! Exit codes: 0 success, 1 invalid input (diagnostics on stderr), 2 bad usage.

use clap::error::ErrorKind;
use clap::{ArgGroup, CommandFactory, Parser};
use lattice::diagnostic::Diagnostic;
use lattice::error_limit::render_all;
use lattice::error_limit::ErrorLimit;
use lattice::input::parse_capacity;
#[cfg(feature = "mlir")]
use lattice::io::read_bytes;
use lattice::io::{
    read_text, same_destination, stream_all_or_nothing, write_all_or_nothing, write_atomic,
};
#[cfg(feature = "mlir")]
use lattice::split::SPLIT_MARKER;
use lattice_lir::contest::{
    export_trio, import_graph, import_solution, ContestError, ImportOptions, SolutionFile,
};
#[cfg(feature = "mlir")]
use lattice_lir::diag::Severity;
use lattice_lir::diag::{render_error, Located};
use lattice_lir::{parse_module, print_module, verify_module, Module, VerifyError};
use lattice_passes::trace::{traceable, write_trace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const TOOL: &str = "lattice-translate";

/// Translates between contest JSON graphs / solution trios and LIR modules.
#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version,
    after_help = "Examples:\n  lattice-translate --import-contest Conv_Case0.json -o conv0.lir\n  lattice-translate --import-contest FA0.json --schedule FA0_schedule.txt --memory FA0_memory.txt --spill FA0_spill.txt -o fa0.lir\n  lattice-translate --export-contest out.lir -o results/\n  lattice-translate --export-trace out.lir -o out.trace.json\n  lattice-translate --export-svg planned.lir refined.lir -o figures/"
)]
// The MLIR modes exist in every build, so that a build without the bridge can say so.
#[command(group(ArgGroup::new("mode").required(true).args(["import_contest", "export_contest", "export_trace", "export_svg", "lir_to_mlir", "mlir_to_lir"])))]
struct Cli {
    /// Import a contest JSON graph (`-` for stdin) and print it as LIR.
    #[arg(long, value_name = "CASE.json")]
    import_contest: Option<PathBuf>,
    /// Export a LIR module as contest files into the directory given by `-o`.
    #[arg(long, value_name = "IN.lir", requires = "output")]
    export_contest: Option<PathBuf>,
    /// Write the Chrome trace (Perfetto, chrome://tracing, speedscope) of a valid LIR module to `-o` (default: stdout).
    #[arg(long, value_name = "IN.lir")]
    export_trace: Option<PathBuf>,
    /// Draw the pipe activity of LIR modules (plans of one workload) and the residency map of the first as SVGs into the directory `-o` (needs the `svg` feature).
    #[arg(long, value_name = "IN.lir", num_args = 1.., requires = "output")]
    export_svg: Vec<PathBuf>,
    /// Print a LIR module as MLIR of the `lattice` dialect (needs the `mlir` feature).
    #[arg(long, value_name = "IN.lir")]
    lir_to_mlir: Option<PathBuf>,
    /// Print the lattice modules of an MLIR file as LIR (needs the `mlir` feature).
    #[arg(long, value_name = "IN.mlir")]
    mlir_to_lir: Option<PathBuf>,
    /// Output: the file a conversion writes (default and `-`: stdout), or the directory of an export.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    output: Option<PathBuf>,
    /// Override a tier's capacity, e.g. `--capacity UB=512` (repeatable).
    #[arg(long, value_name = "TIER=N", value_parser = parse_capacity, conflicts_with = "export_contest")]
    capacity: Vec<(String, u64)>,
    /// Let L0 tiers hold more than one live buffer (only their capacities bind).
    #[arg(long, conflicts_with = "export_contest")]
    no_l0_exclusive: bool,
    /// The solution's schedule file (one node id per line); needs `--memory`.
    #[arg(long, value_name = "S.txt", requires_all = ["import_contest", "memory"])]
    schedule: Option<PathBuf>,
    /// The solution's memory file (`BufId:Offset` per line).
    #[arg(long, value_name = "M.txt", requires = "schedule")]
    memory: Option<PathBuf>,
    /// The solution's spill file (`BufId:NewOffset` per line).
    #[arg(long, value_name = "P.txt", requires = "schedule")]
    spill: Option<PathBuf>,
    /// Print at most N errors at a place in the input, then a count of the rest (0: no limit).
    #[arg(long, value_name = "N", default_value_t = ErrorLimit::DEFAULT)]
    error_limit: ErrorLimit,
}

/// A failed run: the rendered diagnostics.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match (&cli.import_contest, &cli.export_contest, &cli.export_trace) {
        (Some(json), _, _) => import(&cli, json),
        (None, Some(lir), _) => export(&cli, lir),
        (None, None, Some(lir)) => export_trace(&cli, lir),
        (None, None, None) if !cli.export_svg.is_empty() => export_svg(&cli),
        (None, None, None) => convert_mlir(&cli),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            lattice::io::report(&message);
            ExitCode::from(1)
        }
    }
}

/// Reports a usage error the way clap does (exit code 2).
fn usage(message: &str) -> ! {
    Cli::command()
        .error(ErrorKind::ArgumentConflict, message)
        .exit()
}

/// `--lir-to-mlir` or `--mlir-to-lir`, the modes left when no contest mode is given.
#[cfg(feature = "mlir")]
fn convert_mlir(cli: &Cli) -> Result<(), Failure> {
    let output = cli.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let (input, to_mlir) = match (&cli.lir_to_mlir, &cli.mlir_to_lir) {
        (Some(lir), _) => (lir, true),
        (None, Some(mlir)) => (mlir, false),
        (None, None) => {
            usage("give --import-contest, --export-contest, --lir-to-mlir or --mlir-to-lir")
        }
    };
    if output != Path::new("-") {
        check_not_input(&output, &[input]);
    }
    let file = input.display().to_string();
    let converted = if to_mlir {
        let text = read(input)?;
        let module =
            parse_module(&text).map_err(|e| Failure(render_error(&file, Some(&text), &e)))?;
        verified(&module, &file, &text, cli.error_limit)?;
        lattice_mlir::lir_to_mlir_text(&module)
            .map_err(|e| Failure(format!("{TOOL}: error: {e}\n")))?
    } else {
        let bytes = read_bytes(input).map_err(|e| Failure(format!("{TOOL}: error: {e}\n")))?;
        // Bytecode has no text to quote.
        let text = std::str::from_utf8(&bytes).ok();
        let render = |d: &[Diagnostic]| render_all(d, &file, text, cli.error_limit, TOOL);
        let hosted = (lattice_mlir::MLIR_HOST.read)(&bytes).map_err(|d| Failure(render(&d)))?;
        // What MLIR's parser reported besides errors (warnings, remarks) comes first.
        if !hosted.diagnostics.is_empty() {
            lattice::io::report(&render(&hosted.diagnostics));
        }
        for module in &hosted.modules {
            verify_module(module)
                .map_err(|e| Failure(render_errors(&e, &file, text, cli.error_limit)))?;
        }
        if let Some(outside) = &hosted.outside {
            let warning = Diagnostic::new(
                Severity::Warning,
                outside.loc,
                format!(
                    "`{}`{} outside the lattice module left out: LIR holds lattice modules only",
                    outside.first,
                    match outside.count {
                        1 => String::new(),
                        n => format!(" and {} more", n - 1),
                    }
                ),
            )
            .in_file(outside.file.clone());
            lattice::io::report(&render(&[warning]));
        }
        let printed: Vec<String> = hosted.modules.iter().map(print_module).collect();
        printed.join(&format!("{SPLIT_MARKER}\n"))
    };
    write(&output, &converted)
}

/// Without the bridge, the MLIR modes only say how to get it.
#[cfg(not(feature = "mlir"))]
fn convert_mlir(cli: &Cli) -> Result<(), Failure> {
    let flag = if cli.lir_to_mlir.is_some() {
        "--lir-to-mlir"
    } else {
        "--mlir-to-lir"
    };
    usage(&format!("{flag}: {}", lattice_mlir::WITHOUT_BRIDGE))
}

/// The structural verifier's errors of `module` (read from `file`, whose text is `text`),
/// rendered against that text.
fn verified(module: &Module, file: &str, text: &str, limit: ErrorLimit) -> Result<(), Failure> {
    verify_module(module).map_err(|errors| Failure(render_errors(&errors, file, Some(text), limit)))
}

/// A list of verifier errors of `file`, at most `limit` of them, then how many more there were.
fn render_errors(
    errors: &[VerifyError],
    file: &str,
    text: Option<&str>,
    limit: ErrorLimit,
) -> String {
    let diagnostics: Vec<Diagnostic> = errors
        .iter()
        .map(|e| Diagnostic::from_located(e as &dyn Located))
        .collect();
    render_all(&diagnostics, file, text, limit, TOOL)
}

fn read(path: &Path) -> Result<String, Failure> {
    read_text(path).map_err(|e| Failure(format!("{TOOL}: error: {e}\n")))
}

fn write(path: &Path, text: &str) -> Result<(), Failure> {
    match write_atomic(path, text.as_bytes()) {
        // The reader of stdout went away (`| head`): nothing is left to report to.
        Err(e) if e.is_closed_stdout() => Ok(()),
        result => result.map_err(|e| Failure(format!("{TOOL}: error: {e}\n"))),
    }
}

/// Refuses an output that is one of the inputs.
fn check_not_input(output: &Path, inputs: &[&Path]) {
    if inputs.iter().any(|input| same_destination(output, input)) {
        usage(&format!(
            "the output {} is also an input; refusing to overwrite it",
            output.display()
        ));
    }
}

fn import(cli: &Cli, json_path: &Path) -> Result<(), Failure> {
    let output = cli.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let mut inputs = vec![json_path];
    inputs.extend(
        [&cli.schedule, &cli.memory, &cli.spill]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path),
    );
    if output != Path::new("-") {
        check_not_input(&output, &inputs);
    }
    let json = read(json_path)?;
    let json_name = json_path.display().to_string();
    let name = if json_path == Path::new("-") {
        "stdin".to_owned()
    } else {
        json_path
            .file_stem()
            .map_or_else(|| "module".to_owned(), |s| s.to_string_lossy().into_owned())
    };
    let options = ImportOptions {
        capacities: cli.capacity.clone(),
        l0_exclusive: !cli.no_l0_exclusive,
    };
    let graph = import_graph(&json, &name, &options)
        .map_err(|e| Failure(render_contest(&e, &json_name, &json, &[], cli.error_limit)))?;
    let module = match (&cli.schedule, &cli.memory) {
        (Some(schedule), Some(memory)) => {
            let file = |path: &PathBuf| -> Result<SolutionFile, Failure> {
                Ok(SolutionFile {
                    name: path.display().to_string(),
                    text: read(path)?,
                })
            };
            let schedule = file(schedule)?;
            let memory = file(memory)?;
            let spill = cli.spill.as_ref().map(file).transpose()?;
            let mut files = vec![&schedule, &memory];
            files.extend(spill.as_ref());
            import_solution(graph, &schedule, &memory, spill.as_ref()).map_err(|e| {
                Failure(render_contest(
                    &e,
                    &json_name,
                    &json,
                    &files,
                    cli.error_limit,
                ))
            })?
        }
        _ => graph,
    };
    write(&output, &print_module(&module))
}

fn export(cli: &Cli, lir_path: &Path) -> Result<(), Failure> {
    let dir = export_dir(cli, "--export-contest", "up to three files")?;
    let (module, text) = parse_verified(cli, lir_path)?;
    let file = lir_path.display().to_string();
    let trio = export_trio(&module)
        .map_err(|e| Failure(render_contest(&e, &file, &text, &[], cli.error_limit)))?;
    let outputs = [
        ("schedule", Some(&trio.schedule)),
        ("memory", trio.memory.as_ref()),
        ("spill", trio.spill.as_ref()),
    ];
    let path_of = |kind: &str| dir.join(format!("{}_{kind}.txt", module.name));
    for (kind, _) in &outputs {
        check_not_input(&path_of(kind), &[lir_path]);
    }
    create_dir(dir)?;
    // The trio is one unit: all of it is written or none, and a file of an older export that
    // this one does not have (an unplanned module has no memory or spill file) is removed, so
    // the directory never holds a mixed trio.
    let paths: Vec<(PathBuf, Option<&String>)> = outputs
        .iter()
        .map(|&(kind, text)| (path_of(kind), text))
        .collect();
    let writes: Vec<(&Path, &[u8])> = paths
        .iter()
        .filter_map(|(path, text)| Some((path.as_path(), (*text)?.as_bytes())))
        .collect();
    write_all_or_nothing(&writes).map_err(|e| Failure(format!("{TOOL}: error: {e}\n")))?;
    for (path, _) in paths.iter().filter(|(_, text)| text.is_none()) {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Failure(format!(
                    "{TOOL}: error: {}: cannot remove the older export's file: {e}\n",
                    path.display()
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `--export-trace`: the Chrome trace of a valid module, streamed into `-o` (atomically).
fn export_trace(cli: &Cli, lir_path: &Path) -> Result<(), Failure> {
    let output = cli.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    if output != Path::new("-") {
        check_not_input(&output, &[lir_path]);
    }
    // The text is not kept through the replay (a million-op module's is 77 MB): a module the
    // replay rejects is read again to quote its lines (standard input cannot be).
    let (module, _) = parse_verified(cli, lir_path)?;
    let timeline = traceable(&module).map_err(|d| {
        let text = (lir_path != Path::new("-"))
            .then(|| read_text(lir_path).ok())
            .flatten();
        let file = lir_path.display().to_string();
        Failure(render_all(
            &d,
            &file,
            text.as_deref(),
            cli.error_limit,
            TOOL,
        ))
    })?;
    let trace = Box::new(|out: &mut dyn std::io::Write| write_trace(&[(&module, &timeline)], out));
    let written = stream_all_or_nothing(&mut [(&output, trace)]);
    match written {
        Err(e) if e.is_closed_stdout() => Ok(()),
        result => result.map_err(|e| Failure(format!("{TOOL}: error: {e}\n"))),
    }
}

/// `--export-svg`: the pipe activity of the modules and the residency map of the first, drawn
/// into the directory `-o` once every input was read and verified.
#[cfg(feature = "svg")]
fn export_svg(cli: &Cli) -> Result<(), Failure> {
    let dir = export_dir(cli, "--export-svg", "two files")?;
    let modules = cli
        .export_svg
        .iter()
        .map(|path| parse_verified(cli, path).map(|(module, _)| module))
        .collect::<Result<Vec<Module>, Failure>>()?;
    let figures = lattice_figures::PlanFigures::of(&modules.iter().collect::<Vec<_>>());
    let inputs: Vec<&Path> = cli.export_svg.iter().map(PathBuf::as_path).collect();
    for file in [figures.residency_file(), figures.activity_file()] {
        check_not_input(&dir.join(file), &inputs);
    }
    let failed = |e: lattice_figures::FigureError| Failure(format!("{TOOL}: error: {e}\n"));
    create_dir(dir)?;
    // The residency map first: a plan with a block outside its tier fails there, before the
    // activity chart (which cannot fail) is written.
    figures.draw_residency(dir).map_err(failed)?;
    figures.draw_activity(dir).map_err(failed)?;
    Ok(())
}

/// Without the plotting crate, `--export-svg` only says how to get it.
#[cfg(not(feature = "svg"))]
fn export_svg(_: &Cli) -> Result<(), Failure> {
    usage(
        "--export-svg: this build of lattice-translate has no plotting; build it with the \
         `svg` feature (`cargo install --path tools --features svg`, or `cargo build -p \
         lattice-tools --features svg`)",
    )
}

/// The directory `-o` of an export that writes `what`.
fn export_dir<'a>(cli: &'a Cli, flag: &str, what: &str) -> Result<&'a Path, Failure> {
    let Some(dir) = cli.output.as_deref() else {
        usage(&format!("{flag} needs -o DIR"));
    };
    if dir == Path::new("-") {
        usage(&format!(
            "{flag} writes {what}; -o must name a directory, not `-`"
        ));
    }
    Ok(dir)
}

fn create_dir(dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("{TOOL}: error: {}: {e}\n", dir.display())))
}

/// Reads, parses and structurally verifies the LIR module at `path`; also returns its text.
fn parse_verified(cli: &Cli, path: &Path) -> Result<(Module, String), Failure> {
    let text = read(path)?;
    let file = path.display().to_string();
    let module = parse_module(&text).map_err(|e| Failure(render_error(&file, Some(&text), &e)))?;
    verified(&module, &file, &text, cli.error_limit)?;
    Ok((module, text))
}

/// Renders a contest error at the file it concerns: a solution file when it names one, else
/// `main_file` (the JSON graph or the LIR module). Option errors concern no file at all.
fn render_contest(
    e: &ContestError,
    main_file: &str,
    main_text: &str,
    files: &[&SolutionFile],
    limit: ErrorLimit,
) -> String {
    let (name, text) = match e.file() {
        Some(name) => (
            name,
            files
                .iter()
                .find(|f| f.name == name)
                .map(|f| f.text.as_str()),
        ),
        None => (main_file, Some(main_text)),
    };
    match e {
        ContestError::UnknownCapacityTier { .. } => format!("{TOOL}: error: {e}\n"),
        ContestError::Invalid { errors, .. } if !errors.is_empty() => {
            render_errors(errors, name, text, limit)
        }
        _ => render_error(name, text, e),
    }
}
