//! What a task of a split exploration does in its unfolding replica, whichever rank runs
//! it ([`super::driver`]): a thread ([`super::parallel`]) or a process ([`super::distributed`]).
//!
//! A replica is a program-like unfolding of its own. Tasks and continuations reach it as
//! actions (a configuration as a firing sequence, an event outside C as the actions of
//! \[e\] \ C): in the program-like unfolding the event of an action enabled at a
//! configuration is unique, so pushing the actions in order finds the same events again.
//! A message writes an action as the system's canonical key ([`System::action_key`]):
//! processes number actions each in its own order ([`ByKey`] finds them again).

use super::alt::{alternative, AltScratch};
use super::explore::{ExploreOptions, ExploreOutcome, Subtree};
use crate::engine::{Budget, StopReason};
use crate::system::{ActionId, ModelError, System};
use crate::unfold::program::ProgramUnfolding;
use crate::unfold::{EventId, UnfoldError, UnfoldStats, Unfolding};
use hashbrown::{HashMap, HashSet};

/// How many seeds are tried when looking for the largest set of pairwise conflicting
/// enabled events at the paused node.
const SPLIT_SEEDS: usize = 64;

/// After a look for a split that found nothing, how many nodes a task passes before it
/// looks again.
const SPLIT_RETRY_NODES: u32 = 8;

/// The most nodes passed between two looks for a split: each look walks the trail.
const SPLIT_RETRY_MAX: u32 = 1 << 14;

/// When a task of a split exploration ([`Exploration::Split`](super::Exploration::Split))
/// looks for a split, and how deep it may split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitPolicy {
    /// While a worker (or rank) waits for work, at nodes in the upper half of the deepest
    /// leaf any task reached: the work follows the idle workers, but which nodes are split
    /// depends on the timing. Maximal configurations, deadlocks and dead states do not;
    /// in optimal mode SSBs do not either (there are none), but with k-partial
    /// alternatives they do: Alt depends on the order in which D grew.
    WhenIdle,
    /// Every this many nodes of a task, at nodes in the upper half of the deepest leaf
    /// the task itself reached: which nodes are split is decided by each task's own
    /// exploration, never by the timing or the number of workers, so every count is the
    /// same on one thread and on many (docs/design.md#exploring-on-several-threads).
    /// [`SplitPolicy::FIXED`] is the measured period.
    Fixed(u32),
    /// Every this many nodes, at any depth: tests make small runs split often with it.
    /// Decided by the tasks alone, as `Fixed` is.
    Every(u32),
}

impl SplitPolicy {
    /// Fixed splits every [`FIXED_SPLIT_NODES`] nodes.
    pub const FIXED: SplitPolicy = SplitPolicy::Fixed(FIXED_SPLIT_NODES);

    /// The policy a run with `alt` alternatives uses unless told otherwise: when a worker
    /// is idle in optimal mode, whose counts do not depend on the splits; fixed
    /// otherwise, so that every count, SSBs included, is the same for any number of
    /// workers.
    pub fn for_alt(alt: super::AltMode) -> Self {
        match alt {
            super::AltMode::Optimal => SplitPolicy::WhenIdle,
            _ => SplitPolicy::FIXED,
        }
    }

    /// The policy as the report names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SplitPolicy::WhenIdle => "when-idle",
            SplitPolicy::Fixed(_) | SplitPolicy::Every(_) => "fixed",
        }
    }
}

/// How many nodes a task explores between two looks for a split under
/// [`SplitPolicy::Fixed`]. Each task replays its root in a fresh replica, so a task must
/// be worth more than its replay, and the pool needs enough tasks to keep the workers
/// busy; measured in benches/journal/table1.md ("k-partial runs with counts that do not
/// depend on the threads").
pub const FIXED_SPLIT_NODES: u32 = 4096;

/// When a running task pauses to look for a split (see [`SplitPolicy`]); after a look
/// that found nothing it passes a number of nodes first, doubling while nothing is found.
pub(super) struct SplitPacer {
    policy: SplitPolicy,
    nodes: u32,
    wait: u32,
    backoff: u32,
}

impl SplitPacer {
    /// A pacer for one exploration.
    pub(super) fn new(policy: SplitPolicy) -> Self {
        SplitPacer {
            policy,
            nodes: 0,
            wait: 0,
            backoff: SPLIT_RETRY_NODES,
        }
    }

