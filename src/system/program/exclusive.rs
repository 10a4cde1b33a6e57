//! Shared variables whose accesses never race, read off the code before the run.
//!
//! A variable is *exclusive* when every two accesses to it by different instances are
//! ordered by synchronisation in every run: both run while holding one mutex, or the two
//! instances are never running at once, because the first process starts one only after
//! it has joined the other (or accesses the variable itself only while the other is not
//! started or already joined). Poke's flags are an example: the writers set them under
//! their mutex, and main reads them after joining every writer.
//!
//! The accesses to an exclusive variable are folded into the step before them, like local
//! code (`interp::settle`): the step touches the cells its local run may reach
//! (`pending.rs`). This keeps every dead state, fault and event history. Nothing else
//! can touch such a cell between the step and the access, so the access commutes with
//! every step of the others, and a dead state never has a process inside the run. Touching
//! the cell adds no causality either: any step that touches it is already before or after
//! the step in every run, by the same synchronisation. Guarded variables (`guards.rs`)
//! are the special case of one mutex, folded into that mutex's lock whatever follows.
//!
//! # The analysis
//! - **Locks.** Two access sites are ordered when both hold the same mutex: a scalar one,
//!   or for an array variable the cell of a mutex array with the access's own index
//!   expression, or a cell given by a static index of the same value. The sets of mutexes
//!   held come from the must-analysis of `guards.rs`.
//! - **Lifetimes.** When one instance starts the program (a single `init`), its code is run
//!   ahead on partly known locals (`partial.rs`; values read from shared memory are
//!   unknown, unknown conditions follow both branches), tracking which of the instances
//!   only it spawns are running: spawned and not yet joined. At most
//!   [`MAX_LIFETIME_STATES`] states are visited, or nothing is concluded. Two instances are
//!   ordered when no state has both running; the first instance's access at a control
//!   point is ordered with another's when no state at that point has the other running.
//!   An instance that `init` starts, or that another instance may spawn, is running
//!   throughout.

use super::code::{Expr, OpKind};
use super::guards::{accesses, held_sets, Held};
use super::interp::Eval;
use super::partial::{self, PartialFlow, PartialLocals};
use super::Program;
use crate::system::CompId;
use fixedbitset::FixedBitSet;
use hashbrown::HashSet;

/// The most states of the first process that the lifetime analysis visits.
pub(super) const MAX_LIFETIME_STATES: usize = 200_000;

/// Which instances may run at once, as the first process's code says.
struct Lifetimes {
    /// The instance that starts the program.
    first: u32,
    /// Per instance: started only by `first` (the others run throughout).
    tracked: Vec<bool>,
    /// Per control point of `first`: the tracked instances that may be running there.
    running_at: Vec<FixedBitSet>,
    /// Per tracked instance: the tracked instances that may run at the same time.
    together: Vec<FixedBitSet>,
}

/// Status of a tracked instance in the run-ahead of the first process.
const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const JOINED: u8 = 2;

