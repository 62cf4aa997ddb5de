//! The `mlir-opt` pass plugin of lattice: `mlir-opt --load-pass-plugin=liblattice_mlir_plugin.so`
//! registers every pass of `lattice_passes::REGISTRY` as an MLIR pass named `lattice-<pass>`, with
//! its options, so C++ MLIR toolchains run lattice passes in their own pipelines:
//! `--pass-pipeline='builtin.module(canonicalize,lattice-mpas,lattice-dlr{victim=lru})'`.
//!
//! Design: the plugin shares `mlir-opt`'s MLIR. It links the shared `libMLIR.so` (this
//! workspace's `.cargo/config.toml` sets `MLIR_SYS_LINK_SHARED=1` for `mlir-sys`) plus MLIR's C
//! API, which Debian ships only as static archives of thin wrappers; `build.rs` groups those under
//! the name `mlir-sys` asks for (`libMLIR-C`), so the wrappers it uses are linked in and resolve
//! against `libMLIR.so`. A second, static MLIR would have its own registries and type ids, and
//! `mlir-opt`'s ops would mean nothing to it. The C++ half (`shim/plugin.cpp`) holds what only
//! MLIR's C++ API can do: the plugin entry point, and one `mlir::Pass` per lattice pass with one
//! `Pass::Option` per lattice option, so MLIR parses, prints (`--dump-pass-pipeline`, IR-printing
//! headers, reproducers) and replays lattice options like any upstream pass's. This half
//! describes the passes from lattice's registry, checks option values with lattice's own checks and
//! runs a pass through `lattice_mlir::external::run_on_operation`, the function the bridge's
//! MLIR passes run, so both behave alike: diagnostics at the ops' locations, failures as MLIR
//! errors, the module unchanged when a pass fails.
//!
//! Invariants: no Rust panic crosses into C++ (every exported function catches them; a panic
//! becomes an error and a failed pass or option); every string handed over is copied by the
//! receiver before the call returns; option values reach a pass in the registry's declaration
//! order, the order its C++ options were created in.
//! Cost: registration O(passes × options); each run is the bridge's (the import, or the module
//! the previous lattice pass left; the pass; the result written in place).

use lattice::pipeline::{PassSpec, PipelineErrorKind};
use lattice_passes::REGISTRY;
use melior::ir::OperationRef;
use mlir_sys::{MlirOperation, MlirStringRef};
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// MLIR's `PassPluginLibraryInfo` (`mlir/Tools/Plugins/PassPlugin.h`), filled by the C++ half,
/// which sees the header's constants.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_registry_callbacks: Option<unsafe extern "C" fn()>,
}

/// `LatticeOptionDesc` of `shim/plugin.cpp`: one option of a pass being registered.
#[repr(C)]
struct OptionDesc {
    name: MlirStringRef,
    summary: MlirStringRef,
    default_value: MlirStringRef,
    is_bool: bool,
}

extern "C" {
    /// `shim/plugin.cpp`: the plugin's API version, name and version, and its registration
    /// callback (`latticePluginRegisterPasses`).
    fn latticePluginInfo() -> PassPluginLibraryInfo;
    /// `shim/plugin.cpp`: registers lattice pass `name` as MLIR pass `argument`, copying every
    /// string.
    fn latticePluginRegisterPass(
        name: MlirStringRef,
        argument: MlirStringRef,
        description: MlirStringRef,
        options: *const OptionDesc,
        count: usize,
    );
}

/// The entry point `mlir-opt --load-pass-plugin` looks up.
#[no_mangle]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    // SAFETY: the shim returns a struct of constants and a function pointer; it cannot fail.
    unsafe { latticePluginInfo() }
}

/// Registers every lattice pass (called by MLIR once the plugin is loaded).
#[no_mangle]
extern "C" fn latticePluginRegisterPasses() {
    // A panic here is reported by the panic hook; the passes registered until then stay.
    let _ = catch_unwind(|| {
        for info in REGISTRY.passes() {
            let infos = (info.options)();
            let options: Vec<OptionDesc> = infos
                .iter()
                .map(|o| OptionDesc {
                    name: string_ref(&o.name),
                    summary: string_ref(&o.summary),
                    default_value: string_ref(&o.default),
                    // The type lattice's options describe bools with (`lattice::options`).
                    is_bool: o.type_name == "bool",
                })
                .collect();
            let argument = lattice_mlir::external::argument(info.name);
            // SAFETY: every string reference points into `info`, `infos` or `argument`, all alive
            // during the call, and the shim copies them; `options` holds `options.len()` entries.
            unsafe {
                latticePluginRegisterPass(
                    string_ref(info.name),
                    string_ref(&argument),
                    string_ref(info.summary),
                    options.as_ptr(),
                    options.len(),
                )
            }
        }
    });
}

