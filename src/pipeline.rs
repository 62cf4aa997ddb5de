//! Pipelines as values, their textual syntax, and the bare-flag form.
//!
//! Grammar (MLIR's, without nesting since a LIR file holds one module):
//! ```text
//! pipeline ::= ( anchor '(' passes ')' ) | passes
//! anchor   ::= 'builtin.module' | 'module'   -- MLIR's anchor; mlir-opt 22 wants the first
//! passes   ::= ( pass ( ',' pass )* )?
//! pass     ::= name ( '{' ( option ( ' '+ option )* )? '}' )?
//! option   ::= key ( '=' value )?        -- a bare key sets a bool option to true
//! value    ::= bare-word | '"' ( [^"\\] | '\' any )* '"'
//! ```
//! Whitespace may surround every token. `--mpas --dlr=victim=lru` builds the same [`Pipeline`] as
//! `--pass-pipeline='mpas,dlr{victim=lru}'`.
//!
//! Invariants: a [`Pipeline`] only names registered passes and holds every option of each pass
//! (defaults filled in) in declaration order with canonical values, so two texts that mean the same
//! pipeline give equal values, and `parse(print(p)) == p`. The parser is hand-written rather than
//! pest-generated because its errors must be worded in terms of the grammar's intent ("unbalanced
//! braces: this `{` is never closed") at the exact column, which a PEG failure position does not give.
//! Parsing is linear in the text length times the (small) number of options per pass.

use crate::options::{quote_if_needed, OptionInfo};
use crate::registry::Registry;
use lattice_lir::diag::{render, Loc, Severity};
use std::fmt;

/// One pass of a pipeline with all its options (canonical text, declaration order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassSpec {
    /// The registered name.
    pub name: &'static str,
    /// `(option, canonical value)` for every option of the pass.
    pub options: Vec<(String, String)>,
}

impl fmt::Display for PassSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        if self.options.is_empty() {
            return Ok(());
        }
        let pairs: Vec<String> = self
            .options
            .iter()
            .map(|(k, v)| format!("{k}={}", quote_if_needed(v)))
            .collect();
        write!(f, "{{{}}}", pairs.join(" "))
    }
}

/// An ordered list of passes to run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// The passes, in run order.
    pub passes: Vec<PassSpec>,
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, pass) in self.passes.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{pass}")?;
        }
        Ok(())
    }
}

impl Pipeline {
    /// The pipeline from the `index`-th pass on (for reproducers).
    pub fn suffix(&self, index: usize) -> Pipeline {
        Pipeline {
            passes: self.passes[index.min(self.passes.len())..].to_vec(),
        }
    }
}

/// What is wrong with a pipeline text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineErrorKind {
    /// No registered pass has this name.
    #[error("{0}")]
    UnknownPass(String),
    /// The pass has no option of this name.
    #[error("pass `{pass}` has no option `{option}`; valid options: {valid}")]
    UnknownOption {
        /// The pass.
        pass: String,
        /// The stranger.
        option: String,
        /// The pass's options, or `(none)`.
        valid: String,
    },
    /// The value does not have the option's type.
    #[error("bad value for option `{option}` of pass `{pass}`: {reason}")]
    BadValue {
        /// The pass.
        pass: String,
        /// The option.
        option: String,
        /// Why, naming the expected type.
        reason: String,
    },
    /// A non-bool option written without `=value`.
    #[error("option `{option}` of pass `{pass}` needs a value (`{option}=<{type_name}>`)")]
    MissingValue {
        /// The pass.
        pass: String,
        /// The option.
        option: String,
        /// Its type in words.
        type_name: String,
    },
    /// The same option set twice for one pass.
    #[error("option `{option}` of pass `{pass}` is given twice")]
    DuplicateOption {
        /// The pass.
        pass: String,
        /// The option.
        option: String,
    },
    /// An opening brace or parenthesis without its closing partner, or the reverse.
    #[error("unbalanced {0}")]
    Unbalanced(String),
    /// A quoted value that never ends.
    #[error("unterminated quoted value")]
    UnterminatedQuote,
    /// A pass after the anchor's closing parenthesis: `builtin.module(mpas),dlr`.
    #[error("`{anchor}(...)` holds the whole pipeline; put every pass inside it: `{fixed}`")]
    AfterAnchor {
        /// `builtin.module` or `module`.
        anchor: &'static str,
        /// The pipeline with the passes after the anchor moved inside it.
        fixed: String,
    },
    /// Something else where the grammar wanted a specific token.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows here.
        expected: &'static str,
        /// What is there, quoted, or `end of pipeline`.
        found: String,
    },
}

/// A pipeline error at a byte offset of the text it came from.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct PipelineError {
    /// Byte offset into the text.
    pub offset: usize,
    /// What is wrong.
    pub kind: PipelineErrorKind,
}

