//! Stubborn sets that keep reachability properties: the stubborn search on `EF φ` / `AG φ`
//! fires, at each marking, the enabled members of a set that holds every transition that
//! can bring an open property's target closer to true, closed under the deadlock rules of
//! [`super::net`] (Schmidt, "Stubborn sets for standard properties", 1999; the
//! "interesting transitions" of Bønneland, Jensen, Larsen, Muñiz and Srba, "Stubborn
//! versus structural reductions for Petri nets", JLAMP 2019).
//!
//! # Why every reachable target is still reached
//! Let ψ be a target false at marking m (a true one was closed when m was stored) and S
//! the set fired at m. S satisfies
//! - **(W)** the deadlock rules' D1 and D2 for each member: an enabled member commutes
//!   with every sequence of non-members and stays enabled, a disabled member stays
//!   disabled — the closure ([`NetStubborn::closure`]) gives both, whatever the seeds;
//! - **(V)** every sequence of non-members from m leads to markings where ψ is still
//!   false: the seeds ([`seed_target`]) hold, for ψ, the transitions that can change
//!   what makes ψ false.
//!
//! Take a path from m to a marking satisfying ψ. By (V) it holds a member of S; the first
//! one is enabled at m (a disabled member would stay disabled through the non-members
//! before it) and by (W) moves to the front: the search fires it, and from its successor
//! the rest of the path is one step shorter. By induction on that length the search
//! stores a marking satisfying ψ. No proviso against ignoring is needed: it is (V), not
//! one enabled member, that makes every path to the target pass through S, so a cycle
//! cannot postpone the target's transitions forever. A set with no enabled member is
//! then no loss either: no path from m reaches ψ. Several properties may be asked at once:
//! the seeds are the union over the open ones, and a property closed later only shrinks
//! the sets; a property still open at the end was open at every expansion. The engine
//! asks them one at a time ([`search_each`]): the union of many targets' seeds is often
//! every transition, where one target's sets stay small.
//!
//! # The seeds, by the form of the target (ψ false at m, to be made true)
//! The target is read with its negations pushed inwards: "make `f` true" and "make `f`
//! false" are the two aims.
//! - `e1 <= e2`, now `e1 > e2`: only a transition that takes from a place of `e1` or
//!   puts on a place of `e2` can make it true; they are the seeds.
//!   Made false (now `e1 <= e2`): those that put on `e1`'s places or take from `e2`'s.
//! - `fireable(t…)`, all disabled: each listed `t` stays disabled while its scapegoat (an
//!   input place with too few tokens, the one with the fewest producers) gains nothing:
//!   the scapegoats' producers. Made false (some listed `t` enabled): one enabled `t`
//!   stays enabled while none of the places it needs loses tokens: their consumers.
//! - a conjunction made true: one false conjunct made true suffices to be kept false (the
//!   one with the fewest seeds); made false, every conjunct must stay true: the union.
//! - a disjunction: the dual (made true: the union over its false disjuncts; made false:
//!   one true disjunct).
//! - `true`/`false`: nothing changes a constant.

use super::net::NetStubborn;
use crate::engine::{Budget, Observer, PropertyAnswer, StopReason};
use crate::space::properties::{search_properties, Expansion, Explored, Order, PropertySearch};
use crate::system::net::{Net, NetSystem};
use crate::system::property::{Formula, Property, Sum};
use crate::system::{ModelError, Step};
use std::time::{Duration, Instant};

/// Each property's share in the first round when the run has no deadline.
const FIRST_ROUND_SHARE_UNLIMITED: Duration = Duration::from_secs(2);

/// Answers `properties` on `sys` by one reduced search per property, in two rounds so that
/// a hard one does not starve the rest: first each open property gets an equal share of
/// the time left, then the ones that ran out of their share share what remains. Each
/// search stores at most `max_states` states.
pub(crate) fn search_each(
    sys: &NetSystem<'_>,
    properties: &[Property],
    order: Order,
    max_states: Option<u64>,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Explored, ModelError> {
    let start = Instant::now();
    let mut reduction = PropertyReduction::new(sys.net());
    let mut answers: Vec<Option<PropertyAnswer>> = vec![None; properties.len()];
    let mut again = vec![true; properties.len()];
    let mut total: Option<Explored> = None;
    let mut stopped = None;
    'rounds: for round in 0..2 {
        let open: Vec<usize> = (0..properties.len()).filter(|&i| again[i]).collect();
        for (k, &i) in open.iter().enumerate() {
            again[i] = false;
            let share = budget.share_of_left(open.len() - k, FIRST_ROUND_SHARE_UNLIMITED);
            let slice = match round {
                0 => budget.ending_by(Instant::now() + share),
                _ => budget.clone(),
            };
            let how = PropertySearch {
                expansion: &mut reduction,
                order,
                max_states,
                engine: "stubborn",
            };
            let mut one =
                search_properties(sys, std::slice::from_ref(&properties[i]), how, &slice, observer)?;
            let answer = one.answers.pop();
            if let Some(why) = budget.exhausted() {
                stopped = Some(why);
            } else if matches!(one.stopped, Some(StopReason::TimeLimit { .. })) {
                again[i] = true;
            } else if one.stopped.is_some() {
                stopped = one.stopped;
            }
            answers[i] = answer;
            total = Some(match total {
                None => one,
                Some(sum) => sum.add(one),
            });
            if budget.exhausted().is_some() {
                break 'rounds;
            }
        }
    }
    let mut total = total.unwrap_or_else(|| Explored::empty("stubborn"));
    total.answers = properties
        .iter()
        .zip(answers)
        .map(|(p, a)| a.unwrap_or_else(|| PropertyAnswer::unknown(&p.id)))
        .collect();
    total.stopped = if total.answers.iter().all(|a| a.value.is_some()) {
        None
    } else {
        Some(stopped.unwrap_or_else(|| budget.time_limit_reached()))
    };
    total.seconds = start.elapsed().as_secs_f64();
    Ok(total)
}