    /// Whether to pause at this node; `hungry` tells whether someone waits for work.
    pub(super) fn pause(&mut self, hungry: impl FnOnce() -> bool) -> bool {
        if self.wait > 0 {
            self.wait -= 1;
            return false;
        }
        match self.policy {
            SplitPolicy::Every(n) | SplitPolicy::Fixed(n) => {
                self.nodes += 1;
                self.nodes % n.max(1) == 0
            }
            SplitPolicy::WhenIdle => hungry(),
        }
    }

    /// The most events the configuration of a split node may have, given the deepest
    /// leaf any task reached so far (`deepest_seen`) and the one this exploration reached
    /// (`deepest_here`): half of the first under `WhenIdle`, half of the second under
    /// `Fixed` (which must not depend on other tasks), no bound under `Every` (tests).
    /// Tasks rooted in the deeper half of the tree were mostly too small to pay for the
    /// replay of their root in a fresh replica and for the continuation's resume:
    /// Pol(12,3) on two threads made 1 800 tasks below depth 77 of 138, spent a third of
    /// their time replaying roots, and ran slower than one thread (benches/README.md).
    /// Before any leaf only the root may be split.
    pub(super) fn max_root(&self, deepest_seen: u64, deepest_here: u64) -> usize {
        let half = |d: u64| usize::try_from(d / 2).unwrap_or(usize::MAX);
        match self.policy {
            SplitPolicy::WhenIdle => half(deepest_seen.max(deepest_here)),
            SplitPolicy::Fixed(_) => half(deepest_here),
            SplitPolicy::Every(_) => usize::MAX,
        }
    }

    /// Records how a look for a split went.
    pub(super) fn looked(&mut self, split: bool) {
        if split {
            self.backoff = SPLIT_RETRY_NODES;
        } else {
            self.wait = self.backoff;
            self.backoff = (self.backoff * 2).min(SPLIT_RETRY_MAX);
        }
    }
}

/// An unfolding replica, with the id that tells which splits it owns.
pub(super) struct Replica<'s, S: System + ?Sized> {
    pub unf: ProgramUnfolding<'s, S>,
    pub id: u64,
}

/// Why a task ended before its exploration did.
pub(super) enum Halt {
    /// The model's semantics failed.
    Model(ModelError),
    /// A limit was reached (the run stops).
    Stop(StopReason),
}

/// One node of a task or continuation, at C_j, its actions written as `A`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct LevelTask<A> {
    /// The events of D added at this node, by action (they are enabled at C_j).
    pub avoid: Vec<A>,
    /// Events Alt needs in U that the replica may lack, each as the actions of
    /// \[e\] \ C_j, causes first (e last).
    pub imports: Vec<Vec<A>>,
    /// The event chosen at this node (`None` for the node of a fresh task).
    pub chosen: Option<A>,
}

impl<A> Default for LevelTask<A> {
    fn default() -> Self {
        LevelTask {
            avoid: Vec::new(),
            imports: Vec::new(),
            chosen: None,
        }
    }
}

impl<A> LevelTask<A> {
    /// The same node with its actions written by `f`.
    pub(super) fn map<B>(&self, mut f: impl FnMut(&A) -> B) -> LevelTask<B> {
        LevelTask {
            avoid: self.avoid.iter().map(&mut f).collect(),
            imports: self
                .imports
                .iter()
                .map(|d| d.iter().map(&mut f).collect())
                .collect(),
            chosen: self.chosen.as_ref().map(f),
        }
    }
}

/// A split decided at a paused node (see the module documentation of
/// [`super::driver`]): the tasks to hand out and the continuation to keep.
pub(super) struct SplitPlan {
    /// |C₀| of the continuation.
    pub root_len: usize,
    /// The continuation's levels, from C₀ down.
    pub levels: Vec<LevelTask<ActionId>>,
    /// The tasks of X \ {x₀}: their root (C_l ∪ {x}) as a firing sequence, and node.
    pub children: Vec<(Vec<ActionId>, LevelTask<ActionId>)>,
    /// Events whose conflicts every later exploration in this replica must keep.
    pub protect: Vec<EventId>,
}

