//! Algorithm 1 of the paper, Explore(C, D, A), without recursion
//! (docs/paper.md#algorithm-1, docs/paper.md#how-dpu-runs-algorithm-1).
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
//! The recursion is unrolled as Dpu does (docs/paper.md#how-dpu-runs-algorithm-1): the *trail* holds one level per
//! event of C, each remembering the event chosen there and how long D was when it was
//! chosen. Going forward (lines 2–5) pushes levels; at a leaf, cex(C) is added to U (line 1
//! for every prefix of C at once: cex of a prefix is contained in cex(C)); going back pops a
//! level, restores D, adds the popped event and asks Alt (line 6); an alternative starts a
//! new forward run at the same level (line 7), none pops further. D is a stack whose
//! entries above a level's mark belong to deeper calls. Pruning (line 8) is amortised: when
//! U has grown by a fifth since the last time, it is cut to the causal closure of C ∪ D
//! and the immediate conflicts of C ∪ D, which contains Q_{C',D'} of every call on the
//! trail.
//!
//! # Invariants (checked in debug builds)
//! - D ∩ C = ∅, every event of D is an extension of C.
//! - A ∩ D = ∅; A ∩ en(C) ≠ ∅ whenever A ≠ ∅.
//! - leaves = maximal configurations + SSBs; in optimal mode there is no SSB.

use super::alt::{alternative, AltMode, AltScratch, AltStats};
use crate::engine::{
    Budget, Finding, FindingKind, Observer, Pacer, Progress, StepNames, StopReason, Witness,
};
use crate::system::{classify_dead, ActionId, DeadKind, Local, ModelError, Step, System};
use crate::unfold::{EventId, UnfoldError, UnfoldStats, Unfolding};
use hashbrown::HashSet;
use std::time::Instant;

/// Options of an exploration.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExploreOptions {
    /// How alternatives are computed.
    pub alt: AltMode,
    /// Explore everything (every maximal configuration) instead of stopping at the first
    /// deadlock or fault.
    pub all: bool,
    /// Do not prune U (for measurements and debugging).
    pub no_prune: bool,
}

/// What an exploration found. Serialised, only its counts (the processes of a distributed
/// run send findings and stops in forms of their own).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ExploreOutcome {
    /// Deadlocks, faults and (with `all`) terminations, one per distinct state, in
    /// discovery order.
    #[serde(skip)]
    pub findings: Vec<Finding>,
    /// Why the exploration stopped early, if it did.
    #[serde(skip)]
    pub stopped: Option<StopReason>,
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

impl ExploreOutcome {
    /// Adds the counts of `o`, another part of the same run (a task of a parallel or
    /// distributed exploration): sums, except the depth, the peaks and the sizes, which
    /// are maxima. Findings and stops are the caller's.
    pub fn add_counts(&mut self, o: &ExploreOutcome) {
        self.max_configurations += o.max_configurations;
        self.ssbs += o.ssbs;
        self.cutoff_leaves += o.cutoff_leaves;
        self.deadlock_leaves += o.deadlock_leaves;
        self.termination_leaves += o.termination_leaves;
        self.max_depth = self.max_depth.max(o.max_depth);
        self.alt.add(&o.alt);
        self.prunes += o.prunes;
        let (u, v) = (&mut self.unfolding, &o.unfolding);
        u.events_created += v.events_created;
        u.cutoff_events += v.cutoff_events;
        u.events_alive_peak = u.events_alive_peak.max(v.events_alive_peak);
        u.bytes = u.bytes.max(v.bytes);
    }
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
    fn left(&mut self, _e: EventId, _a: ActionId) {}
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

const PROGRESS_EVERY: f64 = 0.25;
const PRUNE_MIN: u64 = 4096;

/// U is pruned when its live events pass this ratio (6/5) of what the last pruning left.
/// A small U is faster as well as smaller: the sibling walks of Alt and en(C) meet fewer
/// dead branches. Against doubling, on Table 1 (optimal, `--cutoff none`): Pol(12,3)
/// 7.5 s and 153 MB → 4.2–5.0 s and 63 MB, Mpat(6) 11 s → 8.3–9.1 s, MPC(4,5) 31 s →
/// 26 s, Disp(5,4) and Pi(8) unchanged; at 11/10 Mpat(6) is slower again (10–11.6 s),
/// at 21/20 the prunes themselves cost more (benches/README.md).
const PRUNE_GROWTH: (u64, u64) = (6, 5);

/// Runs Algorithm 1 on `unf` (an unfolding of `sys` with C = ∅) until it is done, a
/// deadlock or fault is found (unless `opts.all`), or `budget` runs out.
pub fn explore<U: Unfolding + ?Sized, S: System + ?Sized>(
    unf: &mut U,
    sys: &S,
    opts: &ExploreOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    tree: &mut dyn TreeListener,
) -> Result<ExploreOutcome, ModelError> {
    let mut x = Explorer::new(unf, sys, opts, budget, tree);
    let initial_fault = x.fault_finding();
    let stop_at_once = initial_fault.is_some() && !opts.all;
    x.out.findings.extend(initial_fault);
    if !stop_at_once {
        while x.forward(observer, &mut || false)? && x.backward() {}
    }
    x.out.unfolding = x.unf.stats();
    Ok(x.out)
}

/// Algorithm 1 from the node Explore(C, D, A) where C is the unfolding's current
/// configuration: the maximal configurations that contain C and avoid D, never going below
/// C. It can pause at a node before choosing its event, so that the parallel exploration
/// ([`super::driver`]) can split the work left, and be restarted at another node. U must
/// already hold what Alt needs for the events of D.
pub(crate) struct Subtree<'x, U: Unfolding + ?Sized, S: System + ?Sized> {
    x: Explorer<'x, U, S>,
    /// Nothing is left to explore (see [`Subtree::finish`]).
    done: bool,
    /// The first step goes back up from the deepest level (see [`Subtree::resume`]).
    backtrack_first: bool,
}

