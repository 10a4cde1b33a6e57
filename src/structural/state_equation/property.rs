//! Reachability properties from the state equation: a property's target
//! ([`crate::system::property::Property::target`]) that no solution satisfies is satisfied
//! by no reachable marking (`EF φ` FALSE, `AG φ` TRUE); a solution fired from the initial
//! marking reaches a marking that satisfies it (`EF φ` TRUE, `AG φ` FALSE), with the firing
//! sequence as witness, since the marking a solution fires to is the solution's marking.
//!
//! The target becomes a Boolean combination of linear constraints on the marking's
//! variables: `e1 <= e2` as it is written, `fireable(t…)` as the disjunction over the
//! listed transitions of "every place `t` needs holds enough tokens". All properties share
//! one solver: each target sits behind its own guard, and the trap constraints one
//! property learns help the next.
//!
//! The properties are asked in two rounds so that a hard one does not starve the rest:
//! first each open property gets an equal share of the time left, then the ones that ran
//! out of their share are asked again with the rest.
//!
//! Between the rounds, the targets still open are simplified (verifypn's query
//! reduction): each comparison and `fireable` that no solution satisfies is false in
//! every reachable marking, and one whose negation no solution satisfies is true in every
//! one; replaced by those constants and folded, the target keeps its value on every
//! reachable marking. One that folds to `false` is unreachable, one that folds to `true`
//! holds in the initial marking; the others go to the engines that run after this one,
//! whose searches need to move fewer things.

use super::{with_solver, Equation, Search, Work};
use crate::engine::Budget;
use crate::system::net::Net;
use crate::system::property::{Formula, Sum};
use std::time::{Duration, Instant};
use z3::ast::{Bool, Int};

/// Each property's share in the first round when the run has no deadline.
const FIRST_ROUND_SHARE_UNLIMITED: Duration = Duration::from_secs(2);

/// The share of the time left that the simplification between the rounds takes at most.
const SIMPLIFICATION_PARTS: usize = 3;

/// Most time one question about one atom of a target may take.
const ATOM_TIME: Duration = Duration::from_millis(250);

/// What the state equation decided about one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// No reachable marking satisfies the target.
    Unreachable,
    /// These transitions (by index), fired in this order from the initial marking, reach
    /// a marking that satisfies the target.
    Reached(Vec<usize>),
}

/// Per target: its decision, or `None` when the state equation could not decide it; and
/// the work, and whether the budget stopped the run.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub decisions: Vec<Option<Decision>>,
    /// Per target left undecided: the target simplified, when simplifying changed it.
    pub simplified: Vec<Option<Formula>>,
    pub work: Work,
    /// Why the run stopped before asking every target, if it did.
    pub stopped: Option<crate::engine::StopReason>,
}

/// Asks the state equation of `net` about each of `targets`, within `budget`.
pub(crate) fn check(net: &Net, targets: &[Formula], budget: &Budget) -> Outcome {
    with_solver(budget, || {
        let mut equation = Equation::new(net);
        let guards: Vec<Bool> = targets
            .iter()
            .map(|target| {
                let guard = Bool::fresh_const("target");
                equation.assert(&guard.implies(encode(net, &equation.marking, target)));
                guard
            })
            .collect();
        let mut decisions: Vec<Option<Decision>> = vec![None; targets.len()];
        let mut simplified: Vec<Option<Formula>> = vec![None; targets.len()];
        // Per target: whether it may be asked again (it ran out of its share).
        let mut again = vec![true; targets.len()];
        let mut stopped = None;
        'rounds: for round in 0..2 {
            if round == 1 {
                let share = budget.share_of_left(SIMPLIFICATION_PARTS, FIRST_ROUND_SHARE_UNLIMITED);
                let until = Instant::now() + share;
                for i in 0..targets.len() {
                    if decisions[i].is_some() || Instant::now() >= until || budget.exhausted().is_some() {
                        continue;
                    }
                    match simplify(net, &mut equation, &targets[i], budget, until).folded() {
                        Formula::Const(false) => decisions[i] = Some(Decision::Unreachable),
                        Formula::Const(true) => decisions[i] = Some(Decision::Reached(Vec::new())),
                        f if f != targets[i] => simplified[i] = Some(f),
                        _ => {}
                    }
                    if decisions[i].is_some() {
                        again[i] = false;
                    }
                }
            }
            let open: Vec<usize> = (0..targets.len()).filter(|&i| again[i]).collect();
            for (k, &i) in open.iter().enumerate() {
                let share = budget.share_of_left(open.len() - k, FIRST_ROUND_SHARE_UNLIMITED);
                let until = (round == 0).then(|| Instant::now() + share);
                again[i] = false;
                match equation.search(Some(&guards[i]), budget, until) {
                    Search::Unsatisfiable => decisions[i] = Some(Decision::Unreachable),
                    Search::Fired(sequence) => decisions[i] = Some(Decision::Reached(sequence)),
                    Search::OutOfTime => again[i] = true,
                    Search::Candidate(_) | Search::Unknown(_) => {}
                    Search::Stopped(why) => {
                        stopped = Some(why);
                        break 'rounds;
                    }
                }
            }
        }
        for (i, decision) in decisions.iter().enumerate() {
            if decision.is_some() {
                simplified[i] = None;
            }
        }
        Outcome {
            decisions,
            simplified,
            work: equation.work,
            stopped,
        }
    })
}

