//! The table of canonical cutoffs (`--cutoff canonical`): the cutoff events of the
//! complete ERV prefix of the program-like unfolding, built before the exploration.
//!
//! The ERV order is total, so the prefix the builder makes is canonical: every event it
//! adds whose history holds no cutoff is either the first one, in ERV's order, to reach
//! its state (it stays uncut), or a cutoff; the empty configuration comes first of all.
//! The table keeps, for every state, its uncut event. An event of the exploration whose
//! history holds no cutoff is an event of the prefix (the unfolding is the same, and so
//! are its events, which are their action and predecessors), so it is a cutoff there
//! exactly when it is not the one the table keeps for its state. That depends on the
//! event alone: every replica of a parallel or distributed run cuts the same events, and
//! a sequential run cuts them too.
//!
//! Events are compared across unfoldings by a fingerprint: a hash of the action and of
//! the predecessors' fingerprints, component by component. Two equal events have equal
//! fingerprints, so the event the table keeps is never cut; two different events that
//! collide would only leave a cutoff uncut (a larger exploration, never a missed state).
//!
//! Soundness is the prefix's completeness: every reachable state, dead ones included, is
//! the state of a configuration of the prefix without cutoff events (ERV's order being
//! adequate), and the exploration, which cuts exactly where the prefix does, has that
//! configuration; a dead state's is maximal there.

use crate::engine::CancelToken;
use crate::system::{ActionId, CompId, Local, ModelError, System};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::fingerprint::{bottom, event_fingerprint, local_hash};
use crate::unfold::prefix::{build_program, PrefixOptions};
use hashbrown::HashTable;
use smallvec::SmallVec;
use std::time::Instant;

/// The fingerprint of the empty configuration: no event has it (but by a collision).
const EMPTY: u64 = 0x9e37_79b9_7f4a_7c15;

/// The uncut event of every state of the complete ERV prefix.
#[derive(Debug)]
pub struct CanonicalCutoffs {
    components: usize,
    /// Entry i's state is `states[i * components..(i + 1) * components]`.
    states: Vec<Local>,
    /// Per entry: the fingerprint of its uncut event ([`EMPTY`] for the initial state).
    fingerprints: Vec<u64>,
    /// Per entry: how many components hold another local state than the initial one.
    moved: Vec<u32>,
    hashes: Vec<u64>,
    /// Entries by state hash.
    index: HashTable<u32>,
    /// The prefix's size, for the report.
    prefix_events: u64,
    prefix_cutoffs: u64,
    /// Every event's fingerprint, cutoffs included: debug builds check that each event
    /// the exploration makes is one of the prefix.
    #[cfg(debug_assertions)]
    all: hashbrown::HashSet<u64>,
}

/// Why no table was made: the prefix was not finished.
#[derive(Debug)]
pub enum CanonicalError {
    /// The model cannot be unfolded.
    Model(ModelError),
    /// The deadline passed or the run was cancelled while the prefix was built: how
    /// many events it had then.
    Stopped(u64),
}

