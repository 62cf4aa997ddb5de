//! FileCheck run inside the harness (litcheck-filecheck), so the suite needs
//! no LLVM installation and behaves identically on every machine.
//!
//! Arguments are those of LLVM's FileCheck as litcheck understands them
//! (`--check-prefix`/`--check-prefixes`, `--implicit-check-not`, `-D`,
//! `--allow-empty`, `--match-full-lines`, ...), plus `--input-file=FILE` and
//! exactly one positional argument, the check file (usually `%s`), both
//! resolved against the working directory. LLVM's single-dash spellings of the
//! long options (`-check-prefix=X`, `-input-file X`) are accepted too. The
//! input is the file `--input-file` names, else what the caller hands over:
//! the captured stdout of the producer when the harness runs FileCheck as the
//! last stage of a RUN pipeline, or standard input when a RUN line calls the
//! `FileCheck` command anywhere else (`FileCheck %s < %t`, `not FileCheck`),
//! which the harness provides by running its own executable in FileCheck mode
//! ([`command`]).
//!
//! Invariants: each call gets a fresh source manager (no state shared
//! between parallel trials), and a failure is rendered without colour or
//! Unicode art, so it reads the same in a terminal and in a CI log, with the
//! check file's line and the relevant input shown.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Parser;
use litcheck_filecheck::litcheck::diagnostics::{
    DefaultSourceManager, FileName, Report, SourceLanguage, SourceManager, SourceManagerExt,
};
use litcheck_filecheck::litcheck::reporting::PrintDiagnostic;
use litcheck_filecheck::{Config, Options, Test};

/// The first argument that makes the harness's executable act as FileCheck.
pub const MODE_FLAG: &str = "--lattice-lit-filecheck";

/// The FileCheck command line: litcheck's [`Options`] plus the check file
/// and the input file, which `Options` leaves to the binary that embeds it.
#[derive(Parser)]
#[command(
    name = "FileCheck",
    no_binary_name = true,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    check_file: PathBuf,
    /// The input to check, instead of standard input.
    #[arg(long)]
    input_file: Option<PathBuf>,
    #[command(flatten)]
    options: Options,
}

/// The input FileCheck reads when no `--input-file` is given: its name in
/// reports and a way to read it.
pub struct Input<'a> {
    pub name: &'a str,
    pub read: &'a mut dyn FnMut() -> std::io::Result<String>,
}

/// Checks the input against the check file named by `args`.
pub fn check(args: &[String], cwd: &Path, input: Input<'_>) -> Result<(), String> {
    let args = Args::try_parse_from(args.iter().map(|a| llvm_spelling(a)))
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
    let (name, text) = match &args.input_file {
        Some(file) => {
            let path = cwd.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("cannot read input file {}: {err}", path.display()))?;
            (file.display().to_string(), text)
        }
        None => {
            let text = (input.read)().map_err(|err| format!("cannot read the input: {err}"))?;
            (input.name.to_owned(), text)
        }
    };
    let input_file =
        config
            .source_manager
            .load(SourceLanguage::Unknown, FileName::from(name), text);
    Test::new(check_file, &config)
        .verify(input_file)
        .map(drop)
        .map_err(render)
}

/// LLVM's FileCheck takes its long options after one dash as well
/// (`-check-prefix=X`); clap wants two. `-D` (a variable) and `-v` stay short.
fn llvm_spelling(arg: &str) -> String {
    let single = arg.len() > 2 && arg.starts_with('-') && !arg.starts_with("--");
    let short = arg.starts_with("-D") || arg[1..].chars().all(|c| c == 'v');
    if single && !short {
        format!("-{arg}")
    } else {
        arg.to_owned()
    }
}

/// FileCheck as a command: checks standard input (or `--input-file`)
/// against the check file, from the current directory; the report goes to
/// stderr. Returns the exit status: 0 when the checks hold, 1 when they do
/// not, 2 for bad arguments, as LLVM's FileCheck.
pub fn command(args: &[String]) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut read = || {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    };
    let input = Input {
        name: "<stdin>",
        read: &mut read,
    };
    match check(args, &cwd, input) {
        Ok(()) => 0,
        Err(report) => {
            let bad_usage = report.starts_with("invalid FileCheck arguments");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), report.as_bytes());
            if bad_usage {
                2
            } else {
                1
            }
        }
    }
}

fn render(report: Report) -> String {
    PrintDiagnostic::new_without_color(report).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_single_dash_long_options_are_read_as_long_ones() {
        assert_eq!(llvm_spelling("-check-prefix=X"), "--check-prefix=X");
        assert_eq!(llvm_spelling("-input-file"), "--input-file");
        assert_eq!(llvm_spelling("--match-full-lines"), "--match-full-lines");
        assert_eq!(llvm_spelling("-DVAR=1"), "-DVAR=1");
        assert_eq!(llvm_spelling("-vv"), "-vv");
        assert_eq!(llvm_spelling("%s"), "%s");
        assert_eq!(llvm_spelling("-"), "-");
    }
}
