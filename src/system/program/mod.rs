//! Compiled programs of the process language (`docs/language.md`) as component systems
//! (DESIGN.md §1, "Component systems").
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

pub(crate) mod code;
pub(crate) mod interp;
mod to_net;

pub use interp::MAX_LOCAL_STEPS;
pub use to_net::{to_net, ToNetOptions};

use super::{ActionId, CompId, Local, ModelError, Step, System, TouchSet};
use code::{ChanDecl, Comp, CompKind, Expr, Instance, LValue, OpKind, ProcDef, ResDecl, VarDecl};
use hashbrown::HashTable;
use interp::{Eval, Flow, Memory, Settled};
use rustc_hash::{FxBuildHasher, FxHashMap};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::hash::BuildHasher;

/// Local state of every process that has not been started.
const IDLE: Local = Local(0);
/// Local state of every process that has ended.
const DONE: Local = Local(1);
/// Local state of a free mutex.
const FREE: Local = Local(0);

/// Most distinct firings remembered by the firing cache before it is emptied; bounds its
/// memory on long runs while keeping repeated firings (the common case) cheap.
const FIRE_CACHE_LIMIT: usize = 1 << 21;

/// A compiled program: its processes, resources and their layout as components.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub(crate) name: String,
    pub(crate) defs: Vec<ProcDef>,
    pub(crate) instances: Vec<Instance>,
    pub(crate) comps: Vec<Comp>,
    pub(crate) vars: Vec<VarDecl>,
    pub(crate) mutexes: Vec<ResDecl>,
    pub(crate) sems: Vec<ResDecl>,
    pub(crate) chans: Vec<ChanDecl>,
    /// Per component, the instances whose steps may touch it (sorted): the instance itself,
    /// and every instance with a statement naming it, exactly when the index is known
    /// before the run (a constant or the instance index), else the whole array.
    touchers: Vec<Vec<u32>>,
    /// Per channel declaration, the instances with a send on it, and with a receive.
    senders: Vec<Vec<u32>>,
    receivers: Vec<Vec<u32>>,
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
            defs,
            instances,
            comps,
            vars,
            mutexes,
            sems,
            chans,
            touchers: Vec::new(),
            senders: Vec::new(),
            receivers: Vec::new(),
        };
        p.index_touchers();
        p
    }

    /// The file the program was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of process instances (the first components).
    pub fn num_instances(&self) -> usize {
        self.instances.len()
    }

    /// The program as a component system.
    pub fn system(&self) -> Result<ProgramSystem<'_>, ModelError> {
        ProgramSystem::new(self)
    }

    fn index_touchers(&mut self) {
        let mut touch: Vec<Vec<u32>> = vec![Vec::new(); self.comps.len()];
        let mut senders = vec![Vec::new(); self.chans.len()];
        let mut receivers = vec![Vec::new(); self.chans.len()];
        for (i, inst) in self.instances.iter().enumerate() {
            let i = i as u32;
            touch[i as usize].push(i);
            let Some(ev) = Eval::new(self, inst) else { continue };
            let mut comps: Vec<CompId> = Vec::new();
            for op in &ev.def.code {
                match &op.kind {
                    OpKind::Assign { target, value } => {
                        static_lvalue(&ev, target, &mut comps);
                        static_expr(&ev, value, &mut comps);
                    }
                    OpKind::Branch { cond, .. } | OpKind::Assert(cond) => static_expr(&ev, cond, &mut comps),
                    OpKind::Lock(c) | OpKind::Unlock(c) => {
                        static_cells(&ev, &self.mutexes[c.decl as usize], c.index.as_ref(), &mut comps)
                    }
                    OpKind::Wait(c) | OpKind::Signal(c) => {
                        static_cells(&ev, &self.sems[c.decl as usize], c.index.as_ref(), &mut comps)
                    }
                    OpKind::Spawn(c) | OpKind::Join(c) => {
                        let d = &self.defs[c.decl as usize];
                        let known = c.index.as_ref().is_none_or(|e| e.is_static());
                        if d.index_lo.is_none() {
                            comps.push(d.first);
                        } else if known {
                            if let Ok(q) = ev.process(c, &[]) {
                                comps.push(q);
                            }
                        } else {
                            comps.extend((0..d.count).map(|k| CompId(d.first.0 + k)));
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
                            static_lvalue(&ev, t, &mut comps);
                        }
                    }
                    _ => {}
                }
            }
            comps.sort_unstable();
            comps.dedup();
            for c in comps {
                if let Some(list) = touch.get_mut(c.index()) {
                    list.push(i);
                }
            }
        }
        for list in touch
            .iter_mut()
            .chain(senders.iter_mut())
            .chain(receivers.iter_mut())
        {
            list.sort_unstable();
            list.dedup();
        }
        self.touchers = touch;
        self.senders = senders;
        self.receivers = receivers;
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

/// Components a resource reference may touch: the cell when the index is known per
/// instance, else every cell.
fn static_cells(ev: &Eval<'_>, d: &ResDecl, index: Option<&Expr>, out: &mut Vec<CompId>) {
    match (d.len, index) {
        (None, _) => out.push(d.base),
        (Some(len), Some(e)) if e.is_static() => {
            if let Ok(k) = ev.expr(e, &[], &interp::NoMemory) {
                if k >= 0 && k < len as i64 {
                    out.push(CompId(d.base.0 + k as u32));
                }
            }
        }
        (Some(len), _) => out.extend((0..len).map(|k| CompId(d.base.0 + k))),
    }
}

fn static_var(ev: &Eval<'_>, var: u32, index: Option<&Expr>, out: &mut Vec<CompId>) {
    let d = &ev.prog.vars[var as usize];
    match (d.len, index) {
        (None, _) => out.push(d.base),
        (Some(len), Some(e)) if e.is_static() => {
            if let Ok(k) = ev.expr(e, &[], &interp::NoMemory) {
                if k >= 0 && k < len as i64 {
                    out.push(CompId(d.base.0 + k as u32));
                }
            }
        }
        (Some(len), _) => out.extend((0..len).map(|k| CompId(d.base.0 + k))),
    }
}

fn static_expr(ev: &Eval<'_>, e: &Expr, out: &mut Vec<CompId>) {
    match e {
        Expr::Const(_) | Expr::Index | Expr::Local(_) => {}
        Expr::LocalElem { index, .. } => static_expr(ev, index, out),
        Expr::Shared(v) => static_var(ev, *v, None, out),
        Expr::SharedElem { var, index } => {
            static_var(ev, *var, Some(index), out);
            static_expr(ev, index, out);
        }
        Expr::Unary(_, a) => static_expr(ev, a, out),
        Expr::Binary(_, a, b) => {
            static_expr(ev, a, out);
            static_expr(ev, b, out);
        }
    }
}

fn static_lvalue(ev: &Eval<'_>, lv: &LValue, out: &mut Vec<CompId>) {
    match lv {
        LValue::Local(_) => {}
        LValue::LocalElem { index, .. } => static_expr(ev, index, out),
        LValue::Shared(v) => static_var(ev, *v, None, out),
        LValue::SharedElem { var, index } => {
            static_var(ev, *var, Some(index), out);
            static_expr(ev, index, out);
        }
    }
}

/// The interned local state of a process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum PState {
    Idle,
    Done,
    /// Index into the fault messages.
    Fault(u32),
    Run {
        pc: u32,
        locals: Box<[i64]>,
    },
}

