//! The compiled form of a program: declarations laid out as components, and one flat list
//! of operations (a control-flow graph with explicit jump targets) per process definition.
//!
//! The front end (`parse::proc`) produces it after every static check has passed, so the
//! interpreter may rely on names being resolved and types agreeing; it still never panics
//! on a broken invariant and reports a fault instead.
//!
//! # Invariants
//! - Every jump target and every [`OpKind::Choose`] branch is a valid index into the code,
//!   and the code of every definition ends with [`OpKind::End`].
//! - An index expression of a shared cell, mutex, semaphore, channel or process reads no
//!   shared variable, so a process's own locals decide which components a statement touches.
//! - Booleans are the integers 0 and 1.

use crate::source::Pos;
use crate::system::CompId;

/// Index of a local scalar slot in a process's locals vector.
pub(crate) type Slot = u32;

/// The values a variable may hold: `lo..=hi` (booleans are `0..=1` with `boolean` set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValTy {
    pub lo: i64,
    pub hi: i64,
    pub boolean: bool,
}

impl ValTy {
    pub(crate) const BOOL: ValTy = ValTy {
        lo: 0,
        hi: 1,
        boolean: true,
    };

    /// The values of `int`: 2^32 of them, so that a value minus `lo` fits a `u32` local.
    pub(crate) const INT: ValTy = ValTy {
        lo: i32::MIN as i64,
        hi: i32::MAX as i64,
        boolean: false,
    };

    pub(crate) fn contains(&self, v: i64) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// The type as the user would write it.
    pub(crate) fn describe(&self) -> String {
        if self.boolean {
            "bool".to_string()
        } else if *self == ValTy::INT {
            "int".to_string()
        } else {
            format!("{}..={}", self.lo, self.hi)
        }
    }

    /// A value as the user would write it.
    pub(crate) fn show(&self, v: i64) -> String {
        if self.boolean {
            if v != 0 { "true" } else { "false" }.to_string()
        } else {
            v.to_string()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

/// A resolved expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expr {
    Const(i64),
    /// The instance index of the running process (`i` in `process w[i in 0..N]`).
    Index,
    Local(Slot),
    LocalElem {
        array: u32,
        index: Box<Expr>,
    },
    /// A shared scalar variable.
    Shared(u32),
    /// A cell of a shared array.
    SharedElem {
        var: u32,
        index: Box<Expr>,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Calls `f` on every shared variable the expression reads, with the index expression
    /// of an array cell (index expressions are searched too).
    pub(crate) fn for_each_shared<'e>(&'e self, f: &mut impl FnMut(u32, Option<&'e Expr>)) {
        match self {
            Expr::Const(_) | Expr::Index | Expr::Local(_) => {}
            Expr::LocalElem { index, .. } => index.for_each_shared(f),
            Expr::Shared(v) => f(*v, None),
            Expr::SharedElem { var, index } => {
                f(*var, Some(index));
                index.for_each_shared(f);
            }
            Expr::Unary(_, a) => a.for_each_shared(f),
            Expr::Binary(_, a, b) => {
                a.for_each_shared(f);
                b.for_each_shared(f);
            }
        }
    }

    /// Whether the expression reads a shared variable.
    pub(crate) fn reads_shared(&self) -> bool {
        match self {
            Expr::Const(_) | Expr::Index | Expr::Local(_) => false,
            Expr::LocalElem { index, .. } => index.reads_shared(),
            Expr::Shared(_) | Expr::SharedElem { .. } => true,
            Expr::Unary(_, a) => a.reads_shared(),
            Expr::Binary(_, a, b) => a.reads_shared() || b.reads_shared(),
        }
    }

    /// Whether the expression depends only on constants and the instance index, so that
    /// its value is known per instance before the program runs.
    pub(crate) fn is_static(&self) -> bool {
        match self {
            Expr::Const(_) | Expr::Index => true,
            Expr::Local(_) | Expr::LocalElem { .. } | Expr::Shared(_) | Expr::SharedElem { .. } => false,
            Expr::Unary(_, a) => a.is_static(),
            Expr::Binary(_, a, b) => a.is_static() && b.is_static(),
        }
    }
}

/// Where an assignment or a receive stores its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LValue {
    Local(Slot),
    LocalElem { array: u32, index: Expr },
    Shared(u32),
    SharedElem { var: u32, index: Expr },
}

impl LValue {
    /// Calls `f` on the shared variable stored into, if any, and on those its index reads,
    /// as [`Expr::for_each_shared`].
    pub(crate) fn for_each_shared<'e>(&'e self, f: &mut impl FnMut(u32, Option<&'e Expr>)) {
        match self {
            LValue::Local(_) => {}
            LValue::LocalElem { index, .. } => index.for_each_shared(f),
            LValue::Shared(v) => f(*v, None),
            LValue::SharedElem { var, index } => {
                f(*var, Some(index));
                index.for_each_shared(f);
            }
        }
    }
}

/// A mutex, semaphore, channel or process named by a statement: the declaration and, for
/// arrays (indexed processes), the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CellRef {
    pub decl: u32,
    pub index: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Assign {
        target: LValue,
        value: Expr,
    },
    Branch {
        cond: Expr,
        then_pc: u32,
        else_pc: u32,
    },
    Jump(u32),
    Assert(Expr),
    /// Sets slots `first..first + count` back to 0 when their scope ends, so that states
    /// differing only in dead locals are one state.
    Reset {
        first: Slot,
        count: u32,
    },
    Lock(CellRef),
    Unlock(CellRef),
    Wait(CellRef),
    Signal(CellRef),
    Spawn(CellRef),
    Join(CellRef),
    Send {
        chan: CellRef,
        value: Option<Expr>,
    },
    Recv {
        chan: CellRef,
        target: Option<LValue>,
    },
    /// Nondeterministic choice: one action per branch, each jumping to its target.
    Choose(Vec<u32>),
    End,
}

/// One operation with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Op {
    pub kind: OpKind,
    pub pos: Pos,
    /// The statement's source text (one line), for action names and fault messages.
    pub text: String,
    /// For data operations (assign, branch, assert): whether they read or write a shared
    /// variable. Those that do not are pure local computation.
    pub shared: bool,
}

