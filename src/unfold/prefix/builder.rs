//! The ERV prefix builder shared by both backends (Esparza, Römer, Vogler; cunf.md §2.2–2.6;
//! DESIGN.md §1 "Finite prefix").
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
//! - **Co-relation** (cunf.md §2.5): for a new event e, co(c) of each c ∈ e• is
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

use super::keys::{compare_foata, FoataForm, Interner};
use super::{Condition, Prefix, PrefixEvent};
use crate::system::ModelError;
use crate::unfold::cutoff::CutoffMode;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::time::{Duration, Instant};

/// A condition label as the backend sees it: (place or component, value). For tokens of a
/// net the value is 0; for local states of components it is the local state.
pub type Label = (u32, u32);

/// A possible extension found by a backend: an action, its preset (condition ids, sorted)
/// and the labels of the conditions it produces.
#[derive(Clone, Debug)]
pub struct Extension {
    /// The action (transition index for nets).
    pub action: u32,
    /// The preset, sorted.
    pub preset: SmallVec<[u32; 4]>,
    /// Labels of the postset conditions, in the order they are created.
    pub post: SmallVec<[Label; 4]>,
}

/// What the builder knows of the conditions so far, for the backend's searches.
pub struct Conditions<'a> {
    labels: &'a [Label],
    co: &'a [Vec<u32>],
}

impl Conditions<'_> {
    /// The label of condition `c`.
    pub fn label(&self, c: u32) -> Label {
        self.labels[c as usize]
    }

    /// The conditions concurrent with `c` (sorted).
    pub fn co(&self, c: u32) -> &[u32] {
        &self.co[c as usize]
    }

    /// Whether `a` co `b`.
    pub fn concurrent(&self, a: u32, b: u32) -> bool {
        let (x, y) = if self.co[a as usize].len() <= self.co[b as usize].len() {
            (a, b)
        } else {
            (b, a)
        };
        self.co[x as usize].binary_search(&y).is_ok()
    }
}

/// A backend's view of the conditions and events of its unfolding.
pub trait Semantics {
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
#[derive(Clone, Copy, Debug)]
pub struct PrefixOptions {
    /// The adequate order (ERV by default). With [`CutoffMode::None`] nothing is a cutoff:
    /// give a limit unless the model is acyclic.
    pub cutoff: CutoffMode,
    /// Stop (incomplete) when the prefix has this many events.
    pub max_events: Option<u64>,
    /// Stop (incomplete) after this much time.
    pub time_limit: Option<Duration>,
    /// Stop (incomplete) when the builder's own data (co-relation, queue, events) exceeds
    /// this many bytes, approximately.
    pub max_bytes: Option<u64>,
}

impl Default for PrefixOptions {
    fn default() -> Self {
        PrefixOptions {
            cutoff: CutoffMode::Erv,
            max_events: None,
            time_limit: None,
            max_bytes: None,
        }
    }
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
}

const NONE: u32 = u32::MAX;

/// How many extensions are queued between two looks at the time and memory limits.
const QUEUED_PER_LIMIT_CHECK: u32 = 1024;

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
    /// Interned sparse Parikh vector (action, count) of [e], sorted by action; NONE unless
    /// the order is ERV.
    parikh: u32,
    /// Interned Foata normal form of [e]; NONE until a comparison needs it.
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
    start: Instant,
    since_limit_check: u32,
}

/// Compares sparse Parikh vectors as sorted words (the order of [`crate::unfold::cutoff::compare_parikh`]: at the
/// first action where the counts differ, more occurrences is smaller; a proper prefix is
/// smaller).
pub fn compare_sparse(a: &[(u32, u32)], b: &[(u32, u32)]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let ((ta, ka), (tb, kb)) = (a[i], b[j]);
        if ta != tb {
            return ta.cmp(&tb);
        }
        if ka != kb {
            // Past the common copies, the word with more copies of ta goes on with ta; the
            // other goes on with its next action (larger than ta) or ends.
            let (next_a, next_b) = if ka > kb {
                (Some(ta), b.get(j + 1).map(|x| x.0))
            } else {
                (a.get(i + 1).map(|x| x.0), Some(tb))
            };
            return match (next_a, next_b) {
                (Some(x), Some(y)) => x.cmp(&y),
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            };
        }
        i += 1;
        j += 1;
    }
    (a.len() - i).cmp(&(b.len() - j))
}

