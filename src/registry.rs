//! The pass registry: one static list of [`PassInfo`] entries from which the CLI flags, the pipeline
//! parser's name lookup, `--list-passes`, the "unknown pass" error and the manual's pass table are all
//! derived, so none of them can drift from the others. It also carries the passes crate's metrics
//! reporter and trace writer and the host IR a tool adds (the MLIR bridge's `.mlir`), so the driver can print
//! metrics and read, write and run that IR without depending on any pass or on MLIR.
//!
//! Invariants (checked by [`Registry::check`], which the driver runs before using a registry):
//! names are unique kebab-case words that do not shadow a driver flag; `test-` passes are listed
//! apart from the real ones.

use crate::diagnostic::Diagnostic;
use crate::host::Host;
use crate::io::Stream;
use crate::options::quote_if_needed;
use crate::pass::PassInfo;
use lattice_lir::Module;
use std::fmt::Write as _;

/// How `--metrics` / `--metrics-text` want a module's metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricsFormat {
    /// Machine-readable JSON.
    Json,
    /// Human-readable text.
    Text,
}

/// Computes and renders the metrics of a (final) module.
pub type MetricsFn = fn(&Module, MetricsFormat) -> String;

/// Checks that the final modules can be traced, then returns what streams their trace (`--trace`);
/// the diagnostics say why they cannot.
pub type TraceFn = for<'a> fn(&'a [&'a Module]) -> Result<Stream<'a>, Vec<Diagnostic>>;

/// A list of registered passes, plus the metrics the passes crate knows how to compute and the
/// host IR the tool reads and writes besides LIR and contest JSON.
#[derive(Clone, Copy)]
pub struct Registry {
    passes: &'static [PassInfo],
    metrics: Option<MetricsFn>,
    trace: Option<TraceFn>,
    host: Option<&'static Host>,
}

impl Registry {
    /// A registry over a static list (in the order `--list-passes` shows it).
    pub const fn new(passes: &'static [PassInfo]) -> Self {
        Registry {
            passes,
            metrics: None,
            trace: None,
            host: None,
        }
    }

    /// The same registry, able to report module metrics (`--metrics`).
    pub const fn with_metrics(self, metrics: MetricsFn) -> Self {
        Registry {
            metrics: Some(metrics),
            ..self
        }
    }

    /// The same registry, able to write traces of final modules (`--trace`).
    pub const fn with_trace(self, trace: TraceFn) -> Self {
        Registry {
            trace: Some(trace),
            ..self
        }
    }

    /// The same registry, reading and writing `host` IR too (`lattice-opt in.mlir`), and running
    /// pipelines that name its passes.
    pub const fn with_host(self, host: &'static Host) -> Self {
        Registry {
            host: Some(host),
            ..self
        }
    }

    /// The host IR added to LIR and contest JSON, if any.
    pub fn host(&self) -> Option<&'static Host> {
        self.host
    }

    /// The metrics reporter, if the registry has one.
    pub fn metrics(&self) -> Option<MetricsFn> {
        self.metrics
    }

    /// The trace writer, if the registry has one.
    pub fn trace(&self) -> Option<TraceFn> {
        self.trace
    }

    /// Every entry, registration order.
    pub fn passes(&self) -> &'static [PassInfo] {
        self.passes
    }

    /// The entry named `name`, or `lattice-<name>`: the spelling the MLIR bridge registers, so
    /// one pipeline string works in `lattice-opt` and in an MLIR pass manager. Pipelines are
    /// printed back with the short name.
    pub fn get(&self, name: &str) -> Option<&'static PassInfo> {
        let find = |name: &str| self.passes.iter().find(|p| p.name == name);
        find(name).or_else(|| name.strip_prefix("lattice-").and_then(find))
    }

    /// The names of the real passes, sorted, then the test passes, for error messages.
    pub fn valid_names(&self) -> String {
        let sorted = |test: bool| {
            let mut names: Vec<&str> = self
                .passes
                .iter()
                .filter(|p| p.is_test() == test)
                .map(|p| p.name)
                .collect();
            names.sort_unstable();
            names.join(", ")
        };
        match (sorted(false), sorted(true)) {
            (real, test) if test.is_empty() => real,
            (real, test) if real.is_empty() => format!("(none); test passes: {test}"),
            (real, test) => format!("{real}; test passes: {test}"),
        }
    }

    /// "unknown pass `x`; valid passes: …", with a suggestion when one name is close.
    pub fn unknown_pass(&self, name: &str) -> String {
        let mut message = format!(
            "unknown pass `{name}`; valid passes: {}",
            self.valid_names()
        );
        if let Some(close) = self.closest(name) {
            let _ = write!(message, " (did you mean `{close}`?)");
        }
        message
    }

    fn closest(&self, name: &str) -> Option<&'static str> {
        self.passes
            .iter()
            .map(|p| (strsim::levenshtein(name, p.name), p.name))
            .filter(|&(d, candidate)| d > 0 && d <= 2.max(candidate.len() / 3))
            .min()
            .map(|(_, candidate)| candidate)
    }

    /// Checks the registry's invariants; `reserved` lists driver flags a pass must not shadow.
    pub fn check(&self, reserved: &[&str]) -> Result<(), String> {
        for (i, pass) in self.passes.iter().enumerate() {
            let kebab = !pass.name.is_empty()
                && pass
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !kebab {
                return Err(format!("pass name `{}` is not kebab case", pass.name));
            }
            if self.passes[..i].iter().any(|p| p.name == pass.name) {
                return Err(format!("pass `{}` is registered twice", pass.name));
            }
            if reserved.contains(&pass.name) {
                return Err(format!("pass `{}` shadows a driver flag", pass.name));
            }
        }
        Ok(())
    }

    /// The `--list-passes` text: real passes, then test passes, each with its options and defaults.
    pub fn list(&self) -> String {
        let mut out = String::new();
        for (title, test) in [
            ("Passes:", false),
            ("Test passes (they exercise the pass infrastructure):", true),
        ] {
            let group: Vec<_> = self.passes.iter().filter(|p| p.is_test() == test).collect();
            if group.is_empty() {
                continue;
            }
            let _ = writeln!(out, "{title}");
            let width = group.iter().map(|p| p.name.len()).max().unwrap_or(0);
            for pass in group {
                let _ = writeln!(out, "  {:width$}  {}", pass.name, pass.summary);
                for option in (pass.options)() {
                    let _ = writeln!(out, "      {}", option.describe());
                }
            }
        }
        out
    }

    /// The manual's pass table (Markdown, docs/lattice-opt.md), real passes first; each option with
    /// its default, its type and valid range, and its summary.
    pub fn markdown_table(&self) -> String {
        let mut out = String::from("| Pass | What it does | Options (default) |\n|---|---|---|\n");
        let mut ordered: Vec<_> = self.passes.iter().filter(|p| !p.is_test()).collect();
        ordered.extend(self.passes.iter().filter(|p| p.is_test()));
        for pass in ordered {
            let options: Vec<String> = (pass.options)()
                .iter()
                .map(|o| {
                    let default = quote_if_needed(&o.default);
                    format!("`{}={default}` ({}) {}", o.name, o.type_name, o.summary)
                })
                .collect();
            let options = if options.is_empty() {
                "—".to_string()
            } else {
                options.join("<br>")
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                pass.name,
                pass.summary.replace('|', "\\|"),
                options.replace('|', "\\|")
            );
        }
        out
    }
}