/// The local-state table of one process definition.
struct DefStates {
    list: Vec<PState>,
    table: HashTable<u32>,
}

impl DefStates {
    fn new() -> Self {
        let mut s = DefStates {
            list: Vec::new(),
            table: HashTable::new(),
        };
        s.intern(PState::Idle);
        s.intern(PState::Done);
        s
    }

    fn intern(&mut self, st: PState) -> Option<Local> {
        let hash = FxBuildHasher.hash_one(&st);
        let list = &self.list;
        if let Some(&i) = self.table.find(hash, |&i| list[i as usize] == st) {
            return Some(Local(i));
        }
        let id = u32::try_from(self.list.len()).ok().filter(|&i| i < u32::MAX)?;
        self.list.push(st);
        let list = &self.list;
        self.table
            .insert_unique(hash, id, |&i| FxBuildHasher.hash_one(&list[i as usize]));
        Some(Local(id))
    }
}

/// What a process waits to do next, once its indices are resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PendKind {
    Lock(CompId),
    Unlock(CompId),
    Wait(CompId),
    Signal(CompId),
    Spawn(CompId),
    Join(CompId),
    /// An assignment, branch or assert touching shared cells.
    Data,
    /// A nondeterministic choice with this many branches.
    Choose(u32),
    Send {
        cell: u32,
        chan: u32,
    },
    Recv {
        cell: u32,
        chan: u32,
    },
}

/// An interned pending statement.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub inst: u32,
    pub pc: u32,
    pub kind: PendKind,
    /// The owner and the components the statement touches, sorted (for a send or receive,
    /// this side's only).
    pub touched: TouchSet,
    /// The actions this statement offers on its own (empty for sends and receives).
    pub actions: SmallVec<[ActionId; 2]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ActKind {
    Single { pend: u32, branch: u32 },
    Meet { send: u32, recv: u32 },
}

struct ActionInfo {
    touched: TouchSet,
    owner: CompId,
    kind: ActKind,
    name: String,
}

const NOT_COMPUTED: u32 = u32::MAX;
const NO_PENDING: u32 = u32::MAX - 1;

type FireKey = (ActionId, SmallVec<[Local; 4]>);

struct Tables {
    states: Vec<DefStates>,
    /// Per instance, indexed by local state: the pending id, [`NOT_COMPUTED`] or
    /// [`NO_PENDING`] (idle, done or fault).
    pend_of: Vec<Vec<u32>>,
    pends: Vec<Pending>,
    pend_index: FxHashMap<(u32, u32, TouchSet), u32>,
    actions: Vec<ActionInfo>,
    meet_index: FxHashMap<(u32, u32), ActionId>,
    faults: Vec<String>,
    fault_index: FxHashMap<String, u32>,
    fire_cache: FxHashMap<FireKey, SmallVec<[Local; 4]>>,
    /// Interned receive statements by channel cell, for the anchored steps of senders.
    recv_by_cell: FxHashMap<u32, Vec<u32>>,
    /// Interned send statements by channel cell, for the anchored steps of receivers.
    send_by_cell: FxHashMap<u32, Vec<u32>>,
}

/// A [`Program`] seen as a component system. Its tables grow as it is explored, behind a
/// `RefCell`, so it is not `Sync`: one exploration thread at a time.
pub struct ProgramSystem<'p> {
    prog: &'p Program,
    tables: RefCell<Tables>,
    initial: Vec<Local>,
}

