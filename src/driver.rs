//! The `lattice-opt` driver as a library: read the input, split it if asked, parse and verify each
//! case, run the pipeline with its instrumentation, report diagnostics (or check them against the
//! input's `expected-*` directives), and write the output.
//!
//! The binary only turns command-line flags into an [`OptConfig`] (see [`crate::cli`]) and calls
//! [`run`], so embedders and tests drive exactly the same code.
//!
//! Invariants:
//! - the output and the metrics are produced in memory and written all or nothing once every
//!   case succeeded (`io::write_all_or_nothing`), so a failing run — including one whose metrics
//!   file cannot be written — leaves no output file (and never touches its input);
//! - the exit code is 0 on success, 1 when the input, the IR or a pass failed (or the expected
//!   diagnostics did not match); usage errors (2) are the CLI's;
//! - dumps, diagnostics and reports go to the error stream; only the resulting IR goes to the output
//!   (and `--metrics` reports to their own destinations, after the IR when both are stdout).

use crate::diagnostic::{render_all, Diagnostic};
use crate::error_limit::{ErrorLimit, Limiter};
use crate::expected::{check, parse_expected};
use crate::input::{parse_source, read_source, InputKind, LoadError};
use crate::io::{write_all_or_nothing, write_atomic};
use crate::ir_printing::{DumpSink, IrPrinting};
use crate::manager::{PassManager, Session};
use crate::pipeline::{parse_pipeline, Pipeline};
use crate::registry::{MetricsFormat, Registry};
use crate::reproducer::{header, parse_header};
use crate::split::{split_input, Chunk, SPLIT_MARKER};
use crate::statistics::{Statistics, StatisticsFormat};
use crate::timing::{Timing, TimingFormat, TimingKind, TimingNode};
use lattice_lir::contest::ImportOptions;
use lattice_lir::diag::Severity;
use lattice_lir::{print_module, verify_module, Module};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The name diagnostics without a file of their own are attributed to.
const TOOL: &str = "lattice-opt";

/// Everything one `lattice-opt` run needs (MLIR's `MlirOptMainConfig`).
#[derive(Clone, Debug)]
pub struct OptConfig {
    /// LIR text or a contest `.json` graph; `-` for standard input.
    pub input: PathBuf,
    /// Where the resulting LIR goes; `-` for standard output.
    pub output: PathBuf,
    /// How a contest graph is imported (ignored for LIR input).
    pub import: ImportOptions,
    /// The passes to run.
    pub pipeline: Pipeline,
    /// Take the pipeline (and verify-each) from the input's reproducer header instead.
    pub run_reproducer: bool,
    /// Verify after every pass; `None` keeps the default (on, or the reproducer's setting).
    pub verify_each: Option<bool>,
    /// IR printing around passes.
    pub printing: IrPrinting,
    /// Report wall times, in this format.
    pub timing: Option<TimingFormat>,
    /// Report pass statistics, in this format.
    pub statistics: Option<StatisticsFormat>,
    /// On a pass failure, write a reproducer here.
    pub reproducer: Option<PathBuf>,
    /// Treat `// -----` lines as separators of independent cases.
    pub split_input: bool,
    /// Check diagnostics against the input's `expected-*` directives instead of printing them.
    pub verify_diagnostics: bool,
    /// Print the canonical pipeline text to the error stream before running.
    pub dump_pipeline: bool,
    /// Write the metrics of each resulting module to these destinations (`-`: stdout).
    pub metrics: Vec<(PathBuf, MetricsFormat)>,
    /// Print at most this many errors (over all cases), then how many more there were.
    pub error_limit: ErrorLimit,
}

impl OptConfig {
    /// A run of the empty pipeline from `input` to `output` with every default.
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        OptConfig {
            input: input.into(),
            output: output.into(),
            import: ImportOptions::default(),
            pipeline: Pipeline::default(),
            run_reproducer: false,
            verify_each: None,
            printing: IrPrinting::default(),
            timing: None,
            statistics: None,
            reproducer: None,
            split_input: false,
            verify_diagnostics: false,
            dump_pipeline: false,
            metrics: Vec::new(),
            error_limit: ErrorLimit::default(),
        }
    }
}

