//! Which instances may touch which component, read off the code before the run: the
//! index behind [`crate::system::System::enabled_steps_touching`], the instances that may
//! write each shared cell or start each instance (for the stubborn sets of
//! `dependence.rs`), and the senders and receivers of every channel.

use super::code::{Expr, LValue, OpKind};
use super::interp::{self, Eval};
use super::Program;
use crate::system::CompId;

impl Program {
    /// Fills [`Program::touchers`], [`Program::writers`], [`Program::spawners`],
    /// [`Program::senders`] and [`Program::receivers`].
    pub(super) fn index_touchers(&mut self) {
        let mut touch: Vec<Vec<u32>> = vec![Vec::new(); self.comps.len()];
        let mut write: Vec<Vec<u32>> = vec![Vec::new(); self.comps.len()];
        let mut spawn: Vec<Vec<u32>> = vec![Vec::new(); self.instances.len()];
        let mut senders = vec![Vec::new(); self.chans.len()];
        let mut receivers = vec![Vec::new(); self.chans.len()];
        for (i, inst) in self.instances.iter().enumerate() {
            let i = i as u32;
            touch[i as usize].push(i);
            let Some(ev) = Eval::new(self, inst) else { continue };
            let mut comps: Vec<CompId> = Vec::new();
            let mut written: Vec<CompId> = Vec::new();
            let mut spawned: Vec<CompId> = Vec::new();
            for op in &ev.def.code {
                match &op.kind {
                    OpKind::Assign { target, value } => {
                        static_target(&ev, target, &mut written);
                        static_lvalue(&ev, target, &mut comps);
                        static_expr(&ev, value, &mut comps);
                    }
                    OpKind::Branch { cond, .. } | OpKind::Assert(cond) => static_expr(&ev, cond, &mut comps),
                    OpKind::Lock(c) | OpKind::Unlock(c) => {
                        let d = &self.mutexes[c.decl as usize];
                        static_cells(&ev, d.base, d.len, c.index.as_ref(), &mut comps)
                    }
                    OpKind::Wait(c) | OpKind::Signal(c) => {
                        let d = &self.sems[c.decl as usize];
                        static_cells(&ev, d.base, d.len, c.index.as_ref(), &mut comps)
                    }
                    OpKind::Spawn(c) | OpKind::Join(c) => {
                        let d = &self.defs[c.decl as usize];
                        let known = c.index.as_ref().is_none_or(|e| e.is_static());
                        let before = comps.len();
                        if d.index_lo.is_none() {
                            comps.push(d.first);
                        } else if known {
                            if let Ok(q) = ev.process(c, &[]) {
                                comps.push(q);
                            }
                        } else {
                            comps.extend((0..d.count).map(|k| CompId(d.first.0 + k)));
                        }
                        if matches!(op.kind, OpKind::Spawn(_)) {
                            spawned.extend_from_slice(&comps[before..]);
                        }
                    }
                    OpKind::Send { chan, value } => {
                        senders[chan.decl as usize].push(i);
                        if let Some(v) = value {
                            static_expr(&ev, v, &mut comps);
                        }
                    }
                    OpKind::Recv { chan, target } => {
                        receivers[chan.decl as usize].push(i);
                        if let Some(t) = target {
                            static_target(&ev, t, &mut written);
                            static_lvalue(&ev, t, &mut comps);
                        }
                    }
                    _ => {}
                }
            }
            for (comps, index) in [(comps, &mut touch), (written, &mut write), (spawned, &mut spawn)] {
                for c in comps {
                    if let Some(list) = index.get_mut(c.index()) {
                        list.push(i);
                    }
                }
            }
        }
        // The step that takes a mutex touches the cells it guards (`guards.rs`).
        for c in 0..touch.len() {
            if let Some(g) = self.guard(CompId(c as u32)) {
                let lockers = touch[g.index()].clone();
                touch[c].extend(lockers);
            }
        }
        for list in touch
            .iter_mut()
            .chain(write.iter_mut())
            .chain(spawn.iter_mut())
            .chain(senders.iter_mut())
            .chain(receivers.iter_mut())
        {
            list.sort_unstable();
            list.dedup();
        }
        self.touchers = touch;
        self.writers = write;
        self.spawners = spawn;
        self.senders = senders;
        self.receivers = receivers;
    }
}

/// Components a reference to an array (or scalar) at `base` may touch: the cell when the
/// index is known per instance, else every cell.
fn static_cells(ev: &Eval<'_>, base: CompId, len: Option<u32>, index: Option<&Expr>, out: &mut Vec<CompId>) {
    match (len, index) {
        (None, _) => out.push(base),
        (Some(len), Some(e)) if e.is_static() => {
            if let Ok(k) = ev.expr(e, &[], &interp::NoMemory) {
                if k >= 0 && k < len as i64 {
                    out.push(CompId(base.0 + k as u32));
                }
            }
        }
        (Some(len), _) => out.extend((0..len).map(|k| CompId(base.0 + k))),
    }
}

fn static_var(ev: &Eval<'_>, var: u32, index: Option<&Expr>, out: &mut Vec<CompId>) {
    let d = &ev.prog.vars[var as usize];
    static_cells(ev, d.base, d.len, index, out);
}

/// The shared cells an assignment or receive into `lv` may write (not those its index
/// reads).
fn static_target(ev: &Eval<'_>, lv: &LValue, out: &mut Vec<CompId>) {
    match lv {
        LValue::Local(_) | LValue::LocalElem { .. } => {}
        LValue::Shared(v) => static_var(ev, *v, None, out),
        LValue::SharedElem { var, index } => static_var(ev, *var, Some(index), out),
    }
}

fn static_expr(ev: &Eval<'_>, e: &Expr, out: &mut Vec<CompId>) {
    e.for_each_shared(&mut |var, index| static_var(ev, var, index, out));
}

fn static_lvalue(ev: &Eval<'_>, lv: &LValue, out: &mut Vec<CompId>) {
    lv.for_each_shared(&mut |var, index| static_var(ev, var, index, out));
}
