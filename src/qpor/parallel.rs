//! QPOR on several threads (`--jobs N`): the maximal configurations are split into
//! classes explored by independent tasks, each in an unfolding replica of its own.
//!
//! # Why not "the right child is a task"
//! In Algorithm 1 the right child of a node is computed by Alt *after* the whole left
//! subtree was explored, and its completeness needs that: the event of the alternative that
//! conflicts with e entered U at a leaf of the left subtree. So right children cannot start
//! before their left siblings end, and neither can the Alt calls of their ancestors.
//!
//! # The split used instead
//! At a node (C, D) let X ⊆ en(C) \ D be events pairwise in conflict. The maximal
//! configurations that contain C and avoid D fall into disjoint classes:
//! - for each x ∈ X, those that contain x: the task (C ∪ {x}, D), which needs nothing from
//!   the others and runs at once;
//! - those that avoid every x: the *continuation* (C, D ∪ X). Its Alt calls need, for each
//!   x, the events of U in immediate conflict with x and compatible with C; the proof of
//!   Algorithm 1 finds them at the leaves of the subtree that contains x, which is here the
//!   task of x. So the continuation waits for the tasks of X (and every task they split
//!   into), which *report* those events to it, and it creates them in its replica first.
//!
//! Each task is an ordinary Explore(C, D, A) ([`explore_subtree`]) once A = Alt(C, D) is
//! known, so in optimal mode no task meets a sleep-set-blocked leaf, and the classes being
//! disjoint, the maximal configurations (and deadlocks) are exactly the sequential run's.
//! With k-partial alternatives the set of maximal configurations is the same, but how many
//! SSBs are met depends on the order in which D grew, which differs: the split explores
//! another tree than Algorithm 1's single one.
//!
//! # Counts that do not depend on the threads
//! Algorithm 1's own tree cannot be shared out with its counts: every Alt call needs U as
//! the whole left subtree left it, so its calls form one chain in depth-first order. What
//! can be made independent of the threads is the split tree. A task's exploration is a
//! function of its root, its node and its replica, and a fresh replica holds only what the
//! task replays; so the counts depend only on where the tasks split and on the order in
//! which a continuation's replica creates the events reported to it. Under
//! [`SplitPolicy::Fixed`] each task splits every few thousand of its own nodes, at the
//! shallowest node allowed by its own deepest leaf, never because a worker is idle; and
//! a continuation imports what was reported to it sorted by the actions' keys, not in the
//! order the reports arrived. Every count (SSBs and events created included) is then the
//! same on one worker (`fixed_splits`) and on any number, and across processes
//! (tests/qpor_parallel.rs, tests/qpor_distributed.rs). k-partial and SDPOR runs split so;
//! optimal runs, whose counts do not depend on the splits, split when a worker is idle
//! ([`SplitPolicy::WhenIdle`]), which follows the load more closely.
//!
//! # When to split, and where
//! A task runs Algorithm 1 sequentially until a worker is idle (or, under fixed splits,
//! until it has passed a number of nodes). Then it pauses at its next node and looks for the shallowest node l of its trail whose chosen event e_l has
//! siblings X ∋ e_l in en(C_l) \ D_l pairwise in conflict (shallow classes hold the most
//! work). The tasks of X \ {e_l} go to the pool; the trail below l goes on as the task of
//! e_l; what the levels down to l still had to do (their right children, with D_l ∪ X at
//! l) becomes the split's continuation, which resumes them by going back up the trail
//! once every task below has ended. Nodes in the deeper half of the deepest configuration
//! seen are not split ([`SplitPacer::max_root`]): their classes were mostly too small to
//! pay for replaying their root in a fresh replica.
//!
//! # Replicas
//! Each task explores in an unfolding replica. The continuation runs in the replica of the
//! task that went on below the split (its *owner*): that replica's U already holds what
//! the trail's Alt calls need, except what the other tasks found, which they report. If
//! the owner ends first, its replica waits in the split for the last task to take it.
//!
//! Event ids differ between replicas. A configuration is sent as a firing sequence (one
//! action per event, causes first) and an event outside C as the actions of \[e\] \ C: in the
//! program-like unfolding the event of an action enabled at a configuration is unique, so
//! pushing the actions in order finds the same events again. The system's tables of actions
//! are shared (behind a lock) so every replica numbers actions alike. Cutoffs under an
//! adequate order (ERV, McMillan) are not supported: which events are cutoffs depends on
//! the order in which a replica met states, so the classes would no longer be explored
//! alike. Causal, distance and canonical cutoffs are: whether an event is one depends on
//! its history alone, and on a table every replica shares (`unfold::cutoff`); canonical
//! cutoffs are ERV's made deterministic, those of the complete ERV prefix built first
//! (`unfold::program::canonical`).

