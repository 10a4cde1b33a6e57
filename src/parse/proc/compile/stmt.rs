//! Lowering of statements: one function per kind of statement, dispatched by
//! [`Builder::stmt`].

use super::super::ast::{self, AssignOp, Block, Span, Stmt, StmtKind, Target};
use super::super::check::{LocalSym, Ty};
use super::super::Diag;
use super::{lv_shared, read_of, Builder, CellKind, LoopCtx, LATER};
use crate::system::program::{BinOp, ChanDecl, Expr, LValue, OpKind};

impl Builder<'_, '_> {
    pub(super) fn stmt(&mut self, s: &Stmt) -> Result<(), Diag> {
        let text = self.f.snippet(s.span);
        match &s.kind {
            StmtKind::Var(d) => self.local_var(d)?,
            StmtKind::Lock(t) => self.resource_stmt(t, s.span, text, CellKind::Mutex, OpKind::Lock)?,
            StmtKind::Unlock(t) => self.resource_stmt(t, s.span, text, CellKind::Mutex, OpKind::Unlock)?,
            StmtKind::Wait(t) => self.resource_stmt(t, s.span, text, CellKind::Sem, OpKind::Wait)?,
            StmtKind::Signal(t) => self.resource_stmt(t, s.span, text, CellKind::Sem, OpKind::Signal)?,
            StmtKind::Spawn(t) => self.spawn_or_join(t, s.span, text, true)?,
            StmtKind::Join(t) => self.spawn_or_join(t, s.span, text, false)?,
            StmtKind::Send(t, v) => self.send(t, v.as_ref(), s.span, text)?,
            StmtKind::Recv(t, v) => self.recv(t, v.as_ref(), s.span, text)?,
            StmtKind::Assign(t, op, e) => self.assign(t, *op, e, s.span, text)?,
            StmtKind::If(arms, otherwise) => self.if_stmt(arms, otherwise.as_ref())?,
            StmtKind::While(c, body) => self.while_stmt(c, body)?,
            StmtKind::Loop(body) => self.loop_stmt(body)?,
            StmtKind::For(v, r, body) => self.for_stmt(v, r, body, s.span)?,
            StmtKind::Choose(blocks) => self.choose(blocks, s.span)?,
            StmtKind::Assert(c) => {
                let cond = self.cond(c, "assert")?;
                let shared = cond.reads_shared();
                self.emit(OpKind::Assert(cond), s.span, text, shared);
            }
            StmtKind::Skip => {}
            StmtKind::Break | StmtKind::Continue => self.break_or_continue(s)?,
        }
        Ok(())
    }

    /// `lock`, `unlock`, `wait` or `signal`.
    fn resource_stmt(
        &mut self,
        t: &Target,
        span: Span,
        text: String,
        want: CellKind,
        op: fn(crate::system::program::CellRef) -> OpKind,
    ) -> Result<(), Diag> {
        let c = self.cell(t, want)?;
        self.emit(op(c), span, text, false);
        Ok(())
    }

    fn spawn_or_join(&mut self, t: &Target, span: Span, text: String, spawn: bool) -> Result<(), Diag> {
        let c = self.cell(t, CellKind::Process)?;
        let k = self.const_offset(&c, t)?;
        if spawn {
            self.facts.spawns.push((c.decl, k, t.span));
            self.emit(OpKind::Spawn(c), span, text, false);
        } else {
            self.facts.joins.push((c.decl, k, t.span));
            self.emit(OpKind::Join(c), span, text, false);
        }
        Ok(())
    }

    fn send(&mut self, t: &Target, v: Option<&ast::Expr>, span: Span, text: String) -> Result<(), Diag> {
        let c = self.cell(t, CellKind::Chan)?;
        let d = &self.f.chans[c.decl as usize];
        check_payload(d, t, '!', "value", v.map(|e| e.span.start))?;
        let value = match (d.ty, v) {
            (Some(ty), Some(e)) => {
                let (x, xt) = self.expr(e)?;
                if xt != Ty::of(&ty) {
                    return Err(Diag::at(
                        e.span.start,
                        format!(
                            "channel `{}` carries {} values, not {}",
                            d.name,
                            Ty::of(&ty).name(),
                            xt.name()
                        ),
                    ));
                }
                if let Expr::Const(k) = x {
                    if !ty.contains(k) {
                        return Err(Diag::at(
                            e.span.start,
                            format!(
                                "the value {k} is outside the range {} of channel `{}`",
                                ty.describe(),
                                d.name
                            ),
                        ));
                    }
                }
                Some(x)
            }
            _ => None,
        };
        self.emit(OpKind::Send { chan: c, value }, span, text, false);
        Ok(())
    }

