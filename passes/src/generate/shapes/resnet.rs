//! `resnet`: a deep residual convolution network as the real ones are tiled for the contest core
//! (Conv_Case0's structure, scaled): feature maps are grids of small L1 tiles, every CONV reads
//! its weights through the one L0B tier and its input tiles straight from L1, and each input
//! tile is read by several CONVs (the halo of its neighbours, times the output channel groups).
//!
//! A module is a stem, then layers, then a head. The stem copies the input map into L1. A layer
//! computes an output map of `c_out × w_out` tiles from the current map of `c_in × w_in`: per
//! output channel group it loads one weight tile per input group (COPY_IN to L1), and per output
//! tile and input group it MOVEs that weight to L0B and runs a CONV over the output tile, the L0B
//! tile and the input tiles under the output tile's window widened by one on each side (the
//! halo). Layers come in stages: a transition layer draws the stage's groups, width and tile
//! size, then 2–4 residual blocks of two layers each, whose second layer's last CONV per tile is
//! a CONV_ADD that also reads the block's input tile (the skip). A map is freed once its last
//! reader ran (a block's input after the block). The head is a classifier: every tile of the
//! last map is MOVEd to L0A, multiplied by a weight tile (through L0B) into one L0C accumulator,
//! which FIXPIPE writes to UB for a RELU and COPY_OUT; so the module uses all five tiers while
//! every task of the body uses L0B alone.
//!
//! Sizes, with `S` the span of L1: map tiles are S/64 to S/4096 (64 to 1 bytes on the contest
//! core) and change from stage to stage and block to block, weight tiles S/64 to S/256, so L1
//! holds a mix of sizes that fragments it. Maps are up to 4 groups × 16 tiles, cut where needed:
//! a transition's shape until the bound of [`crate::generate::space`] holds for every L1 request
//! of the transition (old map, new map, one layer's weights live) and of the blocks it opens (the
//! block's input, its output of the same size and the middle map at the smallest tile size), a
//! block's middle tile size until it holds at its own size; weights count at the largest size.
//! So every L1 request of σ is placed by the trivial plan. L0 and UB buffers are one per tier at
//! a time. Costs (ops emitted + buffers left live): stem `3n` for `n` tiles; layer
//! `3·c_out·c_in + 2·c_out·w_out + 4·c_out·w_out·c_in`; head `10n + 7`. A unit is the stem, one
//! layer, or the head (the last: a layer is emitted only when the head still fits after it).
//! O(cost) per unit.

use super::Unit;
use crate::generate::builder::Builder;
use crate::generate::ops::{Cube, Vector};
use crate::rng::Rng;
use lattice_lir::BufferId;

/// Most channel groups of a map.
const MAX_GROUPS: usize = 4;
/// Most tiles across a map.
const MAX_WIDTH: usize = 16;
/// The largest L1 tile is `S >> LARGEST_TILE`, the smallest `S >> (LARGEST_TILE + SIZES - 1)`.
const LARGEST_TILE: usize = 6;
/// How many tile sizes a map may have.
const SIZES: usize = 7;

/// Whether every request of `requests` bytes meets the bound of [`crate::generate::space`] in a
/// tier of span `span` while the buffers `live` (size, count) are live: `s + Σ max(p, s) ≤ span`.
fn within(span: u64, live: &[(u64, usize)], requests: &[u64]) -> bool {
    requests.iter().all(|&s| {
        let taken: u64 = live.iter().map(|&(p, n)| p.max(s) * n as u64).sum();
        s + taken <= span
    })
}

/// A feature map: tiles by channel group, then position.
#[derive(Clone, Debug)]
struct Map {
    tiles: Vec<Vec<BufferId>>,
}

impl Map {
    fn groups(&self) -> usize {
        self.tiles.len()
    }

    fn width(&self) -> usize {
        self.tiles.first().map_or(0, Vec::len)
    }

    fn len(&self) -> usize {
        self.groups() * self.width()
    }

    fn free(&self, b: &mut Builder) {
        for &t in self.tiles.iter().flatten() {
            b.free(t);
        }
    }
}

/// What a layer is within its stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Opens a stage of this many residual blocks; its input is freed after it.
    Transition(usize),
    /// A block's first half: its input is kept as the skip.
    First,
    /// A block's second half: adds the skip; its input and the skip are freed after it.
    Second,
}

/// One layer to emit: the output map's shape and tile sizes, and its place in the stage.
#[derive(Clone, Copy, Debug)]
struct Layer {
    groups: usize,
    width: usize,
    tile: u64,
    weight: u64,
    kind: Kind,
}

/// The network under construction.
pub(crate) struct Resnet {
    map: Option<Map>,
    /// The input of the current residual block, while its second half is pending.
    skip: Option<Map>,
    /// The layer drawn next (kept until emitted, so the draws never depend on the budget).
    next: Option<Layer>,
    /// Residual blocks left in the stage.
    blocks: usize,
    done: bool,
}

impl Resnet {
    /// A network on `b`'s target.
    pub(crate) fn new() -> Self {
        Resnet {
            map: None,
            skip: None,
            next: None,
            blocks: 0,
            done: false,
        }
    }

