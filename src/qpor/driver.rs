//! The task driver of QPOR's split exploration, on threads (`--threads`, [`super::parallel`])
//! and on processes (`--distributed`, [`super::distributed`]) alike: the maximal
//! configurations are split into classes explored by independent tasks, each in an
//! unfolding replica of its own ([`super::replica`]), run by *ranks* that pass messages
//! through a [`Transport`]. Threads over channels are ranks too.
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
//! Each task is an ordinary Explore(C, D, A) ([`Subtree`]) once A = Alt(C, D) is known, so
//! in optimal mode no task meets a sleep-set-blocked leaf, and the classes being disjoint,
//! the maximal configurations (and deadlocks) are exactly the sequential run's. With
//! k-partial alternatives the set of maximal configurations is the same, but how many SSBs
//! are met depends on the order in which D grew, which differs: the split explores another
//! tree than Algorithm 1's single one.
//!
//! # Counts that do not depend on the workers
//! Algorithm 1's own tree cannot be shared out with its counts: every Alt call needs U as
//! the whole left subtree left it, so its calls form one chain in depth-first order. What
//! can be made independent of the workers is the split tree. A task's exploration is a
//! function of its root, its node and its replica, and a fresh replica holds only what the
//! task replays; so the counts depend only on where the tasks split and on the order in
//! which a continuation's replica creates the events reported to it. Under
//! [`SplitPolicy::Fixed`] each task splits every few thousand of its own nodes, at the
//! shallowest node allowed by its own deepest leaf, never because a worker is idle; and
//! a continuation imports what was reported to it sorted by the actions' keys, not in the
//! order the reports arrived. Every count (SSBs and events created included) is then the
//! same on one worker and on any number, threads or processes (tests/qpor_parallel.rs,
//! tests/qpor_distributed.rs). k-partial and SDPOR runs split so; optimal runs, whose
//! counts do not depend on the splits, split when a worker is idle
//! ([`SplitPolicy::WhenIdle`]), which follows the load more closely.
//!
//! # When to split, and where
//! A task runs Algorithm 1 sequentially until a worker is idle (or, under fixed splits,
//! until it has passed a number of nodes). Then it pauses at its next node and looks for
//! the shallowest node l of its trail whose chosen event e_l has siblings X ∋ e_l in
//! en(C_l) \ D_l pairwise in conflict (shallow classes hold the most work). The tasks of
//! X \ {e_l} go to rank 0's queue; the trail below l goes on as the task of e_l; what the
//! levels down to l still had to do (their right children, with D_l ∪ X at l) becomes the
//! split's continuation, which resumes them by going back up the trail once every task
//! below has ended. Nodes in the deeper half of the deepest configuration seen are not
//! split ([`SplitPacer::max_root`]): their classes were mostly too small to pay for
//! replaying their root in a fresh replica.
//!
//! # Replicas
//! Each task explores in an unfolding replica. The continuation runs in the replica of the
//! task that went on below the split (its *owner*), on the owner's rank: that replica's U
//! already holds what the trail's Alt calls need, except what the other tasks found, which
//! they report. If the owner's task ends first, its replica waits, parked, for the
//! continuation to resume.
//!
//! Event ids differ between replicas. A configuration is sent as a firing sequence (one
//! action per event, causes first) and an event outside C as the actions of \[e\] \ C: in the
//! program-like unfolding the event of an action enabled at a configuration is unique, so
//! pushing the actions in order finds the same events again. Actions are written by the
//! system's keys ([`System::action_key`]), which every rank reads alike. Cutoffs under an
//! adequate order (ERV, McMillan) are not supported: which events are cutoffs depends on
//! the order in which a replica met states, so the classes would no longer be explored
//! alike. Causal, distance and canonical cutoffs are: whether an event is one depends on
//! its history alone, and on a table every replica shares (`unfold::cutoff`); canonical
//! cutoffs are ERV's made deterministic, those of the complete ERV prefix built first
//! (`unfold::tables::canonical`).
//!
//! # Ranks and messages
//! Every rank runs one task at a time in unfolding replicas of its own. Rank 0
//! *coordinates* ([`Coordinator`]): it holds the queue of tasks not started, the book of
//! every split and the outcomes added up. Between processes rank 0 runs tasks too; between
//! threads it is the calling thread, which only coordinates, watches the caller's budget
//! and reports progress. Every message goes to or from rank 0 ([`Message`]):
//! - a rank that splits sends `Split` (the tasks, as firing sequences, D and the events Alt
//!   needs) and keeps the continuation and its replica;
//! - a rank whose task ends sends `Ended`: its outcome, and what it reports to the splits
//!   above it (the events the continuations' Alt calls need);
//! - rank 0 sends a rank `Task` (a task to start in a fresh replica), `Resume` (the last
//!   task under a split the rank owns has ended: here is what they reported), `Hungry`
//!   (another rank is idle: split at the next node), `Stop` and `Finish`.
//!
//! # Why no rank waits forever
//! Rank 0 never waits on a send (the transport buffers them); other ranks send only to
//! rank 0, which receives whenever it is idle and between the nodes of its own task. A
//! thread rank that fails tells rank 0 (`Failed`), which ends the run.

