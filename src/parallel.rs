//! Where passes run work side by side: on the threads of the host that runs them. By default
//! (`lattice-opt`) a parallel step starts scoped threads, one per core; a host with a thread
//! pool of its own — MLIR's context, through the C ABI (`lattice_capi`) — installs an
//! [`Executor`] for the duration of a pass ([`with_executor`]), and then every parallel step of
//! the pass, nested ones included, runs on that pool and uses at most its threads (one, and no
//! thread started, under `--mlir-disable-threading`).
//!
//! Invariants: [`map`] returns `f(0), …, f(n-1)` in index order and [`join`] both results,
//! whatever the executor and thread count, so results never depend on them; a panic in a job
//! reaches the caller. Cost: O(n) bookkeeping per [`map`]; the threads are the executor's.

use std::cell::Cell;
use std::sync::Mutex;

/// A host's thread pool.
pub trait Executor: Sync {
    /// How many jobs may run at once (1: the calling thread only).
    fn threads(&self) -> usize;
    /// Runs `job(i)` for every `i < count`, in any order on any of its threads, and returns
    /// when all have returned.
    fn for_each(&self, count: usize, job: &(dyn Fn(usize) + Sync));
}

thread_local! {
    /// The executor of the pass running on this thread, if its host installed one. Erased to
    /// `'static`: [`with_executor`] clears it before the executor can go away.
    static CURRENT: Cell<Option<&'static dyn Executor>> = const { Cell::new(None) };
}

/// Runs `f` with `executor` as the pool of every parallel step it takes, on this thread and on
/// the executor's threads while they run its jobs.
pub fn with_executor<R>(executor: &dyn Executor, f: impl FnOnce() -> R) -> R {
    /// Puts back the executor that was current, even when `f` panics.
    struct Restore(Option<&'static dyn Executor>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    // SAFETY: the reference is only reachable through `CURRENT`, which `Restore` resets before
    // this function returns or unwinds, while `executor` is still borrowed.
    let erased: &'static dyn Executor = unsafe { std::mem::transmute(executor) };
    let _restore = Restore(CURRENT.with(|c| c.replace(Some(erased))));
    f()
}

fn current() -> Option<&'static dyn Executor> {
    CURRENT.with(Cell::get)
}

/// How many jobs may usefully run at once here: the installed executor's threads, else the
/// machine's cores.
pub fn threads() -> usize {
    match current() {
        Some(executor) => executor.threads().max(1),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// `f(0), …, f(n-1)`, computed side by side when more than one thread is available.
pub fn map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if n <= 1 || threads() == 1 {
        return (0..n).map(f).collect();
    }
    let slots: Vec<Mutex<Option<T>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let job = |i: usize| {
        let value = f(i);
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    };
    match current() {
        Some(executor) => executor.for_each(n, &|i| with_executor(executor, || job(i))),
        None => std::thread::scope(|scope| {
            let job = &job;
            let workers: Vec<_> = (1..n).map(|i| scope.spawn(move || job(i))).collect();
            job(0);
            for worker in workers {
                if let Err(panic) = worker.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        }),
    }
    slots
        .into_iter()
        .map(|slot| {
            let value = slot.into_inner().unwrap_or_else(|e| e.into_inner());
            value.expect("every job of a parallel map ran")
        })
        .collect()
}

/// `(a(), b())`, side by side when more than one thread is available.
pub fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if threads() == 1 {
        return (a(), b());
    }
    let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
    let (ra, rb) = (Mutex::new(None), Mutex::new(None));
    map(2, |i| {
        if i == 0 {
            let f = a.lock().unwrap_or_else(|e| e.into_inner()).take();
            *ra.lock().unwrap_or_else(|e| e.into_inner()) = f.map(|f| f());
        } else {
            let f = b.lock().unwrap_or_else(|e| e.into_inner()).take();
            *rb.lock().unwrap_or_else(|e| e.into_inner()) = f.map(|f| f());
        }
    });
    let a = ra.into_inner().unwrap_or_else(|e| e.into_inner());
    let b = rb.into_inner().unwrap_or_else(|e| e.into_inner());
    (
        a.expect("the first half of a join ran"),
        b.expect("the second half of a join ran"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Runs jobs on the calling thread, counting them, and claims `threads` threads.
    struct Counting {
        threads: usize,
        jobs: AtomicUsize,
    }

    impl Executor for Counting {
        fn threads(&self) -> usize {
            self.threads
        }
        fn for_each(&self, count: usize, job: &(dyn Fn(usize) + Sync)) {
            for i in (0..count).rev() {
                self.jobs.fetch_add(1, Ordering::Relaxed);
                job(i);
            }
        }
    }

    #[test]
    fn results_are_in_index_order_whatever_runs_them() {
        let square = |i: usize| i * i;
        let expected: Vec<usize> = (0..50).map(square).collect();
        assert_eq!(map(50, square), expected);
        let pool = Counting {
            threads: 4,
            jobs: AtomicUsize::new(0),
        };
        assert_eq!(with_executor(&pool, || map(50, square)), expected);
        assert_eq!(pool.jobs.load(Ordering::Relaxed), 50);
    }

    #[test]
    fn nested_steps_use_the_installed_pool_and_one_thread_means_no_job() {
        let pool = Counting {
            threads: 2,
            jobs: AtomicUsize::new(0),
        };
        let sums = with_executor(&pool, || {
            map(3, |i| map(4, |j| i * j).iter().sum::<usize>())
        });
        assert_eq!(sums, vec![0, 6, 12]);
        // 3 outer jobs, then 4 inner ones in each: the inner maps saw the pool on its thread.
        assert_eq!(pool.jobs.load(Ordering::Relaxed), 15);
        let serial = Counting {
            threads: 1,
            jobs: AtomicUsize::new(0),
        };
        let (a, b) = with_executor(&serial, || join(threads, || map(5, |i| i).len()));
        assert_eq!((a, b), (1, 5));
        assert_eq!(serial.jobs.load(Ordering::Relaxed), 0);
        assert!(
            current().is_none(),
            "the executor is uninstalled after the call"
        );
    }
}
