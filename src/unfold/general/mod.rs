//! The general backend: the branching process (unfolding) of a P/T net with individual
//! tokens, as a prime event structure with a current configuration (DESIGN.md §1 "The
//! general backend"; paper.md §1.3 and §3.3, the definitions of Appendix A).
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

pub mod coset;
pub mod history;
pub mod net;

use super::cutoff::{compare_erv, CutoffMode, HistoryShape};
use super::{EventId, UnfoldError, UnfoldStats, Unfolding};
use crate::system::net::Net;
use crate::system::{ActionId, Local};
use hashbrown::HashTable;
use history::{Histories, History};
use net::{take_delta, MarkingDelta, TokenNet};
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::hash::{BuildHasher, Hasher};
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
#[derive(Clone, Copy, Debug)]
pub struct GeneralOptions {
    /// The adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// Stop with [`UnfoldError::EventLimit`] after creating this many events. Checked as
    /// each event is made, in the middle of a co-set search too.
    pub max_events: Option<u64>,
}

/// How many events [`GeneralUnfolding`] creates between two looks at the clock (besides
/// the looks inside every co-set search, each [`coset::TICK_PICKS`] picks).
const EVENTS_PER_CLOCK_CHECK: u64 = 1024;

impl Default for GeneralOptions {
    fn default() -> Self {
        GeneralOptions {
            cutoff: CutoffMode::Erv,
            max_events: None,
        }
    }
}

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

