//! The random-walk deadlock hunter: many random firing sequences from the initial state,
//! with restarts, seeded so that a run can be repeated.
//!
//! It stores no states, so it reaches deep deadlocks of huge state spaces that a
//! breadth-first search never gets to, but it can only answer "deadlock" (or "fault"): a
//! walk that finds nothing proves nothing, and the engine then ends inconclusive when its
//! budget runs out.
//!
//! # Walk lengths
//! A walk ends at a dead state or after a length limit, then the next one starts from the
//! initial state. The limits cycle through 2^10, 2^11, …, 2^20 steps: short walks sample
//! the many shallow dead states, long ones reach deep ones, and no single guess of the
//! depth can be wrong for long.
//!
//! # Enabled sets
//! An action's enabledness depends only on the local states of the components it touches,
//! so after a step only the actions touching the changed components are re-examined
//! ([`System::enabled_steps_touching`]); a step costs what its neighbourhood costs, not
//! what the whole model does.

mod reach;
use crate::engine::Question;
use crate::engine::{
    Asked, Budget, Counters, Engine, Finding, FindingKind, Observer, Pacer, Progress, Report, RunResult,
    Settings, Stats, StepNames, StopReason,
};
use crate::system::model::{ModelKind, SystemOptions};
use crate::system::{classify_dead, find_fault, ActionId, Local, ModelError, Step, System};
use hashbrown::{HashMap, HashSet};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// Seconds between two progress reports.
const PROGRESS_EVERY: f64 = 0.25;

/// The shortest and longest walk limits, as powers of two (see the module comment).
const SHORTEST_WALK_LOG2: u32 = 10;
const LONGEST_WALK_LOG2: u32 = 20;

/// Witnesses longer than this are not shortened (cutting their cycles would store every
/// state of the walk).
const SHORTEN_UP_TO: usize = 1 << 20;

/// Options of the random walk.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// The seed of the random choices: the same seed gives the same walks.
    pub seed: u64,
    /// Keep walking after the first deadlock and report every distinct dead state reached
    /// (terminations included) until the budget runs out.
    pub all: bool,
}

/// The options are the random-walk engine.
impl Engine for WalkOptions {
    fn name(&self) -> &'static str {
        "walk"
    }

    /// Faults of any system are what it hunts, the OneSafe view's are the markings with
    /// two tokens on a place, and a net's properties are decided by the markings it meets
    /// (the ones a witness decides: TRUE `EF`, FALSE `AG`).
    /// On bound questions it raises the lower bounds with the markings it meets; on
    /// liveness, a walk's end from which some transition never fires again (searched when
    /// its markings are few) makes the net not live.
    fn answers(&self, question: &Question, kind: ModelKind) -> bool {
        *question == Question::Deadlock || (question.read_off_markings() && kind == ModelKind::Net)
    }

    fn run(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult {
        if let Some((net, bounds)) = asked.net_bounds() {
            return Ok(reach::walk_bounds(net, bounds, self, asked.budget, observer));
        }
        if let Some(net) = asked.net_liveness() {
            return Ok(reach::walk_liveness(net, self, asked.budget, observer));
        }
        if let Some((net, properties)) = asked.net_properties() {
            return Ok(reach::walk_properties(
                net,
                properties,
                self,
                asked.budget,
                observer,
            ));
        }
        asked.search_system(&self.system, |sys, system| {
            walk(sys, &WalkOptions { system, ..*self }, asked.budget, observer)
        })
    }
}

/// Walks `sys` at random until a deadlock or fault is found (every dead state, with
/// `opts.all`) or the budget runs out.
pub fn walk<S: System + ?Sized>(
    sys: &S,
    opts: &WalkOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let start = Instant::now();
    let mut walker = Walker {
        sys,
        rng: SmallRng::seed_from_u64(opts.seed),
        counters: WalkCounters::default(),
        pacer: Pacer::default(),
        names: StepNames::default(),
        findings: Vec::new(),
        seen_dead: HashSet::new(),
        enabled: EnabledSet::default(),
    };
    let stopped = walker.run(opts.all, budget, observer, start)?;
    let stats = Stats::new(Counters::of(&walker.counters), start.elapsed().as_secs_f64());
    Ok(Report::new(
        "walk",
        walker.findings,
        stopped,
        stats,
        Settings::default(),
    ))
}

/// How one walk ended.
enum WalkEnd {
    /// It reached a dead or faulty state (recorded).
    Found,
    /// It reached its length limit or a dead state already recorded.
    Restart,
    /// The budget ran out.
    Stop(StopReason),
}

