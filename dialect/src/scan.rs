//! The fast path of the LIR parser: buffer declarations and ops written one per line, as the
//! printer writes them, read by a byte scanner instead of the pest grammar.
//!
//! Why: pest spends most of a large module's parse in per-rule bookkeeping (call tracking, the
//! stack guard, token queues): on Matmul_Case1's 1.8 MB the grammar's syntax pass alone takes
//! about 75 ms (23 MB/s), and making the op rules compound-atomic saved only a tenth of it. The
//! module's head (name, phase, target) stays with the grammar (`head` in `lir.pest`); the lines
//! after it, almost all of the text, are scanned here, numbers read straight from the slices.
//!
//! Contract: [`body`] either builds exactly the module the full grammar and resolver would build
//! from the same text — same ids, names, kinds, dependencies and locations — or returns `None`
//! as soon as anything departs from the one-per-line form (a comment, a line break inside an op,
//! a tab, a non-ASCII byte, an unknown or duplicate name, a number out of range, a syntax
//! error). The caller then parses the whole text with the grammar, which gives the module or the
//! located error; so the fast path never decides what an error says. A test holds both paths to
//! the same module on every shipped example and generated workload.
//!
//! Complexity: O(n) in the text's length, plus hashing of names.

use crate::diag::Loc;
use crate::ids::{BufferId, OpId, PipeId};
use crate::module::{Buffer, Dep, DepKind, Module, Op, OpKind};
use std::collections::HashMap;

/// Reads the lines of `text` from byte `start` (just after the target block, on line `line`)
/// into `module`: buffer declarations, then ops, then the closing `}`. `None`: use the grammar.
pub(crate) fn body(module: &mut Module, text: &str, start: usize, line: u32) -> Option<()> {
    let rest = text.get(start..)?;
    if !rest.is_ascii() {
        return None;
    }
    let mut lines = Lines {
        text: rest,
        at: 0,
        line,
    };
    // The remainder of the target's last line.
    if !lines.next_line()?.1.trim().is_empty() {
        return None;
    }
    let mut buffers: HashMap<&str, BufferId> = HashMap::new();
    let mut op_lines: Vec<(u32, &str)> = Vec::new();
    let mut closed = false;
    while let Some((number, content)) = lines.next_line() {
        let trimmed = content.trim_start_matches(' ');
        let indent = content.len() - trimmed.len();
        let trimmed = trimmed.trim_end_matches([' ', '\r']);
        if closed {
            if !trimmed.is_empty() {
                return None;
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if trimmed == "}" {
            closed = true;
        } else if trimmed.starts_with("buffer ") {
            if !op_lines.is_empty() {
                return None;
            }
            let col = u32::try_from(indent + 1).ok()?;
            let (name, buffer) = buffer_line(module, trimmed, Loc { line: number, col })?;
            let id = BufferId::new(module.buffers.len());
            if buffers.insert(name, id).is_some() {
                return None;
            }
            module.add_buffer(buffer);
        } else if trimmed.starts_with('%') {
            op_lines.push((number, content));
        } else {
            return None;
        }
    }
    if !closed {
        return None;
    }
    let mut ops: HashMap<&str, OpId> = HashMap::with_capacity(op_lines.len());
    for (i, (_, content)) in op_lines.iter().enumerate() {
        let name = content.trim_start_matches(' ').split(' ').next()?;
        if ops.insert(name, OpId::new(i)).is_some() {
            return None;
        }
    }
    let names = Names {
        buffers: &buffers,
        ops: &ops,
    };
    for (number, content) in op_lines {
        let op = op_line(module, &names, content, number)?;
        module.push_op(op);
    }
    Some(())
}

/// The text's lines from a byte offset, with 1-based line numbers.
struct Lines<'t> {
    text: &'t str,
    at: usize,
    line: u32,
}

impl<'t> Lines<'t> {
    fn next_line(&mut self) -> Option<(u32, &'t str)> {
        if self.at > self.text.len() || (self.at == self.text.len() && self.at > 0) {
            return None;
        }
        let rest = &self.text[self.at..];
        let len = rest.find('\n').unwrap_or(rest.len());
        let number = self.line;
        self.at += len + 1;
        self.line += 1;
        Some((number, &rest[..len]))
    }
}

/// The name tables of the module being read.
struct Names<'a, 't> {
    buffers: &'a HashMap<&'t str, BufferId>,
    ops: &'a HashMap<&'t str, OpId>,
}

/// A cursor over one line.
struct Cursor<'t> {
    s: &'t str,
    at: usize,
}

impl<'t> Cursor<'t> {
    fn spaces(&mut self) {
        while self.s.as_bytes().get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    /// `word` followed by a space, `(`, `,`, `)` or the end of the line.
    fn keyword(&mut self, word: &str) -> Option<()> {
        let rest = self.s.get(self.at..)?;
        let after = rest.strip_prefix(word)?;
        match after.as_bytes().first() {
            None | Some(b' ' | b'(' | b',' | b')') => {
                self.at += word.len();
                Some(())
            }
            _ => None,
        }
    }

    fn byte(&mut self, b: u8) -> Option<()> {
        (self.s.as_bytes().get(self.at) == Some(&b)).then(|| self.at += 1)
    }

    /// The longest run of bytes satisfying `ok` (at least one).
    fn run(&mut self, ok: impl Fn(u8) -> bool) -> Option<&'t str> {
        let start = self.at;
        while self.s.as_bytes().get(self.at).is_some_and(|&b| ok(b)) {
            self.at += 1;
        }
        (self.at > start).then(|| &self.s[start..self.at])
    }