/// `formula` with each comparison and `fireable` that the state equation shows false (no
/// solution satisfies it) or true (none satisfies its negation) in every reachable marking
/// replaced by that constant; not folded. Asks nothing after `until`.
fn simplify(
    net: &Net,
    equation: &mut Equation,
    formula: &Formula,
    budget: &Budget,
    until: Instant,
) -> Formula {
    let mut all = |parts: &[Formula]| -> Vec<Formula> {
        parts
            .iter()
            .map(|f| simplify(net, equation, f, budget, until))
            .collect()
    };
    match formula {
        Formula::Const(_) => formula.clone(),
        Formula::Not(inner) => Formula::Not(Box::new(simplify(net, equation, inner, budget, until))),
        Formula::And(parts) => Formula::And(all(parts)),
        Formula::Or(parts) => Formula::Or(all(parts)),
        atom => {
            for value in [false, true] {
                let now = Instant::now();
                if now >= until || budget.exhausted().is_some() {
                    break;
                }
                // `value` false: is the atom satisfiable? true: is its negation?
                let claim = encode(net, &equation.marking, atom);
                let asked = if value { claim.not() } else { claim };
                let guard = Bool::fresh_const("atom");
                equation.assert(&guard.implies(&asked));
                let atom_until = until.min(now + ATOM_TIME);
                if matches!(
                    equation.search(Some(&guard), budget, Some(atom_until)),
                    Search::Unsatisfiable
                ) {
                    return Formula::Const(value);
                }
            }
            atom.clone()
        }
    }
}

/// `formula` over the marking's variables of `net`.
fn encode(net: &Net, marking: &[Int], formula: &Formula) -> Bool {
    match formula {
        Formula::Const(b) => Bool::from_bool(*b),
        Formula::Not(inner) => encode(net, marking, inner).not(),
        Formula::And(parts) => Bool::and(&parts.iter().map(|f| encode(net, marking, f)).collect::<Vec<_>>()),
        Formula::Or(parts) => Bool::or(&parts.iter().map(|f| encode(net, marking, f)).collect::<Vec<_>>()),
        Formula::Le(left, right) => sum(marking, left).le(sum(marking, right)),
        Formula::Fireable(transitions) => {
            let enabled: Vec<Bool> = transitions
                .iter()
                .map(|&t| {
                    let enough: Vec<Bool> = net.transitions[t.index()]
                        .needs()
                        .into_iter()
                        .map(|(p, w)| marking[p.index()].ge(Int::from_u64(u64::from(w))))
                        .collect();
                    Bool::and(&enough)
                })
                .collect();
            Bool::or(&enabled)
        }
    }
}

/// The sum's value over the marking's variables.
fn sum(marking: &[Int], sum: &Sum) -> Int {
    let mut terms: Vec<Int> = sum.places.iter().map(|p| marking[p.index()].clone()).collect();
    terms.push(Int::from_u64(sum.constant));
    Int::add(&terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::PlaceId;

    /// `a` holds `tokens`; `t` moves two from `a` to `b`.
    fn pair_mover(tokens: u32) -> Net {
        let mut net = Net::default();
        let a = net.add_place("a", None, tokens);
        let b = net.add_place("b", None, 0);
        let t = net.add_transition("t", None);
        net.add_pre(t, a, 2);
        net.add_post(t, b, 2);
        net
    }

    fn at_least(place: usize, k: u64) -> Formula {
        Formula::Le(
            Sum::constant(k),
            Sum {
                places: vec![PlaceId(place as u32)],
                constant: 0,
            },
        )
    }

    #[test]
    fn the_equation_decides_both_ways_with_a_witness() {
        let net = pair_mover(4);
        let targets = [
            at_least(1, 4),
            Formula::And(vec![at_least(1, 3), Formula::Not(Box::new(at_least(1, 4)))]),
            at_least(0, 5),
        ];
        let outcome = check(&net, &targets, &Budget::unlimited());
        // b = 4 after t fires twice; b = 3 would need an odd count; a never exceeds 4.
        assert_eq!(outcome.decisions[0], Some(Decision::Reached(vec![0, 0])));
        assert_eq!(outcome.decisions[1], Some(Decision::Unreachable));
        assert_eq!(outcome.decisions[2], Some(Decision::Unreachable));
    }

    #[test]
    fn atoms_the_equation_decides_become_constants() {
        let net = pair_mover(4);
        let both = Sum {
            places: vec![PlaceId(0), PlaceId(1)],
            constant: 0,
        };
        // a ≥ 5 never holds; a + b ≥ 4 always does (t keeps the sum); b ≥ 1 may or not.
        let target = Formula::Or(vec![
            at_least(0, 5),
            Formula::And(vec![Formula::Le(Sum::constant(4), both), at_least(1, 1)]),
        ]);
        let budget = Budget::unlimited();
        let simplified = with_solver(&budget, || {
            let mut equation = Equation::new(&net);
            simplify(
                &net,
                &mut equation,
                &target,
                &budget,
                Instant::now() + Duration::from_secs(10),
            )
        });
        assert_eq!(simplified.folded(), at_least(1, 1));
    }

    #[test]
    fn fireable_needs_every_input() {
        let net = pair_mover(1);
        let fireable = Formula::Fireable(vec![crate::system::net::TransId(0)]);
        let outcome = check(&net, &[fireable], &Budget::unlimited());
        assert_eq!(outcome.decisions[0], Some(Decision::Unreachable));
    }
}
