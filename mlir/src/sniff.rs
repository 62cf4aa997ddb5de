//! Whether an input without a file name (standard input, `mlir-opt … | lattice-opt -`) is MLIR,
//! judged by how it begins, in both builds: with the bridge it is read as MLIR, without it the
//! user hears which feature to build instead of a LIR parse error.
//!
//! MLIR bytecode (`mlir-opt --emit-bytecode`) begins with the magic bytes `ML\xefR`. LIR always
//! begins `module @name phase(…)` (after `//` comments); MLIR's textual forms begin with
//! `module {`, `module attributes`, `module @name {`, a generic op (`"builtin.module"`), a dialect
//! op (`builtin.`, `lattice.`) or an alias definition (`#…`, `!…`). O(input) for the UTF-8
//! check, then O(first line).

/// The first bytes of every MLIR bytecode file.
pub const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

/// Whether `input` is MLIR bytecode or text that begins like MLIR rather than LIR or JSON.
pub fn looks_like_mlir(input: &[u8]) -> bool {
    input.starts_with(BYTECODE_MAGIC) || std::str::from_utf8(input).is_ok_and(text_looks_like_mlir)
}

/// Whether `text` begins like MLIR rather than LIR or JSON.
fn text_looks_like_mlir(text: &str) -> bool {
    let Some(first) = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("//"))
    else {
        return false;
    };
    if let Some(rest) = first.strip_prefix("module") {
        // LIR's header names a phase on its first line; MLIR's module never does.
        return rest.starts_with([' ', '{']) && !rest.contains(" phase(");
    }
    first.starts_with(['"', '#', '!'])
        || first.starts_with("builtin.")
        || first.starts_with("lattice.")
}

#[cfg(test)]
mod tests {
    use super::{looks_like_mlir, BYTECODE_MAGIC};

    #[test]
    fn mlir_heads_are_told_from_lir_and_json() {
        for mlir in [
            "module {\n}",
            "// c\nmodule attributes {x} {",
            "module @m {",
            "\"builtin.module\"() ({",
            "#loc = loc(\"a\")\nmodule {",
        ] {
            assert!(looks_like_mlir(mlir.as_bytes()), "{mlir}");
        }
        for other in [
            "module @m phase(parsed) {",
            "// c\n\nmodule @m phase(planned) {",
            "{\"Nodes\": []}",
            "",
            "modul",
        ] {
            assert!(!looks_like_mlir(other.as_bytes()), "{other}");
        }
        // Bytecode by its magic, whatever follows; a lone `M` is not enough.
        assert!(looks_like_mlir(&[BYTECODE_MAGIC, b"\x00\x01"].concat()));
        assert!(!looks_like_mlir(b"ML"));
        assert!(!looks_like_mlir(b"\xff\xfe module {"));
    }
}