/// Why [`Subtree::run`] returned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SubtreeEnd {
    /// The subtree is explored, or the exploration stopped (see the outcome).
    Finished,
    /// Paused at a node that is not a leaf, before choosing its event; en(C) is listed.
    Paused,
}

impl<'x, U: Unfolding + ?Sized, S: System + ?Sized> Subtree<'x, U, S> {
    /// The exploration of node (C, `d`, `a`): `d` holds extensions of C, `a` is empty or an
    /// alternative with an event enabled at C.
    pub(crate) fn new(
        unf: &'x mut U,
        sys: &'x S,
        opts: &'x ExploreOptions,
        budget: &'x Budget,
        tree: &'x mut dyn TreeListener,
        d: Vec<EventId>,
        a: Vec<EventId>,
    ) -> Self {
        let mut x = Explorer::new(unf, sys, opts, budget, tree);
        x.restart(d, a);
        Subtree {
            x,
            done: false,
            backtrack_first: false,
        }
    }

    /// The same exploration resumed at the deepest level of `trail` (each level: the event
    /// chosen, and how long D was then), as if that level's left child had just been
    /// explored: the first step adds its event to D and asks Alt. D (given to
    /// [`Subtree::new`]) is as it was at the deepest choice, plus events already added to
    /// the deepest node's D.
    pub(crate) fn resumed_at(mut self, trail: Vec<(EventId, usize)>) -> Self {
        self.x.levels = trail
            .into_iter()
            .map(|(chosen, d_len)| Level { chosen, d_len })
            .collect();
        self.x.split_looked = 0;
        self.backtrack_first = true;
        self
    }

    /// Explores until the subtree is done or `pause` says yes at a node.
    pub(crate) fn run(
        &mut self,
        observer: &mut dyn Observer,
        pause: &mut dyn FnMut() -> bool,
    ) -> Result<SubtreeEnd, ModelError> {
        if self.done {
            return Ok(SubtreeEnd::Finished);
        }
        let x = &mut self.x;
        x.paused = false;
        if std::mem::take(&mut self.backtrack_first) && !x.backward() {
            return Ok(SubtreeEnd::Finished);
        }
        while x.forward(observer, pause)? {
            if !x.backward() {
                return Ok(SubtreeEnd::Finished);
            }
        }
        Ok(if x.paused {
            SubtreeEnd::Paused
        } else {
            SubtreeEnd::Finished
        })
    }

    /// The unfolding, at C plus the events chosen on the trail.
    pub(crate) fn unf(&mut self) -> &mut U {
        self.x.unf
    }

    /// At a pause: en(C) and D of the node.
    pub(crate) fn node(&self) -> (&[EventId], &[EventId]) {
        (&self.x.en, &self.x.d)
    }

