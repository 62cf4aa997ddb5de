//! Passes that exist only to exercise the pass infrastructure (their names start with `test-`):
//! counting, reordering, corrupting, failing, remarking and asking for analyses. They make the
//! manager's verification, instrumentation and failure handling testable before any real pass
//! runs, and keep them tested independently of the real passes' behaviour.

pub mod analyses;
pub mod corrupt;
pub mod count;
pub mod diagnose;
pub mod reverse;

pub use analyses::TestAnalyses;
pub use corrupt::TestCorrupt;
pub use count::TestCount;
pub use diagnose::{TestFail, TestRemark};
pub use reverse::TestReverse;