/// Finds the event of en(C) an action written as `Self::A` names.
pub(super) trait Resolve<S: System + ?Sized> {
    /// How actions are written.
    type A;
    /// The event of `en` (en(C)) whose action `a` names; an error message when none or
    /// more than one does.
    fn resolve(
        &mut self,
        unf: &ProgramUnfolding<'_, S>,
        en: &[EventId],
        a: &Self::A,
    ) -> Result<EventId, String>;
}

/// Actions written as the system's keys ([`System::action_key`]): the replicas run in
/// ranks that may number actions each in its own order (processes do; threads share the
/// system's tables). Keys met are remembered both ways.
#[derive(Default)]
pub(super) struct ByKey {
    ids: HashMap<Vec<u32>, ActionId>,
    keys: HashMap<ActionId, Vec<u32>>,
}

impl ByKey {
    /// The key of `a`, remembered.
    pub(super) fn key<S: System + ?Sized>(&mut self, sys: &S, a: ActionId) -> Vec<u32> {
        if let Some(k) = self.keys.get(&a) {
            return k.clone();
        }
        let k = sys.action_key(a);
        self.ids.insert(k.clone(), a);
        self.keys.insert(a, k.clone());
        k
    }
}

impl<S: System + ?Sized> Resolve<S> for ByKey {
    type A = Vec<u32>;

    fn resolve(
        &mut self,
        unf: &ProgramUnfolding<'_, S>,
        en: &[EventId],
        k: &Vec<u32>,
    ) -> Result<EventId, String> {
        if !self.ids.contains_key(k) {
            for &e in en {
                self.key(unf.system(), unf.action(e));
            }
        }
        let Some(&a) = self.ids.get(k) else {
            return Err(format!("{k:?}"));
        };
        unique(en.iter().copied().filter(|&e| unf.action(e) == a), k)
    }
}

/// The one event of `found`, or why not.
fn unique(mut found: impl Iterator<Item = EventId>, what: &dyn std::fmt::Debug) -> Result<EventId, String> {
    match (found.next(), found.next()) {
        (Some(e), None) => Ok(e),
        (None, _) => Err(format!("action {what:?} is not enabled")),
        (Some(_), Some(_)) => Err(format!(
            "two events of action {what:?} are enabled at one configuration"
        )),
    }
}

/// Makes the unfolding counts of `out`, read off a replica at the end of a task, those of
/// the task alone: `before` was read off the same replica when the task began. A replica
/// runs several tasks (the continuations resumed in it), and the run adds them up.
pub(super) fn counted_since(out: &mut ExploreOutcome, before: &UnfoldStats) {
    let u = &mut out.unfolding;
    u.events_created = u.events_created.saturating_sub(before.events_created);
    u.cutoff_events = u.cutoff_events.saturating_sub(before.cutoff_events);
}

/// What every task does in its replica: set a node up from actions, split, report.
pub(super) struct ReplicaOps<'s, S: System + ?Sized> {
    _sys: std::marker::PhantomData<&'s S>,
    pub opts: &'s ExploreOptions,
    pub budget: &'s Budget,
    en: Vec<EventId>,
    /// What the tasks counted outside their explorations (the Alt calls at their roots).
    pub own: ExploreOutcome,
}

impl<'s, S: System + ?Sized> ReplicaOps<'s, S> {
    /// Operations on replicas explored with `opts` within `budget`.
    pub(super) fn new(opts: &'s ExploreOptions, budget: &'s Budget) -> Self {
        ReplicaOps {
            _sys: std::marker::PhantomData,
            opts,
            budget,
            en: Vec::new(),
            own: ExploreOutcome::default(),
        }
    }

    /// The event of en(C) with action `a`.
    pub(super) fn enabled<R: Resolve<S>>(
        &mut self,
        unf: &mut ProgramUnfolding<'s, S>,
        r: &mut R,
        a: &R::A,
    ) -> Result<EventId, Halt> {
        self.en.clear();
        if let Err(e) = unf.enabled(&mut self.en) {
            return Err(self.unfold_error(e));
        }
        r.resolve(unf, &self.en, a).map_err(|why| {
            Halt::Model(ModelError::new(format!(
                "[qpor internal bug] a split task's action cannot be replayed in its replica: {why}"
            )))
        })
    }

