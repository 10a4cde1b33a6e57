//! The program-like unfolding of a component system: the paper's U_{P,◇} (docs/design.md#the-program-like-unfolding;
//! docs/paper.md#the-unfolding-of-a-program, docs/paper.md#trees-for-causality-and-conflict).
//!
//! An event is an action plus, for each component it touches, its predecessor on that
//! component (the previous event there, or ⊥). So every event is a node in one tree per
//! component it touches — for a program, a thread tree and a lock tree, Dpu's layout; for
//! a net with one component per place, one tree per place.
//! - Causality a ≤ b: take a component c of a; a ≤ b iff a is an ancestor-or-self of
//!   max_c(\[b\]) in c's tree (an O(log n) level-ancestor query with jump pointers).
//! - Conflict a # b: some component has maxima in \[a\] and \[b\] on different branches of its
//!   tree. Summaries ([`summary`]) let the test skip the shared part of two histories.
//! - Immediate conflicts of e are among its siblings in its trees.
//! - cex(C) is found by a generalisation of the paper's `cexp`: for every anchor component c
//!   and every position x on C's c-chain, the steps anchored at c from post_c(x) are tried
//!   with predecessors searched along the other components' chains of C, pruned by the
//!   consistency of their histories (no predecessor's history may hold a later event on
//!   another chosen component — the nested-lock pitfall of
//!   docs/paper.md#conflicting-extensions-of-programs) and by each
//!   component's local state. Positions at the top of a chain are included, so blocked
//!   requests get their conflicting extensions too (the gap of Dpu noted in
//!   docs/paper.md#conflicting-extensions-of-programs).
//! - Compatibility of e with C (the filter of Alt's spikes) is decided from e's own
//!   predecessors when they tell (a predecessor in C that is not C's maximum there means a
//!   conflict; all of them maxima means e is enabled), else by comparing summaries; the
//!   answer is remembered per event with its reason (an event of C it conflicts with; or
//!   "compatible, and nothing pushed since"), which stays true while the reason does. A
//!   long walk of a same-action run is remembered too ([`RunMemo`]): which members were
//!   compatible, and how deep in C the reasons of the others lie; while that part of C
//!   stays, the next walk tests only the former.
//!
//! # Invariants
//! - An event's nodes are sorted by component; `nodes[i].pred` is the event's predecessor
//!   on `nodes[i].comp`, and the predecessor's own node for that component has the event in
//!   its child list (or the event is in the component's root list).
//! - After its head, every run of same-action children is sorted by `run_key`, deepest
//!   first (Alt's spike filter leaves a run at its first member too shallow for C).
//! - A live event's predecessors are live (histories are causally closed), so freeing
//!   never leaves a dangling predecessor.
//! - `maxima[c]` is the last event of C on c; `state[c]` its post local state on c.
//! - `config_index[e]` is e's position in C (or `NOT_IN_CONFIG`); `links[e]` mirrors e's
//!   action and the `next_sibling` / `next_same` of its first `HOT_NODES` nodes (written
//!   only through `set_next_sibling` / `set_next_same`); `compat_memo` and `run_memos`
//!   are forgotten at every prune, the only place ids are freed; a run's record goes when
//!   the run gets a member; `config_serials[i]` is the number of the push that put C's
//!   i-th event there.

//!
//! # Layout
//! This module holds the data (events, their tree nodes, the current configuration) and
//! the public face; the operations live by job in `events` (the event store:
//! hash-consing, creation, freeing), `trees` (the component trees: jump pointers, child
//! lists and same-action runs), `relations` (causality, conflict, compatibility),
//! `siblings` (immediate conflicts), `cex` (conflicting extensions), `cutoffs`
//! (the cutoff table), `unfolding` (the [`super::Unfolding`] implementation) and
//! `footprint` (summary memory measurements).

mod cex;
mod cutoffs;
mod events;
mod footprint;
mod relations;
mod siblings;
pub(crate) mod summary;
mod trees;
mod unfolding;

pub use footprint::SummaryFootprint;

use super::cutoff::CutoffMode;
use super::tables::{CanonicalCutoffs, StateDistances};
use super::{EventId, UnfoldStats};
use crate::engine::CancelToken;
use crate::system::{ActionId, CompId, Local, Step, System};
use hashbrown::{HashMap, HashTable};
use smallvec::SmallVec;
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Instant;
use summary::{Summary, Tries};

const NONE: EventId = EventId::NONE;

/// Event look-ups and cex search steps between two readings of the clock.
const STEPS_PER_CLOCK: u32 = 256;

