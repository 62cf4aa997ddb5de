//! Parses LIR text into a [`Module`].
//!
//! Two steps: the pest grammar in `lir.pest` checks the syntax, then a resolver turns names into
//! typed ids (tiers, pipes, buffers, ops). Text laid out one declaration or op per line, as the
//! printer writes it, takes a fast path: the grammar reads the head (name, phase, target) and
//! `scan.rs` the lines after it; anything else, and every error, goes through the grammar, so
//! the messages are the grammar's whichever path a text takes. Op names are resolved over the whole module, so a
//! dependency on an op written later is not an "unknown op" but a schedule violation that the
//! verifier reports. The parser never panics: every failure is a [`ParseError`] with a location
//! and a sentence that says what was expected, in words rather than grammar rule names.

use crate::diag::{Loc, Located};
use crate::ids::{BufferId, OpId, PipeId, TierId};
use crate::module::{Buffer, Dep, DepKind, Module, Op, OpKind, Phase};
use crate::target::{SpillCost, Target, Tier};
use pest::iterators::{Pair, Pairs};
use pest::Parser as _;
use std::collections::HashMap;

#[allow(missing_docs)] // pest generates a public `Rule` enum.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "lir.pest"]
    pub(super) struct LirGrammar;
}
use grammar::{LirGrammar, Rule};

/// Why a text is not a LIR module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text does not follow the grammar.
    #[error("{message}")]
    Syntax {
        /// Where parsing stopped.
        loc: Loc,
        /// What was expected there, in words.
        message: String,
    },
    /// `phase(...)` names no phase.
    #[error("unknown phase `{found}`; valid phases: parsed, scheduled, planned, refined")]
    UnknownPhase {
        /// Where.
        loc: Loc,
        /// The word found.
        found: String,
    },
    /// A name is declared twice (a tier, a pipe, a buffer or an op).
    #[error("{what} `{name}` is defined twice (first at line {})", first.line)]
    Duplicate {
        /// Where the second definition is.
        loc: Loc,
        /// "tier", "pipe", "buffer" or "op".
        what: &'static str,
        /// The name as written.
        name: String,
        /// Where the first definition is.
        first: Loc,
    },
    /// A name that is not declared (tier, pipe, buffer or op).
    #[error("unknown {what} `{name}`{}", if valid.is_empty() { String::new() } else { format!("; valid {what}s: {valid}") })]
    Unknown {
        /// Where the name is used.
        loc: Loc,
        /// "tier", "pipe", "buffer" or "op".
        what: &'static str,
        /// The name as written.
        name: String,
        /// The declared names, for tiers and pipes.
        valid: String,
    },
    /// A number that does not fit the field.
    #[error("number `{text}` is too large")]
    NumberTooLarge {
        /// Where.
        loc: Loc,
        /// The digits.
        text: String,
    },
}

impl Located for ParseError {
    fn loc(&self) -> Option<Loc> {
        Some(match self {
            ParseError::Syntax { loc, .. }
            | ParseError::UnknownPhase { loc, .. }
            | ParseError::Duplicate { loc, .. }
            | ParseError::Unknown { loc, .. }
            | ParseError::NumberTooLarge { loc, .. } => *loc,
        })
    }
}

/// Guards pest's process-wide error-detail switch: parses without detail share it (read),
/// the detailed re-parse of a failing text holds it alone (write) and switches detail off again
/// before releasing it, so no parse ever starts with the other setting.
static ERROR_DETAIL: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Parses one module. Printing the result with [`crate::print_module`] gives the canonical
/// text, which parses back to the same module:
///
/// ```
/// use lattice_lir::{parse_module, print_module, Phase};
///
/// let text = "module @tiny phase(parsed) {
///   target {
///     tiers L1 = 4096
///     pipes MTE2, VECTOR
///     spill_out MTE2, spill_in MTE2, spill_cost = 150 + 2 * size
///     l0_exclusive = true
///   }
///   buffer @b0 : L1[64]
///   %0 = alloc @b0
///   %1 = VADD VECTOR 40 (@b0) after(%0)
///   %2 = free @b0 after(%1)
/// }
/// ";
/// let module = parse_module(text).unwrap();
/// assert_eq!((module.phase, module.ops.len()), (Phase::Parsed, 3));
/// let printed = print_module(&module);
/// assert_eq!(parse_module(&printed).unwrap(), module);
/// assert!(parse_module("module @m phase(nowhere) {}").is_err());
/// ```
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    if let Some(module) = fast_path(text) {
        return Ok(module);
    }
    full_path(text)
}

