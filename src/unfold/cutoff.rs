//! Cutoff events and adequate orders (docs/design.md#cutoffs-and-adequate-orders;
//! docs/paper.md#cutoffs; docs/paper.md#adequate-orders).
//!
//! An event e is a cutoff when some event e' already discovered (or the empty
//! configuration) has a local configuration with the same state and \[e'\] ◁ \[e\]. Cutoffs are
//! kept as leaves and never extended; every reachable dead state is still the state of
//! some cutoff-free maximal configuration, which Algorithm 1 visits.
//!
//! Orders:
//! - Causal: e' < e (a cause of e), or the empty configuration. Whether e is a cutoff
//!   then depends on \[e\] alone, not on which events were discovered before it, so
//!   every replica of a parallel or distributed exploration decides alike. A cause has
//!   the smaller history, so these are McMillan cutoffs: every reachable state is still
//!   reached without one (the minimal-size argument). The truncation stays finite on a
//!   finite-state system: along an infinite causal chain two histories reach one state.
//!   It has fewer cutoffs than the other orders, so more events; the program-like
//!   unfolding of QPOR only (the prefix builder and the general unfolding refuse it);
//! - Distance: a firing sequence to e's state smaller than \[e\] in the distance order
//!   (ERV's, with Foata levels compared as vectors: [`compare_distance_order`]), found
//!   by a breadth-first search bounded by a number of states, up front and the same in
//!   every replica (`tables::distances`); beyond the table, a cause as for causal
//!   cutoffs. Also decided by \[e\] alone: the cut is against the configuration the firing
//!   sequence linearises, discovered or not. Where the table holds a state, only its
//!   least history is left uncut (the order ranks actions as the search met them, not by
//!   id); the program-like unfolding of QPOR only;
//! - Canonical: the cutoffs of the complete ERV prefix, built before the exploration
//!   (`tables::canonical`): e is one when the prefix keeps another uncut event for its
//!   state. Decided by \[e\] and the prefix alone, so every replica decides alike. Each
//!   state keeps one uncut local history, where a sequential ERV run, cutting only against
//!   the events it met first, can keep several (measured: fewer configurations than
//!   ERV's on every model tried); the program-like unfolding of QPOR only;
//! - McMillan: |\[e'\]| < |\[e\]|;
//! - ERV (Esparza, Römer, Vogler): size, then the Parikh vectors compared as sorted words
//!   (at the first action, in id order, whose counts differ, more occurrences is smaller),
//!   then the Foata normal forms compared level by level the same way.

use crate::system::ActionId;
use std::cmp::Ordering;

/// Which adequate order decides cutoffs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum CutoffMode {
    /// No cutoffs: the plain unfolding (terminates only on acyclic behaviour).
    None,
    /// McMillan's size order.
    McMillan,
    /// A cause of the event (or the empty configuration) with the same state: decided by
    /// the event's history alone (see the module doc).
    Causal,
    /// A firing sequence to the event's state smaller in the distance order, in a table searched
    /// up front, or a cause with its state: decided by the event's history and the table
    /// alone.
    Distance,
    /// The cutoffs of the complete ERV prefix, built before the exploration
    /// (`tables::canonical`): decided by the event's history and that prefix alone.
    Canonical,
    /// The total ERV order.
    #[default]
    Erv,
}

impl CutoffMode {
    /// The mode's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            CutoffMode::None => "none",
            CutoffMode::McMillan => "mcmillan",
            CutoffMode::Causal => "causal",
            CutoffMode::Distance => "distance",
            CutoffMode::Canonical => "canonical",
            CutoffMode::Erv => "erv",
        }
    }

    /// Whether every replica of an unfolding decides cutoffs alike, whatever events it
    /// discovered before: without cutoffs, and with causal, distance or canonical ones.
    pub fn same_in_every_replica(self) -> bool {
        matches!(
            self,
            CutoffMode::None | CutoffMode::Causal | CutoffMode::Distance | CutoffMode::Canonical
        )
    }

    /// Why an exploration split over several workers (`option`: `--threads 4`,
    /// `--distributed`) cannot take this order, or `None` when it can: the one wording of
    /// that refusal, for the options check and the engine alike.
    pub fn split_refusal(self, option: &str) -> Option<String> {
        (!self.same_in_every_replica()).then(|| {
            format!(
                "{option} with --cutoff {}: under an adequate order, which events are cutoffs depends on the order each worker met the states; give --cutoff canonical (ERV's cutoffs from the complete prefix, built first), distance or causal (decided by each event's history) or none",
                self.name()
            )
        })
    }

    /// Whether cutoffs are decided against the representatives of states discovered so
    /// far (McMillan's and ERV's), as a complete prefix needs.
    pub fn uses_representatives(self) -> bool {
        matches!(self, CutoffMode::McMillan | CutoffMode::Erv)
    }
}

/// What the ERV order needs of a local configuration: its events' actions with their
/// Foata levels (1 for minimal events).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HistoryShape {
    /// (Foata level, action) of every event.
    pub events: Vec<(u32, ActionId)>,
}

