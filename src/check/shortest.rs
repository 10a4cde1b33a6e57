//! `--witness shortest`: the engines report the first witness they meet, which a depth-first
//! or random search makes long. A breadth-first search of the state space to the state the
//! witness ends in gives one of the fewest steps to that same state.

use crate::engine::{Budget, Finding, StepNames, StopReason};
use crate::system::{state_after, ActionId, Local, Step, System};
use hashbrown::HashMap;

/// How often (in expanded states) the search looks at its budget.
const BUDGET_EVERY: usize = 256;

/// What the search found.
#[derive(Debug, PartialEq)]
pub(crate) enum Shortening {
    /// The finding's witness was replaced by one of the fewest steps (it had `before`).
    Shortened { before: usize },
    /// The finding's witness already had the fewest steps.
    WasShortest,
    /// The search stopped before it reached the state (the witness is left as it was).
    Stopped(StopReason),
}

/// Replaces `finding`'s witness on `sys` by one of the fewest steps to the same state, if
/// the search ends within `budget` and `max_states` stored states. The caller replays the
/// new witness as it replays every other.
pub(crate) fn shorten<S: System + ?Sized>(
    sys: &S,
    finding: &mut Finding,
    budget: &Budget,
    max_states: Option<u64>,
) -> Shortening {
    let before = finding.witness.steps.len();
    let Ok(target) = state_after(sys, finding.witness.steps.iter().map(|s| s.id)) else {
        // The replay of the check accepted this witness, so this does not happen; a
        // witness the search cannot follow is left to that replay.
        return Shortening::WasShortest;
    };
    let path = match breadth_first_path(sys, &target, budget, max_states) {
        Ok(path) => path,
        Err(why) => return Shortening::Stopped(why),
    };
    if path.len() >= before {
        return Shortening::WasShortest;
    }
    finding.witness = StepNames::default().witness(sys, path);
    Shortening::Shortened { before }
}

/// The actions of a shortest firing sequence from the initial state of `sys` to `target`.
fn breadth_first_path<S: System + ?Sized>(
    sys: &S,
    target: &[Local],
    budget: &Budget,
    max_states: Option<u64>,
) -> Result<Vec<ActionId>, StopReason> {
    let initial = sys.initial_state();
    // Every stored state, with the state it was first reached from and the action taken;
    // breadth-first order makes that first path a shortest one.
    let mut states: Vec<Box<[Local]>> = vec![initial.clone().into_boxed_slice()];
    let mut parent: Vec<(u32, ActionId)> = vec![(u32::MAX, ActionId(0))];
    let mut index: HashMap<Box<[Local]>, u32> = HashMap::new();
    index.insert(initial.into_boxed_slice(), 0);
    let mut steps: Vec<Step> = Vec::new();
    let mut next = Vec::new();
    let mut head = 0usize;
    let mut found = (*states[0] == *target).then_some(0u32);
    while found.is_none() && head < states.len() {
        if head % BUDGET_EVERY == 0 {
            if let Some(why) = budget.exhausted() {
                return Err(why);
            }
        }
        steps.clear();
        sys.enabled_steps(&states[head], &mut steps);
        for step in &steps {
            // A step the system refuses to fire (a fault) leads nowhere the finding is.
            if !matches!(sys.successor(&states[head], step, &mut next), Ok(true)) {
                continue;
            }
            if index.contains_key(next.as_slice()) {
                continue;
            }
            if max_states.is_some_and(|m| states.len() as u64 >= m) {
                return Err(StopReason::StateLimit(states.len() as u64));
            }
            let id = states.len() as u32;
            let boxed: Box<[Local]> = next.as_slice().into();
            index.insert(boxed.clone(), id);
            states.push(boxed);
            parent.push((head as u32, step.action));
            if *next == *target {
                found = Some(id);
                break;
            }
        }
        head += 1;
    }
    let Some(mut at) = found else {
        // The search ended without meeting the state: it is not reachable, which the
        // replay of the witness has already disproved.
        return Err(StopReason::SolverUnknown);
    };
    let mut path = Vec::new();
    while at != 0 {
        let (from, action) = parent[at as usize];
        path.push(action);
        at = from;
    }
    path.reverse();
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::FindingKind;
    use crate::system::net::{Decomposition, Net, NetSystem};

    /// p → a → q → b → r and p → c → r: the detour through q is one step longer.
    fn detour() -> Net {
        let (mut net, [p, q, r]) = Net::with_places([("p", 1), ("q", 0), ("r", 0)]);
        net.add_transition_between("a", &[p], &[q]);
        net.add_transition_between("b", &[q], &[r]);
        net.add_transition_between("c", &[p], &[r]);
        net
    }

    #[test]
    fn a_long_witness_is_replaced_by_a_shortest_one_to_the_same_state() {
        let net = detour();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let witness = StepNames::default().witness(&sys, [ActionId(0), ActionId(1)]);
        let mut f = Finding::new(FindingKind::Deadlock, "r".into(), None, witness);
        let got = shorten(&sys, &mut f, &Budget::new(None), None);
        assert_eq!(got, Shortening::Shortened { before: 2 });
        assert_eq!(f.witness.actions(), ["c"]);
    }

    #[test]
    fn a_shortest_witness_stays_and_a_state_limit_stops_the_search() {
        let net = detour();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let witness = StepNames::default().witness(&sys, [ActionId(2)]);
        let mut f = Finding::new(FindingKind::Deadlock, "r".into(), None, witness.clone());
        assert_eq!(
            shorten(&sys, &mut f, &Budget::new(None), None),
            Shortening::WasShortest
        );
        let long = StepNames::default().witness(&sys, [ActionId(0), ActionId(1)]);
        let mut f = Finding::new(FindingKind::Deadlock, "r".into(), None, long);
        assert_eq!(
            shorten(&sys, &mut f, &Budget::new(None), Some(1)),
            Shortening::Stopped(StopReason::StateLimit(1))
        );
        assert_eq!(f.witness.steps.len(), 2);
    }
}