/// The shared cells of a step: `vals` parallel to `touched`.
struct TouchedMem<'a> {
    prog: &'a Program,
    touched: &'a [CompId],
    vals: &'a mut [Local],
}

impl TouchedMem<'_> {
    fn lo(&self, c: CompId) -> Option<i64> {
        match self.prog.comps.get(c.index())?.kind {
            CompKind::Var(d) => Some(self.prog.vars[d as usize].ty.lo),
            _ => None,
        }
    }
}

impl Memory for TouchedMem<'_> {
    fn read(&self, c: CompId) -> Option<i64> {
        let i = self.touched.binary_search(&c).ok()?;
        Some(self.lo(c)? + self.vals[i].0 as i64)
    }

    fn write(&mut self, c: CompId, v: i64) -> bool {
        let (Ok(i), Some(lo)) = (self.touched.binary_search(&c), self.lo(c)) else {
            return false;
        };
        match u32::try_from(v - lo) {
            Ok(x) => {
                self.vals[i] = Local(x);
                true
            }
            Err(_) => false,
        }
    }
}

fn internal(what: &str) -> ModelError {
    ModelError::new(format!("[qpor internal bug] {what}"))
}

/// The new local state of a process after a step.
enum Outcome {
    Continue(u32, Box<[i64]>),
    Fault(String),
}

impl<'p> ProgramSystem<'p> {
    fn new(prog: &'p Program) -> Result<Self, ModelError> {
        let mut t = Tables {
            states: prog.defs.iter().map(|_| DefStates::new()).collect(),
            pend_of: vec![Vec::new(); prog.instances.len()],
            pends: Vec::new(),
            pend_index: FxHashMap::default(),
            actions: Vec::new(),
            meet_index: FxHashMap::default(),
            faults: Vec::new(),
            fault_index: FxHashMap::default(),
            fire_cache: FxHashMap::default(),
            recv_by_cell: FxHashMap::default(),
            send_by_cell: FxHashMap::default(),
        };
        let mut initial = Vec::with_capacity(prog.comps.len());
        for (ci, comp) in prog.comps.iter().enumerate() {
            initial.push(match comp.kind {
                CompKind::Process(i) => {
                    let inst = &prog.instances[i as usize];
                    if inst.starts {
                        let ev =
                            Eval::new(prog, inst).ok_or_else(|| internal("instance without definition"))?;
                        let locals = vec![0i64; ev.def.slots.len()].into_boxed_slice();
                        let s = interp::settle(&ev, 0, locals);
                        Self::intern_settled(&mut t, inst.def, s)?
                    } else {
                        IDLE
                    }
                }
                CompKind::Mutex(_) => FREE,
                CompKind::Sem(d) => Local(prog.sems[d as usize].init),
                CompKind::Var(d) => {
                    let v = &prog.vars[d as usize];
                    let k = ci.saturating_sub(v.base.index());
                    let x = v.init.get(k).copied().unwrap_or(v.ty.lo);
                    Local(u32::try_from(x - v.ty.lo).map_err(|_| internal("initial value out of range"))?)
                }
            });
        }
        Ok(ProgramSystem {
            prog,
            tables: RefCell::new(t),
            initial,
        })
    }

