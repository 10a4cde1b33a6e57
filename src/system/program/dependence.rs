//! What a stubborn-set search needs to know about a program: at a global state, which
//! process instances must be reduced together.
//!
//! # The contract
//! Let Q be a set of instances closed under [`ProgramSystem::stubborn_neighbours`] at a
//! global state s (every instance it lists for a member of Q is in Q), and S the actions
//! in which an instance of Q takes part (as owner or as a rendezvous partner), at any local
//! state. Then for every sequence u1…un of actions outside S fired from s:
//! 1. every instance of Q keeps its local state;
//! 2. every action of S disabled at s stays disabled;
//! 3. every action t of S enabled at s stays enabled, and commutes with each ui (firing it
//!    before or after ui reaches the same state), with one exception: when t and ui both
//!    fault or one of them faults in either order (an unlock of a mutex the process does
//!    not hold), the fault's message may depend on the order.
//!
//! These are Valmari's conditions D1 and D2, but for that exception, so the enabled
//! actions of S form a stubborn set that keeps every dead state, and some fault wherever
//! a fault is reachable: a path to a dead state holds no faulting action, and a path to a
//! fault still ends in one after the exchange (the argument is in `crate::stubborn`).

//! # The rules, and why they keep the contract
//! An action touches only the components of its touch set and its outcome (a fault message
//! included) is a function of their local states. Outside actions belong to instances
//! outside Q, and the static indexes (`touchers.rs`) list every instance whose code may
//! name a component, write a shared cell, or spawn an instance. For an instance i of Q in
//! local state l:
//! - **not started**: only a spawn can change it — its spawners join Q (1).
//! - **ended or faulted**: nothing can change it and it has no action; nothing joins.
//! - **waiting at a statement**, by kind:
//!   - *lock m*: m free — every instance whose code names m joins (another lock would
//!     disable this one); m held by i — the lock faults whatever the others do, and
//!     nobody else can change m; m held by h — only h can free m, so h joins and the lock
//!     stays disabled (2). The cells m guards, which the lock step also touches, are
//!     touched by nobody else either: their other accesses run while holding m, and
//!     every instance with one names m, so it has joined when m is free.
//!   - *an access to a cell guarded by g* (one not folded into a lock): i holds g, so no
//!     outside action touches the cell; the rules below apply unchanged.
//!   - *the exclusive cells a step touches for its local run* (`exclusive.rs`): no rule.
//!     An outside action that touched one of them while this step stays enabled would
//!     access it in a run where nothing orders the two, which the analysis rules out:
//!     every two accesses by different instances hold one mutex, or their instances never
//!     run at the same time. The mutex is held by i already, or taken by this very step,
//!     and then every instance naming it has joined (the lock rule).
//!   - *unlock m*: nothing joins. If i holds m, no other process can take m before i
//!     frees it, and another's unlock faults before and after this one (the exception of
//!     (3)); if i does not hold m, this unlock faults whatever the others do (the
//!     exception again), and stays enabled. Measured: philosophers(N = 14) stores 136 000
//!     states with this rule against 1.4 million when the unlock brings every process
//!     that names m.
//!   - *wait/signal s*: every instance naming s joins (two waits compete; two signals can
//!     reach the count's limit in either order).
//!   - *spawn q*: q not started — q joins, and with it (first rule) every spawner of q:
//!     a second spawn would make this one fault. q started — the spawn faults whatever
//!     happens, as nothing returns q to "not started"; nothing joins.
//!   - *join q*: q ended — enabled, and nothing changes an ended instance; q not ended —
//!     q joins, so it cannot end outside S and the join stays disabled.
//!   - *assignment*: every instance naming a shared cell it touches joins (the cell may be
//!     written; readers and writers alike would not commute with it).
//!   - *branch, assert*: the writers of the cells it reads join (readers commute).
//!   - *choose*: touches only i; nothing joins.
//!   - *send/receive on a channel*: every instance with a receive/send on that channel
//!     joins (a partner that reaches its statement outside S would enable a disabled
//!     rendezvous of i, and an enabled one changes its partner), and for the cells: the
//!     writers of those a send's value reads, every instance naming those a receive writes.
//!
//! Rule (1) and the rules above make every component an enabled action of S writes
//! untouchable from outside, and every component it reads unwritable, but for outside
//! actions that fault in either order, which gives (3); the
//! disabled actions of S are those of i's current statement whose condition is held by a
//! component that only Q can change (2), and those of other statements of i, which need i
//! to move.

use super::code::OpKind;
use super::system::ProgramSystem;
use super::tables::{PendKind, DONE, FREE, IDLE};
use crate::system::{CompId, Local};

impl ProgramSystem<'_> {
    /// Appends to `out` the instances that must be in a stubborn set with instance `inst`
    /// at the global state `state` (see the module documentation for the contract). `out`
    /// is not cleared and may repeat instances.
    pub fn stubborn_neighbours(&self, state: &[Local], inst: u32, out: &mut Vec<u32>) {
        let prog = self.prog;
        let Some(&l) = state.get(inst as usize) else {
            return;
        };
        let Some(pend) = self.pending(inst, l) else {
            if l == IDLE {
                out.extend_from_slice(entry(&prog.spawners, inst as usize));
            }
            return;
        };
        let touchers = |c: CompId| entry(&prog.touchers, c.index());
        let writers = |c: CompId| entry(&prog.writers, c.index());
        let local = |c: CompId| state.get(c.index()).copied().unwrap_or(FREE);
        let me = CompId(inst);
        let cells = pend.touched.iter().copied().filter(|&c| c != me);
        match pend.kind {
            PendKind::Lock(m) => {
                let holder = local(m);
                if holder == FREE {
                    out.extend_from_slice(touchers(m));
                } else if holder != Local(inst + 1) {
                    out.push(holder.0 - 1);
                }
            }
            PendKind::Unlock(_) | PendKind::Choose(_) => {}
            PendKind::Wait(m) | PendKind::Signal(m) => out.extend_from_slice(touchers(m)),
            PendKind::Spawn(q) => {
                if local(q) == IDLE {
                    out.push(q.0);
                }
            }
            PendKind::Join(q) => {
                if local(q) != DONE {
                    out.push(q.0);
                }
            }
            PendKind::Data => {
                let assigns = matches!(
                    self.op_at(pend.inst, pend.pc).map(|op| &op.kind),
                    Some(OpKind::Assign { .. })
                );
                for c in cells {
                    out.extend_from_slice(if assigns { touchers(c) } else { writers(c) });
                }
            }
            PendKind::Send { chan, .. } => {
                out.extend_from_slice(entry(&prog.receivers, chan as usize));
                for c in cells {
                    out.extend_from_slice(writers(c));
                }
            }
            PendKind::Recv { chan, .. } => {
                out.extend_from_slice(entry(&prog.senders, chan as usize));
                for c in cells {
                    out.extend_from_slice(touchers(c));
                }
            }
        }
    }
}

/// Entry `i` of a per-index table of instance lists, empty past its end.
fn entry(table: &[Vec<u32>], i: usize) -> &[u32] {
    table.get(i).map_or(&[], Vec::as_slice)
}