/// An event's node in the tree of one component.
#[derive(Clone, Debug)]
struct Node {
    comp: CompId,
    /// Predecessor on `comp`, or NONE (⊥).
    pred: EventId,
    /// Depth in the tree: 0 for a root.
    depth: u32,
    /// Jump pointer for level-ancestor queries (Myers' skew-binary scheme).
    jump: EventId,
    /// Children are kept in runs of one action: the first child of each run is in the
    /// list `first_child` / `next_sibling` / `prev_sibling` (the others have NONE
    /// there), and a run is chained by `next_same` / `prev_same` from its head. cex creates
    /// many same-action variants under one node; immediate conflicts skip them by run.
    /// After its head, a run is sorted by [`trees::run_key`], deepest first.
    first_child: EventId,
    next_sibling: EventId,
    prev_sibling: EventId,
    next_same: EventId,
    prev_same: EventId,
    /// The component's local state after the event.
    post: Local,
    /// Number of events on the root path (inclusive) whose home component is `comp`.
    home_count: u32,
}

#[derive(Clone, Debug)]
struct Event {
    action: ActionId,
    nodes: SmallVec<[Node; 3]>,
    summary: Summary,
    /// |\[e\]|.
    size: u32,
    /// Foata level of e in \[e\] (1 for minimal events).
    level: u32,
    /// Hash of state(\[e\]) (as a sum of per-component deltas from the initial state).
    state_hash: u64,
    alive: bool,
    cutoff: bool,
    /// The event leaves a component in a fault state: like a cutoff, never extended.
    fault: bool,
    pinned: bool,
}

const NOT_IN_CONFIG: u32 = u32::MAX;

/// How many of an event's nodes have their sibling links mirrored in [`SiblingLinks`].
const HOT_NODES: usize = 3;

/// In `hot_preds`: the event has more than [`HOT_NODES`] nodes (read them from the event).
const MORE_NODES: EventId = EventId(u32::MAX - 1);

/// The part of an event's tree links that the immediate-conflict walk reads, kept in a
/// dense array beside the events so that the walk touches one small record per sibling:
/// the action, and mirrors of `next_sibling` / `next_same` / [`trees::run_key`] of the event's
/// first [`HOT_NODES`] nodes (a walk on a later node reads the nodes themselves).
#[derive(Clone, Copy, Debug)]
struct SiblingLinks {
    action: ActionId,
    comps: [CompId; HOT_NODES],
    next_sibling: [EventId; HOT_NODES],
    next_same: [EventId; HOT_NODES],
    run_key: [u32; HOT_NODES],
}

/// The tree positions of an event's first [`HOT_NODES`] nodes, kept in a dense array beside
/// the events for the level-ancestor walks of the conflict tests: a step reads one record
/// (one cache line) instead of an event and then its jump target's event. Written when
/// the event is created; a tree position never changes.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Ancestry {
    /// The nodes' components; `u32::MAX` past the last node.
    comps: [CompId; HOT_NODES],
    depth: [u32; HOT_NODES],
    pred: [EventId; HOT_NODES],
    jump: [EventId; HOT_NODES],
    /// The depth of `jump` (0 when there is none).
    jump_depth: [u32; HOT_NODES],
}

impl Ancestry {
    const EMPTY: Ancestry = Ancestry {
        comps: [CompId(u32::MAX); HOT_NODES],
        depth: [0; HOT_NODES],
        pred: [NONE; HOT_NODES],
        jump: [NONE; HOT_NODES],
        jump_depth: [0; HOT_NODES],
    };

    /// Which mirrored node is on component `c`.
    #[inline]
    fn slot(&self, c: CompId) -> Option<usize> {
        (0..HOT_NODES).find(|&k| self.comps[k] == c)
    }
}

/// What [`super::Unfolding::compatible`] last found out about an event: an event of C it
/// conflicts with (the answer stays "no" while that event is in C), or the number of
/// pushes + 1 at a time it was compatible (the answer stays "yes" while C only shrinks,
/// and after a few pushes only the events pushed since need a look).
#[derive(Clone, Copy, Debug)]
struct CompatMemo {
    conflicts_with: EventId,
    compatible_at: u64,
}

impl CompatMemo {
    const UNKNOWN: CompatMemo = CompatMemo {
        conflicts_with: NONE,
        compatible_at: 0,
    };
}

