//! The names LIR can print, which a module read from MLIR must use (the MLIR importer's and the
//! C ABI's checks, `lattice_capi`): tier and pipe names, opcodes, module names. Pure functions of
//! the text, O(length).

/// LIR's `word` (tier and pipe names): a letter, then letters, digits and `_`.
pub fn is_word(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// LIR's `opcode`: an upper-case letter, then upper-case letters, digits and `_`.
pub fn is_opcode(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// LIR's module name: letters, digits, `_`, `.`, `-` and `$`.
pub fn is_module_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '$'))
}
