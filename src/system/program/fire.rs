//! What a step does: firing an action on the local states of the components it touches.
//! A statement that needs no partner is fired by one helper per kind of statement; a
//! rendezvous moves a value from the sender to the receiver. Afterwards each moved process
//! folds its local code ([`interp::settle`]) and the result is interned.

use super::code::{CompKind, Instance, Op, OpKind};
use super::interp::{self, Eval, Flow, GuardedCells, Memory, Settled};
use super::system::ProgramSystem;
use super::tables::{ActKind, PState, PendKind, Tables, DONE, FREE, IDLE};
use super::{internal, Program};
use crate::system::{ActionId, CompId, Local, ModelError};

/// The shared cells of a step: `vals` parallel to `touched`.
struct TouchedMem<'a> {
    prog: &'a Program,
    touched: &'a [CompId],
    vals: &'a mut [Local],
}

impl TouchedMem<'_> {
    fn lo(&self, c: CompId) -> Option<i64> {
        match self.prog.comps.get(c.index())?.kind {
            CompKind::Var(d) => Some(self.prog.vars[d as usize].ty.lo),
            _ => None,
        }
    }
}

impl Memory for TouchedMem<'_> {
    fn read(&self, c: CompId) -> Option<i64> {
        let i = self.touched.binary_search(&c).ok()?;
        Some(self.lo(c)? + self.vals[i].0 as i64)
    }

    fn write(&mut self, c: CompId, v: i64) -> bool {
        let (Ok(i), Some(lo)) = (self.touched.binary_search(&c), self.lo(c)) else {
            return false;
        };
        match u32::try_from(v - lo) {
            Ok(x) => {
                self.vals[i] = Local(x);
                true
            }
            Err(_) => false,
        }
    }
}

/// The new local state of a process after a step.
enum Outcome {
    Continue(u32, Box<[i64]>),
    Fault(String),
}

/// A statement that needs no partner, about to fire: the process's evaluation context, the
/// operation, where it stands, and the step's touch set with its before-states.
struct Single<'a, 'p> {
    ev: &'a Eval<'p>,
    op: &'p Op,
    pc: u32,
    locals: Box<[i64]>,
    /// What a mutex holds when this process holds it.
    holder: Local,
    touched: &'a [CompId],
    before: &'a [Local],
}

/// What firing a statement gives: the process's outcome, or `None` when the step is not
/// enabled at these before-states.
type Fired = Result<Option<Outcome>, ModelError>;

impl Single<'_, '_> {
    /// The position of component `c` in the touch set.
    fn pos(&self, c: CompId, what: &str) -> Result<usize, ModelError> {
        self.touched.binary_search(&c).map_err(|_| internal(what))
    }

    /// Goes on after the statement.
    fn next(self) -> Fired {
        Ok(Some(Outcome::Continue(self.pc + 1, self.locals)))
    }

    /// Faults at the statement.
    fn fault(&self, what: String) -> Fired {
        Ok(Some(Outcome::Fault(interp::fault_message(
            self.ev.prog,
            self.op,
            &what,
        ))))
    }

    /// The name of component `c`.
    fn name(&self, c: CompId) -> &str {
        &self.ev.prog.comps[c.index()].name
    }
}

