//! Rank 0's part of a split exploration ([`Coordinator`]): the queue of tasks not started,
//! the book of every split (how many tasks below it have not ended, what they reported),
//! the outcomes added up, and the run's end. It only takes messages in and says which to
//! send: the task driver ([`super::driver`]) moves them.
//!
//! A split's book lives here, so the reports of a task and the count that lets the
//! continuation resume arrive in one message and are applied together: a continuation
//! never starts before everything below it has reported (a transport orders the messages
//! of one sender, not those of several).

use super::explore::ExploreOutcome;
use super::replica::LevelTask;
use super::wire::{Key, Message, WireFinding, WireOutcome, WireTask};
use crate::engine::{Finding, FindingKind, Progress, StepNames, StopReason};
use crate::system::{ActionId, ModelError, System};
use hashbrown::{HashMap, HashSet};
use std::collections::VecDeque;
use std::ops::Range;

/// Counters of a split run, as rank 0 saw them (every message passes through it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SplitStats {
    /// Tasks run, continuations included.
    pub tasks: u64,
    /// Messages between rank 0 and the others, both ways.
    pub messages: u64,
    /// Their bytes.
    pub message_bytes: u64,
}

/// The book of a split, kept by rank 0.
struct Book {
    owner: usize,
    /// Tasks under the split that have not ended (its owner's included).
    pending: usize,
    imports: Vec<(u32, Vec<Key>)>,
    seen: HashSet<(u32, Vec<Key>)>,
}

/// Rank 0's view of the run.
pub(super) struct Coordinator {
    size: usize,
    /// The ranks that run tasks: all of them between processes, all but rank 0 between
    /// threads (where rank 0 is the calling thread, which watches the caller's budget).
    workers: Range<usize>,
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
    pub stats: SplitStats,
}

impl Coordinator {
    /// The coordinator of `size` ranks of which `workers` run tasks, collecting every
    /// dead state if `all`; the first task (the root) is queued.
    pub(super) fn new(size: usize, workers: Range<usize>, all: bool) -> Self {
        let first = WireTask {
            root: Vec::new(),
            node: LevelTask::default(),
            scope: Vec::new(),
        };
        Coordinator {
            size,
            workers,
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
            stats: SplitStats::default(),
        }
    }

    /// Takes a message from a rank in.
    pub(super) fn take(&mut self, msg: Message) {
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
                // Saturating: after a rank failed, the others' ends are no longer counted.
                self.outstanding = self.outstanding.saturating_sub(1);
                self.busy[from as usize] = self.busy[from as usize].saturating_sub(1);
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
            Message::Failed { from, error } => {
                // The rank's jobs will never end: the run ends without them.
                self.busy[from as usize] = 0;
                self.merged.error.get_or_insert(error);
                self.stop();
                self.outstanding = 0;
            }
            _ => {}
        }
    }

    /// The run found its answer before any task ran (a fault of the initial state).
    pub(super) fn answered_at_the_root(&mut self, finding: WireFinding) {
        self.merged.findings.push(finding);
        if !self.all {
            self.found = true;
            self.queue.clear();
            self.outstanding = 0;
        }
    }

    /// The caller's budget ran out (or the caller cancelled the run) for `why`: the run
    /// stops, and says why rather than how its tasks were told to stop.
    pub(super) fn out_of_budget(&mut self, why: StopReason) {
        if self.stopping {
            return;
        }
        self.merged.stopped.get_or_insert(why.into());
        self.stop();
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
        self.outstanding = self.outstanding.saturating_sub(self.queue.len());
        self.queue.clear();
        for to in 0..self.size {
            self.outbox.push((to, Message::Stop));
        }
    }

    /// Hands queued tasks to idle ranks, asks busy ones to split while some are idle, and
    /// ends the run once nothing is left. Returns the messages to send.
    pub(super) fn step(&mut self) -> Vec<(usize, Message)> {
        while !self.queue.is_empty() {
            let Some(idle) = self.workers.clone().find(|&r| self.busy[r] == 0) else {
                break;
            };
            let task = self.queue.pop_front().expect("not empty");
            self.busy[idle] += 1;
            self.outbox.push((idle, Message::Task(task)));
        }
        let idle = self.workers.clone().any(|r| self.busy[r] == 0);
        if idle && self.queue.is_empty() && !self.stopping {
            for r in self.workers.clone() {
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
    pub(super) fn progress(&self, seconds: f64) -> Progress {
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
    pub(super) fn finish<S: System + ?Sized>(
        self,
        sys: &S,
    ) -> Result<(ExploreOutcome, SplitStats), ModelError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of `out` to `rank`, by kind.
    fn to(out: &[(usize, Message)], rank: usize) -> Vec<&'static str> {
        out.iter()
            .filter(|(r, _)| *r == rank)
            .map(|(_, m)| match m {
                Message::Task(_) => "task",
                Message::Resume { .. } => "resume",
                Message::Hungry => "hungry",
                Message::Stop => "stop",
                Message::Finish => "finish",
                _ => "other",
            })
            .collect()
    }

    /// Between threads rank 0 only coordinates: the root goes to a worker, and an idle
    /// worker makes rank 0 ask the busy one to split, never itself.
    #[test]
    fn a_coordinator_that_does_not_work_gives_tasks_to_the_workers_only() {
        let mut c = Coordinator::new(3, 1..3, true);
        let out = c.step();
        assert_eq!(to(&out, 0), Vec::<&str>::new());
        assert_eq!(to(&out, 1), ["task", "hungry"]);
        assert_eq!(to(&out, 2), Vec::<&str>::new());
    }

    /// A worker thread that fails ends the run at once: its tasks will never end, so
    /// rank 0 stops and finishes every rank, and the run's outcome is the error.
    #[test]
    fn a_failed_rank_ends_the_run_with_its_error() {
        let mut c = Coordinator::new(2, 1..2, true);
        c.step();
        c.take(Message::Failed {
            from: 1,
            error: "a worker thread panicked".into(),
        });
        let out = c.step();
        assert_eq!(to(&out, 0), ["stop", "finish"]);
        assert_eq!(to(&out, 1), ["stop", "finish"]);
        assert_eq!(c.merged.error.as_deref(), Some("a worker thread panicked"));
    }
}
