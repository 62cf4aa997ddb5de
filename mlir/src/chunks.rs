//! MLIR work on other threads: [`chunked`] runs a function on consecutive chunks of a list, one
//! thread each; [`on_own_thread`] runs a function on one other thread while the caller waits;
//! [`Shared`] carries the MLIR handles they need (ops, attributes, a writer), which Rust cannot
//! know to be safe to send or share.
//!
//! The bridge uses `chunked` where a module's ops are many and each is handled alone: the importer
//! reads them (reading changes nothing in a context, so it needs no lock), and the in-place writer
//! makes their dictionaries (only in a context that uniques under locks). Lattice passes run with
//! `on_own_thread` so that what they allocate comes from a heap of their own (see
//! `crate::external`). Each caller argues at its call why handing its handles over is sound.
//!
//! Invariants: results come back in chunk order, whatever the thread count, so what a caller
//! builds from them is deterministic; a panic on a thread is resumed on the calling thread; when
//! no thread can be started, the work runs on the calling thread. One thread costs nothing more
//! than a call. O(items) plus one thread spawn per chunk or call.

/// How many threads [`chunked`] should split `count` items across: one per core, as lattice's own
/// passes take, but one per 4096 items at most, so that a small list stays on the calling thread
/// (a thread costs more than a few thousand ops' worth of MLIR calls).
pub(crate) fn threads_for(count: usize) -> usize {
    const PER_THREAD: usize = 4096;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    cores.min(count / PER_THREAD).max(1)
}

/// `work` on `threads` consecutive chunks of `items`, each on a thread of its own (the calling
/// one when `threads` is 1), the results in chunk order.
///
/// # Safety
/// `items`, what `work` captures and what it returns must be safe to use from the threads `work`
/// runs on, the way `work` uses them (for MLIR handles: see the module header).
pub(crate) unsafe fn chunked<T, R>(
    threads: usize,
    items: &[T],
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    if threads <= 1 || items.is_empty() {
        return vec![work(items)];
    }
    let size = items.len().div_ceil(threads);
    // SAFETY: the caller's promise.
    let chunks: Vec<Shared<&[T]>> = items
        .chunks(size)
        .map(|chunk| unsafe { Shared::new(chunk) })
        .collect();
    let work = &work;
    std::thread::scope(|scope| {
        let running: Vec<_> = chunks
            .into_iter()
            // SAFETY: the caller's promise.
            .map(|chunk| scope.spawn(move || unsafe { Shared::new(work(chunk.get())) }))
            .collect();
        running
            .into_iter()
            .map(|thread| match thread.join() {
                Ok(result) => result.0,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// The stack of the thread [`on_own_thread`] starts: that of a Linux main thread, so that work
/// which fits on the thread `lattice-opt` runs it on fits there too (only touched pages cost).
const STACK: usize = 8 << 20;

/// `work`, run on a thread of its own while the calling thread waits for it; on the calling
/// thread when no thread can be started.
///
/// # Safety
/// What `work` captures and what it returns must be safe to use from another thread while the
/// calling thread waits (for MLIR handles: no state the calling thread alone may touch).
pub(crate) unsafe fn on_own_thread<R>(work: impl FnOnce() -> R) -> R {
    let slot = std::cell::Cell::new(Some(work));
    // SAFETY: the caller's promise; the slot is taken by one thread at a time, since the calling
    // thread touches it again only if the thread never started.
    let handed = unsafe { Shared::new(&slot) };
    let ran = std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("lattice-pass".to_owned())
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                let work = handed.get().take();
                // SAFETY: the caller's promise.
                work.map(|work| unsafe { Shared::new(work()) })
            });
        let joined = thread.ok()?.join();
        joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    match ran {
        Some(result) => result.0,
        // No thread started (the system has none to give): the work is still in its slot.
        None => match slot.take() {
            Some(work) => work(),
            None => unreachable!("work is taken only by a thread that ran it"),
        },
    }
}

/// A value handed to the threads of [`chunked`] and [`on_own_thread`] although its type is not
/// `Send` or `Sync` (MLIR handles are raw pointers).
pub(crate) struct Shared<T>(T);

// SAFETY: a `Shared` is made only by `Shared::new`, whose caller vouches for this.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// `value`, to be shared with other threads.
    ///
    /// # Safety
    /// `value` must be safe to use from every thread it reaches, as it is used there.
    pub(crate) unsafe fn new(value: T) -> Self {
        Shared(value)
    }
}

impl<T: Copy> Shared<T> {
    /// The value (a method, so that closures capture the whole `Shared`, not its field).
    pub(crate) fn get(&self) -> T {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The work runs on a thread other than the caller's, and its result comes back.
    #[test]
    fn work_runs_on_a_thread_of_its_own() {
        let caller = std::thread::current().id();
        let mut seen = Vec::new();
        // SAFETY: `seen` is a plain vector the calling thread does not touch while it waits.
        let id = unsafe {
            on_own_thread(|| {
                seen.push(1);
                std::thread::current().id()
            })
        };
        assert_ne!(id, caller);
        assert_eq!(seen, [1]);
    }

    /// A panic in the work is resumed on the calling thread, with its payload.
    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            // SAFETY: the work captures nothing.
            unsafe { on_own_thread(|| -> u32 { std::panic::panic_any(7_u32) }) }
        });
        let payload = caught.expect_err("the panic comes back");
        assert_eq!(payload.downcast_ref::<u32>(), Some(&7));
    }
}
