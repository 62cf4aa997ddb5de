//! FileCheck run inside the harness (litcheck-filecheck), so the suite needs
//! no LLVM installation and behaves identically on every machine.
//!
//! Arguments are those of LLVM's FileCheck as litcheck understands them
//! (`--check-prefix`/`--check-prefixes`, `--implicit-check-not`, `-D`,
//! `--allow-empty`, `--match-full-lines`, ...) plus exactly one positional
//! argument, the check file (usually `%s`), resolved against the test's
//! directory. The input is the captured stdout of the producer.
//!
//! Invariants: each call gets a fresh source manager (no state shared
//! between parallel trials), and a failure is rendered without colour or
//! Unicode art, so it reads the same in a terminal and in a CI log, with the
//! check file's line and the relevant input shown.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Parser;
use litcheck_filecheck::litcheck::diagnostics::{
    DefaultSourceManager, FileName, Report, SourceLanguage, SourceManager, SourceManagerExt,
};
use litcheck_filecheck::litcheck::reporting::PrintDiagnostic;
use litcheck_filecheck::{Config, Options, Test};

/// The FileCheck command line: litcheck's [`Options`] plus the check file,
/// which `Options` leaves to the binary that embeds it.
#[derive(Parser)]
#[command(
    name = "FileCheck",
    no_binary_name = true,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    check_file: PathBuf,
    #[command(flatten)]
    options: Options,
}

/// Checks `input` (named `input_name` in reports) against the check file
/// named by `args`.
pub fn check(args: &[String], cwd: &Path, input: String, input_name: &str) -> Result<(), String> {
    let args = Args::try_parse_from(args)
        .map_err(|err| format!("invalid FileCheck arguments: {}", err.render()))?;
    let config = Config {
        source_manager: Arc::new(DefaultSourceManager::default()),
        options: args.options,
    };
    config.options.validate().map_err(render)?;
    let check_path = cwd.join(&args.check_file);
    let check_file = config
        .source_manager
        .load_file(&check_path)
        .map_err(|err| format!("cannot read check file {}: {err}", check_path.display()))?;
    let input_file = config.source_manager.load(
        SourceLanguage::Unknown,
        FileName::from(input_name.to_owned()),
        input,
    );
    Test::new(check_file, &config)
        .verify(input_file)
        .map(drop)
        .map_err(render)
}

fn render(report: Report) -> String {
    PrintDiagnostic::new_without_color(report).to_string()
}
