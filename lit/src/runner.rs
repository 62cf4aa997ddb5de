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
use crate::substitution::Substitutions;
use crate::{filecheck, run_lines, shell, Context};

pub fn run(ctx: &Context, test: &TestFile) -> Result<(), String> {
    let name = test.name.as_str();
    let text = std::fs::read_to_string(&test.path)
        .map_err(|err| report::at(name, (1, format!("cannot read the test file: {err}"))))?;
    let section = golden::find(&text).map_err(|err| report::at(name, err))?;
    let runs = run_lines::parse(&text, section.as_ref().map_or(0..0, Section::lines))
        .map_err(|err| report::at(name, err))?;
    if runs.is_empty() {
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

    let commands: Vec<(usize, String)> = runs
        .iter()
        .map(|run| (run.line, substitutions.expand(&run.command)))
        .collect();
    let mut steps = Vec::with_capacity(commands.len());
    let mut golden_line = None;
    for (line, command) in &commands {
        let site = Site {
            test: name,
            line: *line,
            command,
            cwd,
            bin_dir: &ctx.bin_dir,
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
            Sink::FileCheck(args) => filecheck::check(
                args,
                self.cwd,
                stdout.into_owned(),
                &format!("<stdout of RUN line {}>", site.line),
            )
            .map_err(|report| ("FileCheck failed", report)),
            Sink::Golden => {
                golden::check(self.path, self.text, self.section, &stdout, self.ctx.bless)
                    .map_err(|diff| ("output differs from the golden section", diff))
            }
        };
        checked.map_err(|(headline, detail)| site.failure(headline, &output, Some(&detail)))
    }
}