/// Checks `values`, the options of lattice pass `pass` as MLIR's option parser read them
/// (declaration order), with lattice's own checks; on success hands every option's canonical
/// value to `set` and returns true, else hands the error to `fail` and returns false.
///
/// # Safety
/// `pass` and the `count` references at `values` must reference valid memory of their lengths;
/// `set` and `fail` must be safe to call with `user` during this call.
#[no_mangle]
unsafe extern "C" fn latticePluginOptions(
    pass: MlirStringRef,
    values: *const MlirStringRef,
    count: usize,
    set: unsafe extern "C" fn(*mut c_void, usize, MlirStringRef),
    fail: unsafe extern "C" fn(*mut c_void, MlirStringRef),
    user: *mut c_void,
) -> bool {
    // SAFETY: per the contract.
    let texts = unsafe { (str_of(pass), strs_of(values, count)) };
    let checked = catch_unwind(|| pass_spec(texts.0?, &texts.1?))
        .unwrap_or_else(|_| Err("internal error: the lattice option check panicked".to_owned()));
    match checked {
        Ok(spec) => {
            for (i, (_, value)) in spec.options.iter().enumerate() {
                // SAFETY: per the contract; `value` outlives the call and the shim copies it.
                unsafe { set(user, i, string_ref(value)) };
            }
            true
        }
        Err(message) => {
            // SAFETY: as above.
            unsafe { fail(user, string_ref(&message)) };
            false
        }
    }
}

/// Lattice pass `pass` with these option values (declaration order), canonical, or the first
/// error in the words of lattice's pipeline parser.
fn pass_spec(pass: &str, values: &[&str]) -> Result<PassSpec, String> {
    let info = REGISTRY
        .get(pass)
        .ok_or_else(|| REGISTRY.unknown_pass(pass))?;
    let infos = (info.options)();
    if infos.len() != values.len() {
        return Err(format!(
            "{} option values for `{pass}`, which has {} options",
            values.len(),
            infos.len()
        ));
    }
    let options = infos
        .into_iter()
        .zip(values)
        .map(|(option, value)| match (option.canonicalize)(value) {
            Ok(canonical) => Ok((option.name, canonical)),
            Err(reason) => Err(PipelineErrorKind::BadValue {
                pass: info.name.to_owned(),
                option: option.name,
                reason,
            }
            .to_string()),
        })
        .collect::<Result<_, _>>()?;
    Ok(PassSpec {
        name: info.name,
        options,
    })
}

/// Runs lattice pass `pass` with option values `values` (declaration order) on every lattice
/// module of `op`, as MLIR pass `mlir_pass`; false when it failed, its errors then MLIR
/// diagnostics.
///
/// # Safety
/// `pass` and the `count` references at `values` must reference valid memory of their lengths;
/// `mlir_pass` must be the `mlir::Pass` running on `op` now.
#[no_mangle]
unsafe extern "C" fn latticePluginRun(
    pass: MlirStringRef,
    values: *const MlirStringRef,
    count: usize,
    op: MlirOperation,
    mlir_pass: *mut c_void,
) -> bool {
    let run = AssertUnwindSafe(|| -> Result<bool, String> {
        // SAFETY: per the contract.
        let (name, values) = unsafe { (str_of(pass)?, strs_of(values, count)?) };
        let spec = pass_spec(name, &values)?;
        // SAFETY: per the contract, `op` is live for the whole run and nothing else touches it
        // meanwhile (MLIR runs one pass instance per op at a time), and `mlir_pass` runs on it.
        Ok(unsafe {
            lattice_mlir::external::run_on_operation(
                OperationRef::from_raw(op),
                &spec,
                REGISTRY,
                mlir_pass,
            )
        })
    });
    let message = match catch_unwind(run) {
        Ok(Ok(ok)) => return ok,
        Ok(Err(message)) => message,
        Err(_) => "internal error: the lattice pass panicked".to_owned(),
    };
    // SAFETY: as above, for `pass`.
    let name = unsafe { str_of(pass) }.unwrap_or("?");
    // Without NUL bytes the conversion cannot fail.
    let text =
        CString::new(format!("lattice-{name}: {message}").replace('\0', " ")).unwrap_or_default();
    // SAFETY: `op` is live (contract) and `text` a NUL-terminated string MLIR copies.
    unsafe { mlir_sys::mlirEmitError(mlir_sys::mlirOperationGetLocation(op), text.as_ptr()) };
    false
}

/// The `count` texts at `values`, or why one is not UTF-8.
///
/// # Safety
/// `values` must point at `count` references as [`str_of`] wants them (any pointer when `count`
/// is 0).
unsafe fn strs_of<'a>(values: *const MlirStringRef, count: usize) -> Result<Vec<&'a str>, String> {
    if count == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: per the contract.
    let refs = unsafe { std::slice::from_raw_parts(values, count) };
    // SAFETY: per the contract.
    refs.iter().map(|r| unsafe { str_of(*r) }).collect()
}

