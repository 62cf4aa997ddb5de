//! The contest importer's fuzz properties, for graphs and for solution trios.
//!
//! A graph input is the JSON text. A trio input is four sections separated by
//! [`TRIO_SEPARATOR`] bytes — graph JSON, schedule, memory and (optionally) spill — so one byte
//! string carries a whole solution and a fuzzer can mutate any part of it. Complexity: O(text +
//! (V + E) log V) per import, two imports and one export per accepted trio.

use super::{first_difference, reparses, CheckError};
use lattice_lir::contest::{
    export_trio, import_graph, import_solution, ImportOptions, SolutionFile, Trio,
};
use lattice_lir::{print_module, verify_module, Module, VerifyError};

/// The byte that separates the sections of a trio input (no JSON or solution text contains it).
pub const TRIO_SEPARATOR: u8 = 0;

/// The name imported modules get; fixed so the checks do not depend on file names.
const NAME: &str = "fuzz";

/// Checks the graph importer on `data`. Returns the imported module when the importer accepts it.
pub fn check_graph(data: &[u8]) -> Result<Option<Module>, CheckError> {
    let Some(module) = import(data) else {
        return Ok(None);
    };
    verify_module(&module).map_err(|e| invalid("graph", &e))?;
    reparses(&print_module(&module))?;
    export_trio(&module).map_err(|e| CheckError::Export {
        message: e.to_string(),
    })?;
    Ok(Some(module))
}

/// Checks the solution importer on a trio input (see the module header). Returns the planned
/// module when the graph and the solution are accepted.
pub fn check_trio(data: &[u8]) -> Result<Option<Module>, CheckError> {
    let mut sections = data.split(|&b| b == TRIO_SEPARATOR);
    let (Some(graph), Some(schedule), Some(memory)) =
        (sections.next(), sections.next(), sections.next())
    else {
        return Ok(None);
    };
    let spill = sections.next();
    let (Some(graph), Some(schedule), Some(memory)) = (import(graph), file(schedule), file(memory))
    else {
        return Ok(None);
    };
    let spill = match spill.map(file) {
        Some(None) => return Ok(None),
        Some(Some(f)) => Some(f),
        None => None,
    };
    let Ok(planned) = import_solution(graph.clone(), &schedule, &memory, spill.as_ref()) else {
        return Ok(None);
    };
    verify_module(&planned).map_err(|e| invalid("solution", &e))?;
    let trio = export_trio(&planned).map_err(|e| CheckError::Export {
        message: e.to_string(),
    })?;
    let again = reimport(graph, &trio).map_err(|message| CheckError::TrioRoundTrip { message })?;
    let (first, second) = (print_module(&planned), print_module(&again));
    if let Some(difference) = first_difference(&first, &second) {
        return Err(CheckError::TrioRoundTrip {
            message: difference.to_string(),
        });
    }
    Ok(Some(planned))
}

fn import(data: &[u8]) -> Option<Module> {
    let json = std::str::from_utf8(data).ok()?;
    import_graph(json, NAME, &ImportOptions::default()).ok()
}

fn file(data: &[u8]) -> Option<SolutionFile> {
    Some(SolutionFile {
        name: NAME.into(),
        text: std::str::from_utf8(data).ok()?.to_owned(),
    })
}

/// Imports an exported trio back onto `graph`.
fn reimport(graph: Module, trio: &Trio) -> Result<Module, String> {
    let named = |text: &Option<String>| SolutionFile {
        name: NAME.into(),
        text: text.clone().unwrap_or_default(),
    };
    let schedule = SolutionFile {
        name: NAME.into(),
        text: trio.schedule.clone(),
    };
    let spill = trio.spill.as_ref().map(|_| named(&trio.spill));
    import_solution(graph, &schedule, &named(&trio.memory), spill.as_ref())
        .map_err(|e| e.to_string())
}

fn invalid(what: &'static str, errors: &[VerifyError]) -> CheckError {
    CheckError::ImportedInvalid {
        what,
        first: errors.first().map(ToString::to_string).unwrap_or_default(),
        count: errors.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two buffers, one command each way: the smallest graph with a spillable buffer.
    const GRAPH: &str = r#"{"Nodes": [
        {"Id": 0, "Op": "ALLOC", "BufId": 0, "Size": 256, "Type": "L1"},
        {"Id": 1, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [0]},
        {"Id": 2, "Op": "COPY_OUT", "Pipe": "MTE3", "Cycles": 10, "Bufs": [0]},
        {"Id": 3, "Op": "FREE", "BufId": 0, "Size": 256, "Type": "L1"}
    ], "Edges": [[0, 1], [1, 2], [2, 3]]}"#;

    fn trio(parts: &[&str]) -> Vec<u8> {
        parts.join("\0").into_bytes()
    }

    #[test]
    fn a_graph_and_its_solution_pass_and_malformed_ones_are_rejected_cleanly() {
        let module = check_graph(GRAPH.as_bytes()).unwrap().expect("imported");
        assert_eq!(module.ops.len(), 4);
        assert_eq!(check_graph(b"{\"Nodes\": [").unwrap(), None);
        let planned = check_trio(&trio(&[GRAPH, "0\n1\n2\n3\n", "0:0\n", ""]))
            .unwrap()
            .expect("a valid solution");
        assert!(planned.phase.has_plan());
        // With a spill: ids 4 and 5 are its SPILL_OUT and SPILL_IN.
        let spilled = check_trio(&trio(&[GRAPH, "0\n1\n4\n5\n2\n3\n", "0:0\n", "0:512\n"]))
            .unwrap()
            .expect("a valid solution with a spill");
        assert_eq!(spilled.ops.len(), 6);
        assert_eq!(
            check_trio(&trio(&[GRAPH, "3\n2\n1\n0\n", "0:0\n"])).unwrap(),
            None
        );
        assert_eq!(check_trio(GRAPH.as_bytes()).unwrap(), None);
    }
}
