//! The LIR parser's fuzz property: any bytes are rejected cleanly or parse to a module; a module
//! the structural verifier accepts prints to text that parses back to the same printed text.
//!
//! Why only well-formed modules must round trip: the parser resolves names by their text and the
//! verifier compares them as numbers, so `%9` and `%09` parse as two ops that the verifier then
//! rejects as one name used twice — a clean error, but their printed text (two `%9`) no longer
//! parses. Such a module is still printed, so the printer is fuzzed on it too. Complexity:
//! O(text), two parses and two prints.

use super::{reparses, CheckError};
use lattice_lir::{parse_module, print_module, verify_module, Module};

/// Checks the parser on `data`. Returns the module when the parser and the structural verifier
/// accept it (a valid pipeline input), `None` when either rejects it.
pub fn check_lir(data: &[u8]) -> Result<Option<Module>, CheckError> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(None);
    };
    let Ok(module) = parse_module(text) else {
        return Ok(None);
    };
    let printed = print_module(&module);
    if verify_module(&module).is_err() {
        return Ok(None);
    }
    reparses(&printed)?;
    Ok(Some(module))
}

#[cfg(test)]
mod tests {
    use super::super::first_difference;
    use super::*;

    #[test]
    fn the_example_round_trips_and_garbage_is_rejected_cleanly() {
        let tile = include_str!("../../../examples/matmul_tile.lir");
        let module = check_lir(tile.as_bytes()).unwrap().expect("a valid module");
        assert_eq!(module.ops.len(), 19);
        assert_eq!(check_lir(b"module @m phase(").unwrap(), None);
        assert_eq!(check_lir(&[0xff, 0xfe]).unwrap(), None);
        // `%017` is a second op named 17: parsed, printed, and refused by the verifier.
        let twice = tile.replace("%18 = free", "%017 = free");
        assert!(lattice_lir::parse_module(&twice).is_ok());
        assert_eq!(check_lir(twice.as_bytes()).unwrap(), None);
    }

    #[test]
    fn a_difference_names_its_line() {
        let difference = first_difference("a\nb\nc", "a\nx\nc").unwrap();
        assert_eq!(
            difference,
            CheckError::RoundTrip {
                line: 2,
                first: "b".into(),
                second: "x".into()
            }
        );
        assert_eq!(first_difference("a", "a"), None);
    }
}
