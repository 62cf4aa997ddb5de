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
//!   diagnostics did not match), 2 for a usage error: the CLI's, or a `--capacity` naming a tier
//!   the input's target lacks (found only once the input is read);
//! - with `-split-input-file`, the output of every case that succeeded goes to standard output (or
//!   a device) even when another case failed, as mlir-opt prints it; a file output is not written;
//! - dumps, diagnostics and reports go to the error stream; only the resulting IR goes to the output
//!   (and `--metrics` reports and the `--trace` to their own destinations, after the IR when both
//!   are stdout; `--timing` and `--pass-statistics` to a file of their own when given one, each
//!   one JSON or text document);
//! - host IR input (MLIR, text or bytecode) is run one lattice module at a time, in text order; the
//!   output is LIR or host IR by [`Emit`]: host IR keeps everything outside the lattice modules and
//!   replaces each by its result, LIR holds the results alone (joined by `// -----` when there are
//!   several) and a warning says what was left out. A pipeline naming host passes is the host's to
//!   run ([`crate::host_pipeline`]).

use crate::config::{Emit, OptConfig};
use crate::diagnostic::Diagnostic;
use crate::error_limit::{render_all, Limiter};
use crate::expected::{check, parse_expected};
use crate::host::Hosted;
use crate::input::{parse_source, read_input, Content, InputKind, LoadError};
use crate::io::write_atomic;
use crate::ir_printing::DumpSink;
use crate::manager::{PassManager, Session};
use crate::output::{report, write_output, write_results};
use crate::pipeline::parse_pipeline;
use crate::registry::Registry;
use crate::reproducer::{header, parse_header};
use crate::split::{split_input, Chunk, SPLIT_MARKER};
use crate::statistics::Statistics;
use crate::timing::{Timing, TimingKind, TimingNode};
use lattice_lir::contest::ImportOptions;
use lattice_lir::diag::Severity;
use lattice_lir::{verify_module, Module};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// The name diagnostics without a file of their own are attributed to.
const TOOL: &str = "lattice-opt";

