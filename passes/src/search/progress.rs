//! How the search tells of its progress: once its budget is sized, the budget and its unit
//! (steps, or work units once the budget is in work), then each amount spent, from any worker
//! thread. The `order-search` pass shows it as a bar on stderr — done of the budget, elapsed,
//! and the time left at the rate so far — drawn only when stderr is a terminal ([`bar`]);
//! library callers that want nothing pass [`Silent`]. Reporting never changes a result. O(1)
//! per call.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What the search reports as it goes.
pub trait Progress: Sync {
    /// The whole budget, `total` `unit`s (`"steps"`), once it is sized.
    fn budget(&self, total: u64, unit: &'static str);
    /// `amount` more of it spent.
    fn advance(&self, amount: u64);
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn budget(&self, _: u64, _: &'static str) {}
    fn advance(&self, _: u64) {}
}

impl Progress for ProgressBar {
    fn budget(&self, total: u64, unit: &'static str) {
        self.set_length(total);
        self.set_message(unit);
    }

    fn advance(&self, amount: u64) {
        self.inc(amount);
    }
}

/// The pass's bar: `order-search [=====>    ] 1200/3873 steps, 4s, about 8s left`, on stderr when
/// it is a terminal (indicatif draws nothing otherwise, so logs and pipes stay clean).
pub fn bar() -> ProgressBar {
    let style = ProgressStyle::with_template(
        "{spinner} order-search [{bar:30}] {pos}/{len} {msg}, {elapsed} spent, about {eta} left",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style)
}