fn key_hash(trans: u32, preset: &[CondId]) -> u64 {
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write_u32(trans);
    for c in preset {
        h.write_u32(c.0);
    }
    h.finish()
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

    /// Sets the instant after which [`Unfolding::enabled`] and
    /// [`Unfolding::add_conflicting_extensions`] give up with [`UnfoldError::TimeLimit`]
    /// (`None`: never). The clock is read every [`coset::TICK_PICKS`] picks of a co-set
    /// search and every `EVENTS_PER_CLOCK_CHECK` (1024) events made, so one long search (cex(C)
    /// is NP-complete on non-safe nets) ends soon after the deadline; the events made so
    /// far stay.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// `Err(TimeLimit)` once the deadline has passed.
    fn check_clock(&self) -> Result<(), UnfoldError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(UnfoldError::TimeLimit),
            _ => Ok(()),
        }
    }

    /// The net's effective structure (read arcs as self-loops).
    pub fn token_net(&self) -> &TokenNet {
        &self.net
    }

    fn ev(&self, e: EventId) -> &Event {
        &self.events[e.index()]
    }

    fn cond(&self, c: CondId) -> &Cond {
        &self.conds[c.index()]
    }

    fn new_cond(&mut self, place: u32, producer: EventId, usable: bool) -> CondId {
        let c = Cond {
            place,
            producer,
            consumers: SmallVec::new(),
            c_consumer: NONE,
            cut_pos: u32::MAX,
            rank: NOT_IN_C,
            usable,
            alive: true,
        };
        match self.free_conds.pop() {
            Some(id) => {
                self.conds[id.index()] = c;
                id
            }
            None => {
                self.conds.push(c);
                CondId(self.conds.len() as u32 - 1)
            }
        }
    }

    /// A usable condition joins C (as a minimal condition or the output of a push).
    fn enter_c(&mut self, c: CondId) {
        let p = self.cond(c).place as usize;
        self.conds[c.index()].rank = self.c_conds;
        self.c_conds += 1;
        self.in_c[p].push(c);
        self.cut_insert(c);
    }

    fn cut_insert(&mut self, c: CondId) {
        let p = self.cond(c).place as usize;
        self.conds[c.index()].cut_pos = self.cut[p].len() as u32;
        self.cut[p].push(c);
        if self.cut[p].len() == 1 {
            self.marked_pos[p] = self.marked.len() as u32;
            self.marked.push(p as u32);
        }
    }

    fn cut_remove(&mut self, c: CondId) {
        let p = self.cond(c).place as usize;
        let pos = self.cond(c).cut_pos as usize;
        debug_assert_eq!(
            self.cut[p][pos], c,
            "[qpor internal bug] cut position out of date"
        );
        self.cut[p].swap_remove(pos);
        if let Some(&moved) = self.cut[p].get(pos) {
            self.conds[moved.index()].cut_pos = pos as u32;
        }
        self.conds[c.index()].cut_pos = u32::MAX;
        if self.cut[p].is_empty() {
            let mp = self.marked_pos[p] as usize;
            self.marked.swap_remove(mp);
            if let Some(&q) = self.marked.get(mp) {
                self.marked_pos[q as usize] = mp as u32;
            }
            self.marked_pos[p] = u32::MAX;
        }
    }

    fn find(&self, trans: u32, preset: &[CondId]) -> Option<EventId> {
        let h = key_hash(trans, preset);
        self.table
            .find(h, |&id| {
                let e = &self.events[id.index()];
                e.trans == trans && e.preset.as_slice() == preset
            })
            .copied()
    }

    /// The event (t, X) for a sorted co-set X matching •t, created if needed.
    fn event(&mut self, trans: u32, preset: &[CondId]) -> Result<EventId, UnfoldError> {
        if let Some(e) = self.find(trans, preset) {
            return Ok(e);
        }
        if let Some(max) = self.opts.max_events {
            if self.stats.events_created >= max {
                return Err(UnfoldError::EventLimit(max));
            }
        }
        if self.stats.events_created % EVENTS_PER_CLOCK_CHECK == EVENTS_PER_CLOCK_CHECK - 1 {
            self.check_clock()?;
        }
        Ok(self.create(trans, preset))
    }

    fn create(&mut self, trans: u32, preset: &[CondId]) -> EventId {
        debug_assert!(preset.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(preset.iter().all(|c| self.cond(*c).alive && self.cond(*c).usable));
        let id = match self.free_events.pop() {
            Some(id) => id,
            None => {
                self.events.push(Event {
                    trans,
                    preset: SmallVec::new(),
                    postset: SmallVec::new(),
                    hist: History::EMPTY,
                    level: 0,
                    cutoff: false,
                    alive: false,
                    config_index: NOT_IN_C,
                    mark: 0,
                });
                EventId(self.events.len() as u32 - 1)
            }
        };
        // [e]: the producers' histories, then e.
        let mut hist = History::EMPTY;
        let mut level = 1;
        {
            let events = &self.events;
            let delta_hash = &self.net.delta_hash;
            let weight = |x: u32| delta_hash[events[x as usize].trans as usize];
            for c in preset {
                let p = self.conds[c.index()].producer;
                if p.is_none() {
                    continue;
                }
                level = level.max(events[p.index()].level + 1);
                let merged = self.hists.union(hist, events[p.index()].hist, &weight);
                self.hists.retain(merged);
                self.hists.release(hist);
                hist = merged;
            }
        }
        let with_e = self.hists.insert(hist, id.0, self.net.delta_hash[trans as usize]);
        self.hists.retain(with_e);
        self.hists.release(hist);
        {
            let e = &mut self.events[id.index()];
            e.trans = trans;
            e.preset = SmallVec::from_slice(preset);
            e.postset.clear();
            e.hist = with_e;
            e.level = level;
            e.cutoff = false;
            e.alive = true;
            e.config_index = NOT_IN_C;
        }
        for c in preset {
            self.conds[c.index()].consumers.push(id);
        }
        self.stats.events_created += 1;
        self.stats.events_alive += 1;
        self.stats.events_alive_peak = self.stats.events_alive_peak.max(self.stats.events_alive);
        let cutoff = self.opts.cutoff != CutoffMode::None && self.decide_cutoff(id);
        self.events[id.index()].cutoff = cutoff;
        if cutoff {
            self.stats.cutoff_events += 1;
        }
        let mut postset = SmallVec::new();
        for i in 0..self.net.post[trans as usize].len() {
            let (p, w) = self.net.post[trans as usize][i];
            for _ in 0..w {
                postset.push(self.new_cond(p, id, !cutoff));
            }
        }
        self.events[id.index()].postset = postset;
        let h = key_hash(trans, preset);
        let events = &self.events;
        self.table.insert_unique(h, id, |&x| {
            let e = &events[x.index()];
            key_hash(e.trans, &e.preset)
        });
        id
    }

    /// Mark(\[e\]) − m0, by walking \[e\].
    fn marking_delta(&mut self, e: EventId) -> MarkingDelta {
        let mut delta = std::mem::take(&mut self.delta);
        let mut touched = std::mem::take(&mut self.touched);
        let (events, net) = (&self.events, &self.net);
        self.hists.for_each(self.events[e.index()].hist, &mut |x| {
            net.apply(events[x as usize].trans, &mut delta, &mut touched);
            false
        });
        let out = take_delta(&mut delta, &mut touched);
        self.delta = delta;
        self.touched = touched;
        out
    }

    /// The ERV shape of \[e\]: (Foata level, transition) of each of its events.
    fn shape(&self, e: EventId) -> HistoryShape {
        let mut shape = HistoryShape::default();
        self.hists.for_each(self.ev(e).hist, &mut |x| {
            let ev = &self.events[x as usize];
            shape.events.push((ev.level, ActionId(ev.trans)));
            false
        });
        shape
    }

    fn add_rep(&mut self, hash: u64, delta: MarkingDelta, size: u32, shape: HistoryShape) {
        let i = self.rep_data.len() as u32;
        self.rep_data.push(Representative {
            hash,
            delta,
            size,
            shape,
        });
        let data = &self.rep_data;
        self.reps.insert_unique(hash, i, |&r| data[r as usize].hash);
    }

    /// Whether e is a cutoff: a representative of Mark(\[e\]) is strictly smaller; a strictly
    /// larger one gives way to e.
    fn decide_cutoff(&mut self, e: EventId) -> bool {
        let hist = self.ev(e).hist;
        let hash = self.initial_hash.wrapping_add(self.hists.hash(hist));
        let size = self.hists.size(hist);
        let delta = self.marking_delta(e);
        let data = &self.rep_data;
        let found = self
            .reps
            .find(hash, |&r| data[r as usize].delta == delta)
            .copied();
        let erv = self.opts.cutoff == CutoffMode::Erv;
        match found {
            None => {
                let shape = if erv {
                    self.shape(e)
                } else {
                    HistoryShape::default()
                };
                self.add_rep(hash, delta, size, shape);
                false
            }
            Some(r) => {
                let rep = &self.rep_data[r as usize];
                let mut shape = None;
                let order = match rep.size.cmp(&size) {
                    Ordering::Equal if erv => {
                        let s = self.shape(e);
                        let o = compare_erv(&self.rep_data[r as usize].shape, &s);
                        shape = Some(s);
                        o
                    }
                    o => o,
                };
                match order {
                    Ordering::Less => true,
                    Ordering::Equal => false,
                    Ordering::Greater => {
                        let shape = match shape {
                            Some(s) => s,
                            None if erv => self.shape(e),
                            None => HistoryShape::default(),
                        };
                        let rep = &mut self.rep_data[r as usize];
                        rep.size = size;
                        rep.shape = shape;
                        false
                    }
                }
            }
        }
    }

    /// Whether condition `x` of C precedes condition `y` of C: x is consumed in C by a
    /// cause of y's producer (or by the producer itself).
    fn precedes_in_c(&self, x: CondId, y: CondId) -> bool {
        let cc = self.cond(x).c_consumer;
        let py = self.cond(y).producer;
        if cc.is_none() || py.is_none() {
            return false;
        }
        if cc == py {
            return true;
        }
        // Causes are pushed before their effects.
        self.ev(cc).config_index < self.ev(py).config_index && self.hists.contains(self.ev(py).hist, cc.0)
    }

    /// Whether conditions x and y of C are concurrent (C is conflict-free, so this is
    /// "neither precedes the other").
    fn co_in_c(&self, x: CondId, y: CondId) -> bool {
        !self.precedes_in_c(x, y) && !self.precedes_in_c(y, x)
    }

    fn top_hist(&self) -> History {
        *self
            .config_hist
            .last()
            .expect("[qpor internal bug] no history of C")
    }

    /// Iteration over the live events, for tests.
    pub fn live_events(&self) -> impl Iterator<Item = EventId> + '_ {
        self.events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.alive)
            .map(|(i, _)| EventId(i as u32))
    }

    /// |\[e\]|.
    pub fn history_size(&self, e: EventId) -> u32 {
        self.hists.size(self.ev(e).hist)
    }

    /// The places of the conditions of •e (with repetitions for weights).
    pub fn preset_places(&self, e: EventId) -> impl Iterator<Item = u32> + '_ {
        self.ev(e).preset.iter().map(|c| self.cond(*c).place)
    }

    /// Searches cex(C) for transition `t` anchored at the new condition `r` of C; see
    /// the module documentation.
    fn search_anchored(&mut self, t: u32, r: CondId, found: &mut usize) -> Result<(), UnfoldError> {
        let rp = self.cond(r).place;
        let rank = self.cond(r).rank;
        let mut lists: SmallVec<[Vec<u32>; 4]> = SmallVec::new();
        let mut needs: SmallVec<[usize; 4]> = SmallVec::new();
        for &(q, w) in &self.net.pre[t as usize] {
            let need = if q == rp { w as usize - 1 } else { w as usize };
            if need == 0 {
                continue;
            }
            let mut col = Vec::new();
            for &x in &self.in_c[q as usize] {
                if self.cond(x).rank >= rank {
                    break;
                }
                if self.co_in_c(x, r) {
                    col.push(x.0);
                }
            }
            if col.len() < need {
                return Ok(());
            }
            lists.push(col);
            needs.push(need);
        }
        let mut order: SmallVec<[usize; 4]> = (0..lists.len()).collect();
        order.sort_by_key(|&i| lists[i].len());
        let columns: SmallVec<[coset::Column<'_>; 4]> =
            order.iter().map(|&i| (lists[i].as_slice(), needs[i])).collect();
        // Each co-set becomes its event at once (streaming, so that memory follows the
        // events made and the event limit stops the search, however many co-sets remain).
        // Creating events adds conditions outside C and never changes C, so the
        // concurrency of the conditions of C the search tests stays as it was.
        let mut x: SmallVec<[CondId; 8]> = SmallVec::new();
        coset::search_in(
            &columns,
            self,
            |u, a, b| u.co_in_c(CondId(a), CondId(b)),
            |u, chosen| {
                x.clear();
                x.extend(chosen.iter().map(|&c| CondId(c)));
                x.push(r);
                // Some condition consumed in C: otherwise (t, X) is in en(C).
                if x.iter().all(|c| u.cond(*c).c_consumer.is_none()) {
                    return Ok(());
                }
                x.sort_unstable();
                if let Some(e) = u.find(t, &x) {
                    if u.ev(e).config_index != NOT_IN_C {
                        return Ok(());
                    }
                }
                u.event(t, &x)?;
                *found += 1;
                Ok(())
            },
            |u| u.check_clock(),
        )
    }

    fn free_event(&mut self, x: EventId) {
        let h = key_hash(self.ev(x).trans, &self.ev(x).preset);
        if let Ok(entry) = self.table.find_entry(h, |&y| y == x) {
            entry.remove();
        }
        let preset = std::mem::take(&mut self.events[x.index()].preset);
        for c in &preset {
            let cond = &mut self.conds[c.index()];
            if cond.alive {
                cond.consumers.retain(|y| *y != x);
            }
        }
        let postset = std::mem::take(&mut self.events[x.index()].postset);
        for b in &postset {
            debug_assert_eq!(
                self.cond(*b).rank,
                NOT_IN_C,
                "[qpor internal bug] freeing a condition of C"
            );
            self.conds[b.index()].alive = false;
            self.conds[b.index()].consumers.clear();
            self.free_conds.push(*b);
        }
        let hist = self.events[x.index()].hist;
        self.hists.release(hist);
        let e = &mut self.events[x.index()];
        e.preset = preset;
        e.preset.clear();
        e.postset = postset;
        e.postset.clear();
        e.hist = History::EMPTY;
        e.alive = false;
        self.free_events.push(x);
        self.stats.events_alive -= 1;
    }
}