/// A local scalar slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SlotInfo {
    pub name: String,
    /// The declared range; `None` for loop counters, which the loop keeps in range.
    pub ty: Option<ValTy>,
    /// Set for slots belonging to a local array (named by the array then).
    pub array: Option<u32>,
    /// The program points where the local is in scope: from its declaration to the end of
    /// its block. Names may repeat in one process (two `for i` loops) but never within
    /// one scope, so the slots in scope at a point are named unambiguously; outside it the
    /// slot is always 0.
    pub in_scope: std::ops::Range<u32>,
}

/// A local array: `len` consecutive slots from `base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalArray {
    pub name: String,
    pub base: Slot,
    pub len: u32,
    pub ty: ValTy,
}

/// A process definition, compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcDef {
    pub name: String,
    /// The first index value, when the process is indexed.
    pub index_lo: Option<i64>,
    /// Number of instances.
    pub count: u32,
    /// Component of the first instance; instance `k` is `first + (k - index_lo)`.
    pub first: CompId,
    pub code: Vec<Op>,
    pub slots: Vec<SlotInfo>,
    pub arrays: Vec<LocalArray>,
}

/// A process instance (one component).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Instance {
    pub def: u32,
    pub index: i64,
    pub name: String,
    /// Started by `init` (else it waits to be spawned).
    pub starts: bool,
}

/// A shared variable or array of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarDecl {
    pub name: String,
    /// `Some(n)` for an array of `n` cells.
    pub len: Option<u32>,
    pub ty: ValTy,
    pub base: CompId,
    /// Initial value of every cell.
    pub init: Vec<i64>,
}

/// A mutex or semaphore, or an array of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResDecl {
    pub name: String,
    pub len: Option<u32>,
    pub base: CompId,
    /// Initial count (semaphores).
    pub init: u32,
}

/// A channel or array of channels. Channels are not components (see the module doc of
/// [`super`]); cells are numbered globally from `first_cell`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChanDecl {
    pub name: String,
    pub len: Option<u32>,
    /// The type of the values carried, `None` for pure synchronisation.
    pub ty: Option<ValTy>,
    pub first_cell: u32,
}

/// What a component is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CompKind {
    Process(u32),
    Mutex(u32),
    Sem(u32),
    Var(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Comp {
    pub kind: CompKind,
    pub name: String,
}
