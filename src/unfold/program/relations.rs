//! Causality, conflict and compatibility with C in the program-like unfolding, decided
//! from the events' nodes when they tell and otherwise by comparing history summaries.

use super::{CompatMemo, ProgramUnfolding, NONE, NOT_IN_CONFIG};
use crate::system::{CompId, System};
use crate::unfold::EventId;
use std::cmp::Ordering;

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
                        // A conflict through a component that adds no dependence of its
                        // own shows on another component too.
                        _ if self.redundant[c.index()] => false,
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
