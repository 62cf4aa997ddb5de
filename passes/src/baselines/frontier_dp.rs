//! E2, the frontier DP (baselines.md §1.5; Serenity-style, as HMCOS `scheduleGroupDp` and MAGIS
//! `DpSchedule` [SRC]): schedules the *units* of a subproblem (single commands, HMCOS sequences or
//! groups) in the order of smallest peak, one unit per step.
//!
//! A state is the set of units already run; its key is its zero-indegree frontier, which
//! determines that set, so the live vector is a function of the key ([`super::model`]) and
//! keeping the best state per key is exact. Each state holds its run set and frontier as bitsets,
//! its live and peak vectors and a parent pointer (no copied sequences). A step expands every state
//! by every frontier unit through a [`Runner`] (which runs the unit's commands and may reject them
//! under the budget); on a key collision the lower `(cost(peak), cost(live))` wins, the
//! earlier-generated state on a tie. When more than `max_states` states survive, the beam keeps
//! the best by `(cost(peak), cost(live), generation order)`, generation order being (parent's
//! rank, unit index) — a deterministic stand-in for the source's key order [ADAPT]. Exact (the
//! minimum peak over all orders of the units) whenever the beam is never hit.
//!
//! Keys are compared through 128-bit Zobrist hashes of the run set from a fixed seed: a collision
//! could only drop a state (each state is rebuilt from its own parent, so the result stays a
//! legal order), and at 2^-128 per pair it does not happen in practice. The hash map is only
//! looked up, never iterated, so results are deterministic.
//!
//! Complexity: O(m · K · F · r + m · K · (m/64 + d)) for m units, beam K, frontier width F, r the
//! cost of running one unit and d the successor count; memory O(m · K) for the parent trail.

use super::cost::Cost;
use super::model::{Budget, Done, Model, Profile};
use super::projection::NONE;
use std::collections::BTreeSet;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Precedence between the units of a subproblem (local unit indices).
#[derive(Clone, Debug, Default)]
pub(crate) struct UnitGraph {
    /// Units each unit waits for.
    pub(crate) preds: Vec<Vec<u32>>,
    /// Units that wait for each unit (ascending).
    pub(crate) succs: Vec<Vec<u32>>,
}

impl UnitGraph {
    /// A graph of `n` units with these edges.
    pub(crate) fn new(n: usize, edges: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut g = UnitGraph {
            preds: vec![Vec::new(); n],
            succs: vec![Vec::new(); n],
        };
        for (a, b) in edges {
            if a != b && !g.succs[a as usize].contains(&b) {
                g.succs[a as usize].push(b);
                g.preds[b as usize].push(a);
            }
        }
        for list in g.succs.iter_mut().chain(g.preds.iter_mut()) {
            list.sort_unstable();
        }
        g
    }

    /// Number of units.
    pub(crate) fn len(&self) -> usize {
        self.preds.len()
    }
}

/// Which commands ran in a DP state: the state's units for the commands of the subproblem
/// (`unit_of`), `outside` for every other command.
pub(crate) struct InState<'a, D> {
    /// Unit of every command of the subproblem, [`NONE`] elsewhere.
    pub(crate) unit_of: &'a [u32],
    /// The state's run set, one bit per unit.
    pub(crate) bits: &'a [u64],
    /// Commands outside the subproblem.
    pub(crate) outside: &'a D,
}

impl<D: Done> Done for InState<'_, D> {
    fn done(&self, u: u32) -> bool {
        match self.unit_of[u as usize] {
            NONE => self.outside.done(u),
            k => bit(self.bits, k),
        }
    }
}

/// Runs one unit of a state.
pub(crate) trait Runner {
    /// Runs unit `u` after the commands `done` reports, moving `live` and `peak`. Returns a tag
    /// naming the commands it ran (for [`Runner::commands`]), or `None` when `budget` rejects it.
    fn run<D: Done>(
        &mut self,
        u: u32,
        done: &D,
        live: &mut [u64],
        peak: &mut [u64],
        budget: Budget<'_>,
    ) -> Option<u32>;

    /// The commands unit `u` ran under `tag`, in order.
    fn commands(&self, u: u32, tag: u32) -> &[u32];

