//! Realising a solution of the state equation: a firing sequence from the initial marking
//! that fires every transition exactly as often as the solution counts.
//!
//! The state equation over-approximates reachability, so a dead solution `m = m0 + C·x`
//! is only a candidate. If some ordering of the multiset `x` can be fired, `m` is
//! reachable and, since the solver made every transition disabled there, dead: the
//! sequence is a deadlock witness (which `check` replays on the model like any other).
//! Nets whose dead markings lie behind long coordinated runs (many tokens on a few
//! places) are out of reach of blind searches, while the solver's counts tell exactly
//! which run to look for (LoLA and TAPAAL search for such realisations too).
//!
//! First come a few random runs, each firing at every step one of the enabled transitions
//! with firings left: when the order hardly matters, one of them fires everything at once.
//! Then a depth-first search over what is left to fire: the marking follows from it
//! (`m0 + C·(x − left)`), so one visited set of remainders suffices and each remainder is
//! expanded once. Both are bounded (work, remainders, the budget); not finding a
//! realisation proves nothing.

use crate::engine::{Budget, Pacer, StopReason};
use crate::system::net::Net;
use hashbrown::HashSet;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Random runs tried before the exhaustive search.
const RANDOM_RUNS: usize = 200;

/// The seed of the random runs (a fixed one: runs are reproducible).
const RANDOM_SEED: u64 = 0x5eed;

/// Most transitions looked at by the random runs of one candidate, all runs together
/// (each step looks at every transition): solutions with millions of firings on a wide
/// net get fewer runs, so that the candidate does not take the engine's whole slice.
const RANDOM_WORK: usize = 1 << 26;

/// How a realisation search ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Realisation {
    /// Transitions (by index) in an order that can be fired from the initial marking, each
    /// as often as the solution says.
    Found(Vec<usize>),
    /// Every ordering was tried, or the search reached its bound, without one.
    NotFound,
    /// The budget ran out.
    Stopped(StopReason),
}

/// Most counts the visited remainders hold together (32 MB): on a net with many
/// transitions the search visits fewer of them.
const MAX_REMAINDER_ENTRIES: usize = 1 << 22;

/// Searches a firing sequence of `net` that fires transition `t` exactly `counts[t]`
/// times, visiting at most `max_remainders` distinct remainders.
pub(crate) fn realise(net: &Net, counts: &[u64], budget: &Budget, max_remainders: usize) -> Realisation {
    let max_remainders = max_remainders.min(MAX_REMAINDER_ENTRIES / counts.len().max(1));
    if let Some(why) = budget.exhausted() {
        return Realisation::Stopped(why);
    }
    if let Some(found) = random_runs(net, counts, budget) {
        return found;
    }
    let mut marking: Vec<u64> = net.places.iter().map(|p| u64::from(p.initial)).collect();
    let mut left = counts.to_vec();
    let mut total: u64 = left.iter().sum();
    let mut visited: HashSet<Vec<u64>> = HashSet::new();
    visited.insert(left.clone());
    // One frame per fired transition: the transition, and the next one to try after it is
    // undone.
    let mut path: Vec<usize> = Vec::new();
    let mut next_try = 0usize;
    let mut pacer = Pacer::default();
    loop {
        if total == 0 {
            return Realisation::Found(path);
        }
        if pacer.due(net.transitions.len()) {
            if let Some(why) = budget.exhausted() {
                return Realisation::Stopped(why);
            }
        }
        let fired = (next_try..net.transitions.len()).find(|&t| {
            left[t] > 0 && enabled(net, t, &marking) && {
                left[t] -= 1;
                let new = visited.len() < max_remainders && visited.insert(left.clone());
                left[t] += 1;
                new
            }
        });
        match fired {
            Some(t) => {
                fire(net, t, &mut marking, true);
                left[t] -= 1;
                total -= 1;
                path.push(t);
                next_try = 0;
            }
            None => {
                let Some(t) = path.pop() else {
                    return Realisation::NotFound;
                };
                fire(net, t, &mut marking, false);
                left[t] += 1;
                total += 1;
                next_try = t + 1;
            }
        }
    }
}

