// Included by `mlir/build.rs` and `mlir/plugin/build.rs` (`include!`; an included fragment cannot
// carry a `//!` header): the C++ build both MLIR shims need, so the two stay compiled alike.

/// A C++17 build against the MLIR headers under `include`, as LLVM itself is built: without RTTI
/// and exceptions; `-isystem` keeps the headers' warnings out of the shim's.
fn mlir_shim_build(include: &std::path::Path) -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-isystem")
        .flag(include.as_os_str())
        .warnings(true)
        .extra_warnings(true);
    build
}
