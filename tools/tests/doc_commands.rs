//! Every shell command of README.md and docs/*.md runs as written: the commands of each
//! ```sh/```bash/```console block are extracted (a trailing `\` joins lines, `$ ` prompts are
//! dropped, comment lines skipped) and run under bash with the freshly built `lattice-opt`,
//! `lattice-translate`, `lattice-reduce`, `lattice-bench` and `lattice-lit` first on `PATH`, from
//! a scratch checkout directory that has the repo's `examples/` and `test/` and `../shared` beside
//! it, as a reader's would. `lattice-bench` and `lattice-lit` are other crates' binaries: cargo
//! builds them beside this crate's in `cargo test --workspace` (their crates' tests need them);
//! run alone, this test says how to build them rather than skipping their commands.
//!
//! Placeholders the manual uses for "your file" are provided: `in.lir` (the shipped example
//! module) and `case.json` (a shipped contest case). The commands of one page run in order in one
//! directory, so a later command reads what an earlier one wrote (`target/tour/mm0.lir`, then its
//! export).
//!
//! Invariants: a command is either run and must exit 0, or matched by [`NOT_RUN`] with the
//! reason it is not — for a long run, a smaller variant documented on the same page, which runs
//! instead; a new kind of command fails this test until it is one or the other. README's
//! commands (the tour, run in the reader's checkout) write nothing outside `target/`, and no page
//! names one of the project's issues (a reader has no tracker to look them up in). The test never
//! writes inside the checkout except below `target/` (where `lattice-lit`, run on the linked
//! `test/`, keeps its temp paths).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Commands not run here, by prefix or by a word they contain, and why.
const NOT_RUN: &[(Match, &str)] = &[
    (
        Match::Prefix("cargo "),
        "a cargo command: CI runs `cargo test --workspace` itself; the others build, install or \
         run the binaries this test runs (nested cargo would contend for the build lock)",
    ),
    (
        Match::Prefix("sudo apt-get"),
        "installs system packages for the MLIR bridge (.ci/run does)",
    ),
    (
        Match::Long {
            full: "lattice-bench search --cases ../shared/cases --objective traffic",
            smaller: "lattice-bench search --cases ../shared/cases --objective traffic --options \"budget=100\"",
        },
        "the whole search on every case takes minutes in a debug build; the same command with a \
         budget of 100 steps, documented beside it, runs instead",
    ),
    (
        Match::Prefix("cd fuzz"),
        "the fuzzers' set-up runs inside fuzz/, a nightly cargo-fuzz workspace of its own",
    ),
    (
        Match::Contains("corpus/"),
        "seeds the fuzzers' corpora inside fuzz/ (see `cd fuzz`)",
    ),
    (
        Match::Contains("--export-svg"),
        "needs the `svg` feature, which this crate's default build leaves out \
         (tools/tests/export_svg.rs runs it on every shipped case)",
    ),
    (
        Match::Prefix("cmake "),
        "builds the C++ MLIR library or npu-opt, which need MLIR 22 and CMake installed \
         (.ci/run's C++ section runs docs/mlir-cxx.md's commands)",
    ),
    (
        Match::Prefix("ctest "),
        "runs the C++ library's test, built by the `cmake` commands (.ci/run runs it)",
    ),
    (
        Match::Contains("mlir"),
        "needs the `mlir` feature (tools/tests/mlir_cli.rs runs the bridge's commands)",
    ),
];

