//! Reproducers: when a pass fails, `--reproducer=FILE` writes the IR as it was before that pass
//! with a header comment naming the remaining pipeline; `--run-reproducer` reads the header back
//! and replays exactly that pipeline on that IR.
//!
//! The header is one LIR comment line, so the file is itself valid LIR:
//! `// lattice-reproducer: pipeline="dlr{victim=lru},cpe{candidates=4 passes=2}" verify-each=true`.
//! Invariant: `parse_header(&header(p, v))` gives back `p` (as text) and `v`.

/// The prefix of the header line.
const PREFIX: &str = "// lattice-reproducer:";

/// The header line (with its newline) for `pipeline` run with `verify_each`.
pub fn header(pipeline: &str, verify_each: bool) -> String {
    let escaped = pipeline.replace('\\', "\\\\").replace('"', "\\\"");
    format!("{PREFIX} pipeline=\"{escaped}\" verify-each={verify_each}\n")
}

/// What a reproducer's header asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The pipeline text.
    pub pipeline: String,
    /// Whether to verify after each pass.
    pub verify_each: bool,
    /// 1-based line of the header, for errors.
    pub line: usize,
}

/// Finds and reads the reproducer header of `text`.
pub fn parse_header(text: &str) -> Result<Replay, String> {
    let (index, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with(PREFIX))
        .ok_or_else(|| format!("no `{PREFIX}` header line: this is not a reproducer"))?;
    let rest = line[PREFIX.len()..].trim_start();
    let rest = rest
        .strip_prefix("pipeline=\"")
        .ok_or("the reproducer header must start with `pipeline=\"`")?;
    let mut pipeline = String::new();
    let mut chars = rest.char_indices();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => pipeline.extend(chars.next().map(|(_, c)| c)),
            '"' => {
                end = Some(i + 1);
                break;
            }
            _ => pipeline.push(c),
        }
    }
    let end = end.ok_or("the pipeline of the reproducer header is not closed by `\"`")?;
    let verify_each = match rest[end..].trim() {
        "" | "verify-each=true" => true,
        "verify-each=false" => false,
        other => return Err(format!("unexpected `{other}` in the reproducer header")),
    };
    Ok(Replay {
        pipeline,
        verify_each,
        line: index + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_including_quotes() {
        let pipeline = r#"test-fail{message="a \"b\"" op=%1}"#;
        let text = format!("{}module @m phase(parsed) {{}}\n", header(pipeline, false));
        let replay = parse_header(&text).unwrap();
        assert_eq!(replay.pipeline, pipeline);
        assert!(!replay.verify_each);
        assert_eq!(replay.line, 1);
        assert!(parse_header("module @m").is_err());
        assert!(parse_header("// lattice-reproducer: pipeline=\"x").is_err());
    }
}