    /// Creates the event `desc` describes (the actions of \[e\] \ C), leaving C as it was.
    pub(super) fn import<R: Resolve<S>>(
        &mut self,
        unf: &mut ProgramUnfolding<'s, S>,
        r: &mut R,
        desc: &[R::A],
    ) -> Result<(), Halt> {
        for a in desc {
            let e = self.enabled(unf, r, a)?;
            unf.push(e);
        }
        for _ in desc {
            unf.pop();
        }
        Ok(())
    }

    /// Sets a fresh replica up at a task's node (C, D) from its root and node: D, and A =
    /// Alt(C, D); `None` when the class is empty.
    #[allow(clippy::type_complexity)]
    pub(super) fn fresh<R: Resolve<S>>(
        &mut self,
        unf: &mut ProgramUnfolding<'s, S>,
        r: &mut R,
        root: &[R::A],
        node: &LevelTask<R::A>,
    ) -> Result<Option<(Vec<EventId>, Vec<EventId>)>, Halt> {
        for a in root {
            let e = self.enabled(unf, r, a)?;
            unf.push(e);
        }
        let mut d = Vec::with_capacity(node.avoid.len());
        for a in &node.avoid {
            d.push(self.enabled(unf, r, a)?);
        }
        for desc in &node.imports {
            self.import(unf, r, desc)?;
        }
        Ok(self.alternative(unf, &d)?.map(|a| (d, a)))
    }

    /// Back at C₀ (the first `root_len` events of C), recreates D and the trail of a
    /// continuation level by level, with the events its levels import.
    #[allow(clippy::type_complexity)]
    pub(super) fn resumed<R: Resolve<S>>(
        &mut self,
        unf: &mut ProgramUnfolding<'s, S>,
        r: &mut R,
        root_len: usize,
        levels: &[LevelTask<R::A>],
    ) -> Result<(Vec<EventId>, Vec<(EventId, usize)>), Halt> {
        while unf.config().len() > root_len {
            unf.pop();
        }
        let mut d = Vec::new();
        let mut trail = Vec::with_capacity(levels.len());
        for level in levels {
            for a in &level.avoid {
                d.push(self.enabled(unf, r, a)?);
            }
            for desc in &level.imports {
                self.import(unf, r, desc)?;
            }
            if let Some(a) = &level.chosen {
                let e = self.enabled(unf, r, a)?;
                trail.push((e, d.len()));
                unf.push(e);
            }
        }
        Ok((d, trail))
    }

