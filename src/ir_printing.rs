//! IR printing around passes: `--print-ir-before/-after[-all]`, `-after-change`, `-after-failure`,
//! `--print-ir-diff` and `--print-ir-tree-dir`.
//!
//! Invariants:
//! - every dump is a header line that is a LIR comment followed by the module exactly as the printer
//!   prints it, so any dump (or a whole stream of them, which `--split-input-file` splits at the
//!   `// -----` that starts each header) parses back;
//! - "changed" means the printed text differs, byte for byte (not a hash, so no false positives);
//! - with a tree directory, each dump goes to its own numbered file instead of the error stream.

use similar::TextDiff;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Which passes a `--print-ir-before`/`-after` flag selects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PassFilter {
    /// None (the default).
    #[default]
    None,
    /// Every pass (`-all`).
    All,
    /// The passes with these names.
    Named(Vec<String>),
}

impl PassFilter {
    /// Whether the pass `name` is selected.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            PassFilter::None => false,
            PassFilter::All => true,
            PassFilter::Named(names) => names.iter().any(|n| n == name),
        }
    }

    /// Adds the passes of a `--print-ir-*=P,Q` flag.
    pub fn extend(&mut self, names: impl IntoIterator<Item = String>) {
        let mut names = names.into_iter().peekable();
        if *self == PassFilter::All || names.peek().is_none() {
            return;
        }
        let mut all = match std::mem::take(self) {
            PassFilter::Named(known) => known,
            _ => Vec::new(),
        };
        all.extend(names);
        *self = PassFilter::Named(all);
    }
}

/// The IR-printing configuration of a run.
#[derive(Clone, Debug, Default)]
pub struct IrPrinting {
    /// Dump before these passes.
    pub before: PassFilter,
    /// Dump after these passes.
    pub after: PassFilter,
    /// Restrict after-dumps to passes that changed the printed IR (alone, it selects all passes).
    pub after_change: bool,
    /// Dump the IR after a pass that failed.
    pub after_failure: bool,
    /// Print a unified diff of what each pass changed.
    pub diff: bool,
    /// Write dumps as files under this directory instead of to the error stream.
    pub tree_dir: Option<PathBuf>,
}

impl IrPrinting {
    /// Whether the text before each pass must be kept (to detect or show changes).
    pub fn needs_before_text(&self) -> bool {
        self.after_change || self.diff
    }

    /// Whether an after-dump of `name` is selected; `changed` tells whether its text changed.
    pub fn dump_after(&self, name: &str, changed: bool) -> bool {
        // `--print-ir-after-change` or `--print-ir-tree-dir` without a pass selection mean "every pass".
        let implied_all = self.after == PassFilter::None
            && (self.after_change || (self.tree_dir.is_some() && self.before == PassFilter::None));
        let selected = implied_all || self.after.matches(name);
        selected && (changed || !self.after_change)
    }
}

/// When a dump is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpPoint {
    /// Before the pass.
    Before,
    /// After the pass.
    After,
    /// After the pass failed.
    AfterFailure,
}

impl DumpPoint {
    fn title(self) -> &'static str {
        match self {
            DumpPoint::Before => "Before",
            DumpPoint::After | DumpPoint::AfterFailure => "After",
        }
    }

    fn file_suffix(self) -> &'static str {
        match self {
            DumpPoint::Before => "before",
            DumpPoint::After => "after",
            DumpPoint::AfterFailure => "failed",
        }
    }
}

/// Where dumps go: the error stream, or a directory tree.
pub struct DumpSink<'w> {
    stream: &'w mut dyn Write,
    tree: Option<PathBuf>,
}

impl<'w> DumpSink<'w> {
    /// Dumps go to `stream`, or under `tree_dir/<module>/` when a directory is given.
    pub fn new(stream: &'w mut dyn Write, tree_dir: Option<&Path>) -> Self {
        DumpSink {
            stream,
            tree: tree_dir.map(Path::to_path_buf),
        }
    }

    /// The stream that reports and non-dump messages go to.
    pub fn stream(&mut self) -> &mut dyn Write {
        self.stream
    }

    /// Writes one dump of `text` (a printed module) taken at `point` around pass number `index`
    /// (1-based) named `pass`; `label` is the pass with its options.
    pub fn dump(
        &mut self,
        module: &str,
        index: usize,
        pass: &str,
        label: &str,
        point: DumpPoint,
        text: &str,
    ) -> std::io::Result<()> {
        let failed = if point == DumpPoint::AfterFailure {
            " Failed"
        } else {
            ""
        };
        let header = format!(
            "// -----// IR Dump {} {label}{failed} ({index}) //----- //\n",
            point.title()
        );
        match &self.tree {
            None => {
                self.stream.write_all(header.as_bytes())?;
                self.stream.write_all(text.as_bytes())
            }
            Some(root) => {
                let dir = root.join(module);
                std::fs::create_dir_all(&dir)?;
                let file = dir.join(format!("{index:02}_{pass}.{}.lir", point.file_suffix()));
                std::fs::write(file, format!("{header}{text}"))
            }
        }
    }

    /// Writes the unified diff between the texts before and after pass `index` (nothing when
    /// they are equal).
    pub fn diff(
        &mut self,
        index: usize,
        label: &str,
        before: &str,
        after: &str,
    ) -> std::io::Result<()> {
        if before == after {
            return Ok(());
        }
        let diff = TextDiff::from_lines(before, after);
        let unified = diff
            .unified_diff()
            .context_radius(2)
            .header(&format!("before {label}"), &format!("after {label}"))
            .to_string();
        write!(
            self.stream,
            "// -----// IR Diff After {label} ({index}) //----- //\n{unified}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_change_alone_selects_every_pass_but_only_when_changed() {
        let printing = IrPrinting {
            after_change: true,
            ..IrPrinting::default()
        };
        assert!(printing.dump_after("mpas", true));
        assert!(!printing.dump_after("mpas", false));
        let named = IrPrinting {
            after: PassFilter::Named(vec!["dlr".into()]),
            ..printing
        };
        assert!(!named.dump_after("mpas", true));
        assert!(named.dump_after("dlr", true));
    }

    #[test]
    fn filters_accumulate_names_and_all_wins() {
        let mut filter = PassFilter::None;
        filter.extend(Vec::new());
        assert_eq!(filter, PassFilter::None);
        filter.extend(["a".to_string()]);
        filter.extend(["b".to_string()]);
        assert!(filter.matches("a") && filter.matches("b") && !filter.matches("c"));
        let mut all = PassFilter::All;
        all.extend(["a".to_string()]);
        assert_eq!(all, PassFilter::All);
    }
}
