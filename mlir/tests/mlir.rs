//! The MLIR bridge end to end (feature `mlir`; one test target, since every binary that links
//! MLIR is large):
//! - LIR → MLIR → LIR prints identically for every shared case at every phase (parsed, scheduled
//!   by `mpas`, planned by `dlr`, refined by `cpe` when the registry has it, else the planned
//!   module marked refined), through MLIR objects and through MLIR text, and MLIR's verifier
//!   accepts every converted module;
//! - an MLIR `PassManager` running `canonicalize` and the lattice passes as external passes gives
//!   the module and the metrics `lattice-opt` gives;
//! - pass failures become MLIR error diagnostics at the failing op, and leave the module as it was;
//!   warnings and remarks of lattice passes reach MLIR as warnings and remarks at their op;
//! - pipelines are faithful: MLIR prints lattice passes with their options (`--dump-pass-pipeline`
//!   text, IR-printing headers), the printed pipeline rebuilds the same one, and lattice passes
//!   run at any nesting level (`builtin.module(builtin.module(…))`, `any(…)`);
//! - foreign attributes on lattice ops (`npu.tag`) survive import, rewriting passes and export;
//! - a lattice pass after another starts from the module the first left only while no other pass
//!   changed it in between;
//! - malformed MLIR gives located errors, never a panic; `lattice-opt` reads `.mlir` input;
//! - σ is the phase op's `order` (buffers: each one's `pos`): a body shuffled by hand reads back
//!   to the same module;
//! - MLIR bytecode reads like the text it was made from, errors located in that text's file;
//! - `lattice-opt` on MLIR writes MLIR (into the module it parsed once) that keeps the user's IR
//!   around the lattice modules (every one of them run), or LIR with a warning naming what is
//!   left out, and runs pipelines that mix upstream passes with lattice passes.
//!
//! - edited MLIR is planned as lattice plans what it imports, or refused with an error
//!   (`mutated`).
//!
//! Reads the workloads from `../shared/cases` beside the checkout; a missing `shared/` fails.

use lattice::diagnostic::Diagnostic;
use lattice::manager::Session;
use lattice::{parse_pipeline, MetricsFormat, PassManager};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::diag::Severity;
use lattice_lir::{parse_module, print_module, verify_module, Module, OpKind, Phase};
use lattice_mlir::diagnostics::Capture;
use lattice_mlir::strings::operation_text;
use lattice_mlir::{
    add_pipeline, dialect, import_single, lattice_modules, lir_to_mlir, lir_to_mlir_text,
    mlir_to_lir, pipeline_text, ImportErrorKind, MLIR_HOST,
};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::REGISTRY;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::operation::OperationPrintingFlags;
use melior::ir::{Module as MlirModule, RegionLike};
use melior::pass::{PassIrPrintingOptions, PassManager as MlirPassManager};
use std::path::{Path, PathBuf};

mod mutated;

fn shared_cases() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (shared/ must sit beside the checkout)",
            dir.display()
        )
    });
    let mut cases: Vec<(String, String)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no case in {}", dir.display());
    cases
}

fn case_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../shared/cases/{name}.json"))
}

/// Runs a lattice pipeline the way `lattice-opt` does (verification after every pass).
fn run_lattice(module: &Module, pipeline: &str) -> Module {
    let pipeline = parse_pipeline(pipeline, &REGISTRY).unwrap();
    let mut sink = Vec::new();
    let mut session = Session::new(&mut sink);
    let mut out = module.clone();
    let result = PassManager::new(REGISTRY, pipeline).run(&mut out, &mut session);
    assert!(result.is_ok(), "{}: {:?}", module.name, session.diagnostics);
    out
}

/// The passes of the paper's pipeline this registry has, in order (CPE joins once registered).
fn pipeline_passes() -> Vec<&'static str> {
    ["mpas", "dlr", "cpe", "verify"]
        .into_iter()
        .filter(|p| REGISTRY.get(p).is_some())
        .collect()
}

/// The module at each phase: as imported, scheduled, planned, refined.
fn phases(parsed: Module) -> Vec<Module> {
    let scheduled = run_lattice(&parsed, "mpas");
    let planned = run_lattice(&scheduled, "dlr");
    let refined = if REGISTRY.get("cpe").is_some() {
        run_lattice(&planned, "cpe")
    } else {
        let mut refined = planned.clone();
        refined.phase = Phase::Refined;
        refined
    };
    vec![parsed, scheduled, planned, refined]
}

fn assert_round_trips(module: &Module) {
    let what = format!("{} ({})", module.name, module.phase);
    let lir = print_module(module);

    let context = dialect::context().unwrap();
    let capture = Capture::new(&context);
    let mlir = lir_to_mlir(&context, module).unwrap();
    assert!(
        mlir.as_operation().verify(),
        "{what}: MLIR's verifier rejects the module: {:?}",
        capture.take()
    );
    let back = import_single(mlir.as_operation()).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(print_module(&back.module), lir, "{what}: through MLIR ops");

    let text = lir_to_mlir_text(module).unwrap();
    let back = mlir_to_lir(&text).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    verify_module(&back).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(print_module(&back), lir, "{what}: through MLIR text");
    assert_eq!(lir_to_mlir_text(&back).unwrap(), text, "{what}: MLIR text");
}

#[test]
fn every_case_round_trips_at_every_phase() {
    for (name, json) in shared_cases() {
        let parsed = import_graph(&json, &name, &ImportOptions::default()).unwrap();
        let modules = phases(parsed);
        let seen: Vec<Phase> = modules.iter().map(|m| m.phase).collect();
        assert_eq!(seen, Phase::ALL, "{name}");
        assert!(
            modules[2].ops.iter().any(|op| op.kind.is_spill()),
            "{name}: the planned module should exercise spill ops"
        );
        for module in &modules {
            assert_round_trips(module);
        }
    }
}

#[test]
fn the_example_and_a_hand_written_target_round_trip() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/matmul_tile.lir");
    let module = parse_module(&std::fs::read_to_string(example).unwrap()).unwrap();
    assert_round_trips(&module);
    // A target unlike the contest's: other names, no staging tier, L0 rule off, other costs, and
    // the largest numbers the structural verifier lets every metric hold.
    let text = "module @odd.name-1$ phase(parsed) {
  target {
    tiers SRAM = 18446744073709551615, TCM = 64
    pipes DMA, ALU
    spill_out DMA, spill_in DMA, spill_cost = 0 + 1 * size
    l0_exclusive = false
  }
  buffer @b4294967295 : TCM[64]
  %7 = alloc @b4294967295
  %4294967295 = LOAD_2 DMA 18446744073709551615 (@b4294967295, @b4294967295) after(%7)
  %0 = free @b4294967295 after(%7, %4294967295)
}
";
    let module = parse_module(text).unwrap();
    assert_eq!(print_module(&module), text);
    assert_round_trips(&module);
}

/// The lattice module of `text` wrapped with a function canonicalize can fold.
fn with_foldable_function(lattice_module: &str) -> String {
    format!(
        "module {{
  func.func @fold() -> i32 {{
    %a = arith.constant 20 : i32
    %b = arith.constant 22 : i32
    %c = arith.addi %a, %b : i32
    return %c : i32
  }}
{lattice_module}}}
"
    )
}

#[test]
fn mlir_pass_manager_runs_lattice_passes_like_lattice_opt() {
    let passes = pipeline_passes();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mlir-pass-manager");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, json) in shared_cases() {
        // lattice-opt --mpas --dlr [--cpe] --verify CASE.json --metrics=…
        let out = dir.join(format!("{name}.lir"));
        let metrics = dir.join(format!("{name}.metrics.json"));
        let mut args: Vec<String> = vec!["lattice-opt".into()];
        args.extend(passes.iter().map(|p| format!("--{p}")));
        args.push(case_path(&name).display().to_string());
        args.push("-o".into());
        args.push(out.display().to_string());
        args.push(format!("--metrics={}", metrics.display()));
        let mut err = Vec::new();
        let code = lattice::cli::main_with_args(REGISTRY, &args, &mut err);
        assert_eq!(code, 0, "{name}: {}", String::from_utf8_lossy(&err));
        let expected_lir = std::fs::read_to_string(&out).unwrap();
        let expected_metrics = std::fs::read_to_string(&metrics).unwrap();

        // The same passes after canonicalize, in an MLIR PassManager, on a module that also
        // holds a function for canonicalize to fold.
        let parsed = import_graph(&json, &name, &ImportOptions::default()).unwrap();
        let context = dialect::context().unwrap();
        let capture = Capture::new(&context);
        let text = with_foldable_function(&lir_to_mlir_text(&parsed).unwrap());
        let mut mlir = MlirModule::parse(&context, &text).unwrap();
        let manager = MlirPassManager::new(&context);
        let lattice: Vec<String> = passes.iter().map(|p| format!("lattice-{p}")).collect();
        let pipeline = format!("builtin.module(canonicalize,{})", lattice.join(","));
        add_pipeline(&manager, &pipeline, REGISTRY).unwrap();
        let ran = manager.run(&mut mlir);
        assert!(ran.is_ok(), "{name}: {:?}", capture.take());

        let after = operation_text(mlir.as_operation());
        assert!(
            !after.contains("arith.addi"),
            "{name}: canonicalize did not fold:\n{}",
            &after[..after.len().min(400)]
        );
        assert!(after.contains("arith.constant 42 : i32"), "{name}");
        let module = import_single(mlir.as_operation()).unwrap().module;
        assert_eq!(print_module(&module), expected_lir, "{name}: module");
        // What `--metrics` prints: the replay's metrics plus the traffic bound.
        let report = REGISTRY.metrics().expect("the registry reports metrics");
        let got_metrics = format!("{}\n", report(&module, MetricsFormat::Json));
        assert_eq!(got_metrics, expected_metrics, "{name}: metrics");
    }
}