impl ProgramSystem<'_> {
    /// Fires `a` on `before` (parallel to its touch set) into `after`.
    pub(super) fn fire_action(
        &self,
        t: &mut Tables,
        a: ActionId,
        before: &[Local],
        after: &mut [Local],
    ) -> Result<bool, ModelError> {
        let info = t
            .actions
            .get(a.index())
            .ok_or_else(|| internal("unknown action"))?;
        let touched = info.touched.clone();
        let kind = info.kind;
        if touched.len() != before.len() || touched.len() != after.len() {
            return Err(internal("before/after slices do not match the touch set"));
        }
        after.copy_from_slice(before);
        match kind {
            ActKind::Single { pend, branch } => self.fire_single(t, pend, branch, &touched, before, after),
            ActKind::Meet { send, recv } => self.fire_meet(t, (send, recv), &touched, before, after),
        }
    }

    /// Fires branch `branch` of pending statement `pend`.
    fn fire_single(
        &self,
        t: &mut Tables,
        pend: u32,
        branch: u32,
        touched: &[CompId],
        before: &[Local],
        after: &mut [Local],
    ) -> Result<bool, ModelError> {
        let p = t.pends[pend as usize].clone();
        let pm = touched
            .binary_search(&CompId(p.inst))
            .map_err(|_| internal("owner not touched"))?;
        if self.pending_id(t, p.inst, before[pm]) != pend {
            return Ok(false);
        }
        let Some(PState::Run { pc, locals }) = self.state(t, p.inst, before[pm]) else {
            return Ok(false);
        };
        let (pc, locals) = (*pc, locals.clone());
        let inst = &self.prog.instances[p.inst as usize];
        let ev = Eval::new(self.prog, inst).ok_or_else(|| internal("definition"))?;
        let op = op_of(&ev, pc)?;
        let s = Single {
            ev: &ev,
            op,
            pc,
            locals,
            holder: Local(p.inst + 1),
            touched,
            before,
        };
        let fired = match p.kind {
            PendKind::Lock(m) => fire_lock(s, m, after),
            PendKind::Unlock(m) => fire_unlock(s, m, after),
            PendKind::Wait(c) => fire_wait(s, c, after),
            PendKind::Signal(c) => fire_signal(s, c, after),
            PendKind::Spawn(q) => fire_spawn(t, s, q, after),
            PendKind::Join(q) => fire_join(s, q),
            PendKind::Data => fire_data(s, after),
            PendKind::Choose(_) => fire_choose(s, branch),
            PendKind::Send { .. } | PendKind::Recv { .. } => Err(internal("rendezvous as a single")),
        };
        let Some(outcome) = fired? else {
            return Ok(false);
        };
        after[pm] = self.finish(t, inst, &ev, outcome, touched, after)?;
        Ok(true)
    }

    /// Fires the rendezvous of pending statements `send` and `recv`: the receiver stores
    /// the value the sender's expression gives.
    fn fire_meet(
        &self,
        t: &mut Tables,
        (send, recv): (u32, u32),
        touched: &[CompId],
        before: &[Local],
        after: &mut [Local],
    ) -> Result<bool, ModelError> {
        let (s, r) = (t.pends[send as usize].clone(), t.pends[recv as usize].clone());
        let pos = |c: CompId| touched.binary_search(&c).ok();
        let (Some(ps), Some(pr)) = (pos(CompId(s.inst)), pos(CompId(r.inst))) else {
            return Err(internal("rendezvous parties not touched"));
        };
        if self.pending_id(t, s.inst, before[ps]) != send || self.pending_id(t, r.inst, before[pr]) != recv {
            return Ok(false);
        }
        let (Some(PState::Run { pc: spc, locals: sl }), Some(PState::Run { pc: rpc, locals: rl })) = (
            self.state(t, s.inst, before[ps]),
            self.state(t, r.inst, before[pr]),
        ) else {
            return Ok(false);
        };
        let (spc, mut sl, rpc, mut rl) = (*spc, sl.clone(), *rpc, rl.clone());
        let sinst = &self.prog.instances[s.inst as usize];
        let rinst = &self.prog.instances[r.inst as usize];
        let sev = Eval::new(self.prog, sinst).ok_or_else(|| internal("definition"))?;
        let rev = Eval::new(self.prog, rinst).ok_or_else(|| internal("definition"))?;
        let sop = op_of(&sev, spc)?;
        let rop = op_of(&rev, rpc)?;
        let (OpKind::Send { chan, value }, OpKind::Recv { target, .. }) = (&sop.kind, &rop.kind) else {
            return Err(internal("rendezvous statements"));
        };
        let ty = self.prog.chans.get(chan.decl as usize).and_then(|c| c.ty);
        let mut mem = TouchedMem {
            prog: self.prog,
            touched,
            vals: after,
        };
        let sent = match value {
            None => Ok(0),
            Some(e) => sev.expr(e, &sl, &mem).and_then(|v| match ty {
                Some(ty) if !ty.contains(v) => Err(format!(
                    "the value {} sent on `{}` is outside its range {}",
                    ty.show(v),
                    self.prog.cell_name(match s.kind {
                        PendKind::Send { cell, .. } => cell,
                        _ => 0,
                    }),
                    ty.describe()
                )),
                _ => Ok(v),
            }),
        };
        let (so, ro) = match sent {
            Err(m) => (Outcome::Fault(interp::fault_message(self.prog, sop, &m)), None),
            Ok(v) => {
                let stored = match target {
                    None => Ok(()),
                    Some(lv) => rev.store(lv, v, &mut rl, &mut mem),
                };
                let ro = match stored {
                    Ok(()) => Outcome::Continue(rpc + 1, std::mem::take(&mut rl)),
                    Err(m) => Outcome::Fault(interp::fault_message(self.prog, rop, &m)),
                };
                (Outcome::Continue(spc + 1, std::mem::take(&mut sl)), Some(ro))
            }
        };
        after[ps] = self.finish(t, sinst, &sev, so, touched, after)?;
        if let Some(ro) = ro {
            after[pr] = self.finish(t, rinst, &rev, ro, touched, after)?;
        }
        Ok(true)
    }

    /// Folds the local code after a step, and the accesses to the guarded cells it
    /// touches, and interns the resulting local state.
    fn finish(
        &self,
        t: &mut Tables,
        inst: &Instance,
        ev: &Eval<'_>,
        o: Outcome,
        touched: &[CompId],
        after: &mut [Local],
    ) -> Result<Local, ModelError> {
        let mut mem = TouchedMem {
            prog: self.prog,
            touched,
            vals: after,
        };
        let guarded = self.fold_guarded.then_some(GuardedCells {
            touched,
            mem: &mut mem,
        });
        let s = match o {
            Outcome::Continue(pc, locals) => interp::settle(ev, pc, locals, guarded),
            Outcome::Fault(m) => Settled::Fault(m),
        };
        t.intern_settled(inst.def, s)
    }
}

