//! `--verify-diagnostics`: the input states the diagnostics it expects, in comments, and the run
//! succeeds only if exactly those are produced.
//!
//! Directives (MLIR's): `// expected-error {{text}}` expects an error on the same line whose message
//! contains `text`; `@+N` / `@-N` shift the line, `@below` / `@above` mean the nearest line that is
//! not a directive-only comment, `@unknown` a diagnostic without location. Severities: `error`, `warning`,
//! `remark`, `note` (other words after `expected-` are prose, not directives). Unlocated notes (summaries such as "N structural error(s)") are not checked.
//! Invariant: each produced diagnostic matches at most one directive and vice versa; leftovers on
//! either side are reported as errors at their location. O(directives × diagnostics).

use crate::diagnostic::Diagnostic;
use lattice_lir::diag::{Loc, Severity};

/// One `expected-*` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The expected severity.
    pub severity: Severity,
    /// The 1-based line it expects the diagnostic on; `None` for `@unknown`.
    pub line: Option<u32>,
    /// A substring of the expected message.
    pub text: String,
    /// Where the directive is written.
    pub at: Loc,
}

/// Reads every directive in `text`.
pub fn parse_expected(text: &str) -> Result<Vec<Expected>, Diagnostic> {
    let lines: Vec<&str> = text.lines().collect();
    // `@below`/`@above` skip lines that hold nothing but a directive comment.
    let has_directive = |l: &str| l.trim_start().starts_with("//") && l.contains("expected-");
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let mut rest = *line;
        let mut consumed = 0;
        while let Some(found) = rest.find("expected-") {
            let start = consumed + found;
            let at = Loc::new(index + 1, line[..start].chars().count() + 1);
            let bad =
                |why: &str| Diagnostic::error(Some(at), format!("malformed directive: {why}"));
            let after = &line[start + "expected-".len()..];
            let Some((severity, after)) = [
                ("error", Severity::Error),
                ("warning", Severity::Warning),
                ("remark", Severity::Remark),
                ("note", Severity::Note),
            ]
            .into_iter()
            .find_map(|(word, sev)| after.strip_prefix(word).map(|a| (sev, a))) else {
                // Prose such as "expected-* directives" is not a directive (MLIR ignores it too).
                consumed = start + "expected-".len();
                rest = &line[consumed..];
                continue;
            };
            let (target, after) = match after.strip_prefix('@') {
                None => (Some(index), after),
                Some(spec) => {
                    let len = spec.find(char::is_whitespace).unwrap_or(spec.len());
                    let (word, after) = spec.split_at(len);
                    let target = match word {
                        "unknown" => None,
                        "below" => Some(
                            (index + 1..lines.len())
                                .find(|&i| !has_directive(lines[i]))
                                .ok_or_else(|| bad("no line below to refer to"))?,
                        ),
                        "above" => Some(
                            (0..index)
                                .rev()
                                .find(|&i| !has_directive(lines[i]))
                                .ok_or_else(|| bad("no line above to refer to"))?,
                        ),
                        _ => {
                            let offset: i64 = word
                                .strip_prefix('+')
                                .unwrap_or(word)
                                .parse()
                                .map_err(|_| bad(&format!("`@{word}` is not `@+N`, `@-N`, `@below`, `@above` or `@unknown`")))?;
                            let line = index as i64 + offset;
                            if line < 0 || line >= lines.len() as i64 {
                                return Err(bad(&format!("`@{word}` points outside the file")));
                            }
                            Some(line as usize)
                        }
                    };
                    (target, after)
                }
            };
            let after = after.trim_start();
            let body = after
                .strip_prefix("{{")
                .ok_or_else(|| bad("expected `{{text}}` after the directive"))?;
            let end = body
                .find("}}")
                .ok_or_else(|| bad("`{{` is not closed by `}}`"))?;
            out.push(Expected {
                severity,
                line: target.map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX)),
                text: body[..end].to_string(),
                at,
            });
            let used = line.len() - body[end + 2..].len();
            consumed = used;
            rest = &line[used..];
        }
    }
    Ok(out)
}

/// Matches `produced` against `expected`; returns one error per mismatch (empty: all matched).
pub fn check(expected: &[Expected], produced: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut matched = vec![false; expected.len()];
    let mut problems = Vec::new();
    for d in produced {
        if d.severity == Severity::Note && d.loc.is_none() {
            continue;
        }
        let line = d.loc.map(|l| l.line);
        let hit = expected.iter().enumerate().position(|(i, e)| {
            !matched[i] && e.severity == d.severity && e.line == line && d.message.contains(&e.text)
        });
        match hit {
            Some(i) => matched[i] = true,
            None => problems.push(Diagnostic::error(
                d.loc,
                format!("unexpected {}: {}", d.severity, d.message),
            )),
        }
    }
    for (e, _) in expected.iter().zip(&matched).filter(|(_, m)| !**m) {
        problems.push(Diagnostic::error(
            Some(e.at),
            format!("expected {} \"{}\" was not produced", e.severity, e.text),
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_resolve_their_target_lines() {
        let text = "a\n// expected-error@below {{x}}\n// expected-warning@-2 {{y}}\nb // expected-remark {{z}}\n// expected-note@unknown {{w}}\n";
        let e = parse_expected(text).unwrap();
        let lines: Vec<_> = e.iter().map(|e| e.line).collect();
        assert_eq!(lines, [Some(4), Some(1), Some(4), None]);
        assert_eq!(e[0].text, "x");
        assert!(parse_expected("// expected-error {{oops").is_err());
        assert_eq!(parse_expected("// expected-* directives").unwrap(), []);
        assert!(parse_expected("// expected-error@+9 {{x}}").is_err());
    }

    #[test]
    fn mismatches_on_either_side_are_reported() {
        let e =
            parse_expected("x // expected-error {{bad op}}\n// expected-error@unknown {{gone}}\n")
                .unwrap();
        let produced = [
            Diagnostic::error(Some(Loc::new(1, 3)), "a bad op here"),
            Diagnostic::note(None, "summary, not checked"),
            Diagnostic::new(Severity::Warning, Some(Loc::new(2, 1)), "surprise"),
        ];
        let problems = check(&e, &produced);
        let messages: Vec<_> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unexpected warning: surprise",
                "expected error \"gone\" was not produced"
            ]
        );
    }
}
