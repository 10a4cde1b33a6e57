//! Lowering of process bodies to flat code ([`crate::system::program::Op`]) and the
//! checks that need the code: which mutexes a process may hold where (for `unlock`), and
//! which instances are ever started (for `join` and `spawn`).
//!
//! Control flow becomes branches and jumps with explicit targets; scopes end with
//! [`OpKind::Reset`] of their locals (also on `break` and `continue`), so that a local
//! that is out of scope is always 0 and states differing only in dead locals coincide.
//!
//! The unlock check is a forward may-analysis over the code: the set of mutex declarations
//! the process may hold at each point (lock adds; unlock of a scalar mutex removes; unlock of
//! an array cell removes nothing, since another cell may still be held). An `unlock m` that
//! is reachable in the code but where no path can hold `m` is an error. It does not see
//! which cell of an array is held, nor whether a mutex is held by this process or another at
//! run time; those cases are run-time faults.
//!
//! Files: `stmt.rs` (statements), `locals.rs` (local declarations), `targets.rs` (what a
//! statement names: variables, mutexes, semaphores, channels, processes), `checks.rs` (the
//! unlock check and the cross-process checks).

mod checks;
mod locals;
mod stmt;
mod targets;

use super::ast::{self, Block, Span};
use super::check::{Front, LocalName, LocalSym, Ty};
use super::Diag;
use crate::system::program::{Expr, LValue, LocalArray, Op, OpKind, Slot, SlotInfo, ValTy};

/// What the cross-process checks need to know about one process body.
#[derive(Clone, Debug, Default)]
pub(super) struct Facts {
    /// (process definition, constant instance offset or `None` if computed, where).
    pub spawns: Vec<(u32, Option<u32>, Span)>,
    pub joins: Vec<(u32, Option<u32>, Span)>,
}

/// A jump target not known yet.
const LATER: u32 = u32::MAX;

struct LoopCtx {
    /// Frames open when the loop began; frames beyond are closed by `break`/`continue`.
    depth: usize,
    breaks: Vec<usize>,
    continues: Vec<usize>,
    /// Where `continue` goes, when known at the start (while, loop).
    head: Option<u32>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CellKind {
    Mutex,
    Sem,
    Chan,
    Process,
}

impl CellKind {
    fn what(self) -> &'static str {
        match self {
            CellKind::Mutex => "a mutex",
            CellKind::Sem => "a semaphore",
            CellKind::Chan => "a channel",
            CellKind::Process => "a process",
        }
    }
}

struct Builder<'f, 'a> {
    f: &'f Front<'a>,
    code: Vec<Op>,
    spans: Vec<Span>,
    slots: Vec<SlotInfo>,
    arrays: Vec<LocalArray>,
    scope: super::check::Scope,
    /// Per open frame, the slot ranges declared in it.
    decls: Vec<Vec<(Slot, u32)>>,
    loops: Vec<LoopCtx>,
    facts: Facts,
}

type Compiled = (Vec<Op>, Vec<SlotInfo>, Vec<LocalArray>, Facts);

impl Front<'_> {
    pub(super) fn compile_process(&self, p: &ast::ProcessDef) -> Result<Compiled, Diag> {
        let mut b = Builder {
            f: self,
            code: Vec::new(),
            spans: Vec::new(),
            slots: Vec::new(),
            arrays: Vec::new(),
            scope: Default::default(),
            decls: Vec::new(),
            loops: Vec::new(),
            facts: Facts::default(),
        };
        if let Some((v, _)) = &p.index {
            b.scope.index = Some((v.name.clone(), v.span));
        }
        b.block(&p.body)?;
        b.emit(
            OpKind::End,
            Span {
                start: p.body.span.end.saturating_sub(1),
                end: p.body.span.end,
            },
            "end".into(),
            false,
        );
        b.check_unlocks()?;
        Ok((b.code, b.slots, b.arrays, b.facts))
    }
}

