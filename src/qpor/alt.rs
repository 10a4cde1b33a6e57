//! Alternatives (docs/paper.md#clues-and-alternatives, docs/paper.md#k-partial-alternatives,
//! docs/paper.md#combs).
//!
//! An alternative to D after C is a set J of events such that C ∪ J is a configuration,
//! J ∩ D = ∅, and every event of D is in conflict with some event of J; a k-partial
//! alternative needs that only for k events of D. They are computed with a *comb*: one
//! spike per chosen event d of D still enabled at C (the unjustified ones, newest first),
//! holding the events of U in immediate conflict with d, filtered (not in D, compatible
//! with C, and — for k-partial — not above an unjustified event of D); the first pairwise
//! conflict-free combination ⟨e₁…e_k⟩ gives J = \[e₁\] ∪ … ∪ \[e_k\]. Finding one is
//! NP-complete for k = ∞ (docs/paper.md#theorem-41) and polynomial for fixed k: k-partial combs are
//! searched depth-first in spike order, the optimal comb with forward checking
//! (`optimal_combination`).
//!
//! # Invariants
//! - The returned A = J \ C is disjoint from D, and C ∪ A is a configuration.
//! - In optimal mode every unjustified event of D gets a spike.

use crate::engine::CancelToken;
use crate::unfold::EventId;
use crate::unfold::Unfolding;
use fixedbitset::FixedBitSet;
use hashbrown::{HashMap, HashSet};
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

