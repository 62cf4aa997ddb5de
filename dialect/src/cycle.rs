//! Finds one cycle among dependencies, so that both the structural verifier and the contest
//! importer can name the ops of a cycle instead of only saying that one exists.
//!
//! The answer is deterministic: the cycle is given in execution direction (each op must run
//! before the next), starts at its smallest index and repeats that index at the end.
//! Dependencies that point outside `0..count` are ignored (reporting them is not this function's
//! job). Iterative depth-first search, O(V + E), no recursion.

use crate::module::Dep;

/// One cycle of the graph whose node `v` depends on `deps_of(v)`, or `None` when it is acyclic.
pub fn find_cycle<'a>(count: usize, deps_of: impl Fn(usize) -> &'a [Dep]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; count];
    for root in 0..count {
        if mark[root] != Mark::New {
            continue;
        }
        // Stack of (node, next dependency to visit); the stack is a path against the edges.
        let mut stack = vec![(root, 0usize)];
        mark[root] = Mark::Open;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let deps = deps_of(v);
            let Some(dep) = deps.get(*next).map(|d| d.op.index()) else {
                mark[v] = Mark::Done;
                stack.pop();
                continue;
            };
            *next += 1;
            match mark.get(dep) {
                Some(Mark::New) => {
                    mark[dep] = Mark::Open;
                    stack.push((dep, 0));
                }
                Some(Mark::Open) => {
                    let start = stack.iter().position(|&(u, _)| u == dep)?;
                    let mut cycle: Vec<usize> = stack[start..].iter().map(|&(u, _)| u).collect();
                    cycle.reverse();
                    let smallest = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                    cycle.rotate_left(smallest);
                    cycle.push(cycle[0]);
                    return Some(cycle);
                }
                Some(Mark::Done) | None => {}
            }
        }
    }
    None
}
