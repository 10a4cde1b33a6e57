//! Upper bounds of place sums from the state equation. For a list of places `S` (a place
//! listed twice counts twice) the bound is the maximum of `Σ_{p∈S} m(p)` over the integer
//! solutions of `m = m0 + C·x`, `x ≥ 0`, `m ≥ 0` and the trap constraints learnt so far,
//! as Z3's `Optimize` finds it. It is sound because every reachable marking is such a
//! solution — with `x` counting how often each transition fired on the way to it — and
//! satisfies every trap constraint (a marked trap stays marked), so no reachable marking
//! puts more tokens on `S`; it may be loose, since not every solution is reachable. When
//! the solutions put arbitrarily many tokens on `S`, the sum gets no bound; that is decided
//! first, by looking for a ray of the solutions that adds tokens to `S`
//! ([`unbounded_places`]), since Z3's `Optimize` may search forever for the maximum of an
//! unbounded integer objective.
//!
//! Trap refinement (as in [`super`]): an optimal solution whose empty places hold an
//! initially marked trap `Q` is not reachable, and `Σ_{p∈Q} m(p) ≥ 1` rules it out; the
//! maximum is asked again, up to [`MAX_TRAP_CONSTRAINTS`] times per sum. Each maximum
//! along the way is a bound already, so refinement only tightens it. A maximum equal to
//! the sum in the initial marking is exact and is not refined. No trap constraint bounds
//! an unbounded sum: a ray keeps every place's tokens (`C·d ≥ 0`), so a solution that
//! satisfies the constraint still does after any number of steps along it. Trap
//! constraints hold in every reachable marking, so those learnt for one sum stay for the
//! next.
//!
//! A maximum is exact when some reachable marking attains it. The optimal solution's
//! transition counts say which run could: [`realise`] looks for an order that fires them
//! from the initial marking (as the deadlock search does with its dead solutions), and a
//! found one is the bound's witness. Nets whose bounds need long coordinated runs (many
//! tokens moved through a pipeline) are out of reach of random walks, not of this.
//!
//! All sums of a call share one context and one `Optimize`: the equation is asserted
//! once, each sum's objective and its trap constraints sit behind `push`/`pop`, and the
//! trap constraints are asserted again after the `pop`.

use super::{largest_trap_within, with_solver, Equation, MAX_REMAINDERS, MAX_TRAP_CONSTRAINTS};
use crate::engine::{Budget, StopReason};
use crate::structural::realise::{realise, Realisation};
use crate::system::net::{Net, PlaceId};
use z3::ast::{Ast, Bool, Int};
use z3::{AstKind, Optimize, SatResult, Solver};

/// Proved upper bounds of place sums, and whether the budget stopped the run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BoundsOutcome {
    /// Per sum, in the order given: a bound no reachable marking exceeds, or `None` when
    /// none was proved (the state equation allows arbitrarily many tokens, the sum was not
    /// asked before the budget ran out, or Z3 gave up).
    pub bounds: Vec<Option<u64>>,
    /// Per sum: a firing sequence (transitions by index) to a marking that puts the
    /// bound's tokens on the sum, when the maximising solution could be fired (so the
    /// bound is exact).
    pub reached: Vec<Option<Vec<usize>>>,
    /// Why the run stopped before every sum was asked, if it did.
    pub stopped: Option<StopReason>,
}

/// Proved upper bounds of the token sums over `sums` (each a list of places; a place
/// listed twice counts twice).
pub(crate) fn upper_bounds(net: &Net, sums: &[Vec<PlaceId>], budget: &Budget) -> BoundsOutcome {
    upper_bounds_refined(net, sums, budget, MAX_TRAP_CONSTRAINTS)
}