use super::explore::{ExploreOptions, ExploreOutcome, NoTree, Subtree, SubtreeEnd};
use super::replica::{counted_since, ById, Halt, LevelTask, Replica, ReplicaOps, SplitPacer, SplitPolicy};
use crate::engine::{Budget, Finding, FindingKind, Observer, Progress, StepNames};
use crate::system::{find_fault, ActionId, ModelError, System};
use crate::unfold::program::{ProgramOptions, ProgramUnfolding};
use crate::unfold::Unfolding;
use hashbrown::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often the calling thread reports progress and looks at the caller's budget.
const POLL: Duration = Duration::from_millis(20);

/// A task to start in a fresh replica: the node (C, D).
struct Fresh<'s, S: System + ?Sized> {
    /// C, as a firing sequence from the initial state.
    root: Vec<ActionId>,
    /// D and what Alt needs for it.
    node: LevelTask<ActionId>,
    /// The innermost split whose continuation waits for this task.
    scope: Option<Arc<Split<'s, S>>>,
}

/// A split: the tasks below it explore classes whose events were chosen at the levels
/// `root_len..` of their configuration; its continuation resumes those levels, in the
/// owner's replica, once they have all ended.
struct Split<'s, S: System + ?Sized> {
    /// |C₀| of the continuation.
    root_len: usize,
    /// The replica that goes on below the split and runs the continuation.
    owner: u64,
    /// Events of the owner's U whose immediate conflicts the continuation, or one it will
    /// resume after, needs in U: D of the exploration that split, and what it protected.
    /// Every exploration in the owner's replica until then keeps them through pruning.
    protect: Vec<crate::unfold::EventId>,
    /// The continuation's levels, with what the other tasks reported; taken once.
    levels: Mutex<Option<Vec<LevelTask<ActionId>>>>,
    /// Reported events already added, by level.
    reported: Mutex<HashSet<(usize, Vec<ActionId>)>>,
    /// Tasks under this split that have not ended; a task that splits again hands its
    /// place to the inner split's continuation.
    pending: AtomicUsize,
    /// The owner's replica, when its task ended before the others.
    parked: Mutex<Option<Replica<'s, S>>>,
    /// The split whose continuation waits for this one's.
    parent: Option<Arc<Split<'s, S>>>,
}

impl<S: System + ?Sized> Split<'_, S> {
    /// How many levels the continuation resumes.
    fn depth(&self) -> usize {
        lock(&self.levels).as_ref().map_or(0, Vec::len)
    }
}

/// What the workers share.
struct Shared<'a, S: ?Sized> {
    sys: &'a S,
    opts: &'a ExploreOptions,
    unfolding: ProgramOptions,
    /// The caller's time limit with a cancel token of the workers' own.
    budget: Budget,
    jobs: usize,
    /// When tasks split.
    split: SplitPolicy,
    /// Tasks given to the pool that have not started.
    queued: AtomicUsize,
    /// Workers running a task.
    active: AtomicUsize,
    /// The largest configuration at a leaf any task has reached (see
    /// [`SplitPacer::max_root`]).
    deepest: AtomicU64,
    /// Ids of replicas.
    replicas: AtomicU64,
    /// A deadlock (or fault) ended the run, which does not collect everything.
    found: AtomicBool,
    merged: Mutex<Merged>,
    /// Progress of the tasks running now, by worker: maximal configurations, SSBs, events.
    running: Vec<Mutex<[u64; 3]>>,
}

