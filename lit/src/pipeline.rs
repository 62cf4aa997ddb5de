//! Decides how an expanded RUN command is executed: entirely by bash, or as a
//! bash "producer" whose stdout feeds a stage the harness runs itself.
//!
//! The command is split at its last top-level `|` (outside quotes and
//! parentheses; `||` and `|&` are not pipes here). If the stage after it is
//! `FileCheck ...`/`filecheck ...` or the bare word `golden`, everything before
//! that `|` becomes the producer, run by bash as one command line: all of its
//! stdout is checked, its stderr only if it says `2>&1`. Anything else is an
//! ordinary shell command.
//!
//! Invariants: the producer is the command text verbatim, so what the failure
//! message shows is what ran; the in-process stage is split into words like a
//! shell would (quotes, backslashes) but may not use other shell syntax, which
//! would otherwise be silently ignored.

pub enum Sink {
    /// Bash runs the whole command.
    Shell,
    /// In-process FileCheck with these arguments (the program name removed).
    FileCheck(Vec<String>),
    /// Exact comparison with the test file's golden section.
    Golden,
}

pub struct Pipeline<'a> {
    /// What bash runs: the whole command for [`Sink::Shell`], else the part
    /// before the last `|`.
    pub producer: &'a str,
    pub sink: Sink,
}

pub fn parse(command: &str) -> Result<Pipeline<'_>, String> {
    let shell = Pipeline {
        producer: command,
        sink: Sink::Shell,
    };
    let Some(bar) = last_top_level_pipe(command) else {
        return Ok(shell);
    };
    let stage = &command[bar + 1..];
    let sink = match stage.split_whitespace().next() {
        Some("FileCheck" | "filecheck") => {
            let mut words = split_words(stage)?;
            words.remove(0);
            Sink::FileCheck(words)
        }
        Some("golden") => {
            if split_words(stage)?.len() != 1 {
                return Err("`golden` takes no arguments".to_owned());
            }
            Sink::Golden
        }
        _ => return Ok(shell),
    };
    Ok(Pipeline {
        producer: command[..bar].trim_end(),
        sink,
    })
}

fn last_top_level_pipe(command: &str) -> Option<usize> {
    // Byte scanning is UTF-8 safe: every delimiter here is ASCII, and ASCII
    // bytes never occur inside a multi-byte character.
    let bytes = command.as_bytes();
    let mut quote = None;
    let mut depth = 0usize;
    let mut last = None;
    let mut i = 0;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (Some(b'\''), b'\'') | (Some(b'"'), b'"') => quote = None,
            // A backslash escapes the next byte, except inside single quotes.
            (Some(b'"') | None, b'\\') => i += 1,
            (None, c @ (b'\'' | b'"')) => quote = Some(c),
            (None, b'(') => depth += 1,
            (None, b')') => depth = depth.saturating_sub(1),
            (None, b'|') if matches!(bytes.get(i + 1), Some(b'|' | b'&')) => i += 1,
            (None, b'|') if depth == 0 => last = Some(i),
            _ => {}
        }
        i += 1;
    }
    last
}

/// Splits an in-process stage into words the way bash would for a simple
/// command without expansions.
fn split_words(stage: &str) -> Result<Vec<String>, String> {
    let unterminated = || format!("unterminated quote or escape in `{}`", stage.trim());
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = stage.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(unterminated)? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(unterminated)? {
                        '"' => break,
                        '\\' => match chars.next().ok_or_else(unterminated)? {
                            c @ ('"' | '\\' | '$' | '`') => word.push(c),
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => word
                .get_or_insert_with(String::new)
                .push(chars.next().ok_or_else(unterminated)?),
            c if c.is_whitespace() => words.extend(word.take()),
            '<' | '>' | ';' | '&' | '$' | '`' | '(' | ')' => {
                return Err(format!(
                    "`{}` runs inside the harness and cannot use the shell syntax `{c}`",
                    stage.trim()
                ));
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}
