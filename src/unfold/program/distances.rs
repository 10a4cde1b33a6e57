//! The table of distance cutoffs: the states a breadth-first search meets within a fixed
//! number of states, each with the least firing sequence found to it: the shortest, and
//! among those the one with the least Parikh vector (ERV's comparison, over actions ranked
//! in the order the search met them).
//!
//! An event e is a distance cutoff when this table holds state(\[e\]) with a sequence
//! shorter than |\[e\]|, or as long with a smaller Parikh vector (or, beyond the table,
//! when a cause has e's state, as with causal cutoffs). The table depends only on the
//! system and its size bound, never on the order in which a replica met events, so every
//! thread and process of a parallel or distributed run cuts the same events. Every firing
//! sequence linearises a configuration of the unfolding with its length and Parikh
//! vector, and "shorter, or as long with a smaller Parikh vector" is an adequate order
//! (well founded, refining inclusion, kept by extensions): the cut is against a
//! configuration that need not have been discovered, and the argument of the minimal
//! configuration in that order keeps every reachable state. Whether or not the search was
//! complete only decides how many events the table cuts.
//!
//! The least vector of each level extends a least vector of the level before (adding one
//! action to two vectors keeps their order), so a state met again in its own level takes
//! the new sequence when it is smaller, and the sequences are stored as a tree: a state's
//! previous state and last action.
//!
//! Fault states are not expanded, as the unfolding never extends a fault event: a firing
//! sequence through one is no configuration QPOR explores.

use super::events::local_hash;
use crate::engine::CancelToken;
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use crate::unfold::cutoff::compare_parikh;
use hashbrown::HashTable;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::time::Instant;

/// Bytes the table's states may take when no bound on their number is given: with one
/// component per place of a net of 200 places, some 80 000 states.
pub(crate) const DEFAULT_TABLE_BYTES: usize = 64 << 20;

/// The most states the table holds when no bound is given. The search runs before the
/// exploration, on the run's time: on the MCC development nets 2^17 states take about
/// 0.3 s, where a bound by memory alone (a million states) took whole 10 s budgets.
pub(crate) const DEFAULT_TABLE_STATES: usize = 1 << 17;

/// The table's default bound on states for a system of `components` components: what fits
/// [`DEFAULT_TABLE_BYTES`], at most [`DEFAULT_TABLE_STATES`].
pub(crate) fn default_table_states(components: usize) -> usize {
    let per_state = 4 * components + 32;
    (DEFAULT_TABLE_BYTES / per_state).clamp(1, DEFAULT_TABLE_STATES)
}

/// The states a bounded breadth-first search met, with their distances.
#[derive(Debug)]
pub struct StateDistances {
    components: usize,
    /// State i is `states[i * components..(i + 1) * components]`, in discovery order.
    states: Vec<Local>,
    distances: Vec<u32>,
    hashes: Vec<u64>,
    /// Per state: how many components hold another local state than the initial one.
    moved: Vec<u32>,
    /// State ids by hash.
    index: HashTable<u32>,
    /// Per state: the state before it on the least firing sequence found to it (`NO_STATE`
    /// for the initial state), and the rank of the action that leads from there.
    previous: Vec<u32>,
    last_action: Vec<u32>,
    /// Per action id: its rank, the order in which the search met the actions
    /// (`NO_RANK`: never met). Parikh vectors are compared by ranks, not ids: every
    /// process of a distributed run meets the actions in the same order, but a system
    /// that numbers its actions as it meets them may number those beyond the table
    /// differently in each.
    action_ranks: Vec<u32>,
    complete: bool,
}

const NO_STATE: u32 = u32::MAX;
const NO_RANK: u32 = u32::MAX;

