//! Running a process's local code on partly known locals, for the analyses that look ahead
//! of the run: which instances the first process may have running at each of its control
//! points (`exclusive.rs`), and which shared cells the local run after a step may fold
//! (`pending.rs`). A local is unknown once it holds a value read from shared memory or
//! received; a condition on an unknown value follows both branches.

use super::code::{Expr, LValue, OpKind};
use super::interp::{Eval, NoMemory};
use crate::system::CompId;

/// Locals of which some are unknown (`None`).
pub(super) type PartialLocals = Box<[Option<i64>]>;

/// Where a local data operation leaves control on partly known locals.
pub(super) enum PartialFlow {
    /// To these control points (both branches of an unknown condition).
    To(Vec<u32>),
    /// Nowhere: the operation certainly faults, and the process stops.
    Stop,
}

/// Known locals, with the unknown ones set to 0 (only read after [`known`] said yes).
fn concrete(locals: &[Option<i64>]) -> Vec<i64> {
    locals.iter().map(|v| v.unwrap_or(0)).collect()
}

/// Whether `e` reads only known locals (and no shared variable).
fn known(ev: &Eval<'_>, e: &Expr, locals: &[Option<i64>]) -> bool {
    match e {
        Expr::Const(_) | Expr::Index => true,
        Expr::Local(s) => locals.get(*s as usize).is_some_and(Option::is_some),
        Expr::LocalElem { array, index } => {
            let slots = ev.def.arrays.get(*array as usize).map(|a| a.base..a.base + a.len);
            slots.is_some_and(|mut s| s.all(|s| locals.get(s as usize).is_some_and(Option::is_some)))
                && known(ev, index, locals)
        }
        Expr::Shared(_) | Expr::SharedElem { .. } => false,
        Expr::Unary(_, a) => known(ev, a, locals),
        Expr::Binary(_, a, b) => known(ev, a, locals) && known(ev, b, locals),
    }
}

/// The value of `e` when it reads only known locals; `Err` when it certainly faults.
pub(super) fn value(ev: &Eval<'_>, e: &Expr, locals: &[Option<i64>]) -> Result<Option<i64>, ()> {
    if !known(ev, e, locals) {
        return Ok(None);
    }
    ev.expr(e, &concrete(locals), &NoMemory).map(Some).map_err(|_| ())
}

/// Makes the local that `lv` names hold `v` (unknown when `None`); shared targets leave
/// the locals as they are.
pub(super) fn store(ev: &Eval<'_>, lv: &LValue, v: Option<i64>, locals: &mut [Option<i64>]) {
    match lv {
        LValue::Local(s) => {
            if let Some(slot) = locals.get_mut(*s as usize) {
                *slot = v;
            }
        }
        LValue::LocalElem { array, index } => {
            let Some(a) = ev.def.arrays.get(*array as usize) else {
                return;
            };
            match value(ev, index, locals) {
                Ok(Some(i)) if i >= 0 && i < a.len as i64 => {
                    if let Some(slot) = locals.get_mut((a.base + i as u32) as usize) {
                        *slot = v;
                    }
                }
                _ => {
                    for s in a.base..a.base + a.len {
                        if let Some(slot) = locals.get_mut(s as usize) {
                            *slot = None;
                        }
                    }
                }
            }
        }
        LValue::Shared(_) | LValue::SharedElem { .. } => {}
    }
}

/// Runs the data operation (assign, branch, assert, reset, jump) at `pc` on partly known
/// locals: shared values read are unknown.
pub(super) fn data(ev: &Eval<'_>, op: &OpKind, pc: u32, locals: &mut [Option<i64>]) -> PartialFlow {
    match op {
        OpKind::Assign { target, value: e } => match value(ev, e, locals) {
            Ok(v) => {
                store(ev, target, v, locals);
                PartialFlow::To(vec![pc + 1])
            }
            Err(()) => PartialFlow::Stop,
        },
        OpKind::Branch {
            cond,
            then_pc,
            else_pc,
        } => match value(ev, cond, locals) {
            Ok(Some(c)) => PartialFlow::To(vec![if c != 0 { *then_pc } else { *else_pc }]),
            Ok(None) => PartialFlow::To(vec![*then_pc, *else_pc]),
            Err(()) => PartialFlow::Stop,
        },
        OpKind::Assert(cond) => match value(ev, cond, locals) {
            Ok(Some(0)) | Err(()) => PartialFlow::Stop,
            _ => PartialFlow::To(vec![pc + 1]),
        },
        OpKind::Reset { first, count } => {
            for s in *first..first + count {
                if let Some(slot) = locals.get_mut(s as usize) {
                    *slot = Some(0);
                }
            }
            PartialFlow::To(vec![pc + 1])
        }
        OpKind::Jump(t) => PartialFlow::To(vec![*t]),
        _ => PartialFlow::Stop,
    }
}

/// The shared cells that a data operation may touch on partly known locals: the named
/// cell where the index is known, every cell of the array where it is not. `None` when an
/// index certainly faults.
pub(super) fn cells(ev: &Eval<'_>, op: &OpKind, locals: &[Option<i64>]) -> Option<Vec<CompId>> {
    let mut out = Vec::new();
    let mut ok = true;
    let mut add = |var: u32, index: Option<&Expr>| {
        let Some(d) = ev.prog.vars.get(var as usize) else {
            ok = false;
            return;
        };
        match (d.len, index.map(|e| value(ev, e, locals))) {
            (None, _) => out.push(d.base),
            (Some(len), Some(Ok(Some(i)))) if i >= 0 && i < len as i64 => {
                out.push(CompId(d.base.0 + i as u32))
            }
            (Some(len), Some(Ok(None)) | None) => out.extend((0..len).map(|k| CompId(d.base.0 + k))),
            (Some(_), _) => ok = false,
        }
    };
    match op {
        OpKind::Assign { target, value } => {
            target.for_each_shared(&mut add);
            value.for_each_shared(&mut add);
        }
        OpKind::Branch { cond, .. } | OpKind::Assert(cond) => cond.for_each_shared(&mut add),
        _ => {}
    }
    ok.then_some(out)
}
