use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::search::renumbered::renumberings;
use lattice_passes::search::{search, Budget, Objective, SearchOptions, Silent};
use std::num::NonZeroU64;

#[test]
#[ignore]
fn scratch_winners() {
    let shape = match std::env::var("SHAPE").as_deref() {
        Ok("matmul") => Shape::Matmul,
        Ok("random") => Shape::Random,
        Ok("heads-kv") => Shape::HeadsKv,
        Ok("heads-q") => Shape::HeadsQ,
        Ok("attention") => Shape::Attention,
        _ => Shape::Resnet,
    };
    let nodes: usize = std::env::var("NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let m = generate(&GenSpec { shape, nodes, seed });
    let copies = renumberings(&m, 4).unwrap();
    let back_end = SearchOptions::default().back_end.before_default_passes();
    for (i, c) in std::iter::once(&m).chain(&copies).enumerate() {
        let options = SearchOptions {
            objective: Objective::Makespan,
            budget: Budget::Steps(NonZeroU64::new(120).unwrap()),
            back_end: back_end.clone(),
            ..SearchOptions::default()
        };
        let f = search(c, &options, &Silent).unwrap();
        eprintln!(
            "copy {i}: makespan {} peak {} traffic {} winner {} members {}",
            f.measure.makespan, f.measure.peak, f.measure.traffic, f.winner, f.members
        );
    }
}
