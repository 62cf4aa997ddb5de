//! Mixed pipelines: MLIR pass-pipeline text in which elements named `lattice-<pass>` (with
//! lattice's `{key=value …}` options) are lattice passes, e.g.
//! `canonicalize,lattice-mpas,lattice-dlr{victim=lru},lattice-verify`.
//!
//! Invariants: elements keep their order; every other element (a pass, or a nested pipeline such
//! as `func.func(cse)`) is handed to MLIR's own pipeline parser unchanged; an outer
//! `builtin.module(…)` is accepted and stands for the manager itself. New lattice passes need
//! nothing here: names resolve in the registry. Linear in the text.

use crate::external::lattice_pass;
use crate::strings::append_message;
use lattice::{parse_pipeline, Registry};
use melior::pass::PassManager;
use melior::StringRef;
use std::ffi::c_void;

/// Why a pipeline could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A `lattice-…` element is not a lattice pass with valid options.
    #[error("in `{element}`: {message}")]
    Lattice {
        /// The element as written.
        element: String,
        /// The lattice pipeline parser's message.
        message: String,
    },
    /// MLIR rejected an element.
    #[error("in `{element}`: {message}")]
    Mlir {
        /// The element as written.
        element: String,
        /// MLIR's message.
        message: String,
    },
    /// Parentheses, braces or quotes do not balance.
    #[error("unbalanced `{0}` in the pipeline")]
    Unbalanced(char),
}

/// Appends the passes of `text` to `manager` (anchored on `builtin.module`); lattice passes come
/// from `registry`.
pub fn add_pipeline(
    manager: &PassManager<'_>,
    text: &str,
    registry: Registry,
) -> Result<(), PipelineError> {
    let text = text.trim();
    let inner = text
        .strip_prefix("builtin.module(")
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or(text);
    for element in split_elements(inner)? {
        match element.strip_prefix("lattice-") {
            Some(pass) => {
                let pipeline =
                    parse_pipeline(pass, &registry).map_err(|e| PipelineError::Lattice {
                        element: element.to_owned(),
                        message: e.to_string(),
                    })?;
                for spec in pipeline.passes {
                    manager.add_pass(lattice_pass(spec, registry));
                }
            }
            None => add_mlir_elements(manager, element)?,
        }
    }
    Ok(())
}

/// Splits at top-level commas, skipping empty elements.
fn split_elements(text: &str) -> Result<Vec<&str>, PipelineError> {
    let mut elements = Vec::new();
    let mut closers: Vec<char> = Vec::new();
    let mut in_quotes = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if in_quotes {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_quotes = false,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' => in_quotes = true,
            '(' => closers.push(')'),
            '{' => closers.push('}'),
            // Pops the innermost opener; a mismatch is an error.
            ')' | '}' if closers.pop() != Some(c) => return Err(PipelineError::Unbalanced(c)),
            ',' if closers.is_empty() => {
                elements.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if in_quotes {
        return Err(PipelineError::Unbalanced('"'));
    }
    if let Some(open) = closers.pop() {
        return Err(PipelineError::Unbalanced(if open == ')' {
            '('
        } else {
            '{'
        }));
    }
    elements.push(text[start..].trim());
    elements.retain(|e| !e.is_empty());
    Ok(elements)
}

/// Hands `element` to MLIR's pipeline parser (every upstream pass registered).
fn add_mlir_elements(manager: &PassManager<'_>, element: &str) -> Result<(), PipelineError> {
    melior::utility::register_all_passes();
    let mut message = String::new();
    // SAFETY: the manager is valid; MLIR calls `append_message` only during this call, with
    // `message`.
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.as_operation_pass_manager().to_raw(),
            StringRef::new(element).to_raw(),
            Some(append_message),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value != 0 {
        return Ok(());
    }
    Err(PipelineError::Mlir {
        element: element.to_owned(),
        message: message.trim().to_owned(),
    })
}
