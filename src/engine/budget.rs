//! When a run must end: a deadline and a cancel flag shared by every engine of a check,
//! and the typed reason a run ended early.

use serde::Serialize;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A flag that tells engines to stop, with the reason, shared between threads (the
/// portfolio sets it when one engine has answered, or when the memory limit is passed).
/// The first reason given stays.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<OnceLock<StopReason>>);

impl CancelToken {
    /// Asks every holder of this token to stop.
    pub fn cancel(&self) {
        self.stop(StopReason::Cancelled);
    }

    /// Asks every holder of this token to stop, for `reason` (unless it was already asked).
    pub fn stop(&self, reason: StopReason) {
        let _ = self.0.set(reason);
    }

    /// Whether [`CancelToken::cancel`] or [`CancelToken::stop`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.get().is_some()
    }

    /// Why the holders must stop, if they must.
    pub fn reason(&self) -> Option<StopReason> {
        self.0.get().copied()
    }
}

/// The time an engine may take and the flag that cancels it. Engines poll
/// [`Budget::exhausted`] regularly (every few hundred steps) and inside long searches.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    time_limit: Option<Duration>,
    deadline: Option<Instant>,
    cancel: CancelToken,
}

impl Budget {
    /// No deadline, a fresh cancel token.
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// A budget of `limit` from now, or none (`None`, or a limit so large that the clock
    /// cannot represent its end: it would never be reached anyway).
    pub fn new(limit: Option<Duration>) -> Budget {
        let deadline = limit.and_then(|l| Instant::now().checked_add(l));
        Budget {
            time_limit: deadline.and(limit),
            deadline,
            cancel: CancelToken::default(),
        }
    }

    /// A budget ending at `deadline` (if any); `limit` is the time limit it stands for, as
    /// reports state it.
    pub fn until(deadline: Option<Instant>, limit: Option<Duration>) -> Budget {
        Budget {
            time_limit: deadline.and(limit),
            deadline,
            cancel: CancelToken::default(),
        }
    }

    /// The same budget, cancelled through `token`.
    pub fn with_cancel(mut self, token: CancelToken) -> Budget {
        self.cancel = token;
        self
    }

    /// The same time limit with a cancel token of its own: the workers of a parallel
    /// search can be stopped together without cancelling the caller's other engines.
    pub fn with_own_cancel(&self) -> Budget {
        self.clone().with_cancel(CancelToken::default())
    }

    /// The same budget (its limit as reports state it, its cancel token), ending at `end`
    /// if that comes before its own deadline: a part of the budget for a part of the work.
    pub fn ending_by(&self, end: Instant) -> Budget {
        let mut part = self.clone();
        part.deadline = Some(self.deadline.map_or(end, |d| d.min(end)));
        part
    }

    /// An equal share of the time left among `parts` pieces of work, or `without_deadline`
    /// when the budget has no deadline.
    pub fn share_of_left(&self, parts: usize, without_deadline: Duration) -> Duration {
        match self.deadline {
            Some(d) => d.saturating_duration_since(Instant::now()) / parts.max(1) as u32,
            None => without_deadline,
        }
    }

    /// The instant the time limit runs out, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The cancel token engines watch.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// Why the run must stop now, if it must: cancelled, or past the deadline.
    pub fn exhausted(&self) -> Option<StopReason> {
        if let Some(reason) = self.cancel.reason() {
            return Some(reason);
        }
        match self.deadline {
            Some(d) if Instant::now() >= d => Some(self.time_limit_reached()),
            _ => None,
        }
    }

    /// The stop reason for this budget's time limit (for engines whose inner search
    /// reported the deadline itself).
    pub fn time_limit_reached(&self) -> StopReason {
        StopReason::TimeLimit {
            seconds: self.time_limit.unwrap_or_default().as_secs_f64(),
        }
    }
}

/// Tells a search when to read the clock: after a fixed amount of work, counted in units
/// that take about the same time (one local of a state copied, hashed or compared, one
/// step listed), so that a model with states of 100 000 components reads it as often per
/// second as one with ten. Counting states instead let one expansion of a wide model run
/// for seconds past the limit. It also paces the progress reports.
#[derive(Clone, Debug)]
pub(crate) struct Pacer {
    work: u64,
    start: Instant,
    last_progress: f64,
}

impl Default for Pacer {
    fn default() -> Pacer {
        Pacer {
            work: 0,
            start: Instant::now(),
            last_progress: 0.0,
        }
    }
}

impl Pacer {
    /// Work units between two readings of the clock (some tens of microseconds).
    pub(crate) const EVERY: u64 = 1 << 16;

    /// Seconds between two progress reports.
    pub(crate) const PROGRESS_EVERY: f64 = 0.25;

    /// Counts `units` of work done; true when the clock is due.
    #[inline]
    pub(crate) fn due(&mut self, units: usize) -> bool {
        self.work += units as u64;
        if self.work >= Self::EVERY {
            self.work = 0;
            true
        } else {
            false
        }
    }