    /// Ops and live buffers the stem of `n` tiles adds.
    fn stem_cost(n: usize) -> usize {
        3 * n
    }

    /// Ops the head over a map of `n` tiles adds (it frees every live buffer: no net change).
    fn head_cost(n: usize) -> usize {
        10 * n + 7
    }

    /// Ops and live buffers a layer from a map of `c_in` groups adds (the frees after it change
    /// nothing: one op each, one live buffer fewer).
    fn layer_cost(c_in: usize, layer: &Layer) -> usize {
        let (c, w) = (layer.groups, layer.width);
        3 * c * c_in + 2 * c * w + 4 * c * w * c_in
    }

    /// A map tile size: S/64 to S/4096.
    fn draw_tile(b: &Builder, rng: &mut Rng) -> u64 {
        b.machine
            .l1
            .frac(rng.range(LARGEST_TILE, LARGEST_TILE + SIZES - 1))
    }

    /// The layer after `map`: a transition into a new stage, or one half of a residual block.
    /// Shapes and sizes are cut until every L1 request of the layer, and of the blocks a
    /// transition opens, meets the space bound with every map and weight that can then be live;
    /// a layer's weight tiles are never larger than its output tiles, so the requests of a layer
    /// are at most its tile size.
    fn draw_layer(&self, b: &Builder, rng: &mut Rng, map: &Map) -> Layer {
        let span = b.machine.l1.span;
        let smallest = b.machine.l1.frac(LARGEST_TILE + SIZES - 1);
        let weight_for = |tile: u64, rng: &mut Rng| (tile >> rng.range(0, 2)).max(smallest);
        let (groups, width) = (map.groups(), map.width());
        let (n, t_in) = (map.len(), b.size(map.tiles[0][0]));
        match &self.skip {
            // The second half gives the block's output the skip's tile size; the first half's
            // check covered it.
            Some(skip) => {
                let tile = b.size(skip.tiles[0][0]);
                Layer {
                    groups,
                    width,
                    tile,
                    weight: weight_for(tile, rng),
                    kind: Kind::Second,
                }
            }
            None if self.blocks > 0 => {
                // Live through the block: its input (kept as the skip), the middle map, the
                // output (the input's size) and one layer's weights (at most the larger tile).
                let mut tile = Self::draw_tile(b, rng);
                let fits = |tile: u64| {
                    let live = [(t_in, 2 * n), (tile, n), (tile.max(t_in), groups)];
                    within(span, &live, &[t_in, tile])
                };
                while tile > smallest && !fits(tile) {
                    tile /= 2;
                }
                Layer {
                    groups,
                    width,
                    tile,
                    weight: weight_for(tile, rng),
                    kind: Kind::First,
                }
            }
            None => {
                let blocks = rng.range(2, 4);
                let mut tile = Self::draw_tile(b, rng);
                let mut groups = rng.range(1, MAX_GROUPS);
                // This layer (old map, new map, its weights), then its stage's blocks (input,
                // output, a middle map of the smallest tiles, weights).
                let fits = |tile: u64, g: usize, w: usize| {
                    let m = g * w;
                    within(span, &[(t_in, n), (tile, m + map.groups())], &[tile])
                        && within(span, &[(tile, 2 * m + g), (smallest, m)], &[tile, smallest])
                };
                let mut width = MAX_WIDTH;
                while !fits(tile, groups, width) {
                    if width > 1 {
                        width -= 1;
                    } else if groups > 1 {
                        groups -= 1;
                    } else if tile > smallest {
                        // Even one tile of this size is too many beside the old map: the
                        // smallest size always fits (the check of the map's own layer did).
                        tile /= 2;
                    } else {
                        break;
                    }
                }
                // Most stages fill what fits; some are narrower.
                let width = rng.range(width.div_ceil(2), width);
                Layer {
                    groups,
                    width,
                    tile,
                    weight: weight_for(tile, rng),
                    kind: Kind::Transition(blocks),
                }
            }
        }
    }

    fn stem(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        let (mut groups, mut width) = (rng.range(1, MAX_GROUPS), rng.range(1, MAX_WIDTH));
        let tile = Self::draw_tile(b, rng);
        let cost = |n: usize| Self::stem_cost(n) + Self::head_cost(n);
        // The stem's map must leave room for the first transition at the smallest tile size.
        let smallest = b.machine.l1.frac(LARGEST_TILE + SIZES - 1);
        let span = b.machine.l1.span;
        let fits = |g: usize, w: usize| {
            within(span, &[(tile, g * w), (smallest, 3 + g)], &[tile, smallest])
        };
        while cost(groups * width) > budget || !fits(groups, width) {
            if width > 1 {
                width -= 1;
            } else if groups > 1 {
                groups -= 1;
            } else {
                return false;
            }
        }
        let l1 = b.machine.l1.id;
        let tiles = (0..groups)
            .map(|_| {
                (0..width)
                    .map(|_| {
                        let t = b.alloc(l1, tile);
                        b.copy_in(t);
                        t
                    })
                    .collect()
            })
            .collect();
        self.map = Some(Map { tiles });
        true
    }

