//! Extracts the commands of a test file from its `// RUN: <command>` lines.
//!
//! A RUN line whose command ends in `\` continues on the next line, which must
//! itself be a RUN line; the pieces are joined with a space, and the command is
//! reported at the line number of its first piece. Lines inside the golden
//! section are output, not directives, so they are never read as RUN lines.
//!
//! Invariants: commands come back in file order with their text untouched
//! apart from trimming (substitution happens later), and an unterminated
//! continuation or an empty command is an error rather than silently dropped.

use std::ops::Range;

use crate::report::LineError;

const PREFIX: &str = "RUN:";

pub struct RunLine {
    /// 1-based line number of the first physical line of the command.
    pub line: usize,
    pub command: String,
}

/// `skip` is the 0-based range of lines that must not be scanned.
pub fn parse(text: &str, skip: Range<usize>) -> Result<Vec<RunLine>, LineError> {
    let mut runs = Vec::new();
    let mut pending: Option<RunLine> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let piece = if skip.contains(&index) {
            None
        } else {
            run_text(line)
        };
        let Some(piece) = piece else {
            if let Some(open) = pending {
                return Err((
                    open.line,
                    format!(
                        "RUN line ends with `\\` but line {number} does not continue it \
                         with another `// RUN:` line"
                    ),
                ));
            }
            continue;
        };
        let mut run = pending.take().unwrap_or(RunLine {
            line: number,
            command: String::new(),
        });
        if !run.command.is_empty() && !piece.is_empty() {
            run.command.push(' ');
        }
        match piece.strip_suffix('\\') {
            Some(head) => {
                run.command.push_str(head.trim_end());
                pending = Some(run);
            }
            None => {
                run.command.push_str(piece);
                if run.command.is_empty() {
                    return Err((run.line, "empty RUN line".to_owned()));
                }
                runs.push(run);
            }
        }
    }
    match pending {
        Some(open) => Err((
            open.line,
            "RUN line ends with `\\` at the end of the file".to_owned(),
        )),
        None => Ok(runs),
    }
}

/// The trimmed command text of a `// RUN:` line, or `None` for any other line.
fn run_text(line: &str) -> Option<&str> {
    let comment = line.trim_start().strip_prefix("//")?;
    Some(comment.trim_start().strip_prefix(PREFIX)?.trim())
}