/// Runs the driver; diagnostics, dumps and reports go to `err`. Returns the exit code (0 or 1).
pub fn run(config: &OptConfig, registry: Registry, err: &mut dyn Write) -> u8 {
    let started = Instant::now();
    let mut source = match read_source(&config.input) {
        Ok(source) => source,
        Err(e) => {
            let all = render_all(&e.diagnostics(), TOOL, None, config.error_limit, TOOL);
            return report(err, &all);
        }
    };
    let (pipeline, verify_each) = if config.run_reproducer {
        let replay = match parse_header(&source.text) {
            Ok(replay) => replay,
            Err(message) => {
                let d = Diagnostic::error(None, message);
                return report(err, &d.render(&source.name, None));
            }
        };
        match parse_pipeline(&replay.pipeline, &registry) {
            Ok(p) => (p, config.verify_each.unwrap_or(replay.verify_each)),
            Err(e) => {
                let name = format!("{}:{} (reproducer pipeline)", source.name, replay.line);
                return report(err, &e.render(&name, &replay.pipeline));
            }
        }
    } else {
        (config.pipeline.clone(), config.verify_each.unwrap_or(true))
    };
    if config.dump_pipeline {
        let _ = writeln!(err, "{pipeline}");
    }
    let stages = pipeline.passes.len();
    let manager = PassManager::new(registry, pipeline)
        .verify_each(verify_each)
        .printing(config.printing.clone())
        .keep_before(config.reproducer.is_some());

    let kind = InputKind::of_text(&config.input, &source.text, registry.formats());
    let text_input = matches!(kind, InputKind::Lir | InputKind::Format(_));
    let chunks = if config.split_input && text_input {
        let chunks: Vec<Chunk> = split_input(&source.text);
        let filled: Vec<Chunk> = chunks.iter().filter(|c| !c.is_blank()).cloned().collect();
        if filled.is_empty() {
            chunks.into_iter().take(1).collect()
        } else {
            filled
        }
    } else {
        vec![Chunk {
            text: std::mem::take(&mut source.text),
            first_line: 1,
        }]
    };

    let mut session = Session {
        sink: DumpSink::new(err, config.printing.tree_dir.as_deref()),
        diagnostics: Vec::new(),
        timing: config.timing.map(|_| Timing::default()),
        statistics: Statistics::default(),
        dump_name: String::new(),
    };
    let mut outputs = Vec::new();
    let mut reports: Vec<Vec<String>> = vec![Vec::new(); config.metrics.len()];
    let mut output_time = Duration::ZERO;
    let mut failed = false;
    let mut reproducer_written = false;
    let mut limiter = Limiter::new(config.error_limit);
    for (k, chunk) in chunks.iter().enumerate() {
        let _span = tracing::info_span!("case", line = chunk.first_line).entered();
        let mut chunk_failed = false;
        match load(&chunk.text, &kind, &config.import, &mut session) {
            Err(e) => {
                session.diagnostics.extend(e.diagnostics());
                chunk_failed = true;
            }
            Ok(mut module) => {
                session.dump_name = if chunks.len() > 1 {
                    format!("{}_{}", k + 1, module.name)
                } else {
                    module.name.clone()
                };
                match manager.run(&mut module, &mut session) {
                    Ok(()) => {
                        let start = Instant::now();
                        outputs.push(print_module(&module));
                        output_time += start.elapsed();
                        if let Some(metrics) = registry.metrics() {
                            for (report, (_, format)) in reports.iter_mut().zip(&config.metrics) {
                                report.push(metrics(&module, *format));
                            }
                        }
                    }
                    Err(failure) => {
                        chunk_failed = true;
                        let path = config.reproducer.as_ref().filter(|_| !reproducer_written);
                        if let (Some(path), Some(before)) = (path, &failure.before) {
                            let rest = manager.pipeline().suffix(failure.index).to_string();
                            let text = header(&rest, verify_each) + before;
                            let written = write_atomic(path, text.as_bytes());
                            session.diagnostics.push(match written {
                                Ok(()) => Diagnostic::note(
                                    None,
                                    format!("reproducer written to {}", path.display()),
                                ),
                                Err(e) => Diagnostic::error(
                                    None,
                                    format!("cannot write the reproducer: {e}"),
                                ),
                            });
                            reproducer_written = true;
                        }
                    }
                }
            }
        }
        let diagnostics = std::mem::take(&mut session.diagnostics);
        let stream = session.sink.stream();
        if config.verify_diagnostics {
            let problems = match parse_expected(&chunk.text) {
                Ok(expected) => check(&expected, &diagnostics),
                Err(malformed) => vec![malformed],
            };
            let rendered = limiter.render(&problems, &source.name, Some(&chunk.text));
            let _ = stream.write_all(rendered.as_bytes());
            failed |= !problems.is_empty();
        } else {
            let rendered = limiter.render(&diagnostics, &source.name, Some(&chunk.text));
            let _ = stream.write_all(rendered.as_bytes());
            failed |= chunk_failed || diagnostics.iter().any(|d| d.severity == Severity::Error);
        }
    }

    let _ = session
        .sink
        .stream()
        .write_all(limiter.summary(TOOL).as_bytes());

    if !failed {
        let start = Instant::now();
        let text = outputs.join(&format!("{SPLIT_MARKER}\n"));
        let metrics = config
            .metrics
            .iter()
            .zip(&reports)
            .map(|((path, format), report)| {
                let joined = match format {
                    MetricsFormat::Json if report.len() > 1 => {
                        format!("[\n{}\n]", report.join(",\n"))
                    }
                    _ => report.join("\n"),
                };
                (path, format!("{}\n", joined.trim_end()))
            });
        let writes: Vec<(&PathBuf, String)> = std::iter::once((&config.output, text))
            .chain(metrics)
            .collect();
        let bytes: Vec<(&Path, &[u8])> = writes
            .iter()
            .map(|(path, text)| (path.as_path(), text.as_bytes()))
            .collect();
        match write_all_or_nothing(&bytes) {
            // The reader of stdout went away (`| head`): stop quietly, as Unix tools do.
            Err(e) if e.is_closed_stdout() => {}
            Err(e) => {
                let _ = writeln!(session.sink.stream(), "error: {e}");
                failed = true;
            }
            Ok(()) => {}
        }
        output_time += start.elapsed();
    }
    if let (Some(timing), Some(format)) = (&mut session.timing, config.timing) {
        timing.record(
            stages + 1,
            TimingNode::leaf("output", TimingKind::Output, output_time),
        );
        let report = timing.report(format, started.elapsed());
        let _ = session.sink.stream().write_all(report.as_bytes());
    }
    if let Some(format) = config.statistics {
        let report = session.statistics.report(format);
        let _ = session.sink.stream().write_all(report.as_bytes());
    }
    u8::from(failed)
}

/// Parses (or imports) one case and verifies it, timing both as the `parse` stage.
fn load(
    text: &str,
    kind: &InputKind,
    import: &ImportOptions,
    session: &mut Session<'_>,
) -> Result<Module, LoadError> {
    let start = Instant::now();
    let parsed = parse_source(text, kind, import);
    let mut node = TimingNode::leaf("parse", TimingKind::Parse, start.elapsed());
    let verified = parsed.and_then(|module| {
        if let InputKind::Contest { .. } = kind {
            return Ok(module);
        }
        let start = Instant::now();
        let result = verify_module(&module);
        node.add_child(TimingNode::leaf(
            "verify",
            TimingKind::Verify,
            start.elapsed(),
        ));
        result.map(|()| module).map_err(LoadError::Verify)
    });
    if let Some(timing) = &mut session.timing {
        timing.record(0, node);
    }
    verified
}

fn report(err: &mut dyn Write, text: &str) -> u8 {
    let _ = err.write_all(text.as_bytes());
    1
}
