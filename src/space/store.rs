//! A compact store of global states: every state is kept once, bit-packed, in one arena,
//! and a hash table of state ids finds it again.
//!
//! Each component gets a field of `bits[c]` bits (a power of two, from 1 up to 32) in a
//! state's words; a 1-safe net needs one bit per place. When a value does not fit its
//! field, the field is widened and the whole arena is repacked. Values grow early in a
//! search, when the arena is small, so repacking costs little in practice; it is counted.
//!
//! # Invariants
//! - `data.len() == len() * words`; state `i` occupies `data[i*words .. (i+1)*words]`.
//! - The table holds every id `0..len()` exactly once, hashed by the state's packed words.

use crate::engine::{Counters, Finding, FindingKind, Report, Settings, Stats, StepNames, StopReason};
use crate::system::{classify_dead, fault_after, ActionId, Local, System};
use hashbrown::{HashSet, HashTable};
use serde::{Deserialize, Serialize};
use std::hash::{BuildHasher, Hasher};
use std::time::Instant;

/// Fixed-seed hasher, so that runs are reproducible.
#[derive(Clone, Copy, Default)]
struct FixedState;

impl BuildHasher for FixedState {
    type Hasher = rustc_hash::FxHasher;
    fn build_hasher(&self) -> Self::Hasher {
        rustc_hash::FxHasher::default()
    }
}

fn hash_words(words: &[u64]) -> u64 {
    let mut h = FixedState.build_hasher();
    for w in words {
        h.write_u64(*w);
    }
    h.finish()
}

/// Where each component's field lives in a packed state.
#[derive(Clone, Debug)]
struct Layout {
    bits: Vec<u8>,
    /// Bit offset of each field; fields never straddle a word (widths are powers of two).
    offset: Vec<u32>,
    words: usize,
}

impl Layout {
    fn new(bits: Vec<u8>) -> Layout {
        // Place wide fields first so that no field crosses a 64-bit boundary: with
        // power-of-two widths sorted decreasingly, every offset is a multiple of the width.
        let mut order: Vec<usize> = (0..bits.len()).collect();
        order.sort_by_key(|&c| std::cmp::Reverse(bits[c]));
        let mut offset = vec![0u32; bits.len()];
        let mut at = 0u32;
        for c in order {
            offset[c] = at;
            at += bits[c] as u32;
        }
        let words = (at as usize).div_ceil(64).max(1);
        Layout { bits, offset, words }
    }

    fn pack(&self, state: &[Local], out: &mut [u64]) {
        out.fill(0);
        for (c, l) in state.iter().enumerate() {
            let off = self.offset[c] as usize;
            out[off / 64] |= (l.0 as u64) << (off % 64);
        }
    }

    fn unpack(&self, words: &[u64], out: &mut Vec<Local>) {
        out.clear();
        for c in 0..self.bits.len() {
            let off = self.offset[c] as usize;
            let mask = if self.bits[c] == 64 {
                u64::MAX
            } else {
                (1u64 << self.bits[c]) - 1
            };
            out.push(Local(((words[off / 64] >> (off % 64)) & mask) as u32));
        }
    }

    fn fits(&self, state: &[Local]) -> bool {
        state
            .iter()
            .zip(&self.bits)
            .all(|(l, &b)| b >= 32 || l.0 >> b == 0)
    }
}

fn bits_for(v: u32) -> u8 {
    let need = (32 - v.leading_zeros()).max(1) as u8;
    need.next_power_of_two()
}

/// A [`StateStore`] that also remembers how each state was first reached: its parent and
/// the action from there. Following parents from any state ends at the initial state
/// (parents are set once, at discovery, to a state stored before), so every state has a
/// witness.
pub(crate) struct SearchTree {
    /// The states.
    pub(crate) states: StateStore,
    parent: Vec<u32>,
    via: Vec<ActionId>,
}

const NO_PARENT: u32 = u32::MAX;

impl SearchTree {
    /// A tree holding only `initial`, with id 0.
    pub(crate) fn new(initial: &[Local]) -> SearchTree {
        let mut states = StateStore::new(initial.len());
        states.insert(initial);
        SearchTree {
            states,
            parent: vec![NO_PARENT],
            via: vec![ActionId(u32::MAX)],
        }
    }

    /// Inserts `state`, reached from state `parent` by `via`, unless present; returns its
    /// id and whether it is new.
    pub(crate) fn add(&mut self, state: &[Local], parent: u32, via: ActionId) -> (u32, bool) {
        let (id, new) = self.states.insert(state);
        if new {
            self.parent.push(parent);
            self.via.push(via);
        }
        (id, new)
    }

    /// What the store holds after a run of `seconds`.
    pub(crate) fn store_counters(&self, seconds: f64) -> StoreCounters {
        let states = self.states.len() as u64;
        StoreCounters {
            states,
            state_bits: self.states.bits_per_state() as u64,
            bytes_per_state: self.states.bytes_per_state().round() as u64,
            states_per_second: (states as f64 / seconds.max(1e-9)).round() as u64,
        }
    }

