//! MPAS against `stable` on generated workloads of the structured shapes (matmul, attention,
//! conv; several sizes and seeds): MPAS's logical peak is never higher, and lower on a good share
//! of them, thanks to the pull rule — without it MPAS is above `stable` on most of these modules.
//! Random DAGs are left out on purpose: there −C(v) can run chains far ahead of the incoming
//! order, and MPAS is above `stable` on a few of them (`order/mpas.rs` gives the count).
//! Cost: three orders per module, O((V + E) log V) each.

use lattice_passes::analysis::{bottom_levels, pressure};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, order_by, MpasOptions, Policy};

#[test]
fn mpas_is_never_above_stable_on_structured_generated_workloads() {
    let unpulled = MpasOptions {
        pull: false,
        ..MpasOptions::default()
    };
    let (mut modules, mut below, mut unpulled_above) = (0, 0, 0);
    for shape in [Shape::Matmul, Shape::Attention, Shape::Conv] {
        for nodes in [40, 150, 400, 1500] {
            for seed in 0..8 {
                let m = generate(&GenSpec { shape, nodes, seed });
                let levels = bottom_levels(&m);
                let peak = |order: Vec<_>| pressure(&m, &order).logical_peak;
                let stable = peak(order_by(&m, Policy::Stable, &levels).unwrap());
                let mpas = peak(mpas_order(&m, &levels, &MpasOptions::default()).unwrap());
                let early = peak(mpas_order(&m, &levels, &unpulled).unwrap());
                assert!(mpas <= stable, "{}: mpas {mpas} > stable {stable}", m.name);
                modules += 1;
                below += usize::from(mpas < stable);
                unpulled_above += usize::from(early > stable);
            }
        }
    }
    assert!(
        4 * below >= modules,
        "mpas below stable on only {below} of {modules}"
    );
    assert!(
        2 * unpulled_above > modules,
        "without pull above stable on only {unpulled_above} of {modules}"
    );
}