use super::coordinator::{Coordinator, SplitStats};
use super::explore::{ExploreOptions, ExploreOutcome, NoTree, Subtree, SubtreeEnd};
use super::replica::{counted_since, ByKey, Halt, LevelTask, Replica, ReplicaOps, SplitPacer, SplitPolicy};
use super::transport::Transport;
use super::wire::{Key, Message, ScopeRef, WireFinding, WireOutcome, WireStop, WireTask};
use crate::engine::{Budget, FindingKind, Observer, Pacer};
use crate::system::{find_fault, ActionId, ModelError, System};
use crate::unfold::program::{ProgramOptions, ProgramUnfolding};
use crate::unfold::{EventId, Unfolding};
use hashbrown::HashMap;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How many nodes a task passes between two looks at the messages that have arrived.
const POLL_NODES: u32 = 16;

/// How long an idle rank 0 waits for a message before it looks at the caller's budget and
/// reports progress.
const POLL: Duration = Duration::from_millis(20);

/// What every rank of a split exploration runs with.
pub(super) struct Drive<'a, S: ?Sized> {
    pub sys: &'a S,
    /// Cutoffs every replica decides alike (none, causal, distance or canonical); the
    /// event limit holds for each replica.
    pub unfolding: ProgramOptions,
    pub opts: &'a ExploreOptions,
    /// The caller's budget: rank 0 stops the run when it runs out or is cancelled.
    pub caller: &'a Budget,
    /// The budget tasks run under, with a cancel token of the run's own (which the
    /// threads of one process share).
    pub budget: &'a Budget,
    /// When tasks split.
    pub split: SplitPolicy,
    /// Whether rank 0 runs tasks (between processes) or only coordinates (threads).
    pub rank0_works: bool,
    /// The largest configuration at a leaf the tasks of this process have reached (see
    /// [`SplitPacer::max_root`]): the threads of one process share it.
    pub deepest: &'a AtomicU64,
}

