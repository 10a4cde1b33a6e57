//! Shared cells that a mutex guards, read off the code before the run.
//!
//! A shared variable is *guarded* by a mutex when every statement of every process that
//! reads or writes it runs while that process holds the mutex: a scalar variable by a
//! scalar mutex, an array by an array of mutexes element for element (`a[e]` accessed
//! while holding `m[e]`, the same index expression, none of whose locals changed since the
//! lock). While a process holds the guard, no other process can touch the cell, so its
//! accesses commute with every step of the others (Lipton's both-movers) and the process
//! may run them without a step of their own: the step that takes the mutex touches the
//! cells it guards, and the accesses that follow it are folded into it like local code
//! (`interp::settle`). A dead state never has a process in the middle of such a run (an
//! access never blocks), so the folding keeps every dead state, every fault and the
//! Mazurkiewicz traces of the other steps; it removes the interleavings that only reorder
//! accesses nothing else can see. Dpu gets the same effect by making only the calls into
//! the thread library events (docs/paper.md#programs-with-locks).
//!
//! # The analysis
//! Per process definition, a forward must-analysis over the code: the set of mutexes
//! (declaration and index expression) certainly held at each control point. `lock m[e]`
//! adds `(m, e)`; `unlock m[..]` removes every element of `m` (another index may denote
//! the same cell); a write to a local removes the elements whose index reads it; where
//! paths meet, the sets are intersected. An access site is guarded by the elements of its
//! set that match it; a variable is guarded by a mutex declaration that guards all its
//! access sites. Unreachable code is not looked at. Only a mutex that guards a single
//! variable folds it: the lock step then touches three components at most.

use super::code::{Expr, LValue, OpKind, ProcDef, Slot};
use super::Program;
use crate::system::CompId;

/// A mutex certainly held: its declaration and index expression (`None` for a scalar).
pub(super) type Held = (u32, Option<Expr>);

impl Program {
    /// Fills [`Program::guard_of`] and [`Program::guarded`] from the code.
    pub(super) fn index_guards(&mut self) {
        // Per variable declaration: the mutex declarations that guard every access seen so
        // far (`None`: no access seen yet).
        let mut candidates: Vec<Option<Vec<u32>>> = vec![None; self.vars.len()];
        for def in &self.defs {
            let held = held_sets(def);
            for (pc, op) in def.code.iter().enumerate() {
                let Some(held) = &held[pc] else { continue };
                for (var, index) in accesses(&op.kind) {
                    let scalar = self.vars[var as usize].len.is_none();
                    let here: Vec<u32> = held
                        .iter()
                        .filter(|(m, e)| {
                            let mutex_scalar = self.mutexes[*m as usize].len.is_none();
                            match (index, e) {
                                (None, None) => scalar && mutex_scalar,
                                (Some(i), Some(j)) => !scalar && !mutex_scalar && i == j,
                                _ => false,
                            }
                        })
                        .map(|(m, _)| *m)
                        .collect();
                    let slot = &mut candidates[var as usize];
                    *slot = Some(match slot.take() {
                        None => here,
                        Some(before) => before.into_iter().filter(|m| here.contains(m)).collect(),
                    });
                }
            }
        }
        let chosen: Vec<Option<u32>> = candidates
            .iter()
            .map(|c| c.as_ref().and_then(|c| c.iter().min().copied()))
            .collect();
        self.guard_of = vec![None; self.comps.len()];
        self.guarded = vec![Vec::new(); self.comps.len()];
        for (v, found) in chosen.iter().enumerate() {
            let Some(m) = *found else {
                continue;
            };
            // A mutex folds the accesses of one variable at most: a lock step over four
            // components or more made Disp(5,4) 1.5x slower, its sibling walks going over
            // every component (benches/journal/table1.md, "Guarded accesses, and Table 1 again").
            if chosen.iter().filter(|&&g| g == Some(m)).count() > 1 {
                continue;
            }
            let (var, mutex) = (&self.vars[v], &self.mutexes[m as usize]);
            // Cell k of the variable is guarded by cell k of the mutex; an access to a cell
            // the mutex array does not have faults at its lock, before any access.
            let cells = var.len.unwrap_or(1).min(mutex.len.unwrap_or(1));
            for k in 0..cells {
                let (c, g) = (CompId(var.base.0 + k), CompId(mutex.base.0 + k));
                self.guard_of[c.index()] = Some(g);
                self.guarded[g.index()].push(c);
            }
        }
    }

    /// The guarded cells whose accesses are folded into the lock of their mutex, as
    /// (cell, mutex) names in the order of the cells (`qpor info` lists them).
    pub fn guards(&self) -> Vec<(String, String)> {
        self.guard_of
            .iter()
            .enumerate()
            .filter_map(|(c, g)| {
                Some((
                    self.comps[c].name.clone(),
                    self.comps[g.as_ref()?.index()].name.clone(),
                ))
            })
            .collect()
    }