/// Runs the driver; diagnostics, dumps and reports go to `err`. Returns the exit code (0 or 1).
pub fn run(config: &OptConfig, registry: Registry, err: &mut dyn Write) -> u8 {
    if let Some(pipeline) = &config.host_pipeline {
        return crate::host_pipeline::run(config, registry, pipeline, err);
    }
    let started = Instant::now();
    let name = config.input.display().to_string();
    let (kind, content) = match read_input(&config.input, registry.host()) {
        Ok(read) => read,
        Err(e) => {
            let all = render_all(&e.diagnostics(), TOOL, None, config.error_limit, TOOL);
            return report(err, &all);
        }
    };
    let (pipeline, verify_each) = if config.run_reproducer {
        let replay = match parse_header(content.text().unwrap_or_default()) {
            Ok(replay) => replay,
            Err(message) => {
                let d = Diagnostic::error(None, message);
                return report(err, &d.render(&name, None));
            }
        };
        match parse_pipeline(&replay.pipeline, &registry) {
            Ok(p) => (p, config.verify_each.unwrap_or(replay.verify_each)),
            Err(e) => {
                let name = format!("{name}:{} (reproducer pipeline)", replay.line);
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
    let emit = config
        .emit
        .unwrap_or_else(|| Emit::of(&config.output, &kind, registry.host()));

    // Binary input (bytecode) is one case, with no text to quote.
    let (chunks, binary) = match content {
        Content::Text(text) if config.split_input && kind.splits() => {
            let chunks: Vec<Chunk> = split_input(&text);
            let filled: Vec<Chunk> = chunks.iter().filter(|c| !c.is_blank()).cloned().collect();
            if filled.is_empty() {
                (chunks.into_iter().take(1).collect(), None)
            } else {
                (filled, None)
            }
        }
        Content::Text(text) => (
            vec![Chunk {
                text,
                first_line: 1,
            }],
            None,
        ),
        Content::Binary(bytes) => (
            vec![Chunk {
                text: String::new(),
                first_line: 1,
            }],
            Some(bytes),
        ),
    };

    let mut session = Session {
        sink: DumpSink::new(err, config.printing.tree_dir.as_deref()),
        diagnostics: Vec::new(),
        timing: config.timing.as_ref().map(|_| Timing::default()),
        statistics: Statistics::default(),
        dump_name: String::new(),
    };
    // Each case's output, `None` for a case that failed.
    let mut outputs: Vec<Option<String>> = Vec::new();
    // The resulting modules, kept for the trace.
    let mut traced: Vec<Module> = Vec::new();
    let mut reports: Vec<Vec<String>> = vec![Vec::new(); config.metrics.len()];
    let mut output_time = Duration::ZERO;
    let mut failed = false;
    let mut usage = false;
    let mut reproducer_written = false;
    let mut limiter = Limiter::new(config.error_limit);
    let mut numbered = 0;
    for chunk in &chunks {
        let _span = tracing::info_span!("case", line = chunk.first_line).entered();
        let input = binary.as_deref().unwrap_or(chunk.text.as_bytes());
        let quote = binary.is_none().then_some(chunk.text.as_str());
        let mut chunk_failed = false;
        let mut output = None;
        match load(input, &kind, &config.import, &mut session) {
            Err(e) => {
                session.diagnostics.extend(e.diagnostics());
                usage |= e.is_usage();
                chunk_failed = true;
            }
            Ok(mut hosted) => {
                // What the host's parser reported besides errors comes first.
                session.diagnostics.append(&mut hosted.diagnostics);
                // The host's parse is only of use to write host IR; it holds the whole input.
                if emit != Emit::Host {
                    hosted.parsed = None;
                }
                let several = chunks.len() > 1 || hosted.modules.len() > 1;
                let mut results = Vec::with_capacity(hosted.modules.len());
                // A case's metrics are reported with its output: not at all when a later module
                // of the case fails (as `--verify-diagnostics` may expect it to).
                let mut case_reports: Vec<Vec<String>> = vec![Vec::new(); config.metrics.len()];
                for mut module in hosted.modules {
                    numbered += 1;
                    session.dump_name = if several {
                        format!("{numbered}_{}", module.name)
                    } else {
                        module.name.clone()
                    };
                    match manager.run(&mut module, &mut session) {
                        Ok(()) => {
                            if let Some(metrics) = registry.metrics() {
                                for (report, (_, format)) in
                                    case_reports.iter_mut().zip(&config.metrics)
                                {
                                    report.push(metrics(&module, *format));
                                }
                            }
                            results.push(module);
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
                if !chunk_failed {
                    let start = Instant::now();
                    let source = matches!(kind, InputKind::Host(_)).then_some(input);
                    let written = write_output(
                        emit,
                        registry.host(),
                        source,
                        hosted.parsed,
                        &results,
                        hosted.outside.as_ref(),
                    );
                    output_time += start.elapsed();
                    match written {
                        Ok((text, warnings)) => {
                            output = Some(text);
                            if config.trace.is_some() {
                                traced.extend(results);
                            }
                            session.diagnostics.extend(warnings);
                            for (report, case) in reports.iter_mut().zip(case_reports) {
                                report.extend(case);
                            }
                        }
                        Err(errors) => {
                            session.diagnostics.extend(errors);
                            chunk_failed = true;
                        }
                    }
                }
            }
        }
        outputs.push(output);
        let diagnostics = std::mem::take(&mut session.diagnostics);
        let stream = session.sink.stream();
        if config.verify_diagnostics {
            let problems = match parse_expected(&chunk.text) {
                Ok(expected) => check(&expected, &diagnostics),
                Err(malformed) => vec![malformed],
            };
            let rendered = limiter.render(&problems, &name, quote);
            let _ = stream.write_all(rendered.as_bytes());
            failed |= !problems.is_empty();
        } else {
            let rendered = limiter.render(&diagnostics, &name, quote);
            let _ = stream.write_all(rendered.as_bytes());
            failed |= chunk_failed || diagnostics.iter().any(|d| d.severity == Severity::Error);
        }
    }

    let _ = session
        .sink
        .stream()
        .write_all(limiter.summary(TOOL).as_bytes());

    let start = Instant::now();
    let text = || {
        let cases: Vec<&str> = outputs.iter().map(|o| o.as_deref().unwrap_or("")).collect();
        cases.join(&format!("{SPLIT_MARKER}\n"))
    };
    if !failed {
        let modules: Vec<&Module> = traced.iter().collect();
        let trace = match (&config.trace, registry.trace()) {
            (Some(path), Some(trace)) => match trace(&modules) {
                Ok(stream) => Some((path.as_path(), stream)),
                Err(diagnostics) => {
                    let rendered = limiter.render(&diagnostics, &name, None);
                    let _ = session.sink.stream().write_all(rendered.as_bytes());
                    failed = true;
                    None
                }
            },
            _ => None,
        };
        if !failed {
            if let Err(message) = write_results(config, &text(), &reports, trace) {
                let _ = writeln!(session.sink.stream(), "{message}");
                failed = true;
            }
        }
    } else if config.split_input && crate::io::writes_in_place(&config.output) {
        // Like mlir-opt, a split input's cases that succeeded are printed even when another
        // failed (that one's output is empty); a file is still written all or nothing.
        if let Err(e) = write_atomic(&config.output, text().as_bytes()) {
            if !e.is_closed_stdout() {
                let _ = writeln!(session.sink.stream(), "error: {e}");
            }
        }
    }
    output_time += start.elapsed();
    if let (Some(timing), Some(to)) = (&mut session.timing, &config.timing) {
        timing.record(
            stages + 1,
            TimingNode::leaf("output", TimingKind::Output, output_time),
        );
        let report = timing.report(to.format, started.elapsed());
        failed |= !deliver(&report, to.file.as_deref(), session.sink.stream());
    }
    if let Some(to) = &config.statistics {
        let report = session.statistics.report(to.format);
        failed |= !deliver(&report, to.file.as_deref(), session.sink.stream());
    }
    if usage {
        2
    } else {
        u8::from(failed)
    }
}

/// Writes an instrumentation report to its file (atomically), or to `err` when it has none;
/// false, with the error on `err`, when the file cannot be written. Reports describe the run,
/// so they are written whether or not it succeeded, as on the error stream.
fn deliver(report: &str, file: Option<&Path>, err: &mut dyn Write) -> bool {
    let Some(path) = file else {
        let _ = err.write_all(report.as_bytes());
        return true;
    };
    match write_atomic(path, report.as_bytes()) {
        Ok(()) => true,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            false
        }
    }
}

/// Parses (or imports) one case and verifies each of its modules, timing both as the `parse`
/// stage.
fn load(
    input: &[u8],
    kind: &InputKind,
    import: &ImportOptions,
    session: &mut Session<'_>,
) -> Result<Hosted, LoadError> {
    let start = Instant::now();
    let parsed = parse_source(input, kind, import);
    let mut node = TimingNode::leaf("parse", TimingKind::Parse, start.elapsed());
    let verified = parsed.and_then(|hosted| {
        if let InputKind::Contest { .. } = kind {
            return Ok(hosted);
        }
        let start = Instant::now();
        let errors: Vec<_> = hosted
            .modules
            .iter()
            .filter_map(|module| verify_module(module).err())
            .flatten()
            .collect();
        node.add_child(TimingNode::leaf(
            "verify",
            TimingKind::Verify,
            start.elapsed(),
        ));
        if errors.is_empty() {
            Ok(hosted)
        } else {
            Err(LoadError::after(
                hosted.diagnostics,
                LoadError::Verify(errors),
            ))
        }
    });
    if let Some(timing) = &mut session.timing {
        timing.record(0, node);
    }
    verified
}
