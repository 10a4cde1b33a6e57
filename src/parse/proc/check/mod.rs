//! Names, constants, types and the checks that need only declarations: the first half of
//! the front end after parsing. Process bodies are lowered by [`super::compile`], which
//! uses the expression lowering defined here.
//!
//! The passes, in order:
//! 1. every global name is collected, so duplicates are found and a name used before its
//!    declaration is reported as such;
//! 2. items are read in file order: `const` and `param` are evaluated (params take their
//!    `-D` value), declarations get their sizes, ranges and initial values (all constant);
//! 3. components are laid out: process instances first, then mutexes, semaphores and
//!    variable cells in declaration order;
//! 4. `init` entries say which instances start;
//! 5. process bodies are compiled, then the cross-process checks run (joins of processes
//!    never started, spawns of processes `init` starts).
//!
//! Files: `names.rs` (pass 1 and name lookup), `decls.rs` (pass 2), `consts.rs` (constant
//! evaluation), `expr.rs` (expressions), `layout.rs` (passes 3 to 5).

mod consts;
mod decls;
mod expr;
mod layout;
mod names;

pub(super) use consts::{check_initial, initial_values};

use super::ast::{self, Span};
use super::{Diag, LineIndex};
use crate::system::program::{ChanDecl, CompKind, Param, Program, ResDecl, ValTy, VarDecl};
use std::collections::HashMap;

/// Largest array (of variables, mutexes, semaphores or channels, or instances of one
/// process) accepted; larger ones are surely a typo and would only exhaust memory.
pub(crate) const MAX_ARRAY: i64 = 1 << 16;

/// The two types of values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Int,
    Bool,
}

impl Ty {
    pub(super) fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Bool => "bool",
        }
    }

    /// The type's name with its article: "an int", "a bool".
    pub(super) fn a(self) -> &'static str {
        match self {
            Ty::Int => "an int",
            Ty::Bool => "a bool",
        }
    }

    pub(super) fn of(v: &ValTy) -> Ty {
        if v.boolean {
            Ty::Bool
        } else {
            Ty::Int
        }
    }
}

/// What a global name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Global {
    Const { value: i64, ty: Ty, param: bool },
    Var(u32),
    Mutex(u32),
    Sem(u32),
    Chan(u32),
    Process(u32),
}

impl Global {
    pub(super) fn what(&self) -> &'static str {
        match self {
            Global::Const { param: false, .. } => "a constant",
            Global::Const { param: true, .. } => "a parameter",
            Global::Var(_) => "a shared variable",
            Global::Mutex(_) => "a mutex",
            Global::Sem(_) => "a semaphore",
            Global::Chan(_) => "a channel",
            Global::Process(_) => "a process",
        }
    }
}

/// A process definition as far as the declarations go.
#[derive(Clone, Debug)]
pub(super) struct ProcInfo {
    pub name: String,
    pub span: Span,
    /// Name of the index variable and the first index value.
    pub index: Option<(String, i64)>,
    pub count: u32,
    pub item: usize,
}

/// A local name in scope inside a process body.
#[derive(Clone, Debug)]
pub(super) enum LocalSym {
    Scalar { slot: u32, ty: ValTy },
    Array { array: u32, len: u32, ty: ValTy },
    Loop { slot: u32 },
}

#[derive(Clone, Debug)]
pub(super) struct LocalName {
    pub name: String,
    pub span: Span,
    pub sym: LocalSym,
}

/// The names visible at a point of a process body.
#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    /// The instance index variable, if the process is indexed.
    pub index: Option<(String, Span)>,
    /// Block frames, innermost last.
    pub frames: Vec<Vec<LocalName>>,
}

impl Scope {
    fn lookup(&self, name: &str) -> Option<&LocalName> {
        self.frames
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev())
            .find(|l| l.name == name)
    }
}

/// The front end's state between passes.
pub(super) struct Front<'a> {
    pub text: &'a str,
    pub lines: &'a LineIndex<'a>,
    /// Every global name with where it is declared (pass 1).
    pub declared: HashMap<String, Span>,
    /// Globals read so far (pass 2 on).
    pub globals: HashMap<String, Global>,
    pub vars: Vec<VarDecl>,
    pub var_spans: Vec<Span>,
    pub mutexes: Vec<ResDecl>,
    pub sems: Vec<ResDecl>,
    pub chans: Vec<ChanDecl>,
    pub procs: Vec<ProcInfo>,
    /// Declaration order of resources, for the component layout.
    pub resource_order: Vec<CompKind>,
    /// The `param`s in declaration order (pass 2).
    pub params: Vec<Param>,
    pub warnings: Vec<Diag>,
}

impl<'a> Front<'a> {
    fn new(text: &'a str, lines: &'a LineIndex<'a>) -> Self {
        Front {
            text,
            lines,
            declared: HashMap::new(),
            globals: HashMap::new(),
            vars: Vec::new(),
            var_spans: Vec::new(),
            mutexes: Vec::new(),
            sems: Vec::new(),
            chans: Vec::new(),
            procs: Vec::new(),
            resource_order: Vec::new(),
            params: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// Checks and compiles a parsed file (the passes of the module doc); returns the program
/// and the warnings.
pub(super) fn check(
    file: &ast::File,
    text: &str,
    lines: &LineIndex<'_>,
    file_name: &str,
    defines: &[(String, i64)],
) -> Result<(Program, Vec<Diag>), Diag> {
    let mut f = Front::new(text, lines);
    f.collect_names(file)?;
    let inits = f.read_items(file, defines)?;
    let mut layout = f.layout();
    f.start_instances(&inits, &mut layout)?;
    let defs = f.compile_bodies(file, &layout)?;
    let mut program = Program::new(
        file_name.to_string(),
        defs,
        layout.instances,
        layout.comps,
        f.vars,
        f.mutexes,
        f.sems,
        f.chans,
    );
    program.params = f.params;
    Ok((program, f.warnings))
}
