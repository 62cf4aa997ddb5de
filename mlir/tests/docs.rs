//! The bridge's set-up documentation agrees with what the repository itself uses (issue 20 item
//! 10): README.md and docs/mlir.md name `mlir-22-tools`, and every `[env]` line of
//! `.cargo/config.toml` (`MLIR_SYS_220_PREFIX`, `TABLEGEN_220_PREFIX`) appears verbatim in both, so
//! a downstream crate copying the snippet gets what builds here; docs/mlir.md installs exactly the
//! packages `.ci/run` installs, and docs/mlir-cxx.md those of `.ci/run`'s C++ section. Needs no LLVM: it reads text only, so it runs in the default build.

use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `KEY = "value"` lines of the `[env]` table of `.cargo/config.toml`.
fn env_lines() -> Vec<String> {
    let config = read(".cargo/config.toml");
    let lines: Vec<String> = config
        .lines()
        .skip_while(|l| l.trim() != "[env]")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("MLIR_SYS_220_PREFIX = "))
            && lines
                .iter()
                .any(|l| l.starts_with("TABLEGEN_220_PREFIX = ")),
        "{lines:?}"
    );
    lines
}

#[test]
fn readme_and_bridge_docs_name_the_tools_package_and_the_environment() {
    let env = env_lines();
    for doc in ["README.md", "docs/mlir.md"] {
        let text = read(doc);
        assert!(
            text.contains("mlir-22-tools"),
            "{doc} does not name mlir-22-tools"
        );
        assert!(text.contains("[env]"), "{doc} has no [env] snippet");
        for line in &env {
            assert!(
                text.lines().any(|l| l.trim() == line),
                "{doc} lacks `{line}`"
            );
        }
    }
}

/// The packages of the first `apt-get install` in `text` (a line, or a line continued by `\`).
fn installed_packages(text: &str) -> Vec<String> {
    let start = text.find("apt-get install").expect("an apt-get install");
    let mut command = String::new();
    for line in text[start..].lines() {
        command.push_str(line.trim_end_matches('\\'));
        command.push(' ');
        if !line.trim_end().ends_with('\\') {
            break;
        }
    }
    let mut packages: Vec<String> = command
        .split_whitespace()
        .skip_while(|w| *w != "install")
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .map(str::to_owned)
        .collect();
    packages.sort();
    packages
}

#[test]
fn the_documented_packages_are_the_ones_ci_installs() {
    let ci = read(".ci/run");
    let ci_install = &ci[ci.find("DEBIAN_FRONTEND").expect("the CI install")..];
    let documented = installed_packages(&read("docs/mlir.md"));
    assert!(
        documented.iter().any(|p| p == "libmlir-22-dev"),
        "{documented:?}"
    );
    assert_eq!(documented, installed_packages(ci_install));
}

#[test]
fn the_cxx_build_packages_are_the_ones_ci_installs() {
    // docs/mlir-cxx.md's second install line (after the MLIR packages) is .ci/run's C++ section's.
    let ci = read(".ci/run");
    let section = &ci[ci
        .find("# docs/mlir-cxx.md")
        .expect("the C++ section of .ci/run")..];
    let doc = read("docs/mlir-cxx.md");
    let second = &doc[doc.find("apt-get install").expect("an install") + 1..];
    let documented = installed_packages(second);
    assert!(documented.iter().any(|p| p == "cmake"), "{documented:?}");
    assert_eq!(documented, installed_packages(section));
}
