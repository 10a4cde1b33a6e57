//! Proofs from the state equation (`--engine lp`): that no reachable marking is dead
//! ([`deadlock`]), or that none satisfies a property's target ([`property`]).
//!
//! Every reachable marking `m` satisfies `m = m0 + C·x` for some `x ≥ 0` counting how
//! often each transition fired (`C[p][t]` = output minus input of `t` on `p`; read arcs
//! cancel out). So if no integer `x ≥ 0` gives a marking `m ≥ 0` with the looked-for
//! feature — every transition disabled, or a property's target — no reachable marking has
//! it. The question goes to Z3 as linear integer arithmetic: one integer per transition
//! and per place, and the feature as a Boolean combination of linear constraints on the
//! places.
//!
//! A solution is only a candidate: the state equation over-approximates reachability. It
//! is refined with traps (Esparza & Melzer, "Verification of safety properties using
//! integer programming: beyond the state equation", FMSD 2000): a set of places `Q`
//! such that every transition that takes a token from `Q` puts one back, or reads a place
//! of `Q` it does not consume from, stays marked once marked. The largest trap among the
//! places the candidate leaves empty, if it is initially marked, gives the valid
//! constraint `Σ_{p∈Q} m(p) ≥ 1` that rules the candidate out; the solver is asked again.
//! When the largest such trap is unmarked, no trap rules the candidate out: the solver's
//! transition counts are then searched for a firing order ([`super::realise`]); one that
//! fires makes the candidate reachable, with its witness. Otherwise the candidate is set
//! aside and the solver asked for another; once one is set aside, an unsatisfiable system
//! proves nothing more.
//!
//! A trap constraint holds in every reachable marking, so it is kept for every later
//! question on the same net; what is particular to a question (its target, the candidates
//! it set aside) is asserted behind a guard literal the solver assumes only while that
//! question is asked.
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

pub(crate) mod bounds;
pub(crate) mod deadlock;
pub(crate) mod property;

use super::realise::{realise, Realisation};
use crate::engine::{Budget, StopReason};
use crate::system::net::Net;
use hashbrown::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use z3::ast::{Bool, Int};
use z3::{Config, Context, Params, SatResult, Solver};

/// Most trap constraints one question adds before its candidate is left standing.
const MAX_TRAP_CONSTRAINTS: usize = 200;

/// Most remainders the search for a firing order of a candidate visits (each a vector of
/// one count per transition).
const MAX_REMAINDERS: usize = 1 << 16;

/// Most candidates set aside, when no firing order is found for them, to look for
/// another solution.
const MAX_SET_ASIDE: usize = 20;

/// How often the watcher looks at the budget while Z3 works.
const WATCH_INTERVAL: Duration = Duration::from_millis(5);

/// How one question to the refined state equation ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Search {
    /// No solution: no reachable marking has the feature.
    Unsatisfiable,
    /// A solution fired from the initial marking: these transitions (by index), in this
    /// order, reach a marking with the feature.
    Fired(Vec<usize>),
    /// A solution that no trap constraint rules out and that could not be fired (it may
    /// be unreachable): the first one set aside.
    Candidate(Vec<u64>),
    /// The budget ran out (or another engine answered) before Z3 did.
    Stopped(StopReason),
    /// The question's own time ran out before Z3 answered.
    OutOfTime,
    /// Z3 gave up for a reason of its own.
    Unknown(String),
}

/// Counts of the work the questions took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Work {
    /// Trap constraints added.
    pub trap_constraints: u64,
    /// Calls of the solver.
    pub solver_calls: u64,
    /// Solutions set aside after no firing order was found for them.
    pub set_aside: u64,
}

/// The state equation of a net in a Z3 solver: an integer per transition (`fired`) and per
/// place (`marking`), constrained by `m = m0 + C·x`, `x ≥ 0`, `m ≥ 0`, and the trap
/// constraints learnt so far.
pub(crate) struct Equation<'n> {
    net: &'n Net,
    solver: Solver,
    /// Per transition: (place, output − input) where it is not zero.
    columns: Vec<Vec<(usize, i64)>>,
    fired: Vec<Int>,
    /// The marking's variables, one per place.
    pub marking: Vec<Int>,
    /// What the questions took so far.
    pub work: Work,
    /// Per guard (by name; "" for none): the first candidate a search under it set aside.
    /// The clauses that set candidates aside stay behind the guard, so a later search
    /// under the same guard must not read an unsatisfiable system as a proof.
    set_aside: hashbrown::HashMap<String, Vec<u64>>,
}

