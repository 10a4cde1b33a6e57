//! Explicit prime event structures (docs/paper.md#prime-event-structures): a finite
//! [`Pes`] given event by event, with its causality, conflict and named sets of events (such as the configuration
//! C and the set D of an Alt question), and [`PesUnfolding`], the same structure seen
//! through the [`crate::unfold::Unfolding`] trait — a third backend, beside the
//! program-like and general ones, whose events are all given from the start.
//!
//! A [`Pes`] is always a prime event structure: [`PesBuilder::build`] checks the relations
//! and refuses what is not one, explaining why (see [`builder`] for what is checked). The
//! text format (`docs/pes-format.md`) is read by `parse::pes` and written by
//! `export::pes`.
//!
//! # Invariants
//! - `causes[e]` is the strict past ⌈e⌉, transitively closed and without e.
//! - `effects[e]` is the strict future of e: `b ∈ effects[a]` iff `a ∈ causes[b]`.
//! - `conflicts` is symmetric, irreflexive and inherited.

pub(crate) mod builder;
pub(crate) mod unfolding;

pub use builder::{PesBuilder, PesError, PesOptions};
pub use unfolding::PesUnfolding;

use fixedbitset::FixedBitSet;
use rustc_hash::FxHashMap;

/// Identifies an event of a [`Pes`] (its index in declaration order).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct PesEventId(pub u32);

impl PesEventId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A finite labelled prime event structure with named sets of events.
#[derive(Clone, Debug)]
pub struct Pes {
    names: Vec<String>,
    labels: Vec<Option<String>>,
    index: FxHashMap<String, u32>,
    causes: Vec<FixedBitSet>,
    effects: Vec<FixedBitSet>,
    conflicts: Vec<FixedBitSet>,
    sets: Vec<(String, Vec<PesEventId>)>,
}

impl Pes {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The events, in declaration order.
    pub fn events(&self) -> impl Iterator<Item = PesEventId> + '_ {
        (0..self.names.len() as u32).map(PesEventId)
    }

    /// The event's name.
    pub fn name(&self, e: PesEventId) -> &str {
        &self.names[e.index()]
    }

    /// The event's label, when it has one.
    pub fn label(&self, e: PesEventId) -> Option<&str> {
        self.labels[e.index()].as_deref()
    }

    /// The event called `name`.
    pub fn find(&self, name: &str) -> Option<PesEventId> {
        self.index.get(name).map(|&i| PesEventId(i))
    }

    /// Whether `a` < `b` (strict causality).
    pub fn lt(&self, a: PesEventId, b: PesEventId) -> bool {
        self.causes[b.index()].contains(a.index())
    }

    /// Whether `a` ≤ `b`.
    pub fn le(&self, a: PesEventId, b: PesEventId) -> bool {
        a == b || self.lt(a, b)
    }

    /// Whether `a` # `b`.
    pub fn conflict(&self, a: PesEventId, b: PesEventId) -> bool {
        self.conflicts[a.index()].contains(b.index())
    }

    /// ⌈e⌉, the strict causes of `e`, as a bitset over event indices.
    pub fn causes(&self, e: PesEventId) -> &FixedBitSet {
        &self.causes[e.index()]
    }

    /// The strict effects of `e` (events above it), as a bitset over event indices.
    pub fn effects(&self, e: PesEventId) -> &FixedBitSet {
        &self.effects[e.index()]
    }

    /// #(e), the events in conflict with `e`, as a bitset over event indices.
    pub fn conflicts(&self, e: PesEventId) -> &FixedBitSet {
        &self.conflicts[e.index()]
    }

    /// The immediate causes of `e` (the Hasse diagram of <), in index order.
    pub fn immediate_causes(&self, e: PesEventId) -> Vec<PesEventId> {
        let mut imm = self.causes[e.index()].clone();
        for c in self.causes[e.index()].ones() {
            imm.difference_with(&self.causes[c]);
        }
        imm.ones().map(|i| PesEventId(i as u32)).collect()
    }

    /// #ᵢ(e): the events e' # e such that \[e\] ∪ ⌈e'⌉ and ⌈e⌉ ∪ \[e'\] are configurations
    /// (docs/paper.md#prime-event-structures), in index order. By inheritance this is: no cause of e' conflicts
    /// with e, and no cause of e conflicts with e'.
    pub fn immediate_conflicts(&self, e: PesEventId) -> Vec<PesEventId> {
        let ce = &self.conflicts[e.index()];
        let pe = &self.causes[e.index()];
        ce.ones()
            .filter(|&f| ce.is_disjoint(&self.causes[f]) && self.conflicts[f].is_disjoint(pe))
            .map(|f| PesEventId(f as u32))
            .collect()
    }

    /// Whether `a` # `b` is not inherited from a conflict between causes (the writer
    /// `export::pes` declares every conflict, these and the inherited ones).
    pub fn is_minimal_conflict(&self, a: PesEventId, b: PesEventId) -> bool {
        self.conflict(a, b)
            && self.causes[a.index()].is_disjoint(&self.conflicts[b.index()])
            && self.causes[b.index()].is_disjoint(&self.conflicts[a.index()])
    }

    /// The named sets, in file order.
    pub fn sets(&self) -> impl Iterator<Item = (&str, &[PesEventId])> + '_ {
        self.sets.iter().map(|(n, s)| (n.as_str(), s.as_slice()))
    }

    /// The set called `name`.
    pub fn set(&self, name: &str) -> Option<&[PesEventId]> {
        self.sets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_slice())
    }

    /// Why `events` is not a configuration (causally closed and conflict-free), if it
    /// is not.
    pub fn configuration_violation(&self, events: &[PesEventId]) -> Option<String> {
        let mut member = FixedBitSet::with_capacity(self.len());
        for e in events {
            member.insert(e.index());
        }
        for &e in events {
            if let Some(c) = self.causes[e.index()].difference(&member).next() {
                return Some(format!(
                    "it holds `{}` but not its cause `{}`",
                    self.name(e),
                    self.names[c]
                ));
            }
            if let Some(f) = self.conflicts[e.index()].intersection(&member).next() {
                return Some(format!(
                    "it holds `{}` and `{}`, which are in conflict",
                    self.name(e),
                    self.names[f]
                ));
            }
        }
        None
    }

    /// Whether `e` ∈ ex(C) for the configuration `config` given as a bitset: e ∉ C and
    /// ⌈e⌉ ⊆ C.
    pub fn is_extension(&self, config: &FixedBitSet, e: PesEventId) -> bool {
        !config.contains(e.index()) && self.causes[e.index()].is_subset(config)
    }
}
