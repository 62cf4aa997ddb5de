//! One build per profile serves README's commands, the tour and the examples: no crate target is
//! compiled in two configurations by the documented cargo commands of one profile, so whichever
//! of them runs after another compiles only the targets it adds (docs/testing.md#one-build).
//!
//! Cargo's unit graph (`--unit-graph`) lists every compilation a command would run — package,
//! target, mode, features and the profile's settings — and compiles nothing. It is unstable, so it
//! is read here with `RUSTC_BOOTSTRAP=1` from the stable cargo that runs the test (`--offline
//! --locked`: the lock file's packages, which the build fetched). A unit's configuration covers
//! what feature resolution alone does not show: build scripts and proc-macros (built for the host,
//! whose features cargo resolves apart), and profile settings such as the debug info cargo gives a
//! build dependency only when the same command also builds it as a normal one — with that default,
//! `cargo test -p lattice-tools -p lattice-bench --test lit` after `cargo test --workspace` rebuilt
//! proc-macro2, quote, indexmap and what is built from them, which `cargo tree` did not show.
//! Units are keyed by their side (host or target) since within one command the two sides may
//! differ (a release build's build scripts are not optimised).
//!
//! A documented command whose units differ from the others' fails this test with the crate target
//! and the commands that disagree; third-party features are pinned in `hack/Cargo.toml`, profile
//! settings in the root `Cargo.toml`. Cost: one `cargo --unit-graph` per command, under a second
//! each.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A compilation's identity apart from its configuration: package, target, kinds, mode and
/// whether it is built for the host (a build script, a proc-macro, or something they use).
type Target = (String, String, String, String, bool);

/// A cargo command (its arguments, split at spaces) and the environment variables it runs with.
type Run<'a> = (&'a str, &'a [(&'a str, &'a str)]);

/// The documented debug-profile commands (`cargo run` as the `cargo build` it starts with).
const DEV: &[&str] = &[
    // README: the whole test suite.
    "test --workspace",
    // README and docs/lattice-opt.md: the examples.
    "build --example embed",
    "build --example custom_pass",
    // docs/testing.md: the lit suites and single test targets.
    "test -p lattice-tools -p lattice-bench --test lit",
    "test -p lattice-tools --test lit",
    "test -p lattice-bench --test lit",
    "test -p lattice-passes --test fuzz_smoke",
    "test -p lattice-tools --test pass_table",
];

/// The documented release commands (`cargo install --path P` as the release build of P's bins).
const RELEASE: &[&str] = &[
    // README: the main job, then the tools on PATH (built, or installed one crate at a time).
    "build --release -p lattice-tools --bin lattice-opt",
    "build --release -p lattice-tools -p lattice-bench -p lattice-lit",
    "build --release -p lattice-tools --bins",
    "build --release -p lattice-bench --bins",
    "build --release -p lattice-lit --bins",
    // docs/lattice-opt.md and docs/results.md.
    "build --release --example plan_case",
    "build --release -p lattice-bench",
];

