//! The `mlir-opt` plugin's regression tests: every `test/mlir-plugin/**/*.mlir` (and `.lir`) file,
//! run by the lit stand-in of `lattice-lit` with this crate's tools (built with the MLIR bridge)
//! first on `PATH`, then upstream `mlir-opt` (LLVM/MLIR 22, `mlir-22-tools`), and
//! `$LATTICE_MLIR_PLUGIN` naming the plugin built by `cd mlir/plugin && cargo build --release`.
//!
//! The plugin is its own workspace (it links MLIR as a shared library), so this target cannot
//! build it; without it or `mlir-opt` the suite is skipped with a message saying what to do —
//! unless `LATTICE_REQUIRE_MLIR_PLUGIN=1`, which CI sets after building the plugin, so that a
//! missing plugin fails there instead of passing unseen.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest.parent().unwrap_or(manifest);
    let plugin = workspace.join("mlir/plugin/target/release/liblattice_mlir_plugin.so");
    // The prefix `mlir-sys` built against (`.cargo/config.toml`), so `mlir-opt` is the MLIR the
    // plugin was compiled for.
    let mlir_opt = Path::new(env!("MLIR_SYS_220_PREFIX")).join("bin/mlir-opt");
    let mut missing = Vec::new();
    if !plugin.is_file() {
        missing.push(format!(
            "{} (build it: cd mlir/plugin && cargo build --release)",
            plugin.display()
        ));
    }
    if !mlir_opt.is_file() {
        missing.push(format!("{} (install mlir-22-tools)", mlir_opt.display()));
    }
    if !missing.is_empty() {
        let required = std::env::var_os("LATTICE_REQUIRE_MLIR_PLUGIN").is_some_and(|v| v == "1");
        eprintln!(
            "{}: the mlir-opt plugin tests need {}",
            if required { "error" } else { "skipped" },
            missing.join(" and ")
        );
        std::process::exit(i32::from(required));
    }
    // `mlir-opt` alone goes on `PATH`, through a link in a directory of its own: LLVM's `bin/`
    // holds dozens of tools that RUN lines must not reach by accident.
    let tools = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mlir-plugin-bin");
    let link = tools.join("mlir-opt");
    if let Err(e) = std::fs::create_dir_all(&tools)
        .and_then(|()| match std::fs::remove_file(&link) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        })
        .and_then(|()| std::os::unix::fs::symlink(&mlir_opt, &link))
    {
        eprintln!("error: cannot link {}: {e}", link.display());
        std::process::exit(1);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![tools];
    dirs.extend(std::env::split_paths(&path));
    match std::env::join_paths(dirs) {
        Ok(path) => std::env::set_var("PATH", path),
        Err(e) => {
            eprintln!("error: cannot extend PATH: {e}");
            std::process::exit(1);
        }
    }
    std::env::set_var("LATTICE_MLIR_PLUGIN", &plugin);
    lattice_lit::main(
        &lattice_lit::Suite {
            dir: "mlir-plugin",
            skip: &[],
            features: &["mlir-plugin", "mlir"],
        },
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_lattice-opt"),
        env!("CARGO_TARGET_TMPDIR"),
    )
}