/// The planned module of the smallest case, as MLIR text, with the line where op `%id` sits.
fn planned_mlir_text() -> (String, Module) {
    let (name, json) = shared_cases()
        .into_iter()
        .min_by_key(|(_, json)| json.len())
        .unwrap();
    let parsed = import_graph(&json, &name, &ImportOptions::default()).unwrap();
    let planned = run_lattice(&run_lattice(&parsed, "mpas"), "dlr");
    (lir_to_mlir_text(&planned).unwrap(), planned)
}

fn line_of_op(text: &str, id: u32) -> u32 {
    let needle = format!("id = {id} : ui32");
    let index = text
        .lines()
        .position(|l| l.contains(&needle) && !l.contains("lattice.buffer"))
        .unwrap();
    u32::try_from(index + 1).unwrap()
}

#[test]
fn a_failing_lattice_pass_reports_at_its_op_and_leaves_the_module() {
    let (text, planned) = planned_mlir_text();
    let target = planned
        .op(planned.schedule[planned.schedule.len() / 2])
        .name;
    let pipeline = format!("lattice-test-fail{{op=%{target} message=\"no room\"}},lattice-mpas");
    let (diagnostics, after) = failing_run(&text, &pipeline, REGISTRY);
    let error = diagnostics
        .iter()
        .find(|d| d.message == "lattice-test-fail: no room")
        .unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(error.severity, Severity::Error);
    assert_eq!(error.loc.map(|l| l.line), Some(line_of_op(&text, target)));
    assert_eq!(
        print_module(&mlir_to_lir(&after).unwrap()),
        print_module(&planned)
    );
}

#[test]
fn ops_keep_their_mlir_locations_through_a_rewrite() {
    let (name, json) = shared_cases()
        .into_iter()
        .min_by_key(|(_, json)| json.len())
        .unwrap();
    let parsed = import_graph(&json, &name, &ImportOptions::default()).unwrap();
    let text = lir_to_mlir_text(&parsed).unwrap();
    let target = parsed.op(parsed.schedule[parsed.schedule.len() / 3]).name;
    let pipeline = format!("lattice-mpas,lattice-test-fail{{op=%{target}}}");
    let (diagnostics, after) = failing_run(&text, &pipeline, REGISTRY);
    // mpas rewrote the body (the phase moved on), and the failure still points at the input line.
    let module = mlir_to_lir(&after).unwrap();
    assert_eq!(module.phase, Phase::Scheduled);
    let error = diagnostics
        .iter()
        .find(|d| d.message.starts_with("lattice-test-fail: "))
        .unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(error.loc.map(|l| l.line), Some(line_of_op(&text, target)));
}

#[test]
fn verifier_violations_become_mlir_errors() {
    let (text, planned) = planned_mlir_text();
    // Move one allocation to where another buffer of its tier lives at the same time.
    let victim = planned
        .schedule
        .iter()
        .map(|&id| planned.op(id))
        .filter(|op| matches!(op.kind, lattice_lir::OpKind::Alloc { offset: Some(o), .. } if o > 0))
        .nth(3)
        .unwrap();
    let line = line_of_op(&text, victim.name) as usize;
    let broken: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line {
                let start = l.find("offset = ").unwrap() + "offset = ".len();
                let end = start + l[start..].find(' ').unwrap();
                format!("{}0{}\n", &l[..start], &l[end..])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let (diagnostics, _) = failing_run(&broken, "lattice-verify", REGISTRY);
    assert!(
        diagnostics.iter().any(|d| d.severity == Severity::Error
            && d.message.starts_with("lattice-verify: overlap")
            && d.loc.is_some()),
        "{diagnostics:?}"
    );
    assert!(
        diagnostics
            .iter()
            .any(|d| d.message.starts_with("lattice-verify: verification failed")),
        "{diagnostics:?}"
    );
}

#[test]
fn bad_pipelines_are_refused_with_the_reason() {
    let context = dialect::context().unwrap();
    let manager = MlirPassManager::new(&context);
    let cases = [
        ("lattice-nope", "unknown pass `nope`"),
        ("lattice-dlr{victim=fifo}", "victim"),
        ("canonicalize,no-such-mlir-pass", "no-such-mlir-pass"),
        ("lattice-dlr{victim=lru", "unbalanced"),
    ];
    for (pipeline, expected) in cases {
        let error = add_pipeline(&manager, pipeline, REGISTRY)
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{pipeline}: {error}");
    }
}

/// Runs `pipeline` of `registry` on `text` in an MLIR `PassManager`, which must fail; returns
/// what it reported and the module as MLIR prints it afterwards.
fn failing_run(
    text: &str,
    pipeline: &str,
    registry: lattice::Registry,
) -> (Vec<Diagnostic>, String) {
    let context = dialect::context().unwrap();
    let capture = Capture::new(&context);
    let mut mlir = MlirModule::parse(&context, text).unwrap();
    let manager = MlirPassManager::new(&context);
    add_pipeline(&manager, pipeline, registry).unwrap();
    assert!(manager.run(&mut mlir).is_err(), "{pipeline} did not fail");
    (capture.take(), operation_text(mlir.as_operation()))
}

fn errors_of(text: &str) -> Vec<Diagnostic> {
    let errors = mlir_to_lir(text).expect_err(text);
    assert!(
        errors.iter().any(|d| d.severity == Severity::Error),
        "{errors:?}"
    );
    errors
}

fn assert_error(text: &str, line: u32, expected: &str) {
    let errors = errors_of(text);
    assert!(
        errors
            .iter()
            .any(|d| d.message.contains(expected) && d.loc.map(|l| l.line) == Some(line)),
        "expected `{expected}` at line {line}, got {errors:?}"
    );
}

const HEADER: &str = r#"module @m {
  "lattice.phase"() {order = array<i64: 0, 1, 2>, phase = "parsed"} : () -> ()
  "lattice.target"() {l0_exclusive = true, pipes = ["MTE2", "VECTOR"], spill_cost_base = 150 : ui64, spill_cost_per_byte = 2 : ui64, spill_in = "MTE2", spill_out = "MTE2", tiers = [{capacity = 4096 : ui64, name = "L1", staging = false}]} : () -> ()
"#;

fn lattice_text(body: &str) -> String {
    format!("{HEADER}{body}}}\n")
}

const GOOD_BODY: &str = r#"  %0 = "lattice.buffer"() {backed = false, id = 0 : ui32, pos = 0 : ui32, size = 64 : ui64, tier = "L1"} : () -> !lattice.buf
  %1 = "lattice.alloc"(%0) {dep_kinds = [], id = 0 : ui32} : (!lattice.buf) -> !lattice.token
  %2 = "lattice.command"(%0, %1) {cycles = 5 : ui64, dep_kinds = ["precedence"], id = 1 : ui32, opcode = "VEC_ADD", operandSegmentSizes = array<i32: 1, 1>, pipe = "VECTOR"} : (!lattice.buf, !lattice.token) -> !lattice.token
  %3 = "lattice.free"(%0, %2) {dep_kinds = ["precedence"], id = 2 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token
"#;

/// One bad tier name is one error: the ops of that buffer are not each reported as naming no
/// buffer (a real case had thousands of them).
#[test]
fn a_buffer_that_fails_to_import_does_not_cascade_into_its_ops() {
    let errors = errors_of(&lattice_text(&GOOD_BODY.replacen(
        "tier = \"L1\"",
        "tier = \"L9\"",
        1,
    )));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.contains("unknown tier `L9`"),
        "{errors:?}"
    );
    // An op whose own operand is wrong is still reported.
    let errors = errors_of(&lattice_text(&GOOD_BODY.replacen(
        "\"lattice.free\"(%0, %2)",
        "\"lattice.free\"(%1, %2)",
        1,
    )));
    assert!(
        errors.iter().any(|d| d.loc.map(|l| l.line) == Some(7)),
        "{errors:?}"
    );
}

#[test]
fn hand_written_mlir_reads_as_lir() {
    let module = mlir_to_lir(lattice_text(GOOD_BODY)).unwrap();
    verify_module(&module).unwrap();
    let lir = print_module(&module);
    assert!(
        lir.contains("%1 = VEC_ADD VECTOR 5 (@b0) after(%0)"),
        "{lir}"
    );
    // Plain `i64` integers and a top-level module holding other MLIR are accepted too.
    let text = format!(
        "module {{\n  func.func private @f()\n  {}}}\n",
        lattice_text(&GOOD_BODY.replace(": ui64", ": i64"))
    );
    assert_eq!(print_module(&mlir_to_lir(&text).unwrap()), lir);
}

/// An integer reads alike at any width up to 64 bits and any signedness when it is not negative,
/// and is refused otherwise (negative, `index`, wider than 64 bits), with the attribute named.
#[test]
fn integers_read_alike_at_any_width_and_signedness() {
    let lir = print_module(&mlir_to_lir(lattice_text(GOOD_BODY)).unwrap());
    let with_size = |size: &str| lattice_text(&GOOD_BODY.replacen("64 : ui64", size, 1));
    for size in [
        "64 : i64",
        "64 : si64",
        "64 : i8",
        "64 : si32",
        "64 : ui16",
        "64 : ui64",
    ] {
        let module = mlir_to_lir(with_size(size)).unwrap_or_else(|e| panic!("{size}: {e:?}"));
        assert_eq!(print_module(&module), lir, "{size}");
    }
    for size in [
        "-1 : si8",
        "-64 : i64",
        "64 : index",
        "64 : i65",
        "64 : ui128",
    ] {
        assert_error(
            &with_size(size),
            4,
            "attribute `size` of `lattice.buffer` must be",
        );
    }
}

/// A module big enough to be read across threads (4096 ops per thread) reads as it does on one,
/// and an error in it is the one a single thread reports, with the attribute found printed.
#[test]
fn a_large_module_reads_alike_across_threads() {
    let module = generate(&GenSpec {
        shape: Shape::Matmul,
        nodes: 9000,
        seed: 11,
    });
    assert!(module.ops.len() >= 2 * 4096, "{} ops", module.ops.len());
    let text = lir_to_mlir_text(&module).unwrap();
    assert_eq!(
        print_module(&mlir_to_lir(&text).unwrap()),
        print_module(&module)
    );
    // The last command's cycles turned negative.
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| l.contains("\"lattice.command\""))
        .unwrap();
    let cycles = lines[at].split("cycles = ").nth(1).unwrap();
    let value = &cycles[..cycles.find(',').unwrap()];
    let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    edited[at] = lines[at].replacen(value, "-3 : si64", 1);
    assert_error(
        &(edited.join("\n") + "\n"),
        at as u32 + 1,
        "attribute `cycles` of `lattice.command` must be a non-negative integer such as \
         `4 : ui64`, found `-3 : si64`",
    );
}

