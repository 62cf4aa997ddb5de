//! The default pipeline's outputs do not change by accident: `mpas,dlr,cpe` through the pass
//! manager, printed as LIR, on every shipped case and on generated workloads of every shape,
//! hashed (FNV-1a, 64 bits) and compared with the digests recorded in `stable_outputs.txt`.
//! Speed work (issue 17) must leave every output byte-identical; a change that means to alter a
//! plan re-records the digests with `LATTICE_TEST_BLESS=1` and says why in its commit. A case
//! missing from the file is a failure, as is a recorded one that no longer runs.

mod common;

use common::cases;
use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::{print_module, Module};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::REGISTRY;
use std::collections::BTreeMap;
use std::path::Path;

/// The recorded digests, one `name digest` line each.
const RECORD: &str = "tests/stable_outputs.txt";

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The printed result of `mpas,dlr,cpe` on `module`.
fn pipeline_output(mut module: Module) -> String {
    let pipeline = parse_pipeline("mpas,dlr,cpe", &REGISTRY).expect("a valid pipeline");
    let manager = PassManager::new(REGISTRY, pipeline);
    let mut reports = Vec::new();
    let mut session = Session::new(&mut reports);
    let name = module.name.clone();
    manager
        .run(&mut module, &mut session)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    print_module(&module)
}

#[test]
fn default_pipeline_outputs_match_the_recorded_digests() {
    let mut modules = cases();
    for shape in Shape::ALL {
        for seed in 1..=3 {
            modules.push(generate(&GenSpec {
                shape,
                nodes: 3_000,
                seed,
            }));
        }
    }
    let actual: BTreeMap<String, String> = modules
        .into_iter()
        .map(|m| {
            let name = m.name.clone();
            (
                name,
                format!("{:016x}", fnv1a(pipeline_output(m).as_bytes())),
            )
        })
        .collect();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORD);
    if std::env::var_os("LATTICE_TEST_BLESS").is_some() {
        let text: String = actual.iter().map(|(n, d)| format!("{n} {d}\n")).collect();
        std::fs::write(&path, text).expect("writes the record");
        return;
    }
    let text = std::fs::read_to_string(&path).expect("the record exists");
    let recorded: BTreeMap<String, String> = text
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect();
    let changed: Vec<String> = actual
        .iter()
        .filter(|(n, d)| recorded.get(*n) != Some(d))
        .map(|(n, d)| format!("{n}: {d}, recorded {:?}", recorded.get(n)))
        .chain(
            recorded
                .keys()
                .filter(|n| !actual.contains_key(*n))
                .map(|n| format!("{n}: recorded but not run")),
        )
        .collect();
    assert!(
        changed.is_empty(),
        "outputs changed:\n{}",
        changed.join("\n")
    );
}
