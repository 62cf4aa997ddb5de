//! The bridge on edited MLIR: a short, deterministic smoke (proptest with a fixed seed and
//! budget) in the spirit of `passes/tests/fuzz_smoke.rs`, for what only MLIR input reaches — the
//! importer of the `lattice` dialect and the lattice passes inside an MLIR `PassManager`.
//!
//! Inputs: generated workloads, parsed, scheduled by `mpas` or planned by `mpas,dlr`, exported to
//! MLIR text and then edited the ways a hand or a foreign pass edits such a file — a number
//! replaced (an `id`, a `pos`, an entry of σ's `order`, a size, a capacity, cycles, an offset),
//! an SSA operand pointed at another value, a string swapped for another (an op name, a pipe, a
//! tier, a dependency kind, the phase), a line deleted, repeated or moved. Whatever MLIR's parser
//! and the IRDL verifier still accept must satisfy:
//! - the importer returns a module or errors, never panics (in a pass, a panic would abort the
//!   whole test binary at the FFI boundary);
//! - a module it returns that the structural verifier accepts is planned validly or refused by
//!   the pipelines (`lattice_passes::fuzz::check_plans`);
//! - `lattice-mpas,lattice-dlr,lattice-cpe` in an MLIR `PassManager` succeeds exactly when
//!   lattice's pass manager succeeds on the imported module, and then leaves a module that reads
//!   back as lattice's result; on input the importer or the structural verifier refuses, the
//!   bridge fails with an error diagnostic, or finds no lattice module and leaves one it would
//!   refuse as well.
//!
//! Each case is a module of at most a few hundred ops, parsed twice and run through four short
//! pipelines; the whole smoke takes a few seconds in debug.

use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::diag::Severity;
use lattice_lir::{print_module, verify_module, Module};
use lattice_mlir::diagnostics::Capture;
use lattice_mlir::strings::operation_text;
use lattice_mlir::{add_pipeline, dialect, lir_to_mlir_text, mlir_to_lir};
use lattice_passes::fuzz::check_plans;
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::REGISTRY;
use melior::ir::Module as MlirModule;
use melior::pass::PassManager as MlirPassManager;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::cell::RefCell;

/// How many edited texts the smoke checks.
const CASES: u32 = 400;

/// The pipeline both pass managers run.
const PIPELINE: &str = "mpas,dlr,cpe";

/// How far the workload is taken before it is exported: parsed, scheduled, or planned.
const STAGES: [&str; 3] = ["", "mpas", "mpas,dlr"];

/// Numbers a replaced number becomes: edges of the attribute types (`ui32`, `ui64`, `i64`) and
/// small values that collide with ids, positions and offsets.
const NUMBERS: [&str; 9] = [
    "0",
    "1",
    "2",
    "-1",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "1000000",
];

/// Strings a replaced string may become besides those already in the text.
const STRINGS: [&str; 4] = ["reuse", "planned", "refined", ""];