impl StateDistances {
    /// Searches `sys` breadth first from its initial state until `max_states` states are
    /// stored or none is left to expand. At `deadline` or on `cancel` it stops with what it
    /// found: any table is sound, and the run that asked for it is over anyway.
    pub fn search<S: System + ?Sized>(
        sys: &S,
        max_states: usize,
        deadline: Option<Instant>,
        cancel: &CancelToken,
    ) -> Result<StateDistances, ModelError> {
        let n = sys.num_components();
        let initial = sys.initial_state();
        let mut table = StateDistances {
            components: n,
            states: Vec::new(),
            distances: Vec::new(),
            hashes: Vec::new(),
            moved: Vec::new(),
            index: HashTable::new(),
            previous: Vec::new(),
            last_action: Vec::new(),
            action_ranks: Vec::new(),
            complete: false,
        };
        table.insert(&initial, 0, 0, 0, NO_STATE, NO_RANK);
        let mut ranks_met = 0u32;
        let mut steps: Vec<Step> = Vec::new();
        let mut next = initial.clone();
        let mut after: SmallVec<[Local; 8]> = SmallVec::new();
        let mut before: SmallVec<[Local; 8]> = SmallVec::new();
        let mut expanded = 0usize;
        while expanded < table.len() {
            if expanded % 256 == 0 && (cancel.is_cancelled() || deadline.is_some_and(|d| Instant::now() >= d))
            {
                return Ok(table);
            }
            let id = expanded;
            expanded += 1;
            let state = table.state(id).to_vec();
            if state
                .iter()
                .enumerate()
                .any(|(c, l)| sys.fault(CompId(c as u32), *l).is_some())
            {
                continue;
            }
            steps.clear();
            sys.enabled_steps(&state, &mut steps);
            // The Parikh vector of the state being expanded, found when first needed.
            let mut expanded_parikh: Option<Vec<ActionId>> = None;
            for step in &steps {
                before.clear();
                before.extend(step.touched.iter().map(|c| state[c.index()]));
                after.clear();
                after.resize(before.len(), Local(0));
                if !sys.fire(step, &before, &mut after)? {
                    continue;
                }
                let mut hash = table.hashes[id];
                let mut moved = table.moved[id] as i64;
                next.copy_from_slice(&state);
                for ((c, old), new) in step.touched.iter().zip(&before).zip(&after) {
                    hash = hash
                        .wrapping_sub(local_hash(*c, *old))
                        .wrapping_add(local_hash(*c, *new));
                    let init = initial[c.index()];
                    moved += (*new != init) as i64 - (*old != init) as i64;
                    next[c.index()] = *new;
                }
                let a = step.action.index();
                if a >= table.action_ranks.len() {
                    table.action_ranks.resize(a + 1, NO_RANK);
                }
                if table.action_ranks[a] == NO_RANK {
                    table.action_ranks[a] = ranks_met;
                    ranks_met += 1;
                }
                let rank = table.action_ranks[a];
                let distance = table.distances[id] + 1;
                if let Some(known) = table.find(hash, &next) {
                    // Met again in the same breadth-first level: keep the sequence with the
                    // smaller Parikh vector. (Appending one action to two vectors keeps their
                    // order, so the least vector of every level extends one of the last.)
                    let known = known as usize;
                    if table.distances[known] == distance {
                        let mine = expanded_parikh.get_or_insert_with(|| table.parikh(id));
                        let mut through_here = mine.clone();
                        let at = through_here.partition_point(|x| x.0 <= rank);
                        through_here.insert(at, ActionId(rank));
                        if compare_parikh(&through_here, &table.parikh(known)) == Ordering::Less {
                            table.previous[known] = id as u32;
                            table.last_action[known] = rank;
                        }
                    }
                    continue;
                }
                if table.len() >= max_states {
                    return Ok(table);
                }
                table.insert(&next, hash, moved as u32, distance, id as u32, rank);
            }
        }
        table.complete = true;
        Ok(table)
    }

    fn insert(&mut self, state: &[Local], hash: u64, moved: u32, distance: u32, previous: u32, rank: u32) {
        let id = self.distances.len() as u32;
        self.previous.push(previous);
        self.last_action.push(rank);
        self.states.extend_from_slice(state);
        self.distances.push(distance);
        self.hashes.push(hash);
        self.moved.push(moved);
        let hashes = &self.hashes;
        self.index.insert_unique(hash, id, |&x| hashes[x as usize]);
    }

    fn find(&self, hash: u64, state: &[Local]) -> Option<u32> {
        self.index
            .find(hash, |&x| {
                self.hashes[x as usize] == hash && self.state(x as usize) == state
            })
            .copied()
    }

    /// The Parikh vector of the least firing sequence found to state `id`, as action
    /// ranks (in [`ActionId`]s), sorted.
    fn parikh(&self, id: usize) -> Vec<ActionId> {
        let mut v = Vec::with_capacity(self.distances[id] as usize);
        let mut x = id as u32;
        while self.previous[x as usize] != NO_STATE {
            v.push(ActionId(self.last_action[x as usize]));
            x = self.previous[x as usize];
        }
        v.sort_unstable();
        v
    }