struct Walker<'s, S: System + ?Sized> {
    sys: &'s S,
    rng: SmallRng,
    counters: WalkCounters,
    names: StepNames,
    findings: Vec<Finding>,
    /// Dead states already reported (with `all`).
    seen_dead: HashSet<Vec<Local>>,
    /// When to read the clock: a step copies the whole state, so wide models read it
    /// after fewer steps.
    pacer: Pacer,
    /// The steps enabled at the current walk's state.
    enabled: EnabledSet,
}

/// The steps enabled at a walk's state, each action's position beside them: a firing
/// updates the set in time proportional to the steps it disables and enables, not to the
/// set's size. Nets with tens of thousands of concurrent transitions spent three quarters
/// of the walk filtering the whole list after every step.
#[derive(Default)]
struct EnabledSet {
    steps: Vec<Step>,
    /// Per action index: the walk that set the entry, and the action's position in
    /// `steps`; an entry of another walk means "absent".
    at: Vec<(u64, u32)>,
    /// The current walk's number (from 1; entries of 0 were never set).
    walk: u64,
}

impl EnabledSet {
    /// Empties the set for a new walk.
    fn reset(&mut self) {
        self.steps.clear();
        self.walk += 1;
    }

    /// Adds `step`, unless a step of its action is in the set.
    fn insert(&mut self, step: Step) {
        let a = step.action.index();
        if a >= self.at.len() {
            self.at.resize(a + 1, (0, 0));
        }
        if self.at[a].0 == self.walk {
            return;
        }
        self.at[a] = (self.walk, self.steps.len() as u32);
        self.steps.push(step);
    }

    /// Removes the step of `action`, if it is in the set.
    fn remove(&mut self, action: ActionId) {
        let a = action.index();
        let Some(&(walk, i)) = self.at.get(a) else {
            return;
        };
        if walk != self.walk {
            return;
        }
        self.at[a].0 = 0;
        self.steps.swap_remove(i as usize);
        if let Some(moved) = self.steps.get(i as usize) {
            self.at[moved.action.index()].1 = i;
        }
    }
}

impl<S: System + ?Sized> Walker<'_, S> {
    fn run(
        &mut self,
        all: bool,
        budget: &Budget,
        observer: &mut dyn Observer,
        start: Instant,
    ) -> Result<Option<StopReason>, ModelError> {
        let init = self.sys.initial_state();
        if let Some((c, m)) = find_fault(self.sys, &init) {
            let msg = format!("{}: {m}", self.sys.component_name(c));
            let f = Finding::new(
                FindingKind::Fault,
                self.sys.describe_state(&init),
                Some(msg),
                Default::default(),
            );
            self.findings.push(f);
            return Ok(None);
        }
        let mut last_progress = 0.0;
        let span = LONGEST_WALK_LOG2 - SHORTEST_WALK_LOG2 + 1;
        loop {
            let limit = 1u64 << (SHORTEST_WALK_LOG2 + (self.counters.walks % span as u64) as u32);
            self.counters.walks += 1;
            match self.one_walk(&init, limit, budget, observer, start, &mut last_progress)? {
                WalkEnd::Found if !all => return Ok(None),
                WalkEnd::Found | WalkEnd::Restart => {}
                WalkEnd::Stop(why) => return Ok(Some(why)),
            }
        }
    }

    /// One walk of at most `limit` steps from `init`.
    fn one_walk(
        &mut self,
        init: &[Local],
        limit: u64,
        budget: &Budget,
        observer: &mut dyn Observer,
        start: Instant,
        last_progress: &mut f64,
    ) -> Result<WalkEnd, ModelError> {
        let mut state = init.to_vec();
        let mut next = Vec::new();
        let mut path: Vec<Step> = Vec::new();
        let mut fresh: Vec<Step> = Vec::new();
        self.sys.enabled_steps(&state, &mut fresh);
        let enabled = &mut self.enabled;
        enabled.reset();
        for step in fresh.drain(..) {
            enabled.insert(step);
        }
        loop {
            let enabled = &mut self.enabled;
            if self.pacer.due(state.len() + enabled.steps.len()) {
                if let Some(why) = budget.exhausted() {
                    return Ok(WalkEnd::Stop(why));
                }
                let secs = start.elapsed().as_secs_f64();
                if secs - *last_progress >= PROGRESS_EVERY {
                    *last_progress = secs;
                    observer.progress(&Progress {
                        engine: "walk",
                        seconds: secs,
                        counters: vec![("steps", self.counters.steps), ("walks", self.counters.walks)],
                    });
                }
            }
            if enabled.steps.is_empty() {
                return Ok(self.record_dead(init, &state, &path));
            }
            if path.len() as u64 >= limit {
                return Ok(WalkEnd::Restart);
            }
            let step = enabled.steps[self.rng.random_range(0..enabled.steps.len())].clone();
            if !self.sys.successor(&state, &step, &mut next)? {
                return Err(ModelError::new(format!(
                    "[qpor internal bug] step {} listed as enabled does not fire",
                    self.sys.action_name(step.action)
                )));
            }
            std::mem::swap(&mut state, &mut next);
            self.counters.steps += 1;
            if let Some(msg) = fault_in(self.sys, &state, &step) {
                path.push(step);
                let witness = self.names.witness(self.sys, shorten(self.sys, init, &path));
                let f = Finding::new(
                    FindingKind::Fault,
                    self.sys.describe_state(&state),
                    Some(msg),
                    witness,
                );
                self.findings.push(f);
                return Ok(WalkEnd::Found);
            }
            path.push(step);
            let step = path.last().expect("just pushed");
            // Only the actions touching what the step changed can have changed: those
            // enabled before it (in `next`, the state it left) leave, those enabled after
            // it come in.
            fresh.clear();
            for c in &step.touched {
                self.sys.enabled_steps_touching(&next, *c, &mut fresh);
            }
            for s in fresh.drain(..) {
                self.enabled.remove(s.action);
            }
            for c in &step.touched {
                self.sys.enabled_steps_touching(&state, *c, &mut fresh);
            }
            for s in fresh.drain(..) {
                self.enabled.insert(s);
            }
        }
    }

    /// Records the dead state reached by `path` (unless already recorded).
    fn record_dead(&mut self, init: &[Local], state: &[Local], path: &[Step]) -> WalkEnd {
        self.counters.dead_states += 1;
        let kind = FindingKind::from(classify_dead(self.sys, state));
        if kind == FindingKind::Termination {
            self.counters.terminations += 1;
        }
        if !self.seen_dead.insert(state.to_vec()) {
            return WalkEnd::Restart;
        }
        let witness = self.names.witness(self.sys, shorten(self.sys, init, path));
        self.findings
            .push(Finding::new(kind, self.sys.describe_state(state), None, witness));
        if kind == FindingKind::Termination {
            // A termination is reported with `all` only; the walk goes on looking.
            return WalkEnd::Restart;
        }
        WalkEnd::Found
    }
}

