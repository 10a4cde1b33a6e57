//! An explicit prime event structure as an [`Unfolding`], so that the engines' own
//! algorithms — above all `qpor::alt::alternative` — run on a PES given event by event
//! (docs/paper.md#theorem-41: Alt on an arbitrary finite PES).
//!
//! Every event of the [`Pes`] is in U from the start, with `EventId(i)` for the event of
//! index i; the current configuration C starts at ∅ and changes by [`Unfolding::push`] and
//! [`Unfolding::pop`]. All relations are bitset lookups on the structure:
//! - e ∈ ex(C) iff e ∉ C and ⌈e⌉ ⊆ C; e ∈ en(C) iff moreover #(e) ∩ C = ∅;
//! - C ∪ \[e\] is a configuration iff #(e) ∩ C = ∅: \[e\] is conflict-free in a PES, and a
//!   conflict between C and a cause of e is inherited by e;
//! - [`Unfolding::immediate_conflicts`] returns #ᵢ(e) exactly, precomputed.
//!
//! The structure has no components: [`Unfolding::config_state`] gives one [`Local`] per
//! event, 1 when it is in C. [`Unfolding::prune`] frees nothing (the PES is given, not
//! discovered), which the trait's contract allows: ids stay valid.
//!
//! # Invariants
//! - `in_config` is the characteristic vector of `config`, and `state` mirrors it.
//! - `conflicting_with_config[e]` counts the events of C in conflict with e.

use super::{Pes, PesEventId};
use crate::system::{ActionId, Local};
use crate::unfold::{EventId, UnfoldError, UnfoldStats, Unfolding};
use fixedbitset::FixedBitSet;

/// A [`Pes`] with a current configuration, seen through the [`Unfolding`] trait.
///
/// ```
/// use qpor::engines::qpor::{alternative, AltMode, AltScratch, AltStats};
/// use qpor::unfolding::{PesBuilder, PesEventId, PesOptions, PesUnfolding};
/// use qpor::unfolding::EventId;
/// // (x1 | x2) & -x1: a1/b1 say x1 = 1/0, d1 and d2 are the clauses.
/// let mut b = PesBuilder::new();
/// let [a1, b1, a2, b2, d1, d2] = ["a1", "b1", "a2", "b2", "d1", "d2"].map(|n| b.event(n, None).unwrap());
/// for (x, y) in [(a1, b1), (a1, d1), (a2, b2), (a2, d1), (b1, d2)] {
///     b.conflict(x, y);
/// }
/// b.set("D", vec![d1, d2]);
/// let pes = b.build(&PesOptions::default()).unwrap();
/// let mut unf = PesUnfolding::new(&pes);
/// let d: Vec<EventId> = pes.set("D").unwrap().iter().map(|e| EventId(e.0)).collect();
/// let in_d = d.iter().copied().collect();
/// let j = alternative(&mut unf, &d, &in_d, AltMode::Optimal, &mut AltStats::default(), &mut AltScratch::default());
/// let names: Vec<&str> = j.unwrap().iter().map(|e| pes.name(PesEventId(e.0))).collect();
/// assert_eq!(names, ["b1", "a2"]);
/// ```
pub struct PesUnfolding<'p> {
    pes: &'p Pes,
    config: Vec<EventId>,
    in_config: FixedBitSet,
    conflicting_with_config: Vec<u32>,
    state: Vec<Local>,
    immediate: Vec<Vec<EventId>>,
}

fn id(e: EventId) -> PesEventId {
    PesEventId(e.0)
}

impl<'p> PesUnfolding<'p> {
    /// The structure with C = ∅.
    pub fn new(pes: &'p Pes) -> Self {
        let n = pes.len();
        let immediate = pes
            .events()
            .map(|e| {
                pes.immediate_conflicts(e)
                    .into_iter()
                    .map(|f| EventId(f.0))
                    .collect()
            })
            .collect();
        PesUnfolding {
            pes,
            config: Vec::new(),
            in_config: FixedBitSet::with_capacity(n),
            conflicting_with_config: vec![0; n],
            state: vec![Local(0); n],
            immediate,
        }
    }

    /// The structure.
    pub fn pes(&self) -> &'p Pes {
        self.pes
    }

    /// Whether `e` ∈ ex(C).
    pub fn is_extension(&self, e: EventId) -> bool {
        self.pes.is_extension(&self.in_config, id(e))
    }

    /// Whether some event of C is in conflict with `e`.
    fn conflicts_with_config(&self, e: EventId) -> bool {
        self.conflicting_with_config[e.index()] > 0
    }

    /// ex(C), in index order.
    pub fn extensions(&self) -> Vec<EventId> {
        (0..self.pes.len() as u32)
            .map(EventId)
            .filter(|&e| self.is_extension(e))
            .collect()
    }
}

