//! The program-like unfolding of a component system: the paper's U_{P,◇} (DESIGN.md §1;
//! paper.md §1.4, §4.3–4.5; dpu.md §2–3).
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
//!   another chosen component — the nested-lock pitfall of paper.md §4.5) and by each
//!   component's local state. Positions at the top of a chain are included, so blocked
//!   requests get their conflicting extensions too (the gap of Dpu noted in dpu.md §3.2).
//! - Compatibility of e with C (the filter of Alt's spikes) is decided from e's own
//!   predecessors when they tell (a predecessor in C that is not C's maximum there means a
//!   conflict; all of them maxima means e is enabled), else by comparing summaries; the
//!   answer is remembered per event with its reason (an event of C it conflicts with; or
//!   "compatible, and nothing pushed since"), which stays true while the reason does.
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
//!   only through `set_next_sibling` / `set_next_same`); `compat_memo` is forgotten at
//!   every prune, the only place ids are freed.

pub mod summary;

use super::cutoff::{compare_erv, CutoffMode, HistoryShape};
use super::{EventId, UnfoldError, UnfoldStats, Unfolding};
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use hashbrown::HashTable;
use smallvec::SmallVec;
use std::cell::Cell;
use std::cmp::Ordering;
use std::hash::{BuildHasher, Hasher};
use summary::{LeafWeight, Summary, Tries};

const NONE: EventId = EventId::NONE;

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
    /// After its head, a run is sorted by [`run_key`], deepest first.
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
    mark: u32,
}

const NOT_IN_CONFIG: u32 = u32::MAX;

/// How many of an event's nodes have their sibling links mirrored in [`SiblingLinks`].
const HOT_NODES: usize = 3;

/// The part of an event's tree links that the immediate-conflict walk reads, kept in a
/// dense array beside the events so that the walk touches one small record per sibling:
/// the action, and mirrors of `next_sibling` / `next_same` / [`run_key`] of the event's
/// first [`HOT_NODES`] nodes (a walk on a later node reads the nodes themselves).
#[derive(Clone, Copy, Debug)]
struct SiblingLinks {
    action: ActionId,
    comps: [CompId; HOT_NODES],
    next_sibling: [EventId; HOT_NODES],
    next_same: [EventId; HOT_NODES],
    run_key: [u32; HOT_NODES],
}

/// The key that orders the runs an event's `k`-th node belongs to: the event's depth on
/// its first *other* component (`nodes[0]`, or `nodes[1]` for k = 0), which all events of
/// a run touch since they share the action; `u32::MAX` for an event of one component.
///
/// Why: a run member x whose key is at most depth(max(C)) on that component has its
/// predecessor there strictly above C's maximum — in C but not its maximum, or off C's
/// chain — so C ∪ \[x\] is not a configuration. Sorted deepest first, the rest of a run is
/// incompatible with C from the first such member on, and Alt's spike filter stops there.
fn run_key(nodes: &[Node], k: usize) -> u32 {
    match nodes.len() {
        1 => u32::MAX,
        _ => nodes[(k == 0) as usize].depth,
    }
}

/// What [`Unfolding::compatible`] last found out about an event: an event of C it
/// conflicts with (the answer stays "no" while that event is in C), or the number of
/// pushes + 1 at a time it was compatible (the answer stays "yes" while C only shrinks).
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

/// What an event's own nodes say about its compatibility with C.
enum NodesVerdict {
    /// Every predecessor is max_k(C): the event is enabled at C.
    Compatible,
    /// The event conflicts with this event of C.
    ConflictsWith(EventId),
    /// Some predecessor lies outside C: the summaries must be compared.
    Unknown,
}

impl Event {
    fn node(&self, c: CompId) -> Option<&Node> {
        self.nodes
            .binary_search_by_key(&c, |n| n.comp)
            .ok()
            .map(|i| &self.nodes[i])
    }

    fn node_index(&self, c: CompId) -> Option<usize> {
        self.nodes.binary_search_by_key(&c, |n| n.comp).ok()
    }
}

/// Options of the program-like unfolding.
#[derive(Clone, Copy, Debug)]
pub struct ProgramOptions {
    /// The adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// Stop with [`UnfoldError::EventLimit`] after creating this many events.
    pub max_events: Option<u64>,
}

impl Default for ProgramOptions {
    fn default() -> Self {
        ProgramOptions {
            cutoff: CutoffMode::Erv,
            max_events: None,
        }
    }
}

/// A representative of a state in the cutoff table.
#[derive(Clone, Copy, Debug)]
struct Representative {
    hash: u64,
    /// The event, or NONE for the empty configuration.
    event: EventId,
}

/// The memory of the history summaries of the live events (for measurements): the shared
/// tries qpor keeps, against a dense array per event (4 bytes per component) and a sparse
/// sorted list per event (8 bytes per component its history touches), which copy a
/// history per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummaryFootprint {
    /// Live events.
    pub events: u64,
    /// Components of the system.
    pub components: u64,
    /// Bytes of the live trie nodes.
    pub trie_bytes: u64,
    /// Entries (component, maximum) over all live events' summaries.
    pub entries: u64,
}

impl SummaryFootprint {
    /// Trie bytes per live event.
    pub fn trie_bytes_per_event(&self) -> f64 {
        self.trie_bytes as f64 / self.events.max(1) as f64
    }

    /// Bytes per event of sparse sorted copies (a u32 component and a u32 event each).
    pub fn sparse_bytes_per_event(&self) -> f64 {
        8.0 * self.entries as f64 / self.events.max(1) as f64
    }

