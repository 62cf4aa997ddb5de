//! The error limit of the tools' diagnostic lists (clang's `-ferror-limit`): after `N` errors at
//! a place in the input the rest are counted, not printed, and one line at the end says how many
//! were left out. One bad tier name can make every later operation of an input invalid;
//! thousands of cascading errors bury the first one, which is the one to fix.
//!
//! Only errors with a location count: a cascade is one error per op, buffer or edge, and those
//! have places. An error without one is a verdict (`verification failed: …`, the pass that
//! stopped a pipeline), an unwritable file or a pass that cannot be built — one per run, and the
//! line that says why the run failed, so it is always printed. (On contest JSON input, whose ops
//! have no line, the verifier pass caps its own list: `max-per-category`.)
//!
//! Invariants: the first `N` located errors are printed in order, exactly as without a limit;
//! unlocated errors, warnings and remarks are never hidden; a note belongs to the diagnostic
//! before it and is hidden with it; the summary line appears iff at least one error was hidden,
//! and counts every hidden error of every list rendered through the same [`Limiter`] (e.g. all
//! chunks of a split input).

use crate::diagnostic::Diagnostic;
use lattice_lir::diag::{render, Severity};
use std::fmt;
use std::str::FromStr;

/// How many errors a tool prints; the default is [`ErrorLimit::DEFAULT`], `0` means no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorLimit(usize);

impl ErrorLimit {
    /// Errors printed when `--error-limit` is not given: enough to see a pattern, few enough
    /// that the first one stays on screen.
    pub const DEFAULT: ErrorLimit = ErrorLimit(20);
    /// Every error is printed.
    pub const UNLIMITED: ErrorLimit = ErrorLimit(0);

    /// At most `n` errors; `0` means no limit, as with clang's `-ferror-limit=0`.
    pub fn new(n: usize) -> Self {
        ErrorLimit(n)
    }

    /// Whether `shown` errors already fill the limit.
    fn reached(self, shown: usize) -> bool {
        self.0 != 0 && shown >= self.0
    }
}

impl Default for ErrorLimit {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for ErrorLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// `--error-limit=N`: a count of errors, `0` for no limit.
impl FromStr for ErrorLimit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.parse::<usize>()
            .map(ErrorLimit)
            .map_err(|_| format!("`{s}` is not a count of errors (0 prints them all)"))
    }
}

/// Renders diagnostic lists under one limit, counting what it hides.
#[derive(Debug)]
pub struct Limiter {
    limit: ErrorLimit,
    shown: usize,
    hidden: usize,
    /// The last error was hidden, so the notes that follow it are too.
    hiding_notes: bool,
}

impl Limiter {
    /// A limiter that has printed nothing yet.
    pub fn new(limit: ErrorLimit) -> Self {
        Limiter {
            limit,
            shown: 0,
            hidden: 0,
            hiding_notes: false,
        }
    }

    /// Renders the diagnostics of `file` (whose text is `text`) that the limit lets through.
    pub fn render(&mut self, diagnostics: &[Diagnostic], file: &str, text: Option<&str>) -> String {
        let mut out = String::new();
        for d in diagnostics {
            match d.severity {
                // A verdict or an environment error: never part of a cascade.
                Severity::Error if d.loc.is_none() => self.hiding_notes = false,
                Severity::Error if self.limit.reached(self.shown) => {
                    self.hidden += 1;
                    self.hiding_notes = true;
                    continue;
                }
                Severity::Error => {
                    self.shown += 1;
                    self.hiding_notes = false;
                }
                Severity::Note if self.hiding_notes => continue,
                _ => self.hiding_notes = false,
            }
            out.push_str(&d.render(file, text));
        }
        out
    }

    /// How many errors the limit has hidden so far.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// `tool: note: … and N more errors …`, or nothing when no error was hidden.
    pub fn summary(&self, tool: &str) -> String {
        if self.hidden == 0 {
            return String::new();
        }
        let plural = if self.hidden == 1 { "" } else { "s" };
        let message = format!(
            "… and {} more error{plural} (--error-limit={}; 0 shows all)",
            self.hidden, self.limit
        );
        render(tool, None, None, Severity::Note, &message)
    }
}

/// Renders a list of diagnostics in order, at most `limit` errors of it, then a line saying how
/// many more there were (attributed to `tool`) if the limit hid any.
pub fn render_all(
    diagnostics: &[Diagnostic],
    file: &str,
    text: Option<&str>,
    limit: ErrorLimit,
    tool: &str,
) -> String {
    let mut limiter = Limiter::new(limit);
    let mut out = limiter.render(diagnostics, file, text);
    out.push_str(&limiter.summary(tool));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::diag::Loc;

    fn error(line: u32) -> Diagnostic {
        Diagnostic::error(Some(Loc { line, col: 1 }), format!("bad {line}"))
    }

    #[test]
    fn errors_past_the_limit_are_counted_with_their_notes() {
        let list = vec![
            error(1),
            Diagnostic::note(None, "about 1"),
            error(2),
            Diagnostic::note(None, "about 2"),
            Diagnostic::new(Severity::Warning, None, "kept"),
            error(3),
            Diagnostic::error(None, "verification failed"),
        ];
        let mut limiter = Limiter::new(ErrorLimit::new(1));
        let out = limiter.render(&list, "f.lir", None);
        assert!(out.contains("f.lir:1:1: error: bad 1"), "{out}");
        assert!(out.contains("note: about 1"), "{out}");
        assert!(!out.contains("bad 2") && !out.contains("about 2") && !out.contains("bad 3"));
        assert!(out.contains("warning: kept"), "{out}");
        assert!(out.contains("f.lir: error: verification failed"), "{out}");
        assert_eq!(limiter.hidden(), 2);
        assert_eq!(
            limiter.summary("tool"),
            "tool: note: … and 2 more errors (--error-limit=1; 0 shows all)\n"
        );
    }

    #[test]
    fn the_count_spans_every_list_of_one_limiter() {
        let mut limiter = Limiter::new(ErrorLimit::new(2));
        assert_eq!(limiter.render(&[error(1)], "a", None).lines().count(), 1);
        assert_eq!(
            limiter
                .render(&[error(2), error(3)], "b", None)
                .lines()
                .count(),
            1
        );
        assert_eq!(limiter.hidden(), 1);
        assert!(limiter.summary("t").contains("and 1 more error ("));
    }

    #[test]
    fn zero_is_no_limit_and_nothing_hidden_means_no_summary() {
        let list: Vec<Diagnostic> = (1..=50).map(error).collect();
        let mut limiter = Limiter::new(ErrorLimit::UNLIMITED);
        assert_eq!(limiter.render(&list, "f", None).lines().count(), 50);
        assert_eq!(limiter.summary("t"), "");
        let mut default = Limiter::new(ErrorLimit::default());
        assert_eq!(default.render(&list, "f", None).lines().count(), 20);
        assert_eq!(default.hidden(), 30);
    }

    #[test]
    fn a_limit_parses_from_a_count_only() {
        assert_eq!("0".parse::<ErrorLimit>(), Ok(ErrorLimit::UNLIMITED));
        assert_eq!("7".parse::<ErrorLimit>(), Ok(ErrorLimit::new(7)));
        assert!("-1".parse::<ErrorLimit>().is_err());
        assert!("many".parse::<ErrorLimit>().is_err());
    }
}
