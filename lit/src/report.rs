//! Failure messages of a trial.
//!
//! Invariants: every message starts with `<test path>:<line>:` (the line of
//! the RUN command or of the offending line; line 1 for whole-file problems)
//! so editors can jump to it. A RUN failure always shows the expanded
//! command, the directory and `PATH` it ran with, its exit status and its
//! stderr, so it can be reproduced by pasting. Captured output is cut to a
//! bounded excerpt that keeps both its start (the first error) and its end
//! (a panic message).

use std::fmt::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Output};

/// Lines kept from each end of a long captured stream, and the length a
/// single kept line is cut to; together they bound a message's size.
const EXCERPT_HEAD: usize = 30;
const EXCERPT_TAIL: usize = 50;
const EXCERPT_LINE: usize = 400;

/// A problem found at a 1-based line of a test file.
pub type LineError = (usize, String);

pub fn at(test: &str, (line, message): LineError) -> String {
    format!("{test}:{line}: {message}\n")
}

/// Where a RUN command came from and how it was run.
pub struct Site<'a> {
    pub test: &'a str,
    pub line: usize,
    pub command: &'a str,
    pub cwd: &'a Path,
    /// The tools put first on `PATH` (none: `PATH` as it is).
    pub bin_dir: Option<&'a Path>,
}

impl Site<'_> {
    /// `output` is what the bash part of the command produced; its stdout is
    /// shown only when that part itself failed, because otherwise `detail`
    /// (a FileCheck report or a diff) already presents it.
    pub fn failure(&self, headline: &str, output: &Output, detail: Option<&str>) -> String {
        let path = match self.bin_dir {
            Some(dir) => format!("with {} first on PATH", dir.display()),
            None => "with PATH as it is".to_owned(),
        };
        let mut msg = format!(
            "{}:{}: {headline}\n\
             command: {}\n\
             (run as `bash -c` with `set -o pipefail` in {}, {path})\n\
             exit status: {}\n",
            self.test,
            self.line,
            self.command,
            self.cwd.display(),
            describe(output.status),
        );
        section(&mut msg, "stderr", &output.stderr);
        if !output.status.success() {
            section(&mut msg, "stdout", &output.stdout);
        }
        if let Some(detail) = detail {
            msg.push('\n');
            msg.push_str(detail.trim_end());
            msg.push('\n');
        }
        msg
    }

    /// A problem of the command itself, found before or instead of running it.
    pub fn error(&self, message: &str) -> String {
        at(
            self.test,
            (self.line, format!("{message}\ncommand: {}", self.command)),
        )
    }
}

fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(101), _) => "101 (the status of a Rust panic)".to_owned(),
        (Some(code), _) if code >= 128 => {
            format!("{code} (killed by signal {})", code - 128)
        }
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => status.to_string(),
    }
}

fn section(msg: &mut String, name: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.is_empty() {
        let _ = writeln!(msg, "{name}: (empty)");
        return;
    }
    let _ = writeln!(msg, "{name}:");
    for line in excerpt(text) {
        let _ = writeln!(msg, "  | {line}");
    }
}

fn excerpt(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let cut = |line: &&str| match line.char_indices().nth(EXCERPT_LINE) {
        Some((end, _)) => format!("{} [... line cut]", &line[..end]),
        None => (*line).to_owned(),
    };
    if lines.len() <= EXCERPT_HEAD + EXCERPT_TAIL {
        return lines.iter().map(cut).collect();
    }
    let omitted = lines.len() - EXCERPT_HEAD - EXCERPT_TAIL;
    let mut kept: Vec<String> = lines[..EXCERPT_HEAD].iter().map(cut).collect();
    kept.push(format!("[... {omitted} lines omitted ...]"));
    kept.extend(lines[lines.len() - EXCERPT_TAIL..].iter().map(cut));
    kept
}
