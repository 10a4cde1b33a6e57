//! QPOR across processes (`mpirun -np N qpor check --distributed`): the split exploration
//! of [`super::parallel`], with the tasks and reports sent as messages.
//!
//! # Processes and messages
//! Every process (rank) loads the model and runs one task at a time in unfolding replicas
//! of its own. Rank 0 also *coordinates*: it holds the queue of tasks not started, the
//! book of every split (how many tasks below it have not ended, what they reported) and
//! the outcomes added up, and it prints the report. Every message goes to or from rank 0:
//! - a rank that splits sends `Split` (the tasks, as firing sequences, D and the events Alt
//!   needs, all written as action keys) and keeps the continuation and its replica;
//! - a rank whose task ends sends `Ended`: its outcome, and what it reports to the splits
//!   above it (the events the continuations' Alt calls need);
//! - rank 0 sends a rank `Task` (a task to start in a fresh replica), `Resume` (the last
//!   task under a split the rank owns has ended: here is what they reported), `Hungry`
//!   (another rank is idle: split at the next node), `Stop` and `Finish`.
//!
//! A split's book lives at rank 0, so the reports of a task and the count that lets the
//! continuation resume arrive in one message and are applied together: a continuation
//! never starts before everything below it has reported (MPI orders the messages of one
//! sender, not those of several).
//!
//! # Names of actions
//! Processes number actions each in the order it met them (a program's actions are
//! interned as they are reached), so messages name actions by [`System::action_key`], and
//! the receiver finds the enabled event with that key. Witnesses come to rank 0 the same
//! way and are replayed there on its own system.
//!
//! # Why no process waits forever
//! Rank 0 never waits on a send (the transport buffers them); other ranks send only to
//! rank 0, which receives whenever it is idle and between the nodes of its own task.

use super::explore::{ExploreOptions, ExploreOutcome, NoTree, Subtree, SubtreeEnd};
use super::replica::{counted_since, ByKey, Halt, LevelTask, Replica, ReplicaOps, SplitPacer, SplitPolicy};
use crate::engine::{Budget, Finding, FindingKind, Observer, Pacer, Progress, StepNames, StopReason};
use crate::system::{find_fault, ActionId, ModelError, System};
use crate::unfold::program::{ProgramOptions, ProgramUnfolding};
use crate::unfold::{EventId, Unfolding};
use hashbrown::{HashMap, HashSet};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender};
use std::time::Instant;

/// How many nodes a task passes between two looks at the messages that have arrived.
const POLL_NODES: u32 = 16;

/// How the processes of a distributed run pass messages. Rank 0 coordinates.
pub trait Transport {
    /// This process's rank, from 0.
    fn rank(&self) -> usize;
    /// How many processes run.
    fn size(&self) -> usize;
    /// Sends `bytes` to rank `to`. On rank 0 it must not wait for the receiver; elsewhere
    /// it may wait until rank 0 receives.
    fn send(&self, to: usize, bytes: &[u8]);
    /// A message sent to this rank, if one has arrived.
    fn try_receive(&self) -> Option<Vec<u8>>;
    /// The next message sent to this rank, waiting for it.
    fn receive(&self) -> Vec<u8>;
}

/// A [`Transport`] between threads of one process, for tests: channels.
pub struct ChannelTransport {
    rank: usize,
    peers: Vec<Sender<Vec<u8>>>,
    inbox: Receiver<Vec<u8>>,
}

impl ChannelTransport {
    /// The transports of `n` ranks, rank 0 first.
    pub fn group(n: usize) -> Vec<ChannelTransport> {
        let (peers, inboxes): (Vec<_>, Vec<_>) = (0..n).map(|_| std::sync::mpsc::channel()).unzip();
        inboxes
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| ChannelTransport {
                rank,
                peers: peers.clone(),
                inbox,
            })
            .collect()
    }
}