/// Compares two Parikh vectors given as sorted action lists (with repetitions): the one
/// with more occurrences of the first action where they differ is smaller; a proper prefix
/// is smaller.
pub(crate) fn compare_parikh(a: &[ActionId], b: &[ActionId]) -> Ordering {
    // The smaller action occurs more often in the vector that has it here.
    walk_sorted(a, b, |x, y| x.cmp(&y))
}

/// Compares two Parikh vectors given as sorted action lists (with repetitions) as vectors:
/// at the first action where their counts differ, the one with fewer occurrences is
/// smaller. Unlike [`compare_parikh`] on lists of different lengths, the result stays the
/// same when both vectors gain the same actions.
pub(crate) fn compare_parikh_vectors(a: &[ActionId], b: &[ActionId]) -> Ordering {
    walk_sorted(a, b, |x, y| y.cmp(&x))
}

/// Walks two sorted lists to their first difference and lets `at` decide there; a list
/// that ends first is smaller.
fn walk_sorted(a: &[ActionId], b: &[ActionId], at: impl Fn(ActionId, ActionId) -> Ordering) -> Ordering {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((x, y)) => at(*x, *y),
        None => a.len().cmp(&b.len()),
    }
}

/// The order of distance cutoffs on two local configurations of equal size (`Less`: `a` is
/// smaller): Parikh vectors as in [`compare_erv`], then the Foata levels one by one, each
/// compared with [`compare_parikh_vectors`].
///
/// [`compare_erv`] compares levels as sorted words, a proper prefix smaller (Cunf's
/// order), and extensions do not keep that: where `t1 t5 | t3` (two levels) and
/// `t1 | t3 | t5` reach one state, the word order puts the second first, and adding `t3`
/// and `t5` to both puts the first first. On a net found by the oracle test the least
/// history of a dead state then held cutoffs under it, and the dead state was missed.
/// Compared as vectors, levels that gain the same actions keep their order; the tests of
/// `tables::distances` find no state whose least history holds a cutoff, on random nets
/// and on that one.
pub(crate) fn compare_distance_order(a: &HistoryShape, b: &HistoryShape) -> Ordering {
    compare_shapes(a, b, compare_parikh_vectors)
}

/// The ERV order on two local configurations of equal size (`Less`: `a` ◁ `b`).
pub(crate) fn compare_erv(a: &HistoryShape, b: &HistoryShape) -> Ordering {
    compare_shapes(a, b, compare_parikh)
}

/// Parikh vectors as sorted words, then the Foata levels one by one with `level_order`.
fn compare_shapes(
    a: &HistoryShape,
    b: &HistoryShape,
    level_order: fn(&[ActionId], &[ActionId]) -> Ordering,
) -> Ordering {
    let mut pa: Vec<ActionId> = a.events.iter().map(|e| e.1).collect();
    let mut pb: Vec<ActionId> = b.events.iter().map(|e| e.1).collect();
    pa.sort_unstable();
    pb.sort_unstable();
    match compare_parikh(&pa, &pb) {
        Ordering::Equal => {}
        o => return o,
    }
    let mut la = a.events.clone();
    let mut lb = b.events.clone();
    la.sort_unstable();
    lb.sort_unstable();
    let levels = la
        .last()
        .map(|e| e.0)
        .unwrap_or(0)
        .max(lb.last().map(|e| e.0).unwrap_or(0));
    let at_level = |l: &[(u32, ActionId)], level| -> Vec<ActionId> {
        l.iter().filter(|e| e.0 == level).map(|e| e.1).collect()
    };
    lexicographic((1..=levels).map(|level| level_order(&at_level(&la, level), &at_level(&lb, level))))
}

/// The first of `orders` that is not `Equal`, or `Equal`: a lexicographic comparison,
/// computed only as far as it needs.
pub(crate) fn lexicographic(mut orders: impl Iterator<Item = Ordering>) -> Ordering {
    orders.find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parikh_prefers_more_early_actions() {
        let v = |x: &[u32]| -> Vec<ActionId> { x.iter().copied().map(ActionId).collect() };
        assert_eq!(compare_parikh(&v(&[0, 1]), &v(&[1, 1])), Ordering::Less);
        assert_eq!(compare_parikh(&v(&[0, 0]), &v(&[0, 1])), Ordering::Less);
        assert_eq!(compare_parikh(&v(&[2, 3]), &v(&[2, 3])), Ordering::Equal);
        assert_eq!(compare_parikh(&v(&[1]), &v(&[1, 2])), Ordering::Less);
    }

    #[test]
    fn foata_levels_break_parikh_ties() {
        // a·b in sequence vs a ∥ b: same Parikh vector. Level by level the first levels
        // are compared as sorted words, where a proper prefix is smaller (as Cunf does):
        // the sequential history's first level [a] is a prefix of [a, b], so it is smaller.
        let seq = HistoryShape {
            events: vec![(1, ActionId(0)), (2, ActionId(1))],
        };
        let par = HistoryShape {
            events: vec![(1, ActionId(0)), (1, ActionId(1))],
        };
        assert_eq!(compare_erv(&seq, &par), Ordering::Less);
        assert_eq!(compare_erv(&par, &seq), Ordering::Greater);
        assert_eq!(compare_erv(&seq, &seq), Ordering::Equal);
    }
}
