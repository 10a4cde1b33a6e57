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

use super::{Condition, Prefix, PrefixEvent};
use crate::system::{ActionId, ModelError};
use crate::unfold::cutoff::{compare_erv, CutoffMode, HistoryShape};
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

struct Candidate {
    ext: Extension,
    size: u32,
    level: u32,
    /// Sparse Parikh vector (action, count), sorted by action.
    parikh: Vec<(u32, u32)>,
    seq: u64,
}

struct Popped {
    action: u32,
    preset: SmallVec<[u32; 4]>,
    postset: SmallVec<[u32; 4]>,
    level: u32,
    size: u32,
    parikh: Vec<(u32, u32)>,
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
    generation: u32,
    co_entries: u64,
    cand_bytes: u64,
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
        let (size, mut parikh) = match producers.len() {
            0 => (1, Vec::new()),
            1 => {
                let p = &self.events[producers[0] as usize];
                (p.size + 1, if erv { p.parikh.clone() } else { Vec::new() })
            }
            _ => {
                let mut size = 1u32;
                let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
                let preset = ext.preset.clone();
                self.walk(&preset, |x| {
                    size += 1;
                    if erv {
                        *counts.entry(x.action).or_insert(0) += 1;
                    }
                });
                let mut v: Vec<(u32, u32)> = counts.into_iter().collect();
                v.sort_unstable();
                (size, v)
            }
        };
        if erv {
            match parikh.binary_search_by_key(&ext.action, |x| x.0) {
                Ok(i) => parikh[i].1 += 1,
                Err(i) => parikh.insert(i, (ext.action, 1)),
            }
        }
        self.cand_bytes += (std::mem::size_of::<Candidate>() + parikh.len() * 8) as u64;
        let cand = Candidate {
            ext,
            size,
            level,
            parikh,
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
        self.heap.push(id);
        let n = self.heap.len() - 1;
        self.sift_up(n);
    }

    fn cand(&self, i: u32) -> &Candidate {
        self.cands[i as usize]
            .as_ref()
            .expect("[qpor internal bug] queued candidate missing")
    }

    /// The ERV shape (Foata level and action of every event) of a candidate's [e].
    fn shape_of(&mut self, i: u32) -> HistoryShape {
        let preset = self.cand(i).ext.preset.clone();
        let mut shape = HistoryShape::default();
        self.walk(&preset, |x| shape.events.push((x.level, ActionId(x.action))));
        let c = self.cand(i);
        shape.events.push((c.level, ActionId(c.ext.action)));
        shape
    }

    /// The ERV shape of a popped event's [e].
    fn shape_of_event(&mut self, e: u32) -> HistoryShape {
        let preset = self.events[e as usize].preset.clone();
        let mut shape = HistoryShape::default();
        self.walk(&preset, |x| shape.events.push((x.level, ActionId(x.action))));
        let ev = &self.events[e as usize];
        shape.events.push((ev.level, ActionId(ev.action)));
        shape
    }

    /// The adequate order between two candidates, without the discovery tie-break.
    fn order(&mut self, a: u32, b: u32) -> Ordering {
        let (ca, cb) = (self.cand(a), self.cand(b));
        let o = ca.size.cmp(&cb.size);
        if o != Ordering::Equal || self.opts.cutoff != CutoffMode::Erv {
            return o;
        }
        let o = compare_sparse(&ca.parikh, &cb.parikh);
        if o != Ordering::Equal {
            return o;
        }
        let (sa, sb) = (self.shape_of(a), self.shape_of(b));
        compare_erv(&sa, &sb)
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
        let preset = self.cand(i).ext.preset.clone();
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
        for &b in &c.ext.preset {
            *acc.entry(self.labels[b as usize]).or_insert(0) -= 1;
        }
        for &l in &c.ext.post {
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
                    match compare_sparse(&self.events[r as usize].parikh, &self.cand(i).parikh) {
                        Ordering::Less => true,
                        Ordering::Greater => false,
                        Ordering::Equal => {
                            let sr = self.shape_of_event(r);
                            let si = self.shape_of(i);
                            compare_erv(&sr, &si) == Ordering::Less
                        }
                    }
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
                self.reps.entry(delta).or_default().push(id);
            }
            c
        };
        let cand = self.cands[i as usize]
            .take()
            .expect("[qpor internal bug] popped candidate missing");
        self.free_cands.push(i);
        self.cand_bytes = self
            .cand_bytes
            .saturating_sub((std::mem::size_of::<Candidate>() + cand.parikh.len() * 8) as u64);
        let id = self.events.len() as u32;
        let blocked = cutoff.is_some() || self.sem.blocked(cand.ext.action, &cand.ext.post);
        let mut postset: SmallVec<[u32; 4]> = SmallVec::new();
        for &l in &cand.ext.post {
            postset.push(self.new_condition(l, id));
        }
        self.prefix.events.push(PrefixEvent {
            label: self.sem.action_name(cand.ext.action),
            action: cand.ext.action,
            preset: cand.ext.preset.to_vec(),
            postset: postset.to_vec(),
            cutoff: cutoff.map(|c| (c != NONE).then_some(c)),
            owner: self.sem.action_owner(cand.ext.action),
        });
        self.events.push(Popped {
            action: cand.ext.action,
            preset: cand.ext.preset,
            postset,
            level: cand.level,
            size: cand.size,
            parikh: cand.parikh,
            mark: 0,
        });
        (id, !blocked)
    }

    /// The co-relation of e's postset, one condition at a time, each followed by the search
    /// for the extensions it enables.
    fn extend(&mut self, e: u32) -> Result<(), ModelError> {
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
            for ext in found.drain(..) {
                debug_assert!(
                    ext.preset.windows(2).all(|w| w[0] < w[1]),
                    "[qpor internal bug] extension preset not sorted"
                );
                self.enqueue(ext);
            }
        }
        Ok(())
    }

    fn is_inert(&self, c: u32) -> bool {
        self.sem.inert(self.labels[c as usize])
    }

    fn bytes(&self) -> u64 {
        self.co_entries * 4
            + self.cand_bytes
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
        generation: 0,
        co_entries: 0,
        cand_bytes: 0,
    };
    if opts.cutoff != CutoffMode::None {
        b.reps.entry(Vec::new()).or_default().push(NONE);
    }
    // The initial cut is a co-set: every pair of initial conditions is concurrent.
    let initial = b.sem.initial();
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
        for ext in found.drain(..) {
            b.enqueue(ext);
        }
    }
    b.sem.source_extensions(&mut found)?;
    for ext in found.drain(..) {
        b.enqueue(ext);
    }
    let mut stopped = None;
    loop {
        if let Some(max) = opts.max_events {
            if b.events.len() as u64 >= max && !b.heap.is_empty() {
                stopped = Some(format!("event limit of {max} reached"));
                break;
            }
        }
        // Checked at every pop: one pop of a non-safe net may queue many extensions.
        {
            if let Some(limit) = opts.time_limit {
                if start.elapsed() >= limit {
                    stopped = Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
                    break;
                }
            }
            if let Some(max) = opts.max_bytes {
                if b.bytes() >= max {
                    stopped = Some(format!("memory limit of {} MB reached", max / 1_000_000));
                    break;
                }
            }
        }
        let Some(i) = b.pop_min() else {
            break;
        };
        let (e, extend) = b.pop_into_prefix(i);
        if extend {
            b.extend(e)?;
        }
    }
    let stats = PrefixStats {
        events: b.prefix.events.len() as u64,
        conditions: b.prefix.conditions.len() as u64,
        cutoffs: b.prefix.cutoffs() as u64,
        pending: b.heap.len() as u64,
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
