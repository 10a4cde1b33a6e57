//! The messages of a split exploration ([`Message`]) and what they carry: tasks, outcomes
//! and findings written with the actions' keys ([`System::action_key`](crate::system::System::action_key)), which every rank
//! reads alike (ranks number actions each in the order it met them).

use super::explore::ExploreOutcome;
use super::replica::LevelTask;
use crate::engine::StopReason;
use crate::system::ModelError;
use serde::{Deserialize, Serialize};

/// An action, as every process names it
/// ([`System::action_key`](crate::system::System::action_key)).
pub(super) type Key = Vec<u32>;

/// A split, one of those above a task: its id, |C₀| of its continuation and its levels.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct ScopeRef {
    pub split: u64,
    pub root_len: u32,
    pub depth: u32,
}

/// A task to start in a fresh replica: the node (C, D).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct WireTask {
    /// C, as a firing sequence from the initial state.
    pub root: Vec<Key>,
    /// D and what Alt needs for it.
    pub node: LevelTask<Key>,
    /// The splits whose continuations wait for this task, innermost first.
    pub scope: Vec<ScopeRef>,
}

/// A dead or faulty state found, with its witness by keys.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct WireFinding {
    pub kind: u8,
    pub message: Option<String>,
    pub witness: Vec<Key>,
}

/// Why a task stopped early.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) enum WireStop {
    Time(f64),
    Events(u64),
    Memory(u64),
    States(u64),
    Cancelled,
    Interrupted,
}

impl From<StopReason> for WireStop {
    fn from(s: StopReason) -> Self {
        match s {
            StopReason::TimeLimit { seconds } => WireStop::Time(seconds),
            StopReason::EventLimit(n) => WireStop::Events(n),
            StopReason::MemoryLimit(n) => WireStop::Memory(n),
            StopReason::StateLimit(n) => WireStop::States(n),
            StopReason::Interrupted => WireStop::Interrupted,
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
            WireStop::Interrupted => StopReason::Interrupted,
        }
    }
}

/// A task's outcome.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct WireOutcome {
    /// The counts (the findings and the stop are below, in forms every process reads).
    pub counts: ExploreOutcome,
    pub findings: Vec<WireFinding>,
    pub stopped: Option<WireStop>,
    pub error: Option<String>,
}

impl WireOutcome {
    /// Adds `o`: its counts ([`ExploreOutcome::add_counts`]), findings, and its stop or
    /// error if this has none.
    pub(super) fn absorb(&mut self, o: WireOutcome) {
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
pub(super) enum Message {
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
    /// To rank 0: rank `from` cannot go on (a thread rank that failed or panicked); the
    /// run stops with `error`.
    Failed { from: u32, error: String },
}

impl Message {
    pub(super) fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("messages serialise")
    }

    pub(super) fn decode(bytes: &[u8]) -> Result<Message, ModelError> {
        serde_json::from_slice(bytes).map_err(|e| {
            ModelError::new(format!(
                "a distributed run received a message it cannot read: {e}"
            ))
        })
    }
}
