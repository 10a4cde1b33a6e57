//! Which steps are enabled: those of a process at a global state (a rendezvous needs its
//! partner at a matching receive or send), those anchored at a local state, and whether a
//! component's local state may let a step fire.

use super::system::ProgramSystem;
use super::tables::{ActKind, PendKind, Tables, DONE, FREE, NO_PENDING};
use crate::system::{CompId, Local, Step};
use smallvec::SmallVec;

/// Which side of a rendezvous a pending statement is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Send,
    Recv,
}

impl Side {
    /// The side, channel cell and channel declaration of a send or receive; `None` for
    /// other statements.
    fn of(kind: &PendKind) -> Option<(Side, u32, u32)> {
        match *kind {
            PendKind::Send { cell, chan } => Some((Side::Send, cell, chan)),
            PendKind::Recv { cell, chan } => Some((Side::Recv, cell, chan)),
            _ => None,
        }
    }

    /// The side a rendezvous partner is on.
    fn other(self) -> Side {
        match self {
            Side::Send => Side::Recv,
            Side::Recv => Side::Send,
        }
    }
}

impl ProgramSystem<'_> {
    /// Whether a statement that needs no partner may fire, given the local states of the
    /// components it touches.
    fn single_enabled(kind: &PendKind, inst: u32, get: impl Fn(CompId) -> Local) -> bool {
        match kind {
            PendKind::Lock(m) => {
                let h = get(*m);
                h == FREE || h == Local(inst + 1)
            }
            PendKind::Wait(s) => get(*s).0 > 0,
            PendKind::Join(q) => get(*q) == DONE,
            PendKind::Send { .. } | PendKind::Recv { .. } => false,
            _ => true,
        }
    }

    /// The rendezvous of pending statement `p` (on `side`) with pending statement `q` of the
    /// other side.
    fn meet_sides(&self, t: &mut Tables, side: Side, p: u32, q: u32) -> Step {
        let a = match side {
            Side::Send => self.meet(t, p, q),
            Side::Recv => self.meet(t, q, p),
        };
        t.step(a)
    }

    /// Appends the steps of instance `inst` at `state`. Rendezvous are listed from the
    /// sender's side only, unless `both_sides`.
    pub(super) fn steps_of(
        &self,
        t: &mut Tables,
        state: &[Local],
        inst: u32,
        both_sides: bool,
        out: &mut Vec<Step>,
    ) {
        let Some(&l) = state.get(inst as usize) else {
            return;
        };
        let p = self.pending_id(t, inst, l);
        if p == NO_PENDING {
            return;
        }
        let kind = t.pends[p as usize].kind.clone();
        match Side::of(&kind) {
            Some((side, cell, chan)) => {
                let partners = match side {
                    Side::Send => &self.prog.receivers[chan as usize],
                    Side::Recv if both_sides => &self.prog.senders[chan as usize],
                    Side::Recv => return,
                };
                for &q in partners {
                    if q == inst {
                        continue;
                    }
                    let qp = self.pending_id(t, q, state[q as usize]);
                    let partner = qp != NO_PENDING
                        && matches!(Side::of(&t.pends[qp as usize].kind),
                            Some((s, c, _)) if s == side.other() && c == cell);
                    if partner {
                        out.push(self.meet_sides(t, side, p, qp));
                    }
                }
            }
            None => {
                if Self::single_enabled(&kind, inst, |c| {
                    state.get(c.index()).copied().unwrap_or(Local(u32::MAX))
                }) {
                    let pend = &t.pends[p as usize];
                    for &a in &pend.actions {
                        out.push(Step {
                            action: a,
                            touched: pend.touched.clone(),
                        });
                    }
                }
            }
        }
    }

    /// The steps anchored at instance `inst` in local state `l` (see
    /// [`crate::system::System::anchored_steps`]).
    pub(super) fn anchored_steps_of(&self, t: &mut Tables, inst: u32, l: Local, out: &mut Vec<Step>) {
        let p = self.pending_id(t, inst, l);
        if p == NO_PENDING {
            return;
        }
        match Side::of(&t.pends[p as usize].kind) {
            // A rendezvous is anchored at the sender, but the tables grow lazily: a receive
            // interned after its sender was asked for its anchored steps would be missed
            // by an engine that asked once (the prefix builder asks once per condition).
            // So the receiver also lists its meetings with the senders interned so far;
            // whichever of the two is asked last finds the pair.
            Some((side, cell, _)) => {
                let by_cell = match side {
                    Side::Send => &t.recv_by_cell,
                    Side::Recv => &t.send_by_cell,
                };
                let partners = by_cell.get(&cell).cloned().unwrap_or_default();
                for q in partners {
                    if t.pends[q as usize].inst == inst {
                        continue;
                    }
                    out.push(self.meet_sides(t, side, p, q));
                }
            }
            None => {
                let pend = &t.pends[p as usize];
                for &a in &pend.actions {
                    out.push(Step {
                        action: a,
                        touched: pend.touched.clone(),
                    });
                }
            }
        }
    }

    /// Whether component `step.touched[index]` in local state `l` may let `step` fire (see
    /// [`crate::system::System::may_enable`]).
    pub(super) fn may_enable_at(&self, t: &mut Tables, step: &Step, index: usize, l: Local) -> bool {
        let Some(info) = t.actions.get(step.action.index()) else {
            return true;
        };
        let c = step.touched[index];
        let pends: SmallVec<[u32; 2]> = match info.kind {
            ActKind::Single { pend, .. } => smallvec::smallvec![pend],
            ActKind::Meet { send, recv } => smallvec::smallvec![send, recv],
        };
        for pid in pends {
            let (inst, kind) = {
                let pend = &t.pends[pid as usize];
                (pend.inst, pend.kind.clone())
            };
            if c == CompId(inst) {
                return self.pending_id(t, inst, l) == pid;
            }
            match kind {
                PendKind::Lock(m) if m == c => return l == FREE || l == Local(inst + 1),
                PendKind::Wait(s) if s == c => return l.0 > 0,
                PendKind::Join(q) if q == c => return l == DONE,
                _ => {}
            }
        }
        true
    }
}
