//! Whether a text without a file name (standard input, `mlir-opt … | lattice-opt -`) is MLIR,
//! judged by how it begins, in both builds: with the bridge it is read as MLIR, without it the
//! user hears which feature to build instead of a LIR parse error.
//!
//! LIR always begins `module @name phase(…)` (after `//` comments); MLIR's textual forms begin
//! with `module {`, `module attributes`, `module @name {`, a generic op (`"builtin.module"`), a
//! dialect op (`builtin.`, `lattice.`) or an alias definition (`#…`, `!…`). O(first line).

/// Whether `text` begins like MLIR rather than LIR or JSON.
pub fn looks_like_mlir(text: &str) -> bool {
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
    use super::looks_like_mlir;

    #[test]
    fn mlir_heads_are_told_from_lir_and_json() {
        for mlir in [
            "module {\n}",
            "// c\nmodule attributes {x} {",
            "module @m {",
            "\"builtin.module\"() ({",
            "#loc = loc(\"a\")\nmodule {",
        ] {
            assert!(looks_like_mlir(mlir), "{mlir}");
        }
        for other in [
            "module @m phase(parsed) {",
            "// c\n\nmodule @m phase(planned) {",
            "{\"Nodes\": []}",
            "",
            "modul",
        ] {
            assert!(!looks_like_mlir(other), "{other}");
        }
    }
}
