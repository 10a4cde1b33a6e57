//! What a process waits to do next: its pending statement with the indices resolved, the
//! components it touches and the actions it offers, interned on first use; and the
//! rendezvous actions that pair a send with a receive.

use super::code::{CompKind, Op, OpKind};
use super::interp::Eval;
use super::partial::{self, PartialFlow, PartialLocals};
use super::system::ProgramSystem;
use super::tables::{ActKind, ActionInfo, PState, PendKind, Pending, Tables, NO_PENDING};
use crate::system::{ActionId, CompId, Local, Step, TouchSet};
use hashbrown::HashSet;
use smallvec::SmallVec;

impl<'p> ProgramSystem<'p> {
    /// The pending statement of instance `inst` in local state `l`, computing and
    /// interning it on first use.
    pub(super) fn pending_id(&self, t: &mut Tables, inst: u32, l: Local) -> u32 {
        if let Some(p) = t.pend_of.get(inst as usize).and_then(|m| m.get(l.0)) {
            return p;
        }
        let p = self.compute_pending(t, inst, l);
        if let Some(m) = t.pend_of.get_mut(inst as usize) {
            m.insert(l.0, p);
        }
        p
    }

    fn compute_pending(&self, t: &mut Tables, inst: u32, l: Local) -> u32 {
        let Some(PState::Run { pc, locals }) = self.state(t, inst, l) else {
            return NO_PENDING;
        };
        let (pc, locals) = (*pc, locals.clone());
        let prog = self.prog;
        let Some(ev) = Eval::new(prog, &prog.instances[inst as usize]) else {
            return NO_PENDING;
        };
        let Some(op) = ev.def.code.get(pc as usize) else {
            return NO_PENDING;
        };
        let Some((kind, mut touched)) = resolve(&ev, op, &locals, CompId(inst)) else {
            return NO_PENDING;
        };
        if self.fold_guarded {
            if let PendKind::Lock(m) = &kind {
                // The accesses after the lock that its mutex guards are folded into it.
                touched.extend_from_slice(prog.guarded_by(*m));
            }
            // And the accesses to exclusive cells that the local run after the step may
            // reach.
            let ahead = exclusive_ahead(&ev, pc, &locals, &touched);
            touched.extend(ahead);
            touched.sort_unstable();
            touched.dedup();
        }
        self.intern_pending(t, inst, pc, op, kind, touched)
    }

    /// The id of a resolved pending statement, interning it and its own actions (one per
    /// branch of a choice, none for a send or receive) on first sight.
    fn intern_pending(
        &self,
        t: &mut Tables,
        inst: u32,
        pc: u32,
        op: &Op,
        kind: PendKind,
        touched: TouchSet,
    ) -> u32 {
        let key = (inst, pc, touched.clone());
        if let Some(&p) = t.pend_index.get(&key) {
            return p;
        }
        let id = t.pends.len() as u32;
        let branches = match &kind {
            PendKind::Send { .. } | PendKind::Recv { .. } => 0,
            PendKind::Choose(n) => *n,
            _ => 1,
        };
        let mut actions = SmallVec::new();
        for b in 0..branches {
            let a = ActionId(t.actions.len() as u32);
            let name = self.single_name(&kind, op, &touched, b, branches);
            t.actions.push(ActionInfo {
                touched: touched.clone(),
                owner: CompId(inst),
                kind: ActKind::Single { pend: id, branch: b },
                name,
            });
            actions.push(a);
        }
        t.pends.push(Pending {
            inst,
            pc,
            kind,
            touched,
            actions,
        });
        t.pend_index.insert(key, id);
        match t.pends[id as usize].kind {
            PendKind::Recv { cell, .. } => t.recv_by_cell.entry(cell).or_default().push(id),
            PendKind::Send { cell, .. } => t.send_by_cell.entry(cell).or_default().push(id),
            _ => {}
        }
        id
    }

