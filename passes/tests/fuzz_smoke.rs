//! The fuzz targets' checks (`lattice_passes::fuzz`) as a short, deterministic smoke run inside
//! `cargo test` (proptest with a fixed seed and budget, a few seconds in debug): the LIR parser on
//! mutated printed modules, the contest importer on mutated graphs and solution trios, and the
//! paper pipeline followed by the independent verifier on everything they accept and on
//! structured inputs from the workload generator. Inputs are built from generated modules of at
//! most a few hundred ops, so each case is linear in a small module plus one pipeline run.
//!
//! Graph edits that drop or reverse edges reach the pipeline check too: since the structural
//! verifier demands every lifecycle dependency (ALLOC → uses → FREE), a dropped edge the plan
//! needs is refused at import rather than planned invalidly (issue 19, item 1, which this smoke
//! found from one dropped COPY_OUT → FREE edge before the fix).

use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::contest::export_trio;
use lattice_lir::{print_module, Module, OpKind};
use lattice_passes::fuzz::{
    check_graph, check_lir, check_plans, check_trio, generated, TRIO_SEPARATOR,
};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::outcome::Outcome;
use lattice_passes::REGISTRY;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::{json, Value};

/// A fixed budget and seed: the smoke is the same run every time (the fuzzers explore).
fn budget(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(19),
        ..ProptestConfig::default()
    }
}

fn small_module() -> impl Strategy<Value = Module> {
    (
        prop::sample::select(Shape::ALL.to_vec()),
        3usize..160,
        any::<u64>(),
    )
        .prop_map(|(shape, nodes, seed)| generate(&GenSpec { shape, nodes, seed }))
}

/// One edit of a text, at a position taken modulo its length.
#[derive(Clone, Debug)]
enum TextEdit {
    /// Delete up to 8 bytes.
    Delete(usize, usize),
    /// Insert a byte that means something in LIR.
    Insert(usize, u8),
    /// Delete a whole line.
    DeleteLine(usize),
    /// Repeat a whole line.
    DuplicateLine(usize),
}

fn text_edit() -> impl Strategy<Value = TextEdit> {
    let alphabet = b"%@(),=:[]{}0123456789 \nabflrsuABCFLU_-".to_vec();
    prop_oneof![
        (any::<usize>(), 1usize..9).prop_map(|(at, len)| TextEdit::Delete(at, len)),
        (any::<usize>(), prop::sample::select(alphabet))
            .prop_map(|(at, b)| TextEdit::Insert(at, b)),
        any::<usize>().prop_map(TextEdit::DeleteLine),
        any::<usize>().prop_map(TextEdit::DuplicateLine),
    ]
}

fn apply_text_edit(text: &mut Vec<u8>, edit: &TextEdit) {
    let len = text.len().max(1);
    match *edit {
        TextEdit::Delete(at, n) => {
            let at = at % len;
            text.drain(at..(at + n).min(text.len()));
        }
        TextEdit::Insert(at, b) => text.insert(at % (text.len() + 1), b),
        TextEdit::DeleteLine(k) | TextEdit::DuplicateLine(k) => {
            let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            let k = k % lines.len();
            if matches!(edit, TextEdit::DeleteLine(_)) {
                lines.remove(k);
            } else {
                lines.insert(k, lines[k].clone());
            }
            *text = lines.join(&b'\n');
        }
    }
}

/// The contest JSON graph of a parsed module (what the shipped cases look like).
fn contest_json(m: &Module) -> Value {
    let nodes: Vec<Value> = m
        .ops
        .iter()
        .map(|op| match &op.kind {
            OpKind::Alloc { buffer, .. } | OpKind::Free { buffer } => {
                let b = m.buffer(*buffer);
                let what = if matches!(op.kind, OpKind::Alloc { .. }) {
                    "ALLOC"
                } else {
                    "FREE"
                };
                json!({"Id": op.name, "Op": what, "BufId": b.name, "Size": b.size,
                       "Type": m.target.tier(b.tier).name})
            }
            OpKind::Compute {
                opcode,
                pipe,
                cycles,
                operands,
            } => {
                let bufs: Vec<u32> = operands.iter().map(|&b| m.buffer(b).name).collect();
                json!({"Id": op.name, "Op": opcode, "Pipe": m.target.pipe(*pipe),
                       "Cycles": cycles, "Bufs": bufs})
            }
            OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => Value::Null,
        })
        .collect();
    let edges: Vec<Value> = m
        .ops
        .iter()
        .flat_map(|op| op.deps.iter().map(|d| json!([m.op(d.op).name, op.name])))
        .collect();
    json!({"Nodes": nodes, "Edges": edges})
}

