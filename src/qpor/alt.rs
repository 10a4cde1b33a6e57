//! Alternatives (paper.md §2.2–2.4, §4.1–4.2; dpu.md §4.3).
//!
//! An alternative to D after C is a set J of events such that C ∪ J is a configuration,
//! J ∩ D = ∅, and every event of D is in conflict with some event of J; a k-partial
//! alternative needs that only for k events of D. They are computed with a *comb*: one
//! spike per chosen event d of D still enabled at C (the unjustified ones, newest first),
//! holding the events of U in immediate conflict with d, filtered (not in D, compatible
//! with C, and — for k-partial — not above an unjustified event of D); the first pairwise
//! conflict-free combination ⟨e₁…e_k⟩, found depth-first, gives J = \[e₁\] ∪ … ∪ \[e_k\].
//! Finding one is NP-complete for k = ∞ (paper.md §3.1) and polynomial for fixed k.
//!
//! # Invariants
//! - The returned A = J \ C is disjoint from D, and C ∪ A is a configuration.
//! - In optimal mode every unjustified event of D gets a spike.

use super::Unfolding;
use crate::unfold::EventId;
use hashbrown::HashSet;
use std::time::Instant;

/// How alternatives are computed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AltMode {
    /// k-partial alternatives (k ≥ 1): a comb over the k newest unjustified D-events.
    KPartial(usize),
    /// Full alternatives (k = ∞): never a sleep-set-blocked leaf.
    Optimal,
    /// Singleton clues, the SDPOR view of the paper: only the first event of a 1-partial
    /// alternative that is enabled at C.
    Sdpor,
}

impl Default for AltMode {
    fn default() -> Self {
        AltMode::KPartial(2)
    }
}

impl AltMode {
    /// The mode as reports show it: the value of k, `optimal` or `sdpor`.
    pub fn label(self) -> String {
        match self {
            AltMode::KPartial(k) => k.to_string(),
            AltMode::Optimal => "optimal".into(),
            AltMode::Sdpor => "sdpor".into(),
        }
    }
}

/// Counters of the alternative computations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AltStats {
    /// Calls of Alt.
    pub calls: u64,
    /// Calls that built a comb (at least one spike, all non-empty).
    pub combs: u64,
    /// Calls that found an alternative.
    pub found: u64,
    /// Sum of the comb sizes (spikes), for the average.
    pub spikes: u64,
    /// Largest comb.
    pub max_spikes: u64,
    /// Combinations tried while searching combs.
    pub combinations_tried: u64,
}

/// Reusable buffers for [`alternative`], and the deadline its comb search honours.
#[derive(Default)]
pub struct AltScratch {
    spikes: Vec<Vec<EventId>>,
    chosen: Vec<EventId>,
    buf: Vec<EventId>,
    deadline: Option<Instant>,
    timed_out: bool,
}

/// Combinations tried between two looks at the clock.
const CLOCK_EVERY_COMBINATIONS: u64 = 1 << 12;

impl AltScratch {
    /// Makes [`alternative`] give up (returning `None` and setting
    /// [`AltScratch::timed_out`]) once `deadline` has passed: an optimal comb is an
    /// NP-complete search, and one call can outlast any time limit between calls.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Whether the last [`alternative`] call gave up at the deadline; its `None` then
    /// means "unknown", not "no alternative".
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }
}

