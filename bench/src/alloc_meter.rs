//! A counting global allocator: [`Meter`] forwards to [`System`] and keeps the bytes currently
//! allocated and their high-water mark, so `lattice-bench scale` can report the peak heap of
//! each pipeline stage.
//!
//! Install it in a binary with `#[global_allocator] static METER: Meter = Meter;`, call [`start`]
//! once before the work to measure, [`reset_peak`] before a stage and read [`peak`] after it.
//! Until [`start`] (and without that line) the counters stay at 0 and an allocation costs one
//! relaxed load more than `System`'s: the counting's atomic updates, shared by every thread,
//! cost 5–20% of a search's time, so only the command that reports heap peaks pays for them.
//! Invariants: once started, `current` is the sum of the sizes of the live allocations made
//! since [`start`], less what was freed since then of those made before it (a few bytes of
//! argument parsing; read as at least 0); `peak` ≥ `current` and never decreases except by
//! [`reset_peak`]. Counts are process wide (every thread), with relaxed atomics: a peak read
//! while other threads allocate is a snapshot. O(1) per allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

static COUNTING: AtomicBool = AtomicBool::new(false);
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

/// The counting allocator (a unit struct: the counters are global, like the heap).
#[derive(Clone, Copy, Debug, Default)]
pub struct Meter;

fn grow(bytes: usize) {
    if COUNTING.load(Relaxed) {
        let bytes = bytes as isize;
        let now = CURRENT.fetch_add(bytes, Relaxed) + bytes;
        PEAK.fetch_max(now, Relaxed);
    }
}

fn shrink(bytes: usize) {
    if COUNTING.load(Relaxed) {
        CURRENT.fetch_sub(bytes as isize, Relaxed);
    }
}

/// Starts counting (from 0).
pub fn start() {
    COUNTING.store(true, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the counters only observe sizes and never touch the memory.
unsafe impl GlobalAlloc for Meter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` are `System::alloc`'s preconditions.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this meter) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's guarantees are `System::realloc`'s preconditions.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Count the new block before releasing the old one: a moving realloc holds both.
            grow(new_size);
            shrink(layout.size());
        }
        p
    }
}

/// Bytes allocated through the meter and not yet freed.
pub fn current() -> usize {
    CURRENT.load(Relaxed).max(0) as usize
}

/// The most bytes allocated at once since the last [`reset_peak`] (or the start).
pub fn peak() -> usize {
    PEAK.load(Relaxed).max(0) as usize
}

/// Starts a new measurement: the peak becomes the current allocation.
pub fn reset_peak() {
    PEAK.store(CURRENT.load(Relaxed), Relaxed);
}