/// Runs Algorithm 1 on the program-like unfolding of `d.sys` split into tasks (see the
/// module documentation), as the rank `transport` says. Every rank calls it with the same
/// model and options; rank 0 returns the outcome, the others `None`. Under
/// [`SplitPolicy::WhenIdle`] a task splits when rank 0 asks for it because a rank is idle;
/// under the others, at nodes each task decides alone, so that every count is that of the
/// same policy on one worker.
pub(super) fn drive<S: System + ?Sized, T: Transport + ?Sized>(
    d: Drive<'_, S>,
    observer: &mut dyn Observer,
    transport: &T,
) -> Result<Option<(ExploreOutcome, SplitStats)>, ModelError> {
    let mut rank = Rank {
        sys: d.sys,
        transport,
        opts: d.opts,
        unfolding: d.unfolding,
        caller: d.caller,
        budget: d.budget,
        ops: ReplicaOps::new(d.opts, d.budget),
        keys: ByKey::default(),
        jobs: VecDeque::new(),
        owned: HashMap::new(),
        hungry: false,
        split: d.split,
        deepest: d.deepest,
        finished: false,
        splits: 0,
        replicas: 0,
        coordinator: None,
        observer,
        start: Instant::now(),
        pacer_at: 0.0,
    };
    let sys = d.sys;
    if transport.rank() == 0 {
        let size = transport.size();
        let workers = if d.rank0_works { 0..size } else { 1..size };
        let mut c = Coordinator::new(size, workers, d.opts.all);
        let initial = sys.initial_state();
        if let Some((comp, msg)) = find_fault(sys, &initial) {
            c.answered_at_the_root(WireFinding {
                kind: 2,
                message: Some(format!("{}: {msg}", sys.component_name(comp))),
                witness: Vec::new(),
            });
        }
        rank.coordinator = Some(c);
        rank.coordinate(None)?;
    }
    while !rank.finished {
        if let Some(job) = rank.jobs.pop_front() {
            rank.run(job)?;
            continue;
        }
        if rank.coordinator.is_some() {
            if let Some(bytes) = transport.receive_timeout(POLL) {
                rank.deliver(Message::decode(&bytes)?, bytes.len())?;
            }
            rank.watch()?;
        } else {
            let bytes = transport.receive();
            rank.deliver(Message::decode(&bytes)?, bytes.len())?;
        }
    }
    let Some(c) = rank.coordinator.take() else {
        return Ok(None);
    };
    c.finish(sys).map(Some)
}

/// What one rank does: run tasks, and at rank 0 coordinate.
struct Rank<'s, 'o, S: System + ?Sized, T: Transport + ?Sized> {
    sys: &'s S,
    transport: &'s T,
    opts: &'s ExploreOptions,
    unfolding: ProgramOptions,
    caller: &'s Budget,
    budget: &'s Budget,
    ops: ReplicaOps<'s, S>,
    keys: ByKey,
    /// Tasks and continuations to run, in the order received.
    jobs: VecDeque<Message>,
    /// The splits this rank made whose continuations have not resumed.
    owned: HashMap<u64, Owned<'s, S>>,
    /// Rank 0 asked for a split.
    hungry: bool,
    /// When tasks split.
    split: SplitPolicy,
    /// The largest configuration at a leaf this process has reached (see
    /// [`SplitPacer::max_root`]).
    deepest: &'s AtomicU64,
    finished: bool,
    /// Splits made and replicas created, for ids.
    splits: u64,
    replicas: u64,
    coordinator: Option<Coordinator>,
    observer: &'o mut dyn Observer,
    start: Instant,
    pacer_at: f64,
}

/// A split this rank made: its continuation, kept here with the replica it runs in.
struct Owned<'s, S: System + ?Sized> {
    root_len: usize,
    levels: Vec<LevelTask<ActionId>>,
    protect: Vec<EventId>,
    /// The splits above it.
    parent: Vec<ScopeRef>,
    /// The replica that went on below the split.
    replica: u64,
    /// That replica, once its task ended.
    parked: Option<Replica<'s, S>>,
}

