//! `--split-input-file`: cut an input into independent cases at lines starting with `// -----`
//! (which also starts every IR dump header, so a stream of dumps splits into its modules).
//!
//! Invariant: each chunk's text keeps the line numbers of the whole file (it is preceded by as
//! many empty lines as the file had before it), so diagnostics and `expected-*@+N` directives
//! refer to lines of the file the user wrote. O(file length × chunks) for the padding.

/// The marker that separates cases in input and output.
pub const SPLIT_MARKER: &str = "// -----";

/// One case of a split input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The case's text, padded with empty lines so its lines keep their file numbers.
    pub text: String,
    /// 1-based line of the file where the case starts.
    pub first_line: usize,
}

impl Chunk {
    /// Whether the case holds nothing but blank lines.
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// Splits `text` at marker lines; the marker lines belong to no chunk.
pub fn split_input(text: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut first_line = 1;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if line.starts_with(SPLIT_MARKER) {
            chunks.push(Chunk {
                text: std::mem::take(&mut current),
                first_line,
            });
            first_line = i + 2;
            current = "\n".repeat(i + 1);
        } else {
            current.push_str(line);
        }
    }
    chunks.push(Chunk {
        text: current,
        first_line,
    });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_file_line_numbers() {
        let chunks = split_input("a\n// -----\nb\nc\n// -----// IR Dump After x //----- //\nd");
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0].text, "a\n");
        assert_eq!(chunks[1].text, "\n\nb\nc\n");
        assert_eq!(chunks[1].first_line, 3);
        assert_eq!(chunks[2].text.lines().nth(5), Some("d"));
        assert!(split_input("// -----\nx")[0].is_blank());
    }
}
