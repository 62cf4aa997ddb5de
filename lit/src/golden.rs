//! Golden (precise-output) sections: a RUN pipeline ending in `| golden` must
//! print exactly the lines stored between `// GOLDEN-BEGIN` and
//! `// GOLDEN-END` in the test file, each stored as `// ` + the line (an empty
//! line as `//`). With `LATTICE_TEST_BLESS=1` the section is rewritten to the
//! actual output instead (and appended at the end of the file if missing).
//!
//! Output is compared line by line, so a missing final newline is not a
//! difference; everything else (spaces, blank lines, order) is.
//!
//! Invariants: a file has at most one section; blessing changes only the
//! section's lines, leaves every other byte of the file as it was, does not
//! touch a file whose section already matches, and replaces the file
//! atomically (temp file + rename) so an interrupted run cannot truncate a
//! test.

use std::ops::Range;
use std::path::Path;

use similar::TextDiff;

use crate::report::LineError;

const BEGIN: &str = "// GOLDEN-BEGIN";
const END: &str = "// GOLDEN-END";

pub struct Section {
    /// 0-based index of the `// GOLDEN-BEGIN` line.
    begin: usize,
    /// 0-based index of the `// GOLDEN-END` line.
    end: usize,
    /// The stored output, one `\n`-terminated line per golden line.
    expected: String,
}

impl Section {
    /// 0-based indices of all lines of the section, markers included.
    pub fn lines(&self) -> Range<usize> {
        self.begin..self.end + 1
    }
}

/// Finds the golden section of a test file's `text`, if it has one.
pub fn find(text: &str) -> Result<Option<Section>, LineError> {
    let mut begin = None;
    let mut section = None;
    let mut expected = String::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        // Markers tolerate trailing blanks; stored output keeps them.
        match (begin, line.trim_end()) {
            (_, BEGIN) if begin.is_some() || section.is_some() => {
                return Err((
                    number,
                    format!("a second `{BEGIN}`; a file has at most one golden section"),
                ));
            }
            (None, BEGIN) => begin = Some(index),
            (None, END) => return Err((number, format!("`{END}` without `{BEGIN}`"))),
            (None, _) => {}
            (Some(start), END) => {
                section = Some(Section {
                    begin: start,
                    end: index,
                    expected: std::mem::take(&mut expected),
                });
                begin = None;
            }
            (Some(_), _) => {
                let stored = match line.strip_prefix("//") {
                    Some("") => "",
                    Some(rest) => rest.strip_prefix(' ').ok_or_else(|| malformed(number))?,
                    None => return Err(malformed(number)),
                };
                expected.push_str(stored);
                expected.push('\n');
            }
        }
    }
    match begin {
        Some(start) => Err((start + 1, format!("`{BEGIN}` without a following `{END}`"))),
        None => Ok(section),
    }
}

fn malformed(number: usize) -> LineError {
    (
        number,
        "a golden line must be `//` or start with `// `".to_owned(),
    )
}

/// Compares `output` with the section of the file at `path` whose text is
/// `text`, or with `bless` stores `output` as the new section.
pub fn check(
    path: &Path,
    text: &str,
    section: Option<&Section>,
    output: &str,
    bless: bool,
) -> Result<(), String> {
    let actual = normalize(output);
    let expected = section.map_or("", |s| s.expected.as_str());
    if actual == expected {
        return Ok(());
    }
    if bless {
        return write_atomically(path, &rewrite(text, section, &actual))
            .map_err(|err| format!("cannot bless {}: {err}", path.display()));
    }
    let diff = TextDiff::from_lines(expected, &actual)
        .unified_diff()
        .header("expected (golden section)", "actual output")
        .to_string();
    let missing = if section.is_none() {
        format!("the file has no `{BEGIN}` section yet\n")
    } else {
        String::new()
    };
    Err(format!(
        "{missing}{diff}\n\
         hint: run with LATTICE_TEST_BLESS=1 to accept the new output"
    ))
}

/// `output` as `\n`-terminated lines.
fn normalize(output: &str) -> String {
    let mut lines = String::with_capacity(output.len() + 1);
    if !output.is_empty() {
        lines.push_str(output.strip_suffix('\n').unwrap_or(output));
        lines.push('\n');
    }
    lines
}

fn rewrite(text: &str, section: Option<&Section>, actual: &str) -> String {
    let mut golden = String::new();
    for line in actual.lines() {
        golden.push_str(if line.is_empty() { "//" } else { "// " });
        golden.push_str(line);
        golden.push('\n');
    }
    let mut out = String::with_capacity(text.len() + golden.len());
    match section {
        Some(section) => {
            // `split_inclusive` keeps each line's own terminator, so the lines
            // outside the section are copied byte for byte.
            for (index, line) in text.split_inclusive('\n').enumerate() {
                if index == section.end {
                    out.push_str(&golden);
                }
                if !(section.begin + 1..section.end).contains(&index) {
                    out.push_str(line);
                }
            }
        }
        None => {
            out.push_str(text);
            if !text.is_empty() && !text.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(BEGIN);
            out.push('\n');
            out.push_str(&golden);
            out.push_str(END);
            out.push('\n');
        }
    }
    out
}

fn write_atomically(path: &Path, contents: &str) -> std::io::Result<()> {
    let name = path.file_name().expect("a test file has a name");
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".bless-{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
