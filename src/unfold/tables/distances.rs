//! The table of distance cutoffs: the states a breadth-first search meets within a fixed
//! number of states, each with the least firing sequence found to it in the distance
//! order ([`compare_distance_order`]): the shortest, then the least Parikh vector, then the
//! least Foata normal form (the levels the unfolding's events would have, each compared as
//! a vector), over actions ranked in the order the search met them.
//!
//! An event e is a distance cutoff when this table holds state(\[e\]) with a sequence
//! smaller than \[e\] in that order (or, beyond the table, when a cause has e's state, as
//! with causal cutoffs). The table depends only on the system and its size bound, never
//! on the order in which a replica met events, so every thread and process of a parallel
//! or distributed run cuts the same events. Every firing sequence linearises a
//! configuration of the unfolding with its length, Parikh vector and Foata normal form,
//! and the order is adequate (well founded, refining inclusion, kept by extensions): the
//! cut is against a configuration that need not have been discovered, and the argument of
//! the least configuration reaching a state keeps every reachable state. Where the table
//! holds every state, each state keeps one uncut history, its least: fewer events than the
//! sequential ERV run, which cuts only against the events it met first. Whether or not
//! the search was complete only decides how many events the table cuts.
//!
//! Because extensions keep the order, the least sequence to a state extends the least
//! sequence to the state before it: a state met again in its own level takes the new
//! sequence when it is smaller, and the sequences are stored as a tree (a state's previous
//! state, last action and the components that action touches), replayed for comparisons.
//!
//! Fault states are not expanded, as the unfolding never extends a fault event: a firing
//! sequence through one is no configuration QPOR explores.