impl CanonicalCutoffs {
    /// Builds the complete ERV prefix of `sys` and keeps its uncut events. Stops at
    /// `deadline` or on `cancel` (the run is over then).
    pub fn build<S: System + ?Sized>(
        sys: &S,
        deadline: Option<Instant>,
        cancel: &CancelToken,
    ) -> Result<CanonicalCutoffs, CanonicalError> {
        let now = Instant::now();
        let opts = PrefixOptions {
            cutoff: CutoffMode::Erv,
            time_limit: deadline.map(|d| d.saturating_duration_since(now)),
            started: Some(now),
            cancel: Some(cancel.clone()),
            ..PrefixOptions::default()
        };
        let out = build_program(sys, &opts).map_err(CanonicalError::Model)?;
        if out.stopped.is_some() {
            // Freeing millions of events would hold up a run that is out of time.
            let events = out.prefix.events.len() as u64;
            crate::engine::drop_in_background(out);
            return Err(CanonicalError::Stopped(events));
        }
        let prefix = &out.prefix;
        let initial = sys.initial_state();
        let n = initial.len();
        let mut table = CanonicalCutoffs {
            components: n,
            states: Vec::new(),
            fingerprints: Vec::new(),
            moved: Vec::new(),
            hashes: Vec::new(),
            index: HashTable::new(),
            prefix_events: prefix.events.len() as u64,
            prefix_cutoffs: prefix.cutoffs() as u64,
            #[cfg(debug_assertions)]
            all: hashbrown::HashSet::new(),
        };
        table.insert(&initial, &initial, EMPTY);
        // Events come causes first: fingerprints and tree depths in one pass; the state
        // of an uncut event from a walk of its history, where on each component the
        // deepest event's local state is the one left.
        let ne = prefix.events.len();
        let mut fingerprints: Vec<u64> = Vec::with_capacity(ne);
        // Per event, per component it touches: (component, depth on it, local state after).
        let mut nodes: Vec<SmallVec<[(u32, u32, u32); 4]>> = Vec::with_capacity(ne);
        let mut marks = vec![false; ne];
        let mut walked: Vec<u32> = Vec::new();
        let mut deepest: Vec<(u32, Local)> = initial.iter().map(|&l| (0, l)).collect();
        let mut touched: Vec<u32> = Vec::new();
        let mut state = initial.clone();
        for (i, ev) in prefix.events.iter().enumerate() {
            let mut preds: SmallVec<[(u32, u64, u32); 4]> = ev
                .preset
                .iter()
                .map(|&b| {
                    let comp = out.labels[b as usize].0;
                    match prefix.conditions[b as usize].producer {
                        Some(p) => {
                            let depth = nodes[p as usize].iter().find(|n| n.0 == comp).map_or(0, |n| n.1);
                            (comp, fingerprints[p as usize], depth)
                        }
                        None => (comp, bottom(CompId(comp)), 0),
                    }
                })
                .collect();
            preds.sort_unstable();
            fingerprints.push(event_fingerprint(ActionId(ev.action), preds.iter().map(|p| p.1)));
            #[cfg(debug_assertions)]
            table.all.insert(fingerprints[i]);
            let mine: SmallVec<[(u32, u32, u32); 4]> = ev
                .postset
                .iter()
                .map(|&b| {
                    let (c, l) = out.labels[b as usize];
                    let below = preds.iter().find(|p| p.0 == c).map_or(0, |p| p.2);
                    (c, below + 1, l)
                })
                .collect();
            nodes.push(mine);
            if ev.cutoff.is_some() {
                continue;
            }
            let mut stack = vec![i as u32];
            marks[i] = true;
            while let Some(x) = stack.pop() {
                walked.push(x);
                for &(c, depth, l) in &nodes[x as usize] {
                    let d = &mut deepest[c as usize];
                    if d.0 == 0 {
                        touched.push(c);
                    }
                    if depth > d.0 {
                        *d = (depth, Local(l));
                    }
                }
                for &b in &prefix.events[x as usize].preset {
                    if let Some(p) = prefix.conditions[b as usize].producer {
                        if !std::mem::replace(&mut marks[p as usize], true) {
                            stack.push(p);
                        }
                    }
                }
            }
            for &c in &touched {
                state[c as usize] = deepest[c as usize].1;
            }
            table.insert(&state, &initial, fingerprints[i]);
            for c in touched.drain(..) {
                state[c as usize] = initial[c as usize];
                deepest[c as usize] = (0, initial[c as usize]);
            }
            for x in walked.drain(..) {
                marks[x as usize] = false;
            }
        }
        crate::engine::drop_in_background((out, nodes, fingerprints));
        Ok(table)
    }

    fn insert(&mut self, state: &[Local], initial: &[Local], fp: u64) {
        let id = self.fingerprints.len() as u32;
        let hash = state_hash(state, initial);
        self.states.extend_from_slice(state);
        self.fingerprints.push(fp);
        self.moved
            .push(state.iter().zip(initial).filter(|(a, b)| a != b).count() as u32);
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index.insert_unique(hash, id, |&x| hashes[x as usize]);
    }

    /// Whether the event of fingerprint `fp`, whose state has hash `hash`, is a cutoff of
    /// the prefix: the table holds its state (`same` accepts a stored state, given how
    /// many components it moved) with other uncut events only. Two events of the prefix
    /// that tie in the order could both be uncut with one state; neither is cut then.
    pub(crate) fn is_cutoff(&self, hash: u64, fp: u64, mut same: impl FnMut(&[Local], u32) -> bool) -> bool {
        #[cfg(debug_assertions)]
        assert!(
            self.all.contains(&fp),
            "[qpor internal bug] an event with no cutoff below it is not in the complete prefix"
        );
        let n = self.components;
        let mut state_known = false;
        for &x in self.index.iter_hash(hash) {
            let x = x as usize;
            if self.hashes[x] != hash || !same(&self.states[x * n..(x + 1) * n], self.moved[x]) {
                continue;
            }
            if self.fingerprints[x] == fp {
                return false;
            }
            state_known = true;
        }
        state_known
    }

    /// How many states the table holds.
    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    /// Whether the table is empty (it never is: it holds the initial state).
    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    /// Events of the prefix the table was made from, cutoffs included.
    pub fn prefix_events(&self) -> u64 {
        self.prefix_events
    }

    /// Cutoff events of that prefix.
    pub fn prefix_cutoffs(&self) -> u64 {
        self.prefix_cutoffs
    }
}

/// The state hash the unfolding gives a state (a sum of per-component deltas from the
/// initial state).
fn state_hash(state: &[Local], initial: &[Local]) -> u64 {
    state
        .iter()
        .zip(initial)
        .enumerate()
        .map(|(c, (l, i))| {
            let c = CompId(c as u32);
            local_hash(c, *l).wrapping_sub(local_hash(c, *i))
        })
        .fold(0u64, u64::wrapping_add)
}
