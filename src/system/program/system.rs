//! [`ProgramSystem`]: a [`Program`] as a component system, and its [`System`]
//! implementation. The work is done in the sibling modules (`pending`, `enabled`, `fire`,
//! `describe`); this one holds the type, its initial state and the firing cache.

use super::code::CompKind;
use super::interp::Eval;
use super::tables::{ActKind, FireKey, PState, Tables, DONE, FREE, IDLE};
use super::{internal, Program};
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use smallvec::SmallVec;
use std::sync::{Mutex, MutexGuard};

/// Most distinct firings remembered by the firing cache before it is emptied; bounds its
/// memory on long runs while keeping repeated firings (the common case) cheap.
const FIRE_CACHE_LIMIT: usize = 1 << 21;

/// A [`Program`] seen as a component system. Its tables grow as it is explored, behind a
/// mutex, so that the workers of a parallel exploration share one numbering of actions and
/// local states (their unfolding replicas describe events to each other by action ids).
pub struct ProgramSystem<'p> {
    pub(super) prog: &'p Program,
    tables: Mutex<Tables>,
    initial: Vec<Local>,
    /// Accesses to guarded cells are folded into the step that takes their mutex.
    pub(super) fold_guarded: bool,
}

impl<'p> ProgramSystem<'p> {
    pub(super) fn new(prog: &'p Program, fold_guarded: bool) -> Result<Self, ModelError> {
        let mut t = Tables::new(prog.defs.len(), prog.instances.len());
        let mut initial = Vec::with_capacity(prog.comps.len());
        for (ci, comp) in prog.comps.iter().enumerate() {
            initial.push(match comp.kind {
                CompKind::Process(i) => {
                    let inst = &prog.instances[i as usize];
                    if inst.starts {
                        let ev =
                            Eval::new(prog, inst).ok_or_else(|| internal("instance without definition"))?;
                        t.intern_start(&ev, inst.def)?
                    } else {
                        IDLE
                    }
                }
                CompKind::Mutex(_) => FREE,
                CompKind::Sem(d) => Local(prog.sems[d as usize].init),
                CompKind::Var(d) => {
                    let v = &prog.vars[d as usize];
                    let k = ci.saturating_sub(v.base.index());
                    let x = v.init.get(k).copied().unwrap_or(v.ty.lo);
                    Local(u32::try_from(x - v.ty.lo).map_err(|_| internal("initial value out of range"))?)
                }
            });
        }
        Ok(ProgramSystem {
            prog,
            tables: Mutex::new(t),
            initial,
            fold_guarded,
        })
    }

    /// The interned tables, locked. A panic while they were held leaves them usable: every
    /// update is an insertion of a complete entry.
    pub(super) fn tables(&self) -> MutexGuard<'_, Tables> {
        self.tables
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The program behind the system.
    pub fn program(&self) -> &'p Program {
        self.prog
    }

    /// Number of distinct local states interned so far, over all process definitions.
    pub fn interned_states(&self) -> usize {
        self.tables().states.iter().map(|s| s.list.len()).sum()
    }

    /// Number of distinct actions interned so far.
    pub fn interned_actions(&self) -> usize {
        self.tables().actions.len()
    }

    /// The interned local state `l` of instance `inst`.
    pub(super) fn state<'t>(&self, t: &'t Tables, inst: u32, l: Local) -> Option<&'t PState> {
        let def = self.prog.instances.get(inst as usize)?.def;
        t.states.get(def as usize)?.list.get(l.0 as usize)
    }

    /// The process instance component `c` is, if it is one.
    pub(super) fn instance_of(&self, c: CompId) -> Option<u32> {
        match self.prog.comps.get(c.index())?.kind {
            CompKind::Process(i) => Some(i),
            _ => None,
        }
    }
}

