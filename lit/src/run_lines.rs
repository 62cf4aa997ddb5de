//! Extracts the directives of a test file: its `// RUN: <command>` lines, the
//! `// DEFINE: %{name} = value` and `// REDEFINE: %{name} = value` lines that
//! set substitutions for the RUN lines after them, and the `// REQUIRES:` and
//! `// UNSUPPORTED:` lines naming the features the test needs or cannot run
//! with (comma-separated), as lit spells them.
//!
//! A RUN line whose command ends in `\` continues on the next line, which must
//! itself be a RUN line; the pieces are joined with a space, and the command is
//! reported at the line number of its first piece. Lines inside the golden
//! section are output, not directives, so they are never read.
//!
//! Invariants: directives come back in file order with their text untouched
//! apart from trimming (substitution happens later), and an unterminated
//! continuation, an empty command, a malformed definition, a DEFINE of a name
//! already defined or a REDEFINE of one that is not are errors rather than
//! silently dropped.

use std::ops::Range;

use crate::report::LineError;
use crate::substitution::braced_name;

/// One directive that acts in file order.
pub enum Step {
    /// A command; `line` is the 1-based line of its first physical line.
    Run { line: usize, command: String },
    /// `%{name}` becomes `value` for the RUN lines after it.
    Define { name: String, value: String },
}

/// A test file's directives.
#[derive(Default)]
pub struct Script {
    pub steps: Vec<Step>,
    /// Features every one of which the test needs.
    pub requires: Vec<String>,
    /// Features any one of which makes the test unsupported.
    pub unsupported: Vec<String>,
}

impl Script {
    /// The RUN lines' count.
    pub fn runs(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s, Step::Run { .. }))
            .count()
    }
}

/// `skip` is the 0-based range of lines that must not be scanned.
pub fn parse(text: &str, skip: Range<usize>) -> Result<Script, LineError> {
    let mut script = Script::default();
    let mut defined: Vec<String> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let directive = if skip.contains(&index) {
            None
        } else {
            directive(line)
        };
        let Some((keyword, body)) = directive.filter(|(k, _)| *k == "RUN" || pending.is_none())
        else {
            if let Some((open, _)) = pending {
                return Err((
                    open,
                    format!(
                        "RUN line ends with `\\` but line {number} does not continue it \
                         with another `// RUN:` line"
                    ),
                ));
            }
            continue;
        };
        match keyword {
            "RUN" => {
                let (first, mut command) = pending.take().unwrap_or((number, String::new()));
                if !command.is_empty() && !body.is_empty() {
                    command.push(' ');
                }
                match body.strip_suffix('\\') {
                    Some(head) => {
                        command.push_str(head.trim_end());
                        pending = Some((first, command));
                    }
                    None => {
                        command.push_str(body);
                        if command.is_empty() {
                            return Err((first, "empty RUN line".to_owned()));
                        }
                        script.steps.push(Step::Run {
                            line: first,
                            command,
                        });
                    }
                }
            }
            "DEFINE" | "REDEFINE" => {
                let (name, value) = definition(body)
                    .ok_or_else(|| (number, format!("expected `{keyword}: %{{name}} = value`")))?;
                let known = defined.contains(&name);
                if keyword == "DEFINE" && known {
                    return Err((
                        number,
                        format!("`%{{{name}}}` is already defined; REDEFINE changes it"),
                    ));
                }
                if keyword == "REDEFINE" && !known {
                    return Err((
                        number,
                        format!("`%{{{name}}}` is not defined yet; DEFINE it first"),
                    ));
                }
                defined.push(name.clone());
                script.steps.push(Step::Define { name, value });
            }
            _ => {
                let features = body
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned);
                if keyword == "REQUIRES" {
                    script.requires.extend(features);
                } else {
                    script.unsupported.extend(features);
                }
            }
        }
    }
    match pending {
        Some((open, _)) => Err((
            open,
            "RUN line ends with `\\` at the end of the file".to_owned(),
        )),
        None => Ok(script),
    }
}

/// The keyword and trimmed text of a `// KEYWORD:` line, or `None` for any other line.
fn directive(line: &str) -> Option<(&'static str, &str)> {
    let comment = line.trim_start().strip_prefix("//")?.trim_start();
    ["RUN", "DEFINE", "REDEFINE", "REQUIRES", "UNSUPPORTED"]
        .into_iter()
        .find_map(|k| {
            let body = comment.strip_prefix(k)?.strip_prefix(':')?;
            Some((k, body.trim()))
        })
}

/// `%{name} = value` split into the name and the trimmed value.
fn definition(body: &str) -> Option<(String, String)> {
    let name = braced_name(body)?;
    let value = body[name.len() + 3..].trim_start().strip_prefix('=')?;
    Some((name.to_owned(), value.trim().to_owned()))
}