impl Unfolding for GeneralUnfolding {
    fn enabled(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError> {
        let mut x: SmallVec<[CondId; 8]> = SmallVec::new();
        // Creating events leaves C, its cut and `marked` as they are: indices stay valid.
        for i in 0..self.marked.len() {
            let p = self.marked[i] as usize;
            for k in 0..self.net.anchored[p].len() {
                let t = self.net.anchored[p][k];
                let pre = &self.net.pre[t as usize];
                if pre.iter().any(|&(q, w)| self.cut[q as usize].len() < w as usize) {
                    continue;
                }
                // Cut conditions are pairwise concurrent: every choice is an event, made as
                // soon as it is found (see `search_anchored`).
                let lists: SmallVec<[Vec<u32>; 4]> = pre
                    .iter()
                    .map(|&(q, _)| {
                        let mut v: Vec<u32> = self.cut[q as usize].iter().map(|c| c.0).collect();
                        v.sort_unstable();
                        v
                    })
                    .collect();
                let columns: SmallVec<[coset::Column<'_>; 4]> = lists
                    .iter()
                    .zip(pre.iter())
                    .map(|(l, &(_, w))| (l.as_slice(), w as usize))
                    .collect();
                coset::search_in::<_, UnfoldError>(
                    &columns,
                    self,
                    |_, _, _| true,
                    |u, chosen| {
                        x.clear();
                        x.extend(chosen.iter().map(|&c| CondId(c)));
                        x.sort_unstable();
                        out.push(u.event(t, &x)?);
                        Ok(())
                    },
                    |u| u.check_clock(),
                )?;
            }
        }
        Ok(())
    }

    fn add_conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError> {
        let mut found = 0;
        let mut fresh: Vec<CondId> = Vec::new();
        for i in new_from..self.config.len() {
            let e = self.config[i];
            fresh.extend(
                self.ev(e)
                    .postset
                    .iter()
                    .copied()
                    .filter(|b| self.cond(*b).usable),
            );
        }
        for r in fresh {
            let p = self.cond(r).place as usize;
            for k in 0..self.net.consumers[p].len() {
                let t = self.net.consumers[p][k];
                self.search_anchored(t, r, &mut found)?;
            }
        }
        Ok(found)
    }

    fn push(&mut self, e: EventId) {
        debug_assert!(
            self.is_enabled(e),
            "[qpor internal bug] pushing an event not enabled at C"
        );
        self.rank_at.push(self.c_conds);
        let top = self.top_hist();
        let next = self
            .hists
            .insert(top, e.0, self.net.delta_hash[self.ev(e).trans as usize]);
        self.hists.retain(next);
        self.config_hist.push(next);
        for i in 0..self.ev(e).preset.len() {
            let c = self.ev(e).preset[i];
            self.cut_remove(c);
            self.conds[c.index()].c_consumer = e;
            let p = self.cond(c).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 -= 1;
            }
        }
        for i in 0..self.ev(e).postset.len() {
            let b = self.ev(e).postset[i];
            let p = self.cond(b).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 += 1;
            }
            if self.cond(b).usable {
                self.enter_c(b);
            }
        }
        self.events[e.index()].config_index = self.config.len() as u32;
        self.config.push(e);
    }

