//! Compiled programs of the process language (`docs/language.md`) as component systems
//! (docs/design.md#component-systems).
//!
//! # Components
//! One per process instance (its control point and locals), per mutex (free, or which
//! instance holds it), per semaphore (its count) and per shared variable or array cell (its
//! value minus the lower bound of its range, so any range of up to 2^32 values fits a
//! [`Local`]). Instances come first, in definition and index order, then the resources in
//! declaration order.
//!
//! Channels are *not* components: a channel is synchronous and holds nothing, so a
//! rendezvous is one action touching the sending and the receiving process (and the shared
//! cells its value expression reads or its target writes). Two rendezvous on one channel
//! between disjoint pairs of processes then commute, which they do; a channel component
//! would make them dependent for no reason.
//!
//! # Local states and actions
//! A process's local state is an interned `(control point, locals)` pair, one table per
//! process definition, filled lazily as steps fire — variable domains are never
//! enumerated. Ids 0 and 1 are reserved for *idle* (not started yet) and *done* (ended;
//! locals dropped). A fault is a local state of its own that carries the message.
//!
//! An action is an interned *resolved* statement: the process instance, its control point,
//! the components the statement touches once its indices are evaluated (which `m[i]`,
//! which `a[k]`), and for a choice the branch. So an [`ActionId`] always touches the same
//! components, as the [`System`] contract demands; which action a process offers next
//! depends only on its own local state (the front end forbids component indices that read
//! shared data).
//!
//! After a visible step, the process's local code is folded into it
//! (`interp.rs`, bounded by [`MAX_LOCAL_STEPS`]): a local state always sits before a
//! visible statement, at the end, or in a fault, and local computation creates no event.
//! Accesses to shared cells that a mutex guards are folded the same way into the step
//! that takes the mutex, which touches them (`guards.rs`), and accesses to cells that are
//! never accessed by two processes at once into the step before them, which touches the
//! cells its local run may reach (`exclusive.rs`), unless the system is built with
//! [`Program::system_every_access`].
//!
//! # Faults
//! An index out of range, a value outside its declared range, an unlock of a mutex the
//! process does not hold, a lock of one it already holds, a failed assertion, a division
//! by zero, an overflow, a spawn of an instance already started, or a local infinite loop
//! put the process in a fault state: [`System::fault`] gives `file:line:col: what`, and the
//! process takes no further step.
//!
//! # Final states
//! A process is final when it is done or was never started; mutexes, semaphores and
//! variables are always final. A dead state where every process is final is a termination.
//!
//! # Invariants
//! - `pend_of[i][l]`, when computed, is the pending statement of instance `i` in local
//!   state `l`; pendings and actions are interned once and never change.
//! - Every action's touch set contains its owner and is sorted.
//! - A cached firing is only stored for an enabled step, keyed by the action and every
//!   before-state it read.
//!
//! # Files
//! - `code.rs`: the compiled code the front end produces; `interp.rs`: its interpreter;
//! - `touchers.rs`: which instances may touch which component, known before the run;
//! - `guards.rs`: which shared cells a mutex guards, known before the run;
//! - `exclusive.rs`: which shared variables are never accessed by two processes at once,
//!   known before the run; `partial.rs`: running local code on partly known locals, for
//!   that analysis and for the cells a step's local run may reach;
//! - `dependence.rs`: which instances a stubborn set must take together, at a state;
//! - `tables.rs`: the interned local states, pending statements and actions;
//! - `system.rs`: [`ProgramSystem`] and its [`System`] implementation;
//! - `pending.rs`: what a process waits to do next, and its actions;
//! - `enabled.rs`: which steps are enabled; `fire.rs`: what a step does;
//! - `describe.rs`: names of local states; `to_net.rs`: the export as a Petri net.

mod code;
mod dependence;
mod describe;
mod enabled;
mod exclusive;
mod fire;
mod guards;
mod interp;
mod partial;
mod pending;
mod system;
mod tables;
mod to_net;
mod touchers;

pub(crate) use code::{
    BinOp, CellRef, ChanDecl, Comp, CompKind, Expr, Instance, LValue, LocalArray, Op, OpKind, ProcDef,
    ResDecl, Slot, SlotInfo, UnOp, ValTy, VarDecl,
};
pub use interp::MAX_LOCAL_STEPS;
/// Constant folding in the front end applies the operators exactly as a run does.
pub(crate) use interp::{apply_binary, apply_unary};
pub use system::ProgramSystem;
pub use to_net::{to_net, ToNetOptions};