/// A reference to `text`'s bytes (valid while `text` is).
fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// The text `text` references, or why it is not UTF-8.
///
/// # Safety
/// `text` must reference `text.length` readable bytes (any pointer when the length is 0) that
/// outlive the result.
unsafe fn str_of<'a>(text: MlirStringRef) -> Result<&'a str, String> {
    if text.length == 0 {
        return Ok("");
    }
    // SAFETY: per the contract.
    let bytes = unsafe { std::slice::from_raw_parts(text.data.cast::<u8>(), text.length) };
    std::str::from_utf8(bytes).map_err(|e| format!("text that is not UTF-8 ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults of every option of `pass`, in declaration order.
    fn defaults(pass: &str) -> Vec<String> {
        let info = REGISTRY.get(pass).unwrap();
        (info.options)().into_iter().map(|o| o.default).collect()
    }

    #[test]
    fn every_default_is_canonical() {
        // The C++ options start at these values; MLIR prints them, so they must read back as
        // themselves.
        for info in REGISTRY.passes() {
            let values = defaults(info.name);
            let texts: Vec<&str> = values.iter().map(String::as_str).collect();
            let spec = pass_spec(info.name, &texts).unwrap();
            let back: Vec<String> = spec.options.into_iter().map(|(_, v)| v).collect();
            assert_eq!(back, values, "{}", info.name);
        }
    }

    #[test]
    fn values_are_checked_in_lattice_words() {
        let info = REGISTRY.get("dlr").unwrap();
        let names: Vec<String> = (info.options)().into_iter().map(|o| o.name).collect();
        let victim = names.iter().position(|n| n == "victim").unwrap();
        let mut values = defaults("dlr");
        values[victim] = "sometimes".to_owned();
        let texts: Vec<&str> = values.iter().map(String::as_str).collect();
        let error = pass_spec("dlr", &texts).unwrap_err();
        assert!(
            error.starts_with("bad value for option `victim` of pass `dlr`: expected one of"),
            "{error}"
        );
        assert!(pass_spec("dlr", &texts[1..])
            .unwrap_err()
            .contains("which has"));
        assert!(pass_spec("dl", &[])
            .unwrap_err()
            .starts_with("unknown pass `dl`"));
    }

    unsafe extern "C" fn record(user: *mut c_void, index: usize, value: MlirStringRef) {
        // SAFETY: `user` is the `Vec` the test passed; `value` is valid during the call.
        let (seen, text) = unsafe { (&mut *user.cast::<Vec<(usize, String)>>(), str_of(value)) };
        seen.push((index, text.unwrap().to_owned()));
    }

    unsafe extern "C" fn refuse(user: *mut c_void, message: MlirStringRef) {
        // SAFETY: as in `record`.
        let (seen, text) = unsafe { (&mut *user.cast::<Vec<(usize, String)>>(), str_of(message)) };
        seen.push((usize::MAX, text.unwrap().to_owned()));
    }

    /// `latticePluginOptions` on `values` for pass `mpas`: its result and what it reported.
    fn check_mpas(values: &[&str]) -> (bool, Vec<(usize, String)>) {
        let refs: Vec<MlirStringRef> = values.iter().map(|v| string_ref(v)).collect();
        let mut seen: Vec<(usize, String)> = Vec::new();
        // SAFETY: the references point into `values`, alive during the call; the callbacks take
        // `seen`.
        let ok = unsafe {
            latticePluginOptions(
                string_ref("mpas"),
                refs.as_ptr(),
                refs.len(),
                record,
                refuse,
                (&mut seen as *mut Vec<(usize, String)>).cast(),
            )
        };
        (ok, seen)
    }

    #[test]
    fn the_entry_point_hands_back_canonical_values_or_one_error() {
        let mut values = defaults("mpas");
        let lookahead = (REGISTRY.get("mpas").unwrap().options)()
            .iter()
            .position(|o| o.name == "lookahead")
            .unwrap();
        values[lookahead] = "0008".to_owned();
        let texts: Vec<&str> = values.iter().map(String::as_str).collect();
        let (ok, seen) = check_mpas(&texts);
        assert!(ok);
        assert_eq!(seen.len(), values.len());
        assert_eq!(seen[lookahead], (lookahead, "8".to_owned()));

        values[lookahead] = "-1".to_owned();
        let texts: Vec<&str> = values.iter().map(String::as_str).collect();
        let (ok, seen) = check_mpas(&texts);
        assert!(!ok);
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].0, usize::MAX);
        assert!(seen[0].1.contains("`lookahead`"), "{seen:?}");
    }
}
