//! The ERV prefix builder shared by both backends (Esparza, Römer, Vogler;
//! docs/paper.md#complete-prefixes; docs/design.md#complete-finite-prefixes).
//!
//! ```text
//! pe := possible extensions of the initial cut      // a priority queue by ◁
//! while pe ≠ ∅:
//!     e := the ◁-least event of pe; remove it
//!     if Mark([e]) is the marking of [e'] for an e' already popped (or of ∅) with [e'] ◁ [e]:
//!         add e and its postset to the prefix as a cutoff, never extended
//!     else:
//!         add e and its postset; record Mark([e]); add the new possible extensions to pe
//! ```
//!
//! The backend ([`Semantics`]) says what conditions are (tokens of places, or local states
//! of components) and finds the possible extensions that use a new condition r, given the
//! concurrency relation on the conditions built so far; this module owns the rest: the
//! queue, the adequate order, the cutoff table, the co-relation and the limits.
//!
//! - **Co-relation** (docs/paper.md#the-co-relation): for a new event e, co(c) of each c ∈ e• is
//!   ⋂_{b ∈ •e} co(b) (shortest list first) plus the siblings of c in e• processed before
//!   it. So an extension using several conditions of e• is found once, when the last of
//!   them is processed, and no duplicate table is needed.
//! - **Order**: McMillan compares sizes; ERV then the Parikh vectors as sorted words and the
//!   Foata normal forms ([`crate::unfold::cutoff`]); every tie (only possible on non-safe
//!   nets for ERV) is broken by discovery order, which keeps the queue deterministic.
//! - **Queue**: a binary heap of candidate extensions whose keys (postset labels, Parikh
//!   vector, Foata form) are interned (module `keys`); the Foata form is computed at the
//!   first comparison that needs it. Under an event limit N the queue keeps only what can
//!   still be popped: with k = N − |prefix| pops left, a candidate with k smaller ones
//!   queued never is, so the queue is cut back to its k least when it grows past 2k, and a
//!   later candidate not below the largest one kept is dropped at once. Dropped candidates
//!   count as pending, so the statistics are those of the full queue.
//! - **Limits**: the event limit is checked at each pop; time and memory (co-relation,
//!   queue, interned keys, events) at each pop and every `QUEUED_PER_LIMIT_CHECK`
//!   extensions queued, so one pop that queues many extensions cannot overrun them.
//! - **Cutoffs** are decided when an event is popped: e is a cutoff iff an event popped
//!   before it (or the empty configuration) has the same marking and a *strictly* smaller
//!   local configuration. Ties (equal ERV keys on non-safe nets, equal sizes for McMillan)
//!   are not cutoffs: the adequate order must be strict for the prefix to be complete.
//!
//! # Invariants
//! - Prefix events are popped events, in pop order: ◁ refines ⊂, so causes come first.
//! - A condition's `co` list is sorted and symmetric; conditions of cutoff events and
//!   conditions the backend calls inert (no consumer can ever use them) have none.
//! - Every queued candidate's preset is a co-set of extendable conditions.
//!
//! # Layout
//! This module holds the interface to the backends ([`Semantics`]), the options and
//! results, the builder's data and the main loop ([`build`]); the builder's jobs live in
//! `queue` (the queue of possible extensions and its trimming under an event limit),
//! `order` (the adequate order), `corelation` (the co-relation and the searches it
//! drives), `pop` (cutoff decisions and the prefix's events) and `limits` (time and
//! memory).

mod corelation;
mod limits;
mod order;
mod pop;
mod queue;

pub(crate) use order::compare_sparse;

use super::keys::{FoataForm, Interner};
use super::{Condition, Prefix};
use crate::engine::CancelToken;
use crate::system::ModelError;
use crate::unfold::cutoff::CutoffMode;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::time::{Duration, Instant};

/// A condition label as the backend sees it: (place or component, value). For tokens of a
/// net the value is 0; for local states of components it is the local state.
pub(crate) type Label = (u32, u32);

/// A possible extension found by a backend: an action, its preset (condition ids, sorted)
/// and the labels of the conditions it produces.
#[derive(Clone, Debug)]
pub(crate) struct Extension {
    /// The action (transition index for nets).
    pub action: u32,
    /// The preset, sorted.
    pub preset: SmallVec<[u32; 4]>,
    /// Labels of the postset conditions, in the order they are created.
    pub post: SmallVec<[Label; 4]>,
}

/// What the builder knows of the conditions so far, for the backend's searches.
pub(crate) struct Conditions<'a> {
    labels: &'a [Label],
    co: &'a [Vec<u32>],
}