/// [`upper_bounds`] with at most `max_traps` trap constraints per sum (0: the plain state
/// equation).
fn upper_bounds_refined(
    net: &Net,
    sums: &[Vec<PlaceId>],
    budget: &Budget,
    max_traps: usize,
) -> BoundsOutcome {
    let mut outcome = BoundsOutcome {
        bounds: vec![None; sums.len()],
        reached: vec![None; sums.len()],
        stopped: None,
    };
    if sums.iter().all(|places| places.is_empty()) {
        outcome.bounds.fill(Some(0));
        return outcome;
    }
    with_solver(budget, || {
        let equation = Equation::new(net);
        let unbounded = match unbounded_places(&equation, budget) {
            Ok(unbounded) => unbounded,
            Err(why) => {
                outcome.stopped = Some(why);
                return outcome;
            }
        };
        let optimize = Optimize::new();
        for constraint in equation.solver.get_assertions() {
            optimize.assert(&constraint);
        }
        let mut maximiser = Maximiser {
            net,
            marking: &equation.marking,
            fired: &equation.fired,
            columns: &equation.columns,
            optimize,
            budget,
            max_traps,
        };
        for ((bound, reached), places) in outcome.bounds.iter_mut().zip(&mut outcome.reached).zip(sums) {
            if places.iter().any(|p| unbounded[p.index()]) {
                continue;
            }
            if let Some(why) = budget.exhausted() {
                outcome.stopped = Some(why);
                break;
            }
            match maximiser.maximum(places) {
                Maximum::Bounded(b, counts) => {
                    *bound = Some(b);
                    let Some(counts) = counts else { continue };
                    match realise(net, &counts, budget, MAX_REMAINDERS) {
                        Realisation::Found(sequence) => *reached = Some(sequence),
                        Realisation::NotFound => {}
                        Realisation::Stopped(why) => {
                            outcome.stopped = Some(why);
                            break;
                        }
                    }
                }
                Maximum::GaveUp(best) => *bound = best,
                Maximum::Stopped(why, best) => {
                    *bound = best;
                    outcome.stopped = Some(why);
                    break;
                }
            }
        }
        outcome
    })
}

/// Per place: whether the state equation lets it hold arbitrarily many tokens, that is
/// whether a ray `d ≥ 0` with `C·d ≥ 0` puts tokens on it (adding `k·d` to a solution's
/// counts gives a solution for every `k`, and a rational ray scales to an integer one);
/// also `true` for the places Z3 gave up on. Rays add up, so each round asks for a ray
/// that puts tokens on some place not yet known to be unbounded and marks every place it
/// puts tokens on.
///
/// Z3's `Optimize` cannot be trusted to see an unbounded integer objective (it may search
/// forever), so only the sums this leaves bounded are maximised.
fn unbounded_places(equation: &Equation, budget: &Budget) -> Result<Vec<bool>, StopReason> {
    let solver = Solver::new();
    let zero = Int::from_i64(0);
    let mut changes: Vec<Vec<Int>> = vec![Vec::new(); equation.marking.len()];
    for (t, column) in equation.columns.iter().enumerate() {
        if column.is_empty() {
            continue;
        }
        let d = Int::new_const(format!("d{t}"));
        solver.assert(d.ge(&zero));
        for &(p, c) in column {
            changes[p].push(&d * c);
        }
    }
    // Per place its change along the ray; `None` for a place no transition changes.
    let changes: Vec<Option<Int>> = changes
        .iter()
        .map(|terms| (!terms.is_empty()).then(|| Int::add(terms)))
        .collect();
    for change in changes.iter().flatten() {
        solver.assert(change.ge(&zero));
    }
    let mut unbounded = vec![false; changes.len()];
    loop {
        let open: Vec<usize> = (0..changes.len())
            .filter(|&p| changes[p].is_some() && !unbounded[p])
            .collect();
        if open.is_empty() {
            return Ok(unbounded);
        }
        let gains: Vec<&Int> = open.iter().filter_map(|&p| changes[p].as_ref()).collect();
        solver.push();
        solver.assert(Int::add(&gains).ge(Int::from_i64(1)));
        let answer = solver.check();
        let model = solver.get_model();
        solver.pop(1);
        // An interrupted check may answer anything; the watcher interrupts only once the
        // budget is exhausted, and it stays so.
        if let Some(why) = budget.exhausted() {
            return Err(why);
        }
        match answer {
            SatResult::Unsat => return Ok(unbounded),
            SatResult::Sat => {}
            SatResult::Unknown => {
                for p in open {
                    unbounded[p] = true;
                }
                return Ok(unbounded);
            }
        }
        // A place whose change the model does not tell counts as gained (no bound, sound).
        let gains = |p: &usize| {
            let change = model.as_ref().and_then(|m| m.eval(changes[*p].as_ref()?, true));
            change.and_then(|c| c.as_i64()).is_none_or(|c| c > 0)
        };
        let gained: Vec<usize> = open.iter().copied().filter(gains).collect();
        debug_assert!(!gained.is_empty(), "[qpor internal bug] a ray that gains nothing");
        // Without a gain the same question would come back: give every open place up.
        let gained = if gained.is_empty() { open } else { gained };
        for p in gained {
            unbounded[p] = true;
        }
    }
}

/// How the question for one sum's maximum ended.
enum Maximum {
    /// No solution puts more tokens on the sum; with the transition counts of a solution
    /// that puts that many, when the bound exceeds the initial sum.
    Bounded(u64, Option<Vec<u64>>),
    /// Z3 gave up for a reason of its own, after proving the bound given, if any.
    GaveUp(Option<u64>),
    /// The budget ran out, after the bound given was proved, if any.
    Stopped(StopReason, Option<u64>),
}