    fn recv(&mut self, t: &Target, v: Option<&Target>, span: Span, text: String) -> Result<(), Diag> {
        let c = self.cell(t, CellKind::Chan)?;
        let d = &self.f.chans[c.decl as usize];
        check_payload(d, t, '?', "variable", v.map(|x| x.span.start))?;
        let target = match (d.ty, v) {
            (Some(ty), Some(x)) => {
                let (lv, lty, name) = self.lvalue(x)?;
                if Ty::of(&lty) != Ty::of(&ty) {
                    return Err(Diag::at(
                        x.span.start,
                        format!(
                            "`{name}` holds {} values, but channel `{}` carries {}",
                            Ty::of(&lty).name(),
                            d.name,
                            Ty::of(&ty).name()
                        ),
                    ));
                }
                Some(lv)
            }
            _ => None,
        };
        self.emit(OpKind::Recv { chan: c, target }, span, text, false);
        Ok(())
    }

    fn assign(
        &mut self,
        t: &Target,
        op: AssignOp,
        e: &ast::Expr,
        span: Span,
        text: String,
    ) -> Result<(), Diag> {
        let (lv, ty, name) = self.lvalue(t)?;
        let (x, xt) = self.expr(e)?;
        let value = match op {
            AssignOp::Set => {
                if xt != Ty::of(&ty) {
                    return Err(Diag::at(
                        e.span.start,
                        format!("`{name}` holds {} values; this is {}", Ty::of(&ty).name(), xt.a()),
                    ));
                }
                x
            }
            AssignOp::Add | AssignOp::Sub => {
                let sym = if op == AssignOp::Add { "+=" } else { "-=" };
                if Ty::of(&ty) != Ty::Int || xt != Ty::Int {
                    return Err(Diag::at(e.span.start, format!("`{sym}` needs int operands")));
                }
                let bin = if op == AssignOp::Add {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                Expr::Binary(bin, Box::new(read_of(&lv)), Box::new(x))
            }
        };
        if let Expr::Const(v) = value {
            if !ty.contains(v) {
                return Err(Diag::at(
                    e.span.start,
                    format!("the value {v} is outside the range {} of `{name}`", ty.describe()),
                ));
            }
        }
        let shared = lv_shared(&lv) || value.reads_shared();
        self.emit(OpKind::Assign { target: lv, value }, span, text, shared);
        Ok(())
    }

    /// A branch on `cond` to the next operation, its else target patched later.
    fn branch(&mut self, cond: Expr, span: Span, text: String) -> usize {
        let shared = cond.reads_shared();
        let at = self.here();
        self.emit(
            OpKind::Branch {
                cond,
                then_pc: at + 1,
                else_pc: LATER,
            },
            span,
            text,
            shared,
        )
    }

    fn if_stmt(&mut self, arms: &[(ast::Expr, Block)], otherwise: Option<&Block>) -> Result<(), Diag> {
        let mut ends = Vec::new();
        for (c, body) in arms {
            let cond = self.cond(c, "if")?;
            let t = format!("if {}", self.f.snippet(c.span));
            let br = self.branch(cond, c.span, t);
            self.block(body)?;
            ends.push(self.emit(OpKind::Jump(LATER), body.span, String::new(), false));
            let h = self.here();
            self.patch(br, h);
        }
        if let Some(b) = otherwise {
            self.block(b)?;
        }
        let h = self.here();
        for j in ends {
            self.patch(j, h);
        }
        Ok(())
    }

    /// Opens a loop whose `continue` goes to `head` when it is known now.
    fn open_loop(&mut self, head: Option<u32>) {
        self.loops.push(LoopCtx {
            depth: self.decls.len(),
            breaks: Vec::new(),
            continues: Vec::new(),
            head,
        });
    }

    fn while_stmt(&mut self, c: &ast::Expr, body: &Block) -> Result<(), Diag> {
        let cond = self.cond(c, "while")?;
        let head = self.here();
        let t = format!("while {}", self.f.snippet(c.span));
        let br = self.branch(cond, c.span, t);
        self.open_loop(Some(head));
        self.block(body)?;
        self.emit(OpKind::Jump(head), body.span, String::new(), false);
        let exit = self.here();
        self.patch(br, exit);
        self.finish_loop(exit, head);
        Ok(())
    }

    fn loop_stmt(&mut self, body: &Block) -> Result<(), Diag> {
        let head = self.here();
        self.open_loop(Some(head));
        self.block(body)?;
        self.emit(OpKind::Jump(head), body.span, String::new(), false);
        let exit = self.here();
        self.finish_loop(exit, head);
        Ok(())
    }

    /// `for v in r { body }`: the loop variable lives in a frame of its own around the body.
    fn for_stmt(&mut self, v: &ast::Ident, r: &ast::Range, body: &Block, span: Span) -> Result<(), Diag> {
        let (lo, lt) = self.expr(&r.lo)?;
        let (hi, ht) = self.expr(&r.hi)?;
        for (t, e) in [(lt, &r.lo), (ht, &r.hi)] {
            if t != Ty::Int {
                return Err(Diag::at(e.span.start, "the bounds of a `for` range must be ints"));
            }
        }
        self.scope.frames.push(Vec::new());
        self.decls.push(Vec::new());
        let slot = self.new_slot(v.name.clone(), None, None);
        self.declare_local(v, LocalSym::Loop { slot })?;
        self.record_decl(slot, 1);
        let shared = lo.reads_shared();
        self.emit(
            OpKind::Assign {
                target: LValue::Local(slot),
                value: lo,
            },
            r.span,
            format!("for {} in {}", v.name, self.f.snippet(r.span)),
            shared,
        );
        let head = self.here();
        let cmp = if r.inclusive { BinOp::Le } else { BinOp::Lt };
        let cond = Expr::Binary(cmp, Box::new(Expr::Local(slot)), Box::new(hi));
        let br = self.branch(
            cond,
            r.span,
            format!("for {} in {}", v.name, self.f.snippet(r.span)),
        );
        self.open_loop(None);
        self.block(body)?;
        let inc = self.here();
        self.emit(
            OpKind::Assign {
                target: LValue::Local(slot),
                value: Expr::Binary(BinOp::Add, Box::new(Expr::Local(slot)), Box::new(Expr::Const(1))),
            },
            r.span,
            String::new(),
            false,
        );
        self.emit(OpKind::Jump(head), r.span, String::new(), false);
        let exit = self.here();
        self.patch(br, exit);
        self.finish_loop(exit, inc);
        self.close_frame(span);
        Ok(())
    }

    fn choose(&mut self, blocks: &[Block], span: Span) -> Result<(), Diag> {
        let ch = self.emit(OpKind::Choose(Vec::new()), span, "choose".into(), false);
        let mut targets = Vec::new();
        let mut ends = Vec::new();
        for b in blocks {
            targets.push(self.here());
            self.block(b)?;
            ends.push(self.emit(OpKind::Jump(LATER), b.span, String::new(), false));
        }
        let h = self.here();
        for j in ends {
            self.patch(j, h);
        }
        self.code[ch].kind = OpKind::Choose(targets);
        Ok(())
    }

    /// `break` or `continue`: resets the locals of the frames it leaves, then jumps.
    fn break_or_continue(&mut self, s: &Stmt) -> Result<(), Diag> {
        let brk = matches!(s.kind, StmtKind::Break);
        let word = if brk { "break" } else { "continue" };
        let Some(depth) = self.loops.last().map(|l| l.depth) else {
            return Err(Diag::at(s.span.start, format!("`{word}` outside a loop")));
        };
        self.reset_from(depth, s.span);
        let head = self.loops.last().and_then(|l| l.head);
        let j = self.emit(OpKind::Jump(LATER), s.span, String::new(), false);
        if let Some(l) = self.loops.last_mut() {
            if brk {
                l.breaks.push(j);
            } else if let Some(h) = head {
                self.code[j].kind = OpKind::Jump(h);
            } else {
                l.continues.push(j);
            }
        }
        Ok(())
    }
}

/// Checks that a send (`op` `!`) or receive (`?`) on channel `d` has a value (at
/// `value_at`) exactly when the channel carries values; `what` names the value in the hint.
fn check_payload(
    d: &ChanDecl,
    t: &Target,
    op: char,
    what: &str,
    value_at: Option<usize>,
) -> Result<(), Diag> {
    match (d.ty, value_at) {
        (None, Some(at)) => Err(Diag::at(
            at,
            format!(
                "channel `{}` carries no value; write `{}{op};`",
                d.name, t.name.name
            ),
        )),
        (Some(ty), None) => Err(Diag::at(
            t.span.end,
            format!(
                "channel `{}` carries {} values; write `{}{op}{what};`",
                d.name,
                ty.describe(),
                t.name.name
            ),
        )),
        _ => Ok(()),
    }
}