use crate::engine::CancelToken;
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use crate::unfold::cutoff::{compare_distance_order, HistoryShape};
use crate::unfold::fingerprint::local_hash;
use hashbrown::HashMap;
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
    let per_state = 4 * components + 48;
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
    /// Per state: the components that last action touches, `touched[touched_at[i]..]`
    /// for `touched_len[i]` entries (they give the Foata levels of the sequence).
    touched_at: Vec<u32>,
    touched_len: Vec<u32>,
    touched: Vec<CompId>,
    /// Per action id: its rank, the order in which the search met the actions
    /// (`NO_RANK`: never met). Sequences are compared by ranks, not ids: every
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
            touched_at: Vec::new(),
            touched_len: Vec::new(),
            touched: Vec::new(),
            action_ranks: Vec::new(),
            complete: false,
        };
        let none = LastStep {
            from: NO_STATE,
            rank: NO_RANK,
            touched: &[],
        };
        table.insert(&initial, 0, 0, 0, none);
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
            // The least sequence to the state being expanded, found when first needed.
            let mut expanded_sequence: Option<Replay> = None;
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
                    // Met again in the same breadth-first level: keep the smaller sequence
                    // (the order is kept by extensions, so the least
                    // sequence to a state extends the least sequence to the state before).
                    let known = known as usize;
                    if table.distances[known] == distance {
                        let mine = expanded_sequence.get_or_insert_with(|| table.replay(id));
                        let through_here = mine.extended(rank, &step.touched);
                        if compare_distance_order(&through_here, &table.replay(known).shape) == Ordering::Less
                        {
                            table.previous[known] = id as u32;
                            table.last_action[known] = rank;
                            table.set_touched(known, &step.touched);
                        }
                    }
                    continue;
                }
                if table.len() >= max_states {
                    return Ok(table);
                }
                let last = LastStep {
                    from: id as u32,
                    rank,
                    touched: &step.touched,
                };
                table.insert(&next, hash, moved as u32, distance, last);
            }
        }
        table.complete = true;
        Ok(table)
    }

    /// Stores a new state, `moved` components away from the initial one, reached last by
    /// the step `last`.
    fn insert(&mut self, state: &[Local], hash: u64, moved: u32, distance: u32, last: LastStep) {
        let id = self.distances.len() as u32;
        self.previous.push(last.from);
        self.last_action.push(last.rank);
        self.touched_at.push(0);
        self.touched_len.push(0);
        self.set_touched(id as usize, last.touched);
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

    /// Makes `touched` the components of the last action on the least sequence to `id`.
    fn set_touched(&mut self, id: usize, touched: &[CompId]) {
        self.touched_at[id] = self.touched.len() as u32;
        self.touched_len[id] = touched.len() as u32;
        self.touched.extend_from_slice(touched);
    }

    /// The least firing sequence found to state `id`, replayed: its shape (Foata
    /// levels and action ranks) and the last level on every component it touches.
    fn replay(&self, id: usize) -> Replay {
        let mut steps = Vec::with_capacity(self.distances[id] as usize);
        let mut x = id;
        while self.previous[x] != NO_STATE {
            steps.push(x);
            x = self.previous[x] as usize;
        }
        let mut replay = Replay::default();
        for &x in steps.iter().rev() {
            let from = self.touched_at[x] as usize;
            let touched = &self.touched[from..from + self.touched_len[x] as usize];
            replay.push(self.last_action[x], touched);
        }
        replay
    }

    /// The rank of action `a` in the table's order, if the search met it.
    pub(crate) fn action_rank(&self, a: ActionId) -> Option<u32> {
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
    pub(crate) fn find_within(
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

    /// Whether the least firing sequence found to state `id` is smaller in the distance
    /// order than a history of the same size with shape `shape` (its events' Foata levels
    /// and action ranks).
    pub(crate) fn below(&self, id: u32, shape: &HistoryShape) -> bool {
        compare_distance_order(&self.replay(id as usize).shape, shape) == Ordering::Less
    }
}

/// The last step of the least sequence to a state: the state it leaves (`NO_STATE` for the
/// initial state), its action's rank and the components it touches.
struct LastStep<'a> {
    from: u32,
    rank: u32,
    touched: &'a [CompId],
}

/// A firing sequence replayed for the distance order: every step's Foata level (one more than the
/// last level on the components it touches, as the unfolding's events have) and rank.
#[derive(Default)]
struct Replay {
    shape: HistoryShape,
    last_level: HashMap<CompId, u32>,
}

impl Replay {
    /// The Foata level of a next step touching `touched`.
    fn next_level(&self, touched: &[CompId]) -> u32 {
        let last = touched
            .iter()
            .map(|c| self.last_level.get(c).copied().unwrap_or(0));
        1 + last.max().unwrap_or(0)
    }

    fn push(&mut self, rank: u32, touched: &[CompId]) {
        let level = self.next_level(touched);
        for &c in touched {
            self.last_level.insert(c, level);
        }
        self.shape.events.push((level, ActionId(rank)));
    }

    /// The shape of this sequence followed by one more step.
    fn extended(&self, rank: u32, touched: &[CompId]) -> HistoryShape {
        let mut shape = self.shape.clone();
        shape.events.push((self.next_level(touched), ActionId(rank)));
        shape
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

    /// One step before a stored state: the state it leaves, its action's rank and the
    /// components it touches.
    type Before = (usize, u32, Vec<CompId>);

    /// Per stored state, the steps one level before it, in id order: the first is the one
    /// the search found it by.
    fn predecessors(sys: &NetSystem, t: &StateDistances) -> Vec<Vec<Before>> {
        let mut before = vec![Vec::new(); t.len()];
        for id in 0..t.len() {
            let state = t.state(id).to_vec();
            let mut steps = Vec::new();
            sys.enabled_steps(&state, &mut steps);
            for step in steps {
                let mut next = Vec::new();
                assert!(sys.successor(&state, &step, &mut next).unwrap());
                let to = t.find(hash_of(t, &next), &next).unwrap() as usize;
                if t.distances[to] == t.distances[id] + 1 {
                    let rank = t.action_rank(step.action).unwrap();
                    before[to].push((id, rank, step.touched.to_vec()));
                }
            }
        }
        before
    }

    /// The ERV shapes of all shortest firing sequences to state `id`, by enumerating them.
    fn shortest_sequences(before: &[Vec<Before>], id: usize) -> Vec<HistoryShape> {
        let mut shapes = Vec::new();
        // A state, and the steps after it back to `id` (rank and touched components).
        type Partial<'a> = (usize, Vec<(u32, &'a [CompId])>);
        let mut partial: Vec<Partial> = vec![(id, Vec::new())];
        while let Some((x, steps)) = partial.pop() {
            if x == 0 {
                let mut replay = Replay::default();
                for &(rank, touched) in steps.iter().rev() {
                    replay.push(rank, touched);
                }
                shapes.push(replay.shape);
                continue;
            }
            for (p, rank, touched) in &before[x] {
                let mut longer = steps.clone();
                longer.push((*rank, touched));
                partial.push((*p, longer));
            }
        }
        shapes
    }

    fn sorted_actions(shape: &HistoryShape) -> Vec<ActionId> {
        let mut v: Vec<ActionId> = shape.events.iter().map(|e| e.1).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn each_state_keeps_the_least_of_its_shortest_sequences_in_the_distance_order() {
        let mut decided_by_foata = 0;
        for seed in 1..=60 {
            let net = random_net(seed, 5, 7);
            let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
            let t = StateDistances::search(&sys, 10_000, None, &CancelToken::default()).unwrap();
            assert!(t.complete(), "seed {seed}");
            let before = predecessors(&sys, &t);
            for id in 0..t.len() {
                let all = shortest_sequences(&before, id);
                let least = all.iter().min_by(|a, b| compare_distance_order(a, b)).unwrap();
                let kept = t.replay(id).shape;
                assert_eq!(
                    compare_distance_order(&kept, least),
                    Ordering::Equal,
                    "seed {seed}, state {id}"
                );
                // Sequences as small by Parikh vector but not by Foata normal form.
                decided_by_foata += all.iter().any(|s| {
                    sorted_actions(s) == sorted_actions(least)
                        && compare_distance_order(s, least) != Ordering::Equal
                }) as usize;
            }
        }
        assert!(
            decided_by_foata > 0,
            "no Foata normal form decided: the test shows little"
        );
    }

    /// The hash the table files `state` under.
    fn hash_of(t: &StateDistances, state: &[Local]) -> u64 {
        state
            .iter()
            .zip(t.state(0))
            .enumerate()
            .map(|(c, (l, i))| {
                let c = CompId(c as u32);
                local_hash(c, *l).wrapping_sub(local_hash(c, *i))
            })
            .fold(0u64, u64::wrapping_add)
    }

    /// Asserts that no history inside the least sequence kept for any state of the
    /// complete table `t` is a distance cutoff: the property the soundness of the cut
    /// rests on (a least history to a dead state reaches it uncut).
    fn assert_least_histories_uncut(t: &StateDistances, what: &str) {
        assert!(t.complete(), "{what}");
        for id in 0..t.len() {
            // The states along the kept sequence, and its steps.
            let mut chain = vec![id];
            while t.previous[*chain.last().unwrap()] != NO_STATE {
                chain.push(t.previous[*chain.last().unwrap()] as usize);
            }
            chain.reverse();
            let steps: Vec<(u32, &[CompId])> = chain[1..]
                .iter()
                .map(|&x| {
                    let from = t.touched_at[x] as usize;
                    (
                        t.last_action[x],
                        &t.touched[from..from + t.touched_len[x] as usize],
                    )
                })
                .collect();
            for k in 0..steps.len() {
                // The history of step k: the earlier steps it depends on, transitively.
                let mut needed: std::collections::HashSet<CompId> = steps[k].1.iter().copied().collect();
                let mut in_history = vec![false; k + 1];
                in_history[k] = true;
                for j in (0..k).rev() {
                    if steps[j].1.iter().any(|c| needed.contains(c)) {
                        in_history[j] = true;
                        needed.extend(steps[j].1.iter().copied());
                    }
                }
                let mut replay = Replay::default();
                let mut state = t.state(0).to_vec();
                for j in (0..=k).filter(|&j| in_history[j]) {
                    replay.push(steps[j].0, steps[j].1);
                    for &c in steps[j].1 {
                        state[c.index()] = t.state(chain[j + 1])[c.index()];
                    }
                }
                let size = replay.shape.events.len() as u32;
                let known = t.find(hash_of(t, &state), &state).expect("a reachable state") as usize;
                assert_eq!(
                    t.distances[known], size,
                    "{what}: state {id}, step {k}: a shorter history"
                );
                assert_ne!(
                    compare_distance_order(&t.replay(known).shape, &replay.shape),
                    Ordering::Less,
                    "{what}: state {id}, step {k}: a history inside the least is cut"
                );
            }
        }
    }

    #[test]
    fn no_history_inside_a_least_sequence_is_cut() {
        for seed in 1..=60 {
            let net = random_net(seed, 5, 7);
            assert_least_histories_uncut(&search(&net, 10_000), &format!("seed {seed}"));
        }
        // The net on which the oracle test found Cunf's order on Foata levels missing a
        // dead state: counts of up to three tokens on a place, and a state reached both by
        // t1 t5 | t3 and by t1 | t3 | t5.
        let (mut net, p) = Net::with_places([
            ("p0", 1),
            ("p1", 0),
            ("p2", 1),
            ("p3", 0),
            ("p4", 0),
            ("p5", 1),
            ("p6", 1),
            ("p7", 1),
        ]);
        let arcs: [(&[usize], &[usize]); 7] = [
            (&[3, 7], &[]),
            (&[7], &[2, 4]),
            (&[1], &[2]),
            (&[2], &[6]),
            (&[3, 7], &[]),
            (&[6], &[]),
            (&[5], &[0, 1]),
        ];
        for (i, (pre, post)) in arcs.into_iter().enumerate() {
            let pre: Vec<_> = pre.iter().map(|&x| p[x]).collect();
            let post: Vec<_> = post.iter().map(|&x| p[x]).collect();
            net.add_transition_between(format!("t{i}"), &pre, &post);
        }
        assert_least_histories_uncut(&search(&net, 10_000), "the oracle's net");
    }

    /// a takes p's token on, b moves q's token while p holds one, h moves it once a has
    /// fired: {p', q'} is first found as a·h, whose Parikh vector is larger than b·a's.
    #[test]
    fn a_state_found_again_by_a_smaller_sequence_keeps_that() {
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
        assert_eq!(sorted_actions(&t.replay(3).shape), [a, b]);
    }
}
