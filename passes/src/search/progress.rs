//! The order search's progress line: `⠹ order-search: 120 steps, 3s`, redrawn in place at most
//! ten times a second on stderr when stderr is a terminal, and erased when the search ends.
//!
//! Written here rather than taken from a progress-bar crate so that `lattice-opt`'s build (which
//! links every pass) compiles no terminal-UI dependencies for one spinner.
//!
//! Invariants: steps may be counted from any thread (an atomic counter; a worker never waits
//! for another's drawing, it skips the redraw instead); drawing never fails or panics the pass —
//! the first write error (a closed or broken stderr) stops the drawing for good; nothing is ever
//! written when the sink is `None`, and `finish` erases the line only if one was drawn.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const REDRAW: Duration = Duration::from_millis(100);

/// A step counter that draws itself on a terminal.
pub(super) struct Progress {
    steps: AtomicU64,
    start: Instant,
    interval: Duration,
    /// Cleared on the first failed write.
    live: AtomicBool,
    sink: Mutex<Sink>,
}

struct Sink {
    out: Option<Box<dyn Write + Send>>,
    last: Option<Instant>,
    frame: usize,
    drawn: bool,
}

impl Progress {
    /// Draws on stderr if it is a terminal; counts silently otherwise (pipes, files, tests).
    pub(super) fn stderr() -> Self {
        let out: Option<Box<dyn Write + Send>> = if std::io::stderr().is_terminal() {
            Some(Box::new(std::io::stderr()))
        } else {
            None
        };
        Self::to(out, REDRAW)
    }

    /// Draws on `out` at most once per `interval`.
    pub(super) fn to(out: Option<Box<dyn Write + Send>>, interval: Duration) -> Self {
        Progress {
            steps: AtomicU64::new(0),
            start: Instant::now(),
            interval,
            live: AtomicBool::new(out.is_some()),
            sink: Mutex::new(Sink {
                out,
                last: None,
                frame: 0,
                drawn: false,
            }),
        }
    }

    /// Counts one search step and redraws the line if the last drawing is old enough.
    pub(super) fn tick(&self) {
        let steps = self.steps.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.live.load(Ordering::Relaxed) {
            return;
        }
        // Another thread is drawing: this step shows up in the next drawing.
        let Ok(mut sink) = self.sink.try_lock() else {
            return;
        };
        let now = Instant::now();
        if sink
            .last
            .is_some_and(|last| now.duration_since(last) < self.interval)
        {
            return;
        }
        sink.last = Some(now);
        let frame = FRAMES[sink.frame % FRAMES.len()];
        sink.frame += 1;
        let elapsed = now.duration_since(self.start).as_secs();
        let line = format!("\r\x1b[2K{frame} order-search: {steps} steps, {elapsed}s");
        if self.write(&mut sink, &line) {
            sink.drawn = true;
        }
    }

    /// Erases the line, if one was drawn.
    pub(super) fn finish(&self) {
        let Ok(mut sink) = self.sink.lock() else {
            return;
        };
        if sink.drawn && self.live.load(Ordering::Relaxed) {
            self.write(&mut sink, "\r\x1b[2K");
        }
    }

    /// Writes and flushes `text`; on failure stops all later drawing. Whether it was written.
    fn write(&self, sink: &mut Sink, text: &str) -> bool {
        let Some(out) = sink.out.as_mut() else {
            return false;
        };
        let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        if written.is_err() {
            self.live.store(false, Ordering::Relaxed);
        }
        written.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A writer whose bytes the test can read back, or that fails every write.
    #[derive(Clone)]
    struct Shared(Arc<Mutex<Vec<u8>>>, bool);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.1 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn text(shared: &Shared) -> String {
        String::from_utf8(shared.0.lock().expect("not poisoned").clone()).expect("utf-8")
    }

    #[test]
    fn every_step_is_drawn_without_throttling_and_the_line_is_erased() {
        let shared = Shared(Arc::default(), false);
        let progress = Progress::to(Some(Box::new(shared.clone())), Duration::ZERO);
        progress.tick();
        progress.tick();
        progress.finish();
        let out = text(&shared);
        assert!(out.contains("⠋ order-search: 1 steps, 0s"), "{out:?}");
        assert!(out.contains("⠙ order-search: 2 steps, 0s"), "{out:?}");
        assert!(out.ends_with("2 steps, 0s\r\x1b[2K"), "{out:?}");
    }

    #[test]
    fn throttled_steps_are_counted_but_not_drawn() {
        let shared = Shared(Arc::default(), false);
        let progress = Progress::to(Some(Box::new(shared.clone())), Duration::from_secs(3600));
        for _ in 0..5 {
            progress.tick();
        }
        assert_eq!(progress.steps.load(Ordering::Relaxed), 5);
        assert_eq!(text(&shared).matches("order-search").count(), 1);
    }

    #[test]
    fn a_failed_write_stops_the_drawing_and_nothing_is_erased() {
        let shared = Shared(Arc::default(), true);
        let progress = Progress::to(Some(Box::new(shared.clone())), Duration::ZERO);
        progress.tick();
        assert!(!progress.live.load(Ordering::Relaxed));
        progress.tick();
        progress.finish();
        assert_eq!(progress.steps.load(Ordering::Relaxed), 2);
        assert!(text(&shared).is_empty());
    }

    #[test]
    fn without_a_terminal_nothing_is_written() {
        let progress = Progress::to(None, Duration::ZERO);
        progress.tick();
        progress.finish();
        assert_eq!(progress.steps.load(Ordering::Relaxed), 1);
        assert!(!progress.sink.lock().expect("not poisoned").drawn);
    }
}