impl Conditions<'_> {
    /// The label of condition `c`.
    pub(crate) fn label(&self, c: u32) -> Label {
        self.labels[c as usize]
    }

    /// The conditions concurrent with `c` (sorted).
    pub(crate) fn co(&self, c: u32) -> &[u32] {
        &self.co[c as usize]
    }

    /// Whether `a` co `b`.
    pub(crate) fn concurrent(&self, a: u32, b: u32) -> bool {
        let (x, y) = if self.co[a as usize].len() <= self.co[b as usize].len() {
            (a, b)
        } else {
            (b, a)
        };
        self.co[x as usize].binary_search(&y).is_ok()
    }
}

/// A backend's view of the conditions and events of its unfolding.
pub(crate) trait Semantics {
    /// Labels of the initial conditions.
    fn initial(&self) -> Vec<Label>;
    /// Extensions with an empty preset (enabled everywhere).
    fn source_extensions(&mut self, out: &mut Vec<Extension>) -> Result<(), ModelError>;
    /// Every possible extension whose preset contains `r` and otherwise only conditions of
    /// `conds.co(r)`.
    fn extensions(
        &mut self,
        conds: &Conditions<'_>,
        r: u32,
        out: &mut Vec<Extension>,
    ) -> Result<(), ModelError>;
    /// Whether a condition with this label can never be consumed (it then takes no part in
    /// the co-relation).
    fn inert(&self, _label: Label) -> bool {
        false
    }
    /// Whether the event of this action and postset must not be extended although it is
    /// no cutoff (a fault of a program).
    fn blocked(&self, _action: u32, _post: &[Label]) -> bool {
        false
    }
    /// The condition label shown in the prefix, and the index stored as its place.
    fn condition_name(&self, label: Label) -> String;
    /// The action's name.
    fn action_name(&self, action: u32) -> String;
    /// The owner of the action (a process), if any.
    fn action_owner(&self, _action: u32) -> Option<String> {
        None
    }
}

/// Options of the prefix builder.
#[derive(Clone, Debug, Default)]
pub struct PrefixOptions {
    /// The adequate order (ERV by default). With [`CutoffMode::None`] nothing is a cutoff:
    /// give a limit unless the model is acyclic.
    pub cutoff: CutoffMode,
    /// Stop (incomplete) when the prefix has this many events.
    pub max_events: Option<u64>,
    /// Stop (incomplete) after this much time.
    pub time_limit: Option<Duration>,
    /// When the time limit started counting (the command line starts it before reading
    /// the model); `None`: when the construction starts.
    pub started: Option<Instant>,
    /// Stop (incomplete) when the builder's own data (co-relation, queue, events) exceeds
    /// this many bytes, approximately.
    pub max_bytes: Option<u64>,
    /// Stop (incomplete) when this token is cancelled (an engine of the portfolio building
    /// a prefix stops with the others).
    pub cancel: Option<CancelToken>,
}

/// Statistics of a prefix construction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrefixStats {
    /// Events in the prefix, cutoffs included.
    pub events: u64,
    /// Conditions in the prefix, initial ones and postsets of cutoffs included.
    pub conditions: u64,
    /// Cutoff events.
    pub cutoffs: u64,
    /// Possible extensions still queued when the construction stopped (0 when complete).
    pub pending: u64,
    /// Sum of the lengths of the co lists (each concurrent pair counted twice).
    pub co_entries: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Approximate bytes of the builder's data at the end.
    pub bytes: u64,
    /// Peak resident memory of the process (Linux `VmHWM`; 0 where unknown).
    pub peak_rss_bytes: u64,
}

/// A built prefix with its statistics.
#[derive(Clone, Debug)]
pub struct PrefixOutcome {
    /// The prefix (complete unless `stopped`).
    pub prefix: Prefix,
    /// Its statistics.
    pub stats: PrefixStats,
    /// Why the construction stopped early, if it did: the prefix is then causally closed
    /// but not complete.
    pub stopped: Option<String>,
    /// The backend that built it (`general` or `program`).
    pub backend: &'static str,
    /// The events that lead to a fault of a program (never extended, like cutoffs; some
    /// may be cutoffs too), in prefix order.
    pub faults: Vec<u32>,
    /// Whether two concurrent conditions have the same label: for the general backend, a
    /// place held two tokens and the net is not safe. From then on, the ERV order decides
    /// no cutoff between histories of equal size: its tie-break is adequate on safe nets
    /// only. With interchangeable tokens, shifting a configuration past a cutoff can give
    /// back the same configuration (seen: a dead empty marking reachable only through a
    /// cutoff). Size is preserved by every shift, so McMillan's cutoffs keep the prefix
    /// complete, and it is bigger than ERV's would be.
    pub repeated_label: bool,
    /// Whether the builder started over, never using ERV's tie-break, because it had
    /// decided a cutoff by it before two tokens shared a place (see `repeated_label`).
    pub started_over: bool,
    /// Per condition: its label, (place, 0) for a token of a net, (component, local
    /// state) for the program-like backend.
    pub labels: Vec<(u32, u32)>,
}