    fn int<T: std::str::FromStr>(&mut self) -> Option<T> {
        self.run(|b| b.is_ascii_digit())?.parse().ok()
    }

    /// A `word` of the grammar: a letter, then letters, digits and `_`.
    fn word(&mut self) -> Option<&'t str> {
        if !self.s.as_bytes().get(self.at)?.is_ascii_alphabetic() {
            return None;
        }
        self.run(|b| b.is_ascii_alphanumeric() || b == b'_')
    }

    /// A reference with `sigil` (`@b`, `%`): the whole token, and its number.
    fn reference(&mut self, sigil: &str) -> Option<(&'t str, u32)> {
        let start = self.at;
        self.keyword_prefix(sigil)?;
        let number = self.int()?;
        Some((&self.s[start..self.at], number))
    }

    fn keyword_prefix(&mut self, prefix: &str) -> Option<()> {
        self.s
            .get(self.at..)?
            .starts_with(prefix)
            .then(|| self.at += prefix.len())
    }

    fn done(&self) -> bool {
        self.at == self.s.len()
    }
}

/// `buffer @bN : TIER[SIZE]` and an optional `backed`.
fn buffer_line<'t>(module: &Module, line: &'t str, loc: Loc) -> Option<(&'t str, Buffer)> {
    let mut c = Cursor { s: line, at: 0 };
    c.keyword("buffer")?;
    c.spaces();
    let (token, name) = c.reference("@b")?;
    c.spaces();
    c.byte(b':')?;
    c.spaces();
    let tier = module.target.tier_named(c.word()?)?;
    c.spaces();
    c.byte(b'[')?;
    c.spaces();
    let size = c.int()?;
    c.spaces();
    c.byte(b']')?;
    c.spaces();
    let backed = !c.done();
    if backed {
        c.keyword("backed")?;
        c.spaces();
    }
    c.done().then_some((
        token,
        Buffer {
            name,
            tier,
            size,
            backed,
            loc: Some(loc),
        },
    ))
}

/// One op line: `%N = BODY` and an optional `after(...)`.
fn op_line(module: &Module, names: &Names<'_, '_>, line: &str, number: u32) -> Option<Op> {
    let mut c = Cursor { s: line, at: 0 };
    c.spaces();
    let col = u32::try_from(c.at + 1).ok()?;
    let (_, name) = c.reference("%")?;
    c.spaces();
    c.byte(b'=')?;
    c.spaces();
    let buffer = |c: &mut Cursor<'_>| names.buffers.get(c.reference("@b")?.0).copied();
    let pipe = |c: &mut Cursor<'_>| -> Option<PipeId> { module.target.pipe_named(c.word()?) };
    let first = *line.as_bytes().get(c.at)?;
    let kind = if first.is_ascii_uppercase() {
        let opcode = c
            .run(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')?
            .to_owned();
        c.spaces();
        let pipe = pipe(&mut c)?;
        c.spaces();
        let cycles = c.int()?;
        c.spaces();
        c.byte(b'(')?;
        c.spaces();
        let mut operands = Vec::new();
        if c.byte(b')').is_none() {
            loop {
                operands.push(buffer(&mut c)?);
                c.spaces();
                if c.byte(b')').is_some() {
                    break;
                }
                c.byte(b',')?;
                c.spaces();
            }
        }
        OpKind::Compute {
            opcode,
            pipe,
            cycles,
            operands,
        }
    } else if c.keyword("alloc").is_some() {
        c.spaces();
        let buffer = buffer(&mut c)?;
        c.spaces();
        let offset = if c.keyword("at").is_some() {
            c.spaces();
            Some(c.int()?)
        } else {
            None
        };
        OpKind::Alloc { buffer, offset }
    } else if c.keyword("free").is_some() {
        c.spaces();
        OpKind::Free {
            buffer: buffer(&mut c)?,
        }
    } else if c.keyword("spill_out").is_some() {
        c.spaces();
        let buffer = buffer(&mut c)?;
        c.spaces();
        let pipe = pipe(&mut c)?;
        c.spaces();
        OpKind::SpillOut {
            buffer,
            pipe,
            cycles: c.int()?,
        }
    } else if c.keyword("spill_in").is_some() {
        c.spaces();
        let buffer = buffer(&mut c)?;
        c.spaces();
        c.keyword("at")?;
        c.spaces();
        let offset = c.int()?;
        c.spaces();
        let pipe = pipe(&mut c)?;
        c.spaces();
        OpKind::SpillIn {
            buffer,
            offset,
            pipe,
            cycles: c.int()?,
        }
    } else {
        return None;
    };
    c.spaces();
    let mut deps = Vec::new();
    if c.keyword("after").is_some() {
        c.spaces();
        c.byte(b'(')?;
        loop {
            c.spaces();
            let (token, _) = c.reference("%")?;
            let op = *names.ops.get(token)?;
            c.spaces();
            let kind = if c.keyword("spill").is_some() {
                DepKind::Spill
            } else if c.keyword("reuse").is_some() {
                DepKind::Reuse
            } else {
                DepKind::Precedence
            };
            deps.push(Dep { op, kind });
            c.spaces();
            if c.byte(b')').is_some() {
                break;
            }
            c.byte(b',')?;
        }
        c.spaces();
    }
    c.done().then_some(Op {
        name,
        kind,
        deps,
        loc: Some(Loc { line: number, col }),
    })
}
