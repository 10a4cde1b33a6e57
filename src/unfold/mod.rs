//! Unfoldings of component systems as prime event structures, and the [`Unfolding`] trait
//! every exploration engine works through (docs/design.md#configurations;
//! docs/paper.md#prime-event-structures).
//!
//! An unfolding holds a growing (and, with pruning, shrinking) set U of events and one
//! *current configuration* C, changed one event at a time by [`Unfolding::push`] and
//! [`Unfolding::pop`]. Engines ask for en(C) and cex(C), and decide causality, conflict
//! and compatibility between events; the backend decides how events are represented.
//!
//! # Contract
//! - Events are hash-consed: asking twice for the event of the same action with the same
//!   predecessors gives the same [`EventId`] while that event is alive.
//! - [`Unfolding::enabled`] lists en(C) (creating events), never successors of cutoff
//!   events; [`Unfolding::add_conflicting_extensions`] inserts cex(C) into U.
//! - [`Unfolding::push`] takes an event of en(C); [`Unfolding::pop`] undoes the last push.
//! - [`Unfolding::prune`] frees every event not in the causal closure of the events it is
//!   asked to keep, of C, and of the backend's own pinned events; ids of freed events may
//!   be reused afterwards.

pub(crate) mod cutoff;
pub(crate) mod fingerprint;
pub(crate) mod general;
pub(crate) mod pes;
pub(crate) mod prefix;
pub(crate) mod program;
pub(crate) mod tables;

/// A xorshift generator for the randomised unit tests: `next(bound)` draws from
/// `0..bound`, the same sequence for the same `seed` (which must not be 0).
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut rng = seed;
    move |bound: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % bound
    }
}

use crate::system::model::{Model, SystemOptions};
use crate::system::net::Net;
use crate::system::{ActionId, Local, ModelError};
use std::fmt;

/// Identifies an event of an unfolding while it is alive.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct EventId(pub u32);

impl EventId {
    /// "No event": ⊥ as a predecessor.
    pub const NONE: EventId = EventId(u32::MAX);

    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Whether this is [`EventId::NONE`].
    pub fn is_none(self) -> bool {
        self == EventId::NONE
    }
}

/// Why an unfolding operation could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnfoldError {
    /// The model's semantics failed (see [`ModelError`]).
    Model(ModelError),
    /// More events were created than the limit allows.
    EventLimit(u64),
    /// The deadline set on the unfolding passed (in the middle of a search, possibly).
    TimeLimit,
}

impl fmt::Display for UnfoldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnfoldError::Model(e) => e.fmt(f),
            UnfoldError::EventLimit(n) => write!(f, "event limit of {n} reached"),
            UnfoldError::TimeLimit => write!(f, "time limit reached"),
        }
    }
}

impl From<ModelError> for UnfoldError {
    fn from(e: ModelError) -> Self {
        UnfoldError::Model(e)
    }
}

/// Which backend unfolds a model (docs/design.md#the-general-backend).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Backend {
    /// The program-like unfolding for programs and for nets with NUPN units; the general
    /// one for other nets.
    #[default]
    Auto,
    /// The program-like unfolding: one tree per component (for nets, per place or unit).
    Program,
    /// Branching processes of P/T nets with explicit conditions (nets only).
    General,
}

impl Backend {
    /// The backend's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Program => "program",
            Backend::General => "general",
        }
    }

    /// The backend `--unfolding auto` stands for on `model`, or `self` when it is not
    /// [`Backend::Auto`].
    ///
    /// Auto picks the program-like unfolding for programs, for nets with NUPN units and
    /// for nets whose components the user chose (`--components places|units`), and the
    /// general backend for the other nets. On plain nets both give the same verdicts; QPOR
    /// over the general backend was measured faster on most ll_net and MCC nets without
    /// NUPN (e.g. DPD(5) 0.035 s against 0.126 s, DPH(5) 7.0 s against more than 15 s,
    /// FMS-2 0.76 s against 6.9 s; `benches/journal/unfold.md`, "Unfolding backends under QPOR"), because its
    /// events consume only marked places where the place-component unfolding also chains
    /// every event on the places it fills.
    ///
    /// The exception is a net whose initial marking holds more than
    /// [`GENERAL_TOKENS_MAX`] tokens: the general backend makes one condition per token,
    /// and on such MCC nets (ERK-PT-100000, SmallOperatingSystem-PT-MT2048DC0512) it grew
    /// to 4 GB in 10 s where the place-component unfolding, which counts a place's tokens
    /// in one local state, stayed under 300 MB.
    pub fn resolve(self, model: &Model, system: &SystemOptions) -> Backend {
        match (self, model) {
            (Backend::Auto, Model::Program(_)) => Backend::Program,
            (Backend::Auto, Model::Net(net)) => {
                let tokens: u64 = net.places.iter().map(|p| u64::from(p.initial)).sum();
                if net.nupn.is_some() || system.decomposition.is_some() || tokens > GENERAL_TOKENS_MAX {
                    Backend::Program
                } else {
                    Backend::General
                }
            }
            (b, _) => b,
        }
    }
}