/// One edit of a contest graph, at indices taken modulo the array lengths.
#[derive(Clone, Debug)]
enum GraphEdit {
    /// Remove an edge.
    DropEdge(usize),
    /// Remove a node.
    DropNode(usize),
    /// Set a node's numeric field (`Cycles`, `Size`, `Id`, `BufId`) to a value, possibly huge.
    SetNumber(usize, &'static str, u64),
    /// Reverse an edge.
    ReverseEdge(usize),
}

fn number_edit() -> impl Strategy<Value = GraphEdit> {
    let field = prop::sample::select(vec!["Cycles", "Size", "Id", "BufId"]);
    let value = prop_oneof![0u64..8, Just(1 << 62), Just(u64::MAX)];
    (any::<usize>(), field, value).prop_map(|(at, f, v)| GraphEdit::SetNumber(at, f, v))
}

/// The edits whose results the pipeline check also sees (see the file header).
fn graph_edit() -> impl Strategy<Value = GraphEdit> {
    prop_oneof![
        any::<usize>().prop_map(GraphEdit::DropEdge),
        any::<usize>().prop_map(GraphEdit::DropNode),
        any::<usize>().prop_map(GraphEdit::ReverseEdge),
        number_edit(),
    ]
}

/// The non-empty array under `key`.
fn array<'g>(graph: &'g mut Value, key: &str) -> Option<&'g mut Vec<Value>> {
    graph.get_mut(key)?.as_array_mut().filter(|a| !a.is_empty())
}

fn apply_graph_edit(graph: &mut Value, edit: &GraphEdit) {
    match *edit {
        GraphEdit::DropEdge(at) | GraphEdit::ReverseEdge(at) => {
            if let Some(edges) = array(graph, "Edges") {
                let at = at % edges.len();
                if matches!(edit, GraphEdit::DropEdge(_)) {
                    edges.remove(at);
                } else if let Some(pair) = edges[at].as_array_mut() {
                    pair.reverse();
                }
            }
        }
        GraphEdit::DropNode(at) => {
            if let Some(nodes) = array(graph, "Nodes") {
                let at = at % nodes.len();
                nodes.remove(at);
            }
        }
        GraphEdit::SetNumber(at, field, value) => {
            if let Some(nodes) = array(graph, "Nodes") {
                let at = at % nodes.len();
                if let Some(slot) = nodes[at].get_mut(field) {
                    *slot = json!(value);
                }
            }
        }
    }
}

/// `module` planned by `mpas,dlr`, or `None` when the pipeline refuses it.
fn planned(module: &Module) -> Option<Module> {
    let mut module = module.clone();
    let mut reports = Vec::new();
    let mut session = Session::new(&mut reports);
    let pipeline = parse_pipeline("mpas,dlr", &REGISTRY).ok()?;
    PassManager::new(REGISTRY, pipeline)
        .run(&mut module, &mut session)
        .ok()?;
    Some(module)
}

/// One edit of a solution trio's text: a line of the schedule, memory or spill file.
#[derive(Clone, Debug)]
enum TrioEdit {
    /// Swap a line with the next one.
    Swap(usize, usize),
    /// Delete a line.
    Delete(usize, usize),
    /// Replace the digits of a line by a number.
    Number(usize, usize, u64),
}

fn trio_edit() -> impl Strategy<Value = TrioEdit> {
    let value = prop_oneof![0u64..2048, Just(u64::MAX)];
    prop_oneof![
        (0usize..3, any::<usize>()).prop_map(|(f, at)| TrioEdit::Swap(f, at)),
        (0usize..3, any::<usize>()).prop_map(|(f, at)| TrioEdit::Delete(f, at)),
        (0usize..3, any::<usize>(), value).prop_map(|(f, at, v)| TrioEdit::Number(f, at, v)),
    ]
}

