//! The general backend: the branching process (unfolding) of a P/T net with individual
//! tokens, as a prime event structure with a current configuration
//! (docs/design.md#the-general-backend; docs/paper.md#theorem-43 for the definitions).
//!
//! - A **condition** is one token: the net's initial marking gives m0(p) minimal
//!   conditions of place p; an event gives W(t, p) new conditions of every p in t•.
//! - An **event** is (t, X): a transition and a co-set X of conditions matching •t with its
//!   weights (see [`net`] for read arcs and transitions without inputs). Events are
//!   hash-consed by (t, X). Two events conflict iff their histories hold two distinct
//!   events sharing a condition; the immediate conflicts of e are among the other
//!   consumers of •e.
//! - Histories are persistent bitsets ([`history`]): causality is a lookup, and conflict
//!   and compatibility walk only the symmetric difference of two histories.
//! - For C: Cut(C) = (Min ∪ C•) \ •C, kept per place; en(C) is every choice of •t among the
//!   cut; cex(C) = ex(C) \ en(C) is found by the co-set search of [`coset`] over the
//!   conditions of C labelled by •t, using that two conditions x, y of C are concurrent iff
//!   neither is consumed in C by a cause of the other's producer (C is conflict-free).
//!   Only sets containing a condition produced at position `new_from` or later are
//!   searched, each found once, at its condition newest in C. This is the NP-complete
//!   problem of Theorem 4.3; presets are small in practice, so the search is quick.
//! - Both searches *stream*: the event of a co-set is made (or found, hash-consed) as soon
//!   as the co-set is, and the event limit is checked there. cex(C) may have exponentially
//!   many events (one per satisfying assignment on the Theorem 4.3 nets), and the limit
//!   must stop the search before the co-sets pile up, so memory follows the events made.
//! - **Cutoffs** (McMillan or ERV): when e is created, Mark(\[e\]) is looked up in a table of
//!   markings of the local configurations discovered so far (the keys are kept by value,
//!   so pruning never invalidates them); e is a cutoff iff a representative is strictly
//!   smaller in the adequate order; a strictly larger one is replaced by e. Conditions
//!   produced by a cutoff are not *usable*: no event is ever built on them.
//!
//! # Invariants
//! - A live event's preset is sorted, its conditions are live, hold the event in their
//!   consumer lists, and their producers are live (pruning keeps histories closed).
//! - `hist(e) = {e} ∪ ⋃ { hist(producer(c)) | c ∈ •e }`; `size` is its cardinality and
//!   `level` the Foata level of e (1 + the largest level of a producer).
//! - `cut[p]` holds the usable conditions of p in Min ∪ C• not consumed in C; `in_c[p]`
//!   the usable conditions of p in Min ∪ C•, by increasing `rank` (their order in C).
//! - `state` counts the tokens of every real place in Cut(C), usable or not.

//!
//! # Layout
//! This module holds the data (conditions, events, the current configuration) and the
//! public face; the operations live by job in `cut` (the conditions of C and its cut),
//! `events` (the event store: hash-consing, creation, freeing), `cutoffs` (the cutoff
//! table), `extensions` (the co-set searches for en(C) and cex(C)) and `unfolding`
//! (the [`super::Unfolding`] implementation), over [`net`], [`history`] and [`coset`].

pub(crate) mod coset;
mod cut;
mod cutoffs;
mod events;
mod extensions;
pub(crate) mod history;
pub(crate) mod net;
mod unfolding;

use super::cutoff::{CutoffMode, HistoryShape};
use super::{EventId, UnfoldError, UnfoldStats};
use crate::engine::CancelToken;
use crate::system::net::Net;
use crate::system::Local;
use hashbrown::HashTable;
use history::{Histories, History};
use net::{MarkingDelta, TokenNet};
use smallvec::SmallVec;
use std::time::Instant;

const NONE: EventId = EventId::NONE;
const NOT_IN_C: u32 = u32::MAX;

