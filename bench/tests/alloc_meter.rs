//! The counting allocator, installed as this test binary's global allocator: it counts nothing
//! before `start`; then it sees a large allocation in `current` and `peak`, gives the bytes back
//! on free, and `reset_peak` starts a new high-water mark at the current level. One test in the
//! binary, so no other thread allocates while it measures.

use lattice_bench::alloc_meter::{current, peak, reset_peak, start, Meter};

#[global_allocator]
static METER: Meter = Meter;

const MIB: usize = 1 << 20;

#[test]
fn the_meter_follows_allocations_and_peaks() {
    let unseen = vec![1u8; 4 * MIB];
    assert_eq!(
        (current(), peak()),
        (0, 0),
        "nothing is counted before `start`"
    );
    drop(unseen);
    start();
    reset_peak();
    let before = current();
    assert_eq!(peak(), before);

    let mut big: Vec<u8> = Vec::with_capacity(16 * MIB);
    big.resize(16 * MIB, 1);
    assert!(current() >= before + 16 * MIB);
    assert!(peak() >= before + 16 * MIB);

    // Growing by realloc counts the new size (and, while moving, both blocks).
    big.reserve_exact(32 * MIB);
    assert!(current() >= before + 48 * MIB);
    let high = peak();
    assert!(high >= before + 48 * MIB);

    drop(big);
    assert!(current() < before + MIB, "freed bytes are given back");
    assert_eq!(peak(), high, "the peak keeps the high-water mark");

    reset_peak();
    assert!(
        peak() < before + MIB,
        "a reset starts from the current level"
    );
    let zeroed = vec![0u64; MIB];
    assert!(peak() >= before + 8 * MIB);
    drop(zeroed);
}
