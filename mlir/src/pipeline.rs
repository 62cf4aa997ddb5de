//! Mixed pipelines: MLIR pass-pipeline text in which elements named `lattice-<pass>` (with
//! lattice's `{key=value …}` options) are lattice passes, e.g.
//! `canonicalize,lattice-mpas,lattice-dlr{victim=lru},lattice-verify`.
//!
//! Invariants: elements keep their order; a nested pipeline `anchor(…)` (`builtin.module(…)`,
//! `func.func(…)`, `any(…)`) becomes a nested pass manager at any depth, so lattice passes may sit
//! wherever lattice modules are; every other element (an upstream pass with its options) is handed
//! to MLIR's own pipeline parser unchanged; an outer `builtin.module(…)` or `any(…)` is accepted
//! and stands for the manager itself. Lattice passes are registered with MLIR under an argument
//! that carries their canonical options (see [`crate::external`]), so the pipeline MLIR prints
//! back ([`pipeline_text`]) is accepted here and rebuilds the same pipeline. New lattice passes
//! need nothing here: names resolve in the registry. Linear in the text times the nesting depth.

use crate::external::lattice_pass;
use crate::strings::{append_message, pass_pipeline_text};
use lattice::{parse_pipeline, Registry};
use melior::pass::{OperationPassManager, PassManager};
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
    /// A nested pipeline `(…)` names no op to run on.
    #[error(
        "in `{0}`: a nested pipeline needs an op name before `(` (`builtin.module`, `any`, …)"
    )]
    NoAnchor(String),
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
    // melior's manager is op-agnostic, so MLIR prints its pipeline as `any(…)`; both that and the
    // `builtin.module(…)` users write stand for the manager itself.
    let inner = match nest(text) {
        Some(("builtin.module" | "any", inner)) => inner,
        _ => text,
    };
    add_elements(manager.as_operation_pass_manager(), inner, registry)
}

/// The pipeline of `manager` as MLIR prints it (what `--dump-pass-pipeline`, IR-printing headers
/// and crash reproducers show); lattice passes appear with all their options, so
/// [`add_pipeline`] on a new manager rebuilds the same pipeline from it.
pub fn pipeline_text(manager: &PassManager<'_>) -> String {
    pass_pipeline_text(manager.as_operation_pass_manager())
}

/// Appends every element of `text` (a comma-separated list) to `manager`, nesting a manager per
/// `anchor(…)` element so that lattice passes may sit at any depth.
fn add_elements(
    manager: OperationPassManager<'_, '_>,
    text: &str,
    registry: Registry,
) -> Result<(), PipelineError> {
    for element in split_elements(text)? {
        if let Some((anchor, inner)) = nest(element) {
            if anchor.is_empty() {
                return Err(PipelineError::NoAnchor(element.to_owned()));
            }
            // `any` is MLIR's op-agnostic anchor: `OpPassManager::nest("any")` builds a manager
            // for every isolated op, as the textual pipeline parser does.
            add_elements(manager.nested_under(anchor), inner, registry)?;
        } else if let Some(pass) = element.strip_prefix("lattice-") {
            let pipeline = parse_pipeline(pass, &registry).map_err(|e| PipelineError::Lattice {
                element: element.to_owned(),
                message: e.to_string(),
            })?;
            for spec in pipeline.passes {
                manager.add_pass(lattice_pass(spec, registry));
            }
        } else {
            add_mlir_elements(manager, element).map_err(|e| match e {
                // `mpas` beside upstream passes: MLIR does not know it by that name.
                PipelineError::Mlir { element, message }
                    if registry.get(name_of(&element)).is_some() =>
                {
                    let message = format!(
                        "{message}\nnote: a lattice pass among MLIR passes is spelled `lattice-{}`",
                        name_of(&element)
                    );
                    PipelineError::Mlir { element, message }
                }
                e => e,
            })?;
        }
    }
    Ok(())
}

/// The pass name of an element: what precedes its options.
fn name_of(element: &str) -> &str {
    element.split('{').next().unwrap_or(element).trim()
}

/// `(anchor, inner)` of a nested pipeline `anchor(inner)`: the element's first bracket is an
/// opening parenthesis (a pass's options open with `{`). `split_elements` checked the balance.
fn nest(element: &str) -> Option<(&str, &str)> {
    let open = element.find(['(', '{'])?;
    if !element[open..].starts_with('(') {
        return None;
    }
    let inner = element[open + 1..].strip_suffix(')')?;
    Some((element[..open].trim(), inner))
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
fn add_mlir_elements(
    manager: OperationPassManager<'_, '_>,
    element: &str,
) -> Result<(), PipelineError> {
    melior::utility::register_all_passes();
    let mut message = String::new();
    // SAFETY: the manager is valid; MLIR calls `append_message` only during this call, with
    // `message`.
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
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