/// The expansion of the stubborn search on properties.
pub(crate) struct PropertyReduction<'n> {
    net: &'n Net,
    rules: NetStubborn,
    enabled: Vec<u32>,
    seeds: Vec<u32>,
    set: Vec<u32>,
    /// The seeds of the target: false only in the mutant the oracle test must catch,
    /// which keeps the deadlock rules alone.
    seeded: bool,
}

impl<'n> PropertyReduction<'n> {
    /// The expansion for `net`.
    pub(crate) fn new(net: &'n Net) -> PropertyReduction<'n> {
        PropertyReduction {
            net,
            rules: NetStubborn::new(net),
            enabled: Vec::new(),
            seeds: Vec::new(),
            set: Vec::new(),
            seeded: true,
        }
    }
}

impl Expansion for PropertyReduction<'_> {
    fn choose(&mut self, marking: &[u32], open: &[&Formula], steps: &[Step], chosen: &mut Vec<bool>) {
        self.enabled.clear();
        self.enabled.extend(steps.iter().map(|s| s.action.0));
        if self.seeded {
            self.seeds.clear();
            for target in open {
                seed_target(self.net, &self.rules, target, true, marking, &mut self.seeds);
            }
            self.rules
                .closure(marking, &self.enabled, &self.seeds, &mut self.set);
        } else if !self.enabled.is_empty() {
            self.rules.stubborn(marking, &self.enabled, &mut self.set);
        } else {
            self.set.clear();
        }
        chosen.clear();
        chosen.extend(steps.iter().map(|s| self.set.binary_search(&s.action.0).is_ok()));
    }
}

/// Appends to `seeds` transitions such that, while none of them fires, `formula` keeps its
/// value at `marking`, which is not `aim` (see the module doc).
pub(crate) fn seed_target(
    net: &Net,
    rules: &NetStubborn,
    formula: &Formula,
    aim: bool,
    marking: &[u32],
    seeds: &mut Vec<u32>,
) {
    match formula {
        Formula::Const(_) => {}
        Formula::Not(inner) => seed_target(net, rules, inner, !aim, marking, seeds),
        // A conjunction to make true, or a disjunction to make false: keep one part that
        // is off its aim there.
        Formula::And(parts) | Formula::Or(parts) if aim == matches!(formula, Formula::And(_)) => {
            let mut best: Option<Vec<u32>> = None;
            for part in parts.iter().filter(|p| p.holds(net, marking) != aim) {
                let mut mine = Vec::new();
                seed_target(net, rules, part, aim, marking, &mut mine);
                mine.sort_unstable();
                mine.dedup();
                if best.as_ref().is_none_or(|b| mine.len() < b.len()) {
                    best = Some(mine);
                }
            }
            seeds.extend(best.unwrap_or_default());
        }
        // Otherwise every part is off its aim and must stay so.
        Formula::And(parts) | Formula::Or(parts) => {
            for part in parts {
                seed_target(net, rules, part, aim, marking, seeds);
            }
        }
        Formula::Le(left, right) => {
            // Made true: `left` must shrink or `right` grow; made false, the reverse.
            let (shrink, grow) = if aim { (left, right) } else { (right, left) };
            push_changers(shrink, |p| rules.decreasers(p), seeds);
            push_changers(grow, |p| rules.increasers(p), seeds);
        }
        Formula::Fireable(transitions) if aim => {
            for &t in transitions {
                let scapegoat = net.transitions[t.index()]
                    .needs()
                    .into_iter()
                    .filter(|&(p, w)| marking[p.index()] < w)
                    .min_by_key(|&(p, _)| (rules.increasers(p.index()).len(), p));
                if let Some((p, _)) = scapegoat {
                    seeds.extend_from_slice(rules.increasers(p.index()));
                }
            }
        }
        Formula::Fireable(transitions) => {
            let enabled = transitions.iter().find(|t| {
                net.transitions[t.index()]
                    .needs()
                    .iter()
                    .all(|&(p, w)| marking[p.index()] >= w)
            });
            if let Some(t) = enabled {
                for (p, _) in net.transitions[t.index()].needs() {
                    seeds.extend_from_slice(rules.decreasers(p.index()));
                }
            }
        }
    }
}