impl Transport for ChannelTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.peers.len()
    }

    fn send(&self, to: usize, bytes: &[u8]) {
        // A rank that ended has nothing left to receive.
        let _ = self.peers[to].send(bytes.to_vec());
    }

    fn try_receive(&self) -> Option<Vec<u8>> {
        self.inbox.try_recv().ok()
    }

    fn receive(&self) -> Vec<u8> {
        // Every rank holds a sender to itself, so the channel never closes.
        self.inbox.recv().unwrap_or_default()
    }
}

/// An action, as every process names it ([`System::action_key`]).
type Key = Vec<u32>;

/// A split, one of those above a task: its id, |C₀| of its continuation and its levels.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct ScopeRef {
    split: u64,
    root_len: u32,
    depth: u32,
}

/// A task to start in a fresh replica: the node (C, D).
#[derive(Debug, Serialize, Deserialize)]
struct WireTask {
    /// C, as a firing sequence from the initial state.
    root: Vec<Key>,
    /// D and what Alt needs for it.
    node: LevelTask<Key>,
    /// The splits whose continuations wait for this task, innermost first.
    scope: Vec<ScopeRef>,
}

/// A dead or faulty state found, with its witness by keys.
#[derive(Debug, Serialize, Deserialize)]
struct WireFinding {
    kind: u8,
    message: Option<String>,
    witness: Vec<Key>,
}

/// Why a task stopped early.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
enum WireStop {
    Time(f64),
    Events(u64),
    Memory(u64),
    States(u64),
    Cancelled,
}

impl From<StopReason> for WireStop {
    fn from(s: StopReason) -> Self {
        match s {
            StopReason::TimeLimit { seconds } => WireStop::Time(seconds),
            StopReason::EventLimit(n) => WireStop::Events(n),
            StopReason::MemoryLimit(n) => WireStop::Memory(n),
            StopReason::StateLimit(n) => WireStop::States(n),
            _ => WireStop::Cancelled,
        }
    }
}

impl From<WireStop> for StopReason {
    fn from(s: WireStop) -> Self {
        match s {
            WireStop::Time(seconds) => StopReason::TimeLimit { seconds },
            WireStop::Events(n) => StopReason::EventLimit(n),
            WireStop::Memory(n) => StopReason::MemoryLimit(n),
            WireStop::States(n) => StopReason::StateLimit(n),
            WireStop::Cancelled => StopReason::Cancelled,
        }
    }
}

/// A task's outcome.
#[derive(Debug, Default, Serialize, Deserialize)]
struct WireOutcome {
    /// The counts (the findings and the stop are below, in forms every process reads).
    counts: ExploreOutcome,
    findings: Vec<WireFinding>,
    stopped: Option<WireStop>,
    error: Option<String>,
}

impl WireOutcome {
    /// Adds `o`: its counts ([`ExploreOutcome::add_counts`]), findings, and its stop or
    /// error if this has none.
    fn absorb(&mut self, o: WireOutcome) {
        self.counts.add_counts(&o.counts);
        self.findings.extend(o.findings);
        if self.stopped.is_none() {
            self.stopped = o.stopped;
        }
        if self.error.is_none() {
            self.error = o.error;
        }
    }
}

/// What the processes say to each other.
#[derive(Debug, Serialize, Deserialize)]
enum Message {
    /// To rank 0: rank `from` split; the split's tasks.
    Split {
        from: u32,
        split: u64,
        tasks: Vec<WireTask>,
    },
    /// To rank 0: rank `from` ended a task (or continuation) under the split `scope`.
    Ended {
        from: u32,
        scope: Option<u64>,
        /// For splits above the task: (split, level, event as the actions of \[e\] \ C_j).
        reports: Vec<(u64, u32, Vec<Key>)>,
        outcome: WireOutcome,
    },
    /// To a rank: start this task.
    Task(WireTask),
    /// To the owner of `split`: every task below it has ended; resume its continuation
    /// with what they reported (level, event).
    Resume {
        split: u64,
        imports: Vec<(u32, Vec<Key>)>,
    },
    /// Another rank is idle: split the running task.
    Hungry,
    /// The run is over (an answer, a limit or an error): end the running task.
    Stop,
    /// Nothing is left: return.
    Finish,
}

