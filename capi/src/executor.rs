//! The C++ side's thread pool ([`LatticeExecutor`]: MLIR's context pool) as the
//! [`lattice::parallel::Executor`] of a pass run, so a pass's parallel steps run on the host's
//! threads and use one thread when the host says so (`--mlir-disable-threading`).
//!
//! Invariants: a job's panic is caught on the pool thread (it must not unwind through C++) and
//! raised again on the calling thread once `parallel_for` returns. Cost: one indirect call per job.

use crate::abi::LatticeExecutor;
use lattice::parallel::{with_executor, Executor};
use std::ffi::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// A [`LatticeExecutor`] as lattice sees it.
struct Pool<'a>(&'a LatticeExecutor);

// SAFETY: the C++ side promises that `parallel_for` may be called from any thread during the run
// (`lattice_run_pass`'s contract); `context` is only handed back to it.
unsafe impl Sync for Pool<'_> {}

/// What a C++ pool thread runs: the job and where its panic goes.
struct Job<'a> {
    job: &'a (dyn Fn(usize) + Sync),
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

unsafe extern "C" fn run_job(job: *mut c_void, index: usize) {
    // SAFETY: `job` is the `Job` `for_each` passed, alive until `parallel_for` returns.
    let job = unsafe { &*job.cast::<Job<'_>>() };
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| (job.job)(index))) {
        job.panic
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(panic);
    }
}

impl Executor for Pool<'_> {
    fn threads(&self) -> usize {
        self.0.threads.max(1)
    }

    fn for_each(&self, count: usize, job: &(dyn Fn(usize) + Sync)) {
        let Some(parallel_for) = self.0.parallel_for.filter(|_| self.threads() > 1) else {
            (0..count).for_each(job);
            return;
        };
        let job = Job {
            job,
            panic: Mutex::new(None),
        };
        // SAFETY: `parallel_for` runs `run_job` on `job` for every index and returns when all
        // are done (the C++ side's contract), so `job` outlives every use.
        unsafe {
            parallel_for(
                self.0.context,
                count,
                run_job,
                (&job as *const Job<'_>).cast_mut().cast(),
            )
        };
        if let Some(panic) = job.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            resume_unwind(panic);
        }
    }
}

/// Runs `f` on `executor`'s threads (when given; else lattice's own).
pub fn with<R>(executor: Option<&LatticeExecutor>, f: impl FnOnce() -> R) -> R {
    match executor {
        Some(executor) => with_executor(&Pool(executor), f),
        None => f(),
    }
}