/// Above this many tokens in the initial marking, `--unfolding auto` does not take the
/// general unfolding (one condition per token) for a net.
pub const GENERAL_TOKENS_MAX: u64 = 10_000;

/// Above this many tokens in the initial marking, the general unfolding is refused even
/// when asked for: its initial conditions alone would take gigabytes (a net marked with
/// 4 294 967 295 tokens asked for 34 GB at once).
pub(crate) const GENERAL_TOKENS_REFUSED: u64 = 1_000_000;

/// The net the general backend unfolds: `model` when it is a net whose initial marking
/// has at most [`GENERAL_TOKENS_REFUSED`] tokens, else why the backend does not apply.
pub(crate) fn general_backend_net(model: &Model) -> Result<&Net, ModelError> {
    let Model::Net(net) = model else {
        return Err(ModelError::new(
            "the general unfolding backend unfolds Petri nets only; use --unfolding program",
        ));
    };
    fits_general_backend(net)?;
    Ok(net)
}

/// Whether the program-like backend can unfold `sys`: it lists anchored steps.
pub(crate) fn fits_program_backend<S: crate::system::System + ?Sized>(sys: &S) -> bool {
    let mut v = Vec::new();
    sys.anchored_steps(crate::system::CompId(0), Local(0), &mut v) || sys.num_components() == 0
}

/// Whether the general backend may unfold `net`: an error past
/// [`GENERAL_TOKENS_REFUSED`] tokens.
pub(crate) fn fits_general_backend(net: &Net) -> Result<(), ModelError> {
    let tokens: u64 = net.places.iter().map(|p| u64::from(p.initial)).sum();
    if tokens > GENERAL_TOKENS_REFUSED {
        return Err(ModelError::new(format!(
            "the general unfolding makes one condition per token, and this net's initial marking \
             holds {tokens} tokens (more than {GENERAL_TOKENS_REFUSED}); use --unfolding program \
             (which counts a place's tokens in one local state; auto picks it)"
        )));
    }
    Ok(())
}

/// How many compatibility tests [`Unfolding::compatible_immediate_conflicts`] makes between
/// two looks at [`Unfolding::stop_requested`] (which may read the clock).
const STOP_POLL_EVERY: usize = 64;

/// Counters of an unfolding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnfoldStats {
    /// Events ever created (a freed and re-created event counts twice).
    pub events_created: u64,
    /// Events alive now.
    pub events_alive: u64,
    /// Most events alive at once.
    pub events_alive_peak: u64,
    /// Events alive right after the last pruning (0 before any). QPOR prunes again once U
    /// has grown past it by a ratio; kept with U, so that the explorations that follow each
    /// other in one replica of a parallel run share it.
    pub alive_after_prune: u64,
    /// Events created that are cutoffs.
    pub cutoff_events: u64,
    /// Bytes used by the live events and their summaries, approximately.
    pub bytes: u64,
}