/// Every unit cargo would compile for `command` (with `env` set), each with its configuration:
/// features, profile settings (not the profile's name: `test` and `dev` units with the same
/// settings are one) and platform.
fn units((command, env): Run) -> Vec<(Target, String)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate lives in the workspace");
    let out = Command::new(env!("CARGO"))
        .args(command.split(' '))
        .args([
            "--offline",
            "--locked",
            "--unit-graph",
            "-Z",
            "unstable-options",
        ])
        .env("RUSTC_BOOTSTRAP", "1")
        .envs(env.iter().copied())
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {command} --unit-graph: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let graph: Value = serde_json::from_slice(&out.stdout).expect("the unit graph is JSON");
    assert_eq!(graph["version"], 1, "a unit graph format this test knows");
    let units = graph["units"].as_array().expect("units");
    let kinds = |u: &Value| -> Vec<String> {
        u["target"]["kind"]
            .as_array()
            .expect("target kinds")
            .iter()
            .map(|k| k.as_str().expect("a kind").to_owned())
            .collect()
    };
    // Host side: from the roots (all target side) down; a proc-macro and everything under it, and
    // whatever a build script's compilation uses, are built for the host. A build script's run
    // (and compilation) belongs to the side of the crate it serves.
    let mut host = vec![false; units.len()];
    let mut visited = vec![[false; 2]; units.len()];
    let mut stack: Vec<(usize, bool)> = graph["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|r| (r.as_u64().expect("a root index") as usize, false))
        .collect();
    while let Some((i, for_host)) = stack.pop() {
        if std::mem::replace(&mut visited[i][usize::from(for_host)], true) {
            continue;
        }
        host[i] |= for_host;
        let unit = &units[i];
        let builds_script =
            kinds(unit).iter().any(|k| k == "custom-build") && unit["mode"] == "build";
        for dep in unit["dependencies"].as_array().expect("dependencies") {
            let d = dep["index"].as_u64().expect("a unit index") as usize;
            let proc_macro = kinds(&units[d]).iter().any(|k| k == "proc-macro");
            stack.push((d, for_host || proc_macro || builds_script));
        }
    }
    units
        .iter()
        .zip(host)
        .map(|(unit, for_host)| {
            let pkg = unit["pkg_id"].as_str().expect("pkg_id");
            let mut profile = unit["profile"].clone();
            profile.as_object_mut().expect("a profile").remove("name");
            let target = (
                pkg.rsplit('#').next().unwrap_or(pkg).to_owned(),
                unit["target"]["name"]
                    .as_str()
                    .expect("a target name")
                    .to_owned(),
                kinds(unit).join(","),
                unit["mode"].as_str().expect("a mode").to_owned(),
                for_host,
            );
            let config = format!(
                "features {} profile {profile} platform {}",
                unit["features"], unit["platform"]
            );
            (target, config)
        })
        .collect()
}

/// The crate targets that `commands` compile in more than one configuration, each with a
/// description of its configurations and the commands that asked for them.
fn built_twice(commands: &[Run]) -> Vec<(Target, String)> {
    let mut seen: BTreeMap<Target, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for &run in commands {
        for (target, config) in units(run) {
            let by = seen.entry(target).or_default().entry(config).or_default();
            by.push(format!("cargo {}", run.0));
        }
    }
    seen.into_iter()
        .filter(|(_, configs)| configs.len() > 1)
        .map(|(target, configs)| {
            let configs: Vec<_> = configs
                .into_iter()
                .map(|(config, by)| format!("    {config}\n      by {by:?}"))
                .collect();
            let description = format!("{target:?}:\n{}", configs.join("\n"));
            (target, description)
        })
        .collect()
}

fn assert_one_build(commands: &[&str]) {
    let commands: Vec<Run> = commands.iter().map(|c| (*c, &[][..])).collect();
    let twice: Vec<String> = built_twice(&commands).into_iter().map(|(_, d)| d).collect();
    assert!(
        twice.is_empty(),
        "these crate targets are compiled twice by the documented commands; pin third-party \
         features in hack/Cargo.toml, profile settings in Cargo.toml:\n{}",
        twice.join("\n")
    );
}

#[test]
fn the_debug_commands_share_one_build() {
    assert_one_build(DEV);
}

#[test]
fn the_release_commands_share_one_build() {
    assert_one_build(RELEASE);
}

/// The check sees both kinds of difference: a feature of lattice-tools (its binaries), and a
/// setting of the host side's profile (what proc-macros are built with) in one command only.
#[test]
fn a_second_configuration_is_reported() {
    let lit = "test -p lattice-tools --test lit";
    let svg = "test -p lattice-tools --test lit --features svg";
    let twice = built_twice(&[(lit, &[]), (svg, &[])]);
    assert!(
        twice
            .iter()
            .any(|(t, _)| t.0.starts_with("lattice-tools@") && t.1 == "lattice-opt" && !t.4),
        "{twice:#?}"
    );
    let optimised: &[(&str, &str)] = &[("CARGO_PROFILE_DEV_BUILD_OVERRIDE_OPT_LEVEL", "1")];
    let twice = built_twice(&[(lit, &[]), (lit, optimised)]);
    assert!(
        twice
            .iter()
            .any(|(t, _)| t.0.starts_with("proc-macro2@") && t.2 == "lib" && t.4),
        "{twice:#?}"
    );
}
