//! The `lattice-opt` command line: fixed driver flags (clap derive) plus one flag per registered
//! pass, generated from the registry, turned into an [`OptConfig`] and run.
//!
//! Invariants:
//! - bare pass flags keep their argv order (`--mpas --dlr` runs mpas first) and build the same
//!   [`Pipeline`] value as `--pass-pipeline`; mixing the two is a usage error, as in mlir-opt;
//! - every usage problem (unknown flag or pass, bad pipeline text or option value, conflicting
//!   flags) is reported with a located, worded message and exit code 2; 1 is reserved for bad input
//!   and failing pipelines, 0 for success;
//! - a `--pass-pipeline` naming passes the registry does not have goes to the tool's host IR
//!   (MLIR) when it can run them, which then runs the whole pipeline; flags of lattice's own
//!   instrumentation are usage errors with such a pipeline, and a build without the host says
//!   which feature runs it;
//! - logging goes through `tracing` to the error stream: `-v` (info), `-vv` (debug), `-vvv` (trace),
//!   or any `RUST_LOG` filter, which wins.

use crate::config::{Emit, OptConfig};
use crate::driver::run;
use crate::error_limit::ErrorLimit;
use crate::input::parse_capacity;
use crate::ir_printing::{IrPrinting, PassFilter};
use crate::pipeline::{parse_pass_flag, parse_pipeline, Pipeline, PipelineErrorKind};
use crate::registry::{MetricsFormat, Registry};
use crate::report_to::{ReportTo, ReportToParser};
use crate::statistics::StatisticsFormat;
use crate::timing::TimingFormat;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser};
use lattice_lir::contest::ImportOptions;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Pipelines:
  lattice-opt --mpas --dlr --cpe in.lir              passes in argv order
  lattice-opt --dlr=victim=lru in.lir                options after `=`, space-separated
  lattice-opt --pass-pipeline='mpas,dlr{victim=lru}' in.lir
  lattice-opt --list-passes                          every pass with its options

Exit codes: 0 success; 1 invalid input, failing pass or invalid IR; 2 usage error.";

/// The driver's own flags (pass flags are added from the registry).
#[derive(Parser, Debug)]
#[command(name = "lattice-opt", version, about = "The lattice optimizer driver: runs pass pipelines over LIR modules.", after_help = EXAMPLES)]
struct Flags {
    /// Input: a `.lir` module, a contest `.json` graph, or `.mlir`/`.mlirbc` when built with the MLIR bridge (`-`: stdin, judged by how it begins).
    #[arg(default_value = "-")]
    input: PathBuf,
    /// Write `lir` or `mlir` (default: by the extension of `-o`, else the input's: MLIR in, MLIR out).
    #[arg(long, value_name = "FORMAT")]
    emit: Option<String>,
    /// Output file (`-`: stdout); written only if the whole run succeeds.
    #[arg(short = 'o', long = "output", default_value = "-", value_name = "FILE")]
    output: PathBuf,
    /// The pipeline as text, e.g. `mpas,dlr{victim=lru},cpe{passes=2}`.
    #[arg(long, value_name = "PIPELINE")]
    pass_pipeline: Option<String>,
    /// Print the pipeline's canonical text (to stderr) before running it.
    #[arg(long)]
    dump_pass_pipeline: bool,
    /// List the registered passes with their options and exit.
    #[arg(long)]
    list_passes: bool,
    /// Verify the module after every pass.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    verify_each: Option<bool>,
    /// Print the IR before these passes (comma-separated names).
    #[arg(
        long,
        value_name = "PASSES",
        value_delimiter = ',',
        require_equals = true
    )]
    print_ir_before: Vec<String>,
    /// Print the IR after these passes (comma-separated names).
    #[arg(
        long,
        value_name = "PASSES",
        value_delimiter = ',',
        require_equals = true
    )]
    print_ir_after: Vec<String>,
    /// Print the IR before every pass.
    #[arg(long)]
    print_ir_before_all: bool,
    /// Print the IR after every pass.
    #[arg(long)]
    print_ir_after_all: bool,
    /// Print the IR after a pass only if its text changed (alone: after every pass that changed it).
    #[arg(long)]
    print_ir_after_change: bool,
    /// Print the IR after a pass that failed.
    #[arg(long)]
    print_ir_after_failure: bool,
    /// Print a unified diff of what each pass changed.
    #[arg(long)]
    print_ir_diff: bool,
    /// Write IR dumps as numbered files under DIR/<module>/ instead of stderr (alone: after every pass).
    #[arg(long, value_name = "DIR")]
    print_ir_tree_dir: Option<PathBuf>,
    /// Report wall time per stage, pass and analysis; `FORMAT:FILE` writes it to FILE.
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "tree", value_parser = ReportToParser::<TimingFormat>::new())]
    timing: Option<ReportTo<TimingFormat>>,
    /// Report the counters each pass keeps; `FORMAT:FILE` writes it to FILE.
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "text", value_parser = ReportToParser::<StatisticsFormat>::new())]
    pass_statistics: Option<ReportTo<StatisticsFormat>>,
    /// Write the Chrome trace of the resulting modules to FILE (Perfetto, chrome://tracing).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// On a pass failure, write the IR before that pass and the remaining pipeline to FILE.
    #[arg(long, value_name = "FILE")]
    reproducer: Option<PathBuf>,
    /// Run the pipeline named in the input's reproducer header.
    #[arg(long)]
    run_reproducer: bool,
    /// Treat `// -----` lines as separators of independent cases; outputs are joined likewise.
    #[arg(long)]
    split_input_file: bool,
    /// Check diagnostics against `// expected-error@+N {{…}}` directives in the input.
    #[arg(long)]
    verify_diagnostics: bool,
    /// Write the metrics of the resulting module as JSON to FILE (default `-`: stdout, after the IR).
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true, default_missing_value = "-")]
    metrics: Option<PathBuf>,
    /// Write the metrics of the resulting module as text to FILE (default `-`: stdout, after the IR).
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true, default_missing_value = "-")]
    metrics_text: Option<PathBuf>,
    /// Override a tier's capacity in the input's target, e.g. `--capacity UB=512` (repeatable).
    #[arg(long, value_name = "TIER=N", value_parser = parse_capacity)]
    capacity: Vec<(String, u64)>,
    /// Let L0 tiers hold more than one live buffer (the input's target, contest or LIR).
    #[arg(long)]
    no_l0_exclusive: bool,
    /// Print at most N errors at a place in the input, then a count of the rest (0: no limit).
    #[arg(long, value_name = "N", default_value_t = ErrorLimit::DEFAULT)]
    error_limit: ErrorLimit,
    /// More logging on stderr (-v info, -vv debug, -vvv trace); `RUST_LOG` overrides.
    #[arg(short, long, action = ArgAction::Count)]
    verbose: u8,
}