    /// The trail below the subtree's root: for each level, the event chosen there and how
    /// long D was when it was chosen.
    pub(crate) fn trail(&self) -> impl Iterator<Item = (EventId, usize)> + '_ {
        self.x.levels.iter().map(|l| (l.chosen, l.d_len))
    }

    /// Makes the current configuration the root of a new subtree, (C, `d`, `a`), keeping
    /// the counts.
    pub(crate) fn restart(&mut self, d: Vec<EventId>, a: Vec<EventId>) {
        self.x.restart(d, a);
    }

    /// Keeps `events`, and what is in immediate conflict with them, through every pruning of
    /// U, as if they were in D.
    pub(crate) fn protect(&mut self, events: Vec<EventId>) {
        self.x.protect = events;
    }

    /// The events this exploration keeps the conflicts of: D and the protected ones.
    pub(crate) fn kept(&self) -> Vec<EventId> {
        let mut kept = self.x.protect.clone();
        kept.extend_from_slice(&self.x.d);
        kept
    }

    /// Makes the first `n` levels of the trail part of the root: the subtree becomes the
    /// left child at level `n - 1`, as far as it was explored.
    pub(crate) fn drop_levels(&mut self, n: usize) {
        self.x.levels.drain(..n);
        self.x.split_looked = self.x.split_looked.saturating_sub(n);
    }

    /// How many levels at the top of the trail a look for a split already found nothing
    /// at. What a look finds at level l depends only on C_l, D_l and the event chosen
    /// there, which stay as they are while the level is on the trail, so the next look
    /// starts below them instead of walking the whole trail again.
    pub(crate) fn split_looked(&self) -> usize {
        self.x.split_looked
    }

    /// Records that a look for a split found nothing at the first `n` levels of the trail.
    pub(crate) fn set_split_looked(&mut self, n: usize) {
        self.x.split_looked = n.min(self.x.levels.len());
    }

    /// Makes the current configuration the root of an empty subtree: [`Subtree::run`]
    /// returns at once.
    pub(crate) fn finish(&mut self) {
        self.x.restart(Vec::new(), Vec::new());
        self.done = true;
    }

    /// The size of the largest maximal configuration (or cutoff leaf) reached so far.
    pub(crate) fn deepest(&self) -> u64 {
        self.x.out.max_depth
    }

    /// What was explored.
    pub(crate) fn into_outcome(self) -> ExploreOutcome {
        let mut x = self.x;
        x.out.unfolding = x.unf.stats();
        x.out
    }
}

/// The state of one exploration: the trail of levels (the unrolled recursion), D, the
/// alternative A being followed, and the scratch buffers reused at every step.
struct Explorer<'x, U: Unfolding + ?Sized, S: System + ?Sized> {
    unf: &'x mut U,
    sys: &'x S,
    opts: &'x ExploreOptions,
    budget: &'x Budget,
    tree: &'x mut dyn TreeListener,
    start: Instant,
    out: ExploreOutcome,
    levels: Vec<Level>,
    d: Vec<EventId>,
    in_d: HashSet<EventId>,
    a: Vec<EventId>,
    en: Vec<EventId>,
    scratch: AltScratch,
    /// Dead and faulty states already reported: one finding per distinct state.
    seen_states: HashSet<Vec<Local>>,
    names: StepNames,
    steps: Vec<Step>,
    iterations: u64,
    /// When to read the clock: an iteration lists en(C), which on a wide model holds
    /// thousands of events.
    pacer: Pacer,
    last_progress: f64,
    /// C's prefix of this length had its cex added at an earlier leaf.
    cex_done: usize,
    /// The last [`Explorer::forward`] stopped because its caller asked for a pause.
    paused: bool,
    /// Events outside D whose immediate conflicts pruning keeps too: the parallel
    /// exploration's continuations waiting in this replica need them.
    protect: Vec<EventId>,
    /// See [`Subtree::split_looked`]; cut back whenever the trail is.
    split_looked: usize,
}

impl<'x, U: Unfolding + ?Sized, S: System + ?Sized> Explorer<'x, U, S> {
    /// An exploration at `unf`'s current configuration with D = A = ∅.
    fn new(
        unf: &'x mut U,
        sys: &'x S,
        opts: &'x ExploreOptions,
        budget: &'x Budget,
        tree: &'x mut dyn TreeListener,
    ) -> Self {
        let mut scratch = AltScratch::default();
        scratch.set_deadline(budget.deadline());
        scratch.set_cancel(budget.cancel_token().clone());
        Explorer {
            unf,
            sys,
            opts,
            budget,
            tree,
            start: Instant::now(),
            out: ExploreOutcome::default(),
            levels: Vec::new(),
            d: Vec::new(),
            in_d: HashSet::new(),
            a: Vec::new(),
            en: Vec::new(),
            scratch,
            seen_states: HashSet::new(),
            names: StepNames::default(),
            steps: Vec::new(),
            iterations: 0,
            pacer: Pacer::default(),
            last_progress: 0.0,
            cex_done: 0,
            paused: false,
            protect: Vec::new(),
            split_looked: 0,
        }
    }