    /// The mutex that guards shared cell `c`, if one does.
    pub(crate) fn guard(&self, c: CompId) -> Option<CompId> {
        self.guard_of.get(c.index()).copied().flatten()
    }

    /// The cells mutex `m` guards (sorted).
    pub(crate) fn guarded_by(&self, m: CompId) -> &[CompId] {
        self.guarded.get(m.index()).map_or(&[], Vec::as_slice)
    }
}

/// The mutexes certainly held before each operation of `def`; `None` where no path from
/// the start reaches.
pub(super) fn held_sets(def: &ProcDef) -> Vec<Option<Vec<Held>>> {
    let code = &def.code;
    let mut at: Vec<Option<Vec<Held>>> = vec![None; code.len()];
    if code.is_empty() {
        return at;
    }
    at[0] = Some(Vec::new());
    let mut work = vec![0usize];
    while let Some(pc) = work.pop() {
        let Some(before) = at[pc].clone() else { continue };
        let op = &code[pc].kind;
        let after = transfer(def, op, before);
        for next in successors(op, pc) {
            let Some(slot) = at.get_mut(next) else { continue };
            let merged = match slot {
                None => after.clone(),
                Some(old) => old.iter().filter(|h| after.contains(h)).cloned().collect(),
            };
            if slot.as_ref() != Some(&merged) {
                *slot = Some(merged);
                work.push(next);
            }
        }
    }
    at
}

/// The held set after `op`.
fn transfer(def: &ProcDef, op: &OpKind, mut held: Vec<Held>) -> Vec<Held> {
    match op {
        OpKind::Lock(c) => {
            let h = (c.decl, c.index.clone());
            if !held.contains(&h) {
                held.push(h);
            }
        }
        OpKind::Unlock(c) => held.retain(|(m, _)| *m != c.decl),
        _ => {
            let written = written_slots(def, op);
            if !written.is_empty() {
                held.retain(|(_, e)| e.as_ref().is_none_or(|e| !reads_any(def, e, &written)));
            }
        }
    }
    held
}

/// The control points `op` at `pc` may go to.
fn successors(op: &OpKind, pc: usize) -> Vec<usize> {
    match op {
        OpKind::Jump(t) => vec![*t as usize],
        OpKind::Branch { then_pc, else_pc, .. } => vec![*then_pc as usize, *else_pc as usize],
        OpKind::Choose(ts) => ts.iter().map(|&t| t as usize).collect(),
        OpKind::End => Vec::new(),
        _ => vec![pc + 1],
    }
}

/// The local slots `op` may write.
fn written_slots(def: &ProcDef, op: &OpKind) -> Vec<Slot> {
    let target = match op {
        OpKind::Assign { target, .. } => Some(target),
        OpKind::Recv { target, .. } => target.as_ref(),
        OpKind::Reset { first, count } => return (*first..first + count).collect(),
        _ => None,
    };
    match target {
        Some(LValue::Local(s)) => vec![*s],
        Some(LValue::LocalElem { array, .. }) => array_slots(def, *array),
        _ => Vec::new(),
    }
}

/// The slots of local array `array`.
fn array_slots(def: &ProcDef, array: u32) -> Vec<Slot> {
    def.arrays
        .get(array as usize)
        .map(|a| (a.base..a.base + a.len).collect())
        .unwrap_or_default()
}

/// Whether `e` reads one of the local slots `slots`.
fn reads_any(def: &ProcDef, e: &Expr, slots: &[Slot]) -> bool {
    match e {
        Expr::Const(_) | Expr::Index => false,
        Expr::Local(s) => slots.contains(s),
        Expr::LocalElem { array, index } => {
            array_slots(def, *array).iter().any(|s| slots.contains(s)) || reads_any(def, index, slots)
        }
        Expr::Shared(_) => false,
        Expr::SharedElem { index, .. } => reads_any(def, index, slots),
        Expr::Unary(_, a) => reads_any(def, a, slots),
        Expr::Binary(_, a, b) => reads_any(def, a, slots) || reads_any(def, b, slots),
    }
}

/// The shared variables `op` reads or writes, each with its index expression.
pub(super) fn accesses(op: &OpKind) -> Vec<(u32, Option<&Expr>)> {
    let mut out = Vec::new();
    let mut add = |var, index| out.push((var, index));
    match op {
        OpKind::Assign { target, value } => {
            target.for_each_shared(&mut add);
            value.for_each_shared(&mut add);
        }
        OpKind::Branch { cond, .. } | OpKind::Assert(cond) => cond.for_each_shared(&mut add),
        OpKind::Send { value: Some(v), .. } => v.for_each_shared(&mut add),
        OpKind::Recv { target: Some(t), .. } => t.for_each_shared(&mut add),
        _ => {}
    }
    out
}
