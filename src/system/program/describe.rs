//! Names of local states, for witnesses and exports: where a process stands with its
//! locals, who holds a mutex, a semaphore's count, a variable's value.

use super::code::CompKind;
use super::system::ProgramSystem;
use super::tables::{PState, Tables, FREE};
use crate::system::{CompId, Local};

impl ProgramSystem<'_> {
    /// The name of local state `l` of component `c` (see
    /// [`crate::system::System::local_name`]).
    pub(super) fn describe_local(&self, c: CompId, l: Local) -> String {
        let p = self.prog;
        match p.comps.get(c.index()).map(|x| x.kind) {
            Some(CompKind::Process(i)) => self.process_local_name(&self.tables(), i, l),
            Some(CompKind::Mutex(_)) => {
                if l == FREE {
                    "free".into()
                } else {
                    let h = p
                        .instances
                        .get(l.0 as usize - 1)
                        .map(|x| x.name.as_str())
                        .unwrap_or("?");
                    format!("held by {h}")
                }
            }
            Some(CompKind::Sem(_)) => l.0.to_string(),
            Some(CompKind::Var(d)) => {
                let ty = &p.vars[d as usize].ty;
                ty.show(ty.lo + l.0 as i64)
            }
            None => l.0.to_string(),
        }
    }

    fn process_local_name(&self, t: &Tables, inst: u32, l: Local) -> String {
        let Some(st) = self.state(t, inst, l) else {
            return format!("unknown state {}", l.0);
        };
        match st {
            PState::Idle => "idle".into(),
            PState::Done => "done".into(),
            PState::Fault(_) => "fault".into(),
            PState::Run { pc, locals } => {
                let Some(op) = self.op_at(inst, *pc) else {
                    return format!("pc {pc}");
                };
                let mut s = format!("at {}:{} `{}`", op.pos.line, op.pos.col, op.text);
                let vals = self.locals_in_scope(inst, *pc, locals);
                if !vals.is_empty() {
                    s.push_str(" with ");
                    s.push_str(&vals);
                }
                s
            }
        }
    }

    /// The locals of instance `inst` in scope at program point `pc`, as `i=1, x=true`
    /// (empty when none): only those, since a process may declare one name twice in
    /// scopes that do not overlap, and a local out of scope is always 0.
    fn locals_in_scope(&self, inst: u32, pc: u32, locals: &[i64]) -> String {
        let def = &self.prog.defs[self.prog.instances[inst as usize].def as usize];
        let vals: Vec<String> = def
            .slots
            .iter()
            .zip(locals.iter())
            .filter(|(s, _)| s.in_scope.contains(&pc))
            .map(|(s, v)| match &s.ty {
                Some(ty) => format!("{}={}", s.name, ty.show(*v)),
                None => format!("{}={v}", s.name),
            })
            .collect();
        debug_assert!(
            {
                let mut names: Vec<&str> = vals.iter().filter_map(|v| v.split('=').next()).collect();
                names.sort_unstable();
                names.windows(2).all(|w| w[0] != w[1])
            },
            "[qpor internal bug] two locals of one name in scope at once: {vals:?}"
        );
        vals.join(", ")
    }

    /// The locals in scope of instance `inst` in its local state `l`, as `i=1, x=true`;
    /// empty when it has none or is not running.
    pub(super) fn locals_text(&self, inst: u32, l: Local) -> String {
        let t = self.tables();
        match self.state(&t, inst, l) {
            Some(PState::Run { pc, locals }) => self.locals_in_scope(inst, *pc, locals),
            _ => String::new(),
        }
    }
}