    /// The rank of action `a` in the table's order, if the search met it.
    pub(super) fn action_rank(&self, a: ActionId) -> Option<u32> {
        self.action_ranks
            .get(a.index())
            .copied()
            .filter(|&r| r != NO_RANK)
    }

    fn state(&self, id: usize) -> &[Local] {
        &self.states[id * self.components..(id + 1) * self.components]
    }

    /// Number of states stored.
    pub fn len(&self) -> usize {
        self.distances.len()
    }

    /// Whether no state is stored (never: the initial state always is).
    pub fn is_empty(&self) -> bool {
        self.distances.is_empty()
    }

    /// Whether the search expanded every reachable state (so every distance is exact).
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The largest distance stored.
    pub fn radius(&self) -> u32 {
        self.distances.last().copied().unwrap_or(0)
    }

    /// The stored state of hash `hash` that `same` accepts, if it is stored at a distance
    /// of at most `size`: its id, and whether that distance is below `size`. `same` is
    /// given a stored state with its number of components away from the initial state.
    pub(super) fn find_within(
        &self,
        hash: u64,
        size: u32,
        mut same: impl FnMut(&[Local], u32) -> bool,
    ) -> Option<(u32, bool)> {
        self.index
            .find(hash, |&x| {
                let x = x as usize;
                self.hashes[x] == hash && self.distances[x] <= size && same(self.state(x), self.moved[x])
            })
            .map(|&x| (x, self.distances[x as usize] < size))
    }