/// Identifies a condition (a token) of the general unfolding while it is alive.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct CondId(pub u32);

impl CondId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Options of the general unfolding. Its deadline, if any, is set with
/// [`GeneralUnfolding::set_deadline`].
#[derive(Clone, Copy, Debug, Default)]
pub struct GeneralOptions {
    /// The adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// Stop with [`UnfoldError::EventLimit`] after creating this many events. Checked as
    /// each event is made, in the middle of a co-set search too.
    pub max_events: Option<u64>,
    /// Whether ERV's tie-break between histories of equal size may decide a cutoff. It is
    /// adequate on safe nets only: with interchangeable tokens, shifting a configuration
    /// past a cutoff can give back the same configuration (`tests/prefix.rs` keeps a net
    /// whose ERV prefix missed a dead marking so). Give it only for a net proven safe;
    /// without it ERV cutoffs are McMillan's, in ERV's order.
    pub erv_ties: bool,
}

/// How many events [`GeneralUnfolding`] creates between two looks at the clock (besides
/// the looks inside every co-set search, each [`coset::TICK_PICKS`] picks).
const EVENTS_PER_CLOCK_CHECK: u64 = 1024;

#[derive(Clone, Debug)]
struct Cond {
    place: u32,
    /// The event producing the condition, NONE for a minimal one.
    producer: EventId,
    /// Live events with the condition in their preset.
    consumers: SmallVec<[EventId; 2]>,
    /// The event of C consuming it, or NONE.
    c_consumer: EventId,
    /// Position in `cut[place]` while in the cut.
    cut_pos: u32,
    /// Order among the usable conditions of C (NOT_IN_C when not in C).
    rank: u32,
    /// Not produced by a cutoff: events may consume it.
    usable: bool,
    alive: bool,
}

#[derive(Clone, Debug)]
struct Event {
    trans: u32,
    preset: SmallVec<[CondId; 4]>,
    postset: SmallVec<[CondId; 4]>,
    hist: History,
    level: u32,
    cutoff: bool,
    alive: bool,
    /// Position in C's push order, or NOT_IN_C.
    config_index: u32,
    mark: u32,
}

/// A representative of a marking in the cutoff table, kept by value.
#[derive(Clone, Debug)]
struct Representative {
    hash: u64,
    delta: MarkingDelta,
    size: u32,
    /// The ERV shape of the local configuration (ERV mode only).
    shape: HistoryShape,
}

/// The branching process of a net, with a current configuration.
pub struct GeneralUnfolding {
    net: TokenNet,
    opts: GeneralOptions,
    /// Past this instant, searches and event creation stop with [`UnfoldError::TimeLimit`].
    deadline: Option<Instant>,
    cancel: Option<CancelToken>,
    conds: Vec<Cond>,
    free_conds: Vec<CondId>,
    events: Vec<Event>,
    free_events: Vec<EventId>,
    /// Events by (transition, preset).
    table: HashTable<EventId>,
    hists: Histories,
    // The current configuration.
    config: Vec<EventId>,
    /// History of every prefix of C (index i: the first i events).
    config_hist: Vec<History>,
    /// Number of usable conditions of C before each push.
    rank_at: Vec<u32>,
    c_conds: u32,
    cut: Vec<Vec<CondId>>,
    in_c: Vec<Vec<CondId>>,
    /// Places with a nonempty `cut`, and each one's position in that list.
    marked: Vec<u32>,
    marked_pos: Vec<u32>,
    state: Vec<Local>,
    // Cutoffs.
    reps: HashTable<u32>,
    rep_data: Vec<Representative>,
    initial_hash: u64,
    generation: u32,
    stats: UnfoldStats,
    // Scratch.
    delta: Vec<i64>,
    touched: Vec<u32>,
}