impl Message {
    fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("messages serialise")
    }

    fn decode(bytes: &[u8]) -> Result<Message, ModelError> {
        serde_json::from_slice(bytes).map_err(|e| {
            ModelError::new(format!(
                "a distributed run received a message it cannot read: {e}"
            ))
        })
    }
}

/// Counters of a distributed run, as rank 0 saw them (every message passes through it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DistributedStats {
    /// Tasks run, continuations included.
    pub tasks: u64,
    /// Messages between rank 0 and the others, both ways.
    pub messages: u64,
    /// Their bytes.
    pub message_bytes: u64,
}

/// Runs Algorithm 1 on the program-like unfolding of `sys` with the processes of
/// `transport` (see the module documentation); `unfolding` must have cutoffs every
/// replica decides alike (none, causal, distance or canonical), and its event limit holds for each replica. Every rank calls it with the same model and
/// options; rank 0 returns the outcome, the others `None`. `split` says when tasks split.
/// Under [`SplitPolicy::WhenIdle`] a task splits when rank 0 asks for it because a rank is
/// idle; under the others, at nodes each task decides alone, so that every count is that
/// of the same policy on one thread.
pub(crate) fn explore_distributed<S: System + ?Sized, T: Transport + ?Sized>(
    sys: &S,
    unfolding: ProgramOptions,
    opts: &ExploreOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    transport: &T,
    split: SplitPolicy,
) -> Result<Option<(ExploreOutcome, DistributedStats)>, ModelError> {
    let budget = budget.with_own_cancel();
    let mut rank = Rank {
        sys,
        transport,
        opts,
        unfolding,
        budget: &budget,
        ops: ReplicaOps::new(opts, &budget),
        keys: ByKey::default(),
        jobs: VecDeque::new(),
        owned: HashMap::new(),
        hungry: false,
        split,
        deepest: 0,
        finished: false,
        splits: 0,
        replicas: 0,
        coordinator: None,
        observer,
        start: Instant::now(),
        pacer_at: 0.0,
    };
    if transport.rank() == 0 {
        let mut c = Coordinator::new(transport.size(), opts.all);
        let initial = sys.initial_state();
        if let Some((comp, msg)) = find_fault(sys, &initial) {
            c.merged.findings.push(WireFinding {
                kind: 2,
                message: Some(format!("{}: {msg}", sys.component_name(comp))),
                witness: Vec::new(),
            });
            if !opts.all {
                c.found = true;
                c.queue.clear();
                c.outstanding = 0;
            }
        }
        rank.coordinator = Some(c);
        rank.coordinate(None)?;
    }
    while !rank.finished {
        if let Some(job) = rank.jobs.pop_front() {
            rank.run(job)?;
            continue;
        }
        let bytes = transport.receive();
        rank.deliver(Message::decode(&bytes)?, bytes.len())?;
    }
    let Some(c) = rank.coordinator.take() else {
        return Ok(None);
    };
    c.finish(sys).map(Some)
}