const NONE: u32 = u32::MAX;

/// A queued possible extension. Its keys are interned ids (see module `keys`): a few
/// words per extension, however long its history.
struct Candidate {
    action: u32,
    /// The preset, sorted.
    preset: SmallVec<[u32; 4]>,
    /// Interned labels of the postset.
    post: u32,
    size: u32,
    level: u32,
    /// Interned sparse Parikh vector (action, count) of \[e\], sorted by action; NONE unless
    /// the order is ERV.
    parikh: u32,
    /// Interned Foata normal form of \[e\]; NONE until a comparison needs it.
    foata: u32,
    seq: u64,
}

struct Popped {
    action: u32,
    preset: SmallVec<[u32; 4]>,
    postset: SmallVec<[u32; 4]>,
    level: u32,
    size: u32,
    /// As in [`Candidate`].
    parikh: u32,
    /// As in [`Candidate`].
    foata: u32,
    mark: u32,
}

/// A marking as the difference from the initial one: sorted (label, change ≠ 0).
type Delta = Vec<(Label, i32)>;

/// A recorded marking: the popped non-cutoff events (or NONE: the empty configuration).
type Reps = FxHashMap<Delta, SmallVec<[u32; 1]>>;

struct Builder<'s, M: Semantics + ?Sized> {
    sem: &'s mut M,
    opts: PrefixOptions,
    labels: Vec<Label>,
    producer: Vec<u32>,
    co: Vec<Vec<u32>>,
    events: Vec<Popped>,
    prefix: Prefix,
    cands: Vec<Option<Candidate>>,
    free_cands: Vec<u32>,
    heap: Vec<u32>,
    seq: u64,
    reps: Reps,
    reps_bytes: u64,
    generation: u32,
    co_entries: u64,
    parikhs: Interner<Vec<(u32, u32)>>,
    foatas: Interner<FoataForm>,
    posts: Interner<SmallVec<[Label; 4]>>,
    /// Queued extensions dropped unpopped: past the event limit's reach, or left when a
    /// limit stopped the construction in the middle of an extension step.
    dropped: u64,
    /// Under an event limit, once the queue was cut back: its largest candidate kept.
    bar: u32,
    /// Scratch: a count per action, all 0 between uses.
    counts: Vec<u32>,
    /// The events whose postset holds a fault.
    faults: Vec<u32>,
    /// Whether two concurrent conditions had the same label.
    repeated_label: bool,
    /// Whether ERV's tie-break between histories of equal size may decide cutoffs: until
    /// two tokens share a place, and never when the builder starts over (see
    /// [`PrefixOutcome::started_over`]).
    erv_ties: bool,
    /// Whether a cutoff was decided by ERV's tie-break.
    took_erv_tie: bool,
    start: Instant,
    since_limit_check: u32,
}

impl<'s, M: Semantics + ?Sized> Builder<'s, M> {
    /// A builder over `sem` with nothing built yet (the empty configuration recorded for
    /// cutoffs).
    fn new(sem: &'s mut M, opts: PrefixOptions, start: Instant) -> Self {
        let cutoffs = opts.cutoff != CutoffMode::None;
        let mut b = Builder {
            start,
            sem,
            opts,
            labels: Vec::new(),
            producer: Vec::new(),
            co: Vec::new(),
            events: Vec::new(),
            prefix: Prefix::default(),
            cands: Vec::new(),
            free_cands: Vec::new(),
            heap: Vec::new(),
            seq: 0,
            reps: Reps::default(),
            reps_bytes: 0,
            generation: 0,
            co_entries: 0,
            parikhs: Interner::new(),
            foatas: Interner::new(),
            posts: Interner::new(),
            dropped: 0,
            bar: NONE,
            counts: Vec::new(),
            faults: Vec::new(),
            repeated_label: false,
            erv_ties: true,
            took_erv_tie: false,
            since_limit_check: 0,
        };
        if cutoffs {
            b.reps.entry(Vec::new()).or_default().push(NONE);
        }
        b
    }

    /// Adds a condition of label `label` produced by event `producer` (NONE: initial).
    fn new_condition(&mut self, label: Label, producer: u32) -> u32 {
        let id = self.labels.len() as u32;
        self.labels.push(label);
        self.producer.push(producer);
        self.co.push(Vec::new());
        self.prefix.conditions.push(Condition {
            label: self.sem.condition_name(label),
            place: label.0,
            producer: (producer != NONE).then_some(producer),
            local: label.1,
        });
        id
    }

