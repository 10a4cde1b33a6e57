//! Algorithm 1 of the paper, Explore(C, D, A), without recursion (paper.md §2.1, §2.6).
//!
//! ```text
//! Explore(C, D, A):
//!  1  add ex(C) to U
//!  2  if en(C) ⊆ D: return                 // maximal configuration, or SSB leaf
//!  3  if A = ∅: choose e from en(C) \ D
//!  4  else:     choose e from A ∩ en(C)
//!  5  Explore(C ∪ {e}, D, A \ {e})
//!  6  if ∃ J ∈ Alt(C, D ∪ {e}):
//!  7      Explore(C, D ∪ {e}, J \ C)
//!  8  U := U ∩ Q_{C,D}
//! ```
//!
//! The recursion is unrolled as Dpu does (dpu.md §4.2): the *trail* holds one level per
//! event of C, each remembering the event chosen there and how long D was when it was
//! chosen. Going forward (lines 2–5) pushes levels; at a leaf, cex(C) is added to U (line 1
//! for every prefix of C at once: cex of a prefix is contained in cex(C)); going back pops a
//! level, restores D, adds the popped event and asks Alt (line 6); an alternative starts a
//! new forward run at the same level (line 7), none pops further. D is a stack whose
//! entries above a level's mark belong to deeper calls. Pruning (line 8) is amortised: when
//! U has doubled since the last time, it is cut to the causal closure of C ∪ D and the
//! immediate conflicts of C ∪ D, which contains Q_{C',D'} of every call on the trail.
//!
//! # Invariants (checked in debug builds)
//! - D ∩ C = ∅, every event of D is an extension of C.
//! - A ∩ D = ∅; A ∩ en(C) ≠ ∅ whenever A ≠ ∅.
//! - leaves = maximal configurations + SSBs; in optimal mode there is no SSB.

use super::alt::{alternative, AltMode, AltScratch, AltStats};
use crate::check::{Finding, FindingKind, Observer, Progress, StepNames, Witness};
use crate::system::{classify_dead, DeadKind, Local, System};
use crate::unfold::{EventId, UnfoldError, UnfoldStats, Unfolding};
use hashbrown::HashSet;
use std::time::{Duration, Instant};

/// Options of an exploration.
#[derive(Clone, Copy, Debug, Default)]
pub struct QporOptions {
    /// How alternatives are computed.
    pub alt: AltMode,
    /// Explore everything (every maximal configuration) instead of stopping at the first
    /// deadlock or fault.
    pub all: bool,
    /// Stop (inconclusive) after this much time.
    pub time_limit: Option<Duration>,
    /// Do not prune U (for measurements and debugging).
    pub no_prune: bool,
}

/// What an exploration found.
#[derive(Clone, Debug, Default)]
pub struct QporOutcome {
    /// Deadlocks, faults and (with `all`) terminations, one per distinct state, in
    /// discovery order.
    pub findings: Vec<Finding>,
    /// Why the exploration stopped early, if it did.
    pub stopped: Option<String>,
    /// Leaves with en(C) = ∅ (dead states and cutoff leaves).
    pub max_configurations: u64,
    /// Sleep-set-blocked leaves.
    pub ssbs: u64,
    /// Maximal configurations whose state still enables a step (stopped by cutoffs).
    pub cutoff_leaves: u64,
    /// Maximal configurations whose state is a deadlock.
    pub deadlock_leaves: u64,
    /// Maximal configurations whose state is final.
    pub termination_leaves: u64,
    /// Longest configuration explored.
    pub max_depth: u64,
    /// Counters of Alt.
    pub alt: AltStats,
    /// Counters of the unfolding at the end.
    pub unfolding: UnfoldStats,
    /// Times U was pruned.
    pub prunes: u64,
}

/// What a leaf of the exploration tree is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LeafKind {
    /// A maximal configuration whose state is a deadlock.
    Deadlock,
    /// A maximal configuration whose state is final.
    Termination,
    /// A maximal configuration stopped by cutoffs (its state still enables a step).
    Cutoff,
    /// A maximal configuration reaching a fault.
    Fault,
    /// A sleep-set-blocked leaf: en(C) ⊆ D, C not maximal.
    Ssb,
}

/// Follows the binary exploration tree of Algorithm 1 as it is built, e.g. to draw it.
/// Calls come in depth-first order: `left` goes down the left child (C ∪ {e}), `right`
/// turns the current node into its right child (D ∪ {e}, aiming at the alternative), `leaf`
/// ends a branch, `up` returns from a left child.
pub trait TreeListener {
    /// The current call adds `e` (action `a`) to C: the left child.
    fn left(&mut self, _e: EventId, _a: crate::system::ActionId) {}
    /// Back from the left child of the node at configuration size `depth`, whose event was
    /// `e`; an alternative `j` (= J \ C) was found, so the right child follows.
    fn right(&mut self, _depth: usize, _e: EventId, _j: &[EventId]) {}
    /// The current node is a leaf.
    fn leaf(&mut self, _kind: LeafKind) {}
    /// Back from the left child of the node at configuration size `depth` with no
    /// alternative: that node is finished.
    fn up(&mut self, _depth: usize) {}
}

