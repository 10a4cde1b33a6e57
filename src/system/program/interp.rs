//! The interpreter of compiled code: expression evaluation, data operations, the
//! resolution of what a statement touches, and the folding of local computation.
//!
//! Folding ([`settle`]) is what keeps local code out of the event structure: after a
//! visible step, a process runs its local operations (assignments to locals, branches on
//! locals, jumps, resets, local asserts) until it reaches an operation that touches a
//! shared component, or its end. A data operation whose shared accesses all fall outside
//! their arrays (so it touches nothing, and will fault when run) is local too, and so is
//! one whose cells are all guarded by a mutex (`guards.rs`) and touched by the step just
//! taken: the step that took the mutex carries them. The run is bounded by
//! [`MAX_LOCAL_STEPS`]; an overrun becomes a fault.
//!
//! Every failure is a message (`Err(String)`), turned into a fault state by the caller;
//! nothing here panics on a well-formed or ill-formed program.

use super::code::{BinOp, CellRef, Expr, Instance, LValue, Op, OpKind, ProcDef, UnOp};
use super::Program;
use crate::system::{CompId, TouchSet};

/// How many local operations a process may run between two visible steps before the run is
/// declared a local infinite loop and the process faults. Generous: a million operations
/// take a few milliseconds, and real local loops (the `pi` benchmark's series) are far
/// shorter.
pub const MAX_LOCAL_STEPS: u64 = 1_000_000;

/// Applies a unary operator.
pub(crate) fn apply_unary(op: UnOp, v: i64) -> Result<i64, String> {
    match op {
        UnOp::Neg => v.checked_neg().ok_or_else(|| "arithmetic overflow".to_string()),
        UnOp::Not => Ok((v == 0) as i64),
    }
}

/// Applies a binary operator to evaluated operands (`&&` and `||` included, without
/// short circuit; [`Eval::expr`] short-circuits before calling this).
pub(crate) fn apply_binary(op: BinOp, a: i64, b: i64) -> Result<i64, String> {
    let overflow = || "arithmetic overflow".to_string();
    Ok(match op {
        BinOp::Or => (a != 0 || b != 0) as i64,
        BinOp::And => (a != 0 && b != 0) as i64,
        BinOp::Eq => (a == b) as i64,
        BinOp::Ne => (a != b) as i64,
        BinOp::Lt => (a < b) as i64,
        BinOp::Le => (a <= b) as i64,
        BinOp::Gt => (a > b) as i64,
        BinOp::Ge => (a >= b) as i64,
        BinOp::Add => a.checked_add(b).ok_or_else(overflow)?,
        BinOp::Sub => a.checked_sub(b).ok_or_else(overflow)?,
        BinOp::Mul => a.checked_mul(b).ok_or_else(overflow)?,
        BinOp::Div => {
            if b == 0 {
                return Err("division by zero".into());
            }
            a.checked_div_euclid(b).ok_or_else(overflow)?
        }
        BinOp::Mod => {
            if b == 0 {
                return Err("division by zero (in `%`)".into());
            }
            a.checked_rem_euclid(b).ok_or_else(overflow)?
        }
        BinOp::Pow => {
            if b < 0 {
                return Err(format!("negative exponent {b}"));
            }
            let e = u32::try_from(b).map_err(|_| overflow())?;
            a.checked_pow(e).ok_or_else(overflow)?
        }
    })
}

/// Access to the shared cells a step touches.
pub(crate) trait Memory {
    /// The value of shared cell `c`, `None` if the step does not touch it.
    fn read(&self, c: CompId) -> Option<i64>;
    /// Stores `v` (already range-checked) into `c`; `false` if the step does not touch it.
    fn write(&mut self, c: CompId, v: i64) -> bool;
}

/// The memory of purely local computation: no shared cell at all.
pub(crate) struct NoMemory;

impl Memory for NoMemory {
    fn read(&self, _c: CompId) -> Option<i64> {
        None
    }
    fn write(&mut self, _c: CompId, _v: i64) -> bool {
        false
    }
}

