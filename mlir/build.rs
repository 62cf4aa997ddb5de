//! Build script of `lattice-mlir`: with the feature `mlir`, compiles the C++ shim — `shim/emit.cpp`
//! (warnings and remarks into MLIR's diagnostic engine, which MLIR 22's C API cannot emit),
//! `shim/cache.cpp` (the lattice module a pass left, kept as an MLIR analysis) and
//! `shim/attrs.cpp` (an op's attributes read and set by uniqued name) and `shim/create.cpp` (ops
//! built under a name looked up once) — against the headers
//! of the LLVM/MLIR that `mlir-sys` links, found the same way: `MLIR_SYS_220_PREFIX`. Without the
//! feature it does nothing, so the default build needs neither LLVM nor a C++ compiler.
//!
//! Invariant: the shim and the linked MLIR come from one prefix, so the C++ layouts agree. Fails
//! with a sentence (not a panic) when the prefix is unset or the compiler fails.

fn main() -> Result<(), String> {
    println!("cargo:rerun-if-changed=shim/emit.cpp");
    println!("cargo:rerun-if-changed=shim/cxx_build.rs");
    println!("cargo:rerun-if-changed=shim/cache.cpp");
    println!("cargo:rerun-if-changed=shim/attrs.cpp");
    println!("cargo:rerun-if-changed=shim/create.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    build_shim()
}

#[cfg(feature = "mlir")]
include!("shim/cxx_build.rs");

#[cfg(feature = "mlir")]
fn build_shim() -> Result<(), String> {
    let prefix = std::env::var_os("MLIR_SYS_220_PREFIX").ok_or(
        "MLIR_SYS_220_PREFIX is not set: point it at LLVM/MLIR 22 (e.g. /usr/lib/llvm-22), \
         as mlir-sys needs too (see docs/mlir.md)",
    )?;
    let include = std::path::PathBuf::from(prefix).join("include");
    if !include.join("mlir/IR/Diagnostics.h").is_file() {
        return Err(format!(
            "{}: no MLIR headers (install libmlir-22-dev)",
            include.display()
        ));
    }
    mlir_shim_build(&include)
        .file("shim/emit.cpp")
        .file("shim/cache.cpp")
        .file("shim/attrs.cpp")
        .file("shim/create.cpp")
        .try_compile("lattice_mlir_shim")
        .map_err(|e| format!("compiling the shim (shim/*.cpp): {e}"))
}

#[cfg(not(feature = "mlir"))]
fn build_shim() -> Result<(), String> {
    Ok(())
}