    /// Makes C the root: no levels, D = `d`, A = `a`.
    fn restart(&mut self, d: Vec<EventId>, a: Vec<EventId>) {
        self.levels.clear();
        self.split_looked = 0;
        self.in_d = d.iter().copied().collect();
        self.d = d;
        self.a = a;
    }
}

impl<U: Unfolding + ?Sized, S: System + ?Sized> Explorer<'_, U, S> {
    /// Lines 2–5, repeatedly, until a leaf. Returns false when the exploration must end
    /// (a limit, or a finding when not collecting all), true at a leaf to go back from.
    fn forward(
        &mut self,
        observer: &mut dyn Observer,
        pause: &mut dyn FnMut() -> bool,
    ) -> Result<bool, ModelError> {
        loop {
            self.iterations += 1;
            if self.pacer.due(1024 + self.en.len()) {
                if let Some(why) = self.budget.exhausted() {
                    self.out.stopped = Some(why);
                    return Ok(false);
                }
                self.report_progress(observer);
            }
            self.en.clear();
            if let Err(e) = self.unf.enabled(&mut self.en) {
                return self.stop_on(e);
            }
            if self.en.iter().all(|e| self.in_d.contains(e)) {
                return self.leaf();
            }
            if pause() {
                self.paused = true;
                return Ok(false);
            }
            // Lines 3-4: choose e.
            let e = if self.a.is_empty() {
                self.en.iter().copied().find(|e| !self.in_d.contains(e))
            } else {
                self.en.iter().copied().find(|e| self.a.contains(e))
            };
            let Some(e) = e else {
                return Err(ModelError::new(
                    "[qpor internal bug] the alternative has no event enabled at C",
                ));
            };
            self.a.retain(|&x| x != e);
            self.levels.push(Level {
                chosen: e,
                d_len: self.d.len(),
            });
            self.tree.left(e, self.unf.action(e));
            self.unf.push(e);
            if self.unf.is_fault(e) && self.record_fault() && !self.opts.all {
                return Ok(false);
            }
        }
    }

    fn report_progress(&mut self, observer: &mut dyn Observer) {
        let secs = self.start.elapsed().as_secs_f64();
        if secs - self.last_progress < PROGRESS_EVERY {
            return;
        }
        self.last_progress = secs;
        let s = self.unf.stats();
        observer.progress(&Progress {
            engine: "qpor",
            seconds: secs,
            counters: vec![
                ("max_configurations", self.out.max_configurations),
                ("ssbs", self.out.ssbs),
                ("events", s.events_created),
                ("live_events", s.events_alive),
            ],
        });
    }

    /// Why a search that gave up at its clock check did: cancelled, or out of time.
    fn why_out_of_time(&self) -> StopReason {
        self.budget
            .exhausted()
            .unwrap_or_else(|| self.budget.time_limit_reached())
    }

    /// Ends the exploration on an error of the unfolding: a limit is a stop reason, a
    /// model error is returned.
    fn stop_on(&mut self, e: UnfoldError) -> Result<bool, ModelError> {
        self.out.stopped = Some(match e {
            UnfoldError::EventLimit(n) => StopReason::EventLimit(n),
            UnfoldError::TimeLimit => self.why_out_of_time(),
            UnfoldError::Model(e) => return Err(e),
        });
        Ok(false)
    }

    /// Reports the fault C reached, once per state; whether it was new.
    fn record_fault(&mut self) -> bool {
        let Some(f) = self.fault_finding() else {
            return false;
        };
        if !self.seen_states.insert(self.unf.config_state().to_vec()) {
            return false;
        }
        self.out.findings.push(f);
        true
    }

    /// Line 2 answered yes: en(C) ⊆ D. Adds cex(C) to U (line 1 for every prefix of C at
    /// once) and classifies the leaf; returns whether to go on.
    fn leaf(&mut self) -> Result<bool, ModelError> {
        match self
            .unf
            .add_conflicting_extensions(self.cex_done.min(self.unf.config().len()))
        {
            Ok(_) => self.cex_done = self.unf.config().len(),
            Err(e) => return self.stop_on(e),
        }
        self.out.max_depth = self.out.max_depth.max(self.unf.config().len() as u64);
        if !self.en.is_empty() {
            self.out.ssbs += 1;
            self.tree.leaf(LeafKind::Ssb);
            debug_assert!(
                self.opts.alt != AltMode::Optimal,
                "[qpor internal bug] SSB in optimal mode"
            );
            return Ok(true);
        }
        self.out.max_configurations += 1;
        let state = self.unf.config_state().to_vec();
        if crate::system::find_fault(self.sys, &state).is_some() {
            // Reported when the fault appeared.
            self.tree.leaf(LeafKind::Fault);
            return Ok(true);
        }
        self.steps.clear();
        self.sys.enabled_steps(&state, &mut self.steps);
        if !self.steps.is_empty() {
            self.out.cutoff_leaves += 1;
            self.tree.leaf(LeafKind::Cutoff);
            return Ok(true);
        }
        let kind = classify_dead(self.sys, &state);
        match kind {
            DeadKind::Deadlock => self.out.deadlock_leaves += 1,
            DeadKind::Termination => self.out.termination_leaves += 1,
        }
        self.tree.leaf(match kind {
            DeadKind::Deadlock => LeafKind::Deadlock,
            DeadKind::Termination => LeafKind::Termination,
        });
        if (kind == DeadKind::Deadlock || self.opts.all) && self.seen_states.insert(state.clone()) {
            let finding = Finding::new(kind.into(), self.sys.describe_state(&state), None, self.witness());
            self.out.findings.push(finding);
            if kind == DeadKind::Deadlock && !self.opts.all {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Lines 6–8: pops levels until one has an alternative (true: explore it) or the trail
    /// is empty or the time is up (false).
    fn backward(&mut self) -> bool {
        debug_assert!(
            self.a.is_empty(),
            "[qpor internal bug] leaf reached with events of A left"
        );
        loop {
            let Some(level) = self.levels.pop() else {
                return false;
            };
            self.split_looked = self.split_looked.min(self.levels.len());
            let e = self.unf.pop();
            debug_assert_eq!(e, level.chosen);
            self.cex_done = self.cex_done.min(self.unf.config().len());
            for x in self.d.drain(level.d_len..) {
                self.in_d.remove(&x);
            }
            self.d.push(e);
            self.in_d.insert(e);
            debug_assert!(
                self.d.iter().all(|x| !self.unf.in_config(*x)),
                "[qpor internal bug] D ∩ C ≠ ∅"
            );
            if !self.opts.no_prune {
                self.prune_if_grown();
            }
            match alternative(
                self.unf,
                &self.d,
                &self.in_d,
                self.opts.alt,
                &mut self.out.alt,
                &mut self.scratch,
            ) {
                Some(j) => {
                    self.tree.right(self.unf.config().len(), e, &j);
                    self.a = j;
                    return true;
                }
                None if self.scratch.timed_out() => {
                    self.out.stopped = Some(self.why_out_of_time());
                    return false;
                }
                None => {
                    self.tree.up(self.unf.config().len());
                    self.d.pop();
                    self.in_d.remove(&e);
                }
            }
        }
    }

    /// Line 8, amortised: when U has grown by [`PRUNE_GROWTH`] since the last time, cut it
    /// to the causal closure of C ∪ D and the immediate conflicts of C ∪ D.
    fn prune_if_grown(&mut self) {
        let stats = self.unf.stats();
        let alive = stats.events_alive;
        let (num, den) = PRUNE_GROWTH;
        if alive <= PRUNE_MIN || den * alive <= num * stats.alive_after_prune {
            return;
        }
        let mut keep: Vec<EventId> = self.d.clone();
        keep.extend_from_slice(&self.protect);
        let mut buf = Vec::new();
        for &x in self
            .d
            .iter()
            .chain(&self.protect)
            .chain(self.unf.config().to_vec().iter())
        {
            buf.clear();
            self.unf.immediate_conflicts(x, &mut buf);
            keep.extend_from_slice(&buf);
        }
        self.unf.prune(&keep);
        self.out.prunes += 1;
    }

    /// The configuration C as a firing sequence.
    fn witness(&mut self) -> Witness {
        let unf = &*self.unf;
        self.names
            .witness(self.sys, unf.config().iter().map(|&e| unf.action(e)))
    }

    /// The first fault in C's state, as a finding reached by C.
    fn fault_finding(&mut self) -> Option<Finding> {
        let state = self.unf.config_state();
        let (c, msg) = crate::system::find_fault(self.sys, state)?;
        let state = self.sys.describe_state(state);
        Some(Finding::new(
            FindingKind::Fault,
            state,
            Some(format!("{}: {msg}", self.sys.component_name(c))),
            self.witness(),
        ))
    }
}