    /// Calls `f` once per event of ⋃ [producer(c)], c ∈ `preset` (explicit stack,
    /// generation marks).
    fn walk(&mut self, preset: &[u32], mut f: impl FnMut(&Popped)) {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let mut stack: SmallVec<[u32; 32]> = SmallVec::new();
        for &c in preset {
            let p = self.producer[c as usize];
            if p != NONE && self.events[p as usize].mark != g {
                self.events[p as usize].mark = g;
                stack.push(p);
            }
        }
        while let Some(x) = stack.pop() {
            f(&self.events[x as usize]);
            for k in 0..self.events[x as usize].preset.len() {
                let c = self.events[x as usize].preset[k];
                let p = self.producer[c as usize];
                if p != NONE && self.events[p as usize].mark != g {
                    self.events[p as usize].mark = g;
                    stack.push(p);
                }
            }
        }
    }

    /// Builds from the initial cut; returns why it stopped early, if it did.
    fn run(&mut self) -> Result<Option<String>, ModelError> {
        match self.add_initial_cut()? {
            Some(why) => Ok(Some(why)),
            None => self.pop_all(),
        }
    }

    /// Pops candidates into the prefix, extending each non-cutoff, until the queue is
    /// empty or a limit stops the construction; returns why it stopped, if it did.
    fn pop_all(&mut self) -> Result<Option<String>, ModelError> {
        loop {
            if let Some(max) = self.opts.max_events {
                // Extensions dropped past the limit's reach are pending as well.
                if self.events.len() as u64 >= max && (!self.heap.is_empty() || self.dropped > 0) {
                    return Ok(Some(format!("event limit of {max} reached")));
                }
            }
            // Checked at every pop too: the queue may have grown without an extension.
            if let Some(why) = self.limit_reached() {
                return Ok(Some(why));
            }
            let Some(i) = self.pop_min() else {
                return Ok(None);
            };
            let (e, extend) = self.pop_into_prefix(i);
            if extend {
                if let Some(why) = self.extend(e)? {
                    return Ok(Some(why));
                }
            }
        }
    }

    /// The prefix built, with its statistics; `stopped` says why it is incomplete.
    fn outcome(self, stopped: Option<String>, backend: &'static str) -> PrefixOutcome {
        let stats = PrefixStats {
            events: self.prefix.events.len() as u64,
            conditions: self.prefix.conditions.len() as u64,
            cutoffs: self.prefix.cutoffs() as u64,
            pending: self.heap.len() as u64 + self.dropped,
            co_entries: self.co_entries,
            seconds: self.start.elapsed().as_secs_f64(),
            bytes: self.bytes(),
            peak_rss_bytes: crate::engine::peak_rss_bytes(),
        };
        // The co-relation, the queue and the recorded markings can hold gigabytes in
        // millions of small allocations: freeing them here would hold up an engine told
        // to stop.
        crate::engine::drop_in_background((
            self.co,
            self.cands,
            self.reps,
            self.parikhs,
            self.foatas,
            self.posts,
            self.events,
        ));
        PrefixOutcome {
            labels: self.labels,
            prefix: self.prefix,
            stats,
            stopped,
            backend,
            faults: self.faults,
            repeated_label: self.repeated_label,
            started_over: !self.erv_ties,
        }
    }
}

/// Builds the complete finite prefix of the unfolding `sem` describes.
pub(crate) fn build<M: Semantics + ?Sized>(
    sem: &mut M,
    opts: &PrefixOptions,
    backend: &'static str,
) -> Result<PrefixOutcome, ModelError> {
    if !opts.cutoff.uses_representatives() && opts.cutoff != CutoffMode::None {
        return Err(ModelError::new(format!(
            "--cutoff {} is QPOR's (check --engine qpor); a complete prefix is built with --cutoff erv or mcmillan",
            opts.cutoff.name()
        )));
    }
    let start = Instant::now();
    let mut b = Builder::new(sem, opts.clone(), start);
    let mut stopped = b.run()?;
    if stopped.is_none() && b.repeated_label && b.took_erv_tie {
        // The ERV prefix of a net that is not safe may be incomplete: start over without
        // the tie-break (an incomplete prefix stopped by a limit is left as it is).
        crate::engine::drop_in_background(b.outcome(None, backend));
        b = Builder::new(sem, opts.clone(), start);
        b.erv_ties = false;
        stopped = b.run()?;
    }
    Ok(b.outcome(stopped, backend))
}