/// How a [`NOT_RUN`] entry picks commands.
enum Match {
    Prefix(&'static str),
    Contains(&'static str),
    /// A long run, and the smaller variant of it the same page documents (run as any command).
    Long {
        full: &'static str,
        smaller: &'static str,
    },
}

impl Match {
    fn matches(&self, command: &str) -> bool {
        match self {
            Match::Prefix(p) => command.starts_with(p),
            Match::Contains(word) => command.contains(word),
            Match::Long { full, .. } => command == *full,
        }
    }
}

/// The pages whose shell blocks are checked.
fn pages(workspace: &Path) -> Vec<PathBuf> {
    let mut pages = vec![workspace.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(workspace.join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The commands of a page's shell blocks, in order.
fn commands(markdown: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        let fence = line.trim_start();
        if let Some(info) = fence.strip_prefix("```") {
            in_block = !in_block && matches!(info.trim(), "sh" | "bash" | "console" | "shell");
            continue;
        }
        if !in_block {
            continue;
        }
        let line = line.trim();
        let line = line.strip_prefix("$ ").unwrap_or(line);
        if pending.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(line);
                commands.push(std::mem::take(&mut pending));
            }
        }
    }
    commands
}

/// A scratch checkout: `examples/` and the placeholders inside, `../shared` beside it.
fn scratch(workspace: &Path, page: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("doc-commands")
        .join(page.replace('/', "_"));
    let _ = std::fs::remove_dir_all(&root);
    let checkout = root.join("checkout");
    std::fs::create_dir_all(&checkout).expect("creates the scratch checkout");
    let shared = workspace
        .parent()
        .expect("the workspace has a parent")
        .join("shared");
    std::os::unix::fs::symlink(&shared, root.join("shared")).expect("links ../shared");
    for dir in ["examples", "test"] {
        std::os::unix::fs::symlink(workspace.join(dir), checkout.join(dir))
            .unwrap_or_else(|e| panic!("links {dir}/: {e}"));
    }
    std::fs::copy(
        workspace.join("examples/matmul_tile.lir"),
        checkout.join("in.lir"),
    )
    .expect("provides in.lir");
    std::fs::copy(
        shared.join("cases/Matmul_Case0.json"),
        checkout.join("case.json"),
    )
    .expect("provides case.json");
    checkout
}

/// The names in `dir`.
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("the scratch checkout is readable")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// Whether `words` (a page's, lower case, in order) name one of the project's issues: `issue 20`,
/// `issue #20`, `the issue` / `this issue` (but not `the issue order` of a pipe). A reader has no
/// tracker to look them up in, and such text goes stale when the issue closes.
fn names_an_issue(words: &[&str]) -> bool {
    words.windows(3).any(|w| {
        let numbered = w[0] == "issue" && w[1].trim_start_matches('#').parse::<u32>().is_ok();
        let definite = matches!(w[0], "the" | "this" | "that")
            && w[1] == "issue"
            && !matches!(w[2], "order" | "slot" | "slots" | "width");
        numbered || definite
    })
}

#[test]
fn every_shell_command_of_the_readme_and_docs_runs_or_says_why_not() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate lives in the workspace");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_lattice-opt"))
        .parent()
        .expect("a binary has a directory");
    for (tool, package) in [
        ("lattice-bench", "lattice-bench"),
        ("lattice-lit", "lattice-lit"),
    ] {
        assert!(
            bin_dir.join(tool).is_file(),
            "{tool} is not built beside lattice-opt in {}: run this test with \
             `cargo test --workspace`, or build it first (`cargo build -p {package}`)",
            bin_dir.display()
        );
    }
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a valid PATH");
    let (mut ran, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for page in pages(workspace) {
        let name = page
            .strip_prefix(workspace)
            .expect("pages lie in the workspace")
            .display()
            .to_string();
        let markdown = std::fs::read_to_string(&page).expect("the page is readable");
        let commands = commands(&markdown);
        if commands.is_empty() {
            continue;
        }
        let dir = scratch(workspace, &name);
        let before = entries(&dir);
        for command in &commands {
            if let Some((rule, _)) = NOT_RUN.iter().find(|(rule, _)| rule.matches(command)) {
                if let Match::Long { smaller, .. } = rule {
                    assert!(
                        commands.iter().any(|c| c == smaller),
                        "{name}: `{command}` is left out for its smaller variant `{smaller}`, \
                         which the page does not document"
                    );
                }
                skipped += 1;
                continue;
            }
            let out = Command::new("bash")
                .args(["-c", &format!("set -o pipefail; {command}")])
                .current_dir(&dir)
                .env("PATH", &path)
                .output()
                .expect("bash runs");
            ran += 1;
            if !out.status.success() {
                failures.push(format!(
                    "{name}: `{command}` exited {:?}:\n{}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        // The README's commands run in the reader's checkout: what they write goes below
        // `target/`, which git ignores (the manual's pages write beside their `in.lir`).
        if name == "README.md" {
            let left: Vec<String> = entries(&dir)
                .difference(&before)
                .filter(|entry| entry.as_str() != "target")
                .cloned()
                .collect();
            if !left.is_empty() {
                failures.push(format!(
                    "{name}: its commands left {left:?} in the checkout; write below target/"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The README's tour alone has five commands that run; the docs add more.
    assert!(ran >= 10, "only {ran} commands ran ({skipped} not run)");
}

#[test]
fn blocks_are_split_into_commands_as_a_shell_reads_them() {
    let page = "text\n```sh\n# a comment\nlattice-opt a \\\n  --b\n$ lattice-opt c  # why\n```\n\
                ```\nnot shell\n```\n```console\nlattice-translate d\n```\n";
    assert_eq!(
        commands(page),
        [
            "lattice-opt a  --b",
            "lattice-opt c  # why",
            "lattice-translate d"
        ]
    );
}

#[test]
fn each_reason_not_to_run_a_command_matches_one_of_the_docs() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate lives in the workspace");
    let all: Vec<String> = pages(workspace)
        .iter()
        .flat_map(|page| commands(&std::fs::read_to_string(page).expect("readable")))
        .collect();
    for (rule, reason) in NOT_RUN {
        assert!(
            all.iter().any(|command| rule.matches(command)),
            "no command is left out for: {reason}"
        );
    }
}

#[test]
fn no_page_names_the_projects_issues() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate lives in the workspace");
    let naming: Vec<String> = pages(workspace)
        .into_iter()
        .filter(|page| {
            let text = std::fs::read_to_string(page)
                .expect("readable")
                .to_lowercase();
            let words: Vec<&str> = text
                .split(|c: char| !(c.is_alphanumeric() || c == '#'))
                .filter(|w| !w.is_empty())
                .collect();
            names_an_issue(&words)
        })
        .map(|page| page.display().to_string())
        .collect();
    assert!(naming.is_empty(), "these pages name an issue: {naming:?}");
    assert!(names_an_issue(&["as", "issue", "20", "asks"]));
    assert!(names_an_issue(&["for", "the", "issue", "that"]));
    assert!(!names_an_issue(&["changes", "the", "issue", "order", "of"]));
    assert!(!names_an_issue(&["the", "single", "issue", "pipes", "x"]));
}