/// What this process does: run tasks, and at rank 0 coordinate.
struct Rank<'s, 'o, S: System + ?Sized, T: Transport + ?Sized> {
    sys: &'s S,
    transport: &'s T,
    opts: &'s ExploreOptions,
    unfolding: ProgramOptions,
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
    /// The largest configuration at a leaf this rank has reached (see
    /// [`SplitPacer::max_root`]).
    deepest: u64,
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
            Message::Split { .. } | Message::Ended { .. } => {
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

    /// Takes in the messages that have arrived, and at rank 0 reports progress.
    fn poll(&mut self) -> Result<(), ModelError> {
        while let Some(bytes) = self.transport.try_receive() {
            self.deliver(Message::decode(&bytes)?, bytes.len())?;
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
                    self.deepest = self.deepest.max(sub.deepest());
                    let max_root = pacer.max_root(self.deepest, sub.deepest());
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

/// The book of a split, kept by rank 0.
struct Book {
    owner: usize,
    /// Tasks under the split that have not ended (its owner's included).
    pending: usize,
    imports: Vec<(u32, Vec<Key>)>,
    seen: HashSet<(u32, Vec<Key>)>,
}

/// Rank 0's view of the run.
struct Coordinator {
    size: usize,
    /// Every dead state is wanted (`--all`): an answer does not stop the run.
    all: bool,
    queue: VecDeque<WireTask>,
    books: HashMap<u64, Book>,
    /// Jobs given to each rank and not ended.
    busy: Vec<usize>,
    /// Ranks asked to split that have not split since.
    asked: Vec<bool>,
    /// Tasks queued or running, continuations included.
    outstanding: usize,
    /// The run stops: no task is given out any more.
    stopping: bool,
    /// An answer ended the run.
    found: bool,
    merged: WireOutcome,
    seen: HashSet<(u8, Vec<Key>)>,
    outbox: Vec<(usize, Message)>,
    finished: bool,
    stats: DistributedStats,
}

impl Coordinator {
    fn new(size: usize, all: bool) -> Self {
        let first = WireTask {
            root: Vec::new(),
            node: LevelTask::default(),
            scope: Vec::new(),
        };
        Coordinator {
            size,
            all,
            queue: VecDeque::from([first]),
            books: HashMap::new(),
            busy: vec![0; size],
            asked: vec![false; size],
            outstanding: 1,
            stopping: false,
            found: false,
            merged: WireOutcome::default(),
            seen: HashSet::new(),
            outbox: Vec::new(),
            finished: false,
            stats: DistributedStats::default(),
        }
    }

    /// Takes a message from a rank in.
    fn take(&mut self, msg: Message) {
        match msg {
            Message::Split { from, split, tasks } => {
                self.asked[from as usize] = false;
                if self.stopping {
                    return;
                }
                let book = Book {
                    owner: from as usize,
                    pending: tasks.len() + 1,
                    imports: Vec::new(),
                    seen: HashSet::new(),
                };
                self.books.insert(split, book);
                self.outstanding += tasks.len();
                self.queue.extend(tasks);
            }
            Message::Ended {
                from,
                scope,
                reports,
                outcome,
            } => {
                self.stats.tasks += 1;
                self.outstanding -= 1;
                self.busy[from as usize] -= 1;
                self.add(outcome);
                for (split, j, desc) in reports {
                    if let Some(book) = self.books.get_mut(&split) {
                        if book.seen.insert((j, desc.clone())) {
                            book.imports.push((j, desc));
                        }
                    }
                }
                let Some(split) = scope else { return };
                let Some(book) = self.books.get_mut(&split) else {
                    return;
                };
                book.pending -= 1;
                if book.pending > 0 {
                    return;
                }
                let Some(book) = self.books.remove(&split) else {
                    return;
                };
                if !self.stopping {
                    self.outstanding += 1;
                    self.busy[book.owner] += 1;
                    let msg = Message::Resume {
                        split,
                        imports: book.imports,
                    };
                    self.outbox.push((book.owner, msg));
                }
            }
            _ => {}
        }
    }

    /// Adds a task's outcome; stops the run on an answer (unless collecting all), a limit
    /// or an error.
    fn add(&mut self, mut o: WireOutcome) {
        let answered = o.findings.iter().any(|f| f.kind != 1);
        let stop = o.error.is_some() || o.stopped.is_some();
        let findings = std::mem::take(&mut o.findings);
        self.merged.absorb(o);
        for f in findings {
            if self.seen.insert((f.kind, f.witness.clone())) {
                self.merged.findings.push(f);
            }
        }
        if answered && !self.all && !self.stopping {
            // Asked for one answer: this is it.
            self.found = true;
        }
        if self.found || stop {
            self.stop();
        }
    }

    /// Stops giving out work and tells every rank to end its task.
    fn stop(&mut self) {
        if self.stopping {
            return;
        }
        self.stopping = true;
        self.outstanding -= self.queue.len();
        self.queue.clear();
        for to in 0..self.size {
            self.outbox.push((to, Message::Stop));
        }
    }

    /// Hands queued tasks to idle ranks, asks busy ones to split while some are idle, and
    /// ends the run once nothing is left. Returns the messages to send.
    fn step(&mut self) -> Vec<(usize, Message)> {
        while !self.queue.is_empty() {
            let Some(idle) = (0..self.size).find(|&r| self.busy[r] == 0) else {
                break;
            };
            let task = self.queue.pop_front().expect("not empty");
            self.busy[idle] += 1;
            self.outbox.push((idle, Message::Task(task)));
        }
        let idle = (0..self.size).any(|r| self.busy[r] == 0);
        if idle && self.queue.is_empty() && !self.stopping {
            for r in 0..self.size {
                if self.busy[r] > 0 && !self.asked[r] {
                    self.asked[r] = true;
                    self.outbox.push((r, Message::Hungry));
                }
            }
        }
        if self.outstanding == 0 && !self.finished {
            self.finished = true;
            for to in 0..self.size {
                self.outbox.push((to, Message::Finish));
            }
        }
        std::mem::take(&mut self.outbox)
    }

    /// The progress of the run: the tasks ended so far.
    fn progress(&self, seconds: f64) -> Progress {
        Progress {
            engine: "qpor",
            seconds,
            counters: vec![
                ("max_configurations", self.merged.counts.max_configurations),
                ("ssbs", self.merged.counts.ssbs),
                ("events", self.merged.counts.unfolding.events_created),
                ("tasks", self.stats.tasks),
                ("queued_tasks", self.queue.len() as u64),
            ],
        }
    }

    /// The run's outcome, its witnesses replayed on rank 0's system.
    fn finish<S: System + ?Sized>(self, sys: &S) -> Result<(ExploreOutcome, DistributedStats), ModelError> {
        let m = self.merged;
        if let Some(e) = m.error {
            return Err(ModelError::new(e));
        }
        let mut out = m.counts;
        // A task stopped because the answer was known is not a stop of the run.
        out.stopped = if self.found {
            None
        } else {
            m.stopped.map(StopReason::from)
        };
        let mut names = StepNames::default();
        let mut states = HashSet::new();
        for f in m.findings {
            let kind = match f.kind {
                0 => FindingKind::Deadlock,
                1 => FindingKind::Termination,
                _ => FindingKind::Fault,
            };
            let (actions, state) = replay_keys(sys, &f.witness)?;
            let state = sys.describe_state(&state);
            if states.insert((kind, state.clone())) {
                out.findings
                    .push(Finding::new(kind, state, f.message, names.witness(sys, actions)));
            }
        }
        Ok((out, self.stats))
    }
}

/// Fires the actions `keys` names from the initial state of `sys`: their ids here and the
/// state reached. An error when one is not enabled where the sequence puts it.
fn replay_keys<S: System + ?Sized>(
    sys: &S,
    keys: &[Key],
) -> Result<(Vec<ActionId>, Vec<crate::system::Local>), ModelError> {
    let mut state = sys.initial_state();
    let mut next = Vec::new();
    let mut steps = Vec::new();
    let mut ids = Vec::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        let Some(step) = steps.iter().find(|s| sys.action_key(s.action) == *k) else {
            return Err(ModelError::new(format!(
                "[qpor internal bug] step {} of a witness from another rank is not enabled here",
                i + 1
            )));
        };
        if !sys.successor(&state, step, &mut next)? {
            return Err(ModelError::new(format!(
                "[qpor internal bug] step {} of a witness from another rank does not fire here",
                i + 1
            )));
        }
        std::mem::swap(&mut state, &mut next);
        ids.push(step.action);
    }
    Ok((ids, state))
}