    /// The name of branch `b` of `n` of a statement that needs no partner.
    fn single_name(&self, kind: &PendKind, op: &Op, touched: &TouchSet, b: u32, n: u32) -> String {
        let p = self.prog;
        let name = |c: &CompId| p.comps[c.index()].name.clone();
        let label = match kind {
            PendKind::Lock(c) => format!("lock {}", name(c)),
            PendKind::Unlock(c) => format!("unlock {}", name(c)),
            PendKind::Wait(c) => format!("wait {}", name(c)),
            PendKind::Signal(c) => format!("signal {}", name(c)),
            PendKind::Spawn(c) => format!("spawn {}", name(c)),
            PendKind::Join(c) => format!("join {}", name(c)),
            PendKind::Choose(_) => format!("choose branch {} of {n}", b + 1),
            PendKind::Data => {
                let cells: Vec<String> = touched
                    .iter()
                    .filter(|c| matches!(p.comps[c.index()].kind, CompKind::Var(d) if p.vars[d as usize].len.is_some()))
                    .map(name)
                    .collect();
                if cells.is_empty() {
                    op.text.clone()
                } else {
                    format!("{} on {}", op.text, cells.join(", "))
                }
            }
            PendKind::Send { .. } | PendKind::Recv { .. } => op.text.clone(),
        };
        format!("{label} at {}:{}", op.pos.line, op.pos.col)
    }

    /// The rendezvous action of a sending and a receiving pending statement.
    pub(super) fn meet(&self, t: &mut Tables, send: u32, recv: u32) -> ActionId {
        if let Some(&a) = t.meet_index.get(&(send, recv)) {
            return a;
        }
        let (s, r) = (&t.pends[send as usize], &t.pends[recv as usize]);
        let mut touched: TouchSet = s.touched.iter().chain(r.touched.iter()).copied().collect();
        touched.sort_unstable();
        touched.dedup();
        let cell = match s.kind {
            PendKind::Send { cell, .. } => cell,
            _ => 0,
        };
        let sop = self.op_at(s.inst, s.pc);
        let rop = self.op_at(r.inst, r.pc);
        let name = format!(
            "{}: {} → {} at {}:{} / {}:{}",
            self.prog.cell_name(cell),
            self.prog.instances[s.inst as usize].name,
            self.prog.instances[r.inst as usize].name,
            sop.map(|o| o.pos.line).unwrap_or(0),
            sop.map(|o| o.pos.col).unwrap_or(0),
            rop.map(|o| o.pos.line).unwrap_or(0),
            rop.map(|o| o.pos.col).unwrap_or(0),
        );
        let a = ActionId(t.actions.len() as u32);
        t.actions.push(ActionInfo {
            touched,
            owner: CompId(s.inst),
            kind: ActKind::Meet { send, recv },
            name,
        });
        t.meet_index.insert((send, recv), a);
        a
    }

    /// The operation at control point `pc` of instance `inst`.
    pub(super) fn op_at(&self, inst: u32, pc: u32) -> Option<&'p Op> {
        let def = self.prog.instances.get(inst as usize)?.def;
        self.prog.defs.get(def as usize)?.code.get(pc as usize)
    }

    /// The pending statement of `inst` at `l`, if any (for the net export and the
    /// stubborn rules).
    pub(crate) fn pending(&self, inst: u32, l: Local) -> Option<Pending> {
        let mut t = self.tables();
        let p = self.pending_id(&mut t, inst, l);
        if p == NO_PENDING {
            None
        } else {
            t.pends.get(p as usize).cloned()
        }
    }

    /// For the net export: the rendezvous action of a sender and a receiver at these local
    /// states, if they meet on one channel cell.
    pub(crate) fn meet_of(&self, s: u32, ls: Local, r: u32, lr: Local) -> Option<Step> {
        let mut t = self.tables();
        let sp = self.pending_id(&mut t, s, ls);
        let rp = self.pending_id(&mut t, r, lr);
        if sp == NO_PENDING || rp == NO_PENDING {
            return None;
        }
        match (&t.pends[sp as usize].kind, &t.pends[rp as usize].kind) {
            (PendKind::Send { cell: a, .. }, PendKind::Recv { cell: b, .. }) if a == b => {
                let a = self.meet(&mut t, sp, rp);
                Some(t.step(a))
            }
            _ => None,
        }
    }

    /// For the net export: the instances that may receive on channel declaration `chan`.
    pub(crate) fn receivers(&self, chan: u32) -> &'p [u32] {
        self.prog
            .receivers
            .get(chan as usize)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }
}

/// The most operations [`exclusive_ahead`] looks at; past them it gives what it has found,
/// and the accesses it did not reach become steps of their own.
const MAX_LOOKAHEAD: usize = 10_000;

