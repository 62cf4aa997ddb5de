//! The Chrome trace, event by event, against the independent verifier: every command exactly
//! once on its pipe's track, starting at the replay's start (which the timing engine's Freeze
//! timing must equal too) and lasting its cycles; each spill's flow from its SPILL_OUT to the
//! SPILL_IN reloading it; every counter equal, at every change, to the bytes the replay's
//! lifetimes and residencies hold then (summed here by brute force); the logical peak instant
//! at the replay's peak. Then the shape of every event (a schema, field by field) over the traces
//! of all shipped cases, planned by `mpas,dlr,cpe`.

mod common;

use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::{parse_module, Module, OpKind};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::trace::{traceable, write_trace};
use lattice_passes::verify::{metrics, Timeline};
use lattice_passes::REGISTRY;
use serde_json::Value;
use std::collections::BTreeMap;

fn planned(module: &Module) -> Module {
    let mut m = module.clone();
    let pipeline = parse_pipeline("mpas,dlr,cpe", &REGISTRY).unwrap();
    let mut reports = Vec::new();
    PassManager::new(REGISTRY, pipeline)
        .run(&mut m, &mut Session::new(&mut reports))
        .unwrap_or_else(|_| panic!("{} plans", module.name));
    m
}

/// The trace of `m` parsed back, with the timeline it shows.
fn trace(m: &Module) -> (Value, Timeline) {
    let t = traceable(m).expect("a valid plan is traceable");
    let mut bytes = Vec::new();
    write_trace(&[(m, &t)], &mut bytes).unwrap();
    (
        serde_json::from_slice(&bytes).expect("the trace is JSON"),
        t,
    )
}

fn events<'a>(trace: &'a Value, ph: &str) -> Vec<&'a Value> {
    trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == ph)
        .collect()
}

fn int(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{v} is not an unsigned integer"))
}

/// The bytes of tier `tier` that `intervals` (from, to, size) hold at `cycle`.
fn live_at(intervals: &[(u64, u64, u64)], cycle: u64) -> u64 {
    intervals
        .iter()
        .filter(|&&(from, to, _)| from <= cycle && cycle < to)
        .map(|&(_, _, size)| size)
        .sum()
}