/// The outcomes of the finished tasks, added up.
#[derive(Default)]
struct Merged {
    out: ExploreOutcome,
    seen: HashSet<(FindingKind, String)>,
    error: Option<ModelError>,
    tasks: u64,
}

/// Locks `m`; a worker that panicked holding it left a complete value (every update is
/// one assignment or push), and its panic reaches the caller anyway.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Counters of a parallel exploration beyond those of [`ExploreOutcome`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ParallelStats {
    /// Tasks run (a split's continuation is a task).
    pub tasks: u64,
}

/// How the work is shared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ParallelOptions {
    /// Worker threads.
    pub jobs: usize,
    /// When tasks split.
    pub split: SplitPolicy,
}

/// Runs Algorithm 1 on the program-like unfolding of `sys` with worker threads (see the
/// module documentation); `unfolding` must have cutoffs every replica decides alike
/// (none, causal, distance or canonical). Its event limit holds for each
/// replica, so the caller divides it.
pub(crate) fn explore_parallel<S: System + Sync + ?Sized>(
    sys: &S,
    unfolding: ProgramOptions,
    opts: &ExploreOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    parallel: ParallelOptions,
) -> Result<(ExploreOutcome, ParallelStats), ModelError> {
    debug_assert!(unfolding.cutoff.same_in_every_replica());
    let jobs = parallel.jobs.max(1);
    let shared = Shared {
        sys,
        opts,
        unfolding,
        budget: budget.with_own_cancel(),
        jobs,
        split: parallel.split,
        queued: AtomicUsize::new(0),
        active: AtomicUsize::new(0),
        deepest: AtomicU64::new(0),
        replicas: AtomicU64::new(0),
        found: AtomicBool::new(false),
        merged: Mutex::new(Merged::default()),
        running: (0..jobs).map(|_| Mutex::new([0; 3])).collect(),
    };
    let initial = sys.initial_state();
    if let Some((c, msg)) = find_fault(sys, &initial) {
        let finding = Finding::new(
            FindingKind::Fault,
            sys.describe_state(&initial),
            Some(format!("{}: {msg}", sys.component_name(c))),
            StepNames::default().witness(sys, []),
        );
        let mut m = lock(&shared.merged);
        m.out.findings.push(finding);
        if !opts.all {
            return Ok((std::mem::take(&mut m.out), ParallelStats::default()));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("qpor-worker-{i}"))
        .build()
        .map_err(|e| ModelError::new(format!("cannot start {jobs} worker threads: {e}")))?;
    let start = Instant::now();
    std::thread::scope(|threads| {
        let shared = &shared;
        let pool = &pool;
        let caller = std::thread::current();
        let workers = threads.spawn(move || {
            pool.scope(|scope| {
                let first = Fresh {
                    root: Vec::new(),
                    node: LevelTask::default(),
                    scope: None,
                };
                give(scope, shared, first);
            });
            // A small run ends well within a poll: the caller need not sleep it out.
            caller.unpark();
        });
        let mut last_progress = 0.0;
        while !workers.is_finished() {
            std::thread::park_timeout(POLL);
            if let Some(why) = budget.exhausted() {
                shared.budget.cancel_token().stop(why);
            }
            let secs = start.elapsed().as_secs_f64();
            if secs - last_progress >= crate::engine::Pacer::PROGRESS_EVERY {
                last_progress = secs;
                observer.progress(&shared.progress(secs));
            }
        }
        if let Err(panic) = workers.join() {
            std::panic::resume_unwind(panic);
        }
    });
    let mut m = shared.merged.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = m.error {
        return Err(e);
    }
    if shared.found.load(Ordering::Relaxed) {
        // The workers were stopped because the answer is known.
        m.out.stopped = None;
    }
    let stats = ParallelStats { tasks: m.tasks };
    Ok((m.out, stats))
}

/// Hands a fresh task to the pool.
fn give<'s, S: System + Sync + ?Sized>(
    scope: &rayon::Scope<'s>,
    shared: &'s Shared<'s, S>,
    task: Fresh<'s, S>,
) {
    shared.queued.fetch_add(1, Ordering::SeqCst);
    scope.spawn(move |scope| {
        shared.queued.fetch_sub(1, Ordering::SeqCst);
        run(scope, shared, task);
    });
}