impl System for ProgramSystem<'_> {
    fn num_components(&self) -> usize {
        self.prog.comps.len()
    }

    fn component_name(&self, c: CompId) -> String {
        self.prog
            .comps
            .get(c.index())
            .map(|x| x.name.clone())
            .unwrap_or_default()
    }

    fn component_kind(&self, c: CompId) -> &'static str {
        match self.prog.comps.get(c.index()).map(|x| x.kind) {
            Some(CompKind::Process(_)) => "process",
            Some(CompKind::Mutex(_)) => "mutex",
            Some(CompKind::Sem(_)) => "semaphore",
            Some(CompKind::Var(_)) => "variable",
            None => "unknown",
        }
    }

    fn initial_state(&self) -> Vec<Local> {
        self.initial.clone()
    }

    fn enabled_steps(&self, state: &[Local], out: &mut Vec<Step>) {
        let mut t = self.tables();
        for inst in 0..self.prog.instances.len() as u32 {
            self.steps_of(&mut t, state, inst, false, out);
        }
    }

    fn enabled_steps_touching(&self, state: &[Local], c: CompId, out: &mut Vec<Step>) {
        let mut t = self.tables();
        let start = out.len();
        let mut found = Vec::new();
        for &inst in self
            .prog
            .touchers
            .get(c.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
        {
            found.clear();
            self.steps_of(&mut t, state, inst, true, &mut found);
            for s in found.drain(..) {
                if s.touched.contains(&c) && !out[start..].iter().any(|o| o.action == s.action) {
                    out.push(s);
                }
            }
        }
    }

    fn fire(&self, step: &Step, before: &[Local], after: &mut [Local]) -> Result<bool, ModelError> {
        let mut t = self.tables();
        let key: FireKey = (step.action, SmallVec::from_slice(before));
        if let Some(hit) = t.fire_cache.get(&key) {
            if hit.len() == after.len() {
                after.copy_from_slice(hit);
                return Ok(true);
            }
        }
        debug_assert!(
            t.actions
                .get(step.action.index())
                .is_some_and(|a| a.touched == step.touched),
            "[qpor internal bug] a step's touch set differs from its action's"
        );
        let ok = self.fire_action(&mut t, step.action, before, after)?;
        if ok {
            if t.fire_cache.len() >= FIRE_CACHE_LIMIT {
                t.fire_cache.clear();
            }
            t.fire_cache.insert(key, SmallVec::from_slice(after));
        }
        Ok(ok)
    }

    /// Actions are anchored at their owner process; a rendezvous at its sender. The
    /// receive statements a sender may meet are those interned so far: every local state of
    /// a receiver that an unfolding can pair with the sender has been visited by
    /// `enabled_steps`, which interns its pending statement.
    fn anchored_steps(&self, c: CompId, l: Local, out: &mut Vec<Step>) -> bool {
        if let Some(inst) = self.instance_of(c) {
            self.anchored_steps_of(&mut self.tables(), inst, l, out);
        }
        true
    }

    fn may_enable(&self, step: &Step, index: usize, l: Local) -> bool {
        self.may_enable_at(&mut self.tables(), step, index, l)
    }

    fn action_name(&self, a: ActionId) -> String {
        self.tables()
            .actions
            .get(a.index())
            .map(|x| x.name.clone())
            .unwrap_or_else(|| format!("action {}", a.0))
    }

    /// Actions are interned as met: the key is what they were interned by, the pending
    /// statement(s) (instance, program point, components touched) and the branch.
    fn action_key(&self, a: ActionId) -> Vec<u32> {
        let t = self.tables();
        let Some(info) = t.actions.get(a.index()) else {
            return vec![u32::MAX, a.0];
        };
        let mut key = Vec::with_capacity(12);
        let pending = |key: &mut Vec<u32>, p: u32| {
            let p = &t.pends[p as usize];
            key.extend([p.inst, p.pc, p.touched.len() as u32]);
            key.extend(p.touched.iter().map(|c| c.0));
        };
        match info.kind {
            ActKind::Single { pend, branch } => {
                key.extend([0, branch]);
                pending(&mut key, pend);
            }
            ActKind::Meet { send, recv } => {
                key.push(1);
                pending(&mut key, send);
                pending(&mut key, recv);
            }
        }
        key
    }

    fn action_owner(&self, a: ActionId) -> Option<CompId> {
        self.tables().actions.get(a.index()).map(|x| x.owner)
    }

    fn local_name(&self, c: CompId, l: Local) -> String {
        self.describe_local(c, l)
    }

    fn has_final_states(&self) -> bool {
        true
    }

    fn redundant_dependence(&self, c: CompId) -> bool {
        self.fold_guarded && self.prog.folds(c)
    }

    fn is_final(&self, c: CompId, l: Local) -> bool {
        match self.instance_of(c) {
            Some(_) => l == IDLE || l == DONE,
            None => true,
        }
    }

    fn fault(&self, c: CompId, l: Local) -> Option<String> {
        let i = self.instance_of(c)?;
        let t = self.tables();
        match self.state(&t, i, l)? {
            PState::Fault(id) => t.faults.get(*id as usize).cloned(),
            _ => None,
        }
    }
}