/// k = 3: on the Table-1 families (first deadlock, ERV cutoffs) it is as fast as optimal
/// alternatives, with few or no SSBs, while each comb stays polynomial; k = 2 leaves up to
/// 20× more SSBs and is slower on dispatcher, multiprodcon and poke (benches/README.md).
impl Default for AltMode {
    fn default() -> Self {
        AltMode::KPartial(3)
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

impl AltStats {
    /// Adds the counters of another run (the tasks of a parallel exploration).
    pub fn add(&mut self, o: &AltStats) {
        self.calls += o.calls;
        self.combs += o.combs;
        self.found += o.found;
        self.spikes += o.spikes;
        self.max_spikes = self.max_spikes.max(o.max_spikes);
        self.combinations_tried += o.combinations_tried;
    }
}

/// Reusable buffers for [`alternative`], and the deadline its comb search honours.
#[derive(Default)]
pub struct AltScratch {
    spikes: Vec<Vec<EventId>>,
    chosen: Vec<EventId>,
    buf: Vec<EventId>,
    deadline: Option<Instant>,
    cancel: Option<CancelToken>,
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

    /// Sets a cancel flag the comb search watches with the clock: once it is set, the
    /// search gives up as at the deadline.
    pub fn set_cancel(&mut self, cancel: CancelToken) {
        self.cancel = Some(cancel);
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
        unf.compatible_immediate_conflicts(x, &mut scratch.buf);
        if unf.stop_requested() {
            // The list may be cut short: no verdict can rest on it.
            scratch.timed_out = true;
            return None;
        }
        let spike = &mut scratch.spikes[i];
        spike.clear();
        for &c in &scratch.buf {
            if in_d.contains(&c) {
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

    let found = if mode == AltMode::Optimal {
        match optimal_combination(unf, selected, stats, scratch) {
            Some(found) => found,
            None => {
                scratch.timed_out = true;
                return None;
            }
        }
    } else {
        match partial_combination(unf, stats, scratch) {
            Some(found) => found,
            None => {
                scratch.timed_out = true;
                return None;
            }
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

/// Whether the clock says to give up, looked at every [`CLOCK_EVERY_COMBINATIONS`] tries.
fn past_deadline(stats: &AltStats, scratch: &AltScratch) -> bool {
    stats.combinations_tried % CLOCK_EVERY_COMBINATIONS == 0
        && (scratch.deadline.is_some_and(|d| Instant::now() >= d)
            || scratch.cancel.as_ref().is_some_and(|c| c.is_cancelled()))
}

/// The k-partial comb: the first pairwise conflict-free combination, one event per spike
/// in spike order, depth-first (k is small, so the plain search is polynomial). Leaves it
/// in `scratch.chosen`; `None` when the deadline passed.
fn partial_combination<U: Unfolding + ?Sized>(
    unf: &U,
    stats: &mut AltStats,
    scratch: &mut AltScratch,
) -> Option<bool> {
    let n = scratch.spikes.len();
    scratch.chosen.clear();
    let mut cursor = vec![0usize; n];
    let mut level = 0usize;
    loop {
        if level == n {
            return Some(true);
        }
        let spike = &scratch.spikes[level];
        let mut picked = false;
        while cursor[level] < spike.len() {
            let cand = spike[cursor[level]];
            cursor[level] += 1;
            stats.combinations_tried += 1;
            if past_deadline(stats, scratch) {
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
            if level == 0 {
                return Some(false);
            }
            level -= 1;
            scratch.chosen.pop();
        }
    }
}

/// Largest number of bits [`optimal_combination`] spends on cached conflict rows (16 MiB):
/// past it, a row lives for one choice only.
const ROW_CACHE_BITS: usize = 1 << 27;

/// The optimal comb: a set of events, pairwise conflict-free, that conflicts with every
/// D-event of `selected` (spike i holds the candidates for `selected[i]`). Left in
/// `scratch.chosen`; `None` when the deadline passed.
///
/// A backtracking search with forward checking: choosing an event justifies every spike
/// whose D-event it conflicts with (that spike needs no choice of its own) and removes
/// from the other spikes the candidates it conflicts with; a spike left empty fails the
/// choice at once, and the next spike to decide is an unjustified one with the fewest
/// candidates left (a single one is forced). On the Theorem 4.1 instances this is DPLL
/// with unit propagation: justified spikes are satisfied clauses, removals falsified
/// literals. It is complete: a solution's event for the chosen spike is never removed
/// while the choices so far are part of that solution.
///
/// The same event is chosen in many branches, so its conflicts with the candidates and
/// D-events (its *row*) are remembered for the call as they are tested, within a memory
/// bound: a conflict test walks two history summaries, a row lookup reads two bits.
fn optimal_combination<U: Unfolding + ?Sized>(
    unf: &U,
    selected: &[EventId],
    stats: &mut AltStats,
    scratch: &mut AltScratch,
) -> Option<bool> {
    let n = selected.len();
    let mut search = CombSearch::new(&scratch.spikes[..n]);
    let mut frames: Vec<Frame> = Vec::new();
    let chosen = &mut scratch.chosen;
    chosen.clear();
    // `descend`: choose the next spike; otherwise try the top frame's next candidate.
    let mut descend = true;
    loop {
        if descend {
            let Some(t) = search.next_spike() else {
                return Some(true);
            };
            frames.push(Frame {
                spike: t,
                next: search.start[t],
                mark: search.trail.len(),
            });
        }
        // Try the top frame's next live candidate.
        let Some(f) = frames.last_mut() else {
            return Some(false);
        };
        let s = f.spike;
        let end = search.start[s + 1];
        while f.next < end && search.removed[f.next] {
            f.next += 1;
        }
        if f.next == end {
            // Exhausted: undo the choice of the frame below and try its next candidate.
            frames.pop();
            descend = false;
            let Some(below) = frames.last() else {
                return Some(false);
            };
            search.undo(below.mark);
            chosen.pop();
            continue;
        }
        let cand = search.flat[f.next];
        f.next += 1;
        let mark = f.mark;
        stats.combinations_tried += 1;
        if stats.combinations_tried % CLOCK_EVERY_COMBINATIONS == 0
            && scratch.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return None;
        }
        chosen.push(cand);
        descend = search.choose(unf, selected, s, cand);
        if !descend {
            search.undo(mark);
            chosen.pop();
        }
    }
}

/// One decided spike of the optimal comb search: which one, the next candidate to try (a
/// flat index), and where its trail starts.
struct Frame {
    spike: usize,
    next: usize,
    mark: usize,
}

/// An undoable change of the optimal comb search: a candidate removed (flat index), or a
/// spike justified.
enum Change {
    Removed(usize),
    Justified(usize),
}

/// The state of the optimal comb search below the choice stack: the candidates of all
/// spikes, which are still alive, which spikes are justified, the trail that undoes it,
/// and the cached conflict rows.
struct CombSearch {
    /// The candidates of all spikes in one array; spike t owns `flat[start[t]..start[t + 1]]`.
    flat: Vec<EventId>,
    start: Vec<usize>,
    spike_of: Vec<usize>,
    removed: Vec<bool>,
    /// Live candidates per spike.
    alive: Vec<usize>,
    justified: Vec<bool>,
    trail: Vec<Change>,
    rows: HashMap<EventId, Row>,
    /// The row of a candidate that did not fit the cache, for one choice.
    spare: Row,
    row_len: usize,
}

impl CombSearch {
    fn new(spikes: &[Vec<EventId>]) -> CombSearch {
        let n = spikes.len();
        let mut flat: Vec<EventId> = Vec::new();
        let mut start: Vec<usize> = Vec::with_capacity(n + 1);
        let mut spike_of: Vec<usize> = Vec::new();
        for (t, spike) in spikes.iter().enumerate() {
            start.push(flat.len());
            flat.extend_from_slice(spike);
            spike_of.extend(std::iter::repeat_n(t, spike.len()));
        }
        start.push(flat.len());
        let row_len = flat.len() + n;
        CombSearch {
            removed: vec![false; flat.len()],
            alive: (0..n).map(|t| start[t + 1] - start[t]).collect(),
            justified: vec![false; n],
            trail: Vec::new(),
            rows: HashMap::new(),
            spare: Row::new(row_len),
            row_len,
            flat,
            start,
            spike_of,
        }
    }

    /// The unjustified spike with the fewest live candidates, if any is left.
    fn next_spike(&self) -> Option<usize> {
        let t = (0..self.alive.len())
            .filter(|&t| !self.justified[t])
            .min_by_key(|&t| self.alive[t])?;
        // Spikes start non-empty and a choice that empties an unjustified one is undone at
        // once, so every spike left to decide has a candidate.
        debug_assert!(
            self.alive[t] > 0,
            "[qpor internal bug] an empty spike survived a choice"
        );
        Some(t)
    }

    /// Undoes the changes recorded after `mark`.
    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            match self.trail.pop() {
                Some(Change::Removed(i)) => {
                    self.removed[i] = false;
                    self.alive[self.spike_of[i]] += 1;
                }
                Some(Change::Justified(t)) => self.justified[t] = false,
                None => break,
            }
        }
    }

    /// Chooses `cand` for spike `s`: justifies the spikes whose D-event it conflicts with
    /// and removes the candidates it conflicts with from the others. Returns false when an
    /// unjustified spike is left empty (the caller undoes the choice).
    fn choose<U: Unfolding + ?Sized>(
        &mut self,
        unf: &U,
        selected: &[EventId],
        s: usize,
        cand: EventId,
    ) -> bool {
        let CombSearch {
            flat,
            start,
            removed,
            alive,
            justified,
            trail,
            rows,
            spare,
            row_len,
            ..
        } = self;
        let row = if let Some(row) = rows.get_mut(&cand) {
            row
        } else if (rows.len() + 1) * 2 * *row_len <= ROW_CACHE_BITS {
            rows.entry(cand).or_insert_with(|| Row::new(*row_len))
        } else {
            spare.clear();
            spare
        };
        for t in 0..selected.len() {
            if justified[t] {
                continue;
            }
            if t == s || row.conflict(flat.len() + t, || unf.conflict(cand, selected[t])) {
                justified[t] = true;
                trail.push(Change::Justified(t));
                continue;
            }
            for i in start[t]..start[t + 1] {
                if !removed[i] && row.conflict(i, || unf.conflict(cand, flat[i])) {
                    removed[i] = true;
                    alive[t] -= 1;
                    trail.push(Change::Removed(i));
                }
            }
            if alive[t] == 0 {
                return false;
            }
        }
        true
    }
}

/// The conflicts of one event with the candidates and D-events of a comb (bit i for flat
/// candidate i, then one bit per D-event), filled in as they are asked for.
struct Row {
    known: FixedBitSet,
    conflict: FixedBitSet,
}

impl Row {
    fn new(len: usize) -> Row {
        Row {
            known: FixedBitSet::with_capacity(len),
            conflict: FixedBitSet::with_capacity(len),
        }
    }

    fn clear(&mut self) {
        self.known.clear();
        self.conflict.clear();
    }

    /// Bit `i`, computed by `test` the first time it is asked for.
    fn conflict(&mut self, i: usize, test: impl FnOnce() -> bool) -> bool {
        if !self.known.put(i) {
            self.conflict.set(i, test());
        }
        self.conflict.contains(i)
    }
}
