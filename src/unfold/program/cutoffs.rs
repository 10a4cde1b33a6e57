//! The cutoff table of the program-like unfolding: events are looked up by the hash of
//! their state, compared with the representative of that state in the adequate order, and
//! either cut off or made the new representative. Causal cutoffs need no table: the
//! event's causes are compared with it. Distance cutoffs look the event's state up in the
//! table of distances searched before the exploration ([`super::distances`]), then
//! compare its causes. Canonical cutoffs look the event's state and fingerprint up in the
//! table of the complete ERV prefix built before it ([`super::canonical`]).

use super::summary::Summary;
use super::{ProgramUnfolding, Representative, HOT_NODES, MORE_NODES};
use crate::system::{ActionId, Local, System};
use crate::unfold::cutoff::{compare_erv, CutoffMode, HistoryShape};
use crate::unfold::EventId;
use smallvec::SmallVec;
use std::cmp::Ordering;

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
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
    pub(super) fn walk_history(&mut self, e: EventId, f: impl FnMut(&Self, EventId)) {
        self.walk_closure(vec![e], f);
    }

    /// Marks every event of the causal closure of `roots` with a new generation, which it
    /// returns, and calls `f` on each of them once (in no particular order). Predecessors
    /// come from `hot_preds`, not from the events, so that a walk over much of U does not
    /// miss the cache on every event.
    pub(super) fn walk_closure(&mut self, mut roots: Vec<EventId>, mut f: impl FnMut(&Self, EventId)) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        roots.retain(|&r| std::mem::replace(&mut self.marks[r.index()], g) != g);
        let mut stack = roots;
        while let Some(x) = stack.pop() {
            f(self, x);
            let hot = self.hot_preds[x.index()];
            let from_event: SmallVec<[EventId; 8]>;
            let preds: &[EventId] = if hot[HOT_NODES] == MORE_NODES {
                from_event = self.events[x.index()].nodes.iter().map(|n| n.pred).collect();
                &from_event
            } else {
                &hot[..HOT_NODES]
            };
            for &p in preds {
                if !p.is_none() && self.marks[p.index()] != g {
                    self.marks[p.index()] = g;
                    stack.push(p);
                }
            }
        }
        g
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

    /// Decides whether the new event `e` is a cutoff, or the new representative of its
    /// state.
    pub(super) fn decide_cutoff(&mut self, e: EventId) {
        if self.opts.cutoff == CutoffMode::Canonical {
            if self.canonical_cutoff(e) {
                self.events[e.index()].cutoff = true;
                self.stats.cutoff_events += 1;
            }
            return;
        }
        if matches!(self.opts.cutoff, CutoffMode::Causal | CutoffMode::Distance) {
            if self.smaller_sequence_known(e) || self.has_cause_with_same_state(e) {
                self.events[e.index()].cutoff = true;
                self.stats.cutoff_events += 1;
            }
            return;
        }
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

    /// Whether the table of distance cutoffs knows a firing sequence to e's state that
    /// is smaller than \[e\] in the distance order: shorter, or as long and smaller by Parikh
    /// vector, then Foata normal form. The order is adequate (it refines inclusion and
    /// extensions keep it), so the cut keeps every reachable state.
    fn smaller_sequence_known(&mut self, e: EventId) -> bool {
        let Some(table) = self.opts.distances.clone() else {
            return false;
        };
        let ev = self.ev(e);
        let found = table.find_within(ev.state_hash, ev.size, |state, moved| {
            self.state_is(e, state, moved)
        });
        let Some((id, shorter)) = found else {
            return false;
        };
        if shorter {
            return true;
        }
        // As long: compare in the distance order (Parikh vectors, then Foata levels) by the
        // table's action ranks. An action the search never met has no rank, and then
        // nothing is cut.
        let mut shape = HistoryShape::default();
        let mut all_ranked = true;
        self.walk_history(e, |u, x| match table.action_rank(u.ev(x).action) {
            Some(r) => shape.events.push((u.ev(x).level, ActionId(r))),
            None => all_ranked = false,
        });
        all_ranked && table.below(id, &shape)
    }

    /// Whether `e` is a cutoff of the complete ERV prefix: the table of canonical cutoffs
    /// keeps another event for its state.
    fn canonical_cutoff(&self, e: EventId) -> bool {
        let Some(table) = self.opts.canonical.as_deref() else {
            return false;
        };
        table.is_cutoff(
            self.ev(e).state_hash,
            self.fingerprints[e.index()],
            |state, moved| self.state_is(e, state, moved),
        )
    }

    /// Whether state(\[e\]) is the full `state` of a table, which has `moved` components
    /// away from their initial local states: the two agree on the components \[e\]
    /// touches, and the state moved no other.
    fn state_is(&self, e: EventId, state: &[Local], moved: u32) -> bool {
        let mut agree = true;
        let mut touched_moved = 0;
        self.tries.for_each(self.ev(e).summary, &mut |c, x| {
            let post = self.node(EventId(x), c).post;
            agree &= post == state[c.index()];
            touched_moved += (post != self.initial[c.index()]) as u32;
        });
        agree && touched_moved == moved
    }

    /// Whether a cause of `e`, or the empty configuration, has e's state: only the causes
    /// whose state hash is e's are compared.
    fn has_cause_with_same_state(&mut self, e: EventId) -> bool {
        let hash = self.ev(e).state_hash;
        // The empty configuration's state hashes to 0 (the table's first entry otherwise).
        if hash == 0 && self.same_state(EventId::NONE, e) {
            return true;
        }
        let mut same_hash: SmallVec<[EventId; 4]> = SmallVec::new();
        self.walk_history(e, |u, x| {
            if x != e && u.ev(x).state_hash == hash {
                same_hash.push(x);
            }
        });
        same_hash.into_iter().any(|x| self.same_state(x, e))
    }

    /// Makes `e` the representative of the state of hash `hash` (pinned under ERV, whose
    /// later comparisons walk its history).
    fn add_rep(&mut self, e: EventId, hash: u64) {
        self.events[e.index()].pinned = self.opts.cutoff == CutoffMode::Erv;
        self.reps
            .insert_unique(hash, Representative { hash, event: e }, |r| r.hash);
    }
}