/// Evaluation context: the program, the process definition and the instance index.
pub(crate) struct Eval<'p> {
    pub prog: &'p Program,
    pub def: &'p ProcDef,
    pub index: i64,
}

/// Where control goes after a data operation.
pub(crate) enum Flow {
    Next,
    Goto(u32),
}

/// Entry `index` of a table of declarations, which has one for every index the compiler
/// hands out; an index beyond it is the `what` of an internal error.
fn declared<'t, T>(table: &'t [T], index: u32, what: &str) -> Result<&'t T, String> {
    table
        .get(index as usize)
        .ok_or_else(|| format!("[qpor internal bug] {what}"))
}

const INTERNAL: &str = "[qpor internal bug] a shared cell outside the step's touch set";

impl<'p> Eval<'p> {
    pub(super) fn new(prog: &'p Program, inst: &Instance) -> Option<Self> {
        Some(Eval {
            prog,
            def: prog.defs.get(inst.def as usize)?,
            index: inst.index,
        })
    }

    fn local(&self, locals: &[i64], slot: u32) -> Result<i64, String> {
        locals
            .get(slot as usize)
            .copied()
            .ok_or_else(|| "[qpor internal bug] local slot out of range".to_string())
    }

    /// The slot of cell `i` of local array `array`.
    fn local_cell(&self, array: u32, i: i64) -> Result<u32, String> {
        let a = declared(&self.def.arrays, array, "local array")?;
        if i < 0 || i >= a.len as i64 {
            return Err(format!(
                "index {i} is out of range for `{}` (size {})",
                a.name, a.len
            ));
        }
        Ok(a.base + i as u32)
    }

    /// The component of cell `i` of shared variable `var`.
    pub(super) fn var_cell(&self, var: u32, i: Option<i64>) -> Result<CompId, String> {
        let d = declared(&self.prog.vars, var, "variable")?;
        Ok(CompId(d.base.0 + cell_offset(d.len, i, &d.name)?))
    }

    pub(super) fn expr(&self, e: &Expr, locals: &[i64], mem: &dyn Memory) -> Result<i64, String> {
        match e {
            Expr::Const(v) => Ok(*v),
            Expr::Index => Ok(self.index),
            Expr::Local(s) => self.local(locals, *s),
            Expr::LocalElem { array, index } => {
                let i = self.expr(index, locals, mem)?;
                self.local(locals, self.local_cell(*array, i)?)
            }
            Expr::Shared(v) => mem
                .read(self.var_cell(*v, None)?)
                .ok_or_else(|| INTERNAL.to_string()),
            Expr::SharedElem { var, index } => {
                let i = self.expr(index, locals, mem)?;
                mem.read(self.var_cell(*var, Some(i))?)
                    .ok_or_else(|| INTERNAL.to_string())
            }
            Expr::Unary(op, a) => apply_unary(*op, self.expr(a, locals, mem)?),
            Expr::Binary(BinOp::And, a, b) => {
                Ok((self.expr(a, locals, mem)? != 0 && self.expr(b, locals, mem)? != 0) as i64)
            }
            Expr::Binary(BinOp::Or, a, b) => {
                Ok((self.expr(a, locals, mem)? != 0 || self.expr(b, locals, mem)? != 0) as i64)
            }
            Expr::Binary(op, a, b) => {
                let x = self.expr(a, locals, mem)?;
                let y = self.expr(b, locals, mem)?;
                apply_binary(*op, x, y)
            }
        }
    }