/// Runs `lattice-opt` with the process's arguments over `registry`.
pub fn opt_main(registry: Registry) -> ExitCode {
    let mut stderr = std::io::stderr();
    ExitCode::from(main_with_args(registry, std::env::args_os(), &mut stderr))
}

/// Runs `lattice-opt` with `args` (the first is the program name); returns the exit code.
pub fn main_with_args(
    registry: Registry,
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    err: &mut dyn Write,
) -> u8 {
    let mut command = Flags::command();
    let reserved: Vec<&str> = command.get_arguments().filter_map(Arg::get_long).collect();
    if let Err(bug) = registry.check(&reserved) {
        let _ = writeln!(err, "error: invalid pass registry: {bug}");
        return 2;
    }
    for pass in registry.passes() {
        let heading = if pass.is_test() {
            "Test passes"
        } else {
            "Passes"
        };
        command = command.arg(
            Arg::new(pass.name)
                .long(pass.name)
                .help(pass.summary)
                .value_name("OPTIONS")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .help_heading(heading),
        );
    }
    let longs: Vec<&str> = command.get_arguments().filter_map(Arg::get_long).collect();
    let shorts: Vec<char> = command.get_arguments().filter_map(Arg::get_short).collect();
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let args = mlir_opt_spellings(args, &longs, &shorts);
    let matches = match command.try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return clap_error(&e, &registry, err),
    };
    let flags = match Flags::from_arg_matches(&matches) {
        Ok(flags) => flags,
        Err(e) => return clap_error(&e, &registry, err),
    };
    init_logging(flags.verbose);
    if flags.list_passes {
        // A closed stdout (`--list-passes | head`) ends the listing quietly.
        if let Err(e) = crate::io::print_text(&registry.list()) {
            let _ = writeln!(err, "error: {e}");
            return 1;
        }
        return 0;
    }
    match configure(&flags, &matches, &registry) {
        Ok(config) => run(&config, registry, err),
        Err(message) => {
            let _ = write!(err, "{message}");
            2
        }
    }
}