    /// The state-independent effect of unit `u`, if it has one; the DP then applies it instead
    /// of running the unit (tag 0), once per class and state.
    fn profile(&self, _u: u32) -> Option<&Profile> {
        None
    }
}

/// Units with a fixed list of commands each.
pub(crate) struct Fixed<'a> {
    /// The model the commands run in.
    pub(crate) model: &'a Model,
    /// The commands of each unit, in order.
    pub(crate) members: &'a [Vec<u32>],
}

impl Runner for Fixed<'_> {
    fn run<D: Done>(
        &mut self,
        u: u32,
        done: &D,
        live: &mut [u64],
        peak: &mut [u64],
        budget: Budget<'_>,
    ) -> Option<u32> {
        self.model
            .run(&self.members[u as usize], done, live, peak, budget)
            .then_some(0)
    }

    fn commands(&self, u: u32, _: u32) -> &[u32] {
        &self.members[u as usize]
    }
}

/// How hard the DP searches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DpOptions<'a> {
    /// Beam width K: states kept per step.
    pub(crate) max_states: usize,
    /// What no stable state may break.
    pub(crate) budget: Budget<'a>,
}

/// What one DP run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DpStats {
    /// States kept over all steps.
    pub(crate) states: u64,
    /// Unit runs tried over all steps.
    pub(crate) expansions: u64,
    /// Some step had more distinct states than the beam keeps (the result may not be optimal).
    pub(crate) beam_hit: bool,
}

/// The best order of the units.
#[derive(Clone, Debug)]
pub(crate) struct DpResult {
    /// (unit, tag) in run order.
    pub(crate) steps: Vec<(u32, u32)>,
    /// Live vector after the last unit.
    pub(crate) live: Vec<u64>,
    /// Peak vector over the run (starting from the entry peak).
    pub(crate) peak: Vec<u64>,
    /// Search counters.
    pub(crate) stats: DpStats,
}

struct Layer {
    words: usize,
    tiers: usize,
    bits: Vec<u64>,
    front: Vec<u64>,
    live: Vec<u64>,
    peak: Vec<u64>,
    hash: Vec<u128>,
}

impl Layer {
    fn new(words: usize, tiers: usize) -> Self {
        Layer {
            words,
            tiers,
            bits: Vec::new(),
            front: Vec::new(),
            live: Vec::new(),
            peak: Vec::new(),
            hash: Vec::new(),
        }
    }
    fn len(&self) -> usize {
        self.hash.len()
    }
    fn bits(&self, s: usize) -> &[u64] {
        &self.bits[s * self.words..(s + 1) * self.words]
    }
    fn front(&self, s: usize) -> &[u64] {
        &self.front[s * self.words..(s + 1) * self.words]
    }
    fn live(&self, s: usize) -> &[u64] {
        &self.live[s * self.tiers..(s + 1) * self.tiers]
    }
    fn peak(&self, s: usize) -> &[u64] {
        &self.peak[s * self.tiers..(s + 1) * self.tiers]
    }
}

struct Candidate {
    parent: u32,
    unit: u32,
    tag: u32,
    hash: u128,
    cost: (Cost, Cost),
}

/// Where a candidate ranks: lower is better.
type Rank = (Cost, Cost, u32, u32);

impl Candidate {
    fn rank(&self) -> Rank {
        (self.cost.0, self.cost.1, self.parent, self.unit)
    }
}

/// The best `keep` distinct keys seen in one step, each with its best candidate.
struct Beam {
    keep: usize,
    tiers: usize,
    candidates: Vec<Candidate>,
    /// live then peak of every candidate.
    vectors: Vec<u64>,
    kept: BTreeSet<(Rank, usize)>,
    by_key: HashMap<u128, usize, BuildHasherDefault<KeyHasher>>,
    hit: bool,
}

/// What [`Beam::offer`] did.
#[derive(PartialEq, Eq)]
enum Offer {
    Taken,
    /// Equal or worse than the kept candidate of the same key.
    Duplicate,
    /// Ranks after `keep` distinct better keys; so does every later candidate of the same rank.
    Full,
}

impl Beam {
    fn clear(&mut self) {
        self.candidates.clear();
        self.vectors.clear();
        self.kept.clear();
        self.by_key.clear();
    }

