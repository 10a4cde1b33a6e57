//! The tables a [`super::ProgramSystem`] grows as it is explored: interned local states per
//! process definition, pending statements, actions, fault messages and the firing cache.

use super::internal;
use super::interp::{self, Eval, Settled};
use crate::system::{ActionId, CompId, Local, ModelError, Step, TouchSet};
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use smallvec::SmallVec;
use std::hash::BuildHasher;

/// Local state of every process that has not been started.
pub(super) const IDLE: Local = Local(0);
/// Local state of every process that has ended.
pub(super) const DONE: Local = Local(1);
/// Local state of a free mutex.
pub(super) const FREE: Local = Local(0);

/// The interned local state of a process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum PState {
    Idle,
    Done,
    /// Index into the fault messages.
    Fault(u32),
    Run {
        pc: u32,
        locals: Box<[i64]>,
    },
}

/// The local-state table of one process definition.
pub(super) struct DefStates {
    pub(super) list: Vec<PState>,
    table: HashTable<u32>,
}

impl DefStates {
    pub(super) fn new() -> Self {
        let mut s = DefStates {
            list: Vec::new(),
            table: HashTable::new(),
        };
        s.intern(PState::Idle);
        s.intern(PState::Done);
        s
    }

    /// The id of `st`, interning it on first sight; `None` when the ids are exhausted.
    pub(super) fn intern(&mut self, st: PState) -> Option<Local> {
        let hash = FxBuildHasher.hash_one(&st);
        let list = &self.list;
        if let Some(&i) = self.table.find(hash, |&i| list[i as usize] == st) {
            return Some(Local(i));
        }
        let id = u32::try_from(self.list.len()).ok().filter(|&i| i < u32::MAX)?;
        self.list.push(st);
        let list = &self.list;
        self.table
            .insert_unique(hash, id, |&i| FxBuildHasher.hash_one(&list[i as usize]));
        Some(Local(id))
    }
}

/// What a process waits to do next, once its indices are resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PendKind {
    Lock(CompId),
    Unlock(CompId),
    Wait(CompId),
    Signal(CompId),
    Spawn(CompId),
    Join(CompId),
    /// An assignment, branch or assert touching shared cells.
    Data,
    /// A nondeterministic choice with this many branches.
    Choose(u32),
    Send {
        cell: u32,
        chan: u32,
    },
    Recv {
        cell: u32,
        chan: u32,
    },
}

/// An interned pending statement.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub inst: u32,
    pub pc: u32,
    pub kind: PendKind,
    /// The owner and the components the statement touches, sorted (for a send or receive,
    /// this side's only).
    pub touched: TouchSet,
    /// The actions this statement offers on its own (empty for sends and receives).
    pub actions: SmallVec<[ActionId; 2]>,
}

/// What an action is: one branch of a statement needing no partner, or a rendezvous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ActKind {
    Single { pend: u32, branch: u32 },
    Meet { send: u32, recv: u32 },
}

/// An interned action.
pub(super) struct ActionInfo {
    pub(super) touched: TouchSet,
    pub(super) owner: CompId,
    pub(super) kind: ActKind,
    pub(super) name: String,
}

/// In [`Tables::pend_of`]: no pending statement (idle, done or fault).
pub(super) const NO_PENDING: u32 = u32::MAX - 1;

/// One instance's pending statements by local state: a vector indexed by the local id
/// while that stays dense, a map once it would not. The ids of one definition are shared
/// by all its instances, so with N instances each one's vector would span all their
/// states together (converting 60 000 philosophers grew to 18 GB); a map for every
/// instance cost the explicit search 15% on programs with few instances.
#[derive(Clone, Debug)]
pub(super) enum PendingOf {
    /// Indexed by local id; `u32::MAX` for not asked yet.
    Dense {
        ids: Vec<u32>,
        filled: usize,
    },
    Sparse(FxHashMap<u32, u32>),
}

impl Default for PendingOf {
    fn default() -> Self {
        PendingOf::Dense {
            ids: Vec::new(),
            filled: 0,
        }
    }
}

impl PendingOf {
    /// Slots a dense vector may have per filled one (plus a constant) before it becomes
    /// a map.
    const SLACK: usize = 8;
    const UNASKED: u32 = u32::MAX;

    /// The pending id of local state `l`, if asked before.
    #[inline]
    pub(super) fn get(&self, l: u32) -> Option<u32> {
        match self {
            PendingOf::Dense { ids, .. } => ids.get(l as usize).copied().filter(|&p| p != Self::UNASKED),
            PendingOf::Sparse(map) => map.get(&l).copied(),
        }
    }

