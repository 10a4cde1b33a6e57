//! What a statement names: the variable an assignment or receive stores into, and the
//! mutex, semaphore, channel or process a statement acts on, with their indices checked.

use super::super::ast::Target;
use super::super::check::{Global, LocalSym, Ty};
use super::super::Diag;
use super::{Builder, CellKind};
use crate::system::program::{CellRef, Expr, LValue, ValTy};

impl Builder<'_, '_> {
    /// Where an assignment or receive stores, with the stored type and a name for messages.
    pub(super) fn lvalue(&self, t: &Target) -> Result<(LValue, ValTy, String), Diag> {
        let name = t.name.name.clone();
        let at = t.name.span.start;
        if let Some(l) = self
            .scope
            .frames
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev())
            .find(|l| l.name == name)
        {
            return match (&l.sym, &t.index) {
                (LocalSym::Scalar { slot, ty }, None) => Ok((LValue::Local(*slot), *ty, name)),
                (LocalSym::Array { array, len, ty }, Some(i)) => {
                    let index = self.f.index_of(i, &self.scope, &name, *len, false)?;
                    Ok((LValue::LocalElem { array: *array, index }, *ty, name))
                }
                (LocalSym::Loop { .. }, _) => Err(Diag::at(
                    at,
                    format!("cannot assign to `{name}`: the loop variable is set by its `for`"),
                )),
                (LocalSym::Array { .. }, None) => Err(Diag::at(
                    at,
                    format!("`{name}` is an array; write `{name}[index]`"),
                )),
                (LocalSym::Scalar { .. }, Some(_)) => Err(Diag::at(at, format!("`{name}` is not an array"))),
            };
        }
        if matches!(&self.scope.index, Some((n, _)) if *n == name) {
            return Err(Diag::at(
                at,
                format!("cannot assign to `{name}`, the instance index"),
            ));
        }
        match self.f.global(&name, t.name.span)? {
            None => Err(Diag::at(at, format!("unknown name `{name}`"))),
            Some(Global::Var(v)) => {
                let d = &self.f.vars[v as usize];
                match (d.len, &t.index) {
                    (None, None) => Ok((LValue::Shared(v), d.ty, name)),
                    (Some(len), Some(i)) => {
                        let index = self.f.index_of(i, &self.scope, &name, len, true)?;
                        Ok((LValue::SharedElem { var: v, index }, d.ty, name))
                    }
                    (Some(_), None) => Err(Diag::at(
                        at,
                        format!("`{name}` is an array; write `{name}[index]`"),
                    )),
                    (None, Some(_)) => Err(Diag::at(at, format!("`{name}` is not an array"))),
                }
            }
            Some(g @ Global::Const { .. }) => {
                Err(Diag::at(at, format!("cannot assign to `{name}`, {}", g.what())))
            }
            Some(g) => Err(Diag::at(at, format!("`{name}` is {}, not a variable", g.what()))),
        }
    }

    /// A mutex, semaphore, channel or process named by a statement.
    pub(super) fn cell(&self, t: &Target, want: CellKind) -> Result<CellRef, Diag> {
        let name = &t.name.name;
        let at = t.name.span.start;
        let verb = match want {
            CellKind::Mutex => "lock and unlock take",
            CellKind::Sem => "wait and signal take",
            CellKind::Chan => "`!` and `?` need",
            CellKind::Process => "spawn and join take",
        };
        let is_local = self.scope.frames.iter().flatten().any(|l| l.name == *name)
            || matches!(&self.scope.index, Some((n, _)) if n == name);
        if is_local {
            return Err(Diag::at(
                at,
                format!("{verb} {}; `{name}` is a local variable", want.what()),
            ));
        }
        let g = self
            .f
            .global(name, t.name.span)?
            .ok_or_else(|| Diag::at(at, format!("unknown name `{name}`")))?;
        let (decl, len) = match (want, g) {
            (CellKind::Mutex, Global::Mutex(i)) => (i, self.f.mutexes[i as usize].len),
            (CellKind::Sem, Global::Sem(i)) => (i, self.f.sems[i as usize].len),
            (CellKind::Chan, Global::Chan(i)) => (i, self.f.chans[i as usize].len),
            (CellKind::Process, Global::Process(i)) => {
                let p = &self.f.procs[i as usize];
                (i, p.index.as_ref().map(|_| p.count))
            }
            _ => {
                return Err(Diag::at(
                    at,
                    format!("{verb} {}; `{name}` is {}", want.what(), g.what()),
                ))
            }
        };
        let index = match (len, &t.index) {
            (None, None) => None,
            (None, Some(i)) => {
                let what = if want == CellKind::Process {
                    format!("process `{name}` has no instance index")
                } else {
                    format!("`{name}` is not an array")
                };
                return Err(Diag::at(i.span.start, what));
            }
            (Some(_), None) => {
                let what = if want == CellKind::Process {
                    format!("process `{name}` has several instances; write `{name}[index]`")
                } else {
                    format!("`{name}` is an array; write `{name}[index]`")
                };
                return Err(Diag::at(t.name.span.start, what));
            }
            (Some(len), Some(i)) => {
                if want == CellKind::Process {
                    let (x, ty) = self.expr(i)?;
                    if ty != Ty::Int {
                        return Err(Diag::at(
                            i.span.start,
                            format!("the index of `{name}` must be an int"),
                        ));
                    }
                    if x.reads_shared() {
                        return Err(Diag::at(
                            i.span.start,
                            format!("the index of `{name}` reads a shared variable; copy it into a local variable first"),
                        ));
                    }
                    if let Expr::Const(k) = x {
                        self.f.instance_offset(decl, k, i.span)?;
                    }
                    Some(x)
                } else {
                    Some(self.f.index_of(i, &self.scope, name, len, true)?)
                }
            }
        };
        Ok(CellRef { decl, index })
    }

    /// For spawn/join: the target's instance offset when it is a constant.
    pub(super) fn const_offset(&self, c: &CellRef, t: &Target) -> Result<Option<u32>, Diag> {
        match &c.index {
            None => Ok(Some(0)),
            Some(Expr::Const(k)) => Ok(Some(self.f.instance_offset(c.decl, *k, t.span)?)),
            Some(_) => Ok(None),
        }
    }
}
