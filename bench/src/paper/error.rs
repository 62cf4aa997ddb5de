//! Why `lattice-bench paper` stopped: a pipeline that failed or produced a plan the independent
//! replay rejects (the report never prints an unverified number), a study that cannot be formed,
//! or an output that could not be written. Each names what it is about.

use std::path::PathBuf;

/// An error of the paper reproduction.
#[derive(Debug, thiserror::Error)]
pub enum PaperError {
    /// A pipeline failed on a workload.
    #[error("{case}: `{pipeline}` failed:\n{message}")]
    Pipeline {
        /// The workload.
        case: String,
        /// The pipeline text.
        pipeline: String,
        /// The pass manager's diagnostics.
        message: String,
    },
    /// A pipeline's result does not pass the independent replay.
    #[error("{case}: `{pipeline}` produced a plan the verifier rejects ({count} violation(s)); first: {first}")]
    Invalid {
        /// The workload.
        case: String,
        /// The pipeline text.
        pipeline: String,
        /// How many violations.
        count: usize,
        /// The first one.
        first: String,
    },
    /// An output file could not be written.
    #[error("{}: {message}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}
