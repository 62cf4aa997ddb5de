//! The LIR dialect of lattice: the IR every pass reads and writes.
//!
//! This crate holds the data model with typed ids, the target description, the `lir.pest` grammar,
//! the parser and printer (`print(parse(x)) == x` for every printed `x`), the structural verifier,
//! and import/export of the contest's JSON graphs and solution trios. It holds no scheduling or
//! planning algorithm: those live in `lattice-passes`.

// `print!`/`eprint!` panic when the stream is closed (`| head`); library code writes through
// `std::io::Write` and handles the error (lattice::io), so the macros are forbidden here.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

pub mod contest;
pub mod cycle;
pub mod diag;
pub mod ids;
mod lifecycle;
pub mod module;
pub mod parser;
pub mod plan_deps;
pub mod printer;
mod scan;
pub mod spill;
pub mod target;
pub mod verify;

pub use diag::{Loc, Located, Severity};
pub use ids::{BufferId, OpId, PipeId, TierId};
pub use module::{Buffer, Dep, DepKind, Module, Op, OpKind, Phase};
pub use parser::{parse_module, ParseError};
pub use printer::print_module;
pub use target::{SpillCost, Target, Tier};
pub use verify::{verify_module, VerifyError};
