//! What a `lattice-opt` run writes: the resulting modules as LIR or host IR (as [`Emit`] says),
//! with the metrics reports and the trace, all or nothing. Shared by the driver and the host
//! pipeline, which produce the modules in different ways and write them the same way.
//!
//! Invariants: the output, every metrics file and the trace are written by one
//! [`crate::io::stream_all_or_nothing`], so a failure leaves none of them; a closed standard output
//! (`| head`) ends the run quietly. O(output size).

use crate::config::{Emit, OptConfig};
use crate::diagnostic::Diagnostic;
use crate::host::{Host, Outside, Parsed};
use crate::io::{bytes_stream, stream_all_or_nothing, Stream};
use crate::registry::MetricsFormat;
use crate::split::SPLIT_MARKER;
use lattice_lir::diag::Severity;
use lattice_lir::{print_module, Module};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The output of one case: the resulting modules as `emit` asks, and the warnings that go with
/// it (LIR leaves out what the host input held outside its lattice modules), or why it cannot be
/// written. `source` is the case's host IR input, if it was host IR, and `parsed` what the host
/// kept of it when reading.
pub fn write_output(
    emit: Emit,
    host: Option<&Host>,
    source: Option<&[u8]>,
    parsed: Option<Parsed>,
    results: &[Module],
    outside: Option<&Outside>,
) -> Result<(String, Vec<Diagnostic>), Vec<Diagnostic>> {
    match emit {
        Emit::Lir => {
            let printed: Vec<String> = results.iter().map(print_module).collect();
            let warnings = outside.map(|o| {
                let others = match o.count {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                };
                Diagnostic::new(
                    Severity::Warning,
                    o.loc,
                    format!(
                        "`{}`{others} outside the lattice module left out: the output is LIR, \
                         which holds lattice modules only (`--emit=mlir` keeps them)",
                        o.first
                    ),
                )
                .in_file(o.file.clone())
            });
            Ok((
                printed.join(&format!("{SPLIT_MARKER}\n")),
                warnings.into_iter().collect(),
            ))
        }
        Emit::Host => {
            let host = host.ok_or_else(|| {
                vec![Diagnostic::error(
                    None,
                    "this tool writes no IR besides LIR (it has no host IR)",
                )]
            })?;
            let mut text = (host.write)(source, parsed, results)?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            Ok((text, Vec::new()))
        }
    }
}

/// Writes the output `text`, the metrics `reports` (one per `config.metrics` destination, one
/// entry per module) and the `trace`, if any, all or nothing; the error is the message to print.
pub fn write_results(
    config: &OptConfig,
    text: &str,
    reports: &[Vec<String>],
    trace: Option<(&Path, Stream<'_>)>,
) -> Result<(), String> {
    let metrics = config
        .metrics
        .iter()
        .zip(reports)
        .map(|((path, format), report)| {
            let joined = match format {
                MetricsFormat::Json if report.len() > 1 => {
                    format!("[\n{}\n]", report.join(",\n"))
                }
                _ => report.join("\n"),
            };
            (path, format!("{}\n", joined.trim_end()))
        });
    let writes: Vec<(&PathBuf, String)> = std::iter::once((&config.output, text.to_owned()))
        .chain(metrics)
        .collect();
    let mut streams: Vec<(&Path, Stream<'_>)> = writes
        .iter()
        .map(|(path, text)| (path.as_path(), bytes_stream(text.as_bytes())))
        .chain(trace)
        .collect();
    match stream_all_or_nothing(&mut streams) {
        // The reader of stdout went away (`| head`): stop quietly, as Unix tools do.
        Err(e) if e.is_closed_stdout() => Ok(()),
        Err(e) => Err(format!("error: {e}")),
        Ok(()) => Ok(()),
    }
}

/// Writes a failed run's diagnostics `text` to `err`; returns the failure's exit code, 1.
pub fn report(err: &mut dyn Write, text: &str) -> u8 {
    let _ = err.write_all(text.as_bytes());
    1
}
