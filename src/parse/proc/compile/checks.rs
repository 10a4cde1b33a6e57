//! The checks that need the compiled code: the unlock check of one process (a forward
//! may-analysis of the mutexes it may hold), and the cross-process checks of `join` and
//! `spawn` against the instances that are ever started.

use super::super::check::Front;
use super::super::Diag;
use super::{Builder, Facts};
use crate::system::program::{Instance, OpKind, ProcDef};
use fixedbitset::FixedBitSet;

impl Front<'_> {
    /// Joins of instances never started and spawns of instances `init` starts are errors;
    /// a process never started is a warning.
    pub(in crate::parse::proc) fn cross_checks(
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
    /// An `unlock m` reachable where no path can hold `m` is an error (see the module doc).
    pub(super) fn check_unlocks(&self) -> Result<(), Diag> {
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