    /// The program behind the system.
    pub fn program(&self) -> &'p Program {
        self.prog
    }

    /// Number of distinct local states interned so far, over all process definitions.
    pub fn interned_states(&self) -> usize {
        self.tables.borrow().states.iter().map(|s| s.list.len()).sum()
    }

    /// Number of distinct actions interned so far.
    pub fn interned_actions(&self) -> usize {
        self.tables.borrow().actions.len()
    }

    fn intern_settled(t: &mut Tables, def: u32, s: Settled) -> Result<Local, ModelError> {
        let st = match s {
            Settled::Done => return Ok(DONE),
            Settled::At { pc, locals } => PState::Run { pc, locals },
            Settled::Fault(msg) => {
                let id = match t.fault_index.get(&msg) {
                    Some(&id) => id,
                    None => {
                        let id = t.faults.len() as u32;
                        t.faults.push(msg.clone());
                        t.fault_index.insert(msg, id);
                        id
                    }
                };
                PState::Fault(id)
            }
        };
        t.states
            .get_mut(def as usize)
            .ok_or_else(|| internal("definition"))?
            .intern(st)
            .ok_or_else(|| ModelError::new("a process has more than 2^32 local states"))
    }

    fn state<'t>(&self, t: &'t Tables, inst: u32, l: Local) -> Option<&'t PState> {
        let def = self.prog.instances.get(inst as usize)?.def;
        t.states.get(def as usize)?.list.get(l.0 as usize)
    }

    /// The pending statement of instance `inst` in local state `l`, computing and
    /// interning it on first use.
    fn pending_id(&self, t: &mut Tables, inst: u32, l: Local) -> u32 {
        if let Some(&p) = t.pend_of.get(inst as usize).and_then(|v| v.get(l.0 as usize)) {
            if p != NOT_COMPUTED {
                return p;
            }
        }
        let p = self.compute_pending(t, inst, l);
        if let Some(v) = t.pend_of.get_mut(inst as usize) {
            if v.len() <= l.0 as usize {
                v.resize(l.0 as usize + 1, NOT_COMPUTED);
            }
            v[l.0 as usize] = p;
        }
        p
    }

    fn compute_pending(&self, t: &mut Tables, inst: u32, l: Local) -> u32 {
        let Some(PState::Run { pc, locals }) = self.state(t, inst, l) else {
            return NO_PENDING;
        };
        let (pc, locals) = (*pc, locals.clone());
        let prog = self.prog;
        let Some(ev) = Eval::new(prog, &prog.instances[inst as usize]) else {
            return NO_PENDING;
        };
        let Some(op) = ev.def.code.get(pc as usize) else {
            return NO_PENDING;
        };
        let me = CompId(inst);
        let mut touched = TouchSet::new();
        touched.push(me);
        let kind = match &op.kind {
            OpKind::Lock(c) | OpKind::Unlock(c) | OpKind::Wait(c) | OpKind::Signal(c) => {
                let sem = matches!(op.kind, OpKind::Wait(_) | OpKind::Signal(_));
                let Ok(r) = ev.resource(c, sem, &locals) else {
                    return NO_PENDING;
                };
                touched.push(r);
                match op.kind {
                    OpKind::Lock(_) => PendKind::Lock(r),
                    OpKind::Unlock(_) => PendKind::Unlock(r),
                    OpKind::Wait(_) => PendKind::Wait(r),
                    _ => PendKind::Signal(r),
                }
            }
            OpKind::Spawn(c) | OpKind::Join(c) => {
                let Ok(q) = ev.process(c, &locals) else {
                    return NO_PENDING;
                };
                if q != me {
                    touched.push(q);
                }
                if matches!(op.kind, OpKind::Spawn(_)) {
                    PendKind::Spawn(q)
                } else {
                    PendKind::Join(q)
                }
            }
            OpKind::Assign { .. } | OpKind::Branch { .. } | OpKind::Assert(_) => {
                touched.extend(ev.shared_cells(op, &locals));
                PendKind::Data
            }
            OpKind::Choose(ts) => PendKind::Choose(ts.len() as u32),
            OpKind::Send { chan, .. } | OpKind::Recv { chan, .. } => {
                let Ok(cell) = ev.channel(chan, &locals) else {
                    return NO_PENDING;
                };
                touched.extend(ev.shared_cells(op, &locals));
                if matches!(op.kind, OpKind::Send { .. }) {
                    PendKind::Send {
                        cell,
                        chan: chan.decl,
                    }
                } else {
                    PendKind::Recv {
                        cell,
                        chan: chan.decl,
                    }
                }
            }
            OpKind::Jump(_) | OpKind::Reset { .. } | OpKind::End => return NO_PENDING,
        };
        touched.sort_unstable();
        touched.dedup();
        let key = (inst, pc, touched.clone());
        if let Some(&p) = t.pend_index.get(&key) {
            return p;
        }
        let id = t.pends.len() as u32;
        let branches = match &kind {
            PendKind::Send { .. } | PendKind::Recv { .. } => 0,
            PendKind::Choose(n) => *n,
            _ => 1,
        };
        let mut actions = SmallVec::new();
        for b in 0..branches {
            let a = ActionId(t.actions.len() as u32);
            let name = self.single_name(&kind, op, &touched, b, branches);
            t.actions.push(ActionInfo {
                touched: touched.clone(),
                owner: me,
                kind: ActKind::Single { pend: id, branch: b },
                name,
            });
            actions.push(a);
        }
        t.pends.push(Pending {
            inst,
            pc,
            kind,
            touched,
            actions,
        });
        t.pend_index.insert(key, id);
        match t.pends[id as usize].kind {
            PendKind::Recv { cell, .. } => t.recv_by_cell.entry(cell).or_default().push(id),
            PendKind::Send { cell, .. } => t.send_by_cell.entry(cell).or_default().push(id),
            _ => {}
        }
        id
    }

    fn single_name(&self, kind: &PendKind, op: &code::Op, touched: &TouchSet, b: u32, n: u32) -> String {
        let p = self.prog;
        let name = |c: &CompId| p.comps[c.index()].name.clone();
        let label = match kind {
            PendKind::Lock(c) => format!("lock {}", name(c)),
            PendKind::Unlock(c) => format!("unlock {}", name(c)),
            PendKind::Wait(c) => format!("wait {}", name(c)),
            PendKind::Signal(c) => format!("signal {}", name(c)),
            PendKind::Spawn(c) => format!("spawn {}", name(c)),
            PendKind::Join(c) => format!("join {}", name(c)),
            PendKind::Choose(_) => format!("choose branch {} of {n}", b + 1),
            PendKind::Data => {
                let cells: Vec<String> = touched
                    .iter()
                    .filter(|c| matches!(p.comps[c.index()].kind, CompKind::Var(d) if p.vars[d as usize].len.is_some()))
                    .map(name)
                    .collect();
                if cells.is_empty() {
                    op.text.clone()
                } else {
                    format!("{} on {}", op.text, cells.join(", "))
                }
            }
            PendKind::Send { .. } | PendKind::Recv { .. } => op.text.clone(),
        };
        format!("{label} at {}:{}", op.pos.line, op.pos.col)
    }

    /// The rendezvous action of a sending and a receiving pending statement.
    fn meet(&self, t: &mut Tables, send: u32, recv: u32) -> ActionId {
        if let Some(&a) = t.meet_index.get(&(send, recv)) {
            return a;
        }
        let (s, r) = (&t.pends[send as usize], &t.pends[recv as usize]);
        let mut touched: TouchSet = s.touched.iter().chain(r.touched.iter()).copied().collect();
        touched.sort_unstable();
        touched.dedup();
        let cell = match s.kind {
            PendKind::Send { cell, .. } => cell,
            _ => 0,
        };
        let sop = self.op_at(s.inst, s.pc);
        let rop = self.op_at(r.inst, r.pc);
        let name = format!(
            "{}: {} → {} at {}:{} / {}:{}",
            self.prog.cell_name(cell),
            self.prog.instances[s.inst as usize].name,
            self.prog.instances[r.inst as usize].name,
            sop.map(|o| o.pos.line).unwrap_or(0),
            sop.map(|o| o.pos.col).unwrap_or(0),
            rop.map(|o| o.pos.line).unwrap_or(0),
            rop.map(|o| o.pos.col).unwrap_or(0),
        );
        let a = ActionId(t.actions.len() as u32);
        t.actions.push(ActionInfo {
            touched,
            owner: CompId(s.inst),
            kind: ActKind::Meet { send, recv },
            name,
        });
        t.meet_index.insert((send, recv), a);
        a
    }

    fn op_at(&self, inst: u32, pc: u32) -> Option<&'p code::Op> {
        let def = self.prog.instances.get(inst as usize)?.def;
        self.prog.defs.get(def as usize)?.code.get(pc as usize)
    }

    /// Whether a statement that needs no partner may fire, given the local states of the
    /// components it touches.
    fn single_enabled(kind: &PendKind, inst: u32, get: impl Fn(CompId) -> Local) -> bool {
        match kind {
            PendKind::Lock(m) => {
                let h = get(*m);
                h == FREE || h == Local(inst + 1)
            }
            PendKind::Wait(s) => get(*s).0 > 0,
            PendKind::Join(q) => get(*q) == DONE,
            PendKind::Send { .. } | PendKind::Recv { .. } => false,
            _ => true,
        }
    }

    /// Appends the steps of instance `inst` at `state`. Rendezvous are listed from the
    /// sender's side only, unless `both_sides`.
    fn steps_of(&self, t: &mut Tables, state: &[Local], inst: u32, both_sides: bool, out: &mut Vec<Step>) {
        let Some(&l) = state.get(inst as usize) else {
            return;
        };
        let p = self.pending_id(t, inst, l);
        if p == NO_PENDING {
            return;
        }
        let kind = t.pends[p as usize].kind.clone();
        match kind {
            PendKind::Send { cell, chan } => {
                for &r in &self.prog.receivers[chan as usize] {
                    if r == inst {
                        continue;
                    }
                    let rp = self.pending_id(t, r, state[r as usize]);
                    if rp != NO_PENDING
                        && matches!(t.pends[rp as usize].kind, PendKind::Recv { cell: c, .. } if c == cell)
                    {
                        let a = self.meet(t, p, rp);
                        out.push(Step {
                            action: a,
                            touched: t.actions[a.index()].touched.clone(),
                        });
                    }
                }
            }
            PendKind::Recv { cell, chan } => {
                if !both_sides {
                    return;
                }
                for &s in &self.prog.senders[chan as usize] {
                    if s == inst {
                        continue;
                    }
                    let sp = self.pending_id(t, s, state[s as usize]);
                    if sp != NO_PENDING
                        && matches!(t.pends[sp as usize].kind, PendKind::Send { cell: c, .. } if c == cell)
                    {
                        let a = self.meet(t, sp, p);
                        out.push(Step {
                            action: a,
                            touched: t.actions[a.index()].touched.clone(),
                        });
                    }
                }
            }
            kind => {
                if Self::single_enabled(&kind, inst, |c| {
                    state.get(c.index()).copied().unwrap_or(Local(u32::MAX))
                }) {
                    let pend = &t.pends[p as usize];
                    for &a in &pend.actions {
                        out.push(Step {
                            action: a,
                            touched: pend.touched.clone(),
                        });
                    }
                }
            }
        }
    }

    /// Fires `a` on `before` (parallel to its touch set) into `after`.
    fn fire_action(
        &self,
        t: &mut Tables,
        a: ActionId,
        before: &[Local],
        after: &mut [Local],
    ) -> Result<bool, ModelError> {
        let info = t
            .actions
            .get(a.index())
            .ok_or_else(|| internal("unknown action"))?;
        let touched = info.touched.clone();
        let kind = info.kind;
        if touched.len() != before.len() || touched.len() != after.len() {
            return Err(internal("before/after slices do not match the touch set"));
        }
        after.copy_from_slice(before);
        let pos = |c: CompId| touched.binary_search(&c).ok();
        match kind {
            ActKind::Single { pend, branch } => {
                let p = t.pends[pend as usize].clone();
                let me = CompId(p.inst);
                let pm = pos(me).ok_or_else(|| internal("owner not touched"))?;
                if self.pending_id(t, p.inst, before[pm]) != pend {
                    return Ok(false);
                }
                let Some(PState::Run { pc, locals }) = self.state(t, p.inst, before[pm]) else {
                    return Ok(false);
                };
                let (pc, mut locals) = (*pc, locals.clone());
                let inst = &self.prog.instances[p.inst as usize];
                let ev = Eval::new(self.prog, inst).ok_or_else(|| internal("definition"))?;
                let op = ev
                    .def
                    .code
                    .get(pc as usize)
                    .ok_or_else(|| internal("control point"))?;
                let holder = Local(p.inst + 1);
                let fault = |what: String| Outcome::Fault(interp::fault_message(self.prog, op, &what));
                let cname = |c: CompId| self.prog.comps[c.index()].name.clone();
                let outcome = match p.kind {
                    PendKind::Lock(m) => {
                        let i = pos(m).ok_or_else(|| internal("mutex not touched"))?;
                        if before[i] == FREE {
                            after[i] = holder;
                            Outcome::Continue(pc + 1, locals)
                        } else if before[i] == holder {
                            fault(format!(
                                "lock of `{}`, which this process already holds",
                                cname(m)
                            ))
                        } else {
                            return Ok(false);
                        }
                    }
                    PendKind::Unlock(m) => {
                        let i = pos(m).ok_or_else(|| internal("mutex not touched"))?;
                        if before[i] == holder {
                            after[i] = FREE;
                            Outcome::Continue(pc + 1, locals)
                        } else if before[i] == FREE {
                            fault(format!("unlock of `{}`, which is not locked", cname(m)))
                        } else {
                            let other = self
                                .prog
                                .instances
                                .get(before[i].0 as usize - 1)
                                .map(|x| x.name.clone())
                                .unwrap_or_default();
                            fault(format!(
                                "unlock of `{}`, which is held by {other}, not by this process",
                                cname(m)
                            ))
                        }
                    }
                    PendKind::Wait(s) => {
                        let i = pos(s).ok_or_else(|| internal("semaphore not touched"))?;
                        if before[i].0 == 0 {
                            return Ok(false);
                        }
                        after[i] = Local(before[i].0 - 1);
                        Outcome::Continue(pc + 1, locals)
                    }
                    PendKind::Signal(s) => {
                        let i = pos(s).ok_or_else(|| internal("semaphore not touched"))?;
                        match before[i].0.checked_add(1) {
                            Some(v) => {
                                after[i] = Local(v);
                                Outcome::Continue(pc + 1, locals)
                            }
                            None => fault(format!("semaphore `{}` overflows", cname(s))),
                        }
                    }
                    PendKind::Spawn(q) => match pos(q) {
                        Some(i) if before[i] == IDLE => {
                            let qi = &self.prog.instances[q.index()];
                            let qev = Eval::new(self.prog, qi).ok_or_else(|| internal("definition"))?;
                            let ql = vec![0i64; qev.def.slots.len()].into_boxed_slice();
                            let s = interp::settle(&qev, 0, ql);
                            after[i] = Self::intern_settled(t, qi.def, s)?;
                            Outcome::Continue(pc + 1, locals)
                        }
                        _ => fault(format!("spawn of `{}`, which was already started", cname(q))),
                    },
                    PendKind::Join(q) => {
                        let i = pos(q).ok_or_else(|| internal("joined process not touched"))?;
                        if before[i] != DONE {
                            return Ok(false);
                        }
                        Outcome::Continue(pc + 1, locals)
                    }
                    PendKind::Data => {
                        let mut mem = TouchedMem {
                            prog: self.prog,
                            touched: &touched,
                            vals: after,
                        };
                        match ev.data(op, &mut locals, &mut mem) {
                            Ok(Flow::Next) => Outcome::Continue(pc + 1, locals),
                            Ok(Flow::Goto(to)) => Outcome::Continue(to, locals),
                            Err(m) => {
                                after.copy_from_slice(before);
                                fault(m)
                            }
                        }
                    }
                    PendKind::Choose(_) => match &op.kind {
                        OpKind::Choose(ts) => match ts.get(branch as usize) {
                            Some(&to) => Outcome::Continue(to, locals),
                            None => return Err(internal("choice branch")),
                        },
                        _ => return Err(internal("choice")),
                    },
                    PendKind::Send { .. } | PendKind::Recv { .. } => {
                        return Err(internal("rendezvous as a single"))
                    }
                };
                after[pm] = self.finish(t, inst, &ev, outcome)?;
                Ok(true)
            }
            ActKind::Meet { send, recv } => {
                let (s, r) = (t.pends[send as usize].clone(), t.pends[recv as usize].clone());
                let (Some(ps), Some(pr)) = (pos(CompId(s.inst)), pos(CompId(r.inst))) else {
                    return Err(internal("rendezvous parties not touched"));
                };
                if self.pending_id(t, s.inst, before[ps]) != send
                    || self.pending_id(t, r.inst, before[pr]) != recv
                {
                    return Ok(false);
                }
                let (Some(PState::Run { pc: spc, locals: sl }), Some(PState::Run { pc: rpc, locals: rl })) = (
                    self.state(t, s.inst, before[ps]),
                    self.state(t, r.inst, before[pr]),
                ) else {
                    return Ok(false);
                };
                let (spc, mut sl, rpc, mut rl) = (*spc, sl.clone(), *rpc, rl.clone());
                let sinst = &self.prog.instances[s.inst as usize];
                let rinst = &self.prog.instances[r.inst as usize];
                let sev = Eval::new(self.prog, sinst).ok_or_else(|| internal("definition"))?;
                let rev = Eval::new(self.prog, rinst).ok_or_else(|| internal("definition"))?;
                let sop = sev
                    .def
                    .code
                    .get(spc as usize)
                    .ok_or_else(|| internal("control point"))?;
                let rop = rev
                    .def
                    .code
                    .get(rpc as usize)
                    .ok_or_else(|| internal("control point"))?;
                let (OpKind::Send { chan, value }, OpKind::Recv { target, .. }) = (&sop.kind, &rop.kind)
                else {
                    return Err(internal("rendezvous statements"));
                };
                let ty = self.prog.chans.get(chan.decl as usize).and_then(|c| c.ty);
                let mut mem = TouchedMem {
                    prog: self.prog,
                    touched: &touched,
                    vals: after,
                };
                let sent = match value {
                    None => Ok(0),
                    Some(e) => sev.expr(e, &sl, &mem).and_then(|v| match ty {
                        Some(ty) if !ty.contains(v) => Err(format!(
                            "the value {} sent on `{}` is outside its range {}",
                            ty.show(v),
                            self.prog.cell_name(match s.kind {
                                PendKind::Send { cell, .. } => cell,
                                _ => 0,
                            }),
                            ty.describe()
                        )),
                        _ => Ok(v),
                    }),
                };
                let (so, ro) = match sent {
                    Err(m) => (Outcome::Fault(interp::fault_message(self.prog, sop, &m)), None),
                    Ok(v) => {
                        let stored = match target {
                            None => Ok(()),
                            Some(lv) => rev.store(lv, v, &mut rl, &mut mem),
                        };
                        let ro = match stored {
                            Ok(()) => Outcome::Continue(rpc + 1, std::mem::take(&mut rl)),
                            Err(m) => Outcome::Fault(interp::fault_message(self.prog, rop, &m)),
                        };
                        (Outcome::Continue(spc + 1, std::mem::take(&mut sl)), Some(ro))
                    }
                };
                after[ps] = self.finish(t, sinst, &sev, so)?;
                if let Some(ro) = ro {
                    after[pr] = self.finish(t, rinst, &rev, ro)?;
                }
                Ok(true)
            }
        }
    }

    /// Folds the local code after a step and interns the resulting local state.
    fn finish(
        &self,
        t: &mut Tables,
        inst: &Instance,
        ev: &Eval<'_>,
        o: Outcome,
    ) -> Result<Local, ModelError> {
        let s = match o {
            Outcome::Continue(pc, locals) => interp::settle(ev, pc, locals),
            Outcome::Fault(m) => Settled::Fault(m),
        };
        Self::intern_settled(t, inst.def, s)
    }

    /// For the net export: the pending statement of `inst` at `l`, if any.
    pub(crate) fn pending(&self, inst: u32, l: Local) -> Option<Pending> {
        let mut t = self.tables.borrow_mut();
        let p = self.pending_id(&mut t, inst, l);
        if p == NO_PENDING {
            None
        } else {
            t.pends.get(p as usize).cloned()
        }
    }

    /// For the net export: the rendezvous action of a sender and a receiver at these local
    /// states, if they meet on one channel cell.
    pub(crate) fn meet_of(&self, s: u32, ls: Local, r: u32, lr: Local) -> Option<Step> {
        let mut t = self.tables.borrow_mut();
        let sp = self.pending_id(&mut t, s, ls);
        let rp = self.pending_id(&mut t, r, lr);
        if sp == NO_PENDING || rp == NO_PENDING {
            return None;
        }
        match (&t.pends[sp as usize].kind, &t.pends[rp as usize].kind) {
            (PendKind::Send { cell: a, .. }, PendKind::Recv { cell: b, .. }) if a == b => {
                let a = self.meet(&mut t, sp, rp);
                Some(Step {
                    action: a,
                    touched: t.actions[a.index()].touched.clone(),
                })
            }
            _ => None,
        }
    }

    /// For the net export: the instances that may receive on channel declaration `chan`.
    pub(crate) fn receivers(&self, chan: u32) -> &'p [u32] {
        self.prog
            .receivers
            .get(chan as usize)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
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
                let def = &self.prog.defs[self.prog.instances[inst as usize].def as usize];
                let vals: Vec<String> = def
                    .slots
                    .iter()
                    .zip(locals.iter())
                    .map(|(s, v)| match &s.ty {
                        Some(ty) => format!("{}={}", s.name, ty.show(*v)),
                        None => format!("{}={v}", s.name),
                    })
                    .collect();
                let mut s = format!("at {}:{} `{}`", op.pos.line, op.pos.col, op.text);
                if !vals.is_empty() {
                    s.push_str(" with ");
                    s.push_str(&vals.join(", "));
                }
                s
            }
        }
    }
}