    /// Stores `v` into `lv`, checking the declared range.
    pub(super) fn store(
        &self,
        lv: &LValue,
        v: i64,
        locals: &mut [i64],
        mem: &mut dyn Memory,
    ) -> Result<(), String> {
        match lv {
            LValue::Local(s) => {
                let info = self
                    .def
                    .slots
                    .get(*s as usize)
                    .ok_or_else(|| "[qpor internal bug] local slot".to_string())?;
                if let Some(ty) = &info.ty {
                    if !ty.contains(v) {
                        return Err(format!(
                            "the value {} is outside the range {} of `{}`",
                            v,
                            ty.describe(),
                            info.name
                        ));
                    }
                }
                *locals
                    .get_mut(*s as usize)
                    .ok_or_else(|| "[qpor internal bug] local slot".to_string())? = v;
                Ok(())
            }
            LValue::LocalElem { array, index } => {
                let i = self.expr(index, locals, mem)?;
                let slot = self.local_cell(*array, i)?;
                let a = &self.def.arrays[*array as usize];
                if !a.ty.contains(v) {
                    return Err(format!(
                        "the value {} is outside the range {} of `{}[{}]`",
                        v,
                        a.ty.describe(),
                        a.name,
                        i
                    ));
                }
                *locals
                    .get_mut(slot as usize)
                    .ok_or_else(|| "[qpor internal bug] local slot".to_string())? = v;
                Ok(())
            }
            LValue::Shared(var) | LValue::SharedElem { var, .. } => {
                let i = match lv {
                    LValue::SharedElem { index, .. } => Some(self.expr(index, locals, mem)?),
                    _ => None,
                };
                let c = self.var_cell(*var, i)?;
                let d = &self.prog.vars[*var as usize];
                if !d.ty.contains(v) {
                    let cell = match i {
                        Some(i) => format!("{}[{i}]", d.name),
                        None => d.name.clone(),
                    };
                    return Err(format!(
                        "the value {} is outside the range {} of `{}`",
                        d.ty.show(v),
                        d.ty.describe(),
                        cell
                    ));
                }
                if mem.write(c, v) {
                    Ok(())
                } else {
                    Err(INTERNAL.to_string())
                }
            }
        }
    }