    /// The worst kept rank, once the beam is full.
    fn threshold(&self) -> Option<&Rank> {
        (self.kept.len() >= self.keep)
            .then(|| self.kept.last().map(|(r, _)| r))
            .flatten()
    }

    fn offer(&mut self, c: Candidate, live: &[u64], peak: &[u64]) -> Offer {
        let rank = c.rank();
        let t = self.tiers;
        if let Some(&i) = self.by_key.get(&c.hash) {
            let old = self.candidates[i].rank();
            if old <= rank {
                return Offer::Duplicate;
            }
            self.kept.remove(&(old, i));
            self.kept.insert((rank, i));
            self.candidates[i] = c;
            self.vectors[i * 2 * t..i * 2 * t + t].copy_from_slice(live);
            self.vectors[i * 2 * t + t..(i + 1) * 2 * t].copy_from_slice(peak);
            return Offer::Taken;
        }
        if self.threshold().is_some_and(|worst| rank >= *worst) {
            self.hit = true;
            return Offer::Full;
        }
        let i = self.candidates.len();
        self.by_key.insert(c.hash, i);
        self.candidates.push(c);
        self.vectors.extend_from_slice(live);
        self.vectors.extend_from_slice(peak);
        self.kept.insert((rank, i));
        if self.kept.len() > self.keep {
            if let Some((_, worst)) = self.kept.pop_last() {
                self.by_key.remove(&self.candidates[worst].hash);
            }
            self.hit = true;
        }
        Offer::Taken
    }
}