impl PipelineError {
    /// Renders the error as `source:1:col: error: …` with the text quoted and a caret.
    pub fn render(&self, source_name: &str, text: &str) -> String {
        let loc = Loc::of_offset(text, self.offset);
        render(
            source_name,
            Some(text),
            Some(loc),
            Severity::Error,
            &self.kind,
        )
    }
}

/// Parses `--pass-pipeline` text: passes separated by commas, options in braces. Options are
/// checked against each pass's typed options, and the pipeline prints in canonical form (every
/// option, defaults included), the form reproducers and `--dump-pass-pipeline` use.
///
/// ```
/// use lattice::parse_pipeline;
/// use lattice_passes::REGISTRY;
///
/// let pipeline = parse_pipeline("mpas, dlr{victim=lru}", &REGISTRY).unwrap();
/// assert_eq!(pipeline.passes.len(), 2);
/// assert!(pipeline.to_string().starts_with("mpas{"));
/// assert!(pipeline.to_string().contains("victim=lru"));
///
/// let error = parse_pipeline("mpas,dlr{victim=sometimes}", &REGISTRY).unwrap_err();
/// assert!(error.render("pipeline", "mpas,dlr{victim=sometimes}").contains("error:"));
/// ```
pub fn parse_pipeline(text: &str, registry: &Registry) -> Result<Pipeline, PipelineError> {
    let mut p = Cursor { text, pos: 0 };
    p.skip_ws();
    let anchor = ["builtin.module", "module"].into_iter().find(|anchor| {
        p.rest()
            .strip_prefix(anchor)
            .is_some_and(|after| after.trim_start().starts_with('('))
    });
    let anchored = anchor.is_some();
    let mut open_paren = None;
    if let Some(anchor) = anchor {
        p.pos += anchor.len();
        p.skip_ws();
        open_paren = Some(p.pos);
        p.pos += 1;
    }
    let mut passes = Vec::new();
    p.skip_ws();
    let empty = p.at_end() || (anchored && p.peek() == Some(')'));
    if !empty {
        loop {
            p.skip_ws();
            passes.push(p.pass(registry)?);
            p.skip_ws();
            match p.peek() {
                Some(',') => p.pos += 1,
                _ => break,
            }
        }
    }
    p.skip_ws();
    if let (Some(open), Some(anchor)) = (open_paren, anchor) {
        if p.peek() != Some(')') {
            if p.at_end() {
                return Err(p.error_at(open, unbalanced("parentheses: this `(` is never closed")));
            }
            return Err(p.expected("`,` or `)`"));
        }
        let inside = text[open + 1..p.pos].trim();
        p.pos += 1;
        p.skip_ws();
        if p.peek() == Some(',') {
            let after = text[p.pos + 1..].trim();
            let passes = if inside.is_empty() {
                after.to_owned()
            } else {
                format!("{inside},{after}")
            };
            return Err(p.error(PipelineErrorKind::AfterAnchor {
                anchor,
                fixed: format!("{anchor}({passes})"),
            }));
        }
    }
    match p.peek() {
        None => Ok(Pipeline { passes }),
        Some('}') => Err(p.error(unbalanced("braces: this `}` closes nothing"))),
        Some(')') => Err(p.error(unbalanced("parentheses: this `)` closes nothing"))),
        Some(_) => Err(p.expected("`,` or the end of the pipeline")),
    }
}

/// Builds the spec of one bare pass flag: `--dlr` (`options = None`) or `--dlr=victim=lru`.
/// `flag_text` is the whole argument as written, for error locations.
pub fn parse_pass_flag(
    registry: &Registry,
    name: &str,
    options: Option<&str>,
    flag_text: &str,
) -> Result<PassSpec, PipelineError> {
    let Some(info) = registry.get(name) else {
        return Err(PipelineError {
            offset: 0,
            kind: PipelineErrorKind::UnknownPass(registry.unknown_pass(name)),
        });
    };
    let start = flag_text.len() - options.map_or(0, str::len);
    let mut p = Cursor {
        text: flag_text,
        pos: start,
    };
    p.options(info.name, &(info.options)(), None)
}

fn unbalanced(what: &str) -> PipelineErrorKind {
    PipelineErrorKind::Unbalanced(what.to_string())
}

/// The spec of `pass` with the `given` options and defaults for the rest, in declaration order.
fn with_defaults(
    pass: &'static str,
    infos: &[OptionInfo],
    given: Vec<(String, String)>,
) -> PassSpec {
    let options = infos
        .iter()
        .map(|info| {
            let value = given
                .iter()
                .find(|(k, _)| *k == info.name)
                .map_or_else(|| info.default.clone(), |(_, v)| v.clone());
            (info.name.clone(), value)
        })
        .collect();
    PassSpec {
        name: pass,
        options,
    }
}