/// Random runs that fire, at each step, one of the transitions still to fire chosen at
/// random among the enabled ones, until none is or all are fired: `Some` when one run
/// fires them all or the budget ends.
fn random_runs(net: &Net, counts: &[u64], budget: &Budget) -> Option<Realisation> {
    let mut rng = SmallRng::seed_from_u64(RANDOM_SEED);
    let initial: Vec<u64> = net.places.iter().map(|p| u64::from(p.initial)).collect();
    let mut pacer = Pacer::default();
    let mut candidates: Vec<usize> = Vec::new();
    let mut work = 0usize;
    for _ in 0..RANDOM_RUNS {
        let mut marking = initial.clone();
        let mut left = counts.to_vec();
        let mut path: Vec<usize> = Vec::new();
        loop {
            if pacer.due(net.transitions.len()) {
                if let Some(why) = budget.exhausted() {
                    return Some(Realisation::Stopped(why));
                }
            }
            work += net.transitions.len();
            if work > RANDOM_WORK {
                return None;
            }
            candidates.clear();
            candidates
                .extend((0..net.transitions.len()).filter(|&t| left[t] > 0 && enabled(net, t, &marking)));
            let Some(&t) = candidates.get(rng.random_range(0..candidates.len().max(1))) else {
                break;
            };
            fire(net, t, &mut marking, true);
            left[t] -= 1;
            path.push(t);
        }
        if left.iter().all(|&n| n == 0) {
            return Some(Realisation::Found(path));
        }
    }
    None
}

// `Net::fire` works on u32 markings and saturates; the counts of a solution may take a
// marking past u32 on the way, and the search must undo firings exactly: hence u64 here.

/// Whether transition `t` of `net` may fire at `marking` (input arcs and read arcs).
fn enabled(net: &Net, t: usize, marking: &[u64]) -> bool {
    let tr = &net.transitions[t];
    tr.pre.iter().all(|&(p, w)| marking[p.index()] >= u64::from(w))
        && tr.read.iter().all(|&p| marking[p.index()] >= 1)
}

/// Fires transition `t` on `marking` (`forward`), or undoes its firing.
fn fire(net: &Net, t: usize, marking: &mut [u64], forward: bool) {
    let tr = &net.transitions[t];
    let (take, give) = if forward {
        (&tr.pre, &tr.post)
    } else {
        (&tr.post, &tr.pre)
    };
    for &(p, w) in take {
        marking[p.index()] -= u64::from(w);
    }
    for &(p, w) in give {
        marking[p.index()] += u64::from(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a → t → b → u → c, with `tokens` on a.
    fn chain(tokens: u32) -> Net {
        let mut net = Net::default();
        let places: Vec<_> = ["a", "b", "c"]
            .into_iter()
            .enumerate()
            .map(|(i, name)| net.add_place(name, None, if i == 0 { tokens } else { 0 }))
            .collect();
        for (name, step) in ["t", "u"].into_iter().zip(places.windows(2)) {
            net.add_transition_between(name, &step[..1], &step[1..]);
        }
        net
    }

    #[test]
    fn an_ordering_is_found_when_the_first_choice_would_block() {
        // Index order tries u first, which is not enabled: t must come before each u.
        let net = chain(2);
        let got = realise(&net, &[2, 2], &Budget::unlimited(), 1000);
        let Realisation::Found(seq) = got else {
            panic!("no realisation: {got:?}");
        };
        assert_eq!(seq.len(), 4);
        let mut m = vec![2u64, 0, 0];
        for &t in &seq {
            assert!(enabled(&net, t, &m), "{seq:?} fires a disabled transition");
            fire(&net, t, &mut m, true);
        }
        assert_eq!(m, vec![0, 0, 2]);
    }

    #[test]
    fn counts_that_no_ordering_fires_are_not_realised() {
        // u twice needs two tokens through b, but t may fire only once.
        let net = chain(2);
        assert_eq!(
            realise(&net, &[1, 2], &Budget::unlimited(), 1000),
            Realisation::NotFound
        );
    }

    #[test]
    fn a_cancelled_budget_stops_the_search() {
        let budget = Budget::unlimited();
        budget.cancel_token().cancel();
        let got = realise(&chain(3), &[3, 3], &budget, 1000);
        assert_eq!(got, Realisation::Stopped(StopReason::Cancelled));
    }
}