impl Unfolding for PesUnfolding<'_> {
    fn enabled(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError> {
        out.extend(
            (0..self.pes.len() as u32)
                .map(EventId)
                .filter(|&e| self.is_extension(e) && !self.conflicts_with_config(e)),
        );
        Ok(())
    }

    fn add_conflicting_extensions(&mut self, _new_from: usize) -> Result<usize, UnfoldError> {
        // Every event is in U already: just count cex(C).
        Ok((0..self.pes.len() as u32)
            .map(EventId)
            .filter(|&e| self.is_extension(e) && self.conflicts_with_config(e))
            .count())
    }

    fn push(&mut self, e: EventId) {
        crate::unfold::debug_assert_pushable(self, e);
        self.in_config.insert(e.index());
        self.state[e.index()] = Local(1);
        for f in self.pes.conflicts(id(e)).ones() {
            self.conflicting_with_config[f] += 1;
        }
        self.config.push(e);
    }

    fn pop(&mut self) -> EventId {
        let e = crate::unfold::pop_config(&mut self.config);
        self.in_config.remove(e.index());
        self.state[e.index()] = Local(0);
        for f in self.pes.conflicts(id(e)).ones() {
            self.conflicting_with_config[f] -= 1;
        }
        e
    }

    fn config(&self) -> &[EventId] {
        &self.config
    }

    fn in_config(&self, e: EventId) -> bool {
        self.in_config.contains(e.index())
    }

    fn is_enabled(&self, e: EventId) -> bool {
        self.is_extension(e) && !self.conflicts_with_config(e)
    }

    fn compatible(&self, e: EventId) -> bool {
        !self.conflicts_with_config(e)
    }

    fn conflict(&self, a: EventId, b: EventId) -> bool {
        self.pes.conflict(id(a), id(b))
    }

    fn causally_le(&self, a: EventId, b: EventId) -> bool {
        self.pes.le(id(a), id(b))
    }

    fn immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        out.extend_from_slice(&self.immediate[e.index()]);
    }

    fn history_outside_config(&mut self, e: EventId, out: &mut Vec<EventId>) {
        // Causes before effects: a strict cause has a strictly smaller past.
        let mut found: Vec<EventId> = self
            .pes
            .causes(id(e))
            .ones()
            .filter(|&c| !self.in_config.contains(c))
            .map(|c| EventId(c as u32))
            .collect();
        if !self.in_config.contains(e.index()) {
            found.push(e);
        }
        found.sort_by_key(|&x| (self.pes.causes(id(x)).count_ones(..), x.0));
        out.extend(found);
    }

    fn is_cutoff(&self, _e: EventId) -> bool {
        false
    }

    fn is_fault(&self, _e: EventId) -> bool {
        false
    }

    fn action(&self, e: EventId) -> ActionId {
        ActionId(e.0)
    }

    fn config_state(&self) -> &[Local] {
        &self.state
    }

    fn prune(&mut self, _keep: &[EventId]) {}

    fn stats(&self) -> UnfoldStats {
        let n = self.pes.len() as u64;
        let blocks = self.pes.len().div_ceil(32) as u64 * 4;
        UnfoldStats {
            events_created: n,
            events_alive: n,
            events_alive_peak: n,
            // Nothing is ever freed: as if just pruned, so that QPOR does not try.
            alive_after_prune: n,
            cutoff_events: 0,
            bytes: n * 3 * blocks + self.immediate.iter().map(|v| v.len() as u64 * 4).sum::<u64>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unfold::pes::{PesBuilder, PesOptions};

    #[test]
    fn extensions_enabled_and_conflicting() {
        // a < b, c < d, a # c (so b # c, a # d, b # d): after C = {a}, b is enabled and c is a
        // conflicting extension.
        let mut b = PesBuilder::new();
        let [a, bb, c, d] = ["a", "b", "c", "d"].map(|n| b.event(n, None).unwrap());
        b.causality(a, bb);
        b.causality(c, d);
        for (x, y) in [(a, c), (a, d), (bb, c), (bb, d)] {
            b.conflict(x, y);
        }
        let pes = b.build(&PesOptions::default()).unwrap();
        let mut u = PesUnfolding::new(&pes);
        let mut en = Vec::new();
        u.enabled(&mut en).unwrap();
        assert_eq!(en, [EventId(0), EventId(2)]);
        u.push(EventId(0));
        en.clear();
        u.enabled(&mut en).unwrap();
        assert_eq!(en, [EventId(1)]);
        assert_eq!(u.add_conflicting_extensions(0).unwrap(), 1);
        assert!(!u.compatible(EventId(3)));
        assert_eq!(u.config_state()[0], Local(1));
        let mut ic = Vec::new();
        u.immediate_conflicts(EventId(0), &mut ic);
        assert_eq!(ic, [EventId(2)]);
        assert_eq!(u.pop(), EventId(0));
        let mut h = Vec::new();
        u.history_outside_config(EventId(3), &mut h);
        assert_eq!(h, [EventId(2), EventId(3)]);
        assert!(u.causally_le(EventId(2), EventId(3)) && u.conflict(EventId(3), EventId(0)));
    }
}
