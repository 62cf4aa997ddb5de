//! The verifier on generated workloads (property tests): every generated module replays without a
//! violation as generated (its σ is L0-exclusive) and under its trivial plan, and each mutation of
//! that plan — an offset past capacity, two live buffers on the same bytes, σ breaking an edge, an
//! L0 buffer kept live past the next one of its tier — is rejected with its category. Each case
//! is linear in the size of its module.

mod common;

use common::categories;
use lattice_lir::{Module, OpId, OpKind};
use lattice_passes::generate::{generate, trivial_plan, GenSpec, Shape};
use lattice_passes::verify::{replay, Category, ReplayOptions};
use proptest::prelude::*;

/// The ALLOC of every buffer, indexed by buffer.
fn allocs(m: &Module) -> Vec<Option<OpId>> {
    let mut allocs = vec![None; m.buffers.len()];
    for id in m.op_ids() {
        if let OpKind::Alloc { buffer, .. } = m.op(id).kind {
            allocs[buffer.index()] = Some(id);
        }
    }
    allocs
}

fn set_offset(m: &mut Module, alloc: OpId, to: u64) {
    if let OpKind::Alloc { offset, .. } = &mut m.op_mut(alloc).kind {
        *offset = Some(to);
    }
}

/// ALLOCs that start while another buffer of the same tier is live, with that buffer's ALLOC.
fn overlapping_lifetimes(m: &Module) -> Vec<(OpId, OpId)> {
    let mut live: Vec<Vec<(usize, OpId)>> = vec![Vec::new(); m.target.tiers.len()];
    let mut pairs = Vec::new();
    for &id in &m.schedule {
        match m.op(id).kind {
            OpKind::Alloc { buffer, .. } => {
                let b = m.buffer(buffer);
                let tier = &mut live[b.tier.index()];
                if b.size > 0 {
                    if let Some(&(_, other)) = tier.iter().find(|(o, _)| m.buffers[*o].size > 0) {
                        pairs.push((id, other));
                    }
                }
                tier.push((buffer.index(), id));
            }
            OpKind::Free { buffer } => {
                let tier = &mut live[m.buffer(buffer).tier.index()];
                tier.retain(|&(b, _)| b != buffer.index());
            }
            _ => {}
        }
    }
    pairs
}

fn pick<T: Copy>(items: &[T], at: usize) -> Option<T> {
    (!items.is_empty()).then(|| items[at % items.len()])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn generated_workloads_and_their_trivial_plans_verify_and_mutations_are_caught(
        shape in prop::sample::select(Shape::ALL.to_vec()),
        nodes in 3usize..2500,
        seed in any::<u64>(),
        at in any::<usize>(),
    ) {
        let module = generate(&GenSpec { shape, nodes, seed });
        let result = replay(&module, &ReplayOptions::default());
        prop_assert!(result.violations.is_empty(), "{}: {:?}", module.name, result.violations.first());
        prop_assert!(result.metrics.makespan_without_reuse);
        let planned = trivial_plan(&module).expect("the trivial plan fits a generated module");
        let result = replay(&planned, &ReplayOptions::default());
        prop_assert!(result.violations.is_empty(), "{}: {:?}", planned.name, result.violations.first());
        let m = &result.metrics;
        prop_assert!(m.makespan >= m.makespan_lower_bound);
        prop_assert_eq!(m.spill_count, 0);
        prop_assert!(m.l0_max_live.values().all(|&n| n <= 1));
        let ignore = replay(&planned, &ReplayOptions { ignore_reuse: true });
        prop_assert!(ignore.metrics.makespan <= m.makespan);

        let allocs = allocs(&planned);
        let sized: Vec<usize> = planned.buffer_ids()
            .filter(|&b| planned.buffer(b).size > 0)
            .map(|b| b.index())
            .collect();
        if let Some(b) = pick(&sized, at) {
            let mut bad = planned.clone();
            let buffer = bad.buffers[b].clone();
            let capacity = bad.target.tier(buffer.tier).capacity;
            let alloc = allocs[b].expect("every buffer has an ALLOC");
            set_offset(&mut bad, alloc, capacity - buffer.size + 1);
            prop_assert!(categories(&bad).contains(&Category::Capacity));
        }
        if let Some((alloc, other)) = pick(&overlapping_lifetimes(&planned), at) {
            let mut bad = planned.clone();
            let offset = match bad.op(other).kind {
                OpKind::Alloc { offset, .. } => offset.unwrap_or(0),
                _ => 0,
            };
            set_offset(&mut bad, alloc, offset);
            prop_assert!(categories(&bad).contains(&Category::Overlap));
        }
        let with_deps: Vec<usize> = (0..planned.schedule.len())
            .filter(|&i| !planned.op(planned.schedule[i]).deps.is_empty())
            .collect();
        if let Some(i) = pick(&with_deps, at) {
            let mut bad = planned.clone();
            let dep = bad.op(bad.schedule[i]).deps[0].op;
            let j = bad.schedule.iter().position(|&id| id == dep).expect("scheduled");
            bad.schedule.swap(i, j);
            prop_assert!(categories(&bad).contains(&Category::EdgeOrder));
        }
        // An L0 FREE followed by another ALLOC of its tier, moved to the end of σ.
        let l0_frees: Vec<usize> = (0..planned.schedule.len())
            .filter(|&i| match planned.op(planned.schedule[i]).kind {
                OpKind::Free { buffer } => {
                    let tier = planned.buffer(buffer).tier;
                    planned.target.tier(tier).staging
                        && planned.schedule[i..].iter().any(|&id| matches!(
                            planned.op(id).kind,
                            OpKind::Alloc { buffer: b, .. } if planned.buffer(b).tier == tier
                        ))
                }
                _ => false,
            })
            .collect();
        if let Some(i) = pick(&l0_frees, at) {
            let mut bad = planned.clone();
            let free = bad.schedule.remove(i);
            bad.schedule.push(free);
            prop_assert!(categories(&bad).contains(&Category::L0Exclusive));
        }
    }
}