/// The operation at control point `pc`.
fn op_of<'p>(ev: &Eval<'p>, pc: u32) -> Result<&'p Op, ModelError> {
    ev.def
        .code
        .get(pc as usize)
        .ok_or_else(|| internal("control point"))
}

fn fire_lock(s: Single<'_, '_>, m: CompId, after: &mut [Local]) -> Fired {
    let i = s.pos(m, "mutex not touched")?;
    if s.before[i] == FREE {
        after[i] = s.holder;
        s.next()
    } else if s.before[i] == s.holder {
        s.fault(format!(
            "lock of `{}`, which this process already holds",
            s.name(m)
        ))
    } else {
        Ok(None)
    }
}

fn fire_unlock(s: Single<'_, '_>, m: CompId, after: &mut [Local]) -> Fired {
    let i = s.pos(m, "mutex not touched")?;
    if s.before[i] == s.holder {
        after[i] = FREE;
        s.next()
    } else if s.before[i] == FREE {
        s.fault(format!("unlock of `{}`, which is not locked", s.name(m)))
    } else {
        let other =
            s.ev.prog
                .instances
                .get(s.before[i].0 as usize - 1)
                .map(|x| x.name.clone())
                .unwrap_or_default();
        s.fault(format!(
            "unlock of `{}`, which is held by {other}, not by this process",
            s.name(m)
        ))
    }
}

fn fire_wait(s: Single<'_, '_>, c: CompId, after: &mut [Local]) -> Fired {
    let i = s.pos(c, "semaphore not touched")?;
    if s.before[i].0 == 0 {
        return Ok(None);
    }
    after[i] = Local(s.before[i].0 - 1);
    s.next()
}

fn fire_signal(s: Single<'_, '_>, c: CompId, after: &mut [Local]) -> Fired {
    let i = s.pos(c, "semaphore not touched")?;
    match s.before[i].0.checked_add(1) {
        Some(v) => {
            after[i] = Local(v);
            s.next()
        }
        None => s.fault(format!("semaphore `{}` overflows", s.name(c))),
    }
}

fn fire_spawn(t: &mut Tables, s: Single<'_, '_>, q: CompId, after: &mut [Local]) -> Fired {
    match s.touched.binary_search(&q) {
        Ok(i) if s.before[i] == IDLE => {
            let prog = s.ev.prog;
            let qi = &prog.instances[q.index()];
            let qev = Eval::new(prog, qi).ok_or_else(|| internal("definition"))?;
            after[i] = t.intern_start(&qev, qi.def)?;
            s.next()
        }
        _ => s.fault(format!("spawn of `{}`, which was already started", s.name(q))),
    }
}

fn fire_join(s: Single<'_, '_>, q: CompId) -> Fired {
    let i = s.pos(q, "joined process not touched")?;
    if s.before[i] != DONE {
        return Ok(None);
    }
    s.next()
}

/// Runs an assignment, branch or assert on the touched shared cells; on a fault the cells
/// keep their before-states.
fn fire_data(mut s: Single<'_, '_>, after: &mut [Local]) -> Fired {
    let mut mem = TouchedMem {
        prog: s.ev.prog,
        touched: s.touched,
        vals: after,
    };
    match s.ev.data(s.op, &mut s.locals, &mut mem) {
        Ok(Flow::Next) => s.next(),
        Ok(Flow::Goto(to)) => Ok(Some(Outcome::Continue(to, s.locals))),
        Err(m) => {
            after.copy_from_slice(s.before);
            s.fault(m)
        }
    }
}

fn fire_choose(s: Single<'_, '_>, branch: u32) -> Fired {
    match &s.op.kind {
        OpKind::Choose(ts) => match ts.get(branch as usize) {
            Some(&to) => Ok(Some(Outcome::Continue(to, s.locals))),
            None => Err(internal("choice branch")),
        },
        _ => Err(internal("choice")),
    }
}