/// The fault the step just fired put into one of the components it touched, if any.
fn fault_in<S: System + ?Sized>(sys: &S, state: &[Local], step: &Step) -> Option<String> {
    step.touched.iter().find_map(|c| {
        sys.fault(*c, state[c.index()])
            .map(|m| format!("{}: {m}", sys.component_name(*c)))
    })
}

/// `path` without its cycles: replayed from `init`, whenever a state comes back, the steps
/// since its first visit are dropped. A random walk circles a lot; its witness should not.
/// States are remembered by a 64-bit hash, so the result is checked by firing it; in the
/// (astronomically unlikely) case of a collision the walk is returned as it was.
fn shorten<S: System + ?Sized>(sys: &S, init: &[Local], path: &[Step]) -> Vec<ActionId> {
    let whole = || path.iter().map(|s| s.action).collect();
    if path.len() > SHORTEN_UP_TO {
        return whole();
    }
    let hash = |state: &[Local]| {
        let mut h = rustc_hash::FxHasher::default();
        state.hash(&mut h);
        h.finish()
    };
    // `kept[i]` is the i-th step kept; `at[i]` the hash of the state before it.
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut kept: Vec<&Step> = Vec::new();
    let mut at: Vec<u64> = Vec::new();
    let mut state = init.to_vec();
    let mut next = Vec::new();
    for step in path {
        let h = hash(&state);
        if let Some(&i) = index.get(&h) {
            for dropped in at.drain(i..) {
                index.remove(&dropped);
            }
            kept.truncate(i);
        }
        index.insert(h, kept.len());
        at.push(h);
        kept.push(step);
        if !matches!(sys.successor(&state, step, &mut next), Ok(true)) {
            return whole();
        }
        std::mem::swap(&mut state, &mut next);
    }
    // The final state may close a cycle too.
    if let Some(&i) = index.get(&hash(&state)) {
        kept.truncate(i);
    }
    if !fires_to(sys, init, &kept, &state) {
        return whole();
    }
    kept.iter().map(|s| s.action).collect()
}

/// Whether `steps` fire one after the other from `init` and end in `end`.
fn fires_to<S: System + ?Sized>(sys: &S, init: &[Local], steps: &[&Step], end: &[Local]) -> bool {
    let mut state = init.to_vec();
    let mut next = Vec::new();
    for step in steps {
        if !matches!(sys.successor(&state, step, &mut next), Ok(true)) {
            return false;
        }
        std::mem::swap(&mut state, &mut next);
    }
    state == end
}

/// Counters of the random walk.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct WalkCounters {
    /// Walks started from the initial state.
    pub walks: u64,
    /// Steps fired in all walks.
    pub steps: u64,
    /// Walks that ended in a dead state.
    pub dead_states: u64,
    /// Walks that ended in a final dead state.
    pub terminations: u64,
}
