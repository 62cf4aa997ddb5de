//! Binds a contest solution trio (schedule, memory and spill files) to an imported graph, giving a
//! `planned` module.
//!
//! The schedule lists σ one id per line: ids below N are graph nodes, id N+2k is the SPILL_OUT and
//! N+2k+1 the SPILL_IN of the k-th line of the spill file (`BufId:NewOffset`); the memory file gives
//! each buffer's ALLOC offset (`BufId:Offset`). Spill ops take the target's spill pipes and cost
//! (a backed buffer's SPILL_OUT is free), the spill and reuse dependencies come from
//! [`derive_plan_deps`], and the result passes [`verify_module`]. Each file is read line by line
//! (blank lines skipped, `\r\n` accepted) and every problem is reported at its `file:line`.
//! Complexity: O(text + (V + E + S) log V) for S spills.

use super::{originals_by_name, spill_out_id, ContestError};
use crate::diag::Loc;
use crate::ids::BufferId;
use crate::module::{Module, OpKind, Phase};
use crate::plan_deps::derive_plan_deps;
use crate::spill::spill_ops;
use crate::verify::verify_module;
use std::collections::HashMap;

/// One solution file: its name (a path, for messages) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolutionFile {
    /// How messages refer to the file.
    pub name: String,
    /// Its contents.
    pub text: String,
}

/// How many missing ids or buffers a message lists before "…".
const LIST_LIMIT: usize = 10;

/// Binds `schedule`, `memory` and (when there were spills) `spill` to the unplanned `graph`.
pub fn import_solution(
    graph: Module,
    schedule: &SolutionFile,
    memory: &SolutionFile,
    spill: Option<&SolutionFile>,
) -> Result<Module, ContestError> {
    if graph.phase.has_plan() || graph.ops.iter().any(|op| op.kind.is_spill()) {
        return Err(ContestError::AlreadyPlanned { phase: graph.phase });
    }
    let originals = originals_by_name(&graph)?;
    let buffers: HashMap<u32, BufferId> = graph
        .buffer_ids()
        .map(|b| (graph.buffer(b).name, b))
        .collect();
    let offsets = read_memory(&graph, &buffers, memory)?;
    let spills = match spill {
        Some(file) => read_spills(&graph, &buffers, file)?,
        None => Vec::new(),
    };
    let order = read_schedule(
        originals.len(),
        spill.map(|f| (f, spills.as_slice())),
        schedule,
    )?;

    let mut module = graph;
    let n = originals.len();
    for op in &mut module.ops {
        if let OpKind::Alloc { buffer, offset } = &mut op.kind {
            *offset = offsets
                .get(buffer.index())
                .copied()
                .flatten()
                .map(|(o, _)| o);
        }
    }
    // Slot i of `ops` is the op with contest id i.
    let mut ops = originals;
    for (k, spill) in spills.iter().enumerate() {
        if spill.buffer.index() >= module.buffers.len() {
            continue;
        }
        let out_name = spill_out_id(n, k);
        // `read_spills` bounded the spill count so that every id fits a u32.
        let name = |id: u64| u32::try_from(id).unwrap_or(u32::MAX);
        let (spill_out, spill_in) = spill_ops(
            &module,
            spill.buffer,
            spill.offset,
            name(out_name),
            name(out_name + 1),
        );
        ops.push(module.add_op(spill_out));
        ops.push(module.add_op(spill_in));
    }
    module.schedule = order
        .iter()
        .filter_map(|&(slot, _)| ops.get(slot).copied())
        .collect();
    module.phase = Phase::Planned;
    derive_plan_deps(&mut module);
    if let Err(errors) = verify_module(&module) {
        // Verify again with each op located at its schedule line, then put the locations back.
        let saved: Vec<Option<Loc>> = module.ops.iter().map(|op| op.loc).collect();
        for &(slot, line) in &order {
            if let Some(op) = ops.get(slot).and_then(|&id| module.ops.get_mut(id.index())) {
                op.loc = Some(Loc::new(line as usize, 1));
            }
        }
        let errors = verify_module(&module).err().unwrap_or(errors);
        for (op, loc) in module.ops.iter_mut().zip(saved) {
            op.loc = loc;
        }
        return Err(ContestError::Invalid {
            file: Some(schedule.name.clone()),
            errors,
        });
    }
    Ok(module)
}

