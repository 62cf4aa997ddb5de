//! The `%` substitutions of RUN lines and the per-test temporary paths behind
//! `%t` and `%T`.
//!
//! | text      | becomes                                                       |
//! |-----------|---------------------------------------------------------------|
//! | `%s`      | absolute path of the test file                                |
//! | `%S`      | absolute path of its directory                                |
//! | `%t`      | `<test temp dir>/tmp`, absent at start                        |
//! | `%T`      | `<test temp dir>/tmpdir`, an empty directory at start         |
//! | `%shared` | absolute path of `<workspace>/../shared` (read only)          |
//! | `%{pathsep}` | `:`, the separator of `PATH`-like lists                    |
//! | `%%`      | a literal `%`                                                 |
//!
//! Each has lit's braced spelling too (`%{s}`, `%{t}`, `%{shared}`, ...), and a
//! test defines its own with `// DEFINE: %{name} = value` (changed later by
//! `// REDEFINE:`), which the RUN lines after it see; a definition may use
//! other substitutions. Any other `%` is kept as is, so `printf '%d'` works;
//! write `%%s` to get a literal `%s`, while an unknown `%{name}` is an error
//! (a misspelt substitution must not run as text). Paths are inserted
//! unquoted, as lit does, so `%t.out` names a sibling of `%t`.
//!
//! The test temp dir is `<CARGO_TARGET_TMPDIR>/lit/<test path>`, e.g.
//! `target/tmp/lit/test/lit/temp-paths.lir/`.
//!
//! Invariants: the test temp dir mirrors the test's path below the workspace,
//! so two tests never share one; everything a test creates through `%t`,
//! `%t.<suffix>` or `%T` lies inside it, and `prepare` empties it first, so
//! nothing from a previous run survives (a stale output file could make a
//! broken test pass).

use std::io;
use std::path::Path;

use crate::discovery::TestFile;
use crate::Context;

pub struct Substitutions {
    file: String,
    dir: String,
    tmp: String,
    tmp_dir: String,
    shared: String,
}

impl Substitutions {
    /// Computes the paths of `test` and empties its temp dir: afterwards `%t`
    /// does not exist and `%T` is an empty directory.
    pub fn prepare(ctx: &Context, test: &TestFile) -> io::Result<Self> {
        let relative = test
            .path
            .strip_prefix(&ctx.workspace)
            .expect("tests lie below the workspace");
        let root = ctx.tmp_root.join(relative);
        match std::fs::remove_dir_all(&root) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
            _ => {}
        }
        let tmp = root.join("tmp");
        let tmp_dir = root.join("tmpdir");
        std::fs::create_dir_all(&tmp_dir)?;
        let dir = test.path.parent().expect("a file has a parent directory");
        Ok(Self {
            file: display(&test.path),
            dir: display(dir),
            tmp: display(&tmp),
            tmp_dir: display(&tmp_dir),
            shared: display(&ctx.shared),
        })
    }

    /// `command` with the test's own definitions (`defined`, in the order
    /// made; a later one of a name wins) and then the built-ins replaced.
    pub fn expand(&self, command: &str, defined: &[(String, String)]) -> Result<String, String> {
        let mut text = command.to_owned();
        // Definitions may use each other: expand until nothing changes, a
        // bounded number of times so that a cycle is reported, not looped on.
        for _ in 0..MAX_DEPTH {
            let before = text.clone();
            for (name, value) in defined.iter().rev() {
                text = text.replace(&format!("%{{{name}}}"), value);
            }
            if text == before {
                return self.builtins(&text);
            }
        }
        Err(format!(
            "the definitions used by `{command}` refer to each other without end"
        ))
    }

    fn builtins(&self, command: &str) -> Result<String, String> {
        // Longest names first: `%shared` must win over `%s`.
        let table: [(&str, &str); 12] = [
            ("%%", "%"),
            ("%{pathsep}", ":"),
            ("%{shared}", &self.shared),
            ("%{s}", &self.file),
            ("%{S}", &self.dir),
            ("%{t}", &self.tmp),
            ("%{T}", &self.tmp_dir),
            ("%shared", &self.shared),
            ("%s", &self.file),
            ("%S", &self.dir),
            ("%t", &self.tmp),
            ("%T", &self.tmp_dir),
        ];
        let mut out = String::with_capacity(command.len());
        let mut rest = command;
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            match table.iter().find(|(name, _)| rest.starts_with(name)) {
                Some((name, value)) => {
                    out.push_str(value);
                    rest = &rest[name.len()..];
                }
                None => {
                    if let Some(name) = braced_name(rest) {
                        return Err(format!("unknown substitution `%{{{name}}}`"));
                    }
                    out.push('%');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// How deep definitions may refer to definitions.
const MAX_DEPTH: usize = 16;

/// The name of a `%{name}` at the start of `text`, if it is one.
pub(crate) fn braced_name(text: &str) -> Option<&str> {
    let (name, _) = text.strip_prefix("%{")?.split_once('}')?;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':'));
    valid.then_some(name)
}

/// Commands are text, so a non-UTF-8 path cannot be substituted faithfully;
/// the workspace and target dirs are expected to be UTF-8.
fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
