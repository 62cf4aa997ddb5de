//! Union-find and strongly connected components over dense node indices: the two grouping steps
//! that L0 exclusivity's groups of ops (`super::exclusive`, `crate::search`'s tasks) are built
//! from.
//!
//! [`Partition`] is union-find with path halving, every union keeping the smaller index as the
//! root, so the root of a set is its smallest member whatever the order of the unions.
//! [`strongly_connected`] is Tarjan's algorithm, iterative so that deep graphs cannot overflow
//! the stack. Near-linear: O(α(n)) per find and union, O(n + edges) for the components.

/// Disjoint sets over `0..n`.
pub(crate) struct Partition {
    parent: Vec<usize>,
}

impl Partition {
    /// `n` singletons.
    pub(crate) fn new(n: usize) -> Self {
        Partition {
            parent: (0..n).collect(),
        }
    }

    /// The smallest member of `v`'s set.
    pub(crate) fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            self.parent[v] = self.parent[self.parent[v]];
            v = self.parent[v];
        }
        v
    }

    /// Joins the sets of `a` and `b`.
    pub(crate) fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}

/// The component id of each of `n` nodes under the directed `edges`; ids are dense from 0, in
/// the order Tarjan's algorithm completes the components.
pub(crate) fn strongly_connected(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut start = vec![0usize; n + 1];
    for &(a, _) in edges {
        start[a + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut adj = vec![0usize; edges.len()];
    for &(a, b) in edges {
        adj[fill[a]] = b;
        fill[a] += 1;
    }
    const UNSEEN: usize = usize::MAX;
    let (mut index, mut low, mut comp) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, start[root])];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&(v, edge)) = call.last() {
            if edge < start[v + 1] {
                if let Some(top) = call.last_mut() {
                    top.1 += 1;
                }
                let w = adj[edge];
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, start[w]));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_smallest_members_and_cycles_are_components() {
        let mut p = Partition::new(5);
        p.union(4, 2);
        p.union(2, 3);
        assert_eq!((p.find(4), p.find(3), p.find(0)), (2, 2, 0));
        let comp = strongly_connected(5, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)]);
        assert_eq!(comp[0], comp[1]);
        assert_eq!(comp[1], comp[2]);
        assert_ne!(comp[2], comp[3]);
        assert_ne!(comp[3], comp[4]);
    }
}
