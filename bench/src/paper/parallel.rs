//! A deterministic parallel map: `jobs` scoped threads take items by index from a shared counter
//! and write each result into that item's own slot, so the output order is the input order
//! whatever the scheduling. No work is shared between items, so no other synchronization is
//! needed. O(n) bookkeeping besides the work.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to every item on up to `jobs` threads (1 runs on the caller's thread), results in
/// item order.
pub fn map<T: Sync, R: Send>(jobs: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = jobs.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let result = f(item);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            // Every index below `items.len()` was taken by exactly one thread, which filled it;
            // a panic in `f` propagates out of `scope` before this point.
            let value = slot
                .into_inner()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            value.expect("every slot is filled")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_follow_the_items_whatever_the_thread_count() {
        let items: Vec<u64> = (0..100).collect();
        let square = |x: &u64| x * x;
        let one = map(1, &items, square);
        for jobs in [2, 3, 8, 1000] {
            assert_eq!(map(jobs, &items, square), one);
        }
        assert!(map(4, &[] as &[u64], square).is_empty());
    }
}