/// What a walk of a same-action run's tail found (see `siblings`): every member after
/// the head whose key was at least `threshold`, except those of `compatible`, was
/// incompatible with C, through an event of C at position `deepest` or below, and
/// position `deepest` held the push number `serial`. While it still does, C's first
/// `deepest + 1` events are those of that walk, so those members stay incompatible and
/// only `compatible` needs testing again; a new member invalidates the record.
#[derive(Clone, Debug)]
struct RunMemo {
    threshold: u32,
    deepest: u32,
    serial: u64,
    compatible: SmallVec<[EventId; 2]>,
}

impl Event {
    #[inline]
    fn node(&self, c: CompId) -> Option<&Node> {
        self.nodes
            .binary_search_by_key(&c, |n| n.comp)
            .ok()
            .map(|i| &self.nodes[i])
    }

    #[inline]
    fn node_index(&self, c: CompId) -> Option<usize> {
        self.nodes.binary_search_by_key(&c, |n| n.comp).ok()
    }
}

/// Options of the program-like unfolding.
#[derive(Clone, Debug, Default)]
pub struct ProgramOptions {
    /// The adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// Stop with [`super::UnfoldError::EventLimit`] after creating this many events.
    pub max_events: Option<u64>,
    /// The table of distance cutoffs ([`CutoffMode::Distance`], which needs it), shared by
    /// every replica.
    pub distances: Option<Arc<StateDistances>>,
    /// The table of canonical cutoffs ([`CutoffMode::Canonical`], which needs it), shared
    /// by every replica.
    pub canonical: Option<Arc<CanonicalCutoffs>>,
}

/// A representative of a state in the cutoff table.
#[derive(Clone, Copy, Debug)]
struct Representative {
    hash: u64,
    /// The event, or NONE for the empty configuration.
    event: EventId,
}

/// The program-like unfolding of a system, with a current configuration.
pub struct ProgramUnfolding<'s, S: System + ?Sized> {
    sys: &'s S,
    opts: ProgramOptions,
    initial: Vec<Local>,
    /// Per-component hash of (component, initial local).
    events: Vec<Event>,
    free: Vec<EventId>,
    table: HashTable<EventId>,
    roots: Vec<EventId>,
    tries: Tries,
    // The current configuration.
    config: Vec<EventId>,
    /// Per event id: its position in C's push order, or `NOT_IN_CONFIG` (a dense array:
    /// the compatibility tests read it for many events).
    config_index: Vec<u32>,
    /// Per event, the generation of the last walk that reached it: kept apart from the
    /// events so that a walk over a large U reads 4 bytes per event, not a cache line
    /// (prune's marking spent 40 % of its time on those misses).
    marks: Vec<u32>,
    /// Per event, the predecessors of its first [`HOT_NODES`] nodes (NONE past its last
    /// node), and [`MORE_NODES`] last when it has more nodes than that: prune's walk over
    /// the kept events reads these instead of the events themselves.
    hot_preds: Vec<[EventId; HOT_NODES + 1]>,
    /// Per event id: what the last compatibility test found (ids are reused only after a
    /// prune, which forgets everything).
    compat_memo: Vec<Cell<CompatMemo>>,
    /// Per event id: its sibling links for the immediate-conflict walk.
    links: Vec<SiblingLinks>,
    /// Per event id: its tree positions for level-ancestor queries.
    ancestry: Vec<Ancestry>,
    /// Per event id, with canonical cutoffs: its fingerprint ([`super::fingerprint::event_fingerprint`]).
    fingerprints: Vec<u64>,
    /// By (run head, component): the last long walk of the run's tail ([`RunMemo`];
    /// forgotten at a prune, which frees ids).
    run_memos: RefCell<HashMap<(EventId, CompId), RunMemo>>,
    /// Pushes so far.
    pushes: u64,
    /// Per position of C: the push number that put the event there.
    config_serials: Vec<u64>,
    config_summaries: Vec<Summary>,
    maxima: Vec<EventId>,
    state: Vec<Local>,
    /// Per component: whether it adds no dependence of its own
    /// ([`System::redundant_dependence`]), so that the conflict walks skip its tree.
    redundant: Vec<bool>,
    // Cutoffs.
    reps: HashTable<Representative>,
    generation: u32,
    stats: UnfoldStats,
    /// Heap bytes of the node lists of live events that outgrew their inline capacity,
    /// kept as events come and go so that [`Unfolding::stats`] costs nothing: each task of
    /// a parallel run reads it when it ends.
    spilled_node_bytes: u64,
    // Scratch buffers.
    steps: Vec<Step>,
    /// The run's deadline and cancel flag, watched inside en(C) and cex(C): on a model
    /// with thousands of components one of them makes thousands of events.
    deadline: Option<Instant>,
    cancel: Option<CancelToken>,
    /// Event look-ups and search steps since the clock was last read.
    since_clock: u32,
}