/// Turns parsed flags into a run configuration, or a rendered usage error.
fn configure(
    flags: &Flags,
    matches: &ArgMatches,
    registry: &Registry,
) -> Result<OptConfig, String> {
    let bare = bare_pipeline(matches, registry)?;
    let mut host_pipeline = None;
    let pipeline = match (&flags.pass_pipeline, bare.passes.is_empty()) {
        (Some(_), false) => {
            return Err(
                "error: give passes either as flags or with --pass-pipeline, not both\n".into(),
            )
        }
        (Some(text), true) => match parse_pipeline(text, registry) {
            Ok(pipeline) => pipeline,
            Err(e) => {
                let PipelineErrorKind::UnknownPass(unknown) = &e.kind else {
                    return Err(e.render("--pass-pipeline", text));
                };
                let lattice_error = e.render("--pass-pipeline", text);
                host_pipeline = Some(host_pipeline_of(text, unknown, lattice_error, registry)?);
                Pipeline::default()
            }
        },
        (None, _) => bare,
    };
    let emit = emit_of(flags, registry)?;
    if let (Some(_), Some(host)) = (&host_pipeline, registry.host()) {
        refuse_with_host_pipeline(flags, host.name)?;
    }
    if flags.run_reproducer && !pipeline.passes.is_empty() {
        return Err(
            "error: --run-reproducer takes its pipeline from the input; give no passes\n".into(),
        );
    }
    if flags.reproducer.as_ref() == Some(&flags.input) {
        return Err("error: the reproducer would overwrite the input file\n".into());
    }
    let mut printing = IrPrinting {
        after_change: flags.print_ir_after_change,
        after_failure: flags.print_ir_after_failure,
        diff: flags.print_ir_diff,
        tree_dir: flags.print_ir_tree_dir.clone(),
        ..IrPrinting::default()
    };
    for (filter, names, all) in [
        (
            &mut printing.before,
            &flags.print_ir_before,
            flags.print_ir_before_all,
        ),
        (
            &mut printing.after,
            &flags.print_ir_after,
            flags.print_ir_after_all,
        ),
    ] {
        if let Some(unknown) = names.iter().find(|n| registry.get(n).is_none()) {
            return Err(format!("error: {}\n", registry.unknown_pass(unknown)));
        }
        filter.extend(names.iter().cloned());
        if all {
            *filter = PassFilter::All;
        }
    }
    let metrics: Vec<(PathBuf, MetricsFormat)> = [
        (&flags.metrics, MetricsFormat::Json),
        (&flags.metrics_text, MetricsFormat::Text),
    ]
    .into_iter()
    .filter_map(|(path, format)| path.clone().map(|p| (p, format)))
    .collect();
    if !metrics.is_empty() && registry.metrics().is_none() {
        return Err("error: this tool's passes do not report metrics\n".into());
    }
    if flags.trace.is_some() && registry.trace().is_none() {
        return Err("error: this tool's passes do not write traces\n".into());
    }
    // Every destination is written whole or not at all, so two naming one file would leave
    // only the last; and the input is never written.
    let destinations: Vec<(&str, &PathBuf)> = std::iter::once(("-o", &flags.output))
        .chain(flags.metrics.iter().map(|p| ("--metrics", p)))
        .chain(flags.metrics_text.iter().map(|p| ("--metrics-text", p)))
        .chain(flags.trace.iter().map(|p| ("--trace", p)))
        .chain(
            flags
                .timing
                .iter()
                .flat_map(|r| &r.file)
                .map(|p| ("--timing", p)),
        )
        .chain(
            flags
                .pass_statistics
                .iter()
                .flat_map(|r| &r.file)
                .map(|p| ("--pass-statistics", p)),
        )
        .collect();
    for (i, (flag, path)) in destinations.iter().enumerate() {
        if crate::io::same_destination(path, &flags.input) {
            let what = match *flag {
                "-o" => "the output",
                "--metrics" | "--metrics-text" => "the metrics",
                "--trace" => "the trace",
                _ => "the report",
            };
            return Err(format!("error: {what} would overwrite the input file\n"));
        }
        if let Some((other, _)) = destinations[..i]
            .iter()
            .find(|(_, earlier)| crate::io::same_destination(earlier, path))
        {
            return Err(format!(
                "error: `{other}` and `{flag}` both name {}; give each output its own file\n",
                path.display()
            ));
        }
    }
    let mut import = ImportOptions {
        capacities: flags.capacity.clone(),
        ..ImportOptions::default()
    };
    if flags.no_l0_exclusive {
        import.l0_exclusive = false;
    }
    Ok(OptConfig {
        import,
        pipeline,
        run_reproducer: flags.run_reproducer,
        verify_each: flags.verify_each,
        printing,
        timing: flags.timing.clone(),
        statistics: flags.pass_statistics.clone(),
        trace: flags.trace.clone(),
        reproducer: flags.reproducer.clone(),
        split_input: flags.split_input_file,
        verify_diagnostics: flags.verify_diagnostics,
        dump_pipeline: flags.dump_pass_pipeline,
        metrics,
        error_limit: flags.error_limit,
        emit,
        host_pipeline,
        ..OptConfig::new(&flags.input, &flags.output)
    })
}

