//! Build script of the `mlir-opt` plugin: compiles `shim/plugin.cpp` against the headers of the
//! LLVM/MLIR 22 at `MLIR_SYS_220_PREFIX`, and provides the `libMLIR-C` that `mlir-sys` asks for
//! when linking shared (`MLIR_SYS_LINK_SHARED=1`): Debian ships MLIR's C API only as static
//! archives (`libMLIRCAPI*.a`, thin wrappers over the C++ API), so `libMLIR-C.so` in `OUT_DIR` is
//! a GNU ld linker script grouping them. The linker then copies in the wrappers the plugin uses,
//! and their references to MLIR resolve against `libMLIR.so`, the library `mlir-opt` loads.
//!
//! Invariants: the plugin links MLIR only as the shared library (the build fails with a sentence
//! when `MLIR_SYS_LINK_SHARED` is not `1`, which would link a second, static MLIR); the shim,
//! the C API archives and `libMLIR.so` come from one prefix. Fails with a sentence, never a panic.
//! Cost: one C++ file compiled; the script lists the archives once.

use std::path::{Path, PathBuf};

include!("../shim/cxx_build.rs");

fn main() -> Result<(), String> {
    println!("cargo:rerun-if-changed=shim/plugin.cpp");
    println!("cargo:rerun-if-changed=../shim/cxx_build.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_LINK_SHARED");
    if std::env::var("MLIR_SYS_LINK_SHARED").as_deref() != Ok("1") {
        return Err(
            "MLIR_SYS_LINK_SHARED must be 1: the plugin shares mlir-opt's libMLIR.so \
                    (build from mlir/plugin, whose .cargo/config.toml sets it)"
                .into(),
        );
    }
    let prefix = PathBuf::from(std::env::var_os("MLIR_SYS_220_PREFIX").ok_or(
        "MLIR_SYS_220_PREFIX is not set: point it at LLVM/MLIR 22 (e.g. /usr/lib/llvm-22)",
    )?);
    let include = prefix.join("include");
    if !include.join("mlir/Tools/Plugins/PassPlugin.h").is_file() {
        return Err(format!(
            "{}: no MLIR headers (install libmlir-22-dev)",
            include.display()
        ));
    }
    mlir_shim_build(&include)
        .file("shim/plugin.cpp")
        .try_compile("lattice_mlir_plugin_shim")
        .map_err(|e| format!("compiling shim/plugin.cpp: {e}"))?;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    write_c_api_script(&prefix.join("lib"), &out)?;
    println!("cargo:rustc-link-search=native={}", out.display());
    // `mlir-opt` has loaded `libMLIR.so.22.1` before it loads the plugin, so the loader reuses
    // it; the run path lets the plugin's unit tests and tools such as `ldd` find it on their own.
    println!(
        "cargo:rustc-link-arg=-Wl,-rpath,{}",
        prefix.join("lib").display()
    );
    Ok(())
}

/// Writes `out/libMLIR-C.so`: a linker script grouping every `libMLIRCAPI*.a` of `lib` (a group,
/// because the archives call one another: the dialect ones use `libMLIRCAPIIR`'s helpers).
fn write_c_api_script(lib: &Path, out: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    let mut archives = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", lib.display()))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("libMLIRCAPI") && name.ends_with(".a") {
            archives.push(path);
        }
    }
    if archives.is_empty() {
        return Err(format!(
            "{}: no MLIR C API archives (libMLIRCAPI*.a; install libmlir-22-dev)",
            lib.display()
        ));
    }
    // Sorted, so the script (and the link) does not depend on directory order.
    archives.sort();
    let mut script =
        String::from("/* MLIR's C API, from its static archives (build.rs) */\nGROUP (\n");
    for archive in &archives {
        script.push_str(&format!("  {}\n", archive.display()));
    }
    script.push_str(")\n");
    let path = out.join("libMLIR-C.so");
    std::fs::write(&path, script).map_err(|e| format!("{}: {e}", path.display()))
}