impl<M: Semantics + ?Sized> Builder<'_, M> {
    fn new_condition(&mut self, label: Label, producer: u32) -> u32 {
        let id = self.labels.len() as u32;
        self.labels.push(label);
        self.producer.push(producer);
        self.co.push(Vec::new());
        self.prefix.conditions.push(Condition {
            label: self.sem.condition_name(label),
            place: label.0,
            producer: (producer != NONE).then_some(producer),
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

    fn enqueue(&mut self, ext: Extension) {
        let erv = self.opts.cutoff == CutoffMode::Erv;
        let mut level = 1;
        let mut producers: SmallVec<[u32; 4]> = SmallVec::new();
        for &c in &ext.preset {
            let p = self.producer[c as usize];
            if p != NONE {
                level = level.max(self.events[p as usize].level + 1);
                if !producers.contains(&p) {
                    producers.push(p);
                }
            }
        }
        let (size, parikh) = match producers.len() {
            0 => (1, Vec::new()),
            1 => {
                let p = &self.events[producers[0] as usize];
                let size = p.size + 1;
                if self.beyond_reach(size) {
                    self.dropped += 1;
                    return;
                }
                let v = if erv {
                    self.parikhs.get(p.parikh).clone()
                } else {
                    Vec::new()
                };
                (size, v)
            }
            _ => {
                let mut size = 1u32;
                // Action counts in a dense scratch array (and the actions seen).
                let mut counts = std::mem::take(&mut self.counts);
                let mut seen: Vec<u32> = Vec::new();
                self.walk(&ext.preset, |x| {
                    size += 1;
                    if erv {
                        let a = x.action as usize;
                        if a >= counts.len() {
                            counts.resize(a + 1, 0);
                        }
                        if counts[a] == 0 {
                            seen.push(x.action);
                        }
                        counts[a] += 1;
                    }
                });
                seen.sort_unstable();
                let v: Vec<(u32, u32)> = seen
                    .iter()
                    .map(|&a| (a, std::mem::take(&mut counts[a as usize])))
                    .collect();
                self.counts = counts;
                if self.beyond_reach(size) {
                    self.dropped += 1;
                    return;
                }
                (size, v)
            }
        };
        if producers.is_empty() && self.beyond_reach(size) {
            self.dropped += 1;
            return;
        }
        let parikh = if erv {
            let mut parikh = parikh;
            match parikh.binary_search_by_key(&ext.action, |x| x.0) {
                Ok(i) => parikh[i].1 += 1,
                Err(i) => parikh.insert(i, (ext.action, 1)),
            }
            self.parikhs.intern(parikh)
        } else {
            NONE
        };
        let cand = Candidate {
            action: ext.action,
            preset: ext.preset,
            post: self.posts.intern(ext.post),
            size,
            level,
            parikh,
            foata: NONE,
            seq: self.seq,
        };
        self.seq += 1;
        let id = match self.free_cands.pop() {
            Some(i) => {
                self.cands[i as usize] = Some(cand);
                i
            }
            None => {
                self.cands.push(Some(cand));
                self.cands.len() as u32 - 1
            }
        };
        if let Some(max) = self.opts.max_events {
            // At most `left` more pops: a candidate with `left` smaller ones queued is never
            // popped (every pop takes one of those, and the limit counts every pop), so it
            // is dropped at once — every candidate not below the bar — or when the queue is
            // cut back to its `left` smallest.
            let left = max.saturating_sub(self.events.len() as u64) as usize;
            if left == 0 || (self.bar != NONE && !self.less(id, self.bar)) {
                self.drop_candidate(id);
                return;
            }
            self.heap.push(id);
            let n = self.heap.len() - 1;
            self.sift_up(n);
            if self.heap.len() > 2 * left + 1024 {
                self.keep_smallest(left);
            }
        } else {
            self.heap.push(id);
            let n = self.heap.len() - 1;
            self.sift_up(n);
        }
    }

    /// Whether a candidate of this size can never be popped under the event limit: no pop
    /// is left, or the bar is smaller (its size is, and ◁ compares sizes first).
    fn beyond_reach(&self, size: u32) -> bool {
        let Some(max) = self.opts.max_events else {
            return false;
        };
        max <= self.events.len() as u64 || (self.bar != NONE && self.cand(self.bar).size < size)
    }

    /// Keeps the `keep` ◁-least queued candidates and drops the others (counted in
    /// `dropped`, so that the number of pending extensions stays exact).
    fn keep_smallest(&mut self, keep: usize) {
        let mut kept = Vec::with_capacity(keep.min(self.heap.len()));
        while kept.len() < keep {
            match self.pop_min() {
                Some(i) => kept.push(i),
                None => break,
            }
        }
        for i in std::mem::take(&mut self.heap) {
            self.drop_candidate(i);
        }
        // The `keep` candidates kept are all ◁ their largest: a candidate queued later that
        // is not ◁ it has `keep` smaller ones and is dropped at once. The bar stays queued
        // until `keep` pops, i.e. until the limit ends the construction.
        if kept.len() == keep {
            self.bar = kept.last().copied().unwrap_or(NONE);
        }
        // Sorted by ◁: a valid heap.
        self.heap = kept;
    }

    /// Frees a queued candidate that will never be popped.
    fn drop_candidate(&mut self, i: u32) {
        let c = self.cands[i as usize]
            .take()
            .expect("[qpor internal bug] dropped candidate missing");
        self.free_cands.push(i);
        self.posts.release(c.post);
        if c.parikh != NONE {
            self.parikhs.release(c.parikh);
        }
        if c.foata != NONE {
            self.foatas.release(c.foata);
        }
        self.dropped += 1;
    }

    fn cand(&self, i: u32) -> &Candidate {
        self.cands[i as usize]
            .as_ref()
            .expect("[qpor internal bug] queued candidate missing")
    }

    /// The interned Foata normal form of a candidate's [e], computed at its first use.
    fn foata_of(&mut self, i: u32) -> u32 {
        let c = self.cand(i);
        if c.foata != NONE {
            return c.foata;
        }
        let preset = c.preset.clone();
        let own = (c.level, c.action);
        // With one producer p, [e] is [p] plus e, alone on the level after [p]'s last.
        let mut producers = preset
            .iter()
            .map(|&b| self.producer[b as usize])
            .filter(|&p| p != NONE);
        let first = producers.next();
        let form = match first {
            Some(p) if producers.all(|q| q == p) => {
                let fp = self.foata_of_event(p);
                self.foatas.get(fp).with_top_level(own.1)
            }
            None => FoataForm::new(&mut [own]),
            Some(_) => {
                let mut events = vec![own];
                self.walk(&preset, |x| events.push((x.level, x.action)));
                FoataForm::new(&mut events)
            }
        };
        let id = self.foatas.intern(form);
        self.cands[i as usize]
            .as_mut()
            .expect("[qpor internal bug] queued candidate missing")
            .foata = id;
        id
    }

    /// The interned Foata normal form of a popped event's [e], computed at its first use.
    fn foata_of_event(&mut self, e: u32) -> u32 {
        let ev = &self.events[e as usize];
        if ev.foata != NONE {
            return ev.foata;
        }
        let preset = ev.preset.clone();
        let mut events = vec![(ev.level, ev.action)];
        self.walk(&preset, |x| events.push((x.level, x.action)));
        let id = self.foatas.intern(FoataForm::new(&mut events));
        self.events[e as usize].foata = id;
        id
    }

    /// The ERV order on keys of equal size: Parikh vectors, then Foata forms (`fa`, `fb`
    /// are computed only when the Parikh vectors are equal).
    fn order_keys(
        &mut self,
        pa: u32,
        pb: u32,
        fa: impl FnOnce(&mut Self) -> u32,
        fb: impl FnOnce(&mut Self) -> u32,
    ) -> Ordering {
        if pa != pb {
            return compare_sparse(self.parikhs.get(pa), self.parikhs.get(pb));
        }
        let (fa, fb) = (fa(self), fb(self));
        if fa == fb {
            Ordering::Equal
        } else {
            compare_foata(self.foatas.get(fa), self.foatas.get(fb))
        }
    }

    /// The adequate order between two candidates, without the discovery tie-break.
    fn order(&mut self, a: u32, b: u32) -> Ordering {
        let (ca, cb) = (self.cand(a), self.cand(b));
        let o = ca.size.cmp(&cb.size);
        if o != Ordering::Equal || self.opts.cutoff != CutoffMode::Erv {
            return o;
        }
        let (pa, pb) = (ca.parikh, cb.parikh);
        self.order_keys(pa, pb, |s| s.foata_of(a), |s| s.foata_of(b))
    }

    fn less(&mut self, a: u32, b: u32) -> bool {
        match self.order(a, b) {
            Ordering::Equal => self.cand(a).seq < self.cand(b).seq,
            o => o == Ordering::Less,
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.less(self.heap[i], self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    fn pop_min(&mut self) -> Option<u32> {
        if self.heap.is_empty() {
            return None;
        }
        let top = self.heap.swap_remove(0);
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.less(self.heap[l], self.heap[m]) {
                m = l;
            }
            if r < n && self.less(self.heap[r], self.heap[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.heap.swap(i, m);
            i = m;
        }
        Some(top)
    }

    /// Mark([e]) − m0 for candidate `i`.
    fn delta_of(&mut self, i: u32) -> Delta {
        let preset = self.cand(i).preset.clone();
        let mut acc: FxHashMap<Label, i32> = FxHashMap::default();
        let labels = std::mem::take(&mut self.labels);
        self.walk(&preset, |x| {
            for &b in &x.preset {
                *acc.entry(labels[b as usize]).or_insert(0) -= 1;
            }
            for &b in &x.postset {
                *acc.entry(labels[b as usize]).or_insert(0) += 1;
            }
        });
        self.labels = labels;
        let c = self.cand(i);
        for &b in &c.preset {
            *acc.entry(self.labels[b as usize]).or_insert(0) -= 1;
        }
        for &l in self.posts.get(c.post) {
            *acc.entry(l).or_insert(0) += 1;
        }
        let mut d: Delta = acc.into_iter().filter(|(_, v)| *v != 0).collect();
        d.sort_unstable();
        d
    }

    /// The cutoff decision for candidate `i` with marking `delta`: `Some(corr)` (NONE for
    /// the empty configuration) when a recorded configuration with that marking is strictly
    /// smaller.
    fn cutoff_of(&mut self, i: u32, delta: &Delta) -> Option<u32> {
        let reps: SmallVec<[u32; 1]> = self.reps.get(delta)?.clone();
        let size = self.cand(i).size;
        for r in reps {
            if r == NONE {
                return Some(NONE);
            }
            let rs = self.events[r as usize].size;
            let smaller = match rs.cmp(&size) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal if self.opts.cutoff == CutoffMode::Erv => {
                    let (pr, pi) = (self.events[r as usize].parikh, self.cand(i).parikh);
                    self.order_keys(pr, pi, |s| s.foata_of_event(r), |s| s.foata_of(i)) == Ordering::Less
                }
                Ordering::Equal => false,
            };
            if smaller {
                return Some(r);
            }
        }
        None
    }

    /// Adds candidate `i` to the prefix; returns its event id and whether it is extended.
    fn pop_into_prefix(&mut self, i: u32) -> (u32, bool) {
        let cutoff = if self.opts.cutoff == CutoffMode::None {
            None
        } else {
            let delta = self.delta_of(i);
            let c = self.cutoff_of(i, &delta);
            if c.is_none() {
                let id = self.events.len() as u32;
                self.reps_bytes += (delta.len() * std::mem::size_of::<(Label, i32)>() + 64) as u64;
                self.reps.entry(delta).or_default().push(id);
            }
            c
        };
        if i == self.bar {
            self.bar = NONE;
        }
        let cand = self.cands[i as usize]
            .take()
            .expect("[qpor internal bug] popped candidate missing");
        self.free_cands.push(i);
        let id = self.events.len() as u32;
        let post = self.posts.get(cand.post).clone();
        self.posts.release(cand.post);
        let blocked = cutoff.is_some() || self.sem.blocked(cand.action, &post);
        let mut postset: SmallVec<[u32; 4]> = SmallVec::new();
        for &l in &post {
            postset.push(self.new_condition(l, id));
        }
        self.prefix.events.push(PrefixEvent {
            label: self.sem.action_name(cand.action),
            action: cand.action,
            preset: cand.preset.to_vec(),
            postset: postset.to_vec(),
            cutoff: cutoff.map(|c| (c != NONE).then_some(c)),
            owner: self.sem.action_owner(cand.action),
        });
        // The event keeps the candidate's holds of its keys.
        self.events.push(Popped {
            action: cand.action,
            preset: cand.preset,
            postset,
            level: cand.level,
            size: cand.size,
            parikh: cand.parikh,
            foata: cand.foata,
            mark: 0,
        });
        (id, !blocked)
    }

    /// The co-relation of e's postset, one condition at a time, each followed by the search
    /// for the extensions it enables. Returns why it stopped early, if the time or memory
    /// limit was reached while it queued extensions (the rest are dropped).
    fn extend(&mut self, e: u32) -> Result<Option<String>, ModelError> {
        let preset = self.events[e as usize].preset.clone();
        let postset = self.events[e as usize].postset.clone();
        // ⋂ co(b) over the preset, shortest list first.
        let mut order: SmallVec<[u32; 4]> = preset.clone();
        order.sort_by_key(|&b| self.co[b as usize].len());
        let mut common: Vec<u32> = match order.first() {
            Some(&b) => self.co[b as usize].clone(),
            None => Vec::new(),
        };
        for &b in order.iter().skip(1) {
            intersect(&mut common, &self.co[b as usize]);
        }
        // A source event (empty preset) touches nothing, so it has no postset either.
        debug_assert!(!preset.is_empty() || postset.is_empty());
        let mut done: SmallVec<[u32; 4]> = SmallVec::new();
        let mut found = Vec::new();
        for &c in &postset {
            if self.is_inert(c) {
                continue;
            }
            let mut co = common.clone();
            co.extend(done.iter().copied());
            co.sort_unstable();
            for &x in &co {
                self.co[x as usize].push(c);
            }
            self.co_entries += 2 * co.len() as u64;
            self.co[c as usize] = co;
            done.push(c);
            found.clear();
            {
                let conds = Conditions {
                    labels: &self.labels,
                    co: &self.co,
                };
                self.sem.extensions(&conds, c, &mut found)?;
            }
            if let Some(why) = self.enqueue_all(&mut found) {
                return Ok(Some(why));
            }
        }
        Ok(None)
    }

    /// Queues the extensions of `found` (emptying it), looking at the time and memory
    /// limits every `QUEUED_PER_LIMIT_CHECK` extensions and at the end; returns why it
    /// stopped, if a limit was reached (the extensions not queued count as dropped).
    fn enqueue_all(&mut self, found: &mut Vec<Extension>) -> Option<String> {
        let mut left = found.len() as u64;
        for ext in found.drain(..) {
            debug_assert!(
                ext.preset.windows(2).all(|w| w[0] < w[1]),
                "[qpor internal bug] extension preset not sorted"
            );
            self.enqueue(ext);
            left -= 1;
            self.since_limit_check += 1;
            if self.since_limit_check >= QUEUED_PER_LIMIT_CHECK {
                self.since_limit_check = 0;
                if let Some(why) = self.limit_reached() {
                    self.dropped += left;
                    return Some(why);
                }
            }
        }
        self.limit_reached()
    }

    /// Why the time or memory limit stops the construction now, if one does.
    fn limit_reached(&self) -> Option<String> {
        if let Some(limit) = self.opts.time_limit {
            if self.start.elapsed() >= limit {
                return Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
            }
        }
        if let Some(max) = self.opts.max_bytes {
            if self.bytes() >= max {
                return Some(format!("memory limit of {} MB reached", max / 1_000_000));
            }
        }
        None
    }

    fn is_inert(&self, c: u32) -> bool {
        self.sem.inert(self.labels[c as usize])
    }

    /// The builder's data: co-relation, queue (candidate slots, heap, interned keys),
    /// events, conditions and recorded markings.
    fn bytes(&self) -> u64 {
        self.co_entries * 4
            + (self.cands.len() * std::mem::size_of::<Option<Candidate>>()) as u64
            + ((self.heap.len() + self.free_cands.len()) * 4) as u64
            + self.parikhs.bytes()
            + self.foatas.bytes()
            + self.posts.bytes()
            + self.reps_bytes
            + (self.events.len() * std::mem::size_of::<Popped>()) as u64
            + (self.labels.len() * (std::mem::size_of::<Label>() + 4 + std::mem::size_of::<Vec<u32>>()))
                as u64
    }
}

/// Keeps in `a` the elements also in `b` (both sorted): a merge when the lengths are
/// close, binary searches in `b` when `a` is much shorter.
fn intersect(a: &mut Vec<u32>, b: &[u32]) {
    if a.len() * 16 < b.len() {
        a.retain(|x| b.binary_search(x).is_ok());
        return;
    }
    let mut j = 0;
    a.retain(|&x| {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        j < b.len() && b[j] == x
    });
}

/// Builds the complete finite prefix of the unfolding `sem` describes.
pub fn build<M: Semantics + ?Sized>(
    sem: &mut M,
    opts: &PrefixOptions,
    backend: &'static str,
) -> Result<PrefixOutcome, ModelError> {
    let start = Instant::now();
    let mut b = Builder {
        start,
        sem,
        opts: *opts,
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
        since_limit_check: 0,
    };
    if opts.cutoff != CutoffMode::None {
        b.reps.entry(Vec::new()).or_default().push(NONE);
    }
    // The initial cut is a co-set: every pair of initial conditions is concurrent.
    let initial = b.sem.initial();
    let mut stopped = None;
    let mut found = Vec::new();
    let mut live: Vec<u32> = Vec::new();
    for l in initial {
        let c = b.new_condition(l, NONE);
        if b.is_inert(c) {
            continue;
        }
        for &x in &live {
            b.co[x as usize].push(c);
        }
        b.co[c as usize] = live.clone();
        b.co_entries += 2 * live.len() as u64;
        live.push(c);
        found.clear();
        {
            let conds = Conditions {
                labels: &b.labels,
                co: &b.co,
            };
            b.sem.extensions(&conds, c, &mut found)?;
        }
        stopped = b.enqueue_all(&mut found);
        if stopped.is_some() {
            break;
        }
    }
    if stopped.is_none() {
        b.sem.source_extensions(&mut found)?;
        stopped = b.enqueue_all(&mut found);
    }
    while stopped.is_none() {
        if let Some(max) = opts.max_events {
            // Extensions dropped past the limit's reach are pending as well.
            if b.events.len() as u64 >= max && (!b.heap.is_empty() || b.dropped > 0) {
                stopped = Some(format!("event limit of {max} reached"));
                break;
            }
        }
        // Checked at every pop too: the queue may have grown without an extension.
        stopped = b.limit_reached();
        if stopped.is_some() {
            break;
        }
        let Some(i) = b.pop_min() else {
            break;
        };
        let (e, extend) = b.pop_into_prefix(i);
        if extend {
            stopped = b.extend(e)?;
        }
    }
    let stats = PrefixStats {
        events: b.prefix.events.len() as u64,
        conditions: b.prefix.conditions.len() as u64,
        cutoffs: b.prefix.cutoffs() as u64,
        pending: b.heap.len() as u64 + b.dropped,
        co_entries: b.co_entries,
        seconds: start.elapsed().as_secs_f64(),
        bytes: b.bytes(),
        peak_rss_bytes: crate::check::peak_rss_bytes(),
    };
    Ok(PrefixOutcome {
        prefix: b.prefix,
        stats,
        stopped,
        backend,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::ActionId;
    use crate::unfold::cutoff::compare_parikh;

    fn dense(v: &[(u32, u32)]) -> Vec<ActionId> {
        v.iter()
            .flat_map(|&(t, k)| std::iter::repeat_n(ActionId(t), k as usize))
            .collect()
    }

    #[test]
    fn sparse_parikh_order_is_the_sorted_word_order() {
        let vs: Vec<Vec<(u32, u32)>> = vec![
            vec![],
            vec![(0, 1)],
            vec![(0, 2)],
            vec![(0, 1), (1, 1)],
            vec![(1, 2)],
            vec![(0, 1), (2, 1)],
            vec![(1, 1), (2, 1)],
            vec![(0, 3)],
            vec![(2, 1)],
        ];
        for a in &vs {
            for b in &vs {
                assert_eq!(
                    compare_sparse(a, b),
                    compare_parikh(&dense(a), &dense(b)),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }
}