    /// Runs a data operation (assign, branch, assert, reset, jump).
    pub(super) fn data(&self, op: &Op, locals: &mut [i64], mem: &mut dyn Memory) -> Result<Flow, String> {
        match &op.kind {
            OpKind::Assign { target, value } => {
                let v = self.expr(value, locals, mem)?;
                self.store(target, v, locals, mem)?;
                Ok(Flow::Next)
            }
            OpKind::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                let c = self.expr(cond, locals, mem)?;
                Ok(Flow::Goto(if c != 0 { *then_pc } else { *else_pc }))
            }
            OpKind::Assert(cond) => {
                if self.expr(cond, locals, mem)? != 0 {
                    Ok(Flow::Next)
                } else {
                    Err(format!("assertion failed: `{}`", op.text))
                }
            }
            OpKind::Reset { first, count } => {
                let (a, b) = (*first as usize, *first as usize + *count as usize);
                match locals.get_mut(a..b) {
                    Some(s) => s.fill(0),
                    None => return Err("[qpor internal bug] reset out of range".into()),
                }
                Ok(Flow::Next)
            }
            OpKind::Jump(t) => Ok(Flow::Goto(*t)),
            _ => Err("[qpor internal bug] not a data operation".into()),
        }
    }

    /// The shared cells an expression may read, appended to `out`. Cells whose index cannot
    /// be computed or is out of range are left out: reading them faults at run time, so the
    /// step never actually touches them.
    fn cells_of(&self, e: &Expr, locals: &[i64], out: &mut TouchSet) {
        match e {
            Expr::Const(_) | Expr::Index | Expr::Local(_) => {}
            Expr::LocalElem { index, .. } => self.cells_of(index, locals, out),
            Expr::Shared(v) => self.var_cell_of(*v, None, locals, out),
            Expr::SharedElem { var, index } => self.var_cell_of(*var, Some(index), locals, out),
            Expr::Unary(_, a) => self.cells_of(a, locals, out),
            Expr::Binary(_, a, b) => {
                self.cells_of(a, locals, out);
                self.cells_of(b, locals, out);
            }
        }
    }

    /// The cell of shared variable `var` at `index` (none for a scalar), appended to `out`
    /// unless the index cannot be computed or is out of range.
    fn var_cell_of(&self, var: u32, index: Option<&Expr>, locals: &[i64], out: &mut TouchSet) {
        // Indices of shared cells read no shared variable (a static check).
        let i = match index.map(|e| self.expr(e, locals, &NoMemory)).transpose() {
            Ok(i) => i,
            Err(_) => return,
        };
        if let Ok(c) = self.var_cell(var, i) {
            out.push(c);
        }
    }

    fn cells_of_lvalue(&self, lv: &LValue, locals: &[i64], out: &mut TouchSet) {
        match lv {
            LValue::Local(_) => {}
            LValue::LocalElem { index, .. } => self.cells_of(index, locals, out),
            LValue::Shared(v) => self.var_cell_of(*v, None, locals, out),
            LValue::SharedElem { var, index } => self.var_cell_of(*var, Some(index), locals, out),
        }
    }

    /// The shared cells a data operation, a send or a receive touches, sorted and unique.
    pub(super) fn shared_cells(&self, op: &Op, locals: &[i64]) -> TouchSet {
        let mut out = TouchSet::new();
        match &op.kind {
            OpKind::Assign { target, value } => {
                self.cells_of_lvalue(target, locals, &mut out);
                self.cells_of(value, locals, &mut out);
            }
            OpKind::Branch { cond, .. } | OpKind::Assert(cond) => self.cells_of(cond, locals, &mut out),
            OpKind::Send { value: Some(v), .. } => self.cells_of(v, locals, &mut out),
            OpKind::Recv { target: Some(t), .. } => self.cells_of_lvalue(t, locals, &mut out),
            _ => {}
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn index_value(&self, c: &CellRef, locals: &[i64]) -> Result<Option<i64>, String> {
        c.index
            .as_ref()
            .map(|e| self.expr(e, locals, &NoMemory))
            .transpose()
    }

    /// The component of a mutex or semaphore cell (`sem` selects the table).
    pub(super) fn resource(&self, c: &CellRef, sem: bool, locals: &[i64]) -> Result<CompId, String> {
        let table = if sem { &self.prog.sems } else { &self.prog.mutexes };
        let d = declared(table, c.decl, "resource")?;
        let off = cell_offset(d.len, self.index_value(c, locals)?, &d.name)?;
        Ok(CompId(d.base.0 + off))
    }

    /// The component of the process instance a spawn or join names.
    pub(super) fn process(&self, c: &CellRef, locals: &[i64]) -> Result<CompId, String> {
        let d = declared(&self.prog.defs, c.decl, "process")?;
        match (d.index_lo, self.index_value(c, locals)?) {
            (None, _) => Ok(d.first),
            (Some(lo), Some(k)) => {
                let off = k as i128 - lo as i128;
                if off < 0 || off >= d.count as i128 {
                    Err(format!(
                        "process `{}` has no instance {k} (its instances are {lo}..={})",
                        d.name,
                        lo + d.count as i64 - 1
                    ))
                } else {
                    Ok(CompId(d.first.0 + off as u32))
                }
            }
            (Some(_), None) => Err("[qpor internal bug] process index".into()),
        }
    }

    /// The global number of the channel cell a send or receive names.
    pub(super) fn channel(&self, c: &CellRef, locals: &[i64]) -> Result<u32, String> {
        let d = declared(&self.prog.chans, c.decl, "channel")?;
        Ok(d.first_cell + cell_offset(d.len, self.index_value(c, locals)?, &d.name)?)
    }

    /// Checks that a visible operation's targets exist (the fold stops before it only then).
    fn targets_exist(&self, op: &Op, locals: &[i64]) -> Result<(), String> {
        match &op.kind {
            OpKind::Lock(c) | OpKind::Unlock(c) => self.resource(c, false, locals).map(|_| ()),
            OpKind::Wait(c) | OpKind::Signal(c) => self.resource(c, true, locals).map(|_| ()),
            OpKind::Spawn(c) | OpKind::Join(c) => self.process(c, locals).map(|_| ()),
            OpKind::Send { chan, .. } | OpKind::Recv { chan, .. } => self.channel(chan, locals).map(|_| ()),
            _ => Ok(()),
        }
    }
}

/// The offset of cell `i` in an array of `len` cells called `name`; 0 for a scalar
/// (`len` is `None`), whatever `i`.
fn cell_offset(len: Option<u32>, i: Option<i64>, name: &str) -> Result<u32, String> {
    match (len, i) {
        (None, _) => Ok(0),
        (Some(len), Some(i)) if i >= 0 && i < len as i64 => Ok(i as u32),
        (Some(len), i) => Err(format!(
            "index {} is out of range for `{name}` (size {len})",
            i.unwrap_or(-1)
        )),
    }
}

/// Where a process stands after folding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Stopped before the visible operation at `pc`.
    At { pc: u32, locals: Box<[i64]> },
    /// Ran to its end.
    Done,
    /// A run-time fault, with its full message.
    Fault(String),
}

