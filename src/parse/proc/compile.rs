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

use super::ast::{self, AssignOp, Block, Span, Stmt, StmtKind, Target};
use super::check::{Front, Global, LocalName, LocalSym, Ty};
use super::Diag;
use crate::system::program::{
    BinOp, CellRef, Expr, Instance, LValue, LocalArray, Op, OpKind, ProcDef, Slot, SlotInfo, ValTy,
};
use fixedbitset::FixedBitSet;

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

    pub(super) fn cross_checks(
        &mut self,
        defs: &[ProcDef],
        instances: &[Instance],
        facts: &[Facts],
    ) -> Result<(), Diag> {
        let n = defs.len();
        let mut dynamic = vec![false; n];
        let mut fixed: Vec<Vec<u32>> = vec![Vec::new(); n];
        for fact in facts {
            for (t, k, _) in &fact.spawns {
                match k {
                    None => dynamic[*t as usize] = true,
                    Some(k) => fixed[*t as usize].push(*k),
                }
            }
        }
        let starts = |t: u32, k: u32| instances[defs[t as usize].first.index() + k as usize].starts;
        for fact in facts {
            for (t, k, span) in &fact.spawns {
                if let Some(k) = k {
                    if starts(*t, *k) {
                        return Err(Diag::at(
                            span.start,
                            format!(
                                "spawn of `{}`, which `init` already starts",
                                instances[defs[*t as usize].first.index() + *k as usize].name
                            ),
                        ));
                    }
                }
            }
            for (t, k, span) in &fact.joins {
                let tu = *t as usize;
                let ok = match k {
                    Some(k) => starts(*t, *k) || dynamic[tu] || fixed[tu].contains(k),
                    None => {
                        (0..defs[tu].count).any(|k| starts(*t, k)) || dynamic[tu] || !fixed[tu].is_empty()
                    }
                };
                if !ok {
                    let name = match k {
                        Some(k) => instances[defs[tu].first.index() + *k as usize].name.clone(),
                        None => defs[tu].name.clone(),
                    };
                    return Err(Diag::at(
                        span.start,
                        format!("join of `{name}`, which is never started: `init` does not start it and no `spawn` names it"),
                    ));
                }
            }
        }
        for (d, def) in defs.iter().enumerate() {
            let started = (0..def.count).any(|k| starts(d as u32, k)) || dynamic[d] || !fixed[d].is_empty();
            if !started {
                self.warnings.push(Diag::at(
                    self.procs[d].span.start,
                    format!(
                        "process `{}` is never started: not in `init` and never spawned",
                        def.name
                    ),
                ));
            }
        }
        Ok(())
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

    fn stmt(&mut self, s: &Stmt) -> Result<(), Diag> {
        let text = self.f.snippet(s.span);
        match &s.kind {
            StmtKind::Var(d) => self.local_var(d)?,
            StmtKind::Lock(t) => {
                let c = self.cell(t, CellKind::Mutex)?;
                self.emit(OpKind::Lock(c), s.span, text, false);
            }
            StmtKind::Unlock(t) => {
                let c = self.cell(t, CellKind::Mutex)?;
                self.emit(OpKind::Unlock(c), s.span, text, false);
            }
            StmtKind::Wait(t) => {
                let c = self.cell(t, CellKind::Sem)?;
                self.emit(OpKind::Wait(c), s.span, text, false);
            }
            StmtKind::Signal(t) => {
                let c = self.cell(t, CellKind::Sem)?;
                self.emit(OpKind::Signal(c), s.span, text, false);
            }
            StmtKind::Spawn(t) => {
                let c = self.cell(t, CellKind::Process)?;
                let k = self.const_offset(&c, t)?;
                self.facts.spawns.push((c.decl, k, t.span));
                self.emit(OpKind::Spawn(c), s.span, text, false);
            }
            StmtKind::Join(t) => {
                let c = self.cell(t, CellKind::Process)?;
                let k = self.const_offset(&c, t)?;
                self.facts.joins.push((c.decl, k, t.span));
                self.emit(OpKind::Join(c), s.span, text, false);
            }
            StmtKind::Send(t, v) => {
                let c = self.cell(t, CellKind::Chan)?;
                let d = &self.f.chans[c.decl as usize];
                let value = match (d.ty, v) {
                    (None, None) => None,
                    (None, Some(e)) => {
                        return Err(Diag::at(
                            e.span.start,
                            format!("channel `{}` carries no value; write `{}!;`", d.name, t.name.name),
                        ))
                    }
                    (Some(ty), None) => {
                        return Err(Diag::at(
                            t.span.end,
                            format!(
                                "channel `{}` carries {} values; write `{}!value;`",
                                d.name,
                                ty.describe(),
                                t.name.name
                            ),
                        ))
                    }
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
                };
                self.emit(OpKind::Send { chan: c, value }, s.span, text, false);
            }
            StmtKind::Recv(t, v) => {
                let c = self.cell(t, CellKind::Chan)?;
                let d = &self.f.chans[c.decl as usize];
                let target = match (d.ty, v) {
                    (None, None) => None,
                    (None, Some(x)) => {
                        return Err(Diag::at(
                            x.span.start,
                            format!("channel `{}` carries no value; write `{}?;`", d.name, t.name.name),
                        ))
                    }
                    (Some(ty), None) => {
                        return Err(Diag::at(
                            t.span.end,
                            format!(
                                "channel `{}` carries {} values; write `{}?variable;`",
                                d.name,
                                ty.describe(),
                                t.name.name
                            ),
                        ))
                    }
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
                };
                self.emit(OpKind::Recv { chan: c, target }, s.span, text, false);
            }
            StmtKind::Assign(t, op, e) => {
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
                        let sym = if *op == AssignOp::Add { "+=" } else { "-=" };
                        if Ty::of(&ty) != Ty::Int || xt != Ty::Int {
                            return Err(Diag::at(e.span.start, format!("`{sym}` needs int operands")));
                        }
                        let bin = if *op == AssignOp::Add {
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
                self.emit(OpKind::Assign { target: lv, value }, s.span, text, shared);
            }
            StmtKind::If(arms, otherwise) => {
                let mut ends = Vec::new();
                for (c, body) in arms {
                    let cond = self.cond(c, "if")?;
                    let shared = cond.reads_shared();
                    let at = self.here();
                    let t = format!("if {}", self.f.snippet(c.span));
                    let br = self.emit(
                        OpKind::Branch {
                            cond,
                            then_pc: at + 1,
                            else_pc: LATER,
                        },
                        c.span,
                        t,
                        shared,
                    );
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
            }
            StmtKind::While(c, body) => {
                let cond = self.cond(c, "while")?;
                let shared = cond.reads_shared();
                let head = self.here();
                let t = format!("while {}", self.f.snippet(c.span));
                let br = self.emit(
                    OpKind::Branch {
                        cond,
                        then_pc: head + 1,
                        else_pc: LATER,
                    },
                    c.span,
                    t,
                    shared,
                );
                self.loops.push(LoopCtx {
                    depth: self.decls.len(),
                    breaks: Vec::new(),
                    continues: Vec::new(),
                    head: Some(head),
                });
                self.block(body)?;
                self.emit(OpKind::Jump(head), body.span, String::new(), false);
                let exit = self.here();
                self.patch(br, exit);
                self.finish_loop(exit, head);
            }
            StmtKind::Loop(body) => {
                let head = self.here();
                self.loops.push(LoopCtx {
                    depth: self.decls.len(),
                    breaks: Vec::new(),
                    continues: Vec::new(),
                    head: Some(head),
                });
                self.block(body)?;
                self.emit(OpKind::Jump(head), body.span, String::new(), false);
                let exit = self.here();
                self.finish_loop(exit, head);
            }
            StmtKind::For(v, r, body) => {
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
                let shared = hi.reads_shared();
                let br = self.emit(
                    OpKind::Branch {
                        cond: Expr::Binary(cmp, Box::new(Expr::Local(slot)), Box::new(hi)),
                        then_pc: head + 1,
                        else_pc: LATER,
                    },
                    r.span,
                    format!("for {} in {}", v.name, self.f.snippet(r.span)),
                    shared,
                );
                self.loops.push(LoopCtx {
                    depth: self.decls.len(),
                    breaks: Vec::new(),
                    continues: Vec::new(),
                    head: None,
                });
                self.block(body)?;
                let inc = self.here();
                self.emit(
                    OpKind::Assign {
                        target: LValue::Local(slot),
                        value: Expr::Binary(
                            BinOp::Add,
                            Box::new(Expr::Local(slot)),
                            Box::new(Expr::Const(1)),
                        ),
                    },
                    r.span,
                    String::new(),
                    false,
                );
                self.emit(OpKind::Jump(head), r.span, String::new(), false);
                let exit = self.here();
                self.patch(br, exit);
                self.finish_loop(exit, inc);
                self.close_frame(s.span);
            }
            StmtKind::Choose(blocks) => {
                let ch = self.emit(OpKind::Choose(Vec::new()), s.span, "choose".into(), false);
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
            }
            StmtKind::Assert(c) => {
                let cond = self.cond(c, "assert")?;
                let shared = cond.reads_shared();
                self.emit(OpKind::Assert(cond), s.span, text, shared);
            }
            StmtKind::Skip => {}
            StmtKind::Break | StmtKind::Continue => {
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
            }
        }
        Ok(())
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

    fn new_slot(&mut self, name: String, ty: Option<ValTy>, array: Option<u32>) -> Slot {
        self.slots.push(SlotInfo { name, ty, array });
        self.slots.len() as Slot - 1
    }

    fn local_var(&mut self, d: &ast::VarDecl) -> Result<(), Diag> {
        let ty = self.f.value_type(&d.ty, d.ty_span)?;
        let text = self.f.snippet(d.span);
        for n in &d.names {
            let len = self.f.array_size(n)?;
            // The initialiser is read before the name is in scope.
            let init: Vec<(Expr, Span)> = match &d.init {
                None => Vec::new(),
                Some(ast::InitValue::One(e)) => {
                    let x = self.init_expr(e, &ty, &n.name.name)?;
                    vec![(x, e.span); len.unwrap_or(1) as usize]
                }
                Some(ast::InitValue::List(es, span)) => {
                    let Some(len) = len else {
                        return Err(Diag::at(
                            span.start,
                            format!("`{}` is not an array; give one initial value", n.name.name),
                        ));
                    };
                    if es.len() != len as usize {
                        return Err(Diag::at(
                            span.start,
                            format!(
                                "{} initial values for the {len} cells of `{}`",
                                es.len(),
                                n.name.name
                            ),
                        ));
                    }
                    es.iter()
                        .map(|e| Ok((self.init_expr(e, &ty, &n.name.name)?, e.span)))
                        .collect::<Result<_, Diag>>()?
                }
            };
            let default = Front::default_value(&ty);
            match len {
                None => {
                    let slot = self.new_slot(n.name.name.clone(), Some(ty), None);
                    self.declare_local(&n.name, LocalSym::Scalar { slot, ty })?;
                    self.record_decl(slot, 1);
                    let value = match init.into_iter().next() {
                        Some((x, _)) => Some(x),
                        None if default != 0 => Some(Expr::Const(default)),
                        None => None,
                    };
                    if let Some(value) = value {
                        let shared = value.reads_shared();
                        self.emit(
                            OpKind::Assign {
                                target: LValue::Local(slot),
                                value,
                            },
                            d.span,
                            text.clone(),
                            shared,
                        );
                    }
                }
                Some(len) => {
                    let array = self.arrays.len() as u32;
                    let base = self.slots.len() as Slot;
                    for k in 0..len {
                        self.new_slot(format!("{}[{k}]", n.name.name), Some(ty), Some(array));
                    }
                    self.arrays.push(LocalArray {
                        name: n.name.name.clone(),
                        base,
                        len,
                        ty,
                    });
                    self.declare_local(&n.name, LocalSym::Array { array, len, ty })?;
                    self.record_decl(base, len);
                    let values: Vec<Expr> = if init.is_empty() {
                        vec![Expr::Const(default); len as usize]
                    } else {
                        init.into_iter().map(|(x, _)| x).collect()
                    };
                    for (k, value) in values.into_iter().enumerate() {
                        if value == Expr::Const(0) {
                            continue;
                        }
                        let shared = value.reads_shared();
                        self.emit(
                            OpKind::Assign {
                                target: LValue::LocalElem {
                                    array,
                                    index: Expr::Const(k as i64),
                                },
                                value,
                            },
                            d.span,
                            text.clone(),
                            shared,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn init_expr(&self, e: &ast::Expr, ty: &ValTy, name: &str) -> Result<Expr, Diag> {
        let (x, t) = self.expr(e)?;
        if t != Ty::of(ty) {
            return Err(Diag::at(
                e.span.start,
                format!(
                    "`{name}` holds {} values, but its initial value is {}",
                    Ty::of(ty).name(),
                    t.a()
                ),
            ));
        }
        if let Expr::Const(v) = x {
            if !ty.contains(v) {
                return Err(Diag::at(
                    e.span.start,
                    format!(
                        "the initial value {v} of `{name}` is outside its range {}",
                        ty.describe()
                    ),
                ));
            }
        }
        Ok(x)
    }

    /// Where an assignment or receive stores, with the stored type and a name for messages.
    fn lvalue(&self, t: &Target) -> Result<(LValue, ValTy, String), Diag> {
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
    fn cell(&self, t: &Target, want: CellKind) -> Result<CellRef, Diag> {
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
    fn const_offset(&self, c: &CellRef, t: &Target) -> Result<Option<u32>, Diag> {
        match &c.index {
            None => Ok(Some(0)),
            Some(Expr::Const(k)) => Ok(Some(self.f.instance_offset(c.decl, *k, t.span)?)),
            Some(_) => Ok(None),
        }
    }

    fn check_unlocks(&self) -> Result<(), Diag> {
        let nm = self.f.mutexes.len();
        if nm == 0 || !self.code.iter().any(|o| matches!(o.kind, OpKind::Unlock(_))) {
            return Ok(());
        }
        let n = self.code.len();
        let mut held: Vec<Option<FixedBitSet>> = vec![None; n];
        held[0] = Some(FixedBitSet::with_capacity(nm));
        let mut work = vec![0usize];
        let mut queued = vec![false; n];
        queued[0] = true;
        while let Some(pc) = work.pop() {
            queued[pc] = false;
            let Some(mut out) = held[pc].clone() else { continue };
            let op = &self.code[pc];
            let mut succ: Vec<u32> = Vec::new();
            match &op.kind {
                OpKind::Lock(c) => {
                    out.insert(c.decl as usize);
                    succ.push(pc as u32 + 1);
                }
                OpKind::Unlock(c) => {
                    if self.f.mutexes[c.decl as usize].len.is_none() {
                        out.set(c.decl as usize, false);
                    }
                    succ.push(pc as u32 + 1);
                }
                OpKind::Branch { then_pc, else_pc, .. } => succ.extend([*then_pc, *else_pc]),
                OpKind::Jump(t) => succ.push(*t),
                OpKind::Choose(ts) => succ.extend(ts.iter().copied()),
                OpKind::End => {}
                _ => succ.push(pc as u32 + 1),
            }
            for s in succ {
                let s = s as usize;
                if s >= n {
                    continue;
                }
                let changed = match &mut held[s] {
                    None => {
                        held[s] = Some(out.clone());
                        true
                    }
                    Some(h) => {
                        let before = h.count_ones(..);
                        h.union_with(&out);
                        h.count_ones(..) != before
                    }
                };
                if changed && !queued[s] {
                    queued[s] = true;
                    work.push(s);
                }
            }
        }
        for (pc, op) in self.code.iter().enumerate() {
            if let (OpKind::Unlock(c), Some(h)) = (&op.kind, &held[pc]) {
                if !h.contains(c.decl as usize) {
                    let name = &self.f.mutexes[c.decl as usize].name;
                    return Err(Diag::at(
                        self.spans[pc].start,
                        format!("unlock of `{name}`, which this process cannot hold here: no path to this statement locks `{name}`"),
                    ));
                }
            }
        }
        Ok(())
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