/// `text`, a pipeline naming a pass lattice does not have (`unknown` is the lattice parser's
/// message, `lattice_error` that message rendered), checked by the registry's host IR, which
/// will run it; else the usage error to print.
fn host_pipeline_of(
    text: &str,
    unknown: &str,
    lattice_error: String,
    registry: &Registry,
) -> Result<String, String> {
    let Some(host) = registry.host() else {
        return Err(lattice_error);
    };
    if let Some(missing) = host.missing {
        // A near miss of a lattice pass is a typo: the bridge would not help.
        if unknown.contains("did you mean") {
            return Err(lattice_error);
        }
        return Err(format!(
            "{lattice_error}note: pipelines with {} passes beside lattice's need the {} bridge: \
             {missing}\n",
            host.name, host.name
        ));
    }
    (host.check_pipeline)(text).map_err(|message| {
        // A lattice pass misspelt is more likely than an upstream one: keep the suggestion.
        let hint = if unknown.contains("did you mean") {
            format!("note: lattice: {unknown}\n")
        } else {
            String::new()
        };
        format!("error: --pass-pipeline: {message}\n{hint}")
    })?;
    Ok(text.to_owned())
}

/// `--emit`, checked: `lir`, or the host IR's text extension (`mlir`) when this build has it; an
/// output extension of the host IR that is not its text (`-o out.mlirbc`) is refused, since only
/// text is written.
fn emit_of(flags: &Flags, registry: &Registry) -> Result<Option<Emit>, String> {
    let host = registry.host();
    let host_text = host.map(|h| h.text_extension());
    let emit = match flags.emit.as_deref() {
        None => None,
        Some("lir") => Some(Emit::Lir),
        Some(word) if Some(word) == host_text => Some(Emit::Host),
        Some(word) => {
            let valid: Vec<&str> = std::iter::once("lir").chain(host_text).collect();
            return Err(format!(
                "error: --emit={word}: valid formats are {}\n",
                valid.join(", ")
            ));
        }
    };
    let output_extension = flags.output.extension().and_then(|e| e.to_str());
    if let Some(host) = host {
        let by_output = output_extension == Some(host.text_extension());
        if let (Some(missing), true) = (host.missing, emit == Some(Emit::Host) || by_output) {
            return Err(format!("error: {} output: {missing}\n", host.name));
        }
        if emit.is_none() && host.owns(&flags.output) && !by_output {
            return Err(format!(
                "error: {}: lattice-opt writes {} as text (`.{}`); `mlir-opt --emit-bytecode` \
                 turns it into bytecode\n",
                flags.output.display(),
                host.name,
                host.text_extension()
            ));
        }
    }
    Ok(emit)
}

/// Refuses the flags of lattice's own instrumentation, which a pipeline run by the pass manager
/// of the host IR (`host`, e.g. MLIR) cannot honour.
fn refuse_with_host_pipeline(flags: &Flags, host: &str) -> Result<(), String> {
    let set = [
        ("--verify-each", flags.verify_each.is_some()),
        ("--print-ir-before", !flags.print_ir_before.is_empty()),
        ("--print-ir-after", !flags.print_ir_after.is_empty()),
        ("--print-ir-before-all", flags.print_ir_before_all),
        ("--print-ir-after-all", flags.print_ir_after_all),
        ("--print-ir-after-change", flags.print_ir_after_change),
        ("--print-ir-after-failure", flags.print_ir_after_failure),
        ("--print-ir-diff", flags.print_ir_diff),
        ("--print-ir-tree-dir", flags.print_ir_tree_dir.is_some()),
        ("--timing", flags.timing.is_some()),
        ("--pass-statistics", flags.pass_statistics.is_some()),
        ("--trace", flags.trace.is_some()),
        ("--reproducer", flags.reproducer.is_some()),
        ("--run-reproducer", flags.run_reproducer),
        ("--split-input-file", flags.split_input_file),
        ("--verify-diagnostics", flags.verify_diagnostics),
        ("--capacity", !flags.capacity.is_empty()),
        ("--no-l0-exclusive", flags.no_l0_exclusive),
    ];
    match set.into_iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(format!(
            "error: {flag} applies to lattice pipelines only; this one names passes lattice does \
             not have, so {host}'s pass manager runs it\n"
        )),
        None => Ok(()),
    }
}

