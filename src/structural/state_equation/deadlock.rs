//! Deadlock freedom from the state equation: no solution in which every transition is
//! disabled — for each `t`, some place `p` with `m(p)` below what `t` needs there — means
//! no reachable marking is dead. Per transition the disjunction of its "too few tokens"
//! literals (each literal made once, transitions with the same needs sharing a clause).

use super::{with_solver, Equation, Search, Work};
use crate::engine::Budget;
use crate::system::net::Net;
use hashbrown::HashMap;
use z3::ast::{Bool, Int};

/// What the state equation says about a net's deadlocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// No solution: no reachable marking is dead.
    NoDeadlock,
    /// Transition `t` needs nothing, so it is enabled in every marking: no deadlock.
    AlwaysEnabled(usize),
    /// A dead solution that no trap constraint rules out and that could not be fired (it
    /// may be unreachable).
    Candidate(Vec<u64>),
    /// A dead solution fired from the initial marking: these transitions (by index), in
    /// this order, reach a dead marking.
    Deadlock(Vec<usize>),
    /// The budget ran out (or another engine answered) before Z3 did.
    Stopped,
    /// Z3 gave up for a reason of its own.
    Unknown(String),
}

/// The answer and what it took.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub answer: Answer,
    pub work: Work,
}

/// Asks whether the state equation of `net` has a dead solution, within `budget`.
pub(crate) fn check(net: &Net, budget: &Budget) -> Outcome {
    let needs = match enabling_needs(net) {
        Ok(needs) => needs,
        Err(t) => {
            return Outcome {
                answer: Answer::AlwaysEnabled(t),
                work: Work::default(),
            }
        }
    };
    with_solver(budget, || {
        let mut equation = Equation::new(net);
        equation.assert(&every_transition_disabled(&equation.marking, &needs));
        let answer = match equation.search(None, budget, None) {
            Search::Unsatisfiable => Answer::NoDeadlock,
            Search::Fired(sequence) => Answer::Deadlock(sequence),
            Search::Candidate(first) => Answer::Candidate(first),
            Search::Stopped(_) | Search::OutOfTime => Answer::Stopped,
            Search::Unknown(why) => Answer::Unknown(why),
        };
        Outcome {
            answer,
            work: equation.work,
        }
    })
}

/// Per transition: the places it needs and how many tokens, sorted by place (an input
/// arc's weight, 1 for a read arc, the larger where both). `Err(t)`: transition `t`
/// needs nothing.
fn enabling_needs(net: &Net) -> Result<Vec<Vec<(usize, u32)>>, usize> {
    net.transitions
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let needs: Vec<(usize, u32)> = t.needs().into_iter().map(|(p, w)| (p.index(), w)).collect();
            if needs.is_empty() {
                Err(i)
            } else {
                Ok(needs)
            }
        })
        .collect()
}

/// Every transition disabled in `marking`; transitions with the same needs share one
/// clause.
fn every_transition_disabled(marking: &[Int], needs: &[Vec<(usize, u32)>]) -> Bool {
    let mut clauses: Vec<&Vec<(usize, u32)>> = needs.iter().collect();
    clauses.sort();
    clauses.dedup();
    let mut too_few: HashMap<(usize, u32), Bool> = HashMap::new();
    let clauses: Vec<Bool> = clauses
        .into_iter()
        .map(|clause| {
            let literals: Vec<Bool> = clause
                .iter()
                .map(|&(p, w)| {
                    too_few
                        .entry((p, w))
                        .or_insert_with(|| marking[p].lt(Int::from_u64(u64::from(w))))
                        .clone()
                })
                .collect();
            Bool::or(&literals)
        })
        .collect();
    Bool::and(&clauses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle(tokens: u32) -> Net {
        let mut net = Net::default();
        let a = net.add_place("a", None, tokens);
        let b = net.add_place("b", None, 0);
        net.add_transition_between("t", &[a], &[b]);
        net.add_transition_between("u", &[b], &[a]);
        net
    }

    #[test]
    fn a_marked_cycle_has_no_dead_solution() {
        let outcome = check(&cycle(1), &Budget::unlimited());
        assert_eq!(outcome.answer, Answer::NoDeadlock);
    }

    #[test]
    fn an_empty_cycle_is_dead_at_once() {
        let outcome = check(&cycle(0), &Budget::unlimited());
        assert_eq!(outcome.answer, Answer::Deadlock(Vec::new()));
    }

    #[test]
    fn a_trap_rules_out_what_the_state_equation_allows() {
        // One token on p. t takes two and gives one back (never enabled); s takes one and
        // gives it back (always enabled). The state equation lets t fire once and empty
        // p, where both are disabled; but {p} is a marked trap, so p stays marked.
        let mut net = Net::default();
        let p = net.add_place("p", None, 1);
        let t = net.add_transition("t", None);
        net.add_pre(t, p, 2);
        net.add_post(t, p, 1);
        net.add_transition_between("s", &[p], &[p]);
        let outcome = check(&net, &Budget::unlimited());
        assert_eq!(outcome.answer, Answer::NoDeadlock);
        assert_eq!(outcome.work.trap_constraints, 1);
    }

    #[test]
    fn a_transition_without_needs_is_always_enabled() {
        let mut net = cycle(0);
        net.add_transition("free", None);
        assert_eq!(check(&net, &Budget::unlimited()).answer, Answer::AlwaysEnabled(2));
    }

    #[test]
    fn a_cancelled_budget_stops_the_solver() {
        let budget = Budget::unlimited();
        budget.cancel_token().cancel();
        assert_eq!(check(&cycle(1), &budget).answer, Answer::Stopped);
    }
}