use super::{CompId, ModelError};

/// An error that only a bug in qpor can cause.
fn internal(what: &str) -> ModelError {
    ModelError::new(format!("[qpor internal bug] {what}"))
}

/// A `param` of a program and the value this compilation gave it: what a reader needs
/// before setting it with `-D NAME=VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name.
    pub name: String,
    /// The value the program was compiled with: the `-D` value when one was given, else
    /// `default`.
    pub value: i64,
    /// The value of the declaration's expression (which may use earlier parameters, with
    /// the values they were given).
    pub default: i64,
    /// Whether a `-D` set the value.
    pub set: bool,
    /// Whether the parameter is a bool (values 0 and 1), else an int.
    pub is_bool: bool,
}

/// A compiled program: its processes, resources and their layout as components.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub(crate) name: String,
    /// The `param`s, in declaration order.
    pub(crate) params: Vec<Param>,
    pub(crate) defs: Vec<ProcDef>,
    pub(crate) instances: Vec<Instance>,
    pub(crate) comps: Vec<Comp>,
    pub(crate) vars: Vec<VarDecl>,
    pub(crate) mutexes: Vec<ResDecl>,
    pub(crate) sems: Vec<ResDecl>,
    pub(crate) chans: Vec<ChanDecl>,
    /// Per component, the instances whose steps may touch it (sorted): the instance itself,
    /// and every instance with a statement naming it, exactly when the index is known
    /// before the run (a constant or the instance index), else the whole array; for a
    /// guarded cell, also the instances naming its mutex (their lock steps touch it).
    touchers: Vec<Vec<u32>>,
    /// Per component, the instances with an assignment or receive whose target may be it
    /// (sorted; only shared cells have any).
    writers: Vec<Vec<u32>>,
    /// Per instance, the instances with a spawn that may name it (sorted).
    spawners: Vec<Vec<u32>>,
    /// Per channel declaration, the instances with a send on it, and with a receive.
    senders: Vec<Vec<u32>>,
    receivers: Vec<Vec<u32>>,
    /// Per component, the mutex that guards it when it is a guarded shared cell
    /// (`guards.rs`).
    guard_of: Vec<Option<CompId>>,
    /// Per component, the cells it guards when it is a mutex (sorted).
    guarded: Vec<Vec<CompId>>,
    /// Per component, whether it is a cell of an exclusive variable (`exclusive.rs`).
    exclusive: Vec<bool>,
}

impl Program {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        defs: Vec<ProcDef>,
        instances: Vec<Instance>,
        comps: Vec<Comp>,
        vars: Vec<VarDecl>,
        mutexes: Vec<ResDecl>,
        sems: Vec<ResDecl>,
        chans: Vec<ChanDecl>,
    ) -> Program {
        let mut p = Program {
            name,
            params: Vec::new(),
            defs,
            instances,
            comps,
            vars,
            mutexes,
            sems,
            chans,
            touchers: Vec::new(),
            writers: Vec::new(),
            spawners: Vec::new(),
            senders: Vec::new(),
            receivers: Vec::new(),
            guard_of: Vec::new(),
            guarded: Vec::new(),
            exclusive: Vec::new(),
        };
        p.index_guards();
        p.index_touchers();
        p.index_exclusive();
        p
    }

    /// The file the program was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `param`s, in declaration order, with the values this program was compiled with.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Number of process instances (the first components).
    pub fn num_instances(&self) -> usize {
        self.instances.len()
    }

    /// The program as a component system, the accesses to guarded cells folded into the
    /// steps that take their mutexes (`guards.rs`), those to exclusive cells into the
    /// steps before them (`exclusive.rs`).
    pub fn system(&self) -> Result<ProgramSystem<'_>, ModelError> {
        ProgramSystem::new(self, true)
    }

    /// The program as a component system in which every access to a shared cell is a
    /// step of its own (`--every-access`): more interleavings, the same dead states.
    pub fn system_every_access(&self) -> Result<ProgramSystem<'_>, ModelError> {
        ProgramSystem::new(self, false)
    }

    /// The name of channel cell `cell`.
    fn cell_name(&self, cell: u32) -> String {
        for d in &self.chans {
            let n = d.len.unwrap_or(1);
            if cell >= d.first_cell && cell < d.first_cell + n {
                return match d.len {
                    None => d.name.clone(),
                    Some(_) => format!("{}[{}]", d.name, cell - d.first_cell),
                };
            }
        }
        format!("channel cell {cell}")
    }
}