/// The pipeline of the bare pass flags, in argv order.
fn bare_pipeline(matches: &ArgMatches, registry: &Registry) -> Result<Pipeline, String> {
    let mut flagged: Vec<(usize, &'static str, String)> = Vec::new();
    for pass in registry.passes() {
        let (Some(indices), Some(values)) = (
            matches.indices_of(pass.name),
            matches.get_many::<String>(pass.name),
        ) else {
            continue;
        };
        for (index, value) in indices.zip(values) {
            flagged.push((index, pass.name, value.clone()));
        }
    }
    flagged.sort_by_key(|(index, _, _)| *index);
    let mut pipeline = Pipeline::default();
    for (_, name, value) in flagged {
        let (options, text) = if value.is_empty() {
            (None, format!("--{name}"))
        } else {
            (Some(value.as_str()), format!("--{name}={value}"))
        };
        let spec = parse_pass_flag(registry, name, options, &text)
            .map_err(|e| e.render("command line", &text))?;
        pipeline.passes.push(spec);
    }
    Ok(pipeline)
}

/// mlir-opt's spellings of our flags, as its users write them in RUN lines: long options with one
/// dash (`-pass-pipeline=…`, `-split-input-file`) and the `mlir-` prefix of its instrumentation
/// (`--mlir-print-ir-after-all`, `--mlir-timing`, `--mlir-pass-statistics`) become our `--NAME`
/// when NAME is one of `longs`. A one-dash word that is no short option (`-nonsense`) becomes
/// `--nonsense` too, so the error names the whole word. Short options with their values
/// (`-o out.lir`, `-oout.lir`), values and everything after `--` are left alone.
/// O(args · longs).
fn mlir_opt_spellings(args: Vec<OsString>, longs: &[&str], shorts: &[char]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut options_ended = false;
    for (i, arg) in args.into_iter().enumerate() {
        let text = match arg.to_str() {
            Some(text) if i > 0 && !options_ended => text,
            _ => {
                out.push(arg);
                continue;
            }
        };
        if text == "--" {
            options_ended = true;
            out.push(arg);
            continue;
        }
        let one_dash = !text.starts_with("--");
        let body = text
            .strip_prefix("--")
            .or_else(|| text.strip_prefix('-').filter(|b| b.len() > 1));
        let rewritten = body.and_then(|body| {
            let (name, value) = body
                .split_once('=')
                .map_or((body, None), |(n, v)| (n, Some(v)));
            let known = [name, name.strip_prefix("mlir-").unwrap_or("")]
                .into_iter()
                .find(|n| longs.contains(n));
            let short = name.chars().next().is_some_and(|c| shorts.contains(&c));
            let name = match known {
                Some(name) => name,
                // An unknown one-dash word: a short option with its value, or a long option
                // clap should name whole in its error.
                None if one_dash && !short => name,
                None => return None,
            };
            Some(match value {
                Some(value) => format!("--{name}={value}"),
                None => format!("--{name}"),
            })
        });
        out.push(rewritten.map_or(arg, OsString::from));
    }
    out
}

/// Reports a clap error; unknown flags get the list of valid passes, as unknown pipeline names do.
fn clap_error(e: &clap::Error, registry: &Registry, err: &mut dyn Write) -> u8 {
    let invalid = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) if e.kind() == ErrorKind::UnknownArgument => Some(arg),
        _ => None,
    };
    let Some(arg) = invalid.filter(|a| a.starts_with("--")) else {
        if e.use_stderr() {
            let _ = write!(err, "{}", e.render());
        } else {
            // --help and --version are answers, not errors: they go to stdout.
            let _ = e.print();
        }
        return u8::try_from(e.exit_code()).unwrap_or(2);
    };
    let mut message = format!(
        "error: unknown pass or flag `{arg}`; valid passes: {}",
        registry.valid_names()
    );
    if let Some(ContextValue::String(s)) = e.get(ContextKind::SuggestedArg) {
        message.push_str(&format!(" (did you mean `{s}`?)"));
    }
    let _ = writeln!(
        err,
        "{message}\n\nFor more information, try '--help' or '--list-passes'."
    );
    2
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .try_init();
}