struct Cursor<'t> {
    text: &'t str,
    pos: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }

    fn error(&self, kind: PipelineErrorKind) -> PipelineError {
        self.error_at(self.pos, kind)
    }

    fn error_at(&self, offset: usize, kind: PipelineErrorKind) -> PipelineError {
        PipelineError { offset, kind }
    }

    fn expected(&self, expected: &'static str) -> PipelineError {
        let found = match self.peek() {
            None => "the end of the pipeline".to_string(),
            Some(c) => format!("`{c}`"),
        };
        self.error(PipelineErrorKind::Expected { expected, found })
    }

    fn word(&mut self) -> &str {
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
            .unwrap_or(self.rest().len());
        let start = self.pos;
        self.pos += len;
        &self.text[start..self.pos]
    }

    fn pass(&mut self, registry: &Registry) -> Result<PassSpec, PipelineError> {
        let start = self.pos;
        let name = self.word().to_string();
        if name.is_empty() {
            return Err(match self.peek() {
                Some('{') => self.error(PipelineErrorKind::Expected {
                    expected: "a pass name before `{`",
                    found: "`{`".into(),
                }),
                _ => self.expected("a pass name"),
            });
        }
        let Some(info) = registry.get(&name) else {
            let kind = PipelineErrorKind::UnknownPass(registry.unknown_pass(&name));
            return Err(self.error_at(start, kind));
        };
        self.skip_ws();
        if self.peek() != Some('{') {
            return Ok(with_defaults(info.name, &(info.options)(), Vec::new()));
        }
        let open = self.pos;
        self.pos += 1;
        self.options(info.name, &(info.options)(), Some(open))
    }

    /// Parses `key=value` pairs up to the closing brace (when `open` is the brace's offset) or the
    /// end of the text.
    fn options(
        &mut self,
        pass: &'static str,
        infos: &[OptionInfo],
        open: Option<usize>,
    ) -> Result<PassSpec, PipelineError> {
        let mut given: Vec<(usize, String, Option<String>)> = Vec::new();
        loop {
            self.skip_ws();
            match (self.peek(), open) {
                (Some('}'), Some(_)) => {
                    self.pos += 1;
                    break;
                }
                (None, Some(open)) => {
                    return Err(self.error_at(open, unbalanced("braces: this `{` is never closed")))
                }
                (None, None) => break,
                (Some('}'), None) => {
                    return Err(self.error(unbalanced("braces: this `}` closes nothing")))
                }
                _ => {}
            }
            let key_at = self.pos;
            let key = self.word().to_string();
            if key.is_empty() {
                return Err(self.expected("an option name"));
            }
            let value = if self.peek() == Some('=') {
                self.pos += 1;
                Some(self.value()?)
            } else {
                None
            };
            given.push((key_at, key, value));
            match self.peek() {
                Some(c) if c.is_whitespace() => {}
                Some('}') if open.is_some() => {}
                None => {}
                _ => return Err(self.expected("a space between options")),
            }
        }
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (at, key, value) in given {
            let Some(info) = infos.iter().find(|o| o.name == key) else {
                let valid: Vec<&str> = infos.iter().map(|o| o.name.as_str()).collect();
                let valid = if valid.is_empty() {
                    "(none)".to_string()
                } else {
                    valid.join(", ")
                };
                let kind = PipelineErrorKind::UnknownOption {
                    pass: pass.into(),
                    option: key,
                    valid,
                };
                return Err(self.error_at(at, kind));
            };
            if pairs.iter().any(|(k, _)| *k == key) {
                let kind = PipelineErrorKind::DuplicateOption {
                    pass: pass.into(),
                    option: key,
                };
                return Err(self.error_at(at, kind));
            }
            let value = match value {
                Some(v) => v,
                None if info.type_name == "bool" => "true".into(),
                None => {
                    let kind = PipelineErrorKind::MissingValue {
                        pass: pass.into(),
                        option: key,
                        type_name: info.type_name.clone(),
                    };
                    return Err(self.error_at(at, kind));
                }
            };
            let canonical = (info.canonicalize)(&value).map_err(|reason| {
                let kind = PipelineErrorKind::BadValue {
                    pass: pass.into(),
                    option: key.clone(),
                    reason,
                };
                self.error_at(at, kind)
            })?;
            pairs.push((key, canonical));
        }
        Ok(with_defaults(pass, infos, pairs))
    }

    fn value(&mut self) -> Result<String, PipelineError> {
        if self.peek() != Some('"') {
            let len = self
                .rest()
                .find(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | ','))
                .unwrap_or(self.rest().len());
            let start = self.pos;
            self.pos += len;
            return Ok(self.text[start..self.pos].to_string());
        }
        let open = self.pos;
        self.pos += 1;
        let mut value = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(value);
                }
                '\\' => match chars.next() {
                    Some((_, escaped)) => value.push(escaped),
                    None => break,
                },
                _ => value.push(c),
            }
        }
        Err(self.error_at(open, PipelineErrorKind::UnterminatedQuote))
    }
}