impl<'s, S: System + ?Sized> ProgramUnfolding<'s, S> {
    /// The unfolding of `sys`, with C = ∅.
    pub fn new(sys: &'s S, opts: ProgramOptions) -> Self {
        let n = sys.num_components();
        let initial = sys.initial_state();
        let mut u = ProgramUnfolding {
            sys,
            opts,
            state: initial.clone(),
            initial,
            events: Vec::new(),
            free: Vec::new(),
            table: HashTable::new(),
            roots: vec![NONE; n],
            tries: Tries::new(n),
            config: Vec::new(),
            config_index: Vec::new(),
            marks: Vec::new(),
            hot_preds: Vec::new(),
            compat_memo: Vec::new(),
            links: Vec::new(),
            ancestry: Vec::new(),
            fingerprints: Vec::new(),
            run_memos: RefCell::new(HashMap::new()),
            pushes: 0,
            config_serials: Vec::new(),
            config_summaries: vec![Summary::EMPTY],
            maxima: vec![NONE; n],
            redundant: (0..n)
                .map(|c| sys.redundant_dependence(CompId(c as u32)))
                .collect(),
            reps: HashTable::new(),
            generation: 0,
            stats: UnfoldStats::default(),
            spilled_node_bytes: 0,
            steps: Vec::new(),
            deadline: None,
            cancel: None,
            since_clock: 0,
        };
        if u.opts.cutoff.uses_representatives() {
            u.reps
                .insert_unique(0, Representative { hash: 0, event: NONE }, |r| r.hash);
        }
        u
    }

    /// Sets the instant after which en(C) and cex(C) give up with
    /// [`super::UnfoldError::TimeLimit`] (`None`: never), and a cancel flag that makes them
    /// give up too.
    pub fn watch(&mut self, deadline: Option<Instant>, cancel: CancelToken) {
        self.deadline = deadline;
        self.cancel = Some(cancel);
    }

    /// Every [`STEPS_PER_CLOCK`] calls, `Err(TimeLimit)` once the deadline has passed or
    /// the run was cancelled.
    fn tick(&mut self) -> Result<(), super::UnfoldError> {
        self.since_clock += 1;
        if self.since_clock < STEPS_PER_CLOCK {
            return Ok(());
        }
        self.since_clock = 0;
        let cancelled = self.cancel.as_ref().is_some_and(|c| c.is_cancelled());
        if cancelled || self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(super::UnfoldError::TimeLimit);
        }
        Ok(())
    }

    /// The system being unfolded.
    pub fn system(&self) -> &'s S {
        self.sys
    }

    /// Iteration over the live events, for export and tests.
    pub fn live_events(&self) -> impl Iterator<Item = EventId> + '_ {
        crate::unfold::live_ids(self.events.iter().map(|e| e.alive))
    }

    /// The predecessors of `e`, one per touched component (NONE for ⊥).
    pub fn preds(&self, e: EventId) -> impl Iterator<Item = (CompId, EventId)> + '_ {
        self.ev(e).nodes.iter().map(|n| (n.comp, n.pred))
    }

    /// |\[e\]|.
    pub fn history_size(&self, e: EventId) -> u32 {
        self.ev(e).size
    }

    /// The event `e`.
    #[inline]
    fn ev(&self, e: EventId) -> &Event {
        &self.events[e.index()]
    }

    /// `e`'s node on component `c` (which `e` must touch).
    #[inline]
    fn node(&self, e: EventId, c: CompId) -> &Node {
        self.events[e.index()]
            .node(c)
            .expect("[qpor internal bug] event has no node on the component asked for")
    }

    /// `e`'s depth in c's tree, −1 for ⊥.
    #[inline]
    fn depth_on(&self, e: EventId, c: CompId) -> i64 {
        if e.is_none() {
            -1
        } else {
            self.tree_depth(e, c) as i64
        }
    }

    /// c's local state after `e` (the initial one for ⊥).
    #[inline]
    fn post_on(&self, e: EventId, c: CompId) -> Local {
        if e.is_none() {
            self.initial[c.index()]
        } else {
            self.node(e, c).post
        }
    }

    /// Position of `e` in C's push order, or `NOT_IN_CONFIG`.
    #[inline]
    fn config_pos(&self, e: EventId) -> u32 {
        self.config_index[e.index()]
    }

    /// Whether `e` must not be extended (a cutoff or a fault).
    #[inline]
    fn blocked(&self, e: EventId) -> bool {
        let ev = self.ev(e);
        ev.cutoff || ev.fault
    }
}