/// One edit of the MLIR text; indices are taken modulo the number of candidates.
#[derive(Clone, Debug)]
enum Edit {
    /// The `nth` free-standing number becomes `NUMBERS[value]`.
    Number { nth: usize, value: usize },
    /// The `nth` SSA use `%k` becomes another value of its type (`to` picks which).
    Operand { nth: usize, to: usize },
    /// The `nth` quoted string becomes the `to`-th of the text's strings and [`STRINGS`].
    Text { nth: usize, to: usize },
    /// Delete a line.
    DeleteLine(usize),
    /// Repeat a line (its copy defining a new value).
    DuplicateLine(usize),
    /// Move a line to another place.
    MoveLine(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let any = any::<usize>;
    prop_oneof![
        3 => (any(), 0..NUMBERS.len()).prop_map(|(nth, value)| Edit::Number { nth, value }),
        2 => (any(), any()).prop_map(|(nth, to)| Edit::Operand { nth, to }),
        2 => (any(), any()).prop_map(|(nth, to)| Edit::Text { nth, to }),
        1 => any().prop_map(Edit::DeleteLine),
        1 => any().prop_map(Edit::DuplicateLine),
        1 => (any(), any()).prop_map(|(from, to)| Edit::MoveLine(from, to)),
    ]
}

/// The byte ranges of the tokens `edit` may replace: free-standing digit runs (not part of a
/// name such as `%12`, `ui64` or `L0A`), `%` value names, or quoted strings.
fn tokens(text: &str, edit: &Edit) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'%' || b == b'@';
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        match (edit, bytes[i]) {
            (Edit::Text { .. }, b'"') => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
                found.push((start, (i + 1).min(bytes.len())));
            }
            (Edit::Operand { .. }, b'%') => {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                // Uses only: a definition renamed would clash with another.
                if !text[i..].starts_with(" = ") {
                    found.push((start, i));
                }
                continue;
            }
            (Edit::Number { .. }, b) if b.is_ascii_digit() && (i == 0 || !word(bytes[i - 1])) => {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if i == bytes.len() || !word(bytes[i]) {
                    found.push((start, i));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The quoted strings of `text` of the same class as `like` (op names, which start with
/// `"lattice.`, or attribute values, joined by [`STRINGS`]), distinct, in order of appearance:
/// MLIR refuses an op name that is no op of a loaded dialect.
fn strings(text: &str, like: &str) -> Vec<String> {
    let class = |s: &str| s.starts_with("\"lattice.");
    let quoted = tokens(text, &Edit::Text { nth: 0, to: 0 });
    let candidates = quoted
        .iter()
        .map(|&(a, b)| text[a..b].to_string())
        .chain(STRINGS.iter().map(|s| format!("\"{s}\"")));
    let mut pool: Vec<String> = Vec::new();
    for s in candidates {
        if class(&s) == class(like) && !pool.contains(&s) {
            pool.push(s);
        }
    }
    pool
}

fn apply(text: &str, edit: &Edit) -> String {
    let replace = |nth: usize, with: &dyn Fn(&str) -> String| {
        let found = tokens(text, edit);
        if found.is_empty() {
            return text.to_string();
        }
        let (a, b) = found[nth % found.len()];
        format!("{}{}{}", &text[..a], with(&text[a..b]), &text[b..])
    };
    match *edit {
        Edit::Number { nth, value } => replace(nth, &|_| NUMBERS[value].to_string()),
        Edit::Operand { nth, to } => {
            // A buffer for a buffer, a token for a token: MLIR refuses a value of the wrong type.
            let buffers = text.matches(" = \"lattice.buffer\"").count();
            let values = text.matches(" = \"lattice.").count();
            replace(nth, &|name| match name[1..].parse::<usize>() {
                Ok(k) if k < buffers => format!("%{}", to % buffers),
                Ok(_) if values > buffers => format!("%{}", buffers + to % (values - buffers)),
                _ => name.to_string(),
            })
        }
        Edit::Text { nth, to } => replace(nth, &|quoted| {
            let pool = strings(text, quoted);
            pool[to % pool.len()].clone()
        }),
        Edit::DeleteLine(k) | Edit::DuplicateLine(k) | Edit::MoveLine(k, _) => {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let k = k % lines.len();
            match *edit {
                Edit::DeleteLine(_) => {
                    lines.remove(k);
                }
                Edit::DuplicateLine(_) => {
                    // The copy defines a value of its own, or MLIR refuses the redefinition.
                    let values = text.matches(" = \"lattice.").count();
                    let copy = match lines[k].trim_start().split_once(" = ") {
                        Some((name, op)) if name.starts_with('%') => format!("  %{values} = {op}"),
                        _ => lines[k].to_string(),
                    };
                    lines.insert(k, copy);
                }
                Edit::MoveLine(_, to) => {
                    let line = lines.remove(k);
                    lines.insert(to % (lines.len() + 1), line);
                }
                _ => unreachable!("the outer match admits only line edits"),
            }
            lines.join("\n")
        }
    }
}

/// `module` after `pipeline` in lattice's pass manager, or `None` when the pipeline fails.
fn lattice_run(module: &Module, pipeline: &str) -> Option<Module> {
    let pipeline = parse_pipeline(pipeline, &REGISTRY).ok()?;
    let mut sink = Vec::new();
    let mut session = Session::new(&mut sink);
    let mut out = module.clone();
    PassManager::new(REGISTRY, pipeline)
        .run(&mut out, &mut session)
        .ok()?;
    Some(out)
}

/// What the bridge did with the edited text: `None` when MLIR's parser or verifier refuses it,
/// else the pass manager's result (the printed module, or the error diagnostics it reported).
fn bridge_run(text: &str) -> Option<Result<String, Vec<String>>> {
    let context = dialect::context().expect("loads the dialect");
    let capture = Capture::new(&context);
    let mut mlir = MlirModule::parse(&context, text)?;
    let manager = MlirPassManager::new(&context);
    let pipeline = "builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)";
    add_pipeline(&manager, pipeline, REGISTRY).expect("the pipeline builds");
    Some(if manager.run(&mut mlir).is_ok() {
        Ok(operation_text(mlir.as_operation()))
    } else {
        let errors = capture.take().into_iter();
        Err(errors
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.message)
            .collect())
    })
}

/// How far an edited text got, for the smoke's tally.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reached {
    /// MLIR's parser or verifier refused it.
    Mlir,
    /// The importer or the structural verifier refused it.
    Import,
    /// Both pass managers ran it and agreed: `true` when they planned it.
    Compared(bool),
}

/// Checks one edited text against the properties in the file header.
fn check(text: &str) -> Result<Reached, TestCaseError> {
    let Some(bridge) = bridge_run(text) else {
        // MLIR refuses the text itself: nothing of lattice runs.
        return Ok(Reached::Mlir);
    };
    let imported = mlir_to_lir(text).ok().filter(|m| verify_module(m).is_ok());
    let Some(module) = imported else {
        match bridge {
            Err(errors) => prop_assert!(!errors.is_empty(), "a failure without an error"),
            Ok(out) => prop_assert!(
                mlir_to_lir(&out)
                    .ok()
                    .filter(|m| verify_module(m).is_ok())
                    .is_none(),
                "the bridge turned refused input into a module:\n{out}"
            ),
        }
        return Ok(Reached::Import);
    };
    if let Err(broken) = check_plans(&module) {
        return Err(TestCaseError::fail(format!("{broken}\n{text}")));
    }
    let expected = lattice_run(&module, PIPELINE);
    let planned = expected.is_some();
    match (expected, bridge) {
        (Some(expected), Ok(out)) => {
            let read = mlir_to_lir(&out).map_err(|e| {
                TestCaseError::fail(format!("the bridge's output does not read: {e:?}"))
            })?;
            prop_assert_eq!(print_module(&read), print_module(&expected));
        }
        (None, Err(errors)) => prop_assert!(!errors.is_empty(), "a failure without an error"),
        (expected, bridge) => prop_assert!(
            false,
            "lattice {} but the bridge {}:\n{text}",
            if expected.is_some() { "plans" } else { "fails" },
            if bridge.is_ok() { "plans" } else { "fails" }
        ),
    }
    Ok(Reached::Compared(planned))
}

#[test]
fn edited_mlir_is_planned_like_lattice_or_refused_with_an_error() {
    let tally = RefCell::new(Vec::new());
    let config = ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(20),
        ..ProptestConfig::default()
    };
    let workload = (
        prop::sample::select(Shape::ALL.to_vec()),
        3usize..90,
        any::<u64>(),
        0..STAGES.len(),
    );
    proptest!(config, |((shape, nodes, seed, stage) in workload,
                         edits in prop::collection::vec(edit(), 1..3))| {
        let generated = generate(&GenSpec { shape, nodes, seed });
        let module = match STAGES[stage] {
            "" => generated,
            pipeline => lattice_run(&generated, pipeline).unwrap_or(generated),
        };
        let mut text = lir_to_mlir_text(&module).expect("exports");
        for edit in &edits {
            text = apply(&text, edit);
        }
        tally.borrow_mut().push(check(&text)?);
    });
    // The edits are meant to reach lattice: a smoke whose inputs MLIR or the importer refuse
    // nearly always would check little. (At this seed and budget: MLIR refuses 122 texts, the
    // importer 213; 43 are planned alike and 22 fail alike.)
    let tally = tally.into_inner();
    let count = |r: Reached| tally.iter().filter(|&&t| t == r).count();
    let summary = format!(
        "MLIR refused {}, import refused {}, planned {}, failed alike {}",
        count(Reached::Mlir),
        count(Reached::Import),
        count(Reached::Compared(true)),
        count(Reached::Compared(false))
    );
    assert_eq!(tally.len(), CASES as usize, "{summary}");
    assert!(
        count(Reached::Compared(true)) >= tally.len() / 20,
        "{summary}"
    );
    assert!(count(Reached::Import) >= tally.len() / 10, "{summary}");
}