    /// Records the pending id `p` of local state `l`.
    pub(super) fn insert(&mut self, l: u32, p: u32) {
        if let PendingOf::Dense { ids, filled } = self {
            let needed = l as usize + 1;
            if needed <= ids.len().max(Self::SLACK * (*filled + 1) + 1024) {
                if ids.len() < needed {
                    ids.resize(needed, Self::UNASKED);
                }
                *filled += 1;
                ids[l as usize] = p;
                return;
            }
            let map = ids
                .iter()
                .enumerate()
                .filter(|(_, &q)| q != Self::UNASKED)
                .map(|(i, &q)| (i as u32, q))
                .collect();
            *self = PendingOf::Sparse(map);
        }
        if let PendingOf::Sparse(map) = self {
            map.insert(l, p);
        }
    }
}

/// A firing: the action and the before-states of its touch set.
pub(super) type FireKey = (ActionId, SmallVec<[Local; 4]>);

/// Everything a [`super::ProgramSystem`] interns as it is explored.
pub(super) struct Tables {
    pub(super) states: Vec<DefStates>,
    /// Per instance, by local state: the pending id or [`NO_PENDING`] (idle, done or
    /// fault); absent when not asked yet.
    pub(super) pend_of: Vec<PendingOf>,
    pub(super) pends: Vec<Pending>,
    pub(super) pend_index: FxHashMap<(u32, u32, TouchSet), u32>,
    pub(super) actions: Vec<ActionInfo>,
    pub(super) meet_index: FxHashMap<(u32, u32), ActionId>,
    pub(super) faults: Vec<String>,
    pub(super) fault_index: FxHashMap<String, u32>,
    pub(super) fire_cache: FxHashMap<FireKey, SmallVec<[Local; 4]>>,
    /// Interned receive statements by channel cell, for the anchored steps of senders.
    pub(super) recv_by_cell: FxHashMap<u32, Vec<u32>>,
    /// Interned send statements by channel cell, for the anchored steps of receivers.
    pub(super) send_by_cell: FxHashMap<u32, Vec<u32>>,
}

impl Tables {
    /// Empty tables for `defs` process definitions and `instances` instances.
    pub(super) fn new(defs: usize, instances: usize) -> Self {
        Tables {
            states: (0..defs).map(|_| DefStates::new()).collect(),
            pend_of: (0..instances).map(|_| PendingOf::default()).collect(),
            pends: Vec::new(),
            pend_index: FxHashMap::default(),
            actions: Vec::new(),
            meet_index: FxHashMap::default(),
            faults: Vec::new(),
            fault_index: FxHashMap::default(),
            fire_cache: FxHashMap::default(),
            recv_by_cell: FxHashMap::default(),
            send_by_cell: FxHashMap::default(),
        }
    }

    /// The id of a fault message, interning it on first sight.
    pub(super) fn fault_id(&mut self, msg: String) -> u32 {
        match self.fault_index.get(&msg) {
            Some(&id) => id,
            None => {
                let id = self.faults.len() as u32;
                self.faults.push(msg.clone());
                self.fault_index.insert(msg, id);
                id
            }
        }
    }

    /// The step of action `a`, with its touch set.
    pub(super) fn step(&self, a: ActionId) -> Step {
        Step {
            action: a,
            touched: self.actions[a.index()].touched.clone(),
        }
    }
}

impl Tables {
    /// Interns where a process stands after folding, as a local state of definition `def`.
    pub(super) fn intern_settled(&mut self, def: u32, s: Settled) -> Result<Local, ModelError> {
        let st = match s {
            Settled::Done => return Ok(DONE),
            Settled::At { pc, locals } => PState::Run { pc, locals },
            Settled::Fault(msg) => PState::Fault(self.fault_id(msg)),
        };
        self.states
            .get_mut(def as usize)
            .ok_or_else(|| internal("definition"))?
            .intern(st)
            .ok_or_else(|| ModelError::new("a process has more than 2^32 local states"))
    }

    /// Interns the first local state of a process that starts: its code folded from the
    /// beginning with every local 0.
    pub(super) fn intern_start(&mut self, ev: &Eval<'_>, def: u32) -> Result<Local, ModelError> {
        let locals = vec![0i64; ev.def.slots.len()].into_boxed_slice();
        self.intern_settled(def, interp::settle(ev, 0, locals, None))
    }
}

#[cfg(test)]
mod tests {
    use super::PendingOf;

    #[test]
    fn pending_ids_survive_the_switch_from_a_vector_to_a_map() {
        let mut p = PendingOf::default();
        p.insert(3, 30);
        p.insert(0, 0);
        assert!(matches!(p, PendingOf::Dense { .. }));
        // A far id would make the vector sparse: the entries move to a map.
        p.insert(1_000_000, 7);
        assert!(matches!(p, PendingOf::Sparse(_)));
        assert_eq!(
            (p.get(3), p.get(0), p.get(1_000_000), p.get(4)),
            (Some(30), Some(0), Some(7), None)
        );
    }
}
