//! Pass 2: the declarations in file order. `const` and `param` are evaluated (params take
//! their `-D` value), shared variables, mutexes, semaphores, channels and processes get
//! their sizes, ranges and initial values.

use super::super::ast::{self, InitEntry, Item};
use super::super::Diag;
use super::consts::initial_values;
use super::{Front, Global, ProcInfo, Ty, MAX_ARRAY};
use crate::system::program::{ChanDecl, CompKind, Param, ResDecl, VarDecl};
use crate::system::CompId;

impl Front<'_> {
    /// Reads every declaration; returns the `init` lines, for pass 4.
    pub(super) fn read_items<'f>(
        &mut self,
        file: &'f ast::File,
        defines: &[(String, i64)],
    ) -> Result<Vec<&'f [InitEntry]>, Diag> {
        let mut used_define = vec![false; defines.len()];
        let mut inits = Vec::new();
        for (i, at) in file.items.iter().enumerate() {
            match &at.item {
                Item::Const(name, e) => self.const_item(name, e, defines)?,
                Item::Param(name, e) => self.param_item(name, e, defines, &mut used_define)?,
                Item::Var(decl) => self.shared_vars(decl)?,
                Item::Mutex(names) => self.resources(names, None)?,
                Item::Sem(names, init) => {
                    let count = self.sem_count(init.as_ref())?;
                    self.resources(names, Some(count))?
                }
                Item::Chan(names, ty) => self.chans(names, ty.as_ref())?,
                Item::Process(p) => self.process_item(p, i)?,
                Item::Init(entries) => inits.push(entries.as_slice()),
            }
        }
        for (k, (name, value)) in defines.iter().enumerate() {
            if !used_define[k] {
                self.warnings.push(Diag::at(
                    0,
                    format!("-D {name}={value}: the program has no parameter `{name}`; ignored"),
                ));
            }
        }
        if self.procs.is_empty() {
            return Err(Diag::at(
                self.text.len(),
                "the program defines no process; write `process main { … }` and `init main;`",
            ));
        }
        if inits.is_empty() {
            return Err(Diag::at(
                self.text.len(),
                "the program has no `init` line saying which processes start (e.g. `init main;`)",
            ));
        }
        Ok(inits)
    }

    fn const_item(
        &mut self,
        name: &ast::Ident,
        e: &ast::Expr,
        defines: &[(String, i64)],
    ) -> Result<(), Diag> {
        if let Some(k) = defines.iter().position(|(n, _)| *n == name.name) {
            return Err(Diag::at(
                name.span.start,
                format!(
                    "`{}` is a `const`; only a `param` can be set with -D {}={}",
                    name.name, name.name, defines[k].1
                ),
            ));
        }
        let (value, ty) = self.const_value(e)?;
        self.globals.insert(
            name.name.clone(),
            Global::Const {
                value,
                ty,
                param: false,
            },
        );
        Ok(())
    }

    /// A `param`; `used_define` marks the `-D`s that set it.
    fn param_item(
        &mut self,
        name: &ast::Ident,
        e: &ast::Expr,
        defines: &[(String, i64)],
        used_define: &mut [bool],
    ) -> Result<(), Diag> {
        let (default, ty) = self.const_value(e)?;
        let mut value = default;
        // The last -D for a name wins, as with a C compiler's -D.
        let set = defines.iter().rposition(|(n, _)| *n == name.name);
        if let Some(k) = set {
            for (j, (n, _)) in defines.iter().enumerate() {
                if *n == name.name {
                    used_define[j] = true;
                }
            }
            value = defines[k].1;
            if ty == Ty::Bool && value != 0 && value != 1 {
                return Err(Diag::at(
                    name.span.start,
                    format!(
                        "-D {}={}: `{}` is a bool parameter; give 0 or 1",
                        name.name, value, name.name
                    ),
                ));
            }
        }
        self.params.push(Param {
            name: name.name.clone(),
            value,
            default,
            set: set.is_some(),
            is_bool: ty == Ty::Bool,
        });
        self.globals.insert(
            name.name.clone(),
            Global::Const {
                value,
                ty,
                param: true,
            },
        );
        Ok(())
    }

    fn shared_vars(&mut self, d: &ast::VarDecl) -> Result<(), Diag> {
        let ty = self.value_type(&d.ty, d.ty_span)?;
        for n in &d.names {
            let len = self.array_size(n)?;
            let cells = len.unwrap_or(1) as usize;
            let init = initial_values(n, len, d.init.as_ref(), |e| {
                self.const_of_type(e, &ty, &n.name.name)
            })?
            .unwrap_or_else(|| vec![Self::default_value(&ty); cells]);
            let id = self.vars.len() as u32;
            self.vars.push(VarDecl {
                name: n.name.name.clone(),
                len,
                ty,
                base: CompId(0),
                init,
            });
            self.var_spans.push(n.span);
            self.resource_order.push(CompKind::Var(id));
            self.globals.insert(n.name.name.clone(), Global::Var(id));
        }
        Ok(())
    }

    /// The initial count of semaphores.
    fn sem_count(&self, init: Option<&ast::Expr>) -> Result<u32, Diag> {
        let Some(e) = init else {
            return Ok(0);
        };
        let v = self.const_int(e)?;
        if !(0..=u32::MAX as i64).contains(&v) {
            return Err(Diag::at(
                e.span.start,
                format!("a semaphore starts with a count in 0..={}, not {v}", u32::MAX),
            ));
        }
        Ok(v as u32)
    }

    /// Mutexes (`sem_count` is `None`) or semaphores starting with `sem_count`.
    fn resources(&mut self, names: &[ast::DeclName], sem_count: Option<u32>) -> Result<(), Diag> {
        for n in names {
            let len = self.array_size(n)?;
            let decl = ResDecl {
                name: n.name.name.clone(),
                len,
                base: CompId(0),
                init: sem_count.unwrap_or(0),
            };
            let (kind, global) = match sem_count {
                None => {
                    let id = self.mutexes.len() as u32;
                    self.mutexes.push(decl);
                    (CompKind::Mutex(id), Global::Mutex(id))
                }
                Some(_) => {
                    let id = self.sems.len() as u32;
                    self.sems.push(decl);
                    (CompKind::Sem(id), Global::Sem(id))
                }
            };
            self.resource_order.push(kind);
            self.globals.insert(n.name.name.clone(), global);
        }
        Ok(())
    }

    fn chans(
        &mut self,
        names: &[ast::DeclName],
        ty: Option<&(ast::TypeSpec, ast::Span)>,
    ) -> Result<(), Diag> {
        let ty = match ty {
            None => None,
            Some((t, s)) => Some(self.value_type(t, *s)?),
        };
        for n in names {
            let len = self.array_size(n)?;
            let id = self.chans.len() as u32;
            let first_cell = self
                .chans
                .last()
                .map(|c| c.first_cell + c.len.unwrap_or(1))
                .unwrap_or(0);
            self.chans.push(ChanDecl {
                name: n.name.name.clone(),
                len,
                ty,
                first_cell,
            });
            self.globals.insert(n.name.name.clone(), Global::Chan(id));
        }
        Ok(())
    }

    /// A process definition, item `item` of the file; its body is compiled in pass 5.
    fn process_item(&mut self, p: &ast::ProcessDef, item: usize) -> Result<(), Diag> {
        let (index, count) = match &p.index {
            None => (None, 1u32),
            Some((v, r)) => {
                if self.declared.contains_key(&v.name) {
                    return Err(self.already(&v.name, v.span));
                }
                let (lo, hi) = self.const_range(r)?;
                if hi < lo {
                    return Err(Diag::at(
                        r.span.start,
                        format!(
                            "process `{}` has no instances: the range {lo}..={hi} is empty",
                            p.name.name
                        ),
                    ));
                }
                let n = hi as i128 - lo as i128 + 1;
                if n > MAX_ARRAY as i128 {
                    return Err(Diag::at(
                        r.span.start,
                        format!("a process may have at most {MAX_ARRAY} instances, not {n}"),
                    ));
                }
                (Some((v.name.clone(), lo)), n as u32)
            }
        };
        let id = self.procs.len() as u32;
        self.procs.push(ProcInfo {
            name: p.name.name.clone(),
            span: p.name.span,
            index,
            count,
            item,
        });
        self.globals.insert(p.name.name.clone(), Global::Process(id));
        Ok(())
    }
}