impl Lifetimes {
    fn of(prog: &Program) -> Option<Lifetimes> {
        let n = prog.instances.len();
        let mut starters = prog.instances.iter().enumerate().filter(|(_, i)| i.starts);
        let (first, _) = starters.next()?;
        if starters.next().is_some() {
            return None;
        }
        let first = first as u32;
        let tracked: Vec<bool> = (0..n)
            .map(|q| !prog.instances[q].starts && prog.spawners.get(q).is_some_and(|s| s == &[first]))
            .collect();
        let ev = Eval::new(prog, &prog.instances[first as usize])?;
        let code = &ev.def.code;
        let mut running_at = vec![FixedBitSet::with_capacity(n); code.len()];
        let mut seen: HashSet<(u32, PartialLocals, Box<[u8]>)> = HashSet::new();
        let mut running_sets: HashSet<Box<[u8]>> = HashSet::new();
        let start = (
            0u32,
            vec![Some(0); ev.def.slots.len()].into_boxed_slice(),
            vec![IDLE; n].into_boxed_slice(),
        );
        let mut work = vec![start.clone()];
        seen.insert(start);
        while let Some((pc, mut locals, status)) = work.pop() {
            let op = &code.get(pc as usize)?.kind;
            let at = &mut running_at[pc as usize];
            for (q, &s) in status.iter().enumerate() {
                if s == RUNNING {
                    at.insert(q);
                }
            }
            running_sets.insert(status.iter().map(|&s| (s == RUNNING) as u8).collect());
            let mut next: Vec<(u32, PartialLocals, Box<[u8]>)> = Vec::new();
            match op {
                OpKind::End => {}
                OpKind::Spawn(c) | OpKind::Join(c) => {
                    let spawn = matches!(op, OpKind::Spawn(_));
                    let d = prog.defs.get(c.decl as usize)?;
                    let named: Vec<u32> = match (d.index_lo, c.index.as_ref()) {
                        (None, _) => vec![d.first.0],
                        (Some(lo), Some(e)) => match partial::value(&ev, e, &locals) {
                            Ok(Some(k)) if k >= lo && k - lo < d.count as i64 => {
                                vec![d.first.0 + (k - lo) as u32]
                            }
                            Ok(Some(_)) | Err(()) => Vec::new(),
                            // A spawn of an unknown instance may start any of them.
                            Ok(None) if spawn => (0..d.count).map(|k| d.first.0 + k).collect(),
                            // A join of an unknown one ends none for sure.
                            Ok(None) => {
                                next.push((pc + 1, locals.clone(), status.clone()));
                                Vec::new()
                            }
                        },
                        (Some(_), None) => Vec::new(),
                    };
                    for q in named {
                        let mut st = status.clone();
                        if let Some(s) = st.get_mut(q as usize).filter(|_| tracked[q as usize]) {
                            match (spawn, *s) {
                                (true, IDLE) => *s = RUNNING,
                                // A second start faults; a join of an instance never
                                // started waits forever.
                                (true, _) | (false, IDLE) => continue,
                                (false, _) => *s = JOINED,
                            }
                        }
                        next.push((pc + 1, locals.clone(), st));
                    }
                }
                OpKind::Choose(ts) => next.extend(ts.iter().map(|&t| (t, locals.clone(), status.clone()))),
                OpKind::Recv { target, .. } => {
                    if let Some(t) = target {
                        partial::store(&ev, t, None, &mut locals);
                    }
                    next.push((pc + 1, locals, status.clone()));
                }
                OpKind::Lock(_)
                | OpKind::Unlock(_)
                | OpKind::Wait(_)
                | OpKind::Signal(_)
                | OpKind::Send { .. } => next.push((pc + 1, locals, status.clone())),
                _ => {
                    if let PartialFlow::To(ts) = partial::data(&ev, op, pc, &mut locals) {
                        next.extend(ts.into_iter().map(|t| (t, locals.clone(), status.clone())));
                    }
                }
            }
            for s in next {
                if !seen.contains(&s) {
                    if seen.len() >= MAX_LIFETIME_STATES {
                        return None;
                    }
                    seen.insert(s.clone());
                    work.push(s);
                }
            }
        }
        let mut together = vec![FixedBitSet::with_capacity(n); n];
        for set in &running_sets {
            let on: Vec<usize> = (0..n).filter(|&q| set[q] == 1).collect();
            for &a in &on {
                for &b in &on {
                    if a != b {
                        together[a].insert(b);
                    }
                }
            }
        }
        Some(Lifetimes {
            first,
            tracked,
            running_at,
            together,
        })
    }

    /// Whether instance `a` at control point `pc_a` and instance `b` at `pc_b` can never
    /// run at once.
    fn apart(&self, (a, pc_a): (u32, usize), (b, pc_b): (u32, usize)) -> bool {
        let tracked = |q: u32| self.tracked[q as usize];
        if a == self.first && tracked(b) {
            !self.running_at[pc_a].contains(b as usize)
        } else if b == self.first && tracked(a) {
            !self.running_at[pc_b].contains(a as usize)
        } else {
            tracked(a) && tracked(b) && !self.together[a as usize].contains(b as usize)
        }
    }
}

