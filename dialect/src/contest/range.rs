//! Numbers a contest graph writes outside the range of their field (a `Cycles` of 2⁶⁴, a negative
//! `Size`, a `BufId` or edge endpoint of 2³²), told in a sentence that names the field and the
//! node or edge, instead of serde's "invalid type: floating point `1.8446744073709552e+19`,
//! expected u64".
//!
//! serde reports such a value as a data error whose position is the number's last character. This
//! reads the number as written back from that position, the key before it, and the element of
//! `Nodes` or `Edges` that holds it (the one starting last before the number). It runs only on the
//! error path, on text serde has tokenised up to the error, and gives up (returns `None`) on
//! anything it does not recognise, leaving serde's own message. Complexity: O(text).

use super::locate::element_offsets;
use super::ContestError;
use crate::diag::Loc;

/// The integer types of the graph's fields, by the name serde gives them.
fn range_of(expected: &str) -> Option<&'static str> {
    match expected {
        "u32" => Some("0..=4294967295"),
        "u64" => Some("0..=18446744073709551615"),
        _ => None,
    }
}

/// The sentence for serde's `message` at 1-based (`line`, byte `column`) of `json`, when the
/// message says a number does not fit its field.
pub(super) fn out_of_range(
    json: &str,
    message: &str,
    line: usize,
    column: usize,
) -> Option<ContestError> {
    let expected = message.rsplit_once(", expected ")?.1;
    let is_number = message.starts_with("invalid value: integer `")
        || message.starts_with("invalid type: floating point `");
    let range = range_of(expected).filter(|_| is_number)?;
    let line_start = json
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    let end = line_start + column;
    let bytes = json.as_bytes();
    let is_number_char = |b: u8| b.is_ascii_digit() || b"+-.eE".contains(&b);
    if !bytes
        .get(end.checked_sub(1)?)
        .copied()
        .is_some_and(is_number_char)
    {
        return None;
    }
    let start = bytes[..end]
        .iter()
        .rposition(|&b| !is_number_char(b))
        .map_or(0, |p| p + 1);
    let text = json.get(start..end)?.to_owned();
    let offsets = element_offsets(json);
    let last_before = |list: &[usize]| list.iter().rposition(|&o| o <= start);
    let node = last_before(&offsets.nodes);
    let edge = last_before(&offsets.edges);
    let starts = |i: Option<usize>, list: &[usize]| i.map(|i| list[i]);
    let place = match (starts(node, &offsets.nodes), starts(edge, &offsets.edges)) {
        (Some(n), e) if e.is_none_or(|e| n > e) => {
            format!("node #{}, field `{}`", node?, key_before(json, start)?)
        }
        (_, Some(_)) => format!("edge #{}", edge?),
        _ => return None,
    };
    Some(ContestError::NumberOutOfRange {
        loc: Loc::of_offset(json, start),
        place,
        text,
        range,
    })
}

/// The object key a value at `start` belongs to: the string before the `:` before it, or for an
/// element of an array value (`"Bufs": [1, 2]`), the key of that array.
fn key_before(json: &str, start: usize) -> Option<&str> {
    let head = json.get(..start)?;
    let colon = head.rfind(':')?;
    let before = head[..colon].trim_end().strip_suffix('"')?;
    let open = before.rfind('"')?;
    Some(&before[open + 1..])
}