impl System for ProgramSystem<'_> {
    fn num_components(&self) -> usize {
        self.prog.comps.len()
    }

    fn component_name(&self, c: CompId) -> String {
        self.prog
            .comps
            .get(c.index())
            .map(|x| x.name.clone())
            .unwrap_or_default()
    }

    fn component_kind(&self, c: CompId) -> &'static str {
        match self.prog.comps.get(c.index()).map(|x| x.kind) {
            Some(CompKind::Process(_)) => "process",
            Some(CompKind::Mutex(_)) => "mutex",
            Some(CompKind::Sem(_)) => "semaphore",
            Some(CompKind::Var(_)) => "variable",
            None => "unknown",
        }
    }

    fn initial_state(&self) -> Vec<Local> {
        self.initial.clone()
    }

    fn enabled_steps(&self, state: &[Local], out: &mut Vec<Step>) {
        let mut t = self.tables.borrow_mut();
        for inst in 0..self.prog.instances.len() as u32 {
            self.steps_of(&mut t, state, inst, false, out);
        }
    }

    fn enabled_steps_touching(&self, state: &[Local], c: CompId, out: &mut Vec<Step>) {
        let mut t = self.tables.borrow_mut();
        let start = out.len();
        let mut found = Vec::new();
        for &inst in self
            .prog
            .touchers
            .get(c.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
        {
            found.clear();
            self.steps_of(&mut t, state, inst, true, &mut found);
            for s in found.drain(..) {
                if s.touched.contains(&c) && !out[start..].iter().any(|o| o.action == s.action) {
                    out.push(s);
                }
            }
        }
    }

    fn fire(&self, step: &Step, before: &[Local], after: &mut [Local]) -> Result<bool, ModelError> {
        let mut t = self.tables.borrow_mut();
        let key: FireKey = (step.action, SmallVec::from_slice(before));
        if let Some(hit) = t.fire_cache.get(&key) {
            if hit.len() == after.len() {
                after.copy_from_slice(hit);
                return Ok(true);
            }
        }
        debug_assert!(
            t.actions
                .get(step.action.index())
                .is_some_and(|a| a.touched == step.touched),
            "[qpor internal bug] a step's touch set differs from its action's"
        );
        let ok = self.fire_action(&mut t, step.action, before, after)?;
        if ok {
            if t.fire_cache.len() >= FIRE_CACHE_LIMIT {
                t.fire_cache.clear();
            }
            t.fire_cache.insert(key, SmallVec::from_slice(after));
        }
        Ok(ok)
    }

    /// Actions are anchored at their owner process; a rendezvous at its sender. The
    /// receive statements a sender may meet are those interned so far: every local state of
    /// a receiver that an unfolding can pair with the sender has been visited by
    /// `enabled_steps`, which interns its pending statement.
    fn anchored_steps(&self, c: CompId, l: Local, out: &mut Vec<Step>) -> bool {
        if !matches!(
            self.prog.comps.get(c.index()).map(|x| x.kind),
            Some(CompKind::Process(_))
        ) {
            return true;
        }
        let inst = c.0;
        let mut t = self.tables.borrow_mut();
        let p = self.pending_id(&mut t, inst, l);
        if p == NO_PENDING {
            return true;
        }
        match t.pends[p as usize].kind.clone() {
            PendKind::Send { cell, .. } => {
                let recvs = t.recv_by_cell.get(&cell).cloned().unwrap_or_default();
                for rp in recvs {
                    if t.pends[rp as usize].inst == inst {
                        continue;
                    }
                    let a = self.meet(&mut t, p, rp);
                    out.push(Step {
                        action: a,
                        touched: t.actions[a.index()].touched.clone(),
                    });
                }
            }
            // A rendezvous is anchored at the sender, but the tables grow lazily: a receive
            // interned after its sender was asked for its anchored steps would be missed
            // by an engine that asked once (the prefix builder asks once per condition).
            // So the receiver also lists its meetings with the senders interned so far;
            // whichever of the two is asked last finds the pair.
            PendKind::Recv { cell, .. } => {
                let sends = t.send_by_cell.get(&cell).cloned().unwrap_or_default();
                for sp in sends {
                    if t.pends[sp as usize].inst == inst {
                        continue;
                    }
                    let a = self.meet(&mut t, sp, p);
                    out.push(Step {
                        action: a,
                        touched: t.actions[a.index()].touched.clone(),
                    });
                }
            }
            _ => {
                let pend = &t.pends[p as usize];
                for &a in &pend.actions {
                    out.push(Step {
                        action: a,
                        touched: pend.touched.clone(),
                    });
                }
            }
        }
        true
    }

    fn may_enable(&self, step: &Step, index: usize, l: Local) -> bool {
        let mut t = self.tables.borrow_mut();
        let Some(info) = t.actions.get(step.action.index()) else {
            return true;
        };
        let c = step.touched[index];
        let pends: SmallVec<[u32; 2]> = match info.kind {
            ActKind::Single { pend, .. } => smallvec::smallvec![pend],
            ActKind::Meet { send, recv } => smallvec::smallvec![send, recv],
        };
        for pid in pends {
            let (inst, kind) = {
                let pend = &t.pends[pid as usize];
                (pend.inst, pend.kind.clone())
            };
            if c == CompId(inst) {
                return self.pending_id(&mut t, inst, l) == pid;
            }
            match kind {
                PendKind::Lock(m) if m == c => return l == FREE || l == Local(inst + 1),
                PendKind::Wait(s) if s == c => return l.0 > 0,
                PendKind::Join(q) if q == c => return l == DONE,
                _ => {}
            }
        }
        true
    }

    fn action_name(&self, a: ActionId) -> String {
        self.tables
            .borrow()
            .actions
            .get(a.index())
            .map(|x| x.name.clone())
            .unwrap_or_else(|| format!("action {}", a.0))
    }

    fn action_owner(&self, a: ActionId) -> Option<CompId> {
        self.tables.borrow().actions.get(a.index()).map(|x| x.owner)
    }

    fn local_name(&self, c: CompId, l: Local) -> String {
        let p = self.prog;
        match p.comps.get(c.index()).map(|x| x.kind) {
            Some(CompKind::Process(i)) => self.process_local_name(&self.tables.borrow(), i, l),
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

    fn has_final_states(&self) -> bool {
        true
    }

    fn is_final(&self, c: CompId, l: Local) -> bool {
        match self.prog.comps.get(c.index()).map(|x| x.kind) {
            Some(CompKind::Process(_)) => l == IDLE || l == DONE,
            _ => true,
        }
    }

    fn fault(&self, c: CompId, l: Local) -> Option<String> {
        let Some(CompKind::Process(i)) = self.prog.comps.get(c.index()).map(|x| x.kind) else {
            return None;
        };
        let t = self.tables.borrow();
        match self.state(&t, i, l)? {
            PState::Fault(id) => t.faults.get(*id as usize).cloned(),
            _ => None,
        }
    }
}
