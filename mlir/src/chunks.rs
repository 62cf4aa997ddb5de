//! MLIR work split across threads: [`chunked`] runs a function on consecutive chunks of a list,
//! one thread each, and [`Shared`] carries the MLIR handles it needs (ops, attributes, a writer),
//! which Rust cannot know to be safe to share.
//!
//! The bridge uses it where a module's ops are many and each is handled alone: the importer reads
//! them (reading changes nothing in a context, so it needs no lock), and the in-place writer sets
//! their attributes (only in a context that uniques under locks). Each caller argues at its call
//! why sharing its handles is sound.
//!
//! Invariants: results come back in chunk order, whatever the thread count, so what a caller
//! builds from them is deterministic; a panic on a thread is resumed on the calling thread. One
//! thread costs nothing more than a call. O(items) plus one thread spawn per chunk.

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

/// A value handed to the threads of [`chunked`] although its type is not `Send` or `Sync` (MLIR
/// handles are raw pointers).
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
