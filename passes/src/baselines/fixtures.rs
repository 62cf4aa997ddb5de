//! Test fixtures for the baselines: small random dataflow modules (each command writes one new
//! buffer that one or two later commands read) and a four-buffer module that must spill. Test-only.
//!
//! Modules are written as LIR text and parsed, so every fixture passes the structural verifier.
//! Deterministic per seed (a 64-bit LCG). The brute-force enumeration of every topological order
//! lives with its one user, `frontier_dp`'s tests, so this file needs none of the baselines.

use lattice_lir::{parse_module, Module};
use std::fmt::Write as _;

/// A deterministic pseudo-random stream.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    /// A value in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// `ops` commands on one tier of `capacity` bytes (two tiers when `two_tiers`), random sizes
/// and fan-out; the text order is a valid σ.
pub(crate) fn random_module(seed: u64, ops: usize, capacity: u64, two_tiers: bool) -> Module {
    let mut rng = Lcg(seed);
    let tiers = if two_tiers {
        format!("L1 = {capacity}, UB = {capacity}")
    } else {
        format!("L1 = {capacity}")
    };
    let mut text = format!(
        "module @r{seed} phase(parsed) {{\n  target {{ tiers {tiers} pipes P spill_out P, spill_in P, spill_cost = 10 + 1 * size l0_exclusive = false }}\n"
    );
    // Buffer i is written by command i and read by the commands in readers[i].
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); ops];
    for (i, read_by) in readers.iter_mut().enumerate() {
        let tier = if two_tiers && rng.below(2) == 1 {
            "UB"
        } else {
            "L1"
        };
        let size = 16 * (1 + rng.below(4));
        let _ = writeln!(text, "  buffer @b{i} : {tier}[{size}]");
        if i + 1 < ops {
            let fan = 1 + rng.below(2) as usize;
            for _ in 0..fan {
                let r = i + 1 + rng.below((ops - i - 1) as u64) as usize;
                if !read_by.contains(&r) {
                    read_by.push(r);
                }
            }
        }
    }
    let mut inputs: Vec<Vec<usize>> = vec![Vec::new(); ops];
    for (i, rs) in readers.iter().enumerate() {
        for &r in rs {
            inputs[r].push(i);
        }
    }
    // Names: alloc of buffer i = 3i, command i = 3i + 1, free of buffer i = 3i + 2. The free
    // comes after the last reader, so frees are emitted once everything before them ran.
    let mut frees_after: Vec<Vec<usize>> = vec![Vec::new(); ops];
    for (i, rs) in readers.iter().enumerate() {
        let last = rs.iter().copied().max().unwrap_or(i);
        frees_after[last].push(i);
    }
    for i in 0..ops {
        let _ = writeln!(text, "  %{} = alloc @b{i}", 3 * i);
        let mut operands = vec![format!("@b{i}")];
        operands.extend(inputs[i].iter().map(|j| format!("@b{j}")));
        let mut deps = vec![format!("%{}", 3 * i)];
        deps.extend(inputs[i].iter().map(|j| format!("%{}", 3 * j + 1)));
        let _ = writeln!(
            text,
            "  %{} = OP P 1 ({}) after({})",
            3 * i + 1,
            operands.join(", "),
            deps.join(", ")
        );
        for &j in &frees_after[i] {
            let mut deps = vec![format!("%{}", 3 * j + 1)];
            deps.extend(readers[j].iter().map(|r| format!("%{}", 3 * r + 1)));
            let _ = writeln!(
                text,
                "  %{} = free @b{j} after({})",
                3 * j + 2,
                deps.join(", ")
            );
        }
    }
    text.push_str("}\n");
    parse_module(&text).unwrap_or_else(|e| panic!("fixture does not parse: {e:?}\n{text}"))
}

/// Four buffers on one 100 B L1 — A and B (30 B, backed), C and D (40 B) — each written by one
/// command and read by one later command, in the text order: loading all four before any reader
/// overfills the tier. `phase` is the module's phase keyword.
pub(crate) fn four_buffers(phase: &str) -> Module {
    let text = format!(
        "module @w phase({phase}) {{
           target {{ tiers L1 = 100 pipes MTE2, MTE3, P spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size l0_exclusive = false }}
           buffer @b0 : L1[30] backed
           buffer @b1 : L1[30] backed
           buffer @b2 : L1[40]
           buffer @b3 : L1[40]
           %0 = alloc @b0
           %1 = COPY_IN MTE2 10 (@b0) after(%0)
           %2 = alloc @b1
           %3 = COPY_IN MTE2 10 (@b1) after(%2)
           %4 = alloc @b2
           %5 = OP P 10 (@b2) after(%4)
           %6 = alloc @b3
           %7 = OP P 10 (@b3) after(%6)
           %8 = OP P 10 (@b0) after(%1)
           %12 = free @b0 after(%8)
           %9 = OP P 10 (@b1) after(%3)
           %13 = free @b1 after(%9)
           %10 = OP P 10 (@b2) after(%5)
           %14 = free @b2 after(%10)
           %11 = OP P 10 (@b3) after(%7)
           %15 = free @b3 after(%11)
         }}"
    );
    parse_module(&text).expect("the fixture parses")
}