/// The head through the grammar, the rest through the scanner; `None` sends the text to
/// [`full_path`].
fn fast_path(text: &str) -> Option<Module> {
    let mut pairs = {
        let _shared = ERROR_DETAIL.read().unwrap_or_else(|e| e.into_inner());
        LirGrammar::parse(Rule::head, text).ok()?
    };
    let head = pairs.next()?;
    let end = head.as_span().end();
    let line = u32::try_from(
        text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1,
    )
    .ok()?;
    let mut module = Resolver::default().head(&mut head.into_inner()).ok()?;
    crate::scan::body(&mut module, text, end, line)?;
    Some(module)
}

/// The whole text through the grammar and the resolver.
fn full_path(text: &str) -> Result<Module, ParseError> {
    let blank = |line: &str| {
        let line = line.trim();
        line.is_empty() || line.starts_with("//")
    };
    if text.lines().all(blank) {
        return Err(ParseError::Syntax {
            loc: Loc::new(1, 1),
            message: "the file is empty: a module starts with `module @name phase(parsed) {`"
                .to_owned(),
        });
    }
    // pest's error detail (the call stacks of every attempt) makes the good messages but slows
    // every parse about twofold, so a text is parsed without it and only a text that fails is
    // parsed again with it, for the message. A poisoned lock only means another parse panicked;
    // the switch it guards is still consistent, so the guard is taken regardless.
    let first = {
        let _shared = ERROR_DETAIL.read().unwrap_or_else(|e| e.into_inner());
        LirGrammar::parse(Rule::file, text)
    };
    let mut pairs = match first {
        Ok(pairs) => pairs,
        Err(plain) => {
            let _alone = ERROR_DETAIL.write().unwrap_or_else(|e| e.into_inner());
            pest::set_error_detail(true);
            let detailed = LirGrammar::parse(Rule::file, text).err();
            pest::set_error_detail(false);
            return Err(syntax_error(text, detailed.unwrap_or(plain)));
        }
    };
    let file = pairs.next().expect("the file rule always yields one pair");
    let module = file.into_inner().next().expect("a file holds one module");
    Resolver::default().module(module)
}

fn syntax_error(text: &str, err: pest::error::Error<Rule>) -> ParseError {
    // With error detail on, pest records the literal tokens it wanted at the furthest position
    // (such as a missing `)`), white space and comments aside; its plain positives name only rules, often far to the left.
    if let Some(attempts) = err.parse_attempts() {
        // The whole-module rule shows up as the outermost attempt everywhere; it only helps
        // when nothing more specific was wanted.
        let rules: Vec<&str> = attempts
            .call_stacks()
            .iter()
            .filter_map(|stack| stack.deepest.get_rule().copied())
            .filter(|r| !matches!(r, Rule::file | Rule::module))
            .map(describe)
            .collect();
        // pest does not export its token type; only literal strings are worth naming, and not
        // those a wanted rule's description already shows (`@b` in "a buffer like `@b3`").
        let tokens: Vec<String> = attempts
            .expected_tokens()
            .iter()
            .filter(|t| format!("{t:?}").starts_with("Sensitive"))
            .map(|t| t.to_string())
            .filter(|t| !t.trim().is_empty() && t != "//")
            .filter(|t| !rules.iter().any(|r| r.contains(&format!("`{t}"))))
            .map(|t| format!("`{t}`"))
            .collect();
        let mut words: Vec<&str> = rules
            .iter()
            .copied()
            .chain(tokens.iter().map(String::as_str))
            .collect();
        if !words.is_empty() {
            words.sort_unstable();
            words.dedup();
            let loc = Loc::of_offset(text, attempts.max_position);
            let line = text.lines().nth(loc.line as usize - 1).unwrap_or("");
            let found = if text
                .get(attempts.max_position..)
                .is_some_and(|r| r.trim().is_empty())
            {
                "the end of the file".to_owned()
            } else {
                found_token(line, loc.col as usize)
            };
            let mut message = format!("expected {}, found {found}", or_list(&words));
            if words.contains(&"`phase`") {
                let phases: Vec<&str> = Phase::ALL.iter().map(|p| p.keyword()).collect();
                message.push_str(&format!(
                    " (a module names its phase: `module @name phase(parsed) {{`; phases: {})",
                    phases.join(", ")
                ));
            }
            return ParseError::Syntax { loc, message };
        }
    }
    let (line, col) = match err.line_col {
        pest::error::LineColLocation::Pos(p) | pest::error::LineColLocation::Span(p, _) => p,
    };
    let message = match &err.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            let mut words: Vec<&str> = positives.iter().map(|r| describe(*r)).collect();
            words.sort_unstable();
            words.dedup();
            let found = found_token(err.line(), col);
            format!("expected {}, found {found}", or_list(&words))
        }
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
    };
    ParseError::Syntax {
        loc: Loc::new(line, col),
        message,
    }
}

