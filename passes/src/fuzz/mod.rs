//! The checks the fuzz targets (`fuzz/fuzz_targets/`) and the in-test smoke
//! (`passes/tests/fuzz_smoke.rs`) run, as plain functions of the input bytes, so both exercise
//! exactly the same properties (regalloc2's layout: the targets are a few lines over these).
//!
//! Properties, each a function returning `Err(CheckError)` when it is broken:
//! - [`check_lir`]: no panic on any bytes; whatever the parser accepts prints to text that parses
//!   back to the same printed text (`print(parse(print(m))) == print(m)`);
//! - [`check_graph`]: no panic; whatever the contest importer accepts passes the structural
//!   verifier, round trips through LIR text and exports as a schedule;
//! - [`check_trio`]: no panic; whatever solution trio the importer binds to a graph passes the
//!   structural verifier and exports back to a trio that imports to the same module;
//! - [`check_plans`]: whatever module the parser or importer accepts, `mpas,dlr` and
//!   `mpas,dlr,cpe` each either plan it into a plan the independent verifier accepts or fail
//!   with an error — never a panic, never exit 0 with an invalid plan;
//! - [`generated`] (feature `generate`): structured inputs for [`check_plans`], a generated
//!   workload chosen by the bytes.
//!
//! Inputs a check does not apply to (bytes that are not UTF-8, text the parser rejects) pass it:
//! rejecting them cleanly *is* the property. Complexity: each check is linear in its input plus
//! the cost of what it runs (parser, importer, pipeline).

mod contest;
mod plans;
#[cfg(feature = "generate")]
mod structured;
mod text;

pub use contest::{check_graph, check_trio, TRIO_SEPARATOR};
pub use plans::{check_plans, PLAN_PIPELINES};
#[cfg(feature = "generate")]
pub use structured::generated;
pub use text::check_lir;

/// A broken property, with what is needed to see why.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// Printed text of an accepted module does not parse.
    #[error("the printed module does not parse back: {message}\n{text}")]
    Reparse {
        /// The parser's message.
        message: String,
        /// The printed text.
        text: String,
    },
    /// Printing, parsing and printing again changed the text.
    #[error("print(parse(print(m))) differs from print(m) at line {line}:\n  first:  {first}\n  second: {second}")]
    RoundTrip {
        /// The first differing line (1-based).
        line: usize,
        /// That line of the first print.
        first: String,
        /// That line of the second print.
        second: String,
    },
    /// The importer returned a module the structural verifier rejects.
    #[error("the {what} importer returned a module the structural verifier rejects: {first} ({count} error(s))")]
    ImportedInvalid {
        /// "graph" or "solution".
        what: &'static str,
        /// The first structural error.
        first: String,
        /// How many there are.
        count: usize,
    },
    /// A module the importer produced cannot be exported.
    #[error("a module the importer produced cannot be exported: {message}")]
    Export {
        /// The exporter's message.
        message: String,
    },
    /// An exported trio does not import back to the module it came from.
    #[error("the exported trio does not import back to the same module: {message}")]
    TrioRoundTrip {
        /// The import error, or where the two modules' texts first differ.
        message: String,
    },
    /// The pipeline succeeded but the independent verifier rejects its output.
    #[error("`{pipeline}` exits 0 with a plan the independent verifier rejects: {first} ({count} violation(s))")]
    InvalidPlan {
        /// The pipeline text.
        pipeline: String,
        /// The first violation.
        first: String,
        /// How many there are.
        count: usize,
    },
}

/// Checks that `printed` (a printed module) parses back to a module that prints to the same text.
fn reparses(printed: &str) -> Result<(), CheckError> {
    let again = lattice_lir::parse_module(printed).map_err(|e| CheckError::Reparse {
        message: e.to_string(),
        text: printed.to_owned(),
    })?;
    match first_difference(printed, &lattice_lir::print_module(&again)) {
        Some(difference) => Err(difference),
        None => Ok(()),
    }
}

/// The first line where `first` and `second` differ, as a [`CheckError::RoundTrip`]; `None` when
/// the texts are equal.
fn first_difference(first: &str, second: &str) -> Option<CheckError> {
    if first == second {
        return None;
    }
    let mut a = first.lines();
    let mut b = second.lines();
    let mut line = 1;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (x, y) => {
                return Some(CheckError::RoundTrip {
                    line,
                    first: x.unwrap_or("<end>").to_owned(),
                    second: y.unwrap_or("<end>").to_owned(),
                })
            }
        }
    }
}
