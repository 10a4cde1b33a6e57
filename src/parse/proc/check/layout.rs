//! Passes 3 to 5: the component layout (process instances first, then mutexes, semaphores
//! and variable cells in declaration order), the instances `init` starts, and the
//! compilation of process bodies followed by the cross-process checks.

use super::super::ast::{self, InitEntry, InitSel, Item, Span};
use super::super::Diag;
use super::{Front, Global};
use crate::system::program::{Comp, CompKind, Instance, ProcDef};
use crate::system::CompId;
use std::collections::HashMap;

/// The components of a program.
pub(super) struct Layout {
    pub comps: Vec<Comp>,
    pub instances: Vec<Instance>,
    /// Per process definition, the component of its first instance.
    pub firsts: Vec<CompId>,
}

impl Front<'_> {
    /// Pass 3: lays out the components and sets the base of every resource.
    pub(super) fn layout(&mut self) -> Layout {
        let mut comps = Vec::new();
        let mut instances = Vec::new();
        let mut firsts = Vec::new();
        for (d, p) in self.procs.iter().enumerate() {
            firsts.push(CompId(comps.len() as u32));
            for k in 0..p.count {
                let (index, name) = match &p.index {
                    None => (0, p.name.clone()),
                    Some((_, lo)) => (lo + k as i64, format!("{}[{}]", p.name, lo + k as i64)),
                };
                comps.push(Comp {
                    kind: CompKind::Process(instances.len() as u32),
                    name: name.clone(),
                });
                instances.push(Instance {
                    def: d as u32,
                    index,
                    name,
                    starts: false,
                });
            }
        }
        for kind in self.resource_order.clone() {
            let base = CompId(comps.len() as u32);
            let (name, len) = match kind {
                CompKind::Mutex(i) => {
                    self.mutexes[i as usize].base = base;
                    (
                        self.mutexes[i as usize].name.clone(),
                        self.mutexes[i as usize].len,
                    )
                }
                CompKind::Sem(i) => {
                    self.sems[i as usize].base = base;
                    (self.sems[i as usize].name.clone(), self.sems[i as usize].len)
                }
                CompKind::Var(i) => {
                    self.vars[i as usize].base = base;
                    (self.vars[i as usize].name.clone(), self.vars[i as usize].len)
                }
                CompKind::Process(_) => continue,
            };
            match len {
                None => comps.push(Comp { kind, name }),
                Some(n) => {
                    for k in 0..n {
                        comps.push(Comp {
                            kind,
                            name: format!("{name}[{k}]"),
                        });
                    }
                }
            }
        }
        Layout {
            comps,
            instances,
            firsts,
        }
    }

    /// Pass 4: marks the instances the `init` lines start; an instance started twice is an
    /// error.
    pub(super) fn start_instances(&self, inits: &[&[InitEntry]], layout: &mut Layout) -> Result<(), Diag> {
        let mut init_span: HashMap<usize, Span> = HashMap::new();
        for e in inits.iter().copied().flatten() {
            let (d, picked) = self.init_offsets(e)?;
            let first = layout.firsts[d as usize].index();
            for k in picked {
                let inst = first + k as usize;
                if let Some(prev) = init_span.get(&inst) {
                    let pp = self.lines.pos(prev.start);
                    return Err(Diag::at(
                        e.span.start,
                        format!(
                            "`{}` is already started by `init` at {}:{}",
                            layout.instances[inst].name, pp.line, pp.col
                        ),
                    ));
                }
                init_span.insert(inst, e.span);
                layout.instances[inst].starts = true;
            }
        }
        Ok(())
    }

    /// The process definition an `init` entry names and the offsets of the instances it
    /// picks.
    fn init_offsets(&self, e: &InitEntry) -> Result<(u32, Vec<u32>), Diag> {
        let Some(Global::Process(d)) = self.global(&e.name.name, e.name.span)? else {
            return Err(Diag::at(
                e.name.span.start,
                format!("`init` starts processes; `{}` is not a process", e.name.name),
            ));
        };
        let p = &self.procs[d as usize];
        let picked: Vec<u32> = match (&e.sel, &p.index) {
            (InitSel::All, _) => (0..p.count).collect(),
            (_, None) => {
                return Err(Diag::at(
                    e.span.start,
                    format!(
                        "process `{}` has no instance index; write `init {}`",
                        p.name, p.name
                    ),
                ))
            }
            (InitSel::One(x), Some(_)) => {
                let k = self.const_int(x)?;
                vec![self.instance_offset(d, k, x.span)?]
            }
            (InitSel::Range(r), Some(_)) => {
                let (lo, hi) = self.const_range(r)?;
                let mut v = Vec::new();
                let mut k = lo;
                while k <= hi {
                    v.push(self.instance_offset(d, k, r.span)?);
                    k += 1;
                }
                v
            }
        };
        Ok((d, picked))
    }

    /// Pass 5: compiles every process body, then runs the cross-process checks.
    pub(super) fn compile_bodies(&mut self, file: &ast::File, layout: &Layout) -> Result<Vec<ProcDef>, Diag> {
        let mut defs = Vec::new();
        let mut facts = Vec::new();
        for (d, first) in layout.firsts.iter().enumerate() {
            let info = self.procs[d].clone();
            let Item::Process(ast_def) = &file.items[info.item].item else {
                return Err(Diag::at(info.span.start, "[qpor internal bug] process item lost"));
            };
            let (code, slots, arrays, fact) = self.compile_process(ast_def)?;
            defs.push(ProcDef {
                name: info.name.clone(),
                index_lo: info.index.as_ref().map(|(_, lo)| *lo),
                count: info.count,
                first: *first,
                code,
                slots,
                arrays,
            });
            facts.push(fact);
        }
        self.cross_checks(&defs, &layout.instances, &facts)?;
        Ok(defs)
    }
}
