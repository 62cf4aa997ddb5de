//! Delta debugging by complement removal (Zeller's ddmin as llvm-reduce runs it): split the items
//! into n chunks, try removing each chunk, keep every removal the test accepts, and double n when
//! no chunk could go, until the chunks are single items and none of them can be removed.
//!
//! Invariants: the caller's `try_remove` commits a removal exactly when it returns `Ok(true)`, so
//! the items left are always the current state; chunks are tried in item order, so the result is
//! a pure function of the test's answers (deterministic when the test is). The result is
//! 1-minimal: no single remaining item can be removed. Complexity: O(n²) tests in the worst case
//! and O(k log(n / k)) when k items must stay and removals mostly succeed, for n items.

/// Removes as many of `items` as `try_remove` accepts (see the module header); returns the items
/// that stayed, in their original order. The first error stops the search.
pub fn ddmin<T: Clone, E>(
    mut items: Vec<T>,
    mut try_remove: impl FnMut(&[T]) -> Result<bool, E>,
) -> Result<Vec<T>, E> {
    let mut chunks = 2usize;
    while !items.is_empty() {
        let size = items.len().div_ceil(chunks.min(items.len()));
        let mut removed_any = false;
        let mut start = 0;
        while start < items.len() {
            let end = (start + size).min(items.len());
            if try_remove(&items[start..end])? {
                items.drain(start..end);
                removed_any = true;
            } else {
                start = end;
            }
        }
        if removed_any {
            // Keep the granularity that worked, but not finer than the items left allow.
            chunks = (chunks - 1).max(2);
        } else if size == 1 {
            break;
        } else {
            chunks = chunks.saturating_mul(2);
        }
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// Removes everything except the items `keep` asks for, counting the tests.
    fn run(n: u32, keep: &[u32]) -> (Vec<u32>, usize) {
        let mut tests = 0;
        let left = ddmin((0..n).collect(), |chunk: &[u32]| {
            tests += 1;
            Ok::<_, Infallible>(!chunk.iter().any(|x| keep.contains(x)))
        })
        .unwrap();
        (left, tests)
    }

    #[test]
    fn only_the_needed_items_stay_and_few_tests_are_run() {
        let (left, tests) = run(1000, &[417]);
        assert_eq!(left, [417]);
        assert!(tests < 60, "{tests} tests for one needed item of 1000");
        let (left, _) = run(100, &[3, 50, 99]);
        assert_eq!(left, [3, 50, 99]);
        assert_eq!(run(10, &[]).0, Vec::<u32>::new());
    }

    #[test]
    fn a_test_error_stops_the_search() {
        let result = ddmin(vec![1, 2, 3], |_: &[i32]| Err::<bool, _>("broken"));
        assert_eq!(result, Err("broken"));
    }
}