/// Appends the transitions `changers` lists for each place of `sum`.
fn push_changers<'r>(sum: &Sum, changers: impl Fn(usize) -> &'r [u32], seeds: &mut Vec<u32>) {
    for p in &sum.places {
        seeds.extend_from_slice(changers(p.index()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Budget, Silent};
    use crate::space::properties::{search_properties, Expansion, FireAll, PropertySearch};
    use crate::system::net::{Decomposition, NetSystem, PlaceId, TransId};
    use crate::system::property::{Property, Quantifier};
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// A random net: up to 5 places with up to 2 tokens, up to 6 transitions of one or two
    /// inputs and outputs of weight 1 or 2.
    fn random_net(rng: &mut SmallRng) -> Net {
        let mut net = Net::default();
        let places = rng.random_range(2..=5);
        let ids: Vec<PlaceId> = (0..places)
            .map(|p| net.add_place(format!("p{p}"), None, rng.random_range(0..=2)))
            .collect();
        for t in 0..rng.random_range(1..=6) {
            let id = net.add_transition(format!("t{t}"), None);
            for _ in 0..rng.random_range(1..=2) {
                net.add_pre(id, ids[rng.random_range(0..places)], rng.random_range(1..=2));
            }
            for _ in 0..rng.random_range(0..=2) {
                net.add_post(id, ids[rng.random_range(0..places)], rng.random_range(1..=2));
            }
        }
        net
    }

    /// A random `EF` target: a comparison of one place with a constant, or a fireable
    /// transition, possibly negated or paired with another.
    fn random_formula(rng: &mut SmallRng, net: &Net) -> Formula {
        let atom = |rng: &mut SmallRng| {
            let place = PlaceId(rng.random_range(0..net.places.len()) as u32);
            let one = Sum {
                places: vec![place],
                constant: 0,
            };
            match rng.random_range(0..3) {
                0 => Formula::Le(Sum::constant(rng.random_range(1..4)), one),
                1 => Formula::Le(one, Sum::constant(rng.random_range(0..2))),
                _ => Formula::Fireable(vec![TransId(rng.random_range(0..net.transitions.len()) as u32)]),
            }
        };
        match rng.random_range(0..4) {
            0 => Formula::Not(Box::new(atom(rng))),
            1 => Formula::And(vec![atom(rng), atom(rng)]),
            2 => Formula::Or(vec![atom(rng), atom(rng)]),
            _ => atom(rng),
        }
    }

    /// The answers of a search with `expansion`, stopped after 2 000 states.
    fn answers(net: &Net, properties: &[Property], expansion: &mut dyn Expansion) -> Vec<Option<bool>> {
        let sys = NetSystem::new(net, Decomposition::Places).unwrap();
        let how = PropertySearch {
            expansion,
            order: Order::Depth,
            max_states: Some(2_000),
            engine: "test",
        };
        let explored = search_properties(&sys, properties, how, &Budget::unlimited(), &mut Silent).unwrap();
        explored.answers.iter().map(|a| a.value).collect()
    }

    /// The oracle comparison catches a reduction without the target's seeds (the deadlock
    /// rules alone), and the real rules pass it on the same nets and formulas.
    #[test]
    fn the_oracle_catches_a_reduction_that_ignores_the_target() {
        let mut rng = SmallRng::seed_from_u64(41);
        let mut caught = 0;
        for _ in 0..300 {
            let net = random_net(&mut rng);
            let properties: Vec<Property> = (0..3)
                .map(|i| Property {
                    id: format!("p{i}"),
                    quantifier: Quantifier::Ef,
                    formula: random_formula(&mut rng, &net),
                })
                .collect();
            let truth = answers(&net, &properties, &mut FireAll);
            // Nets whose markings grow without bound are out of the oracle's reach; the
            // reduced graph is a part of the full one, so it stays within the bound too.
            if truth.contains(&None) {
                continue;
            }
            let mut reduction = PropertyReduction::new(&net);
            assert_eq!(
                answers(&net, &properties, &mut reduction),
                truth,
                "{net:?}\n{properties:?}"
            );
            reduction.seeded = false;
            if answers(&net, &properties, &mut reduction) != truth {
                caught += 1;
            }
        }
        assert!(caught > 0, "no net told the mutant from the oracle");
    }
}