    /// Emits `layer` over `input`; returns the output map.
    fn layer(&self, b: &mut Builder, input: &Map, layer: &Layer) -> Map {
        let m = b.machine;
        let (w_in, w_out) = (input.width(), layer.width);
        let l0b_size = m
            .l0b
            .frac(2 + usize::from(layer.weight < m.l1.frac(LARGEST_TILE)));
        let skip = self.skip.as_ref().filter(|_| layer.kind == Kind::Second);
        let mut out: Vec<Vec<BufferId>> = Vec::with_capacity(layer.groups);
        for co in 0..layer.groups {
            let weights: Vec<BufferId> = (0..input.groups())
                .map(|_| {
                    let w = b.alloc(m.l1.id, layer.weight);
                    b.copy_in(w);
                    w
                })
                .collect();
            let mut row = Vec::with_capacity(w_out);
            for j in 0..w_out {
                let tile = b.alloc(m.l1.id, layer.tile);
                row.push(tile);
                // The input tiles under output tile j, widened by one on each side (the halo).
                let lo = (j * w_in / w_out).saturating_sub(1);
                let hi = ((j + 1) * w_in).div_ceil(w_out).saturating_add(1).min(w_in);
                for (ci, &w) in weights.iter().enumerate() {
                    let l0b = b.alloc(m.l0b.id, l0b_size);
                    b.move_l0(l0b, w);
                    let mut reads: Vec<BufferId> = input.tiles[ci][lo..hi].to_vec();
                    let add = skip.filter(|_| ci + 1 == weights.len());
                    reads.extend(add.map(|s| s.tiles[co][j]));
                    b.conv_l1(tile, l0b, &reads, add.is_some());
                    b.free(l0b);
                }
            }
            for w in weights {
                b.free(w);
            }
            out.push(row);
        }
        Map { tiles: out }
    }

    fn head(&mut self, b: &mut Builder, rng: &mut Rng) {
        let m = b.machine;
        let Some(map) = self.map.take() else { return };
        let acc = b.alloc(m.l0c.id, m.l0c.frac(rng.range(1, 2)));
        let (l0a_size, l0b_size) = (m.l0a.frac(rng.range(1, 2)), m.l0b.frac(rng.range(2, 3)));
        // The map's own size: the checks of the layer that made it cover such a request.
        let weight = b.size(map.tiles[0][0]);
        for &t in map.tiles.iter().flatten() {
            let a = b.alloc(m.l0a.id, l0a_size);
            b.move_l0(a, t);
            let w = b.alloc(m.l1.id, weight);
            b.copy_in(w);
            let wb = b.alloc(m.l0b.id, l0b_size);
            b.move_l0(wb, w);
            b.free(w);
            b.cube(Cube::Matmul, acc, wb, a);
            b.free(a);
            b.free(wb);
        }
        let out = b.alloc(m.ub.id, m.ub.frac(rng.range(2, 3)));
        b.fixpipe(out, acc);
        b.free(acc);
        b.vector(Vector::Relu, out, &[]);
        b.copy_out(out);
        b.free(out);
        map.free(b);
        if let Some(skip) = self.skip.take() {
            skip.free(b);
        }
        self.done = true;
    }
}

impl Unit for Resnet {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        if self.done {
            return false;
        }
        let Some(map) = self.map.take() else {
            return self.stem(b, rng, budget);
        };
        let layer = match self.next {
            Some(layer) => layer,
            None => self.draw_layer(b, rng, &map),
        };
        let cost = Self::layer_cost(map.groups(), &layer);
        if cost + Self::head_cost(layer.groups * layer.width) > budget {
            // Every earlier unit left room for the head of the map it produced.
            self.map = Some(map);
            self.head(b, rng);
            return true;
        }
        self.next = None;
        let out = self.layer(b, &map, &layer);
        match layer.kind {
            Kind::Transition(blocks) => {
                map.free(b);
                self.blocks = blocks;
            }
            Kind::First => self.skip = Some(map),
            Kind::Second => {
                map.free(b);
                if let Some(skip) = self.skip.take() {
                    skip.free(b);
                }
                self.blocks -= 1;
            }
        }
        self.map = Some(out);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::{builder, check_contract};

    #[test]
    fn units_cost_what_they_say() {
        check_contract(
            |_| Resnet::new(),
            Resnet::stem_cost(1) + Resnet::head_cost(1),
        );
        for seed in 0..20 {
            let mut b = builder();
            let mut net = Resnet::new();
            let mut rng = Rng::new(seed);
            let mut budget = 3000;
            while budget > 0 {
                let before = b.len() + b.live();
                if !net.emit(&mut b, &mut rng, budget) {
                    break;
                }
                let grew = b.len() + b.live() - before;
                assert!(grew <= budget, "seed {seed}: grew by {grew} of {budget}");
                budget -= grew;
            }
            assert!(net.done && b.live() == 0, "seed {seed}: the head frees all");
        }
    }
}