    /// At a paused node: finds the shallowest node l of the trail whose chosen event e_l
    /// has siblings in en(C_l) \ D_l pairwise in conflict with it and each other, X, or
    /// else the paused node itself with any such X; plans the tasks (C_l ∪ {x}, D_l) of
    /// X \ {x₀} (x₀ = e_l at a trail node) and the continuation that resumes the trail
    /// down to node l with D_l ∪ X there; and makes `sub` go on as the task of x₀.
    /// Only nodes whose configuration has at most `max_root` events are split.
    /// `None` when no node can be split.
    pub(super) fn split(
        &mut self,
        sub: &mut Subtree<'_, ProgramUnfolding<'s, S>, S>,
        max_root: usize,
    ) -> Result<Option<SplitPlan>, Halt> {
        let trail: Vec<(EventId, usize)> = sub.trail().collect();
        let (node_en, d_all) = sub.node();
        let (node_en, d_all) = (node_en.to_vec(), d_all.to_vec());
        let looked = sub.split_looked();
        let unf = sub.unf();
        let c_len = unf.config().len();
        let root_len = c_len - trail.len();
        // The levels l with |C_l| = root_len + l <= max_root.
        let allowed = trail
            .len()
            .min(max_root.saturating_add(1).saturating_sub(root_len));
        for _ in looked..trail.len() {
            unf.pop();
        }
        let mut found = None;
        for (l, &(e, d_len)) in trail.iter().enumerate().take(allowed).skip(looked) {
            self.en.clear();
            if let Err(err) = unf.enabled(&mut self.en) {
                return Err(self.unfold_error(err));
            }
            let x = conflicting_group(unf, &self.en, &d_all[..d_len], Some(e));
            if x.len() >= 2 {
                found = Some((l, d_len, x));
                break;
            }
            unf.push(e);
        }
        let (l, d_len, x) = match found {
            Some(f) => f,
            None => {
                for &(e, _) in &trail[looked.max(allowed)..] {
                    unf.push(e);
                }
                let x = if c_len <= max_root {
                    conflicting_group(unf, &node_en, &d_all, None)
                } else {
                    Vec::new()
                };
                if x.len() < 2 {
                    sub.set_split_looked(looked.max(allowed));
                    return Ok(None);
                }
                (trail.len(), d_all.len(), x)
            }
        };
        // The node each event of D was added at: D grows at node j until level j chooses.
        let node_of = |i: usize| trail.iter().position(|&(_, len)| i < len).unwrap_or(trail.len());
        let d_l = &d_all[..d_len];
        let added_at = |j: usize| -> Vec<EventId> {
            d_l.iter()
                .enumerate()
                .filter(|&(i, _)| node_of(i) == j)
                .map(|(_, &e)| e)
                .collect()
        };
        // At C_l: the tasks of X \ {x₀}, and node l of the continuation.
        let mut children = Vec::with_capacity(x.len() - 1);
        for &xi in &x[1..] {
            children.push(child(unf, xi, d_l));
        }
        let mut levels: Vec<LevelTask<ActionId>> = Vec::with_capacity(l + 1);
        let mut avoid_l = added_at(l);
        avoid_l.extend_from_slice(&x[1..]);
        levels.push(level(unf, &avoid_l, x[0]));
        // The levels above, deepest first, each at its C_j.
        for j in (0..l).rev() {
            let (e, _) = trail[j];
            let popped = unf.pop();
            debug_assert_eq!(popped, e);
            levels.push(level(unf, &added_at(j), e));
        }
        levels.reverse();
        for &(e, _) in &trail {
            unf.push(e);
        }
        debug_assert_eq!(unf.config().len(), c_len);
        let plan = SplitPlan {
            root_len,
            levels,
            children,
            protect: sub.kept(),
        };
        if l < trail.len() {
            // The trail below node l is the exploration of e_l's class, half done.
            sub.drop_levels(l + 1);
            return Ok(Some(plan));
        }
        // Split at the paused node: this task goes on as the one of x₀. D stays whole,
        // events that now conflict with C included: the pruning of U keeps what conflicts
        // with D, and the continuation resumed in this replica needs that for them.
        let unf = sub.unf();
        unf.push(x[0]);
        match self.alternative(unf, &d_all)? {
            Some(a) => sub.restart(d_all, a),
            // The class is empty: nothing is left to explore here.
            None => sub.finish(),
        }
        Ok(Some(plan))
    }

    /// What a task that ended reports to the splits above it, given innermost first as
    /// (|C₀|, levels): for each split, and each of its levels j, the events in immediate
    /// conflict with the event the task chose at level j and compatible with C_j (the
    /// continuation's Alt calls need them). Pops C.
    pub(super) fn reports(
        &mut self,
        unf: &mut ProgramUnfolding<'s, S>,
        splits: &[(usize, usize)],
    ) -> Vec<Vec<(usize, Vec<ActionId>)>> {
        let mut conflicts = Vec::new();
        let mut out = Vec::with_capacity(splits.len());
        for &(root_len, depth) in splits {
            let mut found = Vec::new();
            for j in (0..depth).rev() {
                while unf.config().len() > root_len + j + 1 {
                    unf.pop();
                }
                let x = unf.pop();
                conflicts.clear();
                unf.compatible_immediate_conflicts(x, &mut conflicts);
                found.extend(conflicts.iter().map(|&e| (j, describe(unf, e))));
            }
            out.push(found);
        }
        out
    }

    /// A = Alt(C, D), or `Some(∅)` when D is empty; `None` when the class is empty.
    pub(super) fn alternative(
        &mut self,
        unf: &mut ProgramUnfolding<'s, S>,
        d: &[EventId],
    ) -> Result<Option<Vec<EventId>>, Halt> {
        if d.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let in_d: HashSet<EventId> = d.iter().copied().collect();
        let mut scratch = AltScratch::default();
        scratch.set_deadline(self.budget.deadline());
        scratch.set_cancel(self.budget.cancel_token().clone());
        let j = alternative(unf, d, &in_d, self.opts.alt, &mut self.own.alt, &mut scratch);
        if j.is_none() && scratch.timed_out() {
            return Err(Halt::Stop(self.why_out_of_time()));
        }
        Ok(j)
    }