/// One line of the spill file.
struct Spill {
    buffer: BufferId,
    /// The BufId, for messages.
    name: u32,
    offset: u64,
    line: u32,
}

/// The non-blank lines of `text` with their 1-based numbers, trimmed (`\r` included).
fn lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    text.split('\n').enumerate().filter_map(|(i, line)| {
        let line = line.trim();
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        (!line.is_empty()).then_some((number, line))
    })
}

fn at(line: u32) -> Loc {
    Loc::new(line as usize, 1)
}

/// Parses `BufId:Offset`.
fn pair(
    file: &SolutionFile,
    line: u32,
    text: &str,
    expected: &'static str,
) -> Result<(u64, u64), ContestError> {
    let parsed = text
        .split_once(':')
        .and_then(|(b, o)| Some((b.trim().parse().ok()?, o.trim().parse().ok()?)));
    parsed.ok_or_else(|| ContestError::MalformedLine {
        file: file.name.clone(),
        loc: at(line),
        expected,
        found: text.to_owned(),
    })
}

/// The buffer named `name`, and checks that `[offset, offset+size)` lies in its tier.
fn placed(
    graph: &Module,
    buffers: &HashMap<u32, BufferId>,
    file: &SolutionFile,
    line: u32,
    (name, offset): (u64, u64),
) -> Result<BufferId, ContestError> {
    let unknown = || ContestError::UnknownBuffer {
        file: file.name.clone(),
        loc: at(line),
        buffer: name,
    };
    let id = u32::try_from(name)
        .ok()
        .and_then(|n| buffers.get(&n).copied())
        .ok_or_else(unknown)?;
    let buf = graph.buffers.get(id.index()).ok_or_else(unknown)?;
    let tier = graph.target.tiers.get(buf.tier.index());
    let capacity = tier.map_or(0, |t| t.capacity);
    if offset
        .checked_add(buf.size)
        .is_none_or(|end| end > capacity)
    {
        return Err(ContestError::OffsetOutOfRange {
            file: file.name.clone(),
            loc: at(line),
            buffer: buf.name,
            offset,
            size: buf.size,
            tier: tier.map_or_else(String::new, |t| t.name.clone()),
            capacity,
        });
    }
    Ok(id)
}

/// Each buffer's ALLOC offset and line, indexed by buffer id.
fn read_memory(
    graph: &Module,
    buffers: &HashMap<u32, BufferId>,
    file: &SolutionFile,
) -> Result<Vec<Option<(u64, u32)>>, ContestError> {
    let mut offsets: Vec<Option<(u64, u32)>> = vec![None; graph.buffers.len()];
    for (line, text) in lines(&file.text) {
        let entry = pair(file, line, text, "`BufId:Offset`")?;
        let id = placed(graph, buffers, file, line, entry)?;
        if let Some(slot) = offsets.get_mut(id.index()) {
            if let Some((_, first_line)) = *slot {
                return Err(ContestError::DuplicateBuffer {
                    file: file.name.clone(),
                    loc: at(line),
                    buffer: graph.buffer(id).name,
                    first_line,
                });
            }
            *slot = Some((entry.1, line));
        }
    }
    let mut missing: Vec<u32> = graph
        .buffers
        .iter()
        .zip(&offsets)
        .filter(|(_, o)| o.is_none())
        .map(|(b, _)| b.name)
        .collect();
    if !missing.is_empty() {
        missing.sort_unstable();
        let count = missing.len();
        missing.truncate(LIST_LIMIT);
        return Err(ContestError::MissingBuffers {
            file: file.name.clone(),
            missing,
            count,
        });
    }
    Ok(offsets)
}

