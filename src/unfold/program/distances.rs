//! The table of distance cutoffs: the states a breadth-first search meets within a fixed
//! number of states, each with the length of the shortest firing sequence found to it.
//!
//! An event e is a distance cutoff when this table holds state(\[e\]) at a distance below
//! |\[e\]| (or, beyond the table, when a cause has e's state, as with causal cutoffs). The
//! table depends only on the system and its size bound, never on the order in which a
//! replica met events, so every thread and process of a parallel or distributed run cuts
//! the same events. A distance is the length of a real firing sequence, and every firing
//! sequence linearises a configuration of the unfolding: the cut is McMillan's, against a
//! configuration that need not have been discovered, and the minimal-size argument keeps
//! every reachable state. Whether or not the search was complete only decides how many
//! events the table cuts.
//!
//! Fault states are not expanded, as the unfolding never extends a fault event: a firing
//! sequence through one is no configuration QPOR explores.

use super::events::local_hash;
use crate::engine::CancelToken;
use crate::system::{CompId, Local, ModelError, Step, System};
use hashbrown::HashTable;
use smallvec::SmallVec;
use std::time::Instant;

/// Bytes the table's states may take when no bound on their number is given: with one
/// component per place of a net of 200 places, some 300 000 states.
pub(crate) const DEFAULT_TABLE_BYTES: usize = 256 << 20;

/// The table's default bound on states for a system of `components` components: what fits
/// [`DEFAULT_TABLE_BYTES`], at most 2^22.
pub(crate) fn default_table_states(components: usize) -> usize {
    let per_state = 4 * components + 24;
    (DEFAULT_TABLE_BYTES / per_state).clamp(1, 1 << 22)
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
    complete: bool,
}

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
            complete: false,
        };
        table.insert(&initial, 0, 0, 0);
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
                if table.find(hash, &next).is_some() {
                    continue;
                }
                if table.len() >= max_states {
                    return Ok(table);
                }
                let distance = table.distances[id] + 1;
                table.insert(&next, hash, moved as u32, distance);
            }
        }
        table.complete = true;
        Ok(table)
    }

    fn insert(&mut self, state: &[Local], hash: u64, moved: u32, distance: u32) {
        let id = self.distances.len() as u32;
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

    /// Whether a state of hash `hash` is stored at a distance below `size`, according to
    /// `same`, which is given a stored state with its number of components away from the
    /// initial state and says whether it is the state asked about.
    pub(super) fn shorter_than(
        &self,
        hash: u64,
        size: u32,
        mut same: impl FnMut(&[Local], u32) -> bool,
    ) -> bool {
        self.index
            .find(hash, |&x| {
                let x = x as usize;
                self.hashes[x] == hash && self.distances[x] < size && same(self.state(x), self.moved[x])
            })
            .is_some()
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
            assert!(t.shorter_than(hash, distance + 1, |s, _| s == state.as_slice()));
            assert!(!t.shorter_than(hash, distance, |s, _| s == state.as_slice()));
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
}