/// Computes an alternative to `d` (D, in the order events were added) after the current
/// configuration C of `unf`; returns A = J \ C in an order in which its events can be
/// added (causes first), or `None`.
pub fn alternative<U: Unfolding + ?Sized>(
    unf: &mut U,
    d: &[EventId],
    in_d: &HashSet<EventId>,
    mode: AltMode,
    stats: &mut AltStats,
    scratch: &mut AltScratch,
) -> Option<Vec<EventId>> {
    stats.calls += 1;
    scratch.timed_out = false;
    // D ∩ en(C), newest first: only these still need a conflicting event in J.
    let unjustified: Vec<EventId> = d.iter().rev().copied().filter(|&x| unf.is_enabled(x)).collect();
    if unjustified.is_empty() {
        // Every event of D already conflicts with C: J = C (A = ∅) will do.
        stats.found += 1;
        return Some(Vec::new());
    }
    let k = match mode {
        AltMode::KPartial(k) => k.max(1),
        AltMode::Optimal => usize::MAX,
        AltMode::Sdpor => 1,
    };
    let selected = &unjustified[..unjustified.len().min(k)];
    let filter_above = mode != AltMode::Optimal;
    scratch.spikes.resize_with(selected.len(), Vec::new);
    for (i, &x) in selected.iter().enumerate() {
        scratch.buf.clear();
        unf.immediate_conflicts(x, &mut scratch.buf);
        let spike = &mut scratch.spikes[i];
        spike.clear();
        for &c in &scratch.buf {
            if in_d.contains(&c) || !unf.compatible(c) {
                continue;
            }
            // For k-partial alternatives the unselected D-events get no spike, so J must
            // avoid them explicitly. In optimal mode a spike event above some d ∈ D
            // conflicts with d's own spike choice, so the pairwise test rejects it.
            if filter_above && unjustified.iter().any(|&u| unf.causally_le(u, c)) {
                continue;
            }
            spike.push(c);
        }
        if spike.is_empty() {
            return None;
        }
    }
    stats.combs += 1;
    stats.spikes += selected.len() as u64;
    stats.max_spikes = stats.max_spikes.max(selected.len() as u64);

    // Depth-first search for a pairwise conflict-free combination. In optimal mode a
    // spike whose D-event already conflicts with an event chosen so far is skipped: that
    // event is justified by the partial combination, and trying its spike's events one by
    // one would only multiply the branches (on the Theorem 4.1 instances, a clause already
    // satisfied). J still avoids D: an event above a skipped d would conflict with the
    // chosen event that justifies d, by inheritance.
    let n = selected.len();
    let skip_justified = mode == AltMode::Optimal;
    scratch.chosen.clear();
    let mut cursor = vec![0usize; n];
    let mut skipped = vec![false; n];
    let mut level = 0usize;
    let found = 'search: loop {
        if level == n {
            break true;
        }
        if skip_justified
            && cursor[level] == 0
            && scratch.chosen.iter().any(|&o| unf.conflict(o, selected[level]))
        {
            skipped[level] = true;
            level += 1;
            if level < n {
                cursor[level] = 0;
            }
            continue;
        }
        skipped[level] = false;
        let spike = &scratch.spikes[level];
        let mut picked = false;
        while cursor[level] < spike.len() {
            let cand = spike[cursor[level]];
            cursor[level] += 1;
            stats.combinations_tried += 1;
            if stats.combinations_tried % CLOCK_EVERY_COMBINATIONS == 0
                && scratch.deadline.is_some_and(|d| Instant::now() >= d)
            {
                scratch.timed_out = true;
                return None;
            }
            if scratch
                .chosen
                .iter()
                .all(|&o| o == cand || !unf.conflict(o, cand))
            {
                scratch.chosen.push(cand);
                picked = true;
                break;
            }
        }
        if picked {
            level += 1;
            if level < n {
                cursor[level] = 0;
            }
        } else {
            // Back to the last level that picked an event (skipped ones have no choice).
            loop {
                if level == 0 {
                    break 'search false;
                }
                level -= 1;
                if !skipped[level] {
                    break;
                }
            }
            scratch.chosen.pop();
        }
    };
    if !found {
        return None;
    }
    stats.found += 1;
    let mut a = Vec::new();
    let mut seen = HashSet::new();
    for &c in &scratch.chosen.clone() {
        scratch.buf.clear();
        unf.history_outside_config(c, &mut scratch.buf);
        for &x in &scratch.buf {
            if seen.insert(x) {
                a.push(x);
            }
        }
    }
    debug_assert!(
        a.iter().all(|x| !in_d.contains(x)),
        "[qpor internal bug] J ∩ D ≠ ∅"
    );
    if mode == AltMode::Sdpor {
        // Keep only the first event of J \ C that is enabled at C.
        let first = a.iter().copied().find(|&x| unf.is_enabled(x));
        return first.map(|x| vec![x]);
    }
    Some(a)
}