/// A listener that ignores the tree.
pub struct NoTree;

impl TreeListener for NoTree {}

struct Level {
    chosen: EventId,
    d_len: usize,
}

const CLOCK_EVERY: u64 = 64;
const PROGRESS_EVERY: f64 = 0.25;
const PRUNE_MIN: u64 = 4096;

/// Runs Algorithm 1 on `unf` (an unfolding of `sys` with C = ∅).
pub fn explore<U: Unfolding + ?Sized, S: System + ?Sized>(
    unf: &mut U,
    sys: &S,
    opts: &QporOptions,
    observer: &mut dyn Observer,
    tree: &mut dyn TreeListener,
) -> Result<QporOutcome, crate::system::ModelError> {
    let start = Instant::now();
    let mut out = QporOutcome::default();
    let mut levels: Vec<Level> = Vec::new();
    let mut d: Vec<EventId> = Vec::new();
    let mut in_d: HashSet<EventId> = HashSet::new();
    let mut a: Vec<EventId> = Vec::new();
    let mut en: Vec<EventId> = Vec::new();
    let mut scratch = AltScratch::default();
    scratch.set_deadline(opts.time_limit.map(|limit| start + limit));
    let mut seen_states: HashSet<Vec<Local>> = HashSet::new();
    let mut names = StepNames::default();
    let mut steps = Vec::new();
    let mut iterations = 0u64;
    let mut last_progress = 0.0;
    let mut alive_after_prune = 0u64;
    // C's prefix of this length had its cex added at an earlier leaf.
    let mut cex_done = 0usize;

    if let Some(f) = fault_finding(sys, unf, unf.config_state(), &mut names) {
        out.findings.push(f);
        if !opts.all {
            out.unfolding = unf.stats();
            return Ok(out);
        }
    }

    'outer: loop {
        // Forward: lines 2-5, repeatedly, until a leaf.
        loop {
            iterations += 1;
            if iterations % CLOCK_EVERY == 0 {
                let secs = start.elapsed().as_secs_f64();
                if let Some(limit) = opts.time_limit {
                    if start.elapsed() >= limit {
                        out.stopped = Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
                        break 'outer;
                    }
                }
                if secs - last_progress >= PROGRESS_EVERY {
                    last_progress = secs;
                    let s = unf.stats();
                    observer.progress(&Progress {
                        seconds: secs,
                        counters: vec![
                            ("max_configurations", out.max_configurations),
                            ("ssbs", out.ssbs),
                            ("events", s.events_created),
                            ("live_events", s.events_alive),
                        ],
                    });
                }
            }
            en.clear();
            match unf.enabled(&mut en) {
                Ok(()) => {}
                Err(UnfoldError::EventLimit(n)) => {
                    out.stopped = Some(format!("event limit of {n} reached"));
                    break 'outer;
                }
                Err(UnfoldError::TimeLimit) => {
                    let limit = opts.time_limit.unwrap_or_default();
                    out.stopped = Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
                    break 'outer;
                }
                Err(UnfoldError::Model(e)) => return Err(e),
            }
            if en.iter().all(|e| in_d.contains(e)) {
                // A leaf: add cex(C) to U for every prefix of C at once.
                match unf.add_conflicting_extensions(cex_done.min(unf.config().len())) {
                    Ok(_) => cex_done = unf.config().len(),
                    Err(UnfoldError::EventLimit(n)) => {
                        out.stopped = Some(format!("event limit of {n} reached"));
                        break 'outer;
                    }
                    Err(UnfoldError::TimeLimit) => {
                        let limit = opts.time_limit.unwrap_or_default();
                        out.stopped = Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
                        break 'outer;
                    }
                    Err(UnfoldError::Model(e)) => return Err(e),
                }
                out.max_depth = out.max_depth.max(unf.config().len() as u64);
                if en.is_empty() {
                    out.max_configurations += 1;
                    let state = unf.config_state().to_vec();
                    if crate::system::find_fault(sys, &state).is_some() {
                        // Reported when the fault appeared.
                        tree.leaf(LeafKind::Fault);
                    } else {
                        steps.clear();
                        sys.enabled_steps(&state, &mut steps);
                        if !steps.is_empty() {
                            out.cutoff_leaves += 1;
                            tree.leaf(LeafKind::Cutoff);
                        } else {
                            let kind = classify_dead(sys, &state);
                            match kind {
                                DeadKind::Deadlock => out.deadlock_leaves += 1,
                                DeadKind::Termination => out.termination_leaves += 1,
                            }
                            tree.leaf(match kind {
                                DeadKind::Deadlock => LeafKind::Deadlock,
                                DeadKind::Termination => LeafKind::Termination,
                            });
                            if (kind == DeadKind::Deadlock || opts.all) && seen_states.insert(state.clone()) {
                                out.findings.push(Finding {
                                    kind: kind.into(),
                                    state: sys.describe_state(&state),
                                    message: None,
                                    witness: witness(sys, unf, &mut names),
                                });
                                if kind == DeadKind::Deadlock && !opts.all {
                                    break 'outer;
                                }
                            }
                        }
                    }
                } else {
                    out.ssbs += 1;
                    tree.leaf(LeafKind::Ssb);
                    debug_assert!(
                        opts.alt != AltMode::Optimal,
                        "[qpor internal bug] SSB in optimal mode"
                    );
                }
                break;
            }
            // Lines 3-4: choose e.
            let e = if a.is_empty() {
                en.iter().copied().find(|e| !in_d.contains(e))
            } else {
                en.iter().copied().find(|e| a.contains(e))
            };
            let Some(e) = e else {
                return Err(crate::system::ModelError::new(
                    "[qpor internal bug] the alternative has no event enabled at C",
                ));
            };
            a.retain(|&x| x != e);
            levels.push(Level {
                chosen: e,
                d_len: d.len(),
            });
            tree.left(e, unf.action(e));
            unf.push(e);
            if !unf.is_fault(e) {
                continue;
            }
            let state = unf.config_state();
            if let Some(f) = fault_finding(sys, unf, state, &mut names) {
                let key = state.to_vec();
                if seen_states.insert(key) {
                    out.findings.push(f);
                    if !opts.all {
                        break 'outer;
                    }
                }
            }
        }
        debug_assert!(
            a.is_empty(),
            "[qpor internal bug] leaf reached with events of A left"
        );
        // Backward: lines 6-8.
        loop {
            let Some(level) = levels.pop() else {
                break 'outer;
            };
            let e = unf.pop();
            debug_assert_eq!(e, level.chosen);
            cex_done = cex_done.min(unf.config().len());
            for x in d.drain(level.d_len..) {
                in_d.remove(&x);
            }
            d.push(e);
            in_d.insert(e);
            debug_assert!(
                d.iter().all(|x| !unf.in_config(*x)),
                "[qpor internal bug] D ∩ C ≠ ∅"
            );
            if !opts.no_prune {
                let alive = unf.stats().events_alive;
                if alive > PRUNE_MIN && alive > 2 * alive_after_prune {
                    let mut keep: Vec<EventId> = d.clone();
                    let mut buf = Vec::new();
                    for &x in d.iter().chain(unf.config().to_vec().iter()) {
                        buf.clear();
                        unf.immediate_conflicts(x, &mut buf);
                        keep.extend_from_slice(&buf);
                    }
                    unf.prune(&keep);
                    out.prunes += 1;
                    alive_after_prune = unf.stats().events_alive;
                }
            }
            match alternative(unf, &d, &in_d, opts.alt, &mut out.alt, &mut scratch) {
                Some(j) => {
                    tree.right(unf.config().len(), e, &j);
                    a = j;
                    continue 'outer;
                }
                None if scratch.timed_out() => {
                    let limit = opts.time_limit.unwrap_or_default();
                    out.stopped = Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
                    break 'outer;
                }
                None => {
                    tree.up(unf.config().len());
                    d.pop();
                    in_d.remove(&e);
                }
            }
        }
    }
    out.unfolding = unf.stats();
    Ok(out)
}

/// The configuration C as a firing sequence.
fn witness<U: Unfolding + ?Sized, S: System + ?Sized>(sys: &S, unf: &U, names: &mut StepNames) -> Witness {
    Witness {
        steps: unf
            .config()
            .iter()
            .map(|&e| names.step(sys, unf.action(e)))
            .collect(),
    }
}

/// The first fault in `state`, as a finding reached by C.
fn fault_finding<U: Unfolding + ?Sized, S: System + ?Sized>(
    sys: &S,
    unf: &U,
    state: &[Local],
    names: &mut StepNames,
) -> Option<Finding> {
    let (c, msg) = crate::system::find_fault(sys, state)?;
    Some(Finding {
        kind: FindingKind::Fault,
        state: sys.describe_state(state),
        message: Some(format!("{}: {msg}", sys.component_name(c))),
        witness: witness(sys, unf, names),
    })
}