impl GeneralUnfolding {
    /// The unfolding of `net`, with C = ∅.
    pub fn new(net: &Net, opts: GeneralOptions) -> GeneralUnfolding {
        let tn = TokenNet::new(net);
        let places = tn.places;
        let mut u = GeneralUnfolding {
            state: net.places.iter().map(|p| Local(p.initial)).collect(),
            initial_hash: tn.initial_hash(),
            net: tn,
            opts,
            deadline: None,
            cancel: None,
            conds: Vec::new(),
            free_conds: Vec::new(),
            events: Vec::new(),
            free_events: Vec::new(),
            table: HashTable::new(),
            hists: Histories::new(),
            config: Vec::new(),
            config_hist: vec![History::EMPTY],
            rank_at: Vec::new(),
            c_conds: 0,
            cut: vec![Vec::new(); places],
            in_c: vec![Vec::new(); places],
            marked: Vec::new(),
            marked_pos: vec![u32::MAX; places],
            reps: HashTable::new(),
            rep_data: Vec::new(),
            generation: 0,
            stats: UnfoldStats::default(),
            delta: vec![0; places],
            touched: Vec::new(),
        };
        for p in 0..places {
            for _ in 0..u.net.initial[p] {
                let c = u.new_cond(p as u32, NONE, true);
                u.enter_c(c);
            }
        }
        if opts.cutoff != CutoffMode::None {
            u.add_rep(u.initial_hash, Vec::new(), 0, HistoryShape::default());
        }
        u
    }

    /// Changes [`GeneralOptions::max_events`] from now on; the events made so far stay (a
    /// limit under [`UnfoldStats::events_created`] fails at the next new event).
    pub fn set_max_events(&mut self, max_events: Option<u64>) {
        self.opts.max_events = max_events;
    }

    /// Sets the instant after which [`super::Unfolding::enabled`] and
    /// [`super::Unfolding::add_conflicting_extensions`] give up with [`UnfoldError::TimeLimit`]
    /// (`None`: never). The clock is read every `TICK_PICKS` picks of a co-set
    /// search and every `EVENTS_PER_CLOCK_CHECK` (1024) events made, so one long search (cex(C)
    /// is NP-complete on non-safe nets) ends soon after the deadline; the events made so
    /// far stay.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Sets a cancel flag watched wherever the deadline is: once it is set, the searches
    /// give up with [`UnfoldError::TimeLimit`] too (the engine reads why from its budget).
    pub fn set_cancel(&mut self, cancel: CancelToken) {
        self.cancel = Some(cancel);
    }

    /// `Err(TimeLimit)` once the deadline has passed or the run was cancelled.
    fn check_clock(&self) -> Result<(), UnfoldError> {
        if self.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            return Err(UnfoldError::TimeLimit);
        }
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(UnfoldError::TimeLimit),
            _ => Ok(()),
        }
    }

    /// The net's effective structure (read arcs as self-loops).
    pub fn token_net(&self) -> &TokenNet {
        &self.net
    }

    /// The event `e`.
    #[inline]
    fn ev(&self, e: EventId) -> &Event {
        &self.events[e.index()]
    }

    /// The condition `c`.
    #[inline]
    fn cond(&self, c: CondId) -> &Cond {
        &self.conds[c.index()]
    }

    /// The history of C.
    #[inline]
    fn top_hist(&self) -> History {
        *self
            .config_hist
            .last()
            .expect("[qpor internal bug] no history of C")
    }

    /// Iteration over the live events, for tests.
    pub fn live_events(&self) -> impl Iterator<Item = EventId> + '_ {
        crate::unfold::live_ids(self.events.iter().map(|e| e.alive))
    }

    /// |\[e\]|.
    pub fn history_size(&self, e: EventId) -> u32 {
        self.hists.size(self.ev(e).hist)
    }

    /// The places of the conditions of •e (with repetitions for weights).
    pub fn preset_places(&self, e: EventId) -> impl Iterator<Item = u32> + '_ {
        self.ev(e).preset.iter().map(|c| self.cond(*c).place)
    }
}