    /// Why the unfolding gave up: a model error, or a limit that ends the run.
    pub(super) fn unfold_error(&self, e: UnfoldError) -> Halt {
        match e {
            UnfoldError::Model(e) => Halt::Model(e),
            UnfoldError::EventLimit(n) => Halt::Stop(StopReason::EventLimit(n)),
            UnfoldError::TimeLimit => Halt::Stop(self.why_out_of_time()),
        }
    }

    /// Why a search that gave up at its clock check did: cancelled, or out of time.
    pub(super) fn why_out_of_time(&self) -> StopReason {
        let budget = self.budget;
        budget.exhausted().unwrap_or_else(|| budget.time_limit_reached())
    }
}

/// The fresh task (C ∪ {x}, `d`) as its root and node: D keeps the events still enabled,
/// with the events of U in immediate conflict with them and compatible with C ∪ {x}.
fn child<S: System + ?Sized>(
    unf: &mut ProgramUnfolding<'_, S>,
    x: EventId,
    d: &[EventId],
) -> (Vec<ActionId>, LevelTask<ActionId>) {
    unf.push(x);
    let d: Vec<EventId> = d.iter().copied().filter(|&e| unf.is_enabled(e)).collect();
    let mut found = Vec::new();
    for &e in &d {
        unf.compatible_immediate_conflicts(e, &mut found);
    }
    found.sort_unstable();
    found.dedup();
    found.retain(|&e| !unf.in_config(e));
    let node = LevelTask {
        avoid: actions(unf, &d),
        imports: found.into_iter().map(|e| describe(unf, e)).collect(),
        chosen: None,
    };
    let root = actions(unf, unf.config());
    unf.pop();
    (root, node)
}

/// Node j of a continuation, at C_j: the events of D added there that do not conflict
/// with C_j, and the event chosen. (A task that went on below a split keeps the D of the
/// nodes above, whose events may conflict with its root; they are avoided anyway, and Alt
/// looks only at enabled ones.) The owner's U holds what Alt needs for them.
fn level<U: Unfolding + ?Sized>(unf: &U, avoid: &[EventId], chosen: EventId) -> LevelTask<ActionId> {
    let avoid: Vec<EventId> = avoid.iter().copied().filter(|&e| unf.is_enabled(e)).collect();
    LevelTask {
        avoid: actions(unf, &avoid),
        imports: Vec::new(),
        chosen: Some(unf.action(chosen)),
    }
}

/// The actions of `events`.
fn actions<U: Unfolding + ?Sized>(unf: &U, events: &[EventId]) -> Vec<ActionId> {
    events.iter().map(|&e| unf.action(e)).collect()
}

/// The actions of \[e\] \ C, causes first (e last).
fn describe<U: Unfolding + ?Sized>(unf: &mut U, e: EventId) -> Vec<ActionId> {
    let mut h = Vec::new();
    unf.history_outside_config(e, &mut h);
    actions(unf, &h)
}

/// The largest set found of events of `en` outside `d`, pairwise in conflict and not
/// faults (a fault is reported where the exploration pushes it), seed first; with `seed`,
/// the largest that contains it.
fn conflicting_group<U: Unfolding + ?Sized>(
    unf: &U,
    en: &[EventId],
    d: &[EventId],
    seed: Option<EventId>,
) -> Vec<EventId> {
    let in_d: HashSet<EventId> = d.iter().copied().collect();
    let candidates: Vec<EventId> = en
        .iter()
        .copied()
        .filter(|e| !in_d.contains(e) && !unf.is_fault(*e))
        .collect();
    let seeds: Vec<EventId> = match seed {
        Some(e) => vec![e],
        None => candidates.iter().copied().take(SPLIT_SEEDS).collect(),
    };
    let mut best: Vec<EventId> = Vec::new();
    for seed in seeds {
        let mut group = vec![seed];
        for &e in &candidates {
            if e != seed && group.iter().all(|&g| unf.conflict(g, e)) {
                group.push(e);
            }
        }
        if group.len() > best.len() {
            best = group;
        }
    }
    best
}