fn check_events(m: &Module) {
    let (trace, t) = trace(m);
    let freeze = lattice_passes::timing::timing(m).expect("times").freeze;
    let name = |v: &Value| v["name"].as_str().unwrap().to_owned();

    // Tracks: one per pipe, named after it.
    let threads: BTreeMap<u64, String> = events(&trace, "M")
        .into_iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| {
            (
                int(&e["tid"]),
                e["args"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: BTreeMap<u64, String> = (1..).zip(m.target.pipes.iter().cloned()).collect();
    assert_eq!(threads, expected, "{}", m.name);

    // Commands: each op with a pipe exactly once, on its pipe, at the replay's start.
    let mut by_op: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for e in events(&trace, "X") {
        by_op
            .entry(e["args"]["op"].as_str().unwrap().to_owned())
            .or_default()
            .push(e);
    }
    let mut commands = 0;
    for (i, op) in m.ops.iter().enumerate() {
        let Some(pipe) = op.kind.pipe() else {
            assert!(!by_op.contains_key(&format!("%{}", op.name)));
            continue;
        };
        commands += 1;
        let found = &by_op[&format!("%{}", op.name)];
        assert_eq!(found.len(), 1, "%{} appears {} times", op.name, found.len());
        let e = found[0];
        assert_eq!(int(&e["tid"]), pipe.index() as u64 + 1, "%{}", op.name);
        assert_eq!(
            int(&e["ts"]),
            t.start[i],
            "%{}: the replay's start",
            op.name
        );
        assert_eq!(t.start[i], freeze.start[i], "%{}: timing engine", op.name);
        assert_eq!(int(&e["dur"]), op.kind.cycles(), "%{}", op.name);
        assert_eq!(e["args"]["phase"], m.phase.keyword());
    }
    assert_eq!(by_op.len(), commands, "{}: one event per command", m.name);

    // Each track's commands in issue order, never overlapping (single issue).
    let mut tracks: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for e in events(&trace, "X") {
        let (ts, dur) = (int(&e["ts"]), int(&e["dur"]));
        tracks
            .entry(int(&e["tid"]))
            .or_default()
            .push((ts, ts + dur));
    }
    for slots in tracks.values() {
        assert!(slots.windows(2).all(|w| w[0].1 <= w[1].0), "{}", m.name);
    }

    // Flows: from each SPILL_OUT to the SPILL_IN that reloads it.
    let starts: BTreeMap<u64, &Value> = events(&trace, "s")
        .into_iter()
        .map(|e| (int(&e["id"]), e))
        .collect();
    let finishes: BTreeMap<u64, &Value> = events(&trace, "f")
        .into_iter()
        .map(|e| (int(&e["id"]), e))
        .collect();
    let reloads = m
        .ops
        .iter()
        .filter(|op| matches!(op.kind, OpKind::SpillIn { .. }))
        .count();
    assert_eq!(starts.len(), reloads, "{}", m.name);
    assert_eq!(finishes.len(), reloads, "{}", m.name);
    for r in t.residencies.iter().filter(|r| r.reloads.is_some()) {
        let out = r.reloads.unwrap();
        let flow = starts
            .values()
            .find(|e| {
                int(&e["ts"]) == t.start[out.index()]
                    && name(e) == format!("spill @b{}", m.buffer(r.buffer).name)
            })
            .expect("a flow leaves the SPILL_OUT");
        let end = finishes[&int(&flow["id"])];
        assert_eq!(int(&end["ts"]), t.start[r.opened_by.index()]);
        assert_eq!(end["bp"], "e");
        let pipe_of = |v: lattice_lir::OpId| m.op(v).kind.pipe().unwrap().index() as u64 + 1;
        assert_eq!(int(&flow["tid"]), pipe_of(out));
        assert_eq!(int(&end["tid"]), pipe_of(r.opened_by));
    }

    // Counters: at every change, the bytes the replay holds live then.
    let mut samples: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for e in events(&trace, "C") {
        samples
            .entry(name(e))
            .or_default()
            .push((int(&e["ts"]), int(&e["args"]["bytes"])));
    }
    for (k, tier) in m.target.tiers.iter().enumerate() {
        let of_tier = |b: lattice_lir::BufferId| m.buffer(b).tier.index() == k;
        let size = |b: lattice_lir::BufferId| m.buffer(b).size;
        let logical: Vec<(u64, u64, u64)> = t
            .lifetimes
            .iter()
            .filter(|l| of_tier(l.buffer))
            .map(|l| (l.live.start, l.live.end, size(l.buffer)))
            .collect();
        let physical: Vec<(u64, u64, u64)> = t
            .residencies
            .iter()
            .filter(|r| of_tier(r.buffer))
            .map(|r| (r.held.start, r.held.end, size(r.buffer)))
            .collect();
        for (series, intervals) in [("logical", logical), ("physical", physical)] {
            let track = &samples[&format!("{} {series}", tier.name)];
            assert_eq!(track[0].0, 0, "{} starts at cycle 0", tier.name);
            assert!(track
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1));
            let mut changes: Vec<u64> = intervals.iter().flat_map(|&(f, t, _)| [f, t]).collect();
            changes.push(0);
            for cycle in changes {
                let shown = track.iter().rev().find(|s| s.0 <= cycle).unwrap().1;
                assert_eq!(
                    shown,
                    live_at(&intervals, cycle),
                    "{} {series} at {cycle}",
                    tier.name
                );
            }
        }
    }

    // The logical peak, where σ first reaches it.
    let replayed = metrics(m);
    let peak = events(&trace, "i")
        .into_iter()
        .find(|e| e["s"] == "g")
        .expect("a peak instant");
    assert_eq!(int(&peak["args"]["bytes"]), replayed.logical_peak);
    let at = t.logical_peak.at.unwrap();
    assert_eq!(peak["args"]["op"], format!("%{}", m.op(at).name));
    assert_eq!(int(&peak["ts"]), t.start[at.index()]);
}

#[test]
fn a_small_plan_event_by_event() {
    let tile = parse_module(include_str!("../../examples/matmul_tile.lir")).unwrap();
    check_events(&planned(&tile));
}

/// `m` with each non-staging tier cut to what its largest op needs at once, so plans spill.
fn tight(mut m: Module) -> Module {
    for (k, tier) in m.target.tiers.iter_mut().enumerate() {
        if tier.staging {
            continue;
        }
        let need = m.ops.iter().map(|op| {
            let buffers = op
                .kind
                .buffers()
                .iter()
                .map(|&b| m.buffers[b.index()].clone());
            buffers
                .filter(|b| b.tier.index() == k)
                .map(|b| b.size)
                .sum::<u64>()
        });
        tier.capacity = need
            .max()
            .unwrap_or(0)
            .max(lattice_passes::generate::MIN_CAPACITY);
    }
    m
}

#[test]
fn plans_with_spills_event_by_event() {
    let mut spilled = 0;
    for (shape, seed) in [
        (Shape::Attention, 1),
        (Shape::Matmul, 2),
        (Shape::Conv, 3),
        (Shape::Random, 4),
    ] {
        let spec = GenSpec {
            shape,
            nodes: 400,
            seed,
        };
        let m = planned(&tight(generate(&spec)));
        spilled += metrics(&m).spill_count;
        check_events(&m);
    }
    assert!(spilled > 0, "the tight tiers made some plan spill");
}

/// An argument's name and the test its value must pass.
type ArgCheck = (&'static str, fn(&Value) -> bool);

/// The fields each kind of event must have, with their types (a JSON schema, spelled out).
fn check_schema(trace: &Value, module: &Module) {
    let is_uint = |v: &Value| v.is_u64();
    let is_str = |v: &Value| v.is_string();
    assert!(trace["otherData"]["time_unit"]
        .as_str()
        .unwrap()
        .starts_with("cycles"));
    assert_eq!(trace["otherData"]["modules"][0], module.name.as_str());
    let events = trace["traceEvents"]
        .as_array()
        .expect("traceEvents is an array");
    assert!(!events.is_empty());
    for e in events {
        let object = e.as_object().expect("every event is an object");
        assert_eq!(e["pid"], 1, "{e}");
        assert!(is_str(&e["name"]), "{e}");
        let (required, args): (&[&str], &[ArgCheck]) = match e["ph"].as_str().unwrap() {
            "M" if e["name"].as_str().unwrap().starts_with("thread_") => {
                (&["ph", "pid", "name", "tid", "args"], &[])
            }
            "M" => (&["ph", "pid", "name", "args"], &[]),
            "X" => (
                &["ph", "pid", "name", "cat", "tid", "ts", "dur", "args"],
                &[
                    ("op", |v| v.as_str().is_some_and(|s| s.starts_with('%'))),
                    ("opcode", Value::is_string),
                    ("buffers", |v| {
                        v.as_array()
                            .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string))
                    }),
                    ("tier", Value::is_string),
                    ("sigma", Value::is_u64),
                    ("cycles", Value::is_u64),
                    ("phase", Value::is_string),
                ],
            ),
            "C" => (
                &["ph", "pid", "name", "ts", "args"],
                &[("bytes", Value::is_u64)],
            ),
            "i" => (
                &["ph", "pid", "name", "s", "tid", "ts", "args"],
                &[
                    ("bytes", Value::is_u64),
                    ("tiers", Value::is_string),
                    ("op", Value::is_string),
                    ("sigma", Value::is_u64),
                ],
            ),
            "s" => (&["ph", "pid", "name", "cat", "id", "tid", "ts"], &[]),
            "f" => (&["ph", "pid", "name", "cat", "id", "tid", "ts", "bp"], &[]),
            other => panic!("unexpected phase {other}: {e}"),
        };
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut want = required.to_vec();
        keys.sort_unstable();
        want.sort_unstable();
        assert_eq!(keys, want, "{e}");
        for key in ["ts", "dur", "tid", "id"] {
            assert!(e.get(key).is_none_or(is_uint), "{key} of {e}");
        }
        for (arg, ok) in args {
            assert!(ok(&e["args"][*arg]), "args.{arg} of {e}");
        }
        if e["ph"] == "X" {
            assert_eq!(e["dur"], e["args"]["cycles"], "{e}");
            assert!(
                ["command", "spill"].contains(&e["cat"].as_str().unwrap()),
                "{e}"
            );
        }
        if e["ph"] == "i" {
            assert!(["g", "p"].contains(&e["s"].as_str().unwrap()), "{e}");
        }
        if e["ph"] == "M" {
            let arg = match e["name"].as_str().unwrap() {
                "process_name" | "thread_name" => "name",
                "process_sort_index" | "thread_sort_index" => "sort_index",
                other => panic!("unexpected metadata {other}"),
            };
            assert!(e["args"].get(arg).is_some(), "{e}");
            assert!(
                is_str(&e["args"]["name"]) || e["args"]["sort_index"].is_u64(),
                "{e}"
            );
        }
    }
}

#[test]
fn every_shipped_case_has_a_well_formed_trace() {
    for case in common::cases() {
        let m = planned(&case);
        let (trace, _) = trace(&m);
        check_schema(&trace, &m);
    }
}
