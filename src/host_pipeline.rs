//! `lattice-opt` with a pipeline that names passes of the host IR, e.g.
//! `builtin.module(canonicalize,lattice-mpas,lattice-dlr{victim=lru})` with the MLIR bridge: the
//! host's pass manager runs the whole pipeline (lattice passes included, as the host runs them),
//! over the input itself when it is host IR, or over the LIR module converted when it is LIR or a
//! contest graph.
//!
//! Invariants: the output follows the same rules as the driver's ([`Emit`]: host IR keeps what is
//! outside the lattice modules; LIR holds them alone, with a warning for what is left out) and is
//! written, with the metrics of every resulting lattice module, all or nothing and only on success,
//! and only when every resulting lattice module passes the structural verifier (a pipeline of
//! upstream passes alone runs no lattice pass to check it); a failure is the host's diagnostics,
//! located in the input, and exit code 1. The driver's own instrumentation (IR printing, timing,
//! statistics, reproducers, split input, expected diagnostics, `--capacity`) does not apply: the
//! CLI refuses it with such a pipeline, since it is the host's pass manager that runs. O(the host's
//! run) plus the conversions.

use crate::config::{Emit, OptConfig};
use crate::diagnostic::Diagnostic;
use crate::error_limit::render_all;
use crate::host::HostInput;
use crate::input::{parse_lattice, read_input, InputKind};
use crate::output::{report, write_output, write_results};
use crate::registry::Registry;
use lattice_lir::{verify_module, Module};
use std::io::Write;

const TOOL: &str = "lattice-opt";

/// Runs `pipeline` (host pipeline text) as `config` says; returns the exit code (0 or 1).
pub fn run(config: &OptConfig, registry: Registry, pipeline: &str, err: &mut dyn Write) -> u8 {
    let render = |diagnostics: &[Diagnostic], text: Option<&str>| {
        let name = config.input.display().to_string();
        render_all(diagnostics, &name, text, config.error_limit, TOOL)
    };
    let Some(host) = registry.host() else {
        let d = Diagnostic::error(None, "this tool has no host IR to run the pipeline in");
        return report(err, &render(&[d], None));
    };
    let (kind, content) = match read_input(&config.input, Some(host)) {
        Ok(read) => read,
        Err(e) => return report(err, &render(&e.diagnostics(), None)),
    };
    let quote = content.text();
    if config.dump_pipeline {
        match (host.check_pipeline)(pipeline) {
            Ok(printed) => {
                let _ = writeln!(err, "{printed}");
            }
            Err(message) => return report(err, &render(&[Diagnostic::error(None, message)], None)),
        }
    }
    // LIR or a contest graph: its one module, checked, then converted for the host to run.
    let lattice =
        |contest: Option<&str>| match parse_lattice(content.bytes(), contest, &config.import) {
            Err(e) => Err(e.diagnostics()),
            Ok(module) => match structural_errors(std::slice::from_ref(&module)) {
                invalid if invalid.is_empty() => {
                    (host.run_pipeline)(HostInput::Module(&module), pipeline)
                }
                invalid => Err(invalid),
            },
        };
    let ran = match &kind {
        InputKind::Host(_) => (host.run_pipeline)(HostInput::Source(content.bytes()), pipeline),
        InputKind::Contest { name } => lattice(Some(name)),
        InputKind::Lir => lattice(None),
    };
    let ran = match ran {
        Ok(ran) => ran,
        Err(diagnostics) => return report(err, &render(&diagnostics, quote)),
    };
    // Only lattice passes verify what they leave, and a pipeline of upstream passes runs none:
    // what is written or measured must still be valid IR.
    let invalid = structural_errors(&ran.modules);
    if !invalid.is_empty() {
        return report(err, &render(&invalid, quote));
    }
    let emit = config
        .emit
        .unwrap_or_else(|| Emit::of(&config.output, &kind, Some(host)));
    let mut diagnostics = ran.diagnostics;
    let text = match emit {
        Emit::Host => Ok((ran.text, Vec::new())),
        Emit::Lir => write_output(
            emit,
            Some(host),
            None,
            None,
            &ran.modules,
            ran.outside.as_ref(),
        ),
    };
    let text = match text {
        Ok((text, warnings)) => {
            diagnostics.extend(warnings);
            text
        }
        Err(errors) => {
            diagnostics.extend(errors);
            return report(err, &render(&diagnostics, quote));
        }
    };
    let _ = err.write_all(render(&diagnostics, quote).as_bytes());
    let reports: Vec<Vec<String>> = match registry.metrics() {
        Some(metrics) => config
            .metrics
            .iter()
            .map(|(_, format)| ran.modules.iter().map(|m| metrics(m, *format)).collect())
            .collect(),
        None => vec![Vec::new(); config.metrics.len()],
    };
    match write_results(config, &text, &reports, None) {
        Ok(()) => 0,
        Err(message) => report(err, &format!("{message}\n")),
    }
}

/// The structural verifier's errors for `modules`, located where each op came from.
fn structural_errors(modules: &[Module]) -> Vec<Diagnostic> {
    modules
        .iter()
        .filter_map(|m| verify_module(m).err())
        .flatten()
        .map(|e| Diagnostic::from_located(&e))
        .collect()
}