    fn pop(&mut self) -> EventId {
        let e = self
            .config
            .pop()
            .expect("[qpor internal bug] pop from the empty configuration");
        for i in (0..self.ev(e).postset.len()).rev() {
            let b = self.ev(e).postset[i];
            let p = self.cond(b).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 -= 1;
            }
            if self.cond(b).usable {
                self.cut_remove(b);
                let last = self.in_c[p as usize].pop();
                debug_assert_eq!(last, Some(b), "[qpor internal bug] conditions of C out of order");
                self.conds[b.index()].rank = NOT_IN_C;
                self.c_conds -= 1;
            }
        }
        for i in 0..self.ev(e).preset.len() {
            let c = self.ev(e).preset[i];
            self.conds[c.index()].c_consumer = NONE;
            self.cut_insert(c);
            let p = self.cond(c).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 += 1;
            }
        }
        let h = self
            .config_hist
            .pop()
            .expect("[qpor internal bug] no history to pop");
        self.hists.release(h);
        self.rank_at.pop();
        self.events[e.index()].config_index = NOT_IN_C;
        e
    }

    fn config(&self) -> &[EventId] {
        &self.config
    }

    fn in_config(&self, e: EventId) -> bool {
        self.ev(e).config_index != NOT_IN_C
    }

    fn is_enabled(&self, e: EventId) -> bool {
        let ev = self.ev(e);
        ev.config_index == NOT_IN_C
            && ev.preset.iter().all(|c| {
                let c = self.cond(*c);
                c.rank != NOT_IN_C && c.c_consumer.is_none()
            })
    }

    fn compatible(&self, e: EventId) -> bool {
        // C ∪ [e] is a configuration iff no event of [e] \ C consumes a condition that C
        // consumes.
        !self
            .hists
            .for_each_minus(self.ev(e).hist, self.top_hist(), &mut |x| {
                self.events[x as usize]
                    .preset
                    .iter()
                    .any(|c| !self.cond(*c).c_consumer.is_none())
            })
    }

    fn conflict(&self, a: EventId, b: EventId) -> bool {
        if a == b {
            return false;
        }
        // |[a] \ [b]| − |[b] \ [a]| = |[a]| − |[b]|: walk the smaller difference, looking
        // for an event of the other side sharing a condition.
        let (ha, hb) = (self.ev(a).hist, self.ev(b).hist);
        let (x, y) = if self.hists.size(ha) <= self.hists.size(hb) {
            (ha, hb)
        } else {
            (hb, ha)
        };
        self.hists.for_each_minus(x, y, &mut |z| {
            self.events[z as usize].preset.iter().any(|c| {
                self.cond(*c)
                    .consumers
                    .iter()
                    .any(|&w| w.0 != z && self.hists.contains(y, w.0))
            })
        })
    }

    fn causally_le(&self, a: EventId, b: EventId) -> bool {
        a == b || self.hists.contains(self.ev(b).hist, a.0)
    }

    fn immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        for c in &self.ev(e).preset {
            out.extend(self.cond(*c).consumers.iter().copied().filter(|&y| y != e));
        }
        if self.ev(e).preset.len() > 1 {
            super::sort_dedup_from(out, start);
        }
    }

    fn history_outside_config(&mut self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        self.hists
            .for_each_minus(self.ev(e).hist, self.top_hist(), &mut |x| {
                out.push(EventId(x));
                false
            });
        // Causes before effects: a cause has a strictly smaller Foata level.
        let events = &self.events;
        out[start..].sort_by_key(|x| (events[x.index()].level, x.0));
    }

    fn is_cutoff(&self, e: EventId) -> bool {
        self.ev(e).cutoff
    }

    fn is_fault(&self, _e: EventId) -> bool {
        false
    }

    fn action(&self, e: EventId) -> ActionId {
        ActionId(self.ev(e).trans)
    }

    fn config_state(&self) -> &[Local] {
        &self.state
    }

    fn prune(&mut self, keep: &[EventId]) {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let mut stack: Vec<EventId> = keep.to_vec();
        stack.extend(self.config.iter().copied());
        while let Some(x) = stack.pop() {
            if self.events[x.index()].mark == g {
                continue;
            }
            self.events[x.index()].mark = g;
            for c in &self.events[x.index()].preset {
                let p = self.conds[c.index()].producer;
                if !p.is_none() && self.events[p.index()].mark != g {
                    stack.push(p);
                }
            }
        }
        let dead: Vec<EventId> = self
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.alive && e.mark != g)
            .map(|(i, _)| EventId(i as u32))
            .collect();
        for x in dead {
            self.free_event(x);
        }
    }

    fn stats(&self) -> UnfoldStats {
        let mut s = self.stats;
        s.bytes = (self.events.len() * std::mem::size_of::<Event>()
            + self.conds.len() * std::mem::size_of::<Cond>()
            + self.hists.live_bytes()
            + self.rep_data.len() * std::mem::size_of::<Representative>()) as u64;
        s
    }
}