    /// The actions from the initial state to state `id`, in firing order.
    pub(crate) fn path(&self, id: u32) -> Vec<ActionId> {
        let mut chain = Vec::new();
        let mut at = id;
        while self.parent[at as usize] != NO_PARENT {
            chain.push(self.via[at as usize]);
            at = self.parent[at as usize];
        }
        chain.reverse();
        chain
    }
}

/// A dead or faulty state found by a search, by id, before it becomes a [`Finding`].
struct Found {
    kind: FindingKind,
    id: u32,
    message: Option<String>,
}

/// The dead and faulty states a search found, by id, in the order found, and how many
/// dead states it expanded.
#[derive(Default)]
pub(crate) struct FoundStates {
    list: Vec<Found>,
    /// States where a fault was found: the program stopped there, they are not expanded.
    faulty: HashSet<u32>,
    /// Dead states expanded, and those of them where every process had ended.
    pub(crate) dead_states: u64,
    pub(crate) terminations: u64,
}

impl FoundStates {
    /// Records that state `id` holds a fault.
    pub(crate) fn fault(&mut self, id: u32, message: String) {
        self.list.push(Found {
            kind: FindingKind::Fault,
            id,
            message: Some(message),
        });
        self.faulty.insert(id);
    }

    /// Records the fault of the initial state `init` (id 0) of `sys`, if it holds one, and
    /// says whether it does.
    pub(crate) fn initial_fault<S: System + ?Sized>(&mut self, sys: &S, init: &[Local]) -> bool {
        let fault = fault_after(sys, init, None);
        let faulty = fault.is_some();
        if let Some(msg) = fault {
            self.fault(0, msg);
        }
        faulty
    }

    /// Whether state `id` holds a fault.
    pub(crate) fn is_faulty(&self, id: u32) -> bool {
        self.faulty.contains(&id)
    }

    /// Records the dead state `id` of `sys`: a deadlock, or a termination (kept only with
    /// `all`). Returns whether it is a deadlock.
    pub(crate) fn dead<S: System + ?Sized>(&mut self, sys: &S, id: u32, state: &[Local], all: bool) -> bool {
        self.dead_states += 1;
        let kind = FindingKind::from(classify_dead(sys, state));
        if kind == FindingKind::Termination {
            self.terminations += 1;
            if !all {
                return false;
            }
        }
        self.list.push(Found {
            kind,
            id,
            message: None,
        });
        kind != FindingKind::Termination
    }

    /// Whether a deadlock or fault was found.
    pub(crate) fn any_error(&self) -> bool {
        self.list.iter().any(|f| f.kind != FindingKind::Termination)
    }

    /// Orders the findings by state id (breadth first: by distance from the initial
    /// state).
    pub(crate) fn sort_by_id(&mut self) {
        self.list.sort_by_key(|f| f.id);
    }
}

impl SearchTree {
    /// The report of a search over this tree that ran since `start`: the findings of
    /// `found` in their order, each with the state in words and its witness (the path by
    /// which the search first reached it), and the counters that `counters` makes of the
    /// store's and of `found`'s.
    pub(crate) fn report<S: System + ?Sized>(
        &self,
        sys: &S,
        engine: &'static str,
        (found, stopped): (FoundStates, Option<StopReason>),
        start: Instant,
        counters: impl FnOnce(StoreCounters, &FoundStates) -> Counters,
    ) -> Report {
        let seconds = start.elapsed().as_secs_f64();
        let counters = counters(self.store_counters(seconds), &found);
        let mut names = StepNames::default();
        let mut cur = Vec::new();
        let findings = found
            .list
            .into_iter()
            .map(|f| {
                self.states.get(f.id, &mut cur);
                Finding::new(
                    f.kind,
                    sys.describe_state(&cur),
                    f.message,
                    names.witness(sys, self.path(f.id)),
                )
            })
            .collect();
        Report::new(
            engine,
            findings,
            stopped,
            Stats::new(counters, seconds),
            Settings::default(),
        )
    }
}

/// The store.
pub(crate) struct StateStore {
    layout: Layout,
    data: Vec<u64>,
    table: HashTable<u32>,
    scratch: Vec<u64>,
    repacks: u64,
}

impl StateStore {
    /// An empty store for states of `components` components.
    pub(crate) fn new(components: usize) -> StateStore {
        let layout = Layout::new(vec![1; components]);
        let words = layout.words;
        StateStore {
            layout,
            data: Vec::new(),
            table: HashTable::new(),
            scratch: vec![0; words],
            repacks: 0,
        }
    }

    /// Number of states stored.
    pub(crate) fn len(&self) -> usize {
        self.data.len() / self.layout.words
    }