impl<'s, S: System + ?Sized, T: Transport + ?Sized> Rank<'s, '_, S, T> {
    fn rank(&self) -> usize {
        self.transport.rank()
    }

    /// Takes a message in: a job to queue, a flag to set, or work for the coordinator.
    fn deliver(&mut self, msg: Message, bytes: usize) -> Result<(), ModelError> {
        match msg {
            Message::Task(_) | Message::Resume { .. } => self.jobs.push_back(msg),
            Message::Hungry => self.hungry = true,
            Message::Stop => self.budget.cancel_token().cancel(),
            Message::Finish => self.finished = true,
            Message::Split { .. } | Message::Ended { .. } | Message::Failed { .. } => {
                if let Some(c) = self.coordinator.as_mut() {
                    c.stats.messages += 1;
                    c.stats.message_bytes += bytes as u64;
                }
                self.coordinate(Some(msg))?;
            }
        }
        Ok(())
    }

    /// Sends `msg` to rank 0, or at rank 0 hands it to the coordinator.
    fn tell_coordinator(&mut self, msg: Message) -> Result<(), ModelError> {
        if self.rank() == 0 {
            self.coordinate(Some(msg))
        } else {
            self.transport.send(0, &msg.encode());
            Ok(())
        }
    }

    /// At rank 0: the coordinator takes `msg` in, and what it sends goes out.
    fn coordinate(&mut self, msg: Option<Message>) -> Result<(), ModelError> {
        let Some(c) = self.coordinator.as_mut() else {
            return Err(ModelError::new(
                "[qpor internal bug] a coordinator message reached a rank other than 0",
            ));
        };
        if let Some(msg) = msg {
            c.take(msg);
        }
        let out = c.step();
        for (to, msg) in out {
            if to == 0 {
                self.deliver(msg, 0)?;
            } else {
                let bytes = msg.encode();
                let c = self.coordinator.as_mut().expect("rank 0 coordinates");
                c.stats.messages += 1;
                c.stats.message_bytes += bytes.len() as u64;
                self.transport.send(to, &bytes);
            }
        }
        Ok(())
    }

    /// Takes in the messages that have arrived, and at rank 0 watches the run.
    fn poll(&mut self) -> Result<(), ModelError> {
        while let Some(bytes) = self.transport.try_receive() {
            self.deliver(Message::decode(&bytes)?, bytes.len())?;
        }
        self.watch()
    }

    /// At rank 0: stops the run when the caller's budget ran out or the caller cancelled
    /// it, and reports progress (the tasks ended so far).
    fn watch(&mut self) -> Result<(), ModelError> {
        let Some(c) = self.coordinator.as_mut() else {
            return Ok(());
        };
        if let Some(why) = self.caller.exhausted() {
            // The threads of one process share the token: they stop for the same reason.
            self.budget.cancel_token().stop(why);
            c.out_of_budget(why);
            self.coordinate(None)?;
        }
        if let Some(c) = &self.coordinator {
            let secs = self.start.elapsed().as_secs_f64();
            if secs - self.pacer_at >= Pacer::PROGRESS_EVERY {
                self.pacer_at = secs;
                let p = c.progress(secs);
                self.observer.progress(&p);
            }
        }
        Ok(())
    }

    /// Runs a task or a continuation and tells rank 0 how it ended.
    fn run(&mut self, job: Message) -> Result<(), ModelError> {
        let done = match job {
            Message::Task(task) => self.start_task(task),
            Message::Resume { split, imports } => self.resume(split, imports),
            _ => return Ok(()),
        };
        let own = std::mem::take(&mut self.ops.own);
        let mut outcome = self.wire_outcome(own);
        let (scope, reports) = match done {
            Ok((explored, replica, scope)) => {
                let explored = self.wire_outcome(explored);
                outcome.absorb(explored);
                let reports = self.end(replica, &scope);
                (scope.first().map(|s| s.split), reports)
            }
            Err((halt, scope)) => {
                match halt {
                    Halt::Stop(why) => outcome.stopped = Some(WireStop::from(why)),
                    Halt::Model(e) => outcome.error = Some(e.to_string()),
                }
                (scope.first().map(|s| s.split), Vec::new())
            }
        };
        let msg = Message::Ended {
            from: self.rank() as u32,
            scope,
            reports,
            outcome,
        };
        self.tell_coordinator(msg)
    }

    /// A new replica, watching the budget.
    fn replica(&mut self) -> Replica<'s, S> {
        let mut unf = ProgramUnfolding::new(self.sys, self.unfolding.clone());
        unf.watch(self.budget.deadline(), self.budget.cancel_token().clone());
        self.replicas += 1;
        Replica {
            unf,
            id: self.replicas,
        }
    }

    /// Sets a fresh replica up at a task's node and explores it.
    fn start_task(&mut self, task: WireTask) -> Result<Explored<'s, S>, (Halt, Vec<ScopeRef>)> {
        let WireTask { root, node, scope } = task;
        let mut r = self.replica();
        let set_up = match self.ops.fresh(&mut r.unf, &mut self.keys, &root, &node) {
            Ok(s) => s,
            Err(h) => return Err((h, scope)),
        };
        let Some((d, a)) = set_up else {
            return Ok((ExploreOutcome::default(), r, scope));
        };
        self.explore(r, d, a, None, Vec::new(), scope)
    }

    /// Resumes the continuation of `split` in the replica parked there, with what the
    /// tasks below reported.
    fn resume(
        &mut self,
        split: u64,
        imports: Vec<(u32, Vec<Key>)>,
    ) -> Result<Explored<'s, S>, (Halt, Vec<ScopeRef>)> {
        let internal = |what: &str| {
            Halt::Model(ModelError::new(format!(
                "[qpor internal bug] a continuation to resume {what}"
            )))
        };
        let Some(owned) = self.owned.remove(&split) else {
            return Err((internal("is not this rank's"), Vec::new()));
        };
        let Some(mut r) = owned.parked else {
            return Err((internal("has no replica"), owned.parent));
        };
        let (sys, keys) = (self.sys, &mut self.keys);
        let mut levels: Vec<LevelTask<Key>> = owned
            .levels
            .iter()
            .map(|l| l.map(|&a| keys.key(sys, a)))
            .collect();
        for (j, desc) in imports {
            match levels.get_mut(j as usize) {
                Some(level) => level.imports.push(desc),
                None => return Err((internal("got a report for a level it lacks"), owned.parent)),
            }
        }
        // In the order of the keys, not of the reports' arrival: the events' ids in the
        // replica, and so the combs Alt tries first, must not depend on the timing.
        for level in &mut levels {
            level.imports.sort_unstable();
        }
        let before = r.unf.stats();
        let (d, trail) = match self
            .ops
            .resumed(&mut r.unf, &mut self.keys, owned.root_len, &levels)
        {
            Ok(x) => x,
            Err(h) => return Err((h, owned.parent)),
        };
        let mut explored = self.explore(r, d, Vec::new(), Some(trail), owned.protect, owned.parent)?;
        counted_since(&mut explored.0, &before);
        Ok(explored)
    }

    /// Explores from the node (C, `d`, `a`) of replica `r` (or resumed at `trail`),
    /// splitting while rank 0 asks for it.
    fn explore(
        &mut self,
        mut r: Replica<'s, S>,
        d: Vec<EventId>,
        a: Vec<EventId>,
        trail: Option<Vec<(EventId, usize)>>,
        protect: Vec<EventId>,
        mut scope: Vec<ScopeRef>,
    ) -> Result<Explored<'s, S>, (Halt, Vec<ScopeRef>)> {
        let (sys, opts, budget) = (self.sys, self.opts, self.budget);
        let mut tree = NoTree;
        let mut sub = Subtree::new(&mut r.unf, sys, opts, budget, &mut tree, d, a);
        if let Some(trail) = trail {
            sub = sub.resumed_at(trail);
        }
        sub.protect(protect);
        let mut pacer = SplitPacer::new(self.split);
        let mut nodes = 0u32;
        let mut observer = crate::engine::Silent;
        loop {
            let mut failed = None;
            let mut pause = || {
                nodes = nodes.wrapping_add(1);
                if nodes % POLL_NODES == 0 {
                    if let Err(e) = self.poll() {
                        failed = Some(e);
                        return true;
                    }
                }
                pacer.pause(|| self.hungry)
            };
            let end = sub.run(&mut observer, &mut pause);
            if let Some(e) = failed {
                return Err((Halt::Model(e), scope));
            }
            match end {
                Err(e) => return Err((Halt::Model(e), scope)),
                Ok(SubtreeEnd::Finished) => break,
                Ok(SubtreeEnd::Paused) => {
                    let deepest = self.deepest.fetch_max(sub.deepest(), Ordering::Relaxed);
                    let max_root = pacer.max_root(deepest, sub.deepest());
                    match self.split(&mut sub, r.id, &mut scope, max_root) {
                        Err(h) => return Err((h, scope)),
                        Ok(split) => {
                            if split {
                                self.hungry = false;
                            }
                            pacer.looked(split);
                        }
                    }
                }
            }
        }
        let out = sub.into_outcome();
        Ok((out, r, scope))
    }

    /// Splits the paused node of `sub` at a configuration of at most `max_root` events and
    /// sends the tasks to rank 0; the split becomes the innermost of `scope`. False when
    /// no node can be split.
    fn split(
        &mut self,
        sub: &mut Subtree<'_, ProgramUnfolding<'s, S>, S>,
        replica: u64,
        scope: &mut Vec<ScopeRef>,
        max_root: usize,
    ) -> Result<bool, Halt> {
        let Some(plan) = self.ops.split(sub, max_root)? else {
            return Ok(false);
        };
        self.splits += 1;
        let id = ((self.rank() as u64) << 40) | self.splits;
        let here = ScopeRef {
            split: id,
            root_len: plan.root_len as u32,
            depth: plan.levels.len() as u32,
        };
        let mut chain = Vec::with_capacity(scope.len() + 1);
        chain.push(here);
        chain.extend_from_slice(scope);
        let (sys, keys) = (self.sys, &mut self.keys);
        let tasks = plan
            .children
            .iter()
            .map(|(root, node)| WireTask {
                root: root.iter().map(|&a| keys.key(sys, a)).collect(),
                node: node.map(|&a| keys.key(sys, a)),
                scope: chain.clone(),
            })
            .collect();
        let parent = std::mem::replace(scope, chain);
        self.owned.insert(
            id,
            Owned {
                root_len: plan.root_len,
                levels: plan.levels,
                protect: plan.protect,
                parent,
                replica,
                parked: None,
            },
        );
        let msg = Message::Split {
            from: self.rank() as u32,
            split: id,
            tasks,
        };
        self.tell_coordinator(msg).map_err(Halt::Model)?;
        Ok(true)
    }

    /// After a task in replica `r` ended under `scope`: if `r` owns the innermost split,
    /// `r` is parked there (the continuation goes on in it, and reports nothing yet);
    /// otherwise it reports to the splits above and is dropped.
    fn end(&mut self, mut r: Replica<'s, S>, scope: &[ScopeRef]) -> Vec<(u64, u32, Vec<Key>)> {
        let Some(inner) = scope.first() else {
            return Vec::new();
        };
        if let Some(owned) = self.owned.get_mut(&inner.split) {
            if owned.replica == r.id {
                owned.parked = Some(r);
                return Vec::new();
            }
        }
        let chain: Vec<(usize, usize)> = scope
            .iter()
            .map(|s| (s.root_len as usize, s.depth as usize))
            .collect();
        let found = self.ops.reports(&mut r.unf, &chain);
        let (sys, keys) = (self.sys, &mut self.keys);
        let mut out = Vec::new();
        for (s, found) in scope.iter().zip(found) {
            for (j, desc) in found {
                out.push((
                    s.split,
                    j as u32,
                    desc.iter().map(|&a| keys.key(sys, a)).collect(),
                ));
            }
        }
        out
    }

    /// A task's outcome as sent.
    fn wire_outcome(&mut self, mut o: ExploreOutcome) -> WireOutcome {
        let (sys, keys) = (self.sys, &mut self.keys);
        let findings = std::mem::take(&mut o.findings);
        let stopped = o.stopped.take().map(WireStop::from);
        WireOutcome {
            counts: o,
            findings: findings
                .iter()
                .map(|f| WireFinding {
                    kind: match f.kind {
                        FindingKind::Deadlock => 0,
                        FindingKind::Termination => 1,
                        FindingKind::Fault => 2,
                    },
                    message: f.message.clone(),
                    witness: f.witness.steps.iter().map(|s| keys.key(sys, s.id)).collect(),
                })
                .collect(),
            stopped,
            error: None,
        }
    }
}

/// What a job explored, its replica, and the splits it ended under.
type Explored<'s, S> = (ExploreOutcome, Replica<'s, S>, Vec<ScopeRef>);