impl<'n> Equation<'n> {
    /// The state equation of `net`. Call inside [`with_solver`]: the variables belong to
    /// the thread's Z3 context.
    pub(crate) fn new(net: &'n Net) -> Equation<'n> {
        let columns = incidence(net);
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
        Equation {
            net,
            solver,
            columns,
            fired,
            marking,
            work: Work::default(),
            set_aside: hashbrown::HashMap::new(),
        }
    }

    /// Asserts `constraint` for every question from now on.
    pub(crate) fn assert(&self, constraint: &Bool) {
        self.solver.assert(constraint);
    }

    /// Looks for a reachable marking satisfying what is asserted, and `guard`'s
    /// consequences when a guard is given, within `budget` and before `until`.
    pub(crate) fn search(&mut self, guard: Option<&Bool>, budget: &Budget, until: Option<Instant>) -> Search {
        let assumptions: Vec<Bool> = guard.into_iter().cloned().collect();
        let deadline = match (budget.deadline(), until) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let key = guard.map_or_else(String::new, |g| g.to_string());
        let mut traps = 0;
        let mut set_aside = 0;
        // The first solution no trap rules out and no firing order was found for, by this
        // search or an earlier one under the same guard.
        // (Unguarded clauses bind every search.)
        let mut unfired: Option<Vec<u64>> = self
            .set_aside
            .get(&key)
            .or_else(|| self.set_aside.get(""))
            .cloned();
        loop {
            if let Some(why) = budget.exhausted() {
                return Search::Stopped(why);
            }
            if let Some(deadline) = deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Search::OutOfTime;
                }
                let mut params = Params::new();
                params.set_u32("timeout", left.as_millis().clamp(1, u128::from(u32::MAX)) as u32);
                self.solver.set_params(&params);
            }
            self.work.solver_calls += 1;
            let result = self.solver.check_assumptions(&assumptions);
            // The budget's watcher interrupts Z3, and an interrupted check's answer is not
            // to be believed (seen answering Sat on a system without solutions).
            if let Some(why) = budget.exhausted() {
                return Search::Stopped(why);
            }
            match result {
                SatResult::Unsat => {
                    return match unfired {
                        None => Search::Unsatisfiable,
                        Some(first) => Search::Candidate(first),
                    }
                }
                SatResult::Unknown => {
                    if let Some(why) = budget.exhausted() {
                        return Search::Stopped(why);
                    }
                    if until.is_some_and(|u| Instant::now() >= u) {
                        return Search::OutOfTime;
                    }
                    return Search::Unknown(self.solver.get_reason_unknown().unwrap_or_default());
                }
                SatResult::Sat => {}
            }
            let Some((candidate, counts)) = self.solution() else {
                return Search::Unknown("Z3 gave no readable model".into());
            };
            let trap = largest_trap_within(self.net, &candidate);
            let marked = trap.iter().any(|&p| self.net.places[p].initial > 0);
            if marked && traps < MAX_TRAP_CONSTRAINTS {
                let tokens: Vec<Int> = trap.iter().map(|&p| self.marking[p].clone()).collect();
                self.solver.assert(Int::add(&tokens).ge(Int::from_i64(1)));
                self.work.trap_constraints += 1;
                traps += 1;
                continue;
            }
            match realise(self.net, &counts, budget, MAX_REMAINDERS) {
                Realisation::Found(sequence) => return Search::Fired(sequence),
                Realisation::Stopped(why) => return Search::Stopped(why),
                Realisation::NotFound => {}
            }
            let first = unfired.get_or_insert(candidate.clone());
            self.set_aside.entry(key.clone()).or_insert_with(|| first.clone());
            if set_aside >= MAX_SET_ASIDE {
                return Search::Candidate(first.clone());
            }
            // Look for another solution. This one is not shown unreachable, so from now
            // on an unsatisfiable system proves nothing.
            set_aside += 1;
            self.work.set_aside += 1;
            let differs: Vec<Bool> = self
                .marking
                .iter()
                .zip(&candidate)
                .map(|(m, &v)| m.eq(Int::from_u64(v)).not())
                .collect();
            let differs = Bool::or(&differs);
            match guard {
                Some(guard) => self.solver.assert(guard.implies(&differs)),
                None => self.solver.assert(&differs),
            }
        }
    }

    /// The solver's marking and transition counts.
    fn solution(&self) -> Option<(Vec<u64>, Vec<u64>)> {
        let model = self.solver.get_model()?;
        let read = |v: &Int| model.eval(v, true)?.as_u64();
        let candidate = self.marking.iter().map(read).collect::<Option<Vec<u64>>>()?;
        // A transition that changes nothing has no constraint: it need not fire.
        let counts = self
            .fired
            .iter()
            .zip(&self.columns)
            .map(|(x, column)| if column.is_empty() { Some(0) } else { read(x) })
            .collect::<Option<Vec<u64>>>()?;
        Some((candidate, counts))
    }
}

/// Runs `work` with a Z3 context of its own on this thread, while a watcher interrupts
/// Z3 when `budget` ends, whatever the reason (Z3 cannot see the cancel token).
pub(crate) fn with_solver<T: Send + Sync>(budget: &Budget, work: impl FnOnce() -> T + Send + Sync) -> T {
    z3::with_z3_config(&Config::new(), || {
        let ctx = Context::thread_local();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let handle = ctx.handle();
            let done = &done;
            scope.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    if budget.exhausted().is_some() {
                        handle.interrupt();
                        return;
                    }
                    std::thread::sleep(WATCH_INTERVAL);
                }
            });
            let result = work();
            done.store(true, Ordering::Relaxed);
            result
        })
    })
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

    #[test]
    fn the_largest_trap_keeps_a_place_that_gives_back_what_it_takes() {
        let mut net = Net::default();
        let p = net.add_place("p", None, 1);
        let q = net.add_place("q", None, 0);
        let t = net.add_transition("t", None);
        net.add_pre(t, p, 2);
        net.add_post(t, p, 1);
        net.add_transition_between("u", &[q], &[]);
        assert_eq!(largest_trap_within(&net, &[0, 0]), vec![0]);
    }
}
