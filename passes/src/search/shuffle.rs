//! Structural shuffles: random topological orders whose draws name ops by their place in the
//! structure, not by their ids, so that two numberings of one DAG draw alike orders.
//!
//! Kahn's traversal of the precedence graph without L0 turns, where the ready ops are kept
//! sorted by (fingerprint, id) (`super::family::fingerprints`) and each step takes the one at a
//! uniformly drawn index of that list. In two numberings of one DAG the ready lists hold the
//! same fingerprints in the same places, so the same draws take corresponding ops, until a draw
//! falls on a fingerprint two ready ops share: the ids decide between them, and although the
//! refinement found them alike, the choice need not match the earlier ones (two heads: this
//! one's next op, or the other head's). So the orders drawn are the same up to the first such
//! tie, and after it drawn alike, not equal.
//!
//! Why: MPAS breaks its ties and takes its L0 turns in input order, and on some structures that
//! choice alone moves its peak by a factor of two (gen-resnet-n400-s3: 432–864 over forty
//! numberings of the one module). MPAS along a few shuffles (`crate::renumber::along`) samples
//! that spread alike for every numbering, where MPAS on the input's numbering takes whatever the
//! ids give (there: 460 on the module and each of four renumbered copies, against 484–672).
//!
//! Deterministic by seed. O(V · R + E) for V ops, E edges and at most R ops ready at once
//! (sorted insertion into the ready list).

use crate::order::graph::Graph;
use crate::renumber::drawn_topological;
use lattice_lir::OpId;

/// A structural random topological order of `graph` (built without L0 turns), `print` its ops'
/// fingerprints; the draws follow `seed`.
pub(crate) fn shuffled(graph: &Graph<'_>, print: &[u64], seed: u64) -> Vec<OpId> {
    drawn_topological(graph, seed, Some(print))
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::generate::{generate, GenSpec, Shape};
    use crate::renumber::{random_topological, renumber};
    use crate::search::family::fingerprints;

    /// The fingerprints `shuffled` draws in turn on `module`, up to (not including) the first
    /// draw whose fingerprint another ready op shares — where the ids decide.
    fn untied_prints(module: &lattice_lir::Module) -> Vec<u64> {
        let graph = Graph::build_with(module, false).expect("builds");
        let print = fingerprints(&graph);
        let order = shuffled(&graph, &print, 3);
        assert_eq!(order.len(), graph.len());
        let mut missing: Vec<usize> = (0..graph.len())
            .map(|v| graph.preds(OpId::new(v)).len())
            .collect();
        let mut ready: Vec<OpId> = (0..graph.len())
            .filter(|&v| missing[v] == 0)
            .map(OpId::new)
            .collect();
        let mut prints = Vec::new();
        for &v in &order {
            // A topological order: every op drawn is ready.
            let at = ready
                .iter()
                .position(|&r| r == v)
                .expect("drawn when ready");
            let p = print[v.index()];
            if ready.iter().filter(|r| print[r.index()] == p).count() > 1 {
                break;
            }
            prints.push(p);
            ready.swap_remove(at);
            for &s in graph.succs(v) {
                missing[s.index()] -= 1;
                if missing[s.index()] == 0 {
                    ready.push(s);
                }
            }
        }
        prints
    }

    #[test]
    fn two_numberings_draw_the_same_fingerprints_until_the_ids_decide() {
        let mut agreed = 0;
        for shape in Shape::ALL {
            let m = generate(&GenSpec {
                shape,
                nodes: 200,
                seed: 5,
            });
            let copy = renumber(&m, &random_topological(&m, 9).expect("orders")).expect("copy");
            let (a, b) = (untied_prints(&m), untied_prints(&copy));
            let k = a.len().min(b.len());
            assert_eq!(a[..k], b[..k], "{shape:?}");
            agreed += k;
        }
        assert!(agreed >= 100, "{agreed}");
    }
}