/// Orders the units of `graph` for the smallest peak, starting from `live0`/`peak0` with the
/// commands outside the subproblem as `outside` reports. `None` when every order breaks the
/// budget.
#[allow(clippy::too_many_arguments)]
pub(crate) fn frontier_dp<R: Runner, D: Done>(
    model: &Model,
    graph: &UnitGraph,
    unit_of: &[u32],
    outside: &D,
    live0: &[u64],
    peak0: &[u64],
    runner: &mut R,
    options: DpOptions<'_>,
) -> Option<DpResult> {
    let m = graph.len();
    let tiers = model.tiers();
    let words = m.div_ceil(64).max(1);
    let mut stats = DpStats::default();
    let mut layer = Layer::new(words, tiers);
    layer.bits.resize(words, 0);
    layer.front.resize(words, 0);
    for u in 0..m {
        if graph.preds[u].is_empty() {
            set(&mut layer.front, u as u32);
        }
    }
    layer.live.extend_from_slice(live0);
    layer.peak.extend_from_slice(peak0);
    layer.hash.push(0);
    let mut trail: Vec<Vec<(u32, u32, u32)>> = Vec::with_capacity(m);
    let mut beam = Beam {
        keep: options.max_states.max(1),
        tiers,
        candidates: Vec::new(),
        vectors: Vec::new(),
        kept: BTreeSet::new(),
        by_key: HashMap::default(),
        hit: false,
    };
    let (mut live, mut peak) = (vec![0u64; tiers], vec![0u64; tiers]);
    // Per class: the visit it was last evaluated in, whether it is closed for that visit, and its
    // outcome there. A visit is one state of one step (numbered from 1 over the whole run).
    let mut visit = 0usize;
    let mut class_seen: Vec<usize> = Vec::new();
    let mut class_closed: Vec<bool> = Vec::new();
    let mut class_outcome: Vec<u64> = Vec::new();
    for _ in 0..m {
        beam.clear();
        for s in 0..layer.len() {
            let floor = model.scale.cost(layer.peak(s));
            if beam.threshold().is_some_and(|worst| floor > worst.0) {
                // States are in rank order, and no candidate has a lower peak than its parent.
                beam.hit = true;
                break;
            }
            visit += 1;
            let done = InState {
                unit_of,
                bits: layer.bits(s),
                outside,
            };
            for u in ones(layer.front(s)) {
                let tag = match runner.profile(u) {
                    Some(profile) => {
                        let c = profile.class as usize;
                        if c >= class_seen.len() {
                            class_seen.resize(c + 1, 0);
                            class_closed.resize(c + 1, false);
                            class_outcome.resize((c + 1) * 2 * tiers, 0);
                        }
                        if class_seen[c] != visit {
                            class_seen[c] = visit;
                            live.copy_from_slice(layer.live(s));
                            peak.copy_from_slice(layer.peak(s));
                            stats.expansions += 1;
                            let ok =
                                profile.apply(&model.scale, &mut live, &mut peak, options.budget);
                            class_closed[c] = !ok;
                            let out = &mut class_outcome[c * 2 * tiers..(c + 1) * 2 * tiers];
                            out[..tiers].copy_from_slice(&live);
                            out[tiers..].copy_from_slice(&peak);
                        }
                        if class_closed[c] {
                            continue;
                        }
                        let out = &class_outcome[c * 2 * tiers..(c + 1) * 2 * tiers];
                        live.copy_from_slice(&out[..tiers]);
                        peak.copy_from_slice(&out[tiers..]);
                        0
                    }
                    None => {
                        live.copy_from_slice(layer.live(s));
                        peak.copy_from_slice(layer.peak(s));
                        stats.expansions += 1;
                        match runner.run(u, &done, &mut live, &mut peak, options.budget) {
                            Some(tag) => tag,
                            None => continue,
                        }
                    }
                };
                let candidate = Candidate {
                    parent: s as u32,
                    unit: u,
                    tag,
                    hash: layer.hash[s] ^ zobrist(u),
                    cost: (model.scale.cost(&peak), model.scale.cost(&live)),
                };
                if beam.offer(candidate, &live, &peak) == Offer::Full {
                    if let Some(profile) = runner.profile(u) {
                        // Later units of the class rank after this one: same cost, larger index.
                        class_closed[profile.class as usize] = true;
                    }
                }
            }
        }
        if beam.kept.is_empty() {
            return None;
        }
        let mut next = Layer::new(words, tiers);
        let mut step = Vec::with_capacity(beam.kept.len());
        for &(_, i) in &beam.kept {
            let c = &beam.candidates[i];
            let s = c.parent as usize;
            let start = next.bits.len();
            next.bits.extend_from_slice(layer.bits(s));
            next.front.extend_from_slice(layer.front(s));
            let bits = &mut next.bits[start..];
            set(bits, c.unit);
            let front = &mut next.front[start..];
            clear(front, c.unit);
            for &w in &graph.succs[c.unit as usize] {
                if graph.preds[w as usize].iter().all(|&p| bit(bits, p)) {
                    set(front, w);
                }
            }
            let v = &beam.vectors[i * 2 * tiers..(i + 1) * 2 * tiers];
            next.live.extend_from_slice(&v[..tiers]);
            next.peak.extend_from_slice(&v[tiers..]);
            next.hash.push(c.hash);
            step.push((c.parent, c.unit, c.tag));
        }
        stats.states += next.len() as u64;
        trail.push(step);
        layer = next;
    }
    stats.beam_hit = beam.hit;
    // Every complete state has the same key, so exactly one is left.
    let mut steps = Vec::with_capacity(m);
    let mut s = 0usize;
    for step in trail.iter().rev() {
        let (parent, unit, tag) = step[s];
        steps.push((unit, tag));
        s = parent as usize;
    }
    steps.reverse();
    Some(DpResult {
        steps,
        live: layer.live(0).to_vec(),
        peak: layer.peak(0).to_vec(),
        stats,
    })
}

/// Hashes a Zobrist key by its low 64 bits: they are already uniformly mixed.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    }
    fn write_u128(&mut self, key: u128) {
        self.0 ^= key as u64;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The Zobrist code of unit `u` (two rounds of splitmix64 from fixed seeds).
fn zobrist(u: u32) -> u128 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let low = mix(u64::from(u) ^ 0x6C61_7474_6963_6521);
    let high = mix(u64::from(u).wrapping_add(0x0123_4567_89AB_CDEF) ^ low);
    (u128::from(high) << 64) | u128::from(low)
}

/// Whether bit `k` is set.
pub(crate) fn bit(bits: &[u64], k: u32) -> bool {
    bits[(k / 64) as usize] >> (k % 64) & 1 == 1
}

/// Sets bit `k`.
pub(crate) fn set(bits: &mut [u64], k: u32) {
    bits[(k / 64) as usize] |= 1 << (k % 64);
}

