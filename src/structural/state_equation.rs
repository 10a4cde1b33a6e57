//! A proof of deadlock freedom from the state equation (`--engine lp`).
//!
//! Every reachable marking `m` satisfies `m = m0 + C·x` for some `x ≥ 0` counting how
//! often each transition fired (`C[p][t]` = output minus input of `t` on `p`; read arcs
//! cancel out). So if no integer `x ≥ 0` gives a marking `m ≥ 0` in which every
//! transition is disabled — for each `t`, some place `p` with `m(p)` below what `t`
//! needs there — no reachable marking is dead. The question goes to Z3 as linear integer
//! arithmetic: one integer per transition and per place, and per transition the
//! disjunction of its "too few tokens" literals (each literal made once and shared).
//!
//! A solution is only a candidate: the state equation over-approximates reachability. It
//! is refined with traps (Esparza & Melzer, "Verification of safety properties using
//! integer programming: beyond the state equation", FMSD 2000): a set of places `Q`
//! such that every transition that takes a token from `Q` puts one back, or reads a place
//! of `Q` it does not consume from, stays marked once marked. The largest trap among the places the candidate
//! leaves empty, if it is initially marked, gives the valid constraint `Σ_{p∈Q} m(p) ≥ 1`
//! that rules the candidate out; the solver is asked again. When the largest such trap is
//! unmarked, no trap rules the candidate out: the solver's transition counts are then
//! searched for a firing order ([`super::realise`]); one that fires makes the candidate a
//! reachable dead marking, with its witness. Otherwise the answer stays open.
//!
//! For ordinary nets this subsumes the siphon–trap argument (Commoner's property, which
//! decides liveness of free-choice nets): in a dead marking of an ordinary net the empty
//! places form a siphon, so when every siphon holds an initially marked trap, every
//! candidate's empty places hold one, each round adds the constraint of a trap not seen
//! before, and the check ends with a proof unless it runs out of rounds
//! ([`MAX_TRAP_CONSTRAINTS`]).
//!
//! Z3 was chosen over the pure-Rust MILP solver microlp by measurement on the MCC
//! development nets (docs/engines.md): with the same encoding Z3 proved 46 of the 50
//! deadlock-free nets it was given in under 0.2 s each, microlp 33, and microlp needs
//! bounds on every place to linearise the disjunctions soundly.

use super::realise::{realise, Realisation};
use crate::engine::Budget;
use crate::system::net::Net;
use hashbrown::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use z3::ast::{Bool, Int};
use z3::{Config, Context, Params, SatResult, Solver};

/// Most trap constraints added before the candidate is left standing.
const MAX_TRAP_CONSTRAINTS: usize = 200;

/// Most remainders the search for a firing order of a candidate visits (each a vector of
/// one count per transition).
const MAX_REMAINDERS: usize = 1 << 16;

/// Most candidates set aside, when no firing order is found for them, to look for
/// another dead solution.
const MAX_SET_ASIDE: usize = 20;

/// How often the watcher looks at the budget while Z3 works.
const WATCH_INTERVAL: Duration = Duration::from_millis(5);

/// What the state equation says about a net.
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
    /// Trap constraints added.
    pub trap_constraints: u64,
    /// Calls of the solver.
    pub solver_calls: u64,
    /// Dead solutions set aside after no firing order was found for them.
    pub set_aside: u64,
}

/// Asks whether the state equation of `net` has a dead solution, within `budget`.
pub(crate) fn check(net: &Net, budget: &Budget) -> Outcome {
    let needs = match enabling_needs(net) {
        Ok(needs) => needs,
        Err(t) => {
            return Outcome {
                answer: Answer::AlwaysEnabled(t),
                trap_constraints: 0,
                solver_calls: 0,
                set_aside: 0,
            }
        }
    };
    let columns = incidence(net);
    z3::with_z3_config(&Config::new(), || {
        let ctx = Context::thread_local();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let handle = ctx.handle();
            let done = &done;
            // Z3 cannot see the cancel token: a watcher interrupts it when the budget
            // ends, whatever the reason.
            scope.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    if budget.exhausted().is_some() {
                        handle.interrupt();
                        return;
                    }
                    std::thread::sleep(WATCH_INTERVAL);
                }
            });
            let outcome = solve(net, &columns, &needs, budget);
            done.store(true, Ordering::Relaxed);
            outcome
        })
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

/// Per transition: (place, output − input) where it is not zero.
fn incidence(net: &Net) -> Vec<Vec<(usize, i64)>> {
    net.transitions
        .iter()
        .map(|t| {
            let mut column: HashMap<usize, i64> = HashMap::new();
            for &(p, w) in &t.pre {
                *column.entry(p.index()).or_default() -= i64::from(w);
            }
            for &(p, w) in &t.post {
                *column.entry(p.index()).or_default() += i64::from(w);
            }
            let mut column: Vec<(usize, i64)> = column.into_iter().filter(|&(_, c)| c != 0).collect();
            column.sort_unstable();
            column
        })
        .collect()
}