/// One access to a shared variable: the instance, its control point, the index
/// expression of the cell, and the mutexes certainly held there.
struct Site<'p> {
    inst: u32,
    pc: usize,
    index: Option<&'p Expr>,
    held: &'p [Held],
}

impl Program {
    /// Fills [`Program::exclusive`] from the code; guarded variables are left out.
    pub(super) fn index_exclusive(&mut self) {
        let lifetimes = Lifetimes::of(self);
        let held: Vec<_> = self.defs.iter().map(held_sets).collect();
        let mut sites: Vec<Vec<Site<'_>>> = (0..self.vars.len()).map(|_| Vec::new()).collect();
        for (i, inst) in self.instances.iter().enumerate() {
            let def = &self.defs[inst.def as usize];
            for (pc, op) in def.code.iter().enumerate() {
                let Some(held) = &held[inst.def as usize][pc] else {
                    continue;
                };
                for (var, index) in accesses(&op.kind) {
                    if let Some(list) = sites.get_mut(var as usize) {
                        list.push(Site {
                            inst: i as u32,
                            pc,
                            index,
                            held,
                        });
                    }
                }
            }
        }
        let mut exclusive = vec![false; self.comps.len()];
        for (v, list) in sites.iter().enumerate() {
            let d = &self.vars[v];
            if list.is_empty() || self.guard(d.base).is_some() {
                continue;
            }
            let ordered = list.iter().enumerate().all(|(k, s)| {
                list[k..].iter().all(|t| {
                    s.inst == t.inst
                        || self.lock_ordered(d.len.is_some(), s, t)
                        || lifetimes
                            .as_ref()
                            .is_some_and(|l| l.apart((s.inst, s.pc), (t.inst, t.pc)))
                })
            });
            if ordered {
                for k in 0..d.len.unwrap_or(1) {
                    exclusive[(d.base.0 + k) as usize] = true;
                }
            }
        }
        self.exclusive = exclusive;
    }

    /// Whether sites `s` and `t` (of different instances) both hold one mutex whenever
    /// they access the same cell.
    fn lock_ordered(&self, array: bool, s: &Site<'_>, t: &Site<'_>) -> bool {
        let static_value = |inst: u32, e: &Expr| {
            let ev = Eval::new(self, &self.instances[inst as usize])?;
            e.is_static()
                .then(|| ev.expr(e, &[], &super::interp::NoMemory).ok())
                .flatten()
        };
        s.held.iter().any(|(m, es)| {
            t.held.iter().any(|(n, et)| {
                if m != n {
                    return false;
                }
                match (es, et) {
                    (None, None) => true,
                    (Some(es), Some(et)) => {
                        let same_cell = array && Some(es) == s.index && Some(et) == t.index;
                        let same_mutex = matches!(
                            (static_value(s.inst, es), static_value(t.inst, et)),
                            (Some(x), Some(y)) if x == y
                        );
                        same_cell || same_mutex
                    }
                    _ => false,
                }
            })
        })
    }

    /// Whether shared cell `c` is exclusive: its accesses never race (see `exclusive.rs`).
    pub(crate) fn exclusive(&self, c: CompId) -> bool {
        self.exclusive.get(c.index()).copied().unwrap_or(false)
    }

    /// Whether the accesses to shared cell `c` may be folded into the step before them:
    /// guarded or exclusive.
    pub(crate) fn folds(&self, c: CompId) -> bool {
        self.guard(c).is_some() || self.exclusive(c)
    }

    /// The exclusive variables whose accesses are folded into the step before them
    /// (`qpor info` lists them).
    pub fn exclusives(&self) -> Vec<String> {
        self.vars
            .iter()
            .filter(|d| self.exclusive(d.base))
            .map(|d| d.name.clone())
            .collect()
    }
}