/// Runs a fresh task in a new replica, then the continuations it is the last to end
/// under, each in its owner's replica.
fn run<'s, S: System + Sync + ?Sized>(
    scope: &rayon::Scope<'s>,
    shared: &'s Shared<'s, S>,
    task: Fresh<'s, S>,
) {
    let cancel = shared.budget.cancel_token().clone();
    if cancel.is_cancelled() {
        return;
    }
    shared.active.fetch_add(1, Ordering::SeqCst);
    let mut unf = ProgramUnfolding::new(shared.sys, shared.unfolding.clone());
    unf.watch(shared.budget.deadline(), cancel.clone());
    let mut replica = Replica {
        unf,
        id: shared.replicas.fetch_add(1, Ordering::Relaxed),
    };
    let mut worker = Worker {
        scope,
        shared,
        ops: ReplicaOps::new(shared.opts, &shared.budget),
    };
    let mut done = worker.start(&mut replica, task);
    loop {
        let (outcome, scope) = match done {
            Ok(ended) => ended,
            Err(halt) => {
                worker.record(Err(halt));
                break;
            }
        };
        let stopped = worker.record(Ok(outcome));
        if stopped || cancel.is_cancelled() {
            break;
        }
        // Hand on: the innermost split may now resume, in its owner's replica.
        let Some(next) = worker.end(replica, scope) else {
            break;
        };
        replica = next.0;
        done = worker.resume(&mut replica, next.1);
    }
    shared.active.fetch_sub(1, Ordering::SeqCst);
}

impl Merged {
    /// Adds the outcome of a task.
    fn add(&mut self, o: ExploreOutcome) {
        let out = &mut self.out;
        out.add_counts(&o);
        for f in o.findings {
            if self.seen.insert((f.kind, f.state.clone())) {
                out.findings.push(f);
            }
        }
        // A task stopped because another found the answer is not a stop of the run: the
        // caller clears it then.
        if out.stopped.is_none() {
            out.stopped = o.stopped;
        }
    }
}

impl<S: ?Sized> Shared<'_, S> {
    /// Whether a worker has nothing to do: a running task should split its work.
    fn hungry(&self) -> bool {
        self.queued.load(Ordering::Relaxed) == 0 && self.active.load(Ordering::Relaxed) < self.jobs
    }

    /// The progress of the whole run: finished tasks plus the running ones.
    fn progress(&self, seconds: f64) -> Progress {
        let mut sum = {
            let m = lock(&self.merged);
            [
                m.out.max_configurations,
                m.out.ssbs,
                m.out.unfolding.events_created,
            ]
        };
        for slot in &self.running {
            let s = *lock(slot);
            for (total, x) in sum.iter_mut().zip(s) {
                *total += x;
            }
        }
        Progress {
            engine: "qpor",
            seconds,
            counters: vec![
                ("max_configurations", sum[0]),
                ("ssbs", sum[1]),
                ("events", sum[2]),
                ("queued_tasks", self.queued.load(Ordering::Relaxed) as u64),
            ],
        }
    }
}

/// Passes a task's progress to its worker's slot.
struct SlotObserver<'a>(&'a Mutex<[u64; 3]>);

impl Observer for SlotObserver<'_> {
    fn progress(&mut self, p: &Progress) {
        let get = |name: &str| p.counters.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
        *lock(self.0) = [get("max_configurations"), get("ssbs"), get("events")];
    }
}

/// What a task's exploration found, and the innermost split it ended under.
type Ended<'s, S> = (ExploreOutcome, Option<Arc<Split<'s, S>>>);