fn found_token(line: &str, col: usize) -> String {
    let rest: String = line.chars().skip(col.saturating_sub(1)).collect();
    let token: String = rest
        .trim_start()
        .chars()
        .take_while(|c| !c.is_whitespace())
        .take(24)
        .collect();
    if token.is_empty() {
        "the end of the line".to_owned()
    } else {
        format!("`{token}`")
    }
}

fn or_list(words: &[&str]) -> String {
    match words {
        [] => "something else".to_owned(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The words users see for grammar rules in "expected …" messages.
fn describe(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "the end of the input",
        Rule::file | Rule::module | Rule::head => "`module @name phase(...) {`",
        Rule::module_name => "a module name like `@conv0`",
        Rule::target => "a `target { ... }` block",
        Rule::tiers => "`tiers NAME = CAPACITY, ...`",
        Rule::tier => "a tier like `L1 = 4096`",
        Rule::staging => "`l0`",
        Rule::pipes => "`pipes NAME, ...`",
        Rule::spill_model => "`spill_out PIPE, spill_in PIPE, spill_cost = BASE + PER_BYTE * size`",
        Rule::l0_rule => "`l0_exclusive = true|false`",
        Rule::boolean => "`true` or `false`",
        Rule::buffer => "a buffer declaration `buffer @bN : TIER[SIZE]`",
        Rule::backed => "`backed`",
        Rule::op => "an op `%N = ...`",
        Rule::alloc | Rule::free | Rule::spill_out | Rule::spill_in | Rule::compute => {
            "an op body (`alloc`, `free`, `spill_out`, `spill_in` or `OPCODE PIPE CYCLES (@b...)`)"
        }
        Rule::at => "`at OFFSET`",
        Rule::deps => "`after(...)`",
        Rule::dep => "a dependency like `%12` or `%12 spill`",
        Rule::dep_kind => "a dependency kind (`spill` or `reuse`)",
        Rule::word => "a name",
        Rule::opcode => "an upper-case opcode",
        Rule::int => "a number",
        Rule::buf_ref => "a buffer like `@b3`",
        Rule::op_ref => "an op like `%12`",
        Rule::WHITESPACE | Rule::COMMENT => "white space",
    }
}

fn loc_of(pair: &Pair<'_, Rule>) -> Loc {
    let (line, col) = pair.line_col();
    Loc::new(line, col)
}

fn number<T: std::str::FromStr>(src: &impl NumberSource) -> Result<T, ParseError> {
    src.text()
        .parse::<T>()
        .map_err(|_| ParseError::NumberTooLarge {
            loc: src.loc(),
            text: src.text().to_owned(),
        })
}

/// A name table that remembers where each name was defined.
struct Names<Id> {
    what: &'static str,
    ids: HashMap<String, (Id, Loc)>,
}

impl<Id: Copy> Names<Id> {
    fn new(what: &'static str) -> Self {
        Names {
            what,
            ids: HashMap::new(),
        }
    }

    fn define(&mut self, name: &str, id: Id, loc: Loc) -> Result<(), ParseError> {
        if let Some(&(_, first)) = self.ids.get(name) {
            return Err(ParseError::Duplicate {
                loc,
                what: self.what,
                name: name.to_owned(),
                first,
            });
        }
        self.ids.insert(name.to_owned(), (id, loc));
        Ok(())
    }

    fn get(&self, pair: &Pair<'_, Rule>, valid: impl FnOnce() -> String) -> Result<Id, ParseError> {
        self.ids
            .get(pair.as_str())
            .map(|&(id, _)| id)
            .ok_or_else(|| ParseError::Unknown {
                loc: loc_of(pair),
                what: self.what,
                name: pair.as_str().to_owned(),
                valid: valid(),
            })
    }
}

#[derive(Default)]
struct Resolver {
    target: Option<Target>,
}

impl Resolver {
    fn target(&self) -> &Target {
        self.target
            .as_ref()
            .expect("the grammar puts the target first")
    }

    fn module(&mut self, pair: Pair<'_, Rule>) -> Result<Module, ParseError> {
        let mut inner = pair.into_inner();
        let mut module = self.head(&mut inner)?;

        let mut buffers = Names::<BufferId>::new("buffer");
        let mut op_pairs = Vec::new();
        for item in inner {
            match item.as_rule() {
                Rule::buffer => {
                    let loc = loc_of(&item);
                    let (buffer, name_pair) = self.parse_buffer(item)?;
                    let id = BufferId::new(module.buffers.len());
                    buffers.define(name_pair.as_str(), id, loc_of(&name_pair))?;
                    module.add_buffer(Buffer {
                        loc: Some(loc),
                        ..buffer
                    });
                }
                Rule::op => op_pairs.push(item),
                _ => {}
            }
        }

        let mut ops = Names::<OpId>::new("op");
        for (i, pair) in op_pairs.iter().enumerate() {
            let name_pair = pair.clone().into_inner().next().expect("op name");
            ops.define(name_pair.as_str(), OpId::new(i), loc_of(&name_pair))?;
        }
        for pair in op_pairs {
            let op = self.parse_op(pair, &buffers, &ops)?;
            module.push_op(op);
        }
        Ok(module)
    }

    /// The module name, phase and target (the first pairs of a `module` or a `head`).
    fn head(&mut self, inner: &mut Pairs<'_, Rule>) -> Result<Module, ParseError> {
        let name = inner.next().expect("module name").as_str()[1..].to_owned();
        let phase_pair = inner.next().expect("phase");
        let phase =
            Phase::from_keyword(phase_pair.as_str()).ok_or_else(|| ParseError::UnknownPhase {
                loc: loc_of(&phase_pair),
                found: phase_pair.as_str().to_owned(),
            })?;
        self.target = Some(self.parse_target(inner.next().expect("target"))?);
        let mut module = Module::new(name, self.target().clone());
        module.phase = phase;
        Ok(module)
    }

    fn parse_target(&self, pair: Pair<'_, Rule>) -> Result<Target, ParseError> {
        let mut inner = pair.into_inner();
        let mut tiers = Vec::new();
        let mut tier_names = Names::<TierId>::new("tier");
        for tier in inner.next().expect("tiers").into_inner() {
            let mut parts = tier.into_inner();
            let name = parts.next().expect("tier name");
            let capacity = number(&parts.next().expect("capacity"))?;
            tier_names.define(name.as_str(), TierId::new(tiers.len()), loc_of(&name))?;
            tiers.push(Tier {
                name: name.as_str().to_owned(),
                capacity,
                staging: parts.next().is_some(),
            });
        }
        let mut pipes = Vec::new();
        let mut pipe_names = Names::<PipeId>::new("pipe");
        for pipe in inner.next().expect("pipes").into_inner() {
            pipe_names.define(pipe.as_str(), PipeId::new(pipes.len()), loc_of(&pipe))?;
            pipes.push(pipe.as_str().to_owned());
        }
        let valid_pipes = || pipes.join(", ");
        let mut spill = inner.next().expect("spill model").into_inner();
        let spill_out_pipe = pipe_names.get(&spill.next().expect("out pipe"), valid_pipes)?;
        let spill_in_pipe = pipe_names.get(&spill.next().expect("in pipe"), valid_pipes)?;
        let spill_cost = SpillCost {
            base: number(&spill.next().expect("base"))?,
            per_byte: number(&spill.next().expect("per byte"))?,
        };
        let l0_exclusive = inner
            .next()
            .expect("l0 rule")
            .into_inner()
            .next()
            .expect("boolean")
            .as_str()
            == "true";
        Ok(Target {
            tiers,
            pipes,
            spill_out_pipe,
            spill_in_pipe,
            spill_cost,
            l0_exclusive,
        })
    }

    fn parse_buffer<'i>(
        &self,
        pair: Pair<'i, Rule>,
    ) -> Result<(Buffer, Pair<'i, Rule>), ParseError> {
        let mut inner = pair.into_inner();
        let name_pair = inner.next().expect("buffer name");
        let name = number(&digits(&name_pair))?;
        let tier_pair = inner.next().expect("tier");
        let tier = self.tier(&tier_pair)?;
        let size = number(&inner.next().expect("size"))?;
        let backed = inner.next().is_some();
        Ok((
            Buffer {
                name,
                tier,
                size,
                backed,
                loc: None,
            },
            name_pair,
        ))
    }

    fn tier(&self, pair: &Pair<'_, Rule>) -> Result<TierId, ParseError> {
        let target = self.target();
        target
            .tier_named(pair.as_str())
            .ok_or_else(|| ParseError::Unknown {
                loc: loc_of(pair),
                what: "tier",
                name: pair.as_str().to_owned(),
                valid: target.tier_names(),
            })
    }

    fn pipe(&self, pair: &Pair<'_, Rule>) -> Result<PipeId, ParseError> {
        let target = self.target();
        target
            .pipe_named(pair.as_str())
            .ok_or_else(|| ParseError::Unknown {
                loc: loc_of(pair),
                what: "pipe",
                name: pair.as_str().to_owned(),
                valid: target.pipe_names(),
            })
    }

    fn parse_op(
        &self,
        pair: Pair<'_, Rule>,
        buffers: &Names<BufferId>,
        ops: &Names<OpId>,
    ) -> Result<Op, ParseError> {
        let mut inner = pair.into_inner();
        let name_pair = inner.next().expect("op name");
        let name = number(&digits(&name_pair))?;
        let body = inner.next().expect("op body");
        let buffer = |p: &Pair<'_, Rule>| buffers.get(p, String::new);
        let mut parts = body.clone().into_inner();
        let mut next = || parts.next().expect("grammar guarantees the part");
        let kind = match body.as_rule() {
            Rule::alloc => {
                let buffer = buffer(&next())?;
                let offset = match parts.next() {
                    Some(at) => Some(offset(at)?),
                    None => None,
                };
                OpKind::Alloc { buffer, offset }
            }
            Rule::free => OpKind::Free {
                buffer: buffer(&next())?,
            },
            Rule::spill_out => OpKind::SpillOut {
                buffer: buffer(&next())?,
                pipe: self.pipe(&next())?,
                cycles: number(&next())?,
            },
            Rule::spill_in => OpKind::SpillIn {
                buffer: buffer(&next())?,
                offset: offset(next())?,
                pipe: self.pipe(&next())?,
                cycles: number(&next())?,
            },
            Rule::compute => {
                let opcode = next().as_str().to_owned();
                let pipe = self.pipe(&next())?;
                let cycles = number(&next())?;
                let operands = parts
                    .by_ref()
                    .map(|p| buffer(&p))
                    .collect::<Result<Vec<_>, _>>()?;
                OpKind::Compute {
                    opcode,
                    pipe,
                    cycles,
                    operands,
                }
            }
            rule => unreachable!("op body rule {rule:?}"),
        };
        let mut deps = Vec::new();
        if let Some(list) = inner.next() {
            for dep in list.into_inner() {
                let mut dep_parts = dep.into_inner();
                let target = ops.get(&dep_parts.next().expect("dep op"), String::new)?;
                let kind = match dep_parts.next().map(|k| k.as_str()) {
                    None => DepKind::Precedence,
                    Some("spill") => DepKind::Spill,
                    Some(_) => DepKind::Reuse,
                };
                deps.push(Dep { op: target, kind });
            }
        }
        Ok(Op {
            name,
            kind,
            deps,
            loc: Some(loc_of(&name_pair)),
        })
    }
}

/// The digits of a `%N` or `@bN` reference, as a pair with the same location.
fn digits<'i>(pair: &Pair<'i, Rule>) -> DigitsOf<'i> {
    DigitsOf(pair.clone())
}