/// The message of a fault at `op`: `file:line:col: what`.
pub(crate) fn fault_message(prog: &Program, op: &Op, what: &str) -> String {
    format!("{}:{}:{}: {}", prog.name, op.pos.line, op.pos.col, what)
}

/// The shared cells of the step a process just took, through which [`settle`] folds the
/// accesses to guarded cells that follow it (`guards.rs`).
pub(crate) struct GuardedCells<'a> {
    /// The step's touch set (sorted).
    pub touched: &'a [CompId],
    /// Their values after the step, read and written by the folded accesses.
    pub mem: &'a mut dyn Memory,
}

/// Folds local computation from `pc` (see the module doc), and with `guarded` the data
/// operations whose shared cells are all guarded and touched by the step just taken.
pub(crate) fn settle(
    ev: &Eval<'_>,
    mut pc: u32,
    mut locals: Box<[i64]>,
    mut guarded: Option<GuardedCells<'_>>,
) -> Settled {
    let code = &ev.def.code;
    let mut steps = 0u64;
    loop {
        let Some(op) = code.get(pc as usize) else {
            return Settled::Fault(format!("[qpor internal bug] control point {pc} out of the code"));
        };
        let mut on_cells = false;
        let local_data = match &op.kind {
            OpKind::End => return Settled::Done,
            OpKind::Jump(_) | OpKind::Reset { .. } => true,
            OpKind::Assign { .. } | OpKind::Branch { .. } | OpKind::Assert(_) if op.shared => {
                let cells = ev.shared_cells(op, &locals);
                on_cells = !cells.is_empty();
                !on_cells
                    || guarded.as_ref().is_some_and(|g| {
                        cells
                            .iter()
                            .all(|c| ev.prog.folds(*c) && g.touched.binary_search(c).is_ok())
                    })
            }
            OpKind::Assign { .. } | OpKind::Branch { .. } | OpKind::Assert(_) => true,
            OpKind::Choose(_) => return Settled::At { pc, locals },
            _ => match ev.targets_exist(op, &locals) {
                Ok(()) => return Settled::At { pc, locals },
                Err(m) => return Settled::Fault(fault_message(ev.prog, op, &m)),
            },
        };
        if !local_data {
            return Settled::At { pc, locals };
        }
        let mem: &mut dyn Memory = match guarded.as_mut() {
            Some(g) if on_cells => g.mem,
            _ => &mut NoMemory,
        };
        match ev.data(op, &mut locals, mem) {
            Ok(Flow::Next) => pc += 1,
            Ok(Flow::Goto(t)) => pc = t,
            Err(m) => return Settled::Fault(fault_message(ev.prog, op, &m)),
        }
        steps += 1;
        if steps > MAX_LOCAL_STEPS {
            return Settled::Fault(fault_message(
                ev.prog,
                op,
                &format!(
                    "the process ran {MAX_LOCAL_STEPS} local steps without reaching a statement that touches a shared component (a local infinite loop?)"
                ),
            ));
        }
    }
}