/// The exclusive cells that the local run after the visible statement at `pc` may access
/// (`exclusive.rs`), from the process's locals before it: the run goes on through local
/// code and through the accesses to cells that fold (exclusive ones, and guarded ones in
/// `touched`), as `interp::settle` does; values read from shared memory are unknown, and
/// a condition on them follows both branches.
fn exclusive_ahead(ev: &Eval<'_>, pc: u32, locals: &[i64], touched: &[CompId]) -> Vec<CompId> {
    let prog = ev.prog;
    let code = &ev.def.code;
    let Some(op) = code.get(pc as usize) else {
        return Vec::new();
    };
    let mut start: PartialLocals = locals.iter().map(|&v| Some(v)).collect();
    let after: Vec<u32> = match &op.kind {
        OpKind::Choose(ts) => ts.clone(),
        OpKind::Branch { then_pc, else_pc, .. } => vec![*then_pc, *else_pc],
        OpKind::Assign { target, .. }
        | OpKind::Recv {
            target: Some(target), ..
        } => {
            partial::store(ev, target, None, &mut start);
            vec![pc + 1]
        }
        OpKind::End | OpKind::Jump(_) | OpKind::Reset { .. } => return Vec::new(),
        _ => vec![pc + 1],
    };
    let mut found = Vec::new();
    let mut seen: HashSet<(u32, PartialLocals)> = HashSet::new();
    let mut work: Vec<(u32, PartialLocals)> = after.into_iter().map(|t| (t, start.clone())).collect();
    while let Some((pc, mut locals)) = work.pop() {
        if seen.len() >= MAX_LOOKAHEAD || !seen.insert((pc, locals.clone())) {
            continue;
        }
        let Some(op) = code.get(pc as usize) else { continue };
        let local = match &op.kind {
            OpKind::Jump(_) | OpKind::Reset { .. } => true,
            OpKind::Assign { .. } | OpKind::Branch { .. } | OpKind::Assert(_) if op.shared => {
                let Some(cells) = partial::cells(ev, &op.kind, &locals) else {
                    continue;
                };
                let folds = cells
                    .iter()
                    .all(|&c| prog.exclusive(c) || (prog.guard(c).is_some() && touched.contains(&c)));
                if folds {
                    found.extend(cells.into_iter().filter(|&c| prog.exclusive(c)));
                }
                folds
            }
            OpKind::Assign { .. } | OpKind::Branch { .. } | OpKind::Assert(_) => true,
            _ => false,
        };
        if !local {
            continue;
        }
        if let PartialFlow::To(ts) = partial::data(ev, &op.kind, pc, &mut locals) {
            work.extend(ts.into_iter().map(|t| (t, locals.clone())));
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// What the statement `op` of instance `me` does once its indices are evaluated on
/// `locals`, and the components it touches (sorted, `me` included); `None` for an
/// operation that is not visible or whose target does not exist.
fn resolve(ev: &Eval<'_>, op: &Op, locals: &[i64], me: CompId) -> Option<(PendKind, TouchSet)> {
    let mut touched = TouchSet::new();
    touched.push(me);
    let kind = match &op.kind {
        OpKind::Lock(c) | OpKind::Unlock(c) | OpKind::Wait(c) | OpKind::Signal(c) => {
            let sem = matches!(op.kind, OpKind::Wait(_) | OpKind::Signal(_));
            let r = ev.resource(c, sem, locals).ok()?;
            touched.push(r);
            match op.kind {
                OpKind::Lock(_) => PendKind::Lock(r),
                OpKind::Unlock(_) => PendKind::Unlock(r),
                OpKind::Wait(_) => PendKind::Wait(r),
                _ => PendKind::Signal(r),
            }
        }
        OpKind::Spawn(c) | OpKind::Join(c) => {
            let q = ev.process(c, locals).ok()?;
            if q != me {
                touched.push(q);
            }
            if matches!(op.kind, OpKind::Spawn(_)) {
                PendKind::Spawn(q)
            } else {
                PendKind::Join(q)
            }
        }
        OpKind::Assign { .. } | OpKind::Branch { .. } | OpKind::Assert(_) => {
            touched.extend(ev.shared_cells(op, locals));
            PendKind::Data
        }
        OpKind::Choose(ts) => PendKind::Choose(ts.len() as u32),
        OpKind::Send { chan, .. } | OpKind::Recv { chan, .. } => {
            let cell = ev.channel(chan, locals).ok()?;
            touched.extend(ev.shared_cells(op, locals));
            if matches!(op.kind, OpKind::Send { .. }) {
                PendKind::Send {
                    cell,
                    chan: chan.decl,
                }
            } else {
                PendKind::Recv {
                    cell,
                    chan: chan.decl,
                }
            }
        }
        OpKind::Jump(_) | OpKind::Reset { .. } | OpKind::End => return None,
    };
    touched.sort_unstable();
    touched.dedup();
    Some((kind, touched))
}