    /// Bytes per event of dense copies (a u32 event per component).
    pub fn dense_bytes_per_event(&self) -> f64 {
        4.0 * self.components as f64
    }
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
    /// Per event id: what the last compatibility test found (ids are reused only after a
    /// prune, which forgets everything).
    compat_memo: Vec<Cell<CompatMemo>>,
    /// Per event id: its sibling links for the immediate-conflict walk.
    links: Vec<SiblingLinks>,
    /// Pushes so far.
    pushes: u64,
    config_summaries: Vec<Summary>,
    maxima: Vec<EventId>,
    state: Vec<Local>,
    // Cutoffs.
    reps: HashTable<Representative>,
    generation: u32,
    stats: UnfoldStats,
    // Scratch buffers.
    steps: Vec<Step>,
}

fn mix(x: u64) -> u64 {
    // splitmix64's finaliser: a fixed, well-spread hash of a 64-bit key.
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn local_hash(c: CompId, l: Local) -> u64 {
    mix(((c.0 as u64) << 32) | l.0 as u64)
}

fn key_hash(action: ActionId, preds: &[EventId]) -> u64 {
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write_u32(action.0);
    for p in preds {
        h.write_u32(p.0);
    }
    h.finish()
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
            compat_memo: Vec::new(),
            links: Vec::new(),
            pushes: 0,
            config_summaries: vec![Summary::EMPTY],
            maxima: vec![NONE; n],
            reps: HashTable::new(),
            generation: 0,
            stats: UnfoldStats::default(),
            steps: Vec::new(),
        };
        if opts.cutoff != CutoffMode::None {
            u.reps
                .insert_unique(0, Representative { hash: 0, event: NONE }, |r| r.hash);
        }
        u
    }

    /// The system being unfolded.
    pub fn system(&self) -> &'s S {
        self.sys
    }

    fn ev(&self, e: EventId) -> &Event {
        &self.events[e.index()]
    }

    fn node(&self, e: EventId, c: CompId) -> &Node {
        self.events[e.index()]
            .node(c)
            .expect("[qpor internal bug] event has no node on the component asked for")
    }

    fn depth_on(&self, e: EventId, c: CompId) -> i64 {
        if e.is_none() {
            -1
        } else {
            self.node(e, c).depth as i64
        }
    }

    fn post_on(&self, e: EventId, c: CompId) -> Local {
        if e.is_none() {
            self.initial[c.index()]
        } else {
            self.node(e, c).post
        }
    }

    /// max_c(\[e\]), NONE if \[e\] has no event on c.
    fn max_in_history(&self, e: EventId, c: CompId) -> EventId {
        if e.is_none() {
            return NONE;
        }
        match self.tries.get(self.ev(e).summary, c) {
            Some(x) => EventId(x),
            None => NONE,
        }
    }

    /// The ancestor-or-self of `x` at depth `d` in c's tree (d ≤ depth of x).
    fn ancestor_at(&self, mut x: EventId, c: CompId, d: u32) -> EventId {
        loop {
            let n = self.node(x, c);
            if n.depth == d {
                return x;
            }
            if !n.jump.is_none() && self.node(n.jump, c).depth >= d {
                x = n.jump;
            } else {
                x = n.pred;
            }
        }
    }

    /// Whether `x` is an ancestor-or-self of `y` in c's tree (⊥ is everyone's ancestor).
    fn is_ancestor(&self, x: EventId, y: EventId, c: CompId) -> bool {
        if x.is_none() {
            return true;
        }
        if y.is_none() {
            return false;
        }
        let dx = self.node(x, c).depth;
        let dy = self.node(y, c).depth;
        dx <= dy && self.ancestor_at(y, c, dx) == x
    }

    /// Whether C ∪ \[e\] is a configuration, for e ∉ C, when e's own nodes tell: on a
    /// component k of e, C's k-events are one root path; if e's predecessor on k is ⊥ or
    /// in C but is not max_k(C), C goes on from it through another child, which conflicts
    /// with e (and so does max_k(C), its witness); if every predecessor is max_k(C), e is
    /// enabled at C.
    fn compatible_by_nodes(&self, e: EventId) -> NodesVerdict {
        let mut outside = false;
        for n in &self.ev(e).nodes {
            let m = self.maxima[n.comp.index()];
            if n.pred == m {
                continue;
            }
            if n.pred.is_none() || self.config_pos(n.pred) != NOT_IN_CONFIG {
                return NodesVerdict::ConflictsWith(m);
            }
            outside = true;
        }
        if outside {
            NodesVerdict::Unknown
        } else {
            NodesVerdict::Compatible
        }
    }

    /// Position of `e` in C's push order, or `NOT_IN_CONFIG`.
    fn config_pos(&self, e: EventId) -> u32 {
        self.config_index[e.index()]
    }

    fn comparable(&self, x: EventId, y: EventId, c: CompId) -> bool {
        self.is_ancestor(x, y, c) || self.is_ancestor(y, x, c)
    }

    fn weight(events: &[Event], initial: &[Local], c: CompId, e: u32) -> LeafWeight {
        let n = events[e as usize]
            .node(c)
            .expect("[qpor internal bug] summary leaf without node");
        LeafWeight {
            hash: local_hash(c, n.post).wrapping_sub(local_hash(c, initial[c.index()])),
            size: n.home_count as u64,
        }
    }

    /// Looks up the event of `action` with predecessors `preds` (parallel to
    /// `step.touched`).
    fn find(&self, action: ActionId, preds: &[EventId]) -> Option<EventId> {
        let h = key_hash(action, preds);
        self.table
            .find(h, |&id| {
                let e = &self.events[id.index()];
                e.action == action
                    && e.nodes.len() == preds.len()
                    && e.nodes.iter().zip(preds).all(|(n, p)| n.pred == *p)
            })
            .copied()
    }

    /// The event of `step` with predecessors `preds` (parallel to `step.touched`),
    /// created if needed. `Ok(None)` when the step is not enabled at those predecessors'
    /// local states. The predecessors must form a consistent history.
    pub fn event(&mut self, step: &Step, preds: &[EventId]) -> Result<Option<EventId>, UnfoldError> {
        debug_assert_eq!(step.touched.len(), preds.len());
        if let Some(e) = self.find(step.action, preds) {
            return Ok(Some(e));
        }
        let before: SmallVec<[Local; 8]> = step
            .touched
            .iter()
            .zip(preds)
            .map(|(c, p)| self.post_on(*p, *c))
            .collect();
        let mut after: SmallVec<[Local; 8]> = SmallVec::from_elem(Local(0), before.len());
        if !self.sys.fire(step, &before, &mut after)? {
            return Ok(None);
        }
        if let Some(max) = self.opts.max_events {
            if self.stats.events_created >= max {
                return Err(UnfoldError::EventLimit(max));
            }
        }
        Ok(Some(self.create(step, preds, &after)))
    }

    fn create(&mut self, step: &Step, preds: &[EventId], after: &[Local]) -> EventId {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.events.push(Event {
                    action: step.action,
                    nodes: SmallVec::new(),
                    summary: Summary::EMPTY,
                    size: 0,
                    level: 0,
                    state_hash: 0,
                    alive: false,
                    cutoff: false,
                    fault: false,
                    pinned: false,
                    mark: 0,
                });
                self.config_index.push(NOT_IN_CONFIG);
                self.compat_memo.push(Cell::new(CompatMemo::UNKNOWN));
                self.links.push(SiblingLinks {
                    action: step.action,
                    comps: [CompId(u32::MAX); HOT_NODES],
                    next_sibling: [NONE; HOT_NODES],
                    next_same: [NONE; HOT_NODES],
                    run_key: [u32::MAX; HOT_NODES],
                });
                EventId(self.events.len() as u32 - 1)
            }
        };
        self.compat_memo[id.index()].set(CompatMemo::UNKNOWN);
        let home = step.touched[0];
        let mut nodes: SmallVec<[Node; 3]> = SmallVec::with_capacity(preds.len());
        let mut level = 1;
        for (i, (&c, &p)) in step.touched.iter().zip(preds).enumerate() {
            let (depth, jump, home_count) = if p.is_none() {
                (0, NONE, (c == home) as u32)
            } else {
                let pn = self.node(p, c);
                level = level.max(self.ev(p).level + 1);
                // Myers' jump pointers: jump(x) = jump(jump(p)) when the two jumps below p
                // have equal length, else p. Level-ancestor queries are then O(log depth).
                let j = if !pn.jump.is_none() {
                    let jn = self.node(pn.jump, c);
                    let jj_depth = if jn.jump.is_none() {
                        -1
                    } else {
                        self.node(jn.jump, c).depth as i64
                    };
                    if pn.depth as i64 - jn.depth as i64 == jn.depth as i64 - jj_depth && !jn.jump.is_none() {
                        jn.jump
                    } else {
                        p
                    }
                } else {
                    p
                };
                (pn.depth + 1, j, pn.home_count + (c == home) as u32)
            };
            nodes.push(Node {
                comp: c,
                pred: p,
                depth,
                jump,
                first_child: NONE,
                next_sibling: NONE,
                prev_sibling: NONE,
                next_same: NONE,
                prev_same: NONE,
                post: after[i],
                home_count,
            });
        }
        // Places in the trees: at the head of the child list, or in the run of the action,
        // after its head, in key order.
        for k in 0..nodes.len() {
            let (c, p) = (nodes[k].comp, nodes[k].pred);
            let head = if p.is_none() {
                self.roots[c.index()]
            } else {
                self.node(p, c).first_child
            };
            // The head of the run of this action among the siblings, if there is one.
            let mut run = head;
            while !run.is_none() && self.ev(run).action != step.action {
                run = self.node(run, c).next_sibling;
            }
            if run.is_none() {
                nodes[k].next_sibling = head;
                continue;
            }
            let key = run_key(&nodes, k);
            let mut prev = run;
            let mut next = self.sibling_links(run, c).2;
            while !next.is_none() && self.run_key_on(next, c) > key {
                prev = next;
                next = self.sibling_links(next, c).2;
            }
            nodes[k].prev_same = prev;
            nodes[k].next_same = next;
        }
        // Link into the parents' child lists (or the roots), or into the run of the action.
        for n in &nodes {
            if !n.prev_same.is_none() {
                let k = self.events[n.prev_same.index()].node_index(n.comp).unwrap();
                self.set_next_same(n.prev_same, k, id);
                if !n.next_same.is_none() {
                    let k = self.events[n.next_same.index()].node_index(n.comp).unwrap();
                    self.events[n.next_same.index()].nodes[k].prev_same = id;
                }
                continue;
            }
            if !n.next_sibling.is_none() {
                let k = self.events[n.next_sibling.index()].node_index(n.comp).unwrap();
                self.events[n.next_sibling.index()].nodes[k].prev_sibling = id;
            }
            if n.pred.is_none() {
                self.roots[n.comp.index()] = id;
            } else {
                let k = self.events[n.pred.index()].node_index(n.comp).unwrap();
                self.events[n.pred.index()].nodes[k].first_child = id;
            }
        }
        {
            let l = &mut self.links[id.index()];
            l.action = step.action;
            l.comps = [CompId(u32::MAX); HOT_NODES];
            for (k, n) in nodes.iter().take(HOT_NODES).enumerate() {
                l.comps[k] = n.comp;
                l.next_sibling[k] = n.next_sibling;
                l.next_same[k] = n.next_same;
                l.run_key[k] = run_key(&nodes, k);
            }
            let e = &mut self.events[id.index()];
            e.action = step.action;
            e.nodes = nodes;
            e.level = level;
            e.alive = true;
            e.cutoff = false;
            e.fault = false;
            e.pinned = false;
        }
        // The summary: the predecessors' summaries merged (keeping the deeper event per
        // component; they are comparable because the history is consistent), then e
        // itself on its components.
        let mut root = Summary::EMPTY;
        {
            let events = &self.events;
            let initial = &self.initial;
            let weight = |c: CompId, e: u32| Self::weight(events, initial, c, e);
            let pick = |c: CompId, x: u32, y: u32| {
                let dx = events[x as usize].node(c).map(|n| n.depth).unwrap_or(0);
                let dy = events[y as usize].node(c).map(|n| n.depth).unwrap_or(0);
                if dx >= dy {
                    x
                } else {
                    y
                }
            };
            for &p in preds {
                if p.is_none() {
                    continue;
                }
                let ps = events[p.index()].summary;
                let merged = self.tries.merge(root, ps, &pick, &weight);
                self.tries.retain(merged);
                self.tries.release(root);
                root = merged;
            }
            let entries: SmallVec<[(CompId, u32); 8]> = step.touched.iter().map(|&c| (c, id.0)).collect();
            let with_e = self.tries.set_all(root, &entries, &weight);
            self.tries.retain(with_e);
            self.tries.release(root);
            root = with_e;
        }
        let size = self.tries.size(root) as u32;
        let hash = self.tries.hash(root);
        {
            let e = &mut self.events[id.index()];
            e.summary = root;
            e.size = size;
            e.state_hash = hash;
        }
        self.stats.events_created += 1;
        self.stats.events_alive += 1;
        self.stats.events_alive_peak = self.stats.events_alive_peak.max(self.stats.events_alive);
        let h = key_hash(step.action, preds);
        let events = &self.events;
        self.table.insert_unique(h, id, |&x| {
            let e = &events[x.index()];
            let preds: SmallVec<[EventId; 8]> = e.nodes.iter().map(|n| n.pred).collect();
            key_hash(e.action, &preds)
        });
        let fault = step
            .touched
            .iter()
            .zip(after)
            .any(|(c, l)| self.sys.fault(*c, *l).is_some());
        self.events[id.index()].fault = fault;
        if self.opts.cutoff != CutoffMode::None && !fault {
            self.decide_cutoff(id);
        }
        id
    }

    /// Whether `e` must not be extended (a cutoff or a fault).
    fn blocked(&self, e: EventId) -> bool {
        let ev = self.ev(e);
        ev.cutoff || ev.fault
    }

    /// Whether state(\[a\]) = state(\[b\]) (NONE is the empty configuration).
    fn same_state(&self, a: EventId, b: EventId) -> bool {
        let sa = if a.is_none() {
            Summary::EMPTY
        } else {
            self.ev(a).summary
        };
        let sb = if b.is_none() {
            Summary::EMPTY
        } else {
            self.ev(b).summary
        };
        !self.tries.diff(sa, sb, &mut |c, x, y| {
            let lx = x
                .map(|x| self.node(EventId(x), c).post)
                .unwrap_or(self.initial[c.index()]);
            let ly = y
                .map(|y| self.node(EventId(y), c).post)
                .unwrap_or(self.initial[c.index()]);
            lx != ly
        })
    }

    /// The ERV shape of \[e\]: every event's Foata level and action.
    fn shape(&mut self, e: EventId) -> HistoryShape {
        let mut shape = HistoryShape::default();
        if e.is_none() {
            return shape;
        }
        self.walk_history(e, |u, x| {
            shape.events.push((u.ev(x).level, u.ev(x).action));
        });
        shape
    }

    /// Calls `f` on every event of \[e\] (in no particular order), with an explicit stack.
    fn walk_history(&mut self, e: EventId, mut f: impl FnMut(&Self, EventId)) {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let mut stack = vec![e];
        self.events[e.index()].mark = g;
        while let Some(x) = stack.pop() {
            f(self, x);
            for i in 0..self.events[x.index()].nodes.len() {
                let p = self.events[x.index()].nodes[i].pred;
                if !p.is_none() && self.events[p.index()].mark != g {
                    self.events[p.index()].mark = g;
                    stack.push(p);
                }
            }
        }
    }

    /// `Less` when \[a\] ◁ \[b\] in the configured order.
    fn order(&mut self, a: EventId, b: EventId) -> Ordering {
        let sa = if a.is_none() { 0 } else { self.ev(a).size };
        let sb = if b.is_none() { 0 } else { self.ev(b).size };
        match sa.cmp(&sb) {
            Ordering::Equal if self.opts.cutoff == CutoffMode::Erv => {
                let x = self.shape(a);
                let y = self.shape(b);
                compare_erv(&x, &y)
            }
            o => o,
        }
    }

    fn decide_cutoff(&mut self, e: EventId) {
        let hash = self.ev(e).state_hash;
        let mut found = None;
        let candidates: SmallVec<[Representative; 4]> = self
            .reps
            .iter_hash(hash)
            .filter(|r| r.hash == hash)
            .copied()
            .collect();
        for r in candidates {
            if self.same_state(r.event, e) {
                found = Some(r);
                break;
            }
        }
        match found {
            Some(r) => {
                if self.order(r.event, e) == Ordering::Less {
                    self.events[e.index()].cutoff = true;
                    self.stats.cutoff_events += 1;
                } else if self.order(e, r.event) == Ordering::Less {
                    // e is a better representative of this state.
                    if let Ok(entry) = self.reps.find_entry(hash, |x| x.event == r.event) {
                        entry.remove();
                    }
                    if !r.event.is_none() {
                        self.events[r.event.index()].pinned = false;
                    }
                    self.add_rep(e, hash);
                }
            }
            None => self.add_rep(e, hash),
        }
    }

    fn add_rep(&mut self, e: EventId, hash: u64) {
        self.events[e.index()].pinned = self.opts.cutoff == CutoffMode::Erv;
        self.reps
            .insert_unique(hash, Representative { hash, event: e }, |r| r.hash);
    }

    /// The events of C's chain on `c`, from the top down to the root.
    fn chain(&self, c: CompId, out: &mut Vec<EventId>) {
        out.clear();
        let mut x = self.maxima[c.index()];
        while !x.is_none() {
            out.push(x);
            x = self.node(x, c).pred;
        }
    }

    /// Searches predecessors for the unassigned components of `step` (`assign[j]` is
    /// `None` until chosen; `Some(NONE)` is ⊥) along C's chains, and creates every
    /// consistent, enabled event found. `order` lists the component indices to assign;
    /// `chains[c]` is C's chain on component c, from the top down.
    /// Only combinations with a predecessor at position `new_from` or later in C are
    /// wanted (the others were found at an earlier leaf); `have_new` says whether the
    /// choices so far include one.
    #[allow(clippy::too_many_arguments)]
    fn search_preds(
        &mut self,
        step: &Step,
        assign: &mut [Option<EventId>],
        order: &[usize],
        chains: &[Vec<EventId>],
        new_from: u32,
        have_new: bool,
        found: &mut usize,
    ) -> Result<(), UnfoldError> {
        let Some((&at, rest)) = order.split_first() else {
            if !have_new {
                return Ok(());
            }
            let preds: SmallVec<[EventId; 8]> = assign.iter().map(|p| p.unwrap_or(NONE)).collect();
            if let Some(e) = self.event(step, &preds)? {
                if self.config_pos(e) == NOT_IN_CONFIG {
                    *found += 1;
                }
            }
            return Ok(());
        };
        let c = step.touched[at];
        let chain = &chains[c.index()];
        // The chosen predecessors' histories must not hold a later c-event than ours.
        let mut low: i64 = -1;
        for &p in assign.iter().flatten() {
            if !p.is_none() {
                low = low.max(self.depth_on(self.max_in_history(p, c), c));
            }
        }
        let must_be_new = rest.is_empty() && !have_new;
        // Nor may z's history hold later events on the components already chosen. Down
        // the chain histories shrink, so the consistent candidates are a suffix of it:
        // a binary search skips the rest, which on a long configuration is most of the
        // chain (a lock request far down a thread would otherwise test every later
        // access of its mutex, quadratic in the length of C).
        let first = chain.partition_point(|&z| !self.consistent_with(z, step, assign));
        let mut candidates: SmallVec<[EventId; 16]> = SmallVec::new();
        for &x in &chain[first..] {
            if (self.node(x, c).depth as i64) < low || (must_be_new && self.config_pos(x) < new_from) {
                break;
            }
            candidates.push(x);
        }
        if low < 0 && !must_be_new {
            candidates.push(NONE);
        }
        for z in candidates {
            debug_assert!(self.consistent_with(z, step, assign));
            if !z.is_none() && self.blocked(z) {
                continue;
            }
            if !self.sys.may_enable(step, at, self.post_on(z, c)) {
                continue;
            }
            let new = !z.is_none() && self.config_pos(z) >= new_from;
            assign[at] = Some(z);
            self.search_preds(step, assign, rest, chains, new_from, have_new || new, found)?;
            assign[at] = None;
        }
        Ok(())
    }

    /// Whether `z`'s history holds no later event than the chosen predecessor on any
    /// component of `step` already assigned.
    fn consistent_with(&self, z: EventId, step: &Step, assign: &[Option<EventId>]) -> bool {
        z.is_none()
            || assign.iter().enumerate().all(|(j, p)| match p {
                None => true,
                Some(p) => {
                    let cj = step.touched[j];
                    self.depth_on(self.max_in_history(z, cj), cj) <= self.depth_on(*p, cj)
                }
            })
    }

    /// What the history summaries of the live events cost, against the two ways of
    /// storing them that copy a history per event (see [`SummaryFootprint`]).
    pub fn summary_footprint(&self) -> SummaryFootprint {
        let mut entries = 0u64;
        let mut events = 0u64;
        for e in self.events.iter().filter(|e| e.alive) {
            events += 1;
            self.tries.for_each(e.summary, &mut |_, _| entries += 1);
        }
        SummaryFootprint {
            events,
            components: self.sys.num_components() as u64,
            trie_bytes: (self.tries.live_nodes() * Tries::NODE_BYTES) as u64,
            entries,
        }
    }

    /// Iteration over the live events, for export and tests.
    pub fn live_events(&self) -> impl Iterator<Item = EventId> + '_ {
        self.events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.alive)
            .map(|(i, _)| EventId(i as u32))
    }

    /// The predecessors of `e`, one per touched component (NONE for ⊥).
    pub fn preds(&self, e: EventId) -> impl Iterator<Item = (CompId, EventId)> + '_ {
        self.ev(e).nodes.iter().map(|n| (n.comp, n.pred))
    }

    /// |\[e\]|.
    pub fn history_size(&self, e: EventId) -> u32 {
        self.ev(e).size
    }

    /// Sets `next_sibling` of the `k`-th node of `x`, and its mirror.
    fn set_next_sibling(&mut self, x: EventId, k: usize, v: EventId) {
        self.events[x.index()].nodes[k].next_sibling = v;
        if k < HOT_NODES {
            self.links[x.index()].next_sibling[k] = v;
        }
    }

    /// Sets `next_same` of the `k`-th node of `x`, and its mirror.
    fn set_next_same(&mut self, x: EventId, k: usize, v: EventId) {
        self.events[x.index()].nodes[k].next_same = v;
        if k < HOT_NODES {
            self.links[x.index()].next_same[k] = v;
        }
    }

    /// `(action, next_sibling, next_same)` of `x` on component `c`, from the mirror when
    /// it has the node.
    fn sibling_links(&self, x: EventId, c: CompId) -> (ActionId, EventId, EventId) {
        let l = &self.links[x.index()];
        for k in 0..HOT_NODES {
            if l.comps[k] == c {
                return (l.action, l.next_sibling[k], l.next_same[k]);
            }
        }
        let n = self.node(x, c);
        (l.action, n.next_sibling, n.next_same)
    }

    /// [`run_key`] of `x`'s node on component `c`, from the mirror when it has the node.
    fn run_key_on(&self, x: EventId, c: CompId) -> u32 {
        let l = &self.links[x.index()];
        for k in 0..HOT_NODES {
            if l.comps[k] == c {
                return l.run_key[k];
            }
        }
        let ev = self.ev(x);
        run_key(&ev.nodes, ev.node_index(c).unwrap())
    }

    fn free_event(&mut self, e: EventId) {
        let nodes = std::mem::take(&mut self.events[e.index()].nodes);
        for n in &nodes {
            // Unlink from the sibling list; a freed predecessor's list does not matter,
            // but predecessors of freed events are freed only in the same sweep, after us
            // or before us: fix up whichever neighbours are still alive.
            if !n.prev_same.is_none() {
                // Inside a run: only the run's chain changes.
                if let Some(k) = self.events[n.prev_same.index()].node_index(n.comp) {
                    self.set_next_same(n.prev_same, k, n.next_same);
                }
                if !n.next_same.is_none() {
                    if let Some(k) = self.events[n.next_same.index()].node_index(n.comp) {
                        self.events[n.next_same.index()].nodes[k].prev_same = n.prev_same;
                    }
                }
                continue;
            }
            // A run head: the next event of the run, if any, takes its place in the list.
            let mut successor = n.next_sibling;
            if !n.next_same.is_none() {
                if let Some(k) = self.events[n.next_same.index()].node_index(n.comp) {
                    let y = &mut self.events[n.next_same.index()].nodes[k];
                    y.prev_same = NONE;
                    y.prev_sibling = n.prev_sibling;
                    self.set_next_sibling(n.next_same, k, n.next_sibling);
                    successor = n.next_same;
                }
            }
            if !n.prev_sibling.is_none() {
                if let Some(k) = self.events[n.prev_sibling.index()].node_index(n.comp) {
                    self.set_next_sibling(n.prev_sibling, k, successor);
                }
            } else if n.pred.is_none() {
                self.roots[n.comp.index()] = successor;
            } else if let Some(k) = self.events[n.pred.index()].node_index(n.comp) {
                self.events[n.pred.index()].nodes[k].first_child = successor;
            }
            if !n.next_sibling.is_none() {
                if let Some(k) = self.events[n.next_sibling.index()].node_index(n.comp) {
                    self.events[n.next_sibling.index()].nodes[k].prev_sibling = if successor == n.next_sibling
                    {
                        n.prev_sibling
                    } else {
                        successor
                    };
                }
            }
        }
        let preds: SmallVec<[EventId; 8]> = nodes.iter().map(|n| n.pred).collect();
        let action = self.events[e.index()].action;
        let h = key_hash(action, &preds);
        if let Ok(entry) = self.table.find_entry(h, |&x| x == e) {
            entry.remove();
        }
        let summary = self.events[e.index()].summary;
        self.tries.release(summary);
        let ev = &mut self.events[e.index()];
        ev.nodes = nodes;
        ev.nodes.clear();
        ev.alive = false;
        ev.summary = Summary::EMPTY;
        self.free.push(e);
        self.stats.events_alive -= 1;
    }
}