/// An unfolding with a current configuration. See the module documentation for the
/// contract.
pub trait Unfolding {
    /// Appends en(C) to `out`, creating the events; successors of cutoffs are left out.
    fn enabled(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError>;
    /// Inserts cex(C) into U; returns how many events it found (new or not). The caller
    /// promises that cex of the prefix `config()[..new_from]` was inserted before (at an
    /// earlier leaf), so only events with a predecessor at position `new_from` or later
    /// need to be searched: every other event of cex(C) is in cex or en of that prefix.
    fn add_conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError>;
    /// Adds `e` (an event of en(C)) to C.
    fn push(&mut self, e: EventId);
    /// Removes the last event added to C and returns it.
    fn pop(&mut self) -> EventId;
    /// The events of C in the order they were pushed.
    fn config(&self) -> &[EventId];
    /// Whether `e` ∈ C.
    fn in_config(&self, e: EventId) -> bool;
    /// Whether `e`, an extension of C, is enabled at C (C ∪ {e} is a configuration).
    fn is_enabled(&self, e: EventId) -> bool;
    /// Whether C ∪ \[e\] is a configuration.
    fn compatible(&self, e: EventId) -> bool;
    /// Whether `a` # `b`.
    fn conflict(&self, a: EventId, b: EventId) -> bool;
    /// Whether `a` ≤ `b` (causality, reflexive).
    fn causally_le(&self, a: EventId, b: EventId) -> bool;
    /// Appends to `out` a superset of the events of U in immediate conflict with `e`, all
    /// of them in conflict with `e` (its siblings in the component trees).
    fn immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>);
    /// Appends to `out`, sorted and without repeats, the events of
    /// [`Unfolding::immediate_conflicts`] that are [`Unfolding::compatible`] with C: the
    /// candidates of Alt's spike for `e`. A backend may pass over candidates it can tell
    /// incompatible as a group, without testing each.
    ///
    /// Each test may walk a long history, and there may be thousands: the default method
    /// stops early, with a partial list, once [`Unfolding::stop_requested`] says so; the
    /// caller must then look at it too.
    fn compatible_immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        self.immediate_conflicts(e, out);
        sort_dedup_from(out, start);
        let mut kept = start;
        for i in start..out.len() {
            if (i - start) % STOP_POLL_EVERY == STOP_POLL_EVERY - 1 && self.stop_requested() {
                break;
            }
            if self.compatible(out[i]) {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
    }
    /// Whether the run's deadline has passed or it was cancelled, for backends that watch
    /// them (the answers of a search cut short are then incomplete); the default never
    /// stops.
    fn stop_requested(&self) -> bool {
        false
    }
    /// Appends to `out` the events of \[e\] \ C, causes before effects.
    fn history_outside_config(&mut self, e: EventId, out: &mut Vec<EventId>);
    /// Whether `e` is a cutoff event.
    fn is_cutoff(&self, e: EventId) -> bool;
    /// Whether `e` leaves a component in a fault state (such events are never extended).
    fn is_fault(&self, e: EventId) -> bool;
    /// The action of `e`.
    fn action(&self, e: EventId) -> ActionId;
    /// state(C), as local states of the system's components.
    fn config_state(&self) -> &[Local];
    /// Frees the events outside the causal closure of `keep`, C and the pinned events.
    fn prune(&mut self, keep: &[EventId]);
    /// Counters.
    fn stats(&self) -> UnfoldStats;
}

/// Sorts `out[start..]` and drops repeated entries there, in place: the immediate conflicts
/// of an event gathered over several components or conditions meet the same event twice.
fn sort_dedup_from(out: &mut Vec<EventId>, start: usize) {
    out[start..].sort_unstable();
    let mut kept = start;
    for i in start..out.len() {
        if kept == start || out[kept - 1] != out[i] {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// Checks, in debug builds, the precondition of [`Unfolding::push`]: `e` ∈ en(C).
fn debug_assert_pushable<U: Unfolding + ?Sized>(unf: &U, e: EventId) {
    debug_assert!(
        unf.is_enabled(e),
        "[qpor internal bug] pushing an event not enabled at C"
    );
}

/// `list`, emptied but keeping its allocation: a freed event's lists go back to its arena
/// slot, for the next event created there.
fn emptied<A: smallvec::Array>(mut list: smallvec::SmallVec<A>) -> smallvec::SmallVec<A> {
    list.clear();
    list
}

/// Pops the last event of a backend's configuration C: [`Unfolding::pop`] on an empty C is
/// a bug of the engine driving it.
fn pop_config(config: &mut Vec<EventId>) -> EventId {
    config
        .pop()
        .expect("[qpor internal bug] pop from the empty configuration")
}

/// The ids of the slots of an event arena whose flag is set, given the flag of each slot
/// (whether it is alive, or alive and unmarked when pruning).
fn live_ids(alive: impl Iterator<Item = bool>) -> impl Iterator<Item = EventId> {
    alive
        .enumerate()
        .filter(|(_, a)| *a)
        .map(|(i, _)| EventId(i as u32))
}