impl Builder<'_, '_> {
    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn emit(&mut self, kind: OpKind, span: Span, text: String, shared: bool) -> usize {
        self.code.push(Op {
            kind,
            pos: self.f.lines.pos(span.start),
            text,
            shared,
        });
        self.spans.push(span);
        self.code.len() - 1
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at].kind {
            OpKind::Jump(t) => *t = target,
            OpKind::Branch { else_pc, .. } => *else_pc = target,
            _ => {}
        }
    }

    fn block(&mut self, b: &Block) -> Result<(), Diag> {
        self.scope.frames.push(Vec::new());
        self.decls.push(Vec::new());
        for s in &b.stmts {
            self.stmt(s)?;
        }
        self.close_frame(b.span);
        Ok(())
    }

    fn close_frame(&mut self, span: Span) {
        let end = Span {
            start: span.end.saturating_sub(1),
            end: span.end,
        };
        if let Some(decls) = self.decls.pop() {
            // The scope ends where the resets begin.
            let here = self.here();
            for &(first, count) in &decls {
                for slot in &mut self.slots[first as usize..(first + count) as usize] {
                    slot.in_scope.end = here;
                }
            }
            for (first, count) in decls.into_iter().rev() {
                self.emit(OpKind::Reset { first, count }, end, String::new(), false);
            }
        }
        self.scope.frames.pop();
    }

    /// Resets the locals of frames `depth..` without closing them (for break/continue).
    fn reset_from(&mut self, depth: usize, span: Span) {
        let ranges: Vec<(Slot, u32)> = self.decls[depth..]
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev().copied())
            .collect();
        for (first, count) in ranges {
            self.emit(OpKind::Reset { first, count }, span, String::new(), false);
        }
    }

    fn declare_local(&mut self, name: &ast::Ident, sym: LocalSym) -> Result<(), Diag> {
        let clash = self
            .scope
            .frames
            .iter()
            .flatten()
            .find(|l| l.name == name.name)
            .map(|l| l.span);
        let clash = clash.or(match &self.scope.index {
            Some((n, s)) if *n == name.name => Some(*s),
            _ => None,
        });
        if let Some(prev) = clash {
            let p = self.f.lines.pos(prev.start);
            return Err(Diag::at(
                name.span.start,
                format!("`{}` is already declared at {}:{}", name.name, p.line, p.col),
            ));
        }
        if self.f.declared.contains_key(&name.name) {
            return Err(self.f.already(&name.name, name.span));
        }
        if let Some(frame) = self.scope.frames.last_mut() {
            frame.push(LocalName {
                name: name.name.clone(),
                span: name.span,
                sym,
            });
        }
        Ok(())
    }

    fn record_decl(&mut self, first: Slot, count: u32) {
        if let Some(d) = self.decls.last_mut() {
            d.push((first, count));
        }
    }

    fn expr(&self, e: &ast::Expr) -> Result<(Expr, Ty), Diag> {
        self.f.expr(e, Some(&self.scope))
    }

    fn cond(&self, e: &ast::Expr, what: &str) -> Result<Expr, Diag> {
        let (c, t) = self.expr(e)?;
        if t != Ty::Bool {
            return Err(Diag::at(
                e.span.start,
                format!("the condition of `{what}` must be a bool, found an int"),
            ));
        }
        Ok(c)
    }

    fn finish_loop(&mut self, exit: u32, cont: u32) {
        if let Some(l) = self.loops.pop() {
            for j in l.breaks {
                self.patch(j, exit);
            }
            for j in l.continues {
                self.patch(j, cont);
            }
        }
    }

    /// A fresh slot, in scope from here until its frame closes.
    fn new_slot(&mut self, name: String, ty: Option<ValTy>, array: Option<u32>) -> Slot {
        let here = self.here();
        self.slots.push(SlotInfo {
            name,
            ty,
            array,
            in_scope: here..u32::MAX,
        });
        self.slots.len() as Slot - 1
    }
}

fn read_of(lv: &LValue) -> Expr {
    match lv {
        LValue::Local(s) => Expr::Local(*s),
        LValue::LocalElem { array, index } => Expr::LocalElem {
            array: *array,
            index: Box::new(index.clone()),
        },
        LValue::Shared(v) => Expr::Shared(*v),
        LValue::SharedElem { var, index } => Expr::SharedElem {
            var: *var,
            index: Box::new(index.clone()),
        },
    }
}

fn lv_shared(lv: &LValue) -> bool {
    match lv {
        LValue::Local(_) => false,
        LValue::LocalElem { index, .. } => index.reads_shared(),
        LValue::Shared(_) | LValue::SharedElem { .. } => true,
    }
}