/// The state equation in an `Optimize`, asked for one sum's maximum after another.
struct Maximiser<'a> {
    net: &'a Net,
    /// The marking's variables, one per place.
    marking: &'a [Int],
    /// The transition counts' variables, one per transition.
    fired: &'a [Int],
    /// Per transition: (place, output − input) where it is not zero.
    columns: &'a [Vec<(usize, i64)>],
    optimize: Optimize,
    budget: &'a Budget,
    /// Most trap constraints one sum adds.
    max_traps: usize,
}

impl Maximiser<'_> {
    /// The maximum of the sum over `places`, refined with traps; no place of it may be
    /// unbounded ([`unbounded_places`]).
    fn maximum(&mut self, places: &[PlaceId]) -> Maximum {
        if places.is_empty() {
            return Maximum::Bounded(0, None);
        }
        let terms: Vec<&Int> = places.iter().map(|p| &self.marking[p.index()]).collect();
        let sum = Int::add(&terms);
        // Reached by the initial marking, so no maximum is below it.
        let initial: u64 = places
            .iter()
            .map(|p| u64::from(self.net.places[p.index()].initial))
            .sum();
        self.optimize.push();
        self.optimize.maximize(&sum);
        let mut learnt: Vec<Bool> = Vec::new();
        let mut best: Option<u64> = None;
        let answer = loop {
            let answer = self.optimize.check(&[]);
            // An interrupted check may answer anything (see `unbounded_places`).
            if let Some(why) = self.budget.exhausted() {
                break Maximum::Stopped(why, best);
            }
            if answer != SatResult::Sat {
                break Maximum::GaveUp(best);
            }
            let Some(upper) = self.upper() else {
                break Maximum::GaveUp(best);
            };
            debug_assert!(
                upper >= initial,
                "[qpor internal bug] maximum {upper} below the initial sum {initial}"
            );
            debug_assert!(
                best.is_none_or(|b| upper <= b),
                "[qpor internal bug] a trap constraint raised the maximum"
            );
            best = Some(upper);
            if upper <= initial {
                break Maximum::Bounded(upper, None);
            }
            if learnt.len() >= self.max_traps {
                break Maximum::Bounded(upper, self.counts());
            }
            let Some(candidate) = self.solution() else {
                break Maximum::Bounded(upper, None);
            };
            let trap = largest_trap_within(self.net, &candidate);
            if !trap.iter().any(|&p| self.net.places[p].initial > 0) {
                break Maximum::Bounded(upper, self.counts());
            }
            let tokens: Vec<&Int> = trap.iter().map(|&p| &self.marking[p]).collect();
            let constraint = Int::add(&tokens).ge(Int::from_i64(1));
            self.optimize.assert(&constraint);
            learnt.push(constraint);
        };
        self.optimize.pop();
        for constraint in &learnt {
            self.optimize.assert(constraint);
        }
        answer
    }

    /// The objective's upper bound after a satisfiable check, or `None` when it is not a
    /// number (Z3 writes an unbounded maximum with its symbol for infinity, which no ray
    /// should leave possible).
    fn upper(&self) -> Option<u64> {
        debug_assert_eq!(self.optimize.get_objectives().len(), 1);
        let upper = self.optimize.get_upper(0)?;
        if upper.kind() != AstKind::Numeral {
            return None;
        }
        upper.as_int()?.as_u64()
    }

    /// The transition counts of the optimal solution (a transition that changes nothing
    /// need not fire).
    fn counts(&self) -> Option<Vec<u64>> {
        let model = self.optimize.get_model()?;
        self.fired
            .iter()
            .zip(self.columns)
            .map(|(x, column)| {
                if column.is_empty() {
                    Some(0)
                } else {
                    model.eval(x, true)?.as_u64()
                }
            })
            .collect()
    }

    /// The marking of the optimal solution.
    fn solution(&self) -> Option<Vec<u64>> {
        let model = self.optimize.get_model()?;
        self.marking
            .iter()
            .map(|m| model.eval(m, true)?.as_u64())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::TransId;
    use hashbrown::HashSet;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use std::cell::Cell;
    use std::collections::VecDeque;

    /// Every marking reachable from the initial one, or `None` when there are more than
    /// `limit`.
    fn reachable(net: &Net, limit: usize) -> Option<Vec<Vec<u32>>> {
        let initial = net.initial_marking();
        let mut seen: HashSet<Vec<u32>> = HashSet::from_iter([initial.clone()]);
        let mut queue = VecDeque::from([initial]);
        let mut all = Vec::new();
        while let Some(marking) = queue.pop_front() {
            for t in 0..net.transitions.len() {
                let mut next = marking.clone();
                if net.fire(&mut next, TransId(t as u32)) && seen.insert(next.clone()) {
                    if seen.len() > limit {
                        return None;
                    }
                    queue.push_back(next);
                }
            }
            all.push(marking);
        }
        Some(all)
    }

    /// The largest token sum over `places` in any of `markings`.
    fn true_maximum(markings: &[Vec<u32>], places: &[PlaceId]) -> u64 {
        markings
            .iter()
            .map(|m| places.iter().map(|p| u64::from(m[p.index()])).sum())
            .max()
            .unwrap_or(0)
    }

    fn bounds(net: &Net, sums: &[Vec<PlaceId>]) -> Vec<Option<u64>> {
        let outcome = upper_bounds(net, sums, &Budget::new(None));
        assert_eq!(outcome.stopped, None);
        outcome.bounds
    }

    /// A token going round `a → b → c → a`.
    fn cycle() -> (Net, [PlaceId; 3]) {
        let (mut net, [a, b, c]) = Net::with_places([("a", 1), ("b", 0), ("c", 0)]);
        net.add_transition_between("ab", &[a], &[b]);
        net.add_transition_between("bc", &[b], &[c]);
        net.add_transition_between("ca", &[c], &[a]);
        (net, [a, b, c])
    }

    #[test]
    fn a_token_on_a_cycle_is_one_safe() {
        let (net, [a, b, c]) = cycle();
        let sums = [vec![a], vec![b], vec![c], vec![a, b, c], vec![a, a]];
        assert_eq!(bounds(&net, &sums), [Some(1), Some(1), Some(1), Some(1), Some(2)]);
    }

    #[test]
    fn a_producer_leaves_its_place_unbounded() {
        let (mut net, [p, q]) = Net::with_places([("p", 0), ("q", 3)]);
        net.add_transition_between("produce", &[], &[p]);
        let sums = [vec![p], vec![q], vec![p, q], Vec::new()];
        assert_eq!(bounds(&net, &sums), [None, Some(3), None, Some(0)]);
    }

    #[test]
    fn two_tokens_meet_in_one_place() {
        let (mut net, [a, b, c]) = Net::with_places([("a", 1), ("b", 1), ("c", 0)]);
        net.add_transition_between("ac", &[a], &[c]);
        net.add_transition_between("bc", &[b], &[c]);
        assert_eq!(
            bounds(&net, &[vec![c], vec![a], vec![a, b, c]]),
            [Some(2), Some(1), Some(2)]
        );
    }

    #[test]
    fn a_trap_makes_a_spurious_bound_exact() {
        // p holds one token; t needs two on p to put one on q, so q stays empty. The
        // equation lets t fire once (p = 0, q = 1), but {p} is a marked trap: p ≥ 1.
        let (mut net, [p, q]) = Net::with_places([("p", 1), ("q", 0)]);
        let t = net.add_transition("t", None);
        net.add_pre(t, p, 2);
        net.add_post(t, p, 1);
        net.add_post(t, q, 1);
        let sums = [vec![q]];
        let plain = upper_bounds_refined(&net, &sums, &Budget::new(None), 0);
        assert_eq!(plain.bounds, [Some(1)]);
        assert_eq!(bounds(&net, &sums), [Some(0)]);
        assert_eq!(true_maximum(&reachable(&net, 10).unwrap(), &[q]), 0);
    }

    #[test]
    fn the_state_equation_over_approximates_what_no_trap_explains() {
        // a is empty and t needs it (and gives it back), so t never fires and q stays
        // empty. The equation ignores the loop on a and lets t fire as often as s allows.
        // Twice empties s; {a, s} is then a marked trap, so s ≥ 1 and t fires at most once;
        // the remaining solution (q = 1) has only {a} empty, an unmarked trap.
        let (mut net, [a, s, q]) = Net::with_places([("a", 0), ("s", 2), ("q", 0)]);
        net.add_transition_between("t", &[a, s], &[a, q]);
        let sums = [vec![q]];
        let plain = upper_bounds_refined(&net, &sums, &Budget::new(None), 0);
        assert_eq!(plain.bounds, [Some(2)]);
        let refined = bounds(&net, &sums);
        assert_eq!(refined, [Some(1)]);
        assert!(refined[0].unwrap() >= true_maximum(&reachable(&net, 10).unwrap(), &[q]));
    }

    #[test]
    fn a_maximum_behind_a_long_run_comes_with_the_run() {
        // 500 tokens move one by one from p through q to r: r's bound is 500, and the
        // maximising solution's counts (t and u 500 times each) fire in some order.
        let (mut net, [p, q, r]) = Net::with_places([("p", 500), ("q", 0), ("r", 0)]);
        net.add_transition_between("t", &[p], &[q]);
        net.add_transition_between("u", &[q], &[r]);
        let outcome = upper_bounds(&net, &[vec![r], vec![p]], &Budget::new(None));
        assert_eq!(outcome.bounds, vec![Some(500), Some(500)]);
        let run = outcome.reached[0].as_ref().expect("the maximum is realised");
        let reached = net.marking_after(run.iter().map(|&t| TransId(t as u32)));
        assert_eq!(reached.map(|m| m[r.index()]), Some(500));
        // p's maximum is its initial count: nothing to fire, no run.
        assert_eq!(outcome.reached[1], None);
    }

    #[test]
    fn a_cancelled_budget_proves_nothing() {
        let (net, [a, b, c]) = cycle();
        let budget = Budget::new(None);
        budget.cancel_token().cancel();
        let outcome = upper_bounds(&net, &[vec![a], vec![b, c]], &budget);
        assert_eq!(outcome.bounds, [None, None]);
        assert_eq!(outcome.stopped, Some(StopReason::Cancelled));
    }

    /// A random net: per place its initial tokens, per transition its input and output
    /// weights on each place (0 for no arc); and place indices for one more sum.
    #[derive(Clone, Debug)]
    struct RandomNet {
        initial: Vec<u32>,
        transitions: Vec<(Vec<u32>, Vec<u32>)>,
        extra_sum: Vec<usize>,
    }

    impl RandomNet {
        fn net(&self) -> Net {
            let mut net = Net::default();
            let places: Vec<PlaceId> = self
                .initial
                .iter()
                .enumerate()
                .map(|(i, &k)| net.add_place(format!("p{i}"), None, k))
                .collect();
            for (i, (pre, post)) in self.transitions.iter().enumerate() {
                let t = net.add_transition(format!("t{i}"), None);
                for (&p, (&w_pre, &w_post)) in places.iter().zip(pre.iter().zip(post)) {
                    if w_pre > 0 {
                        net.add_pre(t, p, w_pre);
                    }
                    if w_post > 0 {
                        net.add_post(t, p, w_post);
                    }
                }
            }
            net
        }
    }

    fn random_net() -> impl Strategy<Value = RandomNet> {
        (1usize..=5, 0usize..=6).prop_flat_map(|(places, transitions)| {
            let weight = prop_oneof![3 => Just(0u32), 2 => Just(1u32), 1 => Just(2u32)];
            let weights = prop::collection::vec(weight, places);
            (
                prop::collection::vec(0u32..=2, places),
                prop::collection::vec((weights.clone(), weights), transitions),
                prop::collection::vec(0..places, 1..=4),
            )
                .prop_map(|(initial, transitions, extra_sum)| RandomNet {
                    initial,
                    transitions,
                    extra_sum,
                })
        })
    }

    #[test]
    fn bounds_are_sound_on_random_nets() {
        let config = Config {
            cases: 300,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
        // Sums with a finite reachable maximum, and those among them bounded exactly.
        let checked = Cell::new(0usize);
        let exact = Cell::new(0usize);
        let result = runner.run(&random_net(), |random| {
            let net = random.net();
            let Some(markings) = reachable(&net, 2000) else {
                return Ok(());
            };
            let mut sums: Vec<Vec<PlaceId>> =
                (0..net.places.len()).map(|p| vec![PlaceId(p as u32)]).collect();
            sums.push((0..net.places.len()).map(|p| PlaceId(p as u32)).collect());
            sums.push(random.extra_sum.iter().map(|&p| PlaceId(p as u32)).collect());
            let outcome = upper_bounds(&net, &sums, &Budget::new(None));
            prop_assert_eq!(outcome.stopped, None);
            for (places, bound) in sums.iter().zip(&outcome.bounds) {
                let truth = true_maximum(&markings, places);
                checked.set(checked.get() + 1);
                if let Some(b) = *bound {
                    prop_assert!(
                        b >= truth,
                        "bound {} of {:?} below the reachable {}",
                        b,
                        places,
                        truth
                    );
                    if b == truth {
                        exact.set(exact.get() + 1);
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
        // Sound bounds could all be huge: most must be exact on such small nets.
        assert!(checked.get() >= 300, "only {} sums checked", checked.get());
        assert!(
            exact.get() * 10 >= checked.get() * 7,
            "{} of {} sums bounded exactly",
            exact.get(),
            checked.get()
        );
    }
}
