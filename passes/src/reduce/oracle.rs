//! Interestingness tests: what must stay true of every candidate the reducer keeps.
//!
//! - [`Oracle::Command`]: an external command run with the candidate's LIR file as its last
//!   argument, interesting iff it exits 0 (the convention of creduce and llvm-reduce);
//! - [`Oracle::Pipeline`]: a pipeline run in-process, interesting iff it fails
//!   ([`Expect::Fails`]) or succeeds with an output the independent verifier rejects
//!   ([`Expect::VerifierRejects`]), optionally only when one of the errors or violations
//!   contains a given text.
//!
//! Invariant: an oracle never modifies the module it judges; the command's file lives in a
//! scratch directory the oracle owns and removes when dropped. Complexity: one pipeline run or one
//! process per test, plus O(print) to write the command's file.

use crate::outcome::{pipeline_outcome, Outcome};
use lattice::Pipeline;
use lattice_lir::{print_module, Module};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// What a pipeline oracle looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The pipeline fails.
    Fails,
    /// The pipeline succeeds and the independent verifier rejects its output.
    VerifierRejects,
}

/// Why an interestingness test could not be run.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The scratch file for the command could not be written.
    #[error("cannot write the candidate file {path}: {source}")]
    Scratch {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The command could not be started.
    #[error("cannot run the test command `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// What the system said.
        source: std::io::Error,
    },
}

/// An interestingness test (see the module header).
#[derive(Debug)]
pub enum Oracle {
    /// Run `program args… FILE`; interesting iff it exits 0.
    Command {
        /// The program.
        program: PathBuf,
        /// Arguments before the candidate's file.
        args: Vec<String>,
        /// The directory holding the candidate's file; removed when the oracle is dropped.
        scratch: PathBuf,
    },
    /// Run `pipeline` in-process.
    Pipeline {
        /// The pipeline.
        pipeline: Pipeline,
        /// Which ending is interesting.
        expect: Expect,
        /// Only when an error (or violation) message contains this text.
        contains: Option<String>,
    },
}

impl Oracle {
    /// A command oracle whose candidate files go to a fresh directory under the system's
    /// temporary directory, named after this process.
    pub fn command(program: PathBuf, args: Vec<String>) -> Oracle {
        let scratch = std::env::temp_dir().join(format!("lattice-reduce-{}", std::process::id()));
        Oracle::Command {
            program,
            args,
            scratch,
        }
    }

    /// Whether `module` is interesting.
    pub fn interesting(&self, module: &Module) -> Result<bool, OracleError> {
        match self {
            Oracle::Command {
                program,
                args,
                scratch,
            } => {
                let path = scratch.join("candidate.lir");
                std::fs::create_dir_all(scratch)
                    .and_then(|()| std::fs::write(&path, print_module(module)))
                    .map_err(|source| OracleError::Scratch {
                        path: path.clone(),
                        source,
                    })?;
                let status = Command::new(program)
                    .args(args)
                    .arg(&path)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .map_err(|source| OracleError::Spawn {
                        program: program.display().to_string(),
                        source,
                    })?;
                Ok(status.success())
            }
            Oracle::Pipeline {
                pipeline,
                expect,
                contains,
            } => {
                let messages: Vec<String> = match (pipeline_outcome(module, pipeline), expect) {
                    (Outcome::Failed { errors }, Expect::Fails) => errors,
                    (Outcome::Finished { violations }, Expect::VerifierRejects) => {
                        violations.iter().map(ToString::to_string).collect()
                    }
                    _ => return Ok(false),
                };
                Ok(match contains {
                    // A failure without any message still counts when no text is asked for.
                    None => *expect == Expect::Fails || !messages.is_empty(),
                    Some(text) => messages.iter().any(|m| m.contains(text.as_str())),
                })
            }
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        if let Oracle::Command { scratch, .. } = self {
            // Nothing to report if it is already gone (no test ran) or cannot be removed.
            let _ = std::fs::remove_dir_all(scratch);
        }
    }
}