fn solve(net: &Net, columns: &[Vec<(usize, i64)>], needs: &[Vec<(usize, u32)>], budget: &Budget) -> Outcome {
    let solver = Solver::new();
    let zero = Int::from_i64(0);
    let fired: Vec<Int> = (0..columns.len())
        .map(|t| Int::new_const(format!("x{t}")))
        .collect();
    let mut sums: Vec<Vec<Int>> = vec![Vec::new(); net.places.len()];
    for (t, column) in columns.iter().enumerate() {
        if column.is_empty() {
            continue;
        }
        solver.assert(fired[t].ge(&zero));
        for &(p, c) in column {
            sums[p].push(&fired[t] * c);
        }
    }
    let marking: Vec<Int> = (0..net.places.len())
        .map(|p| Int::new_const(format!("m{p}")))
        .collect();
    for (p, mut sum) in sums.into_iter().enumerate() {
        sum.push(Int::from_u64(u64::from(net.places[p].initial)));
        solver.assert(marking[p].eq(Int::add(&sum)));
        solver.assert(marking[p].ge(&zero));
    }
    // Every transition disabled; transitions with the same needs share one clause.
    let mut clauses: Vec<&Vec<(usize, u32)>> = needs.iter().collect();
    clauses.sort();
    clauses.dedup();
    let mut too_few: HashMap<(usize, u32), Bool> = HashMap::new();
    for clause in clauses {
        let literals: Vec<Bool> = clause
            .iter()
            .map(|&(p, w)| {
                too_few
                    .entry((p, w))
                    .or_insert_with(|| marking[p].lt(Int::from_u64(u64::from(w))))
                    .clone()
            })
            .collect();
        solver.assert(Bool::or(&literals));
    }
    let mut outcome = Outcome {
        answer: Answer::Stopped,
        trap_constraints: 0,
        solver_calls: 0,
        set_aside: 0,
    };
    // The first dead solution no trap rules out and no firing order was found for.
    let mut unfired: Option<Vec<u64>> = None;
    loop {
        if budget.exhausted().is_some() {
            return outcome;
        }
        if let Some(left) = budget
            .deadline()
            .map(|d| d.saturating_duration_since(Instant::now()))
        {
            let mut params = Params::new();
            params.set_u32("timeout", left.as_millis().clamp(1, u128::from(u32::MAX)) as u32);
            solver.set_params(&params);
        }
        outcome.solver_calls += 1;
        match solver.check() {
            SatResult::Unsat => {
                outcome.answer = match unfired {
                    None => Answer::NoDeadlock,
                    Some(first) => Answer::Candidate(first),
                };
                return outcome;
            }
            SatResult::Unknown => {
                if budget.exhausted().is_none() {
                    let why = solver.get_reason_unknown().unwrap_or_default();
                    outcome.answer = Answer::Unknown(why);
                }
                return outcome;
            }
            SatResult::Sat => {}
        }
        let Some((candidate, counts)) = solver.get_model().and_then(|model| {
            let read = |v: &Int| model.eval(v, true)?.as_u64();
            let candidate = marking.iter().map(read).collect::<Option<Vec<u64>>>()?;
            // A transition that changes nothing has no constraint: it need not fire.
            let counts = fired
                .iter()
                .zip(columns)
                .map(|(x, column)| if column.is_empty() { Some(0) } else { read(x) })
                .collect::<Option<Vec<u64>>>()?;
            Some((candidate, counts))
        }) else {
            outcome.answer = Answer::Unknown("Z3 gave no readable model".into());
            return outcome;
        };
        let trap = largest_trap_within(net, &candidate);
        let marked = trap.iter().any(|&p| net.places[p].initial > 0);
        if !marked || outcome.trap_constraints as usize >= MAX_TRAP_CONSTRAINTS {
            match realise(net, &counts, budget, MAX_REMAINDERS) {
                Realisation::Found(sequence) => {
                    outcome.answer = Answer::Deadlock(sequence);
                    return outcome;
                }
                Realisation::Stopped(_) => return outcome,
                Realisation::NotFound => {}
            }
            let first = unfired.get_or_insert(candidate.clone());
            if outcome.set_aside as usize >= MAX_SET_ASIDE {
                outcome.answer = Answer::Candidate(first.clone());
                return outcome;
            }
            // Look for another dead solution. This one is not shown unreachable, so from
            // now on an unsatisfiable system proves nothing.
            outcome.set_aside += 1;
            let differs: Vec<Bool> = marking
                .iter()
                .zip(&candidate)
                .map(|(m, &v)| m.eq(Int::from_u64(v)).not())
                .collect();
            solver.assert(Bool::or(&differs));
            continue;
        }
        let tokens: Vec<Int> = trap.iter().map(|&p| marking[p].clone()).collect();
        solver.assert(Int::add(&tokens).ge(Int::from_i64(1)));
        outcome.trap_constraints += 1;
    }
}

/// The largest trap among the places `marking` leaves empty: starting from all of them,
/// drop the input places of every transition that takes from the set but neither puts a
/// token back nor reads a place of it that it does not also consume from, until nothing
/// changes.
fn largest_trap_within(net: &Net, marking: &[u64]) -> Vec<usize> {
    let mut inside: Vec<bool> = marking.iter().map(|&m| m == 0).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for t in &net.transitions {
            let takes = t.pre.iter().any(|&(p, _)| inside[p.index()]);
            // A read place it also consumes from may be emptied by the same firing.
            let keeps = t.post.iter().any(|&(p, _)| inside[p.index()])
                || t.read.iter().any(|&p| inside[p.index()] && t.pre_weight(p) == 0);
            if takes && !keeps {
                for &(p, _) in &t.pre {
                    changed |= std::mem::replace(&mut inside[p.index()], false);
                }
            }
        }
    }
    (0..inside.len()).filter(|&p| inside[p]).collect()
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
        assert_eq!(outcome.trap_constraints, 1);
        assert_eq!(largest_trap_within(&net, &[0]), vec![0]);
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