    /// Whether the least firing sequence found to state `id` has a smaller Parikh vector
    /// than `ranks` (sorted action ranks, as many as the state's distance).
    pub(super) fn parikh_below(&self, id: u32, ranks: &[ActionId]) -> bool {
        compare_parikh(&self.parikh(id as usize), ranks) == Ordering::Less
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::{Decomposition, Net, NetSystem};

    /// Two token rings, of three and four places: twelve states.
    fn two_rings() -> Net {
        let (mut net, [a0, a1, a2, b0, b1, b2, b3]) = Net::with_places([
            ("a0", 1),
            ("a1", 0),
            ("a2", 0),
            ("b0", 1),
            ("b1", 0),
            ("b2", 0),
            ("b3", 0),
        ]);
        for (i, (from, to)) in [
            (a0, a1),
            (a1, a2),
            (a2, a0),
            (b0, b1),
            (b1, b2),
            (b2, b3),
            (b3, b0),
        ]
        .into_iter()
        .enumerate()
        {
            net.add_transition_between(format!("t{i}"), &[from], &[to]);
        }
        net
    }

    fn search(net: &Net, max_states: usize) -> StateDistances {
        let sys = NetSystem::new(net, Decomposition::Places).unwrap();
        StateDistances::search(&sys, max_states, None, &CancelToken::default()).unwrap()
    }

    #[test]
    fn a_complete_search_stores_every_state_at_its_distance() {
        let t = search(&two_rings(), 1_000);
        assert!(t.complete());
        assert_eq!(t.len(), 12);
        // The farthest state has the first token two steps on and the second three.
        assert_eq!(t.radius(), 5);
        let d = &t.distances;
        assert_eq!(d[0], 0);
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
        // Every stored state is found again under its own hash, and only at its distance.
        for (id, &distance) in d.iter().enumerate() {
            let state = t.state(id).to_vec();
            let hash = t.hashes[id];
            assert_eq!(t.find(hash, &state), Some(id as u32));
            let same = |s: &[Local], _| s == state.as_slice();
            assert_eq!(t.find_within(hash, distance + 1, same), Some((id as u32, true)));
            assert_eq!(t.find_within(hash, distance, same), Some((id as u32, false)));
            if distance > 0 {
                assert_eq!(t.find_within(hash, distance - 1, same), None);
            }
        }
    }

    #[test]
    fn a_bounded_search_stores_the_first_states_it_meets() {
        let net = two_rings();
        let whole = search(&net, 1_000);
        let part = search(&net, 5);
        assert!(!part.complete());
        assert_eq!(part.len(), 5);
        assert_eq!(part.distances, whole.distances[..5]);
        assert_eq!(part.states, whole.states[..5 * whole.components]);
    }

    /// A random net of `places` places and state-machine or synchronising transitions,
    /// with three tokens: bounded, and with many equally short sequences to a state.
    fn random_net(seed: u64, places: usize, transitions: usize) -> Net {
        let mut rng = crate::unfold::test_rng(seed);
        let mut net = Net::default();
        let ids: Vec<_> = (0..places)
            .map(|p| net.add_place(format!("p{p}"), None, (p < 3) as u32))
            .collect();
        for t in 0..transitions {
            let mut pick = || ids[rng(places as u64) as usize];
            let (pre, post) = if t % 3 == 2 {
                (vec![pick(), pick()], vec![pick(), pick()])
            } else {
                (vec![pick()], vec![pick()])
            };
            let id = net.add_transition(format!("t{t}"), None);
            for p in pre {
                net.add_pre(id, p, 1);
            }
            for p in post {
                net.add_post(id, p, 1);
            }
        }
        net
    }

    /// Per stored state, the states one step before it, in id order: the first is the one
    /// the search found it from.
    fn predecessors(sys: &NetSystem, t: &StateDistances) -> Vec<Vec<(usize, ActionId)>> {
        let mut before = vec![Vec::new(); t.len()];
        for id in 0..t.len() {
            let state = t.state(id).to_vec();
            let mut steps = Vec::new();
            sys.enabled_steps(&state, &mut steps);
            for step in steps {
                let mut next = Vec::new();
                assert!(sys.successor(&state, &step, &mut next).unwrap());
                let hash = next
                    .iter()
                    .zip(t.state(0))
                    .enumerate()
                    .map(|(c, (l, i))| {
                        let c = CompId(c as u32);
                        local_hash(c, *l).wrapping_sub(local_hash(c, *i))
                    })
                    .fold(0u64, u64::wrapping_add);
                let to = t.find(hash, &next).unwrap() as usize;
                if t.distances[to] == t.distances[id] + 1 {
                    before[to].push((id, ActionId(t.action_rank(step.action).unwrap())));
                }
            }
        }
        before
    }

    /// Per stored state, the least Parikh vector of all its shortest firing sequences, by
    /// enumerating them all.
    fn least_parikh_vectors(before: &[Vec<(usize, ActionId)>]) -> Vec<Vec<ActionId>> {
        let mut least = Vec::new();
        for id in 0..before.len() {
            let mut sequences = vec![(id, Vec::new())];
            let mut best: Option<Vec<ActionId>> = None;
            while let Some((x, mut parikh)) = sequences.pop() {
                if x == 0 {
                    parikh.sort_unstable();
                    if best
                        .as_ref()
                        .is_none_or(|b| compare_parikh(&parikh, b) == Ordering::Less)
                    {
                        best = Some(parikh);
                    }
                    continue;
                }
                for &(p, a) in &before[x] {
                    let mut longer = parikh.clone();
                    longer.push(a);
                    sequences.push((p, longer));
                }
            }
            least.push(best.unwrap());
        }
        least
    }

    #[test]
    fn each_state_keeps_the_least_parikh_vector_of_its_shortest_sequences() {
        for seed in 1..=60 {
            let net = random_net(seed, 5, 7);
            let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
            let t = StateDistances::search(&sys, 10_000, None, &CancelToken::default()).unwrap();
            assert!(t.complete(), "seed {seed}");
            let before = predecessors(&sys, &t);
            for (id, least) in least_parikh_vectors(&before).iter().enumerate() {
                assert_eq!(&t.parikh(id), least, "seed {seed}, state {id}");
            }
        }
    }

    /// a takes p's token on, b moves q's token while p holds one, h moves it once a has
    /// fired: {p', q'} is first found as a·h, whose Parikh vector is larger than b·a's.
    #[test]
    fn a_state_found_again_by_a_smaller_parikh_vector_keeps_that() {
        let (mut net, [p, p1, q, q1]) = Net::with_places([("p", 1), ("p'", 0), ("q", 1), ("q'", 0)]);
        net.add_transition_between("a", &[p], &[p1]);
        net.add_transition_between("b", &[p, q], &[p, q1]);
        net.add_transition_between("h", &[p1, q], &[p1, q1]);
        let t = search(&net, 100);
        assert!(t.complete());
        // Initial, {p', q} by a, {p, q'} by b, {p', q'}.
        assert_eq!(t.len(), 4);
        assert_eq!(t.distances, [0, 1, 1, 2]);
        assert_eq!(
            t.previous[3], 2,
            "the least sequence to {{p', q'}} comes through {{p, q'}}"
        );
        let (a, b) = (ActionId(0), ActionId(1));
        assert_eq!(t.parikh(3), [a, b]);
    }
}
