//! Causality, conflict and compatibility with C in the program-like unfolding, decided
//! from the events' nodes when they tell and otherwise by comparing history summaries.

use super::{CompatMemo, ProgramUnfolding, NONE, NOT_IN_CONFIG};
use crate::system::{CompId, System};
use crate::unfold::EventId;
use std::cmp::Ordering;

/// At most this many events pushed since an event was found compatible with C are
/// re-checked on their own (see `conflict_pushed_since`); past it, the summaries are
/// compared.
const RECHECK_MAX_PUSHED: usize = 48;

/// What an event's own nodes say about its compatibility with C.
enum NodesVerdict {
    /// Every predecessor is max_k(C): the event is enabled at C.
    Compatible,
    /// The event conflicts with this event of C.
    ConflictsWith(EventId),
    /// Some predecessor lies outside C: the summaries must be compared.
    Unknown,
}

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
    /// max_c(\[e\]), NONE if \[e\] has no event on c.
    #[inline]
    pub(super) fn max_in_history(&self, e: EventId, c: CompId) -> EventId {
        if e.is_none() {
            return NONE;
        }
        match self.tries.get(self.ev(e).summary, c) {
            Some(x) => EventId(x),
            None => NONE,
        }
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

    /// Whether C ∪ \[e\] is a configuration ([`crate::unfold::Unfolding::compatible`]),
    /// remembered per event with its reason (see [`CompatMemo`]).
    pub(super) fn compatible_with_config(&self, e: EventId) -> bool {
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
        let witness = match known.compatible_at.checked_sub(1) {
            Some(since) => match self.conflict_pushed_since(e, since) {
                Some(w) => w,
                None => self.conflict_witness(e),
            },
            None => self.conflict_witness(e),
        };
        debug_assert_eq!(
            witness.is_none(),
            self.conflict_witness(e).is_none(),
            "{e:?}: {known:?}"
        );
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

    /// An event of C that \[e\] conflicts with (NONE: C ∪ \[e\] is a configuration),
    /// from e's nodes or else by comparing e's history summary with C's.
    fn conflict_witness(&self, e: EventId) -> EventId {
        match self.compatible_by_nodes(e) {
            NodesVerdict::Compatible => NONE,
            NodesVerdict::ConflictsWith(w) => w,
            NodesVerdict::Unknown => {
                let top = *self.config_summaries.last().unwrap();
                let mut witness = NONE;
                self.tries
                    .diff(self.ev(e).summary, top, &mut |c, x, y| match (x, y) {
                        // A conflict through a component that adds no dependence of its
                        // own shows on another component too.
                        _ if self.redundant[c.index()] => false,
                        (Some(x), Some(y)) => {
                            let conflict = self.conflict_on(EventId(x), EventId(y), c);
                            if conflict {
                                witness = EventId(y);
                            }
                            conflict
                        }
                        _ => false,
                    });
                witness
            }
        }
    }

    /// The conflict witness of e (as [`Self::conflict_witness`]) when e was compatible with
    /// C after push number `since`, looking only at what was pushed later; `None` when
    /// that is more than [`RECHECK_MAX_PUSHED`] events. C still holds every event it held
    /// then up to the first later one (a stack), and popping an event moves max_c(C) to an
    /// ancestor, which stays on one root path with max_c(\[e\]). So only a component
    /// whose maximum in C is a later event can show a conflict. Alt asks again for the
    /// same events from node after node: after a backtrack nothing was pushed, after a
    /// step into a right child a few events were. Components that add no dependence of
    /// their own are looked at too: the nodes' verdict counts them, and a conflict through
    /// one need not show on a component a later event touches.
    fn conflict_pushed_since(&self, e: EventId, since: u64) -> Option<EventId> {
        let first = self.config_serials.partition_point(|&s| s <= since);
        let later = &self.config[first..];
        if later.len() > RECHECK_MAX_PUSHED {
            return None;
        }
        for &y in later {
            for n in &self.ev(y).nodes {
                let c = n.comp;
                if self.maxima[c.index()] != y {
                    continue;
                }
                let x = self.max_in_history(e, c);
                if !x.is_none() && self.conflict_on(x, y, c) {
                    return Some(y);
                }
            }
        }
        Some(NONE)
    }

    /// Whether x = max_c(\[e\]) and y = max_c(C) put \[e\] in conflict with C on c. If
    /// x ∈ C, both are on C's c-chain. Otherwise x ≤ y is impossible (C is causally
    /// closed), so only y ≤ x is left; if that fails too, y is the witness.
    #[inline]
    fn conflict_on(&self, x: EventId, y: EventId, c: CompId) -> bool {
        self.config_pos(x) == NOT_IN_CONFIG && !self.is_ancestor(y, x, c)
    }

    /// Whether `a` # `b` ([`crate::unfold::Unfolding::conflict`]).
    pub(super) fn in_conflict(&self, a: EventId, b: EventId) -> bool {
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
                _ if self.redundant[c.index()] => false,
                (Some(x), Some(y)) => !self.comparable(EventId(x), EventId(y), c),
                _ => false,
            },
        )
    }
}
