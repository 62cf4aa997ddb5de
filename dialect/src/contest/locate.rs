//! Finds where each element of the top-level `Nodes` and `Edges` arrays starts in a JSON text.
//!
//! serde gives positions only for the errors it finds itself; the importer's semantic errors
//! ("node #12: unknown pipe") are found after deserialisation, and this scan lets them point at the
//! node in the file as well. It is a lexer-level walk (strings, escapes, nesting depth), run only
//! on the error path and only on text serde has accepted, so it need not validate anything; on any
//! text it returns offsets that are char boundaries or nothing. Complexity: O(text).

use crate::diag::Loc;

/// Byte offsets of the elements of `Nodes` and `Edges`, in array order.
#[derive(Debug, Default)]
pub(super) struct ElementOffsets {
    /// Start of each element of `Nodes`.
    pub nodes: Vec<usize>,
    /// Start of each element of `Edges`.
    pub edges: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum Array {
    Nodes,
    Edges,
    Other,
}

/// Scans `text` once.
pub(super) fn element_offsets(text: &str) -> ElementOffsets {
    let bytes = text.as_bytes();
    let mut out = ElementOffsets::default();
    let mut depth = 0usize;
    // The last string seen at depth 1 and whether it was followed by `:` (making it a key).
    let mut last_string: Option<(usize, usize)> = None;
    let mut key: Option<(usize, usize)> = None;
    // The top-level array being walked, and whether the next value at depth 2 starts an element.
    let mut array = Array::Other;
    let mut expect_element = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if depth == 2 && expect_element && !b.is_ascii_whitespace() && b != b']' {
            match array {
                Array::Nodes => out.nodes.push(i),
                Array::Edges => out.edges.push(i),
                Array::Other => {}
            }
            expect_element = false;
        }
        match b {
            b'"' => {
                let start = i + 1;
                i = start;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                if depth == 1 {
                    last_string = Some((start, i.min(bytes.len())));
                }
            }
            b':' if depth == 1 => key = last_string.take(),
            b'{' | b'[' => {
                if depth == 1 && b == b'[' {
                    array = match key.and_then(|(s, e)| text.get(s..e)) {
                        Some("Nodes") => Array::Nodes,
                        Some("Edges") => Array::Edges,
                        _ => Array::Other,
                    };
                    expect_element = true;
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    array = Array::Other;
                }
            }
            b',' if depth == 2 => expect_element = true,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The location of element `index` in `offsets`, if the scan found it.
pub(super) fn loc_of(text: &str, offsets: &[usize], index: usize) -> Option<Loc> {
    offsets.get(index).map(|&o| Loc::of_offset(text, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nodes_and_edges_but_not_nested_arrays() {
        let text = "{\"Meta\": [1, 2],\n \"Nodes\": [ {\"Id\": 0, \"Bufs\": [3, 4]},\n {\"Op\": \"a\\\"]\"} ],\n \"Edges\": [[0, 1], [1, 0]]}";
        let found = element_offsets(text);
        assert_eq!(found.nodes.len(), 2);
        assert_eq!(found.edges.len(), 2);
        assert_eq!(loc_of(text, &found.nodes, 1), Some(Loc::new(3, 2)));
        assert_eq!(&text[found.edges[1]..found.edges[1] + 6], "[1, 0]");
        assert_eq!(loc_of(text, &found.nodes, 2), None);
    }

    #[test]
    fn survives_garbage() {
        for text in [
            "",
            "\"",
            "\\",
            "]]]]",
            "{\"Nodes\":[\"\\",
            "{\"Nodes\"::[[[",
            "{\"Nodes\":[é,",
        ] {
            let found = element_offsets(text);
            for &o in found.nodes.iter().chain(&found.edges) {
                assert!(text.is_char_boundary(o));
            }
        }
    }
}