/// The spills, in spill order.
fn read_spills(
    graph: &Module,
    buffers: &HashMap<u32, BufferId>,
    file: &SolutionFile,
) -> Result<Vec<Spill>, ContestError> {
    let mut spills = Vec::new();
    for (line, text) in lines(&file.text) {
        if spill_out_id(graph.ops.len(), spills.len()) >= u64::from(u32::MAX) {
            return Err(ContestError::MalformedLine {
                file: file.name.clone(),
                loc: at(line),
                expected: "no more spills than 32-bit ids can number",
                found: text.to_owned(),
            });
        }
        let entry = pair(file, line, text, "`BufId:NewOffset`")?;
        let buffer = placed(graph, buffers, file, line, entry)?;
        spills.push(Spill {
            buffer,
            name: graph.buffer(buffer).name,
            offset: entry.1,
            line,
        });
    }
    Ok(spills)
}

/// σ as (contest id, schedule line) pairs, checking coverage and spill order. `spills` is the
/// spill file and its lines when one was given.
fn read_schedule(
    n: usize,
    spills: Option<(&SolutionFile, &[Spill])>,
    file: &SolutionFile,
) -> Result<Vec<(usize, u32)>, ContestError> {
    let spill_count = spills.map_or(0, |(_, s)| s.len());
    let ids = n.saturating_add(spill_count.saturating_mul(2));
    let mut seen: Vec<Option<u32>> = vec![None; ids];
    let mut order = Vec::with_capacity(ids);
    for (line, text) in lines(&file.text) {
        let id: u64 = text.parse().map_err(|_| ContestError::MalformedLine {
            file: file.name.clone(),
            loc: at(line),
            expected: "one node id",
            found: text.to_owned(),
        })?;
        let slot = usize::try_from(id).ok().filter(|&i| i < ids);
        let Some((slot, entry)) = slot.and_then(|i| Some((i, seen.get_mut(i)?))) else {
            return Err(ContestError::UnknownId {
                file: file.name.clone(),
                loc: at(line),
                id,
                nodes: n,
                spills: spills.map(|(_, s)| s.len()),
            });
        };
        if let Some(first_line) = *entry {
            return Err(ContestError::DuplicateScheduleId {
                file: file.name.clone(),
                loc: at(line),
                id,
                first_line,
            });
        }
        *entry = Some(line);
        order.push((slot, line));
    }
    let missing: Vec<u32> = (0..n)
        .filter(|&i| seen.get(i).is_some_and(Option::is_none))
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    if !missing.is_empty() {
        let count = missing.len();
        return Err(ContestError::MissingFromSchedule {
            file: file.name.clone(),
            missing: missing.into_iter().take(LIST_LIMIT).collect(),
            count,
        });
    }
    if let Some((spill_file, spills)) = spills {
        for (k, spill) in spills.iter().enumerate() {
            let out = n + 2 * k;
            let lines = (
                seen.get(out).copied().flatten(),
                seen.get(out + 1).copied().flatten(),
            );
            let missing = match lines {
                (Some(out_line), Some(in_line)) => {
                    if in_line < out_line {
                        return Err(ContestError::ReloadBeforeSpill {
                            file: file.name.clone(),
                            loc: at(in_line),
                            spill: k,
                            id: spill_out_id(n, k) + 1,
                            out_line,
                        });
                    }
                    continue;
                }
                (None, None) => "neither is listed",
                (None, Some(_)) => "the SPILL_OUT id is missing",
                (Some(_), None) => "the SPILL_IN id is missing",
            };
            return Err(ContestError::SpillIncomplete {
                file: spill_file.name.clone(),
                loc: at(spill.line),
                spill: k,
                buffer: spill.name,
                nodes: n,
                missing,
            });
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contest::{export_trio, import_graph, ImportOptions};
    use crate::module::DepKind;

    /// Buffer 0 (L1, backed) is used by COPY_IN 1 and by 3; buffer 1 (UB) only by 3. N = 6.
    const GRAPH: &str = r#"{"Nodes": [
        {"Id": 0, "Op": "ALLOC", "BufId": 0, "Size": 256, "Type": "L1"},
        {"Id": 1, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [0]},
        {"Id": 2, "Op": "ALLOC", "BufId": 1, "Size": 128, "Type": "UB"},
        {"Id": 3, "Op": "VADD", "Pipe": "VECTOR", "Cycles": 5, "Bufs": [1, 0]},
        {"Id": 4, "Op": "FREE", "BufId": 0, "Size": 256, "Type": "L1"},
        {"Id": 5, "Op": "FREE", "BufId": 1, "Size": 128, "Type": "UB"}
    ], "Edges": [[0, 1], [1, 3], [2, 3], [3, 4], [3, 5], [0, 4], [2, 5]]}"#;

    fn file(name: &str, text: &str) -> SolutionFile {
        SolutionFile {
            name: name.to_owned(),
            text: text.to_owned(),
        }
    }

    fn solve(schedule: &str, memory: &str, spill: Option<&str>) -> Result<Module, ContestError> {
        let graph = import_graph(GRAPH, "g", &ImportOptions::default())?;
        let spill = spill.map(|t| file("p.txt", t));
        import_solution(
            graph,
            &file("s.txt", schedule),
            &file("m.txt", memory),
            spill.as_ref(),
        )
    }

    fn err(schedule: &str, memory: &str, spill: Option<&str>) -> ContestError {
        match solve(schedule, memory, spill) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        }
    }

    const SCHEDULE: &str = "0\n1\n6\n2\n7\n3\n4\n5\n";
    const MEMORY: &str = "0:0\n1:0\n";
    const SPILL: &str = "0:512\n";

    #[test]
    fn imports_a_spill_and_exports_it_back() {
        let m = solve(SCHEDULE, MEMORY, Some(SPILL)).unwrap();
        assert_eq!(m.phase, Phase::Planned);
        let sigma: Vec<u32> = m.schedule.iter().map(|&id| m.op(id).name).collect();
        assert_eq!(sigma, [0, 1, 6, 2, 7, 3, 4, 5]);
        let out = m.ops.iter().find(|op| op.name == 6).unwrap();
        // Buffer 0 is read by a COPY_IN, so dropping it costs nothing.
        assert!(matches!(out.kind, OpKind::SpillOut { cycles: 0, .. }));
        assert!(out.deps.contains(&crate::module::Dep {
            op: crate::ids::OpId::new(1),
            kind: DepKind::Spill
        }));
        let reload = m.ops.iter().find(|op| op.name == 7).unwrap();
        assert!(matches!(
            reload.kind,
            OpKind::SpillIn {
                offset: 512,
                cycles: 662,
                ..
            }
        ));
        assert!(matches!(
            m.ops[0].kind,
            OpKind::Alloc {
                offset: Some(0),
                ..
            }
        ));
        let trio = export_trio(&m).unwrap();
        assert_eq!(trio.schedule, SCHEDULE);
        assert_eq!(trio.memory.as_deref(), Some(MEMORY));
        assert_eq!(trio.spill.as_deref(), Some(SPILL));
    }

    #[test]
    fn tolerates_crlf_and_blank_lines_and_no_spill_file() {
        let m = solve("0\r\n1\r\n\r\n2\r\n3\r\n4\r\n5", "0:0\r\n1:0", None).unwrap();
        assert_eq!(m.schedule.len(), 6);
        let m = solve("0\n1\n2\n3\n4\n5\n", MEMORY, Some("")).unwrap();
        assert_eq!(m.ops.len(), 6);
    }

    #[test]
    fn schedule_errors() {
        let e = err("0\n1\nx2\n", MEMORY, Some(SPILL));
        assert!(
            matches!(&e, ContestError::MalformedLine { file, loc, .. } if file == "s.txt" && loc.line == 3)
        );
        assert_eq!(
            e.to_string(),
            "malformed line: expected one node id, found \"x2\""
        );
        let e = err("0\n1\n8\n", MEMORY, Some(SPILL));
        assert!(matches!(e, ContestError::UnknownId { id: 8, .. }));
        assert!(
            e.to_string()
                .contains("of the 1 spills in the spill file (6..7)"),
            "{e}"
        );
        let e = err("0\n1\n6\n", MEMORY, None);
        assert!(e.to_string().contains("(no spill file was given)"), "{e}");
        let e = err("0\n1\n1\n", MEMORY, Some(SPILL));
        assert!(matches!(
            e,
            ContestError::DuplicateScheduleId {
                id: 1,
                first_line: 2,
                ..
            }
        ));
        assert_eq!(e.file(), Some("s.txt"));
        let e = err("0\n1\n6\n7\n3\n5\n", MEMORY, Some(SPILL));
        assert!(
            matches!(&e, ContestError::MissingFromSchedule { missing, count: 2, .. } if missing == &[2, 4])
        );
        assert_eq!(e.to_string(), "2 nodes are missing from the schedule: 2, 4");
        let e = err("0\n1\n7\n2\n6\n3\n4\n5\n", MEMORY, Some(SPILL));
        assert!(matches!(
            e,
            ContestError::ReloadBeforeSpill {
                spill: 0,
                id: 7,
                out_line: 5,
                ..
            }
        ));
        assert!(matches!(e, ContestError::ReloadBeforeSpill { loc, .. } if loc.line == 3));
        let e = err("0\n1\n6\n2\n3\n4\n5\n", MEMORY, Some(SPILL));
        assert!(matches!(&e, ContestError::SpillIncomplete { file, .. } if file == "p.txt"));
        assert!(e.to_string().contains("the SPILL_IN id is missing"), "{e}");
        let e = err("0\n1\n2\n3\n4\n5\n", MEMORY, Some(SPILL));
        assert!(e.to_string().contains("neither is listed"), "{e}");
    }

    #[test]
    fn memory_and_spill_errors() {
        let e = err(SCHEDULE, "0:0\n1:0\n7:0\n", Some(SPILL));
        assert!(
            matches!(&e, ContestError::UnknownBuffer { file, buffer: 7, .. } if file == "m.txt")
        );
        let e = err(SCHEDULE, "0:0\n1:0\n0:4\n", Some(SPILL));
        assert!(matches!(
            e,
            ContestError::DuplicateBuffer {
                buffer: 0,
                first_line: 1,
                ..
            }
        ));
        let e = err(SCHEDULE, "1:0\n", Some(SPILL));
        assert_eq!(e.to_string(), "buffer 0 has no offset in the memory file");
        let e = err(SCHEDULE, "0:0\n1:900\n", Some(SPILL));
        assert!(matches!(
            e,
            ContestError::OffsetOutOfRange {
                buffer: 1,
                offset: 900,
                capacity: 1024,
                ..
            }
        ));
        let e = err(SCHEDULE, "0:0\n1:18446744073709551615\n", Some(SPILL));
        assert!(matches!(e, ContestError::OffsetOutOfRange { .. }));
        let e = err(SCHEDULE, "0:0\n1 0\n", Some(SPILL));
        assert!(e.to_string().contains("expected `BufId:Offset`"), "{e}");
        let e = err(SCHEDULE, MEMORY, Some("3:0\n"));
        assert!(
            matches!(&e, ContestError::UnknownBuffer { file, buffer: 3, .. } if file == "p.txt")
        );
        let e = err(SCHEDULE, MEMORY, Some("0:3900\n"));
        assert!(matches!(e, ContestError::OffsetOutOfRange { .. }));
        let e = err(SCHEDULE, MEMORY, Some("0:-1\n"));
        assert!(e.to_string().contains("expected `BufId:NewOffset`"), "{e}");
    }

    #[test]
    fn structural_violations_point_at_schedule_lines() {
        // Op 3 before ALLOC 2 breaks the edge [2, 3].
        let e = err("0\n1\n6\n7\n3\n2\n4\n5\n", MEMORY, Some(SPILL));
        let ContestError::Invalid {
            file: Some(file),
            errors,
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(file, "s.txt");
        assert_eq!(errors[0].loc, Some(Loc::new(5, 1)));
        assert!(e.to_string().contains("op %3 depends on %2"), "{e}");
    }

    #[test]
    fn needs_an_unplanned_graph() {
        let m = solve(SCHEDULE, MEMORY, Some(SPILL)).unwrap();
        let e = import_solution(m, &file("s", SCHEDULE), &file("m", MEMORY), None).unwrap_err();
        assert!(matches!(
            e,
            ContestError::AlreadyPlanned {
                phase: Phase::Planned
            }
        ));
    }
}
