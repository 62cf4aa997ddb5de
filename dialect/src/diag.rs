//! Source locations and the one way every tool renders a located message.
//!
//! A message is printed as `file:line:col: error: text`, followed by the offending source line and
//! a caret under the column when the source text is at hand (the rustc/clang shape users expect);
//! long lines are cut to a window around the column.
//! Lines and columns are 1-based; columns count characters, not bytes.

use std::fmt;

/// A position in a source text (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl Loc {
    /// A location from 1-based line and column numbers.
    pub fn new(line: usize, col: usize) -> Self {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Loc {
            line: clamp(line),
            col: clamp(col),
        }
    }

    /// The location of a byte offset in `text`, for errors found after parsing.
    pub fn of_offset(text: &str, offset: usize) -> Self {
        let offset = offset.min(text.len());
        let before = &text[..floor_char_boundary(text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Loc::new(line, before[line_start..].chars().count() + 1)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// How bad a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input or the IR is wrong; the tool exits non-zero.
    Error,
    /// Suspicious but accepted.
    Warning,
    /// Information a pass offers about what it did.
    Remark,
    /// Extra information attached to another message.
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        })
    }
}

/// Anything that can be reported at a place in an input file.
pub trait Located: fmt::Display {
    /// Where the problem is, when it has a place in the text.
    fn loc(&self) -> Option<Loc>;
}

/// Renders `message` at `loc` in `file`, quoting the source line with a caret when `source` is
/// given and the line exists.
pub fn render(
    file: &str,
    source: Option<&str>,
    loc: Option<Loc>,
    severity: Severity,
    message: &dyn fmt::Display,
) -> String {
    let Some(loc) = loc else {
        return format!("{file}: {severity}: {message}\n");
    };
    let mut out = format!("{file}:{}:{}: {severity}: {message}\n", loc.line, loc.col);
    let line = source.and_then(|s| s.lines().nth((loc.line as usize).saturating_sub(1)));
    if let Some(line) = line {
        let (quoted, col) = window(line, loc.col as usize);
        let pad: String = quoted
            .chars()
            .take(col.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        out.push_str(&format!("{quoted}\n{pad}^\n"));
    }
    out
}

/// The part of a long line worth quoting (single-line JSON can be megabytes): at most
/// `WINDOW` characters each side of the column, with `…` where cut; returns the column in it.
fn window(line: &str, col: usize) -> (String, usize) {
    const WINDOW: usize = 60;
    let chars: Vec<char> = line.chars().collect();
    let start = col.saturating_sub(1).saturating_sub(WINDOW);
    let end = (col + WINDOW).min(chars.len());
    let mut quoted: String = chars[start.min(end)..end].iter().collect();
    let mut col = col - start;
    if start > 0 {
        quoted.insert(0, '…');
        col += 1;
    }
    if end < chars.len() {
        quoted.push('…');
    }
    (quoted, col)
}

/// Renders a located error of any layer.
pub fn render_error(file: &str, source: Option<&str>, error: &dyn Located) -> String {
    render(file, source, error.loc(), Severity::Error, &error)
}