/// σ is the phase op's `order` and a buffer's place its `pos`, not their places in the body (a
/// graph region, whose order MLIR may change): ops shuffled by hand read back to the same module,
/// and an `order` that does not list every op once, or positions that do not number the buffers
/// 0..n, are located errors.
#[test]
fn sigma_comes_from_the_order_not_from_body_order() {
    let reversed = |text: &str| -> String {
        let lines: Vec<&str> = text.lines().collect();
        let (first, rest) = lines.split_first().unwrap();
        let (last, body) = rest.split_last().unwrap();
        let mut out = format!("{first}\n");
        for line in body.iter().rev() {
            out.push_str(&format!("{line}\n"));
        }
        out + last + "\n"
    };
    let lir = print_module(&mlir_to_lir(lattice_text(GOOD_BODY)).unwrap());
    let shuffled = lattice_text(GOOD_BODY);
    let shuffled = reversed(&shuffled);
    assert!(shuffled.contains("\"lattice.free\"(%0, %2)"), "{shuffled}");
    assert!(
        shuffled.find("lattice.free") < shuffled.find("lattice.alloc"),
        "{shuffled}"
    );
    assert_eq!(print_module(&mlir_to_lir(&shuffled).unwrap()), lir);

    // A whole case, planned: its module's body upside down (tokens used above their
    // definitions, which a graph region allows) is the same module.
    let planned = run_lattice(&smallest_case(), "mpas,dlr");
    let text = lir_to_mlir_text(&planned).unwrap();
    let upside_down = reversed(&text);
    assert_ne!(upside_down, text);
    let back = mlir_to_lir(&upside_down).unwrap();
    verify_module(&back).unwrap();
    assert_eq!(print_module(&back), print_module(&planned));

    // A pass that rewrites the module (dlr) on such a body: the old ops, whose tokens are used
    // above their definitions, are destroyed without a use left behind, and the result is
    // lattice-opt's.
    let scheduled = run_lattice(&smallest_case(), "mpas");
    let upside_down = reversed(&lir_to_mlir_text(&scheduled).unwrap());
    let rewritten = mlir_to_lir(through_pass_manager(
        &upside_down,
        "builtin.module(lattice-dlr)",
        false,
    ))
    .unwrap();
    assert_eq!(
        print_module(&rewritten),
        print_module(&run_lattice(&scheduled, "dlr"))
    );

    // The order wins over body order: swapping the command and the free in it schedules the
    // free first, before the command it depends on.
    let swapped = lattice_text(GOOD_BODY).replacen("<i64: 0, 1, 2>", "<i64: 0, 2, 1>", 1);
    let module = mlir_to_lir(&swapped).unwrap();
    let errors = verify_module(&module).unwrap_err();
    assert!(
        errors.iter().any(|e| e.to_string().contains("%1")),
        "{errors:?}"
    );
    // A pipeline of upstream passes alone runs no lattice pass, yet lattice-opt writes nothing
    // the structural verifier rejects: the same error, located, exit 1, no output.
    let dir = scratch("upstream-only");
    let input = dir.join("swapped.mlir");
    let output = dir.join("out.mlir");
    std::fs::write(&input, &swapped).unwrap();
    let (code, err) = lattice_opt(&[
        "--pass-pipeline=builtin.module(canonicalize)",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("swapped.mlir:") && err.contains("%1"), "{err}");
    assert!(!output.exists());

    // Orders that do not list every op once, each error at the op it concerns: an id of no op,
    // an op twice, an op left out (at that op), two ops with one id (at the second).
    let order = |to: &str| lattice_text(GOOD_BODY).replacen("<i64: 0, 1, 2>", to, 1);
    assert_error(
        &order("<i64: 0, 1, 2, 7>"),
        2,
        "`order` lists 7, which is the `id` of no scheduled op of this module",
    );
    assert_error(
        &order("<i64: 0, 1, 1, 2>"),
        2,
        "`order` lists the op with `id = 1` twice",
    );
    assert_error(
        &order("<i64: 0, 1>"),
        7,
        "the op with `id = 2` is not in the `order` of `lattice.phase`",
    );
    // An order of none of the ops (a stale or emptied one) is one error, not one per op.
    let errors = errors_of(&order("<i64>"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_error(
        &order("<i64: 7, 8>"),
        2,
        "`order` lists none of the module's 3 scheduled ops",
    );
    assert_error(
        &lattice_text(&GOOD_BODY.replacen("id = 2 : ui32}", "id = 1 : ui32}", 1)),
        7,
        "a second scheduled op with `id = 1` (the first is on line 6)",
    );
    assert_error(
        &order("<i32: 0, 1, 2>"),
        2,
        "attribute `order` of `lattice.phase` must be the `id`s of the scheduled ops in σ",
    );
    assert_error(
        &lattice_text(GOOD_BODY).replacen("order = array<i64: 0, 1, 2>, ", "", 1),
        2,
        "attribute \"order\" is expected",
    );
    // Buffer positions that are not 0..n: out of range, twice the same, missing.
    let two_buffers = GOOD_BODY.replacen(
        "  %1 = ",
        "  %9 = \"lattice.buffer\"() {backed = false, id = 1 : ui32, pos = 1 : ui32, size = 64 : ui64, tier = \"L1\"} : () -> !lattice.buf\n  %1 = ",
        1,
    );
    let replace = |from: &str, to: &str| {
        assert!(two_buffers.contains(from), "{from}");
        lattice_text(&two_buffers.replacen(from, to, 1))
    };
    assert!(mlir_to_lir(lattice_text(&two_buffers)).is_ok());
    assert_error(
        &replace("id = 1 : ui32, pos = 1", "id = 1 : ui32, pos = 2"),
        5,
        "`pos = 2` of `lattice.buffer` is out of range: buffer positions run from 0 to 1",
    );
    assert_error(
        &replace("id = 1 : ui32, pos = 1", "id = 1 : ui32, pos = 0"),
        5,
        "a second buffer at `pos = 0` (the first is on line 4)",
    );
    assert_error(
        &replace("id = 1 : ui32, pos = 1 : ui32, ", "id = 1 : ui32, "),
        5,
        "attribute \"pos\" is expected",
    );
}

#[test]
fn malformed_mlir_gives_located_errors() {
    let replace = |from: &str, to: &str| {
        assert!(GOOD_BODY.contains(from), "{from}");
        lattice_text(&GOOD_BODY.replacen(from, to, 1))
    };
    // MLIR's parser and verifier (the IRDL definition).
    assert_error("module @m {\n  \"lattice.phase\"(\n}", 2, "expected ')'");
    assert_error(
        &replace(", tier = \"L1\"", ""),
        4,
        "attribute \"tier\" is expected",
    );
    assert_error(
        &replace("\"lattice.alloc\"(%0)", "\"lattice.alloc\"(%1)"),
        5,
        "",
    );
    assert_error(
        &replace(
            "operandSegmentSizes = array<i32: 1, 1>",
            "operandSegmentSizes = array<i32: 2, 1>",
        ),
        6,
        "operandSegmentSizes",
    );
    // The importer.
    assert_error(
        &replace("tier = \"L1\"", "tier = \"L9\""),
        4,
        "unknown tier `L9`; valid tiers: L1",
    );
    assert_error(
        &replace("pipe = \"VECTOR\"", "pipe = \"CUBE\""),
        6,
        "unknown pipe `CUBE`",
    );
    assert_error(
        &replace("size = 64 : ui64", "size = -1 : i64"),
        4,
        "must be a non-negative integer",
    );
    assert_error(
        &replace(
            "size = 64 : ui64",
            "size = 340282366920938463463374607431768211455 : ui128",
        ),
        4,
        "attribute `size`",
    );
    assert_error(
        &replace("[\"precedence\"]", "[\"sometimes\"]"),
        6,
        "unknown dependency kind",
    );
    assert_error(
        &replace("[\"precedence\"]", "[]"),
        6,
        "1 dependencies but 0 `dep_kinds`",
    );
    assert_error(
        &replace("\"VEC_ADD\"", "\"vec add\""),
        6,
        "not a valid opcode",
    );
    assert_error(
        &replace("id = 1 : ui32", "id = 4294967296 : ui64"),
        6,
        "attribute `id`",
    );
    assert_error(
        &replace("\"lattice.free\"(%0, %2)", "\"lattice.free\"(%2, %2)"),
        7,
        "",
    );
    assert_error(
        &lattice_text(&format!("{GOOD_BODY}  func.func private @g()\n")),
        8,
        "`func.func` in a lattice module",
    );
    assert_error(
        &lattice_text(GOOD_BODY).replace("\"parsed\"", "\"done\""),
        2,
        "unknown phase `done`",
    );
    assert_error(
        &lattice_text(GOOD_BODY).replace("module @m {", "module {"),
        1,
        "needs a name",
    );
    assert_error(
        &lattice_text(GOOD_BODY).replace("module @m {", "module @\"a b\" {"),
        1,
        "not a LIR name",
    );
    // Strings MLIR allows but LIR cannot hold: empty, not UTF-8.
    assert_error(
        &replace("tier = \"L1\"", "tier = \"\""),
        4,
        "unknown tier ``",
    );
    assert_error(
        &replace("tier = \"L1\"", "tier = \"\\FF\""),
        4,
        "must be a UTF-8 string",
    );
    assert_error(
        &replace("[\"precedence\"]", "[\"\"]"),
        6,
        "unknown dependency kind `\"\"`",
    );
    assert_error(
        &lattice_text(GOOD_BODY).replace("\"VECTOR\"]", "\"\"]"),
        3,
        "`` is not a valid pipe name",
    );
    assert_error(
        &lattice_text(GOOD_BODY).replace("module @m {", "module @\"\" {"),
        1,
        "not a LIR name",
    );
    // Whole-input problems.
    for text in ["", "module {}", "module { func.func private @f() }"] {
        let errors = errors_of(text);
        assert!(
            errors
                .iter()
                .any(|d| d.message == ImportErrorKind::NoModule.to_string()),
            "{errors:?}"
        );
    }
    let two = format!(
        "module {{\n{}{}}}\n",
        lattice_text(GOOD_BODY),
        lattice_text(GOOD_BODY).replace("@m", "@n")
    );
    assert!(errors_of(&two)
        .iter()
        .any(|d| d.message.contains("2 lattice modules (@m, @n)")));
    let no_target: String = lattice_text(GOOD_BODY)
        .lines()
        .filter(|l| !l.contains("lattice.target"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_error(&no_target, 1, "no `lattice.target` op");
}

#[test]
fn lattice_opt_reads_mlir_input() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lattice-opt-mlir");
    std::fs::create_dir_all(&dir).unwrap();
    let registry = REGISTRY.with_host(&MLIR_HOST);
    let (text, planned) = planned_mlir_text();
    let input = dir.join("planned.mlir");
    std::fs::write(&input, &text).unwrap();
    let out = dir.join("out.lir");
    let args = [
        "lattice-opt",
        "--verify",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let mut err = Vec::new();
    let code = lattice::cli::main_with_args(registry, args, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        print_module(&planned)
    );

    // A located error with the line quoted, and exit code 1.
    let bad = dir.join("bad.mlir");
    std::fs::write(
        &bad,
        lattice_text(&GOOD_BODY.replacen("tier = \"L1\"", "tier = \"L9\"", 1)),
    )
    .unwrap();
    let mut err = Vec::new();
    let args = ["lattice-opt", bad.to_str().unwrap()];
    assert_eq!(lattice::cli::main_with_args(registry, args, &mut err), 1);
    let err = String::from_utf8(err).unwrap();
    let expected = format!(
        "{}:4:8: error: unknown tier `L9`; valid tiers: L1\n",
        bad.display()
    );
    assert!(err.starts_with(&expected), "{err}");
    assert!(err.contains("\n       ^\n"), "{err}");

    // Structural LIR errors of MLIR input are reported like those of LIR input: here a
    // dependency on a later op, which MLIR's graph regions allow.
    let forward = lattice_text(&GOOD_BODY.replace(
        "\"lattice.alloc\"(%0) {dep_kinds = [], id = 0 : ui32} : (!lattice.buf)",
        "\"lattice.alloc\"(%0, %3) {dep_kinds = [\"precedence\"], id = 0 : ui32} : (!lattice.buf, !lattice.token)",
    ));
    std::fs::write(&bad, forward).unwrap();
    let mut err = Vec::new();
    assert_eq!(lattice::cli::main_with_args(registry, args, &mut err), 1);
    let err = String::from_utf8(err).unwrap();
    assert!(err.contains(":5:8: error: dependency cycle"), "{err}");
}

#[test]
fn the_dialect_is_registered_not_unregistered() {
    let context = dialect::context().unwrap();
    assert!(!context.allow_unregistered_dialects());
    for op in dialect::OPS {
        assert!(context.is_registered_operation(op), "{op}");
    }
    // Registering twice is harmless; an op the dialect does not define is refused by MLIR.
    dialect::register(&context).unwrap();
    let capture = Capture::new(&context);
    assert!(MlirModule::parse(&context, "module @m { \"lattice.nope\"() : () -> () }").is_none());
    assert!(!capture.take().is_empty());
}

#[test]
fn lattice_modules_are_found_where_they_nest() {
    let context = dialect::context().unwrap();
    let text = format!(
        "module {{\n{}{}}}\n",
        lattice_text(GOOD_BODY),
        lattice_text(GOOD_BODY).replace("@m", "@n")
    );
    let mlir = MlirModule::parse(&context, &text).unwrap();
    let found = lattice_modules(mlir.as_operation());
    assert_eq!(found.len(), 2);
    let outer = mlir.body().first_operation().unwrap();
    assert_eq!(found[0], outer);
    assert!(outer.region(0).unwrap().first_block().is_some());
}

/// The smallest case, imported.
fn smallest_case() -> Module {
    let (name, json) = smallest_case_json();
    import_graph(&json, &name, &ImportOptions::default()).unwrap()
}

/// The name and contest JSON of the smallest shared case.
fn smallest_case_json() -> (String, String) {
    shared_cases()
        .into_iter()
        .min_by_key(|(_, json)| json.len())
        .unwrap()
}

/// What MLIR prints for `pass` of the lattice registry: `lattice-` and the canonical spec.
fn printed_lattice_pass(pass: &str) -> String {
    let spec = &parse_pipeline(pass, &REGISTRY).unwrap().passes[0];
    lattice_mlir::external::textual(spec)
}

#[test]
fn mlir_prints_lattice_passes_with_their_options_and_the_print_replays() {
    let context = dialect::context().unwrap();
    let dlr = printed_lattice_pass("dlr{victim=lru}");
    assert!(
        dlr.starts_with("lattice-dlr{") && dlr.contains("victim=lru"),
        "{dlr}"
    );
    let pipelines = [
        "builtin.module(canonicalize,lattice-mpas,lattice-dlr{victim=lru},lattice-verify)",
        "builtin.module(builtin.module(lattice-mpas),any(lattice-dlr{victim=lru}),func.func(cse))",
    ];
    for pipeline in pipelines {
        let manager = MlirPassManager::new(&context);
        add_pipeline(&manager, pipeline, REGISTRY).unwrap();
        // What `--dump-pass-pipeline` and crash reproducers print (`printAsTextualPipeline`).
        let printed = pipeline_text(&manager);
        assert!(printed.contains(&dlr), "{pipeline}: {printed}");
        assert!(
            printed.contains(&printed_lattice_pass("mpas")),
            "{pipeline}: {printed}"
        );
        let again = MlirPassManager::new(&context);
        add_pipeline(&again, &printed, REGISTRY).unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(pipeline_text(&again), printed, "{pipeline}");
    }
}

#[test]
fn ir_printing_headers_carry_lattice_options() {
    let parsed = smallest_case();
    let context = dialect::context().unwrap();
    // MLIR prints IR only from a context without threads (`mlir-opt` turns them off for it too).
    context.enable_multi_threading(false);
    let mut mlir = MlirModule::parse(&context, &lir_to_mlir_text(&parsed).unwrap()).unwrap();
    let manager = MlirPassManager::new(&context);
    add_pipeline(&manager, "lattice-mpas,lattice-dlr{victim=lru}", REGISTRY).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ir-printing-tree");
    let _ = std::fs::remove_dir_all(&dir);
    manager.enable_ir_printing(&PassIrPrintingOptions {
        before_all: false,
        after_all: true,
        module_scope: true,
        on_change: false,
        on_failure: false,
        flags: OperationPrintingFlags::new(),
        tree_printing_path: dir.clone(),
    });
    manager.run(&mut mlir).unwrap();
    let mut dumps = Vec::new();
    let mut pending = vec![dir.clone()];
    while let Some(path) = pending.pop() {
        for entry in std::fs::read_dir(&path).unwrap().flatten() {
            if entry.path().is_dir() {
                pending.push(entry.path());
            } else {
                dumps.push(std::fs::read_to_string(entry.path()).unwrap());
            }
        }
    }
    // `IR Dump After <name> (<pass as printed in a pipeline>)`.
    let header = format!(" ({}) (", printed_lattice_pass("dlr{victim=lru}"));
    assert!(
        dumps
            .iter()
            .any(|d| d.starts_with("// -----// IR Dump After")
                && d.lines().next().unwrap().contains(&header)),
        "no dump header holds `{header}`: {:?}",
        dumps.iter().map(|d| d.lines().next()).collect::<Vec<_>>()
    );
}

#[test]
fn lattice_passes_run_at_any_nesting_level_that_holds_lattice_ops() {
    let parsed = smallest_case();
    let scheduled = print_module(&run_lattice(&parsed, "mpas"));
    let context = dialect::context().unwrap();
    let capture = Capture::new(&context);
    // The lattice module nests in the top-level one, beside a function.
    let text = with_foldable_function(&lir_to_mlir_text(&parsed).unwrap());
    let cases = [
        ("builtin.module(builtin.module(lattice-mpas))", &scheduled),
        ("builtin.module(any(lattice-mpas))", &scheduled),
        ("any(lattice-mpas)", &scheduled),
        // A level that holds no lattice module leaves it alone.
        (
            "builtin.module(func.func(lattice-mpas))",
            &print_module(&parsed),
        ),
    ];
    for (pipeline, expected) in cases {
        let mut mlir = MlirModule::parse(&context, &text).unwrap();
        let manager = MlirPassManager::new(&context);
        add_pipeline(&manager, pipeline, REGISTRY).unwrap();
        assert!(
            manager.run(&mut mlir).is_ok(),
            "{pipeline}: {:?}",
            capture.take()
        );
        let module = import_single(mlir.as_operation()).unwrap().module;
        assert_eq!(&print_module(&module), expected, "{pipeline}");
    }
    let manager = MlirPassManager::new(&context);
    let error = add_pipeline(&manager, "builtin.module((lattice-mpas))", REGISTRY).unwrap_err();
    assert!(error.to_string().contains("needs an op name"), "{error}");
}

#[test]
fn warnings_and_remarks_of_lattice_passes_reach_mlir_at_their_op() {
    let parsed = smallest_case();
    let text = lir_to_mlir_text(&parsed).unwrap();
    let target = parsed.op(parsed.schedule[parsed.schedule.len() / 2]).name;
    let context = dialect::context().unwrap();
    let capture = Capture::new(&context);
    let mut mlir = MlirModule::parse(&context, &text).unwrap();
    let manager = MlirPassManager::new(&context);
    let pipeline = format!(
        "lattice-test-remark{{op=%{target} message=\"looked here\"}},\
         lattice-test-remark{{op=%{target} message=\"careful\" warning}}"
    );
    add_pipeline(&manager, &pipeline, REGISTRY).unwrap();
    assert!(manager.run(&mut mlir).is_ok(), "{:?}", capture.take());
    let diagnostics = capture.take();
    let seen: Vec<(Severity, &str, Option<u32>)> = diagnostics
        .iter()
        .map(|d| (d.severity, d.message.as_str(), d.loc.map(|l| l.line)))
        .collect();
    let line = Some(line_of_op(&text, target));
    assert_eq!(
        seen,
        [
            (Severity::Remark, "lattice-test-remark: looked here", line),
            (Severity::Warning, "lattice-test-remark: careful", line),
        ]
    );
}

/// `text` with `attribute` added to the attribute dictionary of its line `line` (1-based).
fn with_attribute(text: &str, line: usize, attribute: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let target = &mut lines[line - 1];
    let open = target.find('{').unwrap();
    target.insert_str(open + 1, &format!("{attribute}, "));
    lines.join("\n") + "\n"
}

/// The text of attribute `name` on the first op of `block` called `op` whose text holds `needle`.
fn attribute_of(block: melior::ir::BlockRef<'_, '_>, op: &str, needle: &str, name: &str) -> String {
    let found = std::iter::successors(block.first_operation(), |o| o.next_in_block())
        .find(|o| lattice_mlir::strings::op_name(*o) == op && operation_text(*o).contains(needle))
        .unwrap_or_else(|| panic!("no {op} with {needle}"));
    found
        .attribute(name)
        .map(lattice_mlir::strings::attribute_text)
        .unwrap_or_else(|_| panic!("{op} with {needle} lost `{name}`"))
}

#[test]
fn foreign_attributes_on_lattice_ops_survive_import_rewrites_and_export() {
    let parsed = smallest_case();
    let text = lir_to_mlir_text(&parsed).unwrap();
    let op = parsed.op(parsed.schedule[parsed.schedule.len() / 2]).name;
    let buffer = parsed.buffers[0].name;
    let op_line = line_of_op(&text, op) as usize;
    let buffer_id = format!("id = {buffer} : ui32");
    let buffer_line = 1 + text
        .lines()
        .position(|l| l.contains("lattice.buffer") && l.contains(&buffer_id))
        .unwrap();
    let phase_line = 1 + text
        .lines()
        .position(|l| l.contains("lattice.phase"))
        .unwrap();
    let mut tagged = with_attribute(&text, op_line, "npu.tag = \"op\"");
    tagged = with_attribute(&tagged, buffer_line, "npu.bank = 3 : i32");
    tagged = with_attribute(&tagged, phase_line, "npu.note = \"header\"");

    let context = dialect::context().unwrap();
    let capture = Capture::new(&context);
    let mut mlir = MlirModule::parse(&context, &tagged).unwrap();
    // Import reads the module as if the attributes were not there, and keeps them aside.
    let imported = import_single(mlir.as_operation()).unwrap();
    assert_eq!(print_module(&imported.module), print_module(&parsed));
    let kept: Vec<String> = imported.carried.ops[&op]
        .attributes
        .iter()
        .map(|(name, value)| {
            format!(
                "{} = {}",
                lattice_mlir::strings::identifier(*name),
                lattice_mlir::strings::attribute_text(*value)
            )
        })
        .collect();
    assert_eq!(kept, ["npu.tag = \"op\""]);

    // mpas and dlr rewrite the module (new order, offsets, spill ops); MLIR verifies after each.
    let manager = MlirPassManager::new(&context);
    add_pipeline(&manager, "lattice-mpas,lattice-dlr", REGISTRY).unwrap();
    assert!(manager.run(&mut mlir).is_ok(), "{:?}", capture.take());
    let module = import_single(mlir.as_operation()).unwrap().module;
    assert_eq!(
        print_module(&module),
        print_module(&run_lattice(&parsed, "mpas,dlr"))
    );
    let body = mlir.body();
    let op_id = format!("id = {op} : ui32");
    let op_kind = match parsed.op(parsed.schedule[parsed.schedule.len() / 2]).kind {
        lattice_lir::OpKind::Alloc { .. } => dialect::ALLOC,
        lattice_lir::OpKind::Free { .. } => dialect::FREE,
        _ => dialect::COMMAND,
    };
    assert_eq!(attribute_of(body, op_kind, &op_id, "npu.tag"), "\"op\"");
    assert_eq!(
        attribute_of(body, dialect::BUFFER, &buffer_id, "npu.bank"),
        "3 : i32"
    );
    assert_eq!(
        attribute_of(body, dialect::PHASE, "planned", "npu.note"),
        "\"header\""
    );
}

/// `lattice-opt` (the driver, as the binary runs it with the bridge) with `args`; the exit code
/// and what it wrote to the error stream.
fn lattice_opt(args: &[&str]) -> (u8, String) {
    let mut err = Vec::new();
    let args: Vec<&str> = std::iter::once("lattice-opt")
        .chain(args.iter().copied())
        .collect();
    let code = lattice::cli::main_with_args(REGISTRY.with_host(&MLIR_HOST), args, &mut err);
    (code, String::from_utf8(err).unwrap())
}

fn scratch(dir: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The bytecode MLIR writes for the module in the text file `path` (parsed from the file, so its
/// locations name it, as `mlir-opt --emit-bytecode path` would).
fn bytecode_of(path: &Path) -> Vec<u8> {
    unsafe extern "C" fn collect(chunk: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the vector below; MLIR hands a valid chunk.
        unsafe {
            let bytes = std::slice::from_raw_parts(chunk.data.cast::<u8>(), chunk.length);
            (*data.cast::<Vec<u8>>()).extend_from_slice(bytes);
        }
    }
    let context = dialect::context().unwrap();
    let name = path.to_str().unwrap();
    // SAFETY: the context is live; the file name outlives the call.
    let module = unsafe {
        MlirModule::from_option_raw(mlir_sys::mlirModuleCreateParseFromFile(
            context.to_raw(),
            melior::StringRef::new(name).to_raw(),
        ))
    }
    .expect("the text parses");
    let mut out: Vec<u8> = Vec::new();
    // SAFETY: the op is valid; the callback only appends to `out`.
    unsafe {
        mlir_sys::mlirOperationWriteBytecode(
            module.as_operation().to_raw(),
            Some(collect),
            (&mut out as *mut Vec<u8>).cast(),
        )
    };
    assert!(out.starts_with(b"ML\xefR"), "not bytecode");
    out
}

#[test]
fn bytecode_reads_like_the_text_it_was_made_from() {
    let dir = scratch("bytecode");
    let (planned_text, planned) = planned_mlir_text();
    let text = with_foldable_function(&planned_text);
    let text_path = dir.join("planned.mlir");
    std::fs::write(&text_path, &text).unwrap();
    let bytecode = bytecode_of(&text_path);
    assert!(
        std::str::from_utf8(&bytecode).is_err(),
        "bytecode is not text"
    );
    let bc_path = dir.join("planned.mlirbc");
    std::fs::write(&bc_path, &bytecode).unwrap();

    // The library and lattice-opt read it as they read the text.
    assert_eq!(
        print_module(&mlir_to_lir(&bytecode).unwrap()),
        print_module(&planned)
    );
    let (from_text, from_bc) = (dir.join("from_text.mlir"), dir.join("from_bc.mlir"));
    for (input, out) in [(&text_path, &from_text), (&bc_path, &from_bc)] {
        let (code, err) = lattice_opt(&[
            "--verify",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let written = std::fs::read_to_string(&from_bc).unwrap();
    assert_eq!(written, std::fs::read_to_string(&from_text).unwrap());
    assert!(written.contains("func.func @fold"), "{written}");

    // An error in bytecode is located in the text it was made from, which it names; no line of
    // the bytecode is quoted, and nothing is written.
    let bad_text = dir.join("bad.mlir");
    std::fs::write(
        &bad_text,
        lattice_text(&GOOD_BODY.replacen("tier = \"L1\"", "tier = \"L9\"", 1)),
    )
    .unwrap();
    let bad = dir.join("bad.mlirbc");
    std::fs::write(&bad, bytecode_of(&bad_text)).unwrap();
    let out = dir.join("never.mlir");
    let (code, err) = lattice_opt(&[bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let expected = format!("{}:4:8: error: unknown tier `L9`", bad_text.display());
    assert!(err.starts_with(&expected), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists());

    // Bytecode cut short: MLIR's error, exit 1, no panic, nothing written.
    std::fs::write(&bad, &bytecode[..bytecode.len() / 2]).unwrap();
    let (code, err) = lattice_opt(&[bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error: "), "{err}");
    assert!(!out.exists());
    // A file that is neither MLIR text nor bytecode is refused the same way.
    std::fs::write(&bad, b"\xff\xfe\x00module").unwrap();
    let (code, err) = lattice_opt(&[bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.exists());
}

/// A lattice module in a file that also holds a function, a module attribute and a foreign
/// attribute on a lattice op.
fn users_file(lattice_module: &str) -> String {
    with_foldable_function(lattice_module).replacen(
        "module {",
        "module attributes {npu.chip = \"x1\"} {",
        1,
    )
}

#[test]
fn mlir_output_keeps_the_users_ir_around_the_lattice_module() {
    let dir = scratch("keep-users-ir");
    let parsed = smallest_case();
    let expected = run_lattice(&parsed, "mpas,dlr");
    let lattice_text = lir_to_mlir_text(&parsed).unwrap();
    let first_command = parsed
        .op(parsed
            .schedule
            .iter()
            .copied()
            .find(|&id| matches!(parsed.op(id).kind, lattice_lir::OpKind::Compute { .. }))
            .unwrap())
        .name;
    let line = usize::try_from(line_of_op(&lattice_text, first_command)).unwrap();
    let input = dir.join("in.mlir");
    std::fs::write(
        &input,
        users_file(&with_attribute(&lattice_text, line, "npu.tag = \"keep\"")),
    )
    .unwrap();
    let input = input.to_str().unwrap();

    // `-o out.mlir` (and, by default, MLIR in) writes MLIR: the user's IR as it was, the lattice
    // module replaced by the result, foreign attributes kept.
    let out = dir.join("out.mlir");
    let (code, err) = lattice_opt(&["--mpas", "--dlr", input, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("npu.chip = \"x1\""), "{written}");
    assert!(written.contains("func.func @fold"), "{written}");
    assert!(
        written.contains("arith.addi"),
        "lattice passes fold nothing: {written}"
    );
    assert!(written.contains("npu.tag = \"keep\""), "{written}");
    assert_eq!(
        print_module(&mlir_to_lir(&written).unwrap()),
        print_module(&expected)
    );
    // The output is an input again, and a pipeline that changes nothing changes no byte.
    let again = dir.join("again.mlir");
    let (code, err) = lattice_opt(&[
        "--verify",
        out.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&again).unwrap(), written);
    // `--emit=mlir` with LIR input: the module converted.
    let lir = dir.join("in.lir");
    std::fs::write(&lir, print_module(&parsed)).unwrap();
    let (code, err) = lattice_opt(&[
        "--mpas",
        "--dlr",
        "--emit=mlir",
        lir.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        lir_to_mlir_text(&expected).unwrap()
    );

    // LIR output (`-o x.lir` or `--emit=lir`): the module alone, and a warning naming what is
    // left out, at its line.
    let out_lir = dir.join("out.lir");
    let (code, err) = lattice_opt(&["--mpas", "--dlr", input, "-o", out_lir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&out_lir).unwrap(),
        print_module(&expected)
    );
    assert!(
        err.starts_with(&format!(
            "{input}:2:3: warning: `func.func` outside the lattice module left out"
        )),
        "{err}"
    );
    assert!(err.contains("`--emit=mlir` keeps them"), "{err}");

    // Every lattice module of the file runs; LIR output joins them as --split-input-file does.
    let two = dir.join("two.mlir");
    let renamed = lattice_text.replacen(&format!("module @{}", parsed.name), "module @second", 1);
    std::fs::write(&two, format!("module {{\n{lattice_text}\n{renamed}\n}}\n")).unwrap();
    let (code, err) = lattice_opt(&[
        "--mpas",
        "--dlr",
        two.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let context = dialect::context().unwrap();
    let both = MlirModule::parse(&context, &std::fs::read_to_string(&out).unwrap()).unwrap();
    let modules = lattice_modules(both.as_operation());
    assert_eq!(modules.len(), 2);
    for module in modules {
        let got = lattice_mlir::import_module(module).unwrap().module;
        assert_eq!(got.phase, Phase::Planned);
        assert_eq!(got.schedule.len(), expected.schedule.len());
    }
    let (code, err) = lattice_opt(&[
        "--mpas",
        "--dlr",
        "--emit=lir",
        two.to_str().unwrap(),
        "-o",
        out_lir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let joined = std::fs::read_to_string(&out_lir).unwrap();
    let second =
        print_module(&expected).replacen(&format!("module @{}", parsed.name), "module @second", 1);
    assert_eq!(
        joined,
        format!("{}// -----\n{second}", print_module(&expected))
    );

    // A failing pass writes nothing.
    let never = dir.join("never.mlir");
    let (code, _) = lattice_opt(&["--test-fail", input, "-o", never.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(!never.exists());
}

#[test]
fn lattice_opt_runs_pipelines_mixing_upstream_and_lattice_passes() {
    let dir = scratch("mixed-pipelines");
    let parsed = smallest_case();
    let expected = run_lattice(&parsed, "mpas,dlr{victim=lru}");
    let input = dir.join("in.mlir");
    std::fs::write(&input, users_file(&lir_to_mlir_text(&parsed).unwrap())).unwrap();
    let input = input.to_str().unwrap();
    let pipeline =
        "--pass-pipeline=builtin.module(canonicalize,lattice-mpas,lattice-dlr{victim=lru})";
    let out = dir.join("out.mlir");
    let metrics = dir.join("metrics.json");
    let metrics_arg = format!("--metrics={}", metrics.display());
    let (code, err) = lattice_opt(&[pipeline, input, "-o", out.to_str().unwrap(), &metrics_arg]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        !written.contains("arith.addi"),
        "canonicalize ran: {written}"
    );
    assert!(written.contains("arith.constant 42 : i32"), "{written}");
    assert!(written.contains("npu.chip = \"x1\""), "{written}");
    assert_eq!(
        print_module(&mlir_to_lir(&written).unwrap()),
        print_module(&expected)
    );
    let report = REGISTRY.metrics().unwrap();
    assert_eq!(
        std::fs::read_to_string(&metrics).unwrap(),
        format!("{}\n", report(&expected, MetricsFormat::Json))
    );

    // LIR input and contest input (imported first, as lattice's driver imports it), LIR output:
    // the pipeline runs on the module converted to MLIR and back.
    let lir = dir.join("in.lir");
    std::fs::write(&lir, print_module(&parsed)).unwrap();
    let (name, json) = smallest_case_json();
    let contest = dir.join(format!("{name}.json"));
    std::fs::write(&contest, json).unwrap();
    let out_lir = dir.join("out.lir");
    for source in [&lir, &contest] {
        let (code, err) = lattice_opt(&[
            pipeline,
            source.to_str().unwrap(),
            "-o",
            out_lir.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{}: {err}", source.display());
        assert_eq!(
            std::fs::read_to_string(&out_lir).unwrap(),
            print_module(&expected),
            "{}",
            source.display()
        );
    }

    // Warnings of lattice passes reach the user at their op's line, and the run succeeds; LIR
    // output says what it leaves out, as lattice's own driver does.
    let (code, err) = lattice_opt(&[
        "--pass-pipeline=builtin.module(canonicalize,lattice-test-remark{op=%3 warning=true})",
        input,
        "--emit=lir",
        "-o",
        out_lir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(input).unwrap();
    let line = line_of_op(&text, 3);
    assert!(
        err.contains(&format!("{input}:{line}:")) && err.contains("warning: lattice-test-remark"),
        "line {line}: {err}"
    );
    assert!(
        err.contains("warning: `func.func` outside the lattice module left out"),
        "{err}"
    );

    // What MLIR reports about an op of LIR input points at its LIR line.
    let (code, err) = lattice_opt(&[
        "--pass-pipeline=builtin.module(canonicalize,lattice-test-fail{op=%3})",
        lir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let line = print_module(&parsed)
        .lines()
        .position(|l| l.trim_start().starts_with("%3 "))
        .unwrap()
        + 1;
    assert!(
        err.starts_with(&format!("{}:{line}:", lir.display())),
        "line {line}: {err}"
    );

    // `--dump-pass-pipeline` prints MLIR's pipeline, lattice options included.
    let (code, err) = lattice_opt(&[
        pipeline,
        "--dump-pass-pipeline",
        lir.to_str().unwrap(),
        "-o",
        out_lir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("canonicalize{") && err.contains("lattice-dlr{victim=lru"),
        "{err}"
    );

    // Usage errors (exit 2): a lattice pass under its short name beside upstream ones, lattice's
    // own instrumentation, an unknown pass.
    let (code, err) = lattice_opt(&["--pass-pipeline=canonicalize,mpas", input]);
    assert_eq!(code, 2);
    assert!(err.contains("spelled `lattice-mpas`"), "{err}");
    let (code, err) = lattice_opt(&[pipeline, "--timing", input]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: --timing applies to lattice pipelines only"),
        "{err}"
    );
    let (code, err) = lattice_opt(&["--pass-pipeline=canonicalize,mpass", input]);
    assert_eq!(code, 2);
    assert!(
        err.contains("'mpass' does not refer to a registered pass"),
        "{err}"
    );

    // A failing lattice pass in the pipeline: a located error, exit 1, nothing written.
    let never = dir.join("never.mlir");
    let (code, err) = lattice_opt(&[
        "--pass-pipeline=builtin.module(canonicalize,lattice-test-fail)",
        input,
        "-o",
        never.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error: lattice-test-fail"), "{err}");
    assert!(!never.exists());

    // Lattice-only pipelines keep lattice's driver, under either spelling.
    let (code, err) = lattice_opt(&[
        "--pass-pipeline=builtin.module(lattice-mpas,dlr{victim=lru})",
        "--timing",
        input,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("mpas"), "timing report: {err}");
    assert_eq!(
        print_module(&mlir_to_lir(std::fs::read_to_string(&out).unwrap()).unwrap()),
        print_module(&expected)
    );
}

#[test]
fn a_change_between_two_lattice_passes_is_seen_by_the_second() {
    // The second lattice pass would start from the module the first left; an upstream pass in
    // between (the transform interpreter, setting `cycles` on every command) must make it read
    // the ops again, or its rewrite would put the old cycles back.
    let parsed = smallest_case();
    let lattice_module = lir_to_mlir_text(&parsed).unwrap();
    let text = format!(
        "module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %commands = transform.structured.match ops{{[\"lattice.command\"]}} in %root : (!transform.any_op) -> !transform.any_op
    %cycles = transform.param.constant 999 : ui64 -> !transform.any_param
    transform.annotate %commands \"cycles\" = %cycles : !transform.any_op, !transform.any_param
    transform.yield
  }}
{lattice_module}}}
"
    );
    let context = dialect::context().unwrap();
    let capture = Capture::new(&context);
    let run = |pipeline: &str| {
        let mut mlir = MlirModule::parse(&context, &text).unwrap();
        let manager = MlirPassManager::new(&context);
        add_pipeline(&manager, pipeline, REGISTRY).unwrap();
        assert!(manager.run(&mut mlir).is_ok(), "{:?}", capture.take());
        import_single(mlir.as_operation()).unwrap().module
    };
    let cycles = |module: &Module| -> Vec<u64> {
        module
            .ops
            .iter()
            .filter_map(|op| match op.kind {
                lattice_lir::OpKind::Compute { cycles, .. } => Some(cycles),
                _ => None,
            })
            .collect()
    };
    let before = run("builtin.module(lattice-mpas,lattice-dlr)");
    assert_eq!(before.phase, Phase::Planned);
    assert!(
        cycles(&before).iter().any(|&c| c != 999),
        "{:?}",
        cycles(&before)
    );
    let changed = run("builtin.module(lattice-mpas,transform-interpreter,lattice-dlr)");
    assert_eq!(changed.phase, Phase::Planned);
    let seen = cycles(&changed);
    assert!(
        !seen.is_empty() && seen.iter().all(|&c| c == 999),
        "{seen:?}"
    );
}

/// Runs `pipeline` (lattice passes, `lattice-` prefixed) in an MLIR `PassManager` on `text`, in a
/// context with multithreading on or off, and returns the module as MLIR prints it.
fn through_pass_manager(text: &str, pipeline: &str, threaded: bool) -> String {
    let context = dialect::context().unwrap();
    context.enable_multi_threading(threaded);
    let capture = Capture::new(&context);
    let mut mlir = MlirModule::parse(&context, text).unwrap();
    let manager = MlirPassManager::new(&context);
    add_pipeline(&manager, pipeline, REGISTRY).unwrap();
    assert!(manager.run(&mut mlir).is_ok(), "{:?}", capture.take());
    operation_text(mlir.as_operation())
}

#[test]
fn passes_write_their_results_in_place_as_the_exporter_would() {
    // Generated modules of every shape and the smallest case, through pipelines whose passes
    // only reorder (mpas, cpe, test-reverse, magis), bind offsets and add spills (dlr, tight
    // enough to spill on the generated modules' small tiers; cosma; base), search σ with the
    // back end in the loop (order-search), or run from an order that is not MPAS's; consecutive
    // lattice passes write in place over the ops the previous one wrote. The printed module
    // must be what the exporter writes for lattice-opt's result: the same ops, attributes,
    // operands and σ order, nothing left behind.
    // The largest runs in a multithreaded context (MLIR's default), where it is big enough for
    // the writer to make dictionaries on several threads; the others with threads off, the
    // writer's one-thread path.
    let mut modules = vec![smallest_case()];
    for (i, shape) in Shape::ALL.into_iter().enumerate() {
        modules.push(generate(&GenSpec {
            shape,
            nodes: 240 + 40 * i,
            seed: 7 + i as u64,
        }));
    }
    modules.push(generate(&GenSpec {
        shape: Shape::Matmul,
        nodes: 12_000,
        seed: 3,
    }));
    let pipelines = [
        "mpas",
        "mpas,dlr",
        "mpas,dlr,cpe",
        "order{policy=stable},dlr{victim=lru l0=single}",
        "mpas,dlr{victim=cost},cpe{passes=2}",
        "mpas,test-reverse,dlr",
        "cosma",
        "base,cpe",
        "magis,order-search{budget=40}",
    ];
    let mut spilled = false;
    for module in &modules {
        let text = lir_to_mlir_text(module).unwrap();
        for pipeline in pipelines {
            let expected = run_lattice(module, pipeline);
            spilled |= expected
                .ops
                .iter()
                .any(|op| matches!(op.kind, OpKind::SpillIn { .. }));
            let in_mlir: Vec<String> = pipeline
                .split(',')
                .map(|pass| format!("lattice-{pass}"))
                .collect();
            let threaded = module.ops.len() > 10_000;
            let pipeline_text = format!("builtin.module({})", in_mlir.join(","));
            let got = through_pass_manager(&text, &pipeline_text, threaded);
            assert_eq!(
                got,
                lir_to_mlir_text(&expected).unwrap(),
                "{} through {pipeline}",
                module.name
            );
        }
    }
    assert!(
        spilled,
        "no pipeline spilled: the in-place writer's new ops went untested"
    );
}

#[test]
fn an_import_error_in_a_pass_is_reported_in_the_file_its_op_names() {
    // The buffer's location names another file (as `loc(...)` aliases and bytecode carry): the
    // pass's import error is at that file's line and column, not at the module's file.
    let body = GOOD_BODY.replacen(
        "tier = \"L1\"} : () -> !lattice.buf",
        "tier = \"L9\"} : () -> !lattice.buf loc(\"kernels.mlir\":7:3)",
        1,
    );
    let (diagnostics, _) = failing_run(
        &lattice_text(&body),
        "builtin.module(lattice-mpas)",
        REGISTRY,
    );
    let error = diagnostics
        .iter()
        .find(|d| d.message.contains("unknown tier `L9`"))
        .unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(error.file.as_deref(), Some("kernels.mlir"), "{error:?}");
    assert_eq!(
        error.loc.map(|l| (l.line, l.col)),
        Some((7, 3)),
        "{error:?}"
    );
}

/// mlir-opt without `--irdl-file`: the lattice ops are unregistered, so nothing but the importer
/// checks their shape. A FREE without its token is a located import error of the first pass,
/// not a failure to read result 0 in a later one.
#[test]
fn a_result_less_lattice_op_is_an_import_error_without_the_dialect_loaded() {
    let context = melior::Context::new();
    context.set_allow_unregistered_dialects(true);
    let capture = Capture::new(&context);
    let body = GOOD_BODY.replacen(
        "  %3 = \"lattice.free\"(%0, %2) {dep_kinds = [\"precedence\"], id = 2 : ui32} : (!lattice.buf, !lattice.token) -> !lattice.token",
        "  \"lattice.free\"(%0, %2) {dep_kinds = [\"precedence\"], id = 2 : ui32} : (!lattice.buf, !lattice.token) -> ()",
        1,
    );
    assert_ne!(body, GOOD_BODY);
    let mut mlir = MlirModule::parse(&context, &lattice_text(&body)).unwrap();
    let manager = MlirPassManager::new(&context);
    add_pipeline(
        &manager,
        "builtin.module(lattice-mpas,lattice-dlr)",
        REGISTRY,
    )
    .unwrap();
    assert!(manager.run(&mut mlir).is_err());
    let diagnostics = capture.take();
    let expected =
        "`lattice.free` has 0 results; every lattice op has exactly one (the op's token)";
    assert!(
        diagnostics
            .iter()
            .any(|d| d.message.contains(expected) && d.loc.map(|l| l.line) == Some(7)),
        "{diagnostics:?}"
    );
    assert!(
        diagnostics
            .iter()
            .all(|d| !d.message.contains("out of bounds")),
        "{diagnostics:?}"
    );
}

/// A pass that panics, on whatever thread it runs: the bridge must turn that into an error.
struct Panics;

impl lattice::Pass for Panics {
    fn run(
        &mut self,
        _: &mut Module,
        _: &mut lattice::PassContext<'_>,
    ) -> Result<(), lattice::PassError> {
        panic!("ran on {:?}", std::thread::current().name());
    }
}

impl lattice::RegisteredPass for Panics {
    const NAME: &'static str = "test-panics";
    const SUMMARY: &'static str = "Panics.";
    type Options = lattice::NoOptions;
    fn new(_: lattice::NoOptions) -> Self {
        Panics
    }
}

#[test]
fn a_panicking_pass_fails_with_an_error_and_leaves_the_module_as_it_was() {
    // The pass runs on a thread of its own (`external::run_on`): its panic comes back to the pass
    // manager's thread, which reports it at the module, and MLIR stops the pipeline.
    static PASSES: [lattice::PassInfo; 1] = [lattice::PassInfo::of::<Panics>()];
    let registry = lattice::Registry::new(&PASSES);
    let context = dialect::context().unwrap();
    let text = lattice_text(GOOD_BODY);
    let before = operation_text(MlirModule::parse(&context, &text).unwrap().as_operation());
    let pipeline = "builtin.module(lattice-test-panics)";
    let (diagnostics, after) = failing_run(&text, pipeline, registry);
    assert!(
        diagnostics.iter().any(|d| d.severity == Severity::Error
            && d.message == "lattice-test-panics: internal error: the pass panicked"),
        "{diagnostics:?}"
    );
    assert_eq!(after, before);
}

#[test]
fn a_case_whose_later_module_fails_as_expected_reports_no_metrics() {
    // One MLIR case with two lattice modules: `cpe` refines the first (planned) and refuses the
    // second (only scheduled), as the annotation expects. The case then has no output, so its
    // first module's metrics must not be reported either; a case that succeeds reports its own.
    let (planned, _) = planned_mlir_text();
    let scheduled = lir_to_mlir_text(&run_lattice(&smallest_case(), "mpas"))
        .unwrap()
        .replacen("module @", "module @second_", 1);
    let expected = "// expected-error@unknown {{cpe refines `planned` modules, but this one is \
                    `scheduled`; run dlr first}}\n";
    let dir = scratch("later-module-fails");
    let failing = dir.join("failing.mlir");
    std::fs::write(&failing, format!("{planned}{expected}{scheduled}")).unwrap();
    let passing = dir.join("passing.mlir");
    std::fs::write(&passing, &planned).unwrap();
    for (input, reported) in [(&failing, false), (&passing, true)] {
        let metrics = dir.join("metrics.json");
        let _ = std::fs::remove_file(&metrics);
        let metrics_arg = format!("--metrics={}", metrics.display());
        let out = dir.join("out.mlir");
        let (code, err) = lattice_opt(&[
            "--cpe",
            "--verify-diagnostics",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            &metrics_arg,
        ]);
        assert_eq!(code, 0, "{}: {err}", input.display());
        let written = std::fs::read_to_string(&metrics).unwrap_or_default();
        assert_eq!(
            written.contains("makespan"),
            reported,
            "{}: {written}",
            input.display()
        );
    }
}

/// `lattice-opt` parses MLIR input once: what the host read comes back to its writer, which then
/// writes into that parse (the user's `func.func` is kept without the source bytes), and
/// writing without it parses the source again to the same text.
#[test]
fn the_host_writes_into_the_module_it_read() {
    let text = format!(
        "module {{\n  func.func private @kept()\n  {}}}\n",
        lattice_text(GOOD_BODY)
    );
    let hosted = (MLIR_HOST.read)(text.as_bytes()).unwrap();
    assert!(hosted.parsed.is_some());
    let results = [run_lattice(&hosted.modules[0], "mpas")];
    let written = (MLIR_HOST.write)(None, hosted.parsed, &results).unwrap();
    assert!(written.contains("func.func private @kept()"), "{written}");
    assert!(written.contains("phase = \"scheduled\""), "{written}");
    let reparsed = (MLIR_HOST.write)(Some(text.as_bytes()), None, &results).unwrap();
    assert_eq!(written, reparsed);
}

/// A pass that only reorders writes σ and nothing else: ops that merely moved keep their
/// attribute dictionaries as the user wrote them (here `i64` where the exporter writes `ui64`),
/// and only the phase op's `order` changes.
#[test]
fn ops_that_only_move_are_left_as_they_are() {
    let parsed = smallest_case();
    let text = lir_to_mlir_text(&parsed)
        .unwrap()
        .replace(": ui64", ": i64");
    // Each command's attributes, sorted.
    let commands = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| l.contains("\"lattice.command\""))
            // The attribute dictionary: operand numbers follow the body's order.
            .map(|l| l.split_once(") {").map_or(l, |(_, rest)| rest).to_owned())
            .collect();
        lines.sort();
        lines
    };
    let order = |text: &str| -> String {
        let line = text.lines().find(|l| l.contains("lattice.phase")).unwrap();
        line.split("order = ").nth(1).unwrap().to_owned()
    };
    let after = through_pass_manager(&text, "builtin.module(lattice-mpas)", false);
    let scheduled = run_lattice(&parsed, "mpas");
    assert_ne!(
        sigma(&scheduled),
        sigma(&parsed),
        "mpas kept σ: nothing moved"
    );
    assert_ne!(order(&after), order(&text));
    assert!(commands(&after).iter().all(|c| c.contains(": i64")));
    assert_eq!(commands(&after), commands(&text));
    assert_eq!(
        print_module(&mlir_to_lir(&after).unwrap()),
        print_module(&scheduled)
    );
}

/// The names of `module`'s ops in σ.
fn sigma(module: &Module) -> Vec<u32> {
    module
        .schedule
        .iter()
        .map(|&id| module.op(id).name)
        .collect()
}