    /// Counts `units` of work done and, when the clock is due, reads it: `Err` with why
    /// the search must stop, `Ok(Some(seconds since the pacer was made))` when a
    /// progress report is due, else `Ok(None)`.
    #[inline]
    pub(crate) fn tick(&mut self, units: usize, budget: &Budget) -> Result<Option<f64>, StopReason> {
        if !self.due(units) {
            return Ok(None);
        }
        if let Some(why) = budget.exhausted() {
            return Err(why);
        }
        let secs = self.start.elapsed().as_secs_f64();
        if secs - self.last_progress < Self::PROGRESS_EVERY {
            return Ok(None);
        }
        self.last_progress = secs;
        Ok(Some(secs))
    }
}

/// Why a run ended before exploring everything it was asked to.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum StopReason {
    /// `--time-limit` ran out.
    TimeLimit {
        /// The limit, in seconds.
        seconds: f64,
    },
    /// `--max-states`: this many states were stored.
    StateLimit(u64),
    /// `--max-events`: this many events were created.
    EventLimit(u64),
    /// `--max-memory`: the estimate passed this many megabytes.
    MemoryLimit(u64),
    /// Another engine answered first.
    Cancelled,
    /// The user interrupted the run (Ctrl-C).
    Interrupted,
    /// The state equation has a dead solution that no trap constraint rules out: the
    /// `lp` engine cannot prove deadlock freedom (nor does it show a deadlock).
    DeadSolution,
    /// The solver gave up for a reason of its own.
    SolverUnknown,
    /// Some property's target has a solution of the state equation that no trap
    /// constraint rules out and that could not be fired: the `lp` engine decides it
    /// neither way.
    OpenSolution,
    /// Under `--all`, an engine that shows one dead state and cannot list the others (the
    /// `lp` engine's fired solution).
    OneDeadStateOnly,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The quick stubborn search's 20 ms slice would read "0.0 s" at one decimal.
            StopReason::TimeLimit { seconds } if *seconds < 0.1 => {
                write!(f, "time limit of {seconds:.3} s reached")
            }
            StopReason::TimeLimit { seconds } => write!(f, "time limit of {seconds:.1} s reached"),
            StopReason::StateLimit(n) => write!(f, "state limit of {n} reached"),
            StopReason::EventLimit(n) => write!(f, "event limit of {n} reached"),
            StopReason::MemoryLimit(mb) => write!(f, "memory limit of {mb} MB reached"),
            StopReason::Cancelled => write!(f, "cancelled"),
            StopReason::Interrupted => write!(f, "interrupted (Ctrl-C)"),
            StopReason::DeadSolution => {
                write!(
                    f,
                    "no proof: the state equation has a dead solution that no trap rules out"
                )
            }
            StopReason::SolverUnknown => write!(f, "no proof: the solver gave up"),
            StopReason::OpenSolution => write!(
                f,
                "undecided: the state equation has a solution that no trap rules out and that does not fire"
            ),
            StopReason::OneDeadStateOnly => {
                write!(f, "one dead state shown; this engine cannot list them all")
            }
        }
    }
}

impl StopReason {
    /// The reason's name in JSON: `time-limit`, `state-limit`, `event-limit`,
    /// `memory-limit`, `cancelled`, `interrupted`, `dead-solution`, `solver-unknown`,
    /// `open-solution`, `one-dead-state-only`.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::TimeLimit { .. } => "time-limit",
            StopReason::StateLimit(_) => "state-limit",
            StopReason::EventLimit(_) => "event-limit",
            StopReason::MemoryLimit(_) => "memory-limit",
            StopReason::Cancelled => "cancelled",
            StopReason::Interrupted => "interrupted",
            StopReason::DeadSolution => "dead-solution",
            StopReason::SolverUnknown => "solver-unknown",
            StopReason::OpenSolution => "open-solution",
            StopReason::OneDeadStateOnly => "one-dead-state-only",
        }
    }

    /// The limit that was reached, in its unit (seconds, states, events, megabytes).
    pub fn limit(&self) -> Option<f64> {
        match *self {
            StopReason::TimeLimit { seconds } => Some(seconds),
            StopReason::StateLimit(n) | StopReason::EventLimit(n) | StopReason::MemoryLimit(n) => {
                Some(n as f64)
            }
            _ => None,
        }
    }
}

/// In JSON a stop reason is data: `{"reason": NAME, "limit": N, "message": SENTENCE}`,
/// `limit` only for the limits, `message` as the text report words it.
impl Serialize for StopReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("reason", self.name())?;
        if let Some(limit) = self.limit() {
            m.serialize_entry("limit", &limit)?;
        }
        m.serialize_entry("message", &self.to_string())?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_or_a_cancel_exhausts_the_budget() {
        let b = Budget::new(Some(Duration::ZERO));
        assert_eq!(b.exhausted(), Some(StopReason::TimeLimit { seconds: 0.0 }));
        let b = Budget::unlimited();
        assert_eq!(b.exhausted(), None);
        b.cancel_token().cancel();
        assert_eq!(b.exhausted(), Some(StopReason::Cancelled));
    }

    #[test]
    fn the_pacer_is_due_once_per_fixed_amount_of_work() {
        let mut p = Pacer::default();
        let due = (0..4 * Pacer::EVERY).filter(|_| p.due(1)).count();
        assert_eq!(due, 4);
        assert!(p.due(Pacer::EVERY as usize), "one wide step is enough");
    }

    #[test]
    fn a_limit_past_the_clock_is_no_limit() {
        let b = Budget::new(Some(Duration::MAX));
        assert_eq!(b.deadline(), None);
        assert_eq!(b.exhausted(), None);
    }
}