impl<S: System + ?Sized> Unfolding for ProgramUnfolding<'_, S> {
    fn enabled(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError> {
        let mut steps = std::mem::take(&mut self.steps);
        steps.clear();
        self.sys.enabled_steps(&self.state, &mut steps);
        let mut preds: SmallVec<[EventId; 8]> = SmallVec::new();
        let mut result = Ok(());
        for step in &steps {
            if step.touched.is_empty() {
                // An action touching nothing is enabled in every state and cannot be an
                // event (its occurrences would all be the same event); engines handle
                // such systems before unfolding them (they never deadlock).
                continue;
            }
            preds.clear();
            preds.extend(step.touched.iter().map(|c| self.maxima[c.index()]));
            if preds.iter().any(|p| !p.is_none() && self.blocked(*p)) {
                continue;
            }
            match self.event(step, &preds) {
                Ok(Some(e)) => out.push(e),
                Ok(None) => {
                    result = Err(UnfoldError::Model(ModelError::new(format!(
                        "[qpor internal bug] step {} listed as enabled does not fire",
                        self.sys.action_name(step.action)
                    ))));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.steps = steps;
        result
    }

    fn add_conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError> {
        let new_from = new_from as u32;
        let n = self.sys.num_components();
        let mut chains: Vec<Vec<EventId>> = vec![Vec::new(); n];
        for (c, chain) in chains.iter_mut().enumerate() {
            self.chain(CompId(c as u32), chain);
        }
        let mut found = 0usize;
        let mut anchored = Vec::new();
        for c in 0..n {
            let c = CompId(c as u32);
            let positions: Vec<EventId> = chains[c.index()]
                .iter()
                .copied()
                .chain(std::iter::once(NONE))
                .collect();
            for x in positions {
                if !x.is_none() && self.blocked(x) {
                    continue;
                }
                anchored.clear();
                if !self.sys.anchored_steps(c, self.post_on(x, c), &mut anchored) {
                    return Err(UnfoldError::Model(ModelError::new(
                        "this system cannot list its anchored steps, which the unfolding needs",
                    )));
                }
                let x_new = !x.is_none() && self.config_pos(x) >= new_from;
                for step in &anchored {
                    let Some(ai) = step.touched.iter().position(|&d| d == c) else {
                        continue;
                    };
                    // Some predecessor must be new: if x is old, one of the other
                    // components needs a new event at the top of its chain.
                    if !x_new
                        && !step.touched.iter().any(|d| {
                            *d != c
                                && chains[d.index()]
                                    .first()
                                    .is_some_and(|&t| self.config_pos(t) >= new_from)
                        })
                    {
                        continue;
                    }
                    let mut assign: SmallVec<[Option<EventId>; 8]> =
                        SmallVec::from_elem(None, step.touched.len());
                    assign[ai] = Some(x);
                    let order: SmallVec<[usize; 8]> = (0..step.touched.len()).filter(|&j| j != ai).collect();
                    self.search_preds(step, &mut assign, &order, &chains, new_from, x_new, &mut found)?;
                }
            }
        }
        Ok(found)
    }

    fn push(&mut self, e: EventId) {
        debug_assert!(
            self.is_enabled(e),
            "[qpor internal bug] pushing an event not enabled at C"
        );
        let top = *self.config_summaries.last().unwrap();
        let entries: SmallVec<[(CompId, u32); 8]> = self.ev(e).nodes.iter().map(|n| (n.comp, e.0)).collect();
        let events = &self.events;
        let initial = &self.initial;
        let weight = |c: CompId, x: u32| Self::weight(events, initial, c, x);
        let next = self.tries.set_all(top, &entries, &weight);
        self.tries.retain(next);
        self.config_summaries.push(next);
        for i in 0..self.events[e.index()].nodes.len() {
            let n = &self.events[e.index()].nodes[i];
            self.maxima[n.comp.index()] = e;
            self.state[n.comp.index()] = n.post;
        }
        self.config_index[e.index()] = self.config.len() as u32;
        self.pushes += 1;
        self.config.push(e);
    }

    fn pop(&mut self) -> EventId {
        let e = self
            .config
            .pop()
            .expect("[qpor internal bug] pop from the empty configuration");
        let s = self.config_summaries.pop().unwrap();
        self.tries.release(s);
        for i in 0..self.events[e.index()].nodes.len() {
            let (c, p) = {
                let n = &self.events[e.index()].nodes[i];
                (n.comp, n.pred)
            };
            self.maxima[c.index()] = p;
            self.state[c.index()] = self.post_on(p, c);
        }
        self.config_index[e.index()] = NOT_IN_CONFIG;
        e
    }

    fn config(&self) -> &[EventId] {
        &self.config
    }

    fn in_config(&self, e: EventId) -> bool {
        self.config_pos(e) != NOT_IN_CONFIG
    }

    fn is_enabled(&self, e: EventId) -> bool {
        let ev = self.ev(e);
        self.config_pos(e) == NOT_IN_CONFIG && ev.nodes.iter().all(|n| self.maxima[n.comp.index()] == n.pred)
    }

    fn compatible(&self, e: EventId) -> bool {
        if self.config_pos(e) != NOT_IN_CONFIG {
            return true;
        }
        let memo = &self.compat_memo[e.index()];
        let known = memo.get();
        if !known.conflicts_with.is_none() && self.config_pos(known.conflicts_with) != NOT_IN_CONFIG {
            return false;
        }
        if known.compatible_at == self.pushes + 1 {
            return true;
        }
        let witness = match self.compatible_by_nodes(e) {
            NodesVerdict::Compatible => NONE,
            NodesVerdict::ConflictsWith(w) => w,
            NodesVerdict::Unknown => {
                let top = *self.config_summaries.last().unwrap();
                let mut witness = NONE;
                self.tries
                    .diff(self.ev(e).summary, top, &mut |c, x, y| match (x, y) {
                        // x = max_c([e]), y = max_c(C). If x ∈ C, both are on C's c-chain.
                        // Otherwise x ≤ y is impossible (C is causally closed), so only y ≤ x
                        // is left; if that fails too, y is the witness.
                        (Some(x), Some(y)) => {
                            let conflict = self.config_index[x as usize] == NOT_IN_CONFIG
                                && !self.is_ancestor(EventId(y), EventId(x), c);
                            if conflict {
                                witness = EventId(y);
                            }
                            conflict
                        }
                        _ => false,
                    });
                witness
            }
        };
        if witness.is_none() {
            memo.set(CompatMemo {
                conflicts_with: NONE,
                compatible_at: self.pushes + 1,
            });
            true
        } else {
            memo.set(CompatMemo {
                conflicts_with: witness,
                compatible_at: 0,
            });
            false
        }
    }

    fn conflict(&self, a: EventId, b: EventId) -> bool {
        if a == b {
            return false;
        }
        // Quick answer: two children of one node (or two roots) of a tree conflict.
        {
            let (na, nb) = (&self.ev(a).nodes, &self.ev(b).nodes);
            let (mut i, mut j) = (0, 0);
            while i < na.len() && j < nb.len() {
                match na[i].comp.cmp(&nb[j].comp) {
                    Ordering::Less => i += 1,
                    Ordering::Greater => j += 1,
                    Ordering::Equal => {
                        if na[i].pred == nb[j].pred {
                            return true;
                        }
                        i += 1;
                        j += 1;
                    }
                }
            }
        }
        self.tries.diff(
            self.ev(a).summary,
            self.ev(b).summary,
            &mut |c, x, y| match (x, y) {
                (Some(x), Some(y)) => !self.comparable(EventId(x), EventId(y), c),
                _ => false,
            },
        )
    }

    fn causally_le(&self, a: EventId, b: EventId) -> bool {
        if a == b {
            return true;
        }
        let Some(n) = self.ev(a).nodes.first() else {
            return false;
        };
        let c = n.comp;
        let z = self.max_in_history(b, c);
        !z.is_none() && self.is_ancestor(a, z, c)
    }

    fn immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        // Siblings in e's trees, except those with e's own action: two events of the same
        // action that share a predecessor differ on another component, where their
        // predecessors are ordered (or conflicting), so each conflicts with a cause of the
        // other — never an immediate conflict. (These are the many variants cex creates.)
        let start = out.len();
        let action = self.ev(e).action;
        for n in &self.ev(e).nodes {
            let mut x = if n.pred.is_none() {
                self.roots[n.comp.index()]
            } else {
                self.node(n.pred, n.comp).first_child
            };
            while !x.is_none() {
                let (x_action, next_sibling, next_same) = self.sibling_links(x, n.comp);
                if x_action != action {
                    out.push(x);
                    let mut y = next_same;
                    while !y.is_none() {
                        out.push(y);
                        y = self.sibling_links(y, n.comp).2;
                    }
                }
                x = next_sibling;
            }
        }
        if self.ev(e).nodes.len() > 1 {
            super::sort_dedup_from(out, start);
        }
    }

    fn compatible_immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        // The walk of `immediate_conflicts`, leaving a run at its first member whose key
        // says it is incompatible with C (`run_key`). That needs the run to have no member
        // in C, which holds when e's predecessor is C's maximum on the component (none of
        // its children is in C) — always so for Alt, which asks about events enabled at C.
        let start = out.len();
        let ev = self.ev(e);
        let action = ev.action;
        for n in &ev.nodes {
            let c = n.comp;
            let mut x = if n.pred.is_none() {
                self.roots[c.index()]
            } else {
                self.node(n.pred, c).first_child
            };
            let may_skip = self.maxima[c.index()] == n.pred;
            while !x.is_none() {
                let (x_action, next_sibling, next_same) = self.sibling_links(x, c);
                if x_action != action {
                    if self.compatible(x) {
                        out.push(x);
                    }
                    // Members whose key is below this are incompatible with C.
                    let mut threshold = 0;
                    let xe = self.ev(x);
                    if may_skip && !next_same.is_none() && xe.nodes.len() > 1 {
                        let at = xe.node_index(c).unwrap();
                        let key_comp = xe.nodes[(at == 0) as usize].comp;
                        threshold = (self.depth_on(self.maxima[key_comp.index()], key_comp) + 1) as u32;
                    }
                    let mut y = next_same;
                    while !y.is_none() && self.run_key_on(y, c) >= threshold {
                        if self.compatible(y) {
                            out.push(y);
                        }
                        y = self.sibling_links(y, c).2;
                    }
                }
                x = next_sibling;
            }
        }
        super::sort_dedup_from(out, start);
        #[cfg(debug_assertions)]
        {
            let mut all = Vec::new();
            self.immediate_conflicts(e, &mut all);
            super::sort_dedup_from(&mut all, 0);
            all.retain(|&x| self.compatible(x));
            debug_assert_eq!(
                &out[start..],
                &all[..],
                "[qpor internal bug] a run skipped a compatible event"
            );
        }
    }

    fn history_outside_config(&mut self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        let mut found = Vec::new();
        self.walk_history(e, |u, x| {
            if u.config_pos(x) == NOT_IN_CONFIG {
                found.push(x);
            }
        });
        // Causes before effects: a cause's history is strictly smaller.
        found.sort_by_key(|x| (self.ev(*x).size, x.0));
        out.extend(found);
        debug_assert!(out[start..]
            .windows(2)
            .all(|w| self.ev(w[0]).size <= self.ev(w[1]).size));
    }

    fn is_cutoff(&self, e: EventId) -> bool {
        self.ev(e).cutoff
    }

    fn is_fault(&self, e: EventId) -> bool {
        self.ev(e).fault
    }

    fn action(&self, e: EventId) -> ActionId {
        self.ev(e).action
    }

    fn config_state(&self) -> &[Local] {
        &self.state
    }

    fn prune(&mut self, keep: &[EventId]) {
        // Freed ids will be reused: forget what the memos say about any id.
        for m in &self.compat_memo {
            m.set(CompatMemo::UNKNOWN);
        }
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let mut stack: Vec<EventId> = keep.to_vec();
        stack.extend(self.config.iter().copied());
        stack.extend(
            self.events
                .iter()
                .enumerate()
                .filter(|(_, e)| e.alive && e.pinned)
                .map(|(i, _)| EventId(i as u32)),
        );
        while let Some(x) = stack.pop() {
            if self.events[x.index()].mark == g {
                continue;
            }
            self.events[x.index()].mark = g;
            for n in &self.events[x.index()].nodes {
                if !n.pred.is_none() && self.events[n.pred.index()].mark != g {
                    stack.push(n.pred);
                }
            }
        }
        // Free the unmarked, effects before causes (larger histories first) so that every
        // freed event's live neighbours are fixed up.
        let mut dead: Vec<EventId> = self
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.alive && e.mark != g)
            .map(|(i, _)| EventId(i as u32))
            .collect();
        dead.sort_by_key(|x| std::cmp::Reverse(self.ev(*x).size));
        for x in dead {
            self.free_event(x);
        }
    }

    fn stats(&self) -> UnfoldStats {
        let mut s = self.stats;
        let per_event = std::mem::size_of::<Event>() as u64;
        let nodes: u64 = self
            .events
            .iter()
            .filter(|e| e.alive && e.nodes.spilled())
            .map(|e| (e.nodes.capacity() * std::mem::size_of::<Node>()) as u64)
            .sum();
        s.bytes = self.events.len() as u64 * per_event
            + nodes
            + (self.tries.live_nodes() * Tries::NODE_BYTES) as u64;
        s
    }
}

/// Whether `sys` can be unfolded by this backend (it lists anchored steps).
pub fn supports<S: System + ?Sized>(sys: &S) -> bool {
    let mut v = Vec::new();
    sys.anchored_steps(CompId(0), Local(0), &mut v) || sys.num_components() == 0
}