fn apply_trio_edit(files: &mut [String; 3], edit: &TrioEdit) {
    let (TrioEdit::Swap(f, at) | TrioEdit::Delete(f, at) | TrioEdit::Number(f, at, _)) = *edit;
    let mut lines: Vec<String> = files[f].lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return;
    }
    let at = at % lines.len();
    match *edit {
        TrioEdit::Swap(..) => {
            let next = (at + 1) % lines.len();
            lines.swap(at, next);
        }
        TrioEdit::Delete(..) => {
            lines.remove(at);
        }
        TrioEdit::Number(.., value) => {
            // `BufId:Offset` lines keep their BufId; schedule lines are one number.
            lines[at] = match lines[at].split_once(':') {
                Some((buf, _)) => format!("{buf}:{value}"),
                None => value.to_string(),
            };
        }
    }
    files[f] = lines.iter().map(|l| format!("{l}\n")).collect();
}

fn trio_bytes(graph: &Value, files: &[String; 3]) -> Vec<u8> {
    let mut sections = vec![graph.to_string().into_bytes()];
    sections.extend(files.iter().map(|f| f.clone().into_bytes()));
    sections.join(&TRIO_SEPARATOR)
}

/// The pipeline check on a module a front end accepted, as a proptest failure.
fn plans(module: &Module) -> Result<(), TestCaseError> {
    check_plans(module).map_err(|e| TestCaseError::fail(format!("{}: {e}", module.name)))?;
    Ok(())
}

proptest! {
    #![proptest_config(budget(128))]

    #[test]
    fn the_parser_round_trips_or_rejects_edited_text_and_the_pipeline_plans_what_it_accepts(
        module in small_module(),
        edits in prop::collection::vec(text_edit(), 0..4),
    ) {
        let mut text = print_module(&module).into_bytes();
        for edit in &edits {
            apply_text_edit(&mut text, edit);
        }
        let accepted = check_lir(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if edits.is_empty() {
            prop_assert!(accepted.is_some(), "a generated module was rejected");
        }
        if let Some(m) = accepted {
            plans(&m)?;
        }
    }

    #[test]
    fn the_importer_keeps_its_invariants_and_the_pipeline_plans_what_it_accepts(
        module in small_module(),
        edits in prop::collection::vec(graph_edit(), 0..4),
    ) {
        let mut graph = contest_json(&module);
        for edit in &edits {
            apply_graph_edit(&mut graph, edit);
        }
        let accepted = check_graph(graph.to_string().as_bytes())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        if edits.is_empty() {
            prop_assert_eq!(accepted.as_ref().map(|m| m.ops.len()), Some(module.ops.len()));
        }
        if let Some(m) = accepted {
            plans(&m)?;
        }
    }

    #[test]
    fn the_solution_importer_round_trips_or_rejects_edited_trios(
        module in small_module(),
        edits in prop::collection::vec(trio_edit(), 0..3),
    ) {
        let Some(plan) = planned(&module) else {
            return Err(TestCaseError::fail(format!("mpas,dlr refused {}", module.name)));
        };
        let trio = export_trio(&plan).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut files = [trio.schedule, trio.memory.unwrap_or_default(), trio.spill.unwrap_or_default()];
        for edit in &edits {
            apply_trio_edit(&mut files, edit);
        }
        let accepted = check_trio(&trio_bytes(&contest_json(&module), &files))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        if edits.is_empty() {
            prop_assert!(accepted.is_some(), "the exported plan of {} was rejected", module.name);
        }
    }

    #[test]
    fn the_pipeline_plans_structured_inputs_validly_or_refuses_them(
        data in prop::collection::vec(any::<u8>(), 0..16),
    ) {
        plans(&generated(&data))?;
    }
}

#[test]
fn unsqueezed_structured_inputs_are_planned() {
    // Byte 11 = 0 keeps the contest capacities, under which the trivial plan exists.
    for shape in 0..4u8 {
        let module = generated(&[shape, 44, 1, shape, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            check_plans(&module),
            Ok(Outcome::Finished {
                violations: Vec::new()
            }),
            "{}",
            module.name
        );
    }
}
