//! Runs one test file, i.e. one trial: parse its RUN lines and golden section,
//! give it fresh temp paths, then execute the commands in file order.
//!
//! Invariants: the whole file is validated (RUN syntax, pipeline stages,
//! golden section bookkeeping) before any of its commands runs, so a malformed
//! test never half-runs; execution stops at the first failing RUN line, whose
//! message is the trial's failure.

use std::path::Path;

use crate::discovery::TestFile;
use crate::golden::{self, Section};
use crate::pipeline::{self, Pipeline, Sink};
use crate::report::{self, Site};
use crate::run_lines::Step;
use crate::substitution::Substitutions;
use crate::{filecheck, run_lines, shell, Context};

pub fn run(ctx: &Context, test: &TestFile) -> Result<(), String> {
    let name = test.name.as_str();
    let text = std::fs::read_to_string(&test.path)
        .map_err(|err| report::at(name, (1, format!("cannot read the test file: {err}"))))?;
    let section = golden::find(&text).map_err(|err| report::at(name, err))?;
    let script = run_lines::parse(&text, section.as_ref().map_or(0..0, Section::lines))
        .map_err(|err| report::at(name, err))?;
    if script.runs() == 0 {
        return Err(report::at(
            name,
            (
                1,
                "no `// RUN:` line; a test file needs at least one".to_owned(),
            ),
        ));
    }
    let substitutions = Substitutions::prepare(ctx, test).map_err(|err| {
        report::at(
            name,
            (1, format!("cannot prepare the %t/%T temp paths: {err}")),
        )
    })?;
    let cwd = test.path.parent().expect("a file has a parent directory");

    let mut defined = Vec::new();
    let mut commands: Vec<(usize, String)> = Vec::with_capacity(script.steps.len());
    for step in script.steps {
        match step {
            Step::Define { name, value } => defined.push((name, value)),
            Step::Run { line, command } => {
                let expanded = substitutions
                    .expand(&command, &defined)
                    .map_err(|err| report::at(name, (line, err)))?;
                commands.push((line, expanded));
            }
        }
    }
    let mut steps = Vec::with_capacity(commands.len());
    let mut golden_line = None;
    for (line, command) in &commands {
        let site = Site {
            test: name,
            line: *line,
            command,
            cwd,
            bin_dir: ctx.bin_dir.as_deref(),
        };
        let pipeline = pipeline::parse(command).map_err(|err| site.error(&err))?;
        if matches!(pipeline.sink, Sink::Golden) {
            if let Some(first) = golden_line.replace(*line) {
                return Err(site.error(&format!(
                    "a second `| golden` RUN line (the first is line {first}); \
                     a file has one golden section, so at most one"
                )));
            }
        }
        steps.push((site, pipeline));
    }
    if let (Some(section), None) = (&section, golden_line) {
        return Err(report::at(
            name,
            (
                section.lines().start + 1,
                "golden section, but no RUN line ends in `| golden`".to_owned(),
            ),
        ));
    }

    let file = Loaded {
        ctx,
        path: &test.path,
        cwd,
        text: &text,
        section: section.as_ref(),
    };
    steps
        .iter()
        .try_for_each(|(site, pipeline)| file.execute(site, pipeline))
}

/// Whether `test` cannot run here: its `REQUIRES:` names a feature `ctx` lacks or its
/// `UNSUPPORTED:` one it has. A file that cannot be read or parsed is not: running it reports why.
pub fn unsupported(ctx: &Context, test: &TestFile) -> bool {
    let Ok(text) = std::fs::read_to_string(&test.path) else {
        return false;
    };
    let skip = golden::find(&text)
        .ok()
        .flatten()
        .map_or(0..0, |section| section.lines());
    run_lines::parse(&text, skip).is_ok_and(|script| {
        let has = |f: &String| ctx.features.contains(f);
        !script.requires.iter().all(has) || script.unsupported.iter().any(has)
    })
}

/// A test file as read before its commands run; blessing rewrites the file
/// from this text, never from a re-read.
struct Loaded<'a> {
    ctx: &'a Context,
    path: &'a Path,
    cwd: &'a Path,
    text: &'a str,
    section: Option<&'a Section>,
}

impl Loaded<'_> {
    fn execute(&self, site: &Site, pipeline: &Pipeline) -> Result<(), String> {
        let output = shell::run(self.ctx, self.cwd, pipeline.producer)
            .map_err(|err| site.error(&format!("cannot start bash: {err}")))?;
        let stage = match &pipeline.sink {
            Sink::Shell => "",
            Sink::FileCheck(_) => " (the part before `| FileCheck`)",
            Sink::Golden => " (the part before `| golden`)",
        };
        if !output.status.success() {
            return Err(site.failure(&format!("RUN command failed{stage}"), &output, None));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let checked = match &pipeline.sink {
            Sink::Shell => return Ok(()),
            Sink::FileCheck(args) => {
                let name = format!("<stdout of RUN line {}>", site.line);
                let mut stdout = Some(stdout.into_owned());
                let mut read = || Ok(stdout.take().unwrap_or_default());
                let input = filecheck::Input {
                    name: &name,
                    read: &mut read,
                };
                filecheck::check(args, self.cwd, input)
                    .map_err(|report| ("FileCheck failed", report))
            }
            Sink::Golden => {
                golden::check(self.path, self.text, self.section, &stdout, self.ctx.bless)
                    .map_err(|diff| ("output differs from the golden section", diff))
            }
        };
        checked.map_err(|(headline, detail)| site.failure(headline, &output, Some(&detail)))
    }
}