    /// Inserts `state` unless present; returns its id and whether it is new.
    pub(crate) fn insert(&mut self, state: &[Local]) -> (u32, bool) {
        debug_assert_eq!(state.len(), self.layout.bits.len());
        if !self.layout.fits(state) {
            self.widen(state);
        }
        let words = self.layout.words;
        self.layout.pack(state, &mut self.scratch);
        let hash = hash_words(&self.scratch);
        let data = &self.data;
        let scratch = &self.scratch;
        if let Some(&id) = self.table.find(hash, |&id| {
            &data[id as usize * words..(id as usize + 1) * words] == scratch.as_slice()
        }) {
            return (id, false);
        }
        let id = u32::try_from(self.len()).expect("[qpor internal bug] more than 2^32 states");
        self.data.extend_from_slice(&self.scratch);
        let data = &self.data;
        self.table.insert_unique(hash, id, |&i| {
            hash_words(&data[i as usize * words..(i as usize + 1) * words])
        });
        (id, true)
    }

    /// Writes state `id` into `out`.
    pub(crate) fn get(&self, id: u32, out: &mut Vec<Local>) {
        let w = self.layout.words;
        self.layout
            .unpack(&self.data[id as usize * w..(id as usize + 1) * w], out);
    }

    /// Bytes used per stored state: the packed words plus the table's share.
    pub(crate) fn bytes_per_state(&self) -> f64 {
        let n = self.len().max(1) as f64;
        let table = self.table.capacity() as f64 * (std::mem::size_of::<u32>() as f64 + 1.0);
        (self.data.capacity() as f64 * 8.0 + table) / n
    }

    /// Bits per packed state.
    pub(crate) fn bits_per_state(&self) -> u32 {
        self.layout.bits.iter().map(|&b| b as u32).sum()
    }

    fn widen(&mut self, state: &[Local]) {
        let mut bits = self.layout.bits.clone();
        for (c, l) in state.iter().enumerate() {
            bits[c] = bits[c].max(bits_for(l.0));
        }
        let new = Layout::new(bits);
        let old = std::mem::replace(&mut self.layout, new);
        let n = self.data.len() / old.words;
        let mut data = Vec::with_capacity(n * self.layout.words);
        let mut buf = Vec::with_capacity(state.len());
        let mut packed = vec![0u64; self.layout.words];
        for i in 0..n {
            old.unpack(&self.data[i * old.words..(i + 1) * old.words], &mut buf);
            self.layout.pack(&buf, &mut packed);
            data.extend_from_slice(&packed);
        }
        self.data = data;
        self.scratch = vec![0; self.layout.words];
        let words = self.layout.words;
        let mut table = HashTable::with_capacity(n);
        for i in 0..n {
            let h = hash_words(&self.data[i * words..(i + 1) * words]);
            let data = &self.data;
            table.insert_unique(h, i as u32, |&j| {
                hash_words(&data[j as usize * words..(j as usize + 1) * words])
            });
        }
        self.table = table;
        self.repacks += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(v: &[u32]) -> Vec<Local> {
        v.iter().map(|&x| Local(x)).collect()
    }

    #[test]
    fn stores_each_state_once_and_gives_it_back() {
        let mut s = StateStore::new(3);
        assert_eq!(s.insert(&st(&[0, 1, 0])), (0, true));
        assert_eq!(s.insert(&st(&[1, 1, 0])), (1, true));
        assert_eq!(s.insert(&st(&[0, 1, 0])), (0, false));
        let mut out = Vec::new();
        s.get(1, &mut out);
        assert_eq!(out, st(&[1, 1, 0]));
        assert_eq!(s.bits_per_state(), 3);
    }

    #[test]
    fn widening_keeps_every_state() {
        let mut s = StateStore::new(70);
        let mut all = Vec::new();
        for i in 0..200u32 {
            let v: Vec<u32> = (0..70u32).map(|c| (i * 7 + c) % 2).collect();
            all.push(v);
        }
        all.sort();
        all.dedup();
        for v in &all {
            s.insert(&st(v));
        }
        let big = st(&(0..70u32)
            .map(|c| if c == 5 { 1_000_000 } else { 3 })
            .collect::<Vec<_>>());
        let (id, new) = s.insert(&big);
        assert!(new);
        assert!(s.repacks >= 1);
        let mut out = Vec::new();
        s.get(id, &mut out);
        assert_eq!(out, big);
        for (i, v) in all.iter().enumerate() {
            assert_eq!(s.insert(&st(v)), (i as u32, false));
            s.get(i as u32, &mut out);
            assert_eq!(out, st(v));
        }
        let full = st(&[u32::MAX; 70]);
        let (id, _) = s.insert(&full);
        s.get(id, &mut out);
        assert_eq!(out, full);
    }
}

/// Counters of a search that stores states (explicit, stubborn): the store's own, which
/// the engines' counter structs flatten into theirs.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct StoreCounters {
    /// Distinct states stored.
    pub states: u64,
    /// Bits of one packed state.
    pub state_bits: u64,
    /// Bytes per stored state, table included.
    pub bytes_per_state: u64,
    /// Stored states per second of the run.
    pub states_per_second: u64,
}