/// The tasks one worker runs.
struct Worker<'w, 's, S: System + Sync + ?Sized> {
    scope: &'w rayon::Scope<'s>,
    shared: &'s Shared<'s, S>,
    ops: ReplicaOps<'s, S>,
}

impl<'s, S: System + Sync + ?Sized> Worker<'_, 's, S> {
    /// Adds a task's outcome to the run's; true when the run must stop (an answer when
    /// not collecting all, a limit, an error).
    fn record(&mut self, done: Result<ExploreOutcome, Halt>) -> bool {
        let shared = self.shared;
        let mut own = std::mem::take(&mut self.ops.own);
        let slot = rayon::current_thread_index().unwrap_or(0) % shared.jobs;
        *lock(&shared.running[slot]) = [0; 3];
        let mut m = lock(&shared.merged);
        m.tasks += 1;
        let stop = match done {
            Ok(explored) => {
                let answered = !shared.opts.all
                    && explored
                        .findings
                        .iter()
                        .any(|f| f.kind != FindingKind::Termination);
                if answered {
                    shared.found.store(true, Ordering::SeqCst);
                }
                let stop = answered || explored.stopped.is_some();
                m.add(explored);
                stop
            }
            Err(Halt::Stop(why)) => {
                own.stopped.get_or_insert(why);
                true
            }
            Err(Halt::Model(e)) => {
                m.error.get_or_insert(e);
                true
            }
        };
        m.add(own);
        drop(m);
        if stop {
            shared.budget.cancel_token().cancel();
        }
        stop
    }

    /// Sets a new replica up at a fresh task's node and explores it.
    fn start(&mut self, r: &mut Replica<'s, S>, task: Fresh<'s, S>) -> Result<Ended<'s, S>, Halt> {
        let Fresh { root, node, scope } = task;
        let Some((d, a)) = self.ops.fresh(&mut r.unf, &mut ById, &root, &node)? else {
            return Ok((ExploreOutcome::default(), scope));
        };
        let shared = self.shared;
        let mut tree = NoTree;
        let sub = Subtree::new(
            &mut r.unf,
            shared.sys,
            shared.opts,
            &shared.budget,
            &mut tree,
            d,
            a,
        );
        self.explore(sub, r.id, scope)
    }

    /// Resumes a split's continuation in its owner's replica: back at C₀, it recreates D
    /// and the trail level by level, with what the other tasks reported, and goes back up.
    fn resume(&mut self, r: &mut Replica<'s, S>, split: Arc<Split<'s, S>>) -> Result<Ended<'s, S>, Halt> {
        let before = r.unf.stats();
        let mut levels = lock(&split.levels).take().unwrap_or_default();
        // In the order of the actions' keys, not of the reports' arrival (nor of the ids,
        // which the threads hand out as they meet actions): the events' ids in the replica,
        // and so the combs Alt tries first, must not depend on the timing.
        let sys = self.shared.sys;
        for level in &mut levels {
            level
                .imports
                .sort_by_cached_key(|desc| desc.iter().map(|&a| sys.action_key(a)).collect::<Vec<_>>());
        }
        let (d, trail) = self.ops.resumed(&mut r.unf, &mut ById, split.root_len, &levels)?;
        let shared = self.shared;
        let mut tree = NoTree;
        let mut sub = Subtree::new(
            &mut r.unf,
            shared.sys,
            shared.opts,
            &shared.budget,
            &mut tree,
            d,
            Vec::new(),
        )
        .resumed_at(trail);
        sub.protect(split.protect.clone());
        let mut ended = self.explore(sub, r.id, split.parent.clone())?;
        counted_since(&mut ended.0, &before);
        Ok(ended)
    }

    /// Explores `sub` in the replica `id`, splitting its work while other workers are idle.
    fn explore(
        &mut self,
        mut sub: Subtree<'_, ProgramUnfolding<'s, S>, S>,
        id: u64,
        mut scope: Option<Arc<Split<'s, S>>>,
    ) -> Result<Ended<'s, S>, Halt> {
        let shared = self.shared;
        let slot = rayon::current_thread_index().unwrap_or(0) % shared.jobs;
        let mut observer = SlotObserver(&shared.running[slot]);
        let mut pacer = SplitPacer::new(shared.split);
        loop {
            let mut pause = || pacer.pause(|| shared.hungry());
            match sub.run(&mut observer, &mut pause).map_err(Halt::Model)? {
                SubtreeEnd::Finished => break,
                SubtreeEnd::Paused => {
                    let deepest = shared.deepest.fetch_max(sub.deepest(), Ordering::Relaxed);
                    let max_root = pacer.max_root(deepest, sub.deepest());
                    let split = self.split(&mut sub, id, &mut scope, max_root)?;
                    pacer.looked(split);
                }
            }
        }
        Ok((sub.into_outcome(), scope))
    }

    /// After a task in replica `r` ended under `scope`, counts it off the innermost split.
    /// If `r` owns that split, `r` is parked there (it holds U for the continuation, and
    /// reports nothing yet: the continuation goes on in it). Otherwise `r` reports to the
    /// splits above (none of which it owns: a replica owns only splits made below its
    /// first task) and is dropped. Returns the owner's replica and the split to resume
    /// when this was the last task under it.
    #[allow(clippy::type_complexity)]
    fn end(
        &mut self,
        mut r: Replica<'s, S>,
        scope: Option<Arc<Split<'s, S>>>,
    ) -> Option<(Replica<'s, S>, Arc<Split<'s, S>>)> {
        let s = scope?;
        if s.owner == r.id {
            // Parked before counting off: the last task must find it.
            *lock(&s.parked) = Some(r);
        } else {
            self.report(&mut r, &s);
            drop(r);
        }
        if s.pending.fetch_sub(1, Ordering::SeqCst) != 1 {
            return None;
        }
        let owner = lock(&s.parked).take()?;
        Some((owner, s))
    }

    /// Splits the paused node of `sub` ([`ReplicaOps::split`]) at a configuration of at most
    /// `max_root` events: hands the tasks to the pool under a new split, which becomes the
    /// scope of `sub`. False when no node can be split.
    fn split(
        &mut self,
        sub: &mut Subtree<'_, ProgramUnfolding<'s, S>, S>,
        id: u64,
        scope: &mut Option<Arc<Split<'s, S>>>,
        max_root: usize,
    ) -> Result<bool, Halt> {
        let Some(plan) = self.ops.split(sub, max_root)? else {
            return Ok(false);
        };
        let split = Arc::new(Split {
            root_len: plan.root_len,
            owner: id,
            protect: plan.protect,
            levels: Mutex::new(Some(plan.levels)),
            reported: Mutex::new(HashSet::new()),
            pending: AtomicUsize::new(plan.children.len() + 1),
            parked: Mutex::new(None),
            parent: scope.clone(),
        });
        for (root, node) in plan.children {
            let task = Fresh {
                root,
                node,
                scope: Some(split.clone()),
            };
            give(self.scope, self.shared, task);
        }
        *scope = Some(split);
        Ok(true)
    }

    /// Adds what the task that ended in `r` reports ([`ReplicaOps::reports`]) to the
    /// continuations of the splits from `innermost` up. Pops C.
    fn report(&mut self, r: &mut Replica<'s, S>, innermost: &Arc<Split<'s, S>>) {
        let mut chain = Vec::new();
        let mut split = Some(innermost.clone());
        while let Some(s) = split {
            debug_assert_ne!(
                s.owner, r.id,
                "[qpor internal bug] a replica reports to its own split"
            );
            chain.push((s.root_len, s.depth()));
            split = s.parent.clone();
        }
        let found = self.ops.reports(&mut r.unf, &chain);
        let mut split = Some(innermost.clone());
        for found in found {
            let Some(s) = split else { break };
            let mut reported = lock(&s.reported);
            if let Some(levels) = lock(&s.levels).as_mut() {
                for (j, desc) in found {
                    if reported.insert((j, desc.clone())) {
                        levels[j].imports.push(desc);
                    }
                }
            }
            drop(reported);
            split = s.parent.clone();
        }
    }
}