fn offset(at: Pair<'_, Rule>) -> Result<u64, ParseError> {
    number(&at.into_inner().next().expect("offset"))
}

/// Lets `number` read the digits after the sigil of a reference while keeping its location.
struct DigitsOf<'i>(Pair<'i, Rule>);

trait NumberSource {
    fn text(&self) -> &str;
    fn loc(&self) -> Loc;
}

impl NumberSource for Pair<'_, Rule> {
    fn text(&self) -> &str {
        self.as_str()
    }
    fn loc(&self) -> Loc {
        loc_of(self)
    }
}

impl NumberSource for DigitsOf<'_> {
    fn text(&self) -> &str {
        self.0.as_str().trim_start_matches(['%', '@', 'b'])
    }
    fn loc(&self) -> Loc {
        loc_of(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::{fast_path, full_path};
    use crate::contest::{import_graph, ImportOptions};
    use crate::printer::print_module;
    use std::path::{Path, PathBuf};

    /// Every `.lir` file under `dir`.
    fn lir_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                lir_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "lir") {
                out.push(path);
            }
        }
    }

    /// The fast path, when it takes a text, builds exactly the grammar's module.
    fn agree(text: &str, what: &str) -> bool {
        let Some(fast) = fast_path(text) else {
            return false;
        };
        assert_eq!(Ok(fast), full_path(text), "{what}");
        true
    }

    #[test]
    fn both_paths_build_the_same_module() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        lir_files(&root.join("test"), &mut files);
        lir_files(&root.join("examples"), &mut files);
        let mut texts: Vec<(String, String)> = files
            .iter()
            .map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap()))
            .collect();
        let cases = root.join("../shared/cases");
        for entry in std::fs::read_dir(&cases)
            .expect("../shared/cases")
            .flatten()
        {
            let path = entry.path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let json = std::fs::read_to_string(&path).unwrap();
            let module = import_graph(&json, &name, &ImportOptions::default()).unwrap();
            texts.push((name, print_module(&module)));
        }
        let mut fast = 0;
        for (what, text) in &texts {
            agree(text, what);
            let Ok(module) = full_path(text) else {
                continue;
            };
            // The printer's layout always takes the fast path.
            let printed = print_module(&module);
            assert!(
                agree(&printed, what),
                "{what}: printed text left the fast path"
            );
            fast += 1;
            // Departures from that layout fall back and still agree: a comment, a tab, an op
            // split over two lines, spaces removed around `=`, a missing closing brace.
            let variants = [
                printed.replacen("\n  %", "\n  // note\n  %", 1),
                printed.replacen("  %", "\t%", 1),
                printed.replacen(" after(", "\n    after(", 1),
                printed.replacen(" = ", "=", 1),
                printed.trim_end().trim_end_matches('}').to_owned(),
            ];
            for variant in &variants {
                agree(variant, what);
                assert_eq!(
                    super::parse_module(variant).map(|m| print_module(&m)),
                    full_path(variant).map(|m| print_module(&m)),
                    "{what}"
                );
            }
        }
        assert!(fast > 20, "only {fast} texts took the fast path");
    }
}
