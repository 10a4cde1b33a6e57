//! Random k-CNF formulas from an explicit seed, for the tests and benches of the
//! reductions: every clause has k distinct variables, chosen uniformly, each negated with
//! probability ½ (the fixed-clause-length model; 3-CNF is hardest around 4.26 clauses per
//! variable).
//!
//! The generator is splitmix64, so a seed gives the same formula on every platform and
//! build.

use crate::system::cnf::Cnf;

/// A small deterministic generator (splitmix64).
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The generator started at `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0), without modulo bias worth the name for the
    /// small bounds used here (Lemire's multiply-shift).
    pub(crate) fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * bound as u64) >> 32) as u32
    }
}

/// A random formula with `num_clauses` clauses of `width` distinct variables among
/// `num_vars` (`width` is capped at `num_vars`).
///
/// ```
/// let f = qpor::hardness::random_cnf(10, 42, 3, 7);
/// assert_eq!((f.num_vars, f.clauses.len()), (10, 42));
/// assert!(f.clauses.iter().all(|c| c.len() == 3));
/// assert_eq!(f, qpor::hardness::random_cnf(10, 42, 3, 7));
/// ```
pub fn random_cnf(num_vars: u32, num_clauses: usize, width: u32, seed: u64) -> Cnf {
    let mut rng = SplitMix64::new(seed);
    let width = width.min(num_vars);
    let mut clauses = Vec::with_capacity(num_clauses);
    for _ in 0..num_clauses {
        let mut clause: Vec<i32> = Vec::with_capacity(width as usize);
        while clause.len() < width as usize {
            let v = rng.below(num_vars) as i32 + 1;
            if clause.iter().any(|l| l.abs() == v) {
                continue;
            }
            clause.push(if rng.next_u64() & 1 == 0 { v } else { -v });
        }
        clauses.push(clause);
    }
    Cnf::new(num_vars, clauses)
}