fn clear(bits: &mut [u64], k: u32) {
    bits[(k / 64) as usize] &= !(1 << (k % 64));
}

/// The set bits, ascending.
fn ones(bits: &[u64]) -> impl Iterator<Item = u32> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let k = rest.trailing_zeros();
                rest &= rest - 1;
                w as u32 * 64 + k
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baselines::fixtures::random_module;
    use crate::baselines::model::DoneBits;
    use crate::baselines::projection::Projection;

    /// Every topological order of the op graph (the callback sees each one). Exponential.
    fn all_orders(proj: &Projection<'_>, visit: &mut impl FnMut(&[u32])) {
        let n = proj.len();
        let mut missing: Vec<usize> = (0..n as u32).map(|u| proj.preds(u).len()).collect();
        let mut order = Vec::with_capacity(n);
        fn go(
            proj: &Projection<'_>,
            missing: &mut Vec<usize>,
            order: &mut Vec<u32>,
            visit: &mut impl FnMut(&[u32]),
        ) {
            if order.len() == proj.len() {
                visit(order);
                return;
            }
            for u in 0..proj.len() as u32 {
                if missing[u as usize] != 0 || order.contains(&u) {
                    continue;
                }
                order.push(u);
                for &w in proj.succs(u) {
                    missing[w as usize] -= 1;
                }
                go(proj, missing, order, visit);
                for &w in proj.succs(u) {
                    missing[w as usize] += 1;
                }
                order.pop();
            }
        }
        go(proj, &mut missing, &mut order, visit);
    }

    /// The DP over single commands of the whole op graph.
    fn dp(
        proj: &Projection<'_>,
        max_states: usize,
        budget: Budget<'_>,
    ) -> Option<(Vec<u32>, DpResult)> {
        let n = proj.len();
        let members: Vec<Vec<u32>> = (0..n as u32).map(|u| vec![u]).collect();
        let graph = UnitGraph::new(
            n,
            (0..n as u32).flat_map(|u| proj.succs(u).iter().map(move |&v| (u, v))),
        );
        let unit_of: Vec<u32> = (0..n as u32).collect();
        let zero = vec![0u64; proj.model.tiers()];
        let none = vec![0u64; n.div_ceil(64)];
        let result = frontier_dp(
            &proj.model,
            &graph,
            &unit_of,
            &DoneBits(&none),
            &zero,
            &zero,
            &mut Fixed {
                model: &proj.model,
                members: &members,
            },
            DpOptions { max_states, budget },
        )?;
        let order = result.steps.iter().map(|&(u, _)| u).collect();
        Some((order, result))
    }

    /// The smallest cost(peak) over every topological order.
    fn brute_force(proj: &Projection<'_>) -> Cost {
        let mut best: Option<Cost> = None;
        all_orders(proj, &mut |order| {
            let c = proj.model.scale.cost(&proj.model.peak_of(order));
            if best.is_none_or(|b| c < b) {
                best = Some(c);
            }
        });
        best.expect("a DAG has an order")
    }

    #[test]
    fn exact_when_the_beam_is_not_hit() {
        let mut strictly_better_than_input = 0;
        for seed in 0..40 {
            let module = random_module(seed, 7, 160, seed % 2 == 0);
            let proj = Projection::build(&module).unwrap();
            let (order, result) = dp(&proj, 1 << 12, Budget::Unbounded).unwrap();
            assert!(!result.stats.beam_hit, "seed {seed}");
            assert!(proj.is_topological(&order), "seed {seed}");
            assert_eq!(proj.model.peak_of(&order), result.peak, "seed {seed}");
            let optimum = brute_force(&proj);
            assert_eq!(proj.model.scale.cost(&result.peak), optimum, "seed {seed}");
            let input: Vec<u32> = (0..proj.len() as u32).collect();
            if proj.model.scale.cost(&proj.model.peak_of(&input)) > optimum {
                strictly_better_than_input += 1;
            }
        }
        // The fixtures leave room to improve on their own order, so the test has teeth.
        assert!(
            strictly_better_than_input >= 5,
            "{strictly_better_than_input}"
        );
    }

    #[test]
    fn a_narrow_beam_is_reported_and_still_gives_a_legal_order() {
        let module = random_module(7, 9, 160, true);
        let proj = Projection::build(&module).unwrap();
        let (order, result) = dp(&proj, 1, Budget::Unbounded).unwrap();
        assert!(result.stats.beam_hit);
        assert!(proj.is_topological(&order));
        assert_eq!(result.stats.states, proj.len() as u64);
    }

    #[test]
    fn the_budget_admits_the_optimum_and_nothing_below_it() {
        let module = random_module(3, 7, 160, true);
        let proj = Projection::build(&module).unwrap();
        let optimum = brute_force(&proj);
        let (_, at) = dp(&proj, 1 << 12, Budget::Cost(optimum)).unwrap();
        assert_eq!(proj.model.scale.cost(&at.peak), optimum);
        let [over, max, sum] = optimum.0;
        let below = Cost([over, max, sum - 1e-9]);
        assert!(dp(&proj, 1 << 12, Budget::Cost(below)).is_none());
    }

    /// Single commands with their state-independent effects, when they have one.
    struct Profiled<'a> {
        fixed: Fixed<'a>,
        profiles: Vec<Option<Profile>>,
    }

    impl Runner for Profiled<'_> {
        fn run<D: Done>(
            &mut self,
            u: u32,
            done: &D,
            live: &mut [u64],
            peak: &mut [u64],
            budget: Budget<'_>,
        ) -> Option<u32> {
            self.fixed.run(u, done, live, peak, budget)
        }
        fn commands(&self, u: u32, tag: u32) -> &[u32] {
            self.fixed.commands(u, tag)
        }
        fn profile(&self, u: u32) -> Option<&Profile> {
            self.profiles[u as usize].as_ref()
        }
    }

    #[test]
    fn applying_profiles_changes_nothing_whatever_the_beam() {
        let mut profiled_units = 0;
        for seed in 0..25 {
            let module = random_module(100 + seed, 10, 160, seed % 2 == 1);
            let proj = Projection::build(&module).unwrap();
            let n = proj.len();
            let members: Vec<Vec<u32>> = (0..n as u32).map(|u| vec![u]).collect();
            let mut classes: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
            let profiles: Vec<Option<Profile>> = (0..n as u32)
                .map(|u| {
                    let (rise, net) = proj.model.effect(
                        &[u],
                        |w| proj.preds(u).contains(&w),
                        |w| proj.succs(u).contains(&w),
                    )?;
                    let key = (rise.clone(), net.clone());
                    let class = match classes.iter().position(|c| *c == key) {
                        Some(c) => c,
                        None => {
                            classes.push(key);
                            classes.len() - 1
                        }
                    } as u32;
                    Some(Profile { class, rise, net })
                })
                .collect();
            profiled_units += profiles.iter().flatten().count();
            let graph = UnitGraph::new(
                n,
                (0..n as u32).flat_map(|u| proj.succs(u).iter().map(move |&v| (u, v))),
            );
            let unit_of: Vec<u32> = (0..n as u32).collect();
            let zero = vec![0u64; proj.model.tiers()];
            let none = vec![0u64; n.div_ceil(64)];
            for keep in [1, 2, 3, 1 << 12] {
                let options = DpOptions {
                    max_states: keep,
                    budget: Budget::Unbounded,
                };
                let mut plain = Fixed {
                    model: &proj.model,
                    members: &members,
                };
                let a = frontier_dp(
                    &proj.model,
                    &graph,
                    &unit_of,
                    &DoneBits(&none),
                    &zero,
                    &zero,
                    &mut plain,
                    options,
                )
                .unwrap();
                let mut with = Profiled {
                    fixed: Fixed {
                        model: &proj.model,
                        members: &members,
                    },
                    profiles: profiles.clone(),
                };
                let b = frontier_dp(
                    &proj.model,
                    &graph,
                    &unit_of,
                    &DoneBits(&none),
                    &zero,
                    &zero,
                    &mut with,
                    options,
                )
                .unwrap();
                assert_eq!(a.steps, b.steps, "seed {seed} keep {keep}");
                assert_eq!(a.peak, b.peak, "seed {seed} keep {keep}");
                assert_eq!(a.live, b.live, "seed {seed} keep {keep}");
            }
        }
        assert!(profiled_units > 50, "{profiled_units}");
    }
}
