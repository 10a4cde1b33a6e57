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

use super::ast::{self, ExprKind, InitSel, Item, Span, TypeSpec};
use super::{Diag, LineIndex};
use crate::system::program::{
    apply_binary, apply_unary, ChanDecl, Comp, CompKind, Expr, Instance, ProcDef, Program, ResDecl, ValTy,
    VarDecl,
};
use crate::system::CompId;
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
    pub fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Bool => "bool",
        }
    }

    /// The type's name with its article: "an int", "a bool".
    pub fn a(self) -> &'static str {
        match self {
            Ty::Int => "an int",
            Ty::Bool => "a bool",
        }
    }

    pub fn of(v: &ValTy) -> Ty {
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
    pub fn what(&self) -> &'static str {
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
    pub warnings: Vec<Diag>,
}

pub(super) fn check(
    file: &ast::File,
    text: &str,
    lines: &LineIndex<'_>,
    file_name: &str,
    defines: &[(String, i64)],
) -> Result<(Program, Vec<Diag>), Diag> {
    let mut f = Front {
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
        warnings: Vec::new(),
    };
    f.collect_names(file)?;

    let mut used_define = vec![false; defines.len()];
    let mut inits = Vec::new();
    for (i, at) in file.items.iter().enumerate() {
        match &at.item {
            Item::Const(name, e) => {
                if let Some(k) = defines.iter().position(|(n, _)| *n == name.name) {
                    return Err(Diag::at(
                        name.span.start,
                        format!(
                            "`{}` is a `const`; only a `param` can be set with -D {}={}",
                            name.name, name.name, defines[k].1
                        ),
                    ));
                }
                let (value, ty) = f.const_value(e)?;
                f.globals.insert(
                    name.name.clone(),
                    Global::Const {
                        value,
                        ty,
                        param: false,
                    },
                );
            }
            Item::Param(name, e) => {
                let (mut value, ty) = f.const_value(e)?;
                // The last -D for a name wins, as with a C compiler's -D.
                if let Some(k) = defines.iter().rposition(|(n, _)| *n == name.name) {
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
                f.globals.insert(
                    name.name.clone(),
                    Global::Const {
                        value,
                        ty,
                        param: true,
                    },
                );
            }
            Item::Var(decl) => f.shared_vars(decl)?,
            Item::Mutex(names) => {
                for n in names {
                    let len = f.array_size(n)?;
                    let id = f.mutexes.len() as u32;
                    f.mutexes.push(ResDecl {
                        name: n.name.name.clone(),
                        len,
                        base: CompId(0),
                        init: 0,
                    });
                    f.resource_order.push(CompKind::Mutex(id));
                    f.globals.insert(n.name.name.clone(), Global::Mutex(id));
                }
            }
            Item::Sem(names, init) => {
                let count = match init {
                    None => 0,
                    Some(e) => {
                        let v = f.const_int(e)?;
                        if !(0..=u32::MAX as i64).contains(&v) {
                            return Err(Diag::at(
                                e.span.start,
                                format!("a semaphore starts with a count in 0..={}, not {v}", u32::MAX),
                            ));
                        }
                        v as u32
                    }
                };
                for n in names {
                    let len = f.array_size(n)?;
                    let id = f.sems.len() as u32;
                    f.sems.push(ResDecl {
                        name: n.name.name.clone(),
                        len,
                        base: CompId(0),
                        init: count,
                    });
                    f.resource_order.push(CompKind::Sem(id));
                    f.globals.insert(n.name.name.clone(), Global::Sem(id));
                }
            }
            Item::Chan(names, ty) => {
                let ty = match ty {
                    None => None,
                    Some((t, s)) => Some(f.value_type(t, *s)?),
                };
                for n in names {
                    let len = f.array_size(n)?;
                    let id = f.chans.len() as u32;
                    let first_cell = f
                        .chans
                        .last()
                        .map(|c| c.first_cell + c.len.unwrap_or(1))
                        .unwrap_or(0);
                    f.chans.push(ChanDecl {
                        name: n.name.name.clone(),
                        len,
                        ty,
                        first_cell,
                    });
                    f.globals.insert(n.name.name.clone(), Global::Chan(id));
                }
            }
            Item::Process(p) => {
                let (index, count) = match &p.index {
                    None => (None, 1u32),
                    Some((v, r)) => {
                        if f.declared.contains_key(&v.name) {
                            return Err(f.already(&v.name, v.span));
                        }
                        let (lo, hi) = f.const_range(r)?;
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
                let id = f.procs.len() as u32;
                f.procs.push(ProcInfo {
                    name: p.name.name.clone(),
                    span: p.name.span,
                    index,
                    count,
                    item: i,
                });
                f.globals.insert(p.name.name.clone(), Global::Process(id));
            }
            Item::Init(entries) => inits.push(entries),
        }
    }
    for (k, (name, value)) in defines.iter().enumerate() {
        if !used_define[k] {
            f.warnings.push(Diag::at(
                0,
                format!("-D {name}={value}: the program has no parameter `{name}`; ignored"),
            ));
        }
    }
    if f.procs.is_empty() {
        return Err(Diag::at(
            text.len(),
            "the program defines no process; write `process main { … }` and `init main;`",
        ));
    }
    if inits.is_empty() {
        return Err(Diag::at(
            text.len(),
            "the program has no `init` line saying which processes start (e.g. `init main;`)",
        ));
    }

    // Components: instances first, then resources in declaration order.
    let mut comps = Vec::new();
    let mut instances = Vec::new();
    let mut firsts = Vec::new();
    for (d, p) in f.procs.iter().enumerate() {
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
    for kind in f.resource_order.clone() {
        let base = CompId(comps.len() as u32);
        let (name, len) = match kind {
            CompKind::Mutex(i) => {
                f.mutexes[i as usize].base = base;
                (f.mutexes[i as usize].name.clone(), f.mutexes[i as usize].len)
            }
            CompKind::Sem(i) => {
                f.sems[i as usize].base = base;
                (f.sems[i as usize].name.clone(), f.sems[i as usize].len)
            }
            CompKind::Var(i) => {
                f.vars[i as usize].base = base;
                (f.vars[i as usize].name.clone(), f.vars[i as usize].len)
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

    // `init`.
    let mut init_span: HashMap<usize, Span> = HashMap::new();
    for entries in inits {
        for e in entries {
            let Some(Global::Process(d)) = f.global(&e.name.name, e.name.span)? else {
                return Err(Diag::at(
                    e.name.span.start,
                    format!("`init` starts processes; `{}` is not a process", e.name.name),
                ));
            };
            let p = &f.procs[d as usize];
            let first = firsts[d as usize].index();
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
                    let k = f.const_int(x)?;
                    vec![f.instance_offset(d, k, x.span)?]
                }
                (InitSel::Range(r), Some(_)) => {
                    let (lo, hi) = f.const_range(r)?;
                    let mut v = Vec::new();
                    let mut k = lo;
                    while k <= hi {
                        v.push(f.instance_offset(d, k, r.span)?);
                        k += 1;
                    }
                    v
                }
            };
            for k in picked {
                let inst = first + k as usize;
                if let Some(prev) = init_span.get(&inst) {
                    let pp = f.lines.pos(prev.start);
                    return Err(Diag::at(
                        e.span.start,
                        format!(
                            "`{}` is already started by `init` at {}:{}",
                            instances[inst].name, pp.line, pp.col
                        ),
                    ));
                }
                init_span.insert(inst, e.span);
                instances[inst].starts = true;
            }
        }
    }

    // Process bodies.
    let mut defs = Vec::new();
    let mut facts = Vec::new();
    for (d, first) in firsts.iter().enumerate() {
        let info = f.procs[d].clone();
        let Item::Process(ast_def) = &file.items[info.item].item else {
            return Err(Diag::at(info.span.start, "[qpor internal bug] process item lost"));
        };
        let (code, slots, arrays, fact) = f.compile_process(ast_def)?;
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
    f.cross_checks(&defs, &instances, &facts)?;

    let program = Program::new(
        file_name.to_string(),
        defs,
        instances,
        comps,
        f.vars,
        f.mutexes,
        f.sems,
        f.chans,
    );
    Ok((program, f.warnings))
}

impl Front<'_> {
    fn collect_names(&mut self, file: &ast::File) -> Result<(), Diag> {
        for at in &file.items {
            let mut names: Vec<&ast::Ident> = Vec::new();
            match &at.item {
                Item::Const(n, _) | Item::Param(n, _) => names.push(n),
                Item::Var(d) => names.extend(d.names.iter().map(|n| &n.name)),
                Item::Mutex(ns) | Item::Sem(ns, _) | Item::Chan(ns, _) => {
                    names.extend(ns.iter().map(|n| &n.name))
                }
                Item::Process(p) => names.push(&p.name),
                Item::Init(_) => {}
            }
            for n in names {
                if self.declared.contains_key(&n.name) {
                    return Err(self.already(&n.name, n.span));
                }
                self.declared.insert(n.name.clone(), n.span);
            }
        }
        Ok(())
    }

    /// "`x` is already declared at l:c", for a second declaration of `name` at `span`.
    pub fn already(&self, name: &str, span: Span) -> Diag {
        match self.declared.get(name) {
            Some(prev) => {
                let p = self.lines.pos(prev.start);
                Diag::at(
                    span.start,
                    format!("`{name}` is already declared at {}:{}", p.line, p.col),
                )
            }
            None => Diag::at(span.start, format!("`{name}` is already declared")),
        }
    }

    /// The global called `name`, `None` if there is none (the caller looks at locals first).
    /// A global declared later in the file than where it is needed in a constant context
    /// is an error of its own.
    pub fn global(&self, name: &str, span: Span) -> Result<Option<Global>, Diag> {
        match self.globals.get(name) {
            Some(g) => Ok(Some(*g)),
            None => match self.declared.get(name) {
                Some(d) => {
                    let p = self.lines.pos(d.start);
                    Err(Diag::at(
                        span.start,
                        format!(
                            "`{name}` is used before its declaration at {}:{}; constants must be declared before they are used",
                            p.line, p.col
                        ),
                    ))
                }
                None => Ok(None),
            },
        }
    }

    fn unknown(&self, name: &str, span: Span) -> Diag {
        Diag::at(span.start, format!("unknown name `{name}`"))
    }

    /// The source text of a span on one line, shortened, for messages and action names.
    pub fn snippet(&self, span: Span) -> String {
        let raw = self.text.get(span.start..span.end).unwrap_or("");
        let mut s = String::new();
        let mut space = false;
        for c in raw.chars() {
            if c.is_whitespace() {
                space = true;
                continue;
            }
            if space && !s.is_empty() {
                s.push(' ');
            }
            space = false;
            s.push(c);
            if s.chars().count() > 60 {
                s.push('…');
                break;
            }
        }
        s
    }

    // ------------------------------------------------------------------ constants

    /// Evaluates a constant expression (consts and params declared before it only).
    pub fn const_value(&self, e: &ast::Expr) -> Result<(i64, Ty), Diag> {
        let (x, ty) = self.expr(e, None)?;
        match x {
            Expr::Const(v) => Ok((v, ty)),
            _ => Err(Diag::at(e.span.start, "expected a constant expression")),
        }
    }

    pub fn const_int(&self, e: &ast::Expr) -> Result<i64, Diag> {
        match self.const_value(e)? {
            (v, Ty::Int) => Ok(v),
            (_, Ty::Bool) => Err(Diag::at(e.span.start, "expected an int here, found a bool")),
        }
    }

    /// An inclusive `(lo, hi)` from `lo..hi` or `lo..=hi`; `hi < lo` means empty.
    pub fn const_range(&self, r: &ast::Range) -> Result<(i64, i64), Diag> {
        let lo = self.const_int(&r.lo)?;
        let hi = self.const_int(&r.hi)?;
        let hi = if r.inclusive {
            hi
        } else {
            hi.checked_sub(1)
                .ok_or_else(|| Diag::at(r.hi.span.start, "range bound out of bounds"))?
        };
        Ok((lo, hi))
    }

    pub fn value_type(&self, t: &TypeSpec, span: Span) -> Result<ValTy, Diag> {
        Ok(match t {
            TypeSpec::Bool => ValTy::BOOL,
            TypeSpec::Int => ValTy::INT,
            TypeSpec::Range(r) => {
                let (lo, hi) = self.const_range(r)?;
                if hi < lo {
                    return Err(Diag::at(span.start, format!("the range {lo}..={hi} is empty")));
                }
                if hi as i128 - lo as i128 > u32::MAX as i128 {
                    return Err(Diag::at(
                        span.start,
                        format!(
                            "the range {lo}..={hi} is too large: a variable may take at most 2^32 values"
                        ),
                    ));
                }
                ValTy {
                    lo,
                    hi,
                    boolean: false,
                }
            }
        })
    }

    /// The declared size of an array, `None` for a scalar.
    pub fn array_size(&self, n: &ast::DeclName) -> Result<Option<u32>, Diag> {
        match &n.size {
            None => Ok(None),
            Some(e) => {
                let v = self.const_int(e)?;
                if v < 1 {
                    return Err(Diag::at(
                        e.span.start,
                        format!("the size of array `{}` must be at least 1, not {v}", n.name.name),
                    ));
                }
                if v > MAX_ARRAY {
                    return Err(Diag::at(
                        e.span.start,
                        format!(
                            "the size of array `{}` is {v}; at most {MAX_ARRAY} is allowed",
                            n.name.name
                        ),
                    ));
                }
                Ok(Some(v as u32))
            }
        }
    }

    /// The offset of instance `k` of process `d`, or an error at `span`.
    pub fn instance_offset(&self, d: u32, k: i64, span: Span) -> Result<u32, Diag> {
        let p = &self.procs[d as usize];
        let lo = p.index.as_ref().map(|(_, lo)| *lo).unwrap_or(0);
        let off = k as i128 - lo as i128;
        if off < 0 || off >= p.count as i128 {
            return Err(Diag::at(
                span.start,
                format!(
                    "process `{}` has no instance {k} (its instances are {lo}..={})",
                    p.name,
                    lo + p.count as i64 - 1
                ),
            ));
        }
        Ok(off as u32)
    }

    /// The default value of a variable without initialiser: 0 (false) when in range.
    pub fn default_value(ty: &ValTy) -> i64 {
        if ty.contains(0) {
            0
        } else {
            ty.lo
        }
    }

    fn shared_vars(&mut self, d: &ast::VarDecl) -> Result<(), Diag> {
        let ty = self.value_type(&d.ty, d.ty_span)?;
        for n in &d.names {
            let len = self.array_size(n)?;
            let cells = len.unwrap_or(1) as usize;
            let init: Vec<i64> = match &d.init {
                None => vec![Self::default_value(&ty); cells],
                Some(ast::InitValue::One(e)) => {
                    let v = self.const_of_type(e, &ty, &n.name.name)?;
                    vec![v; cells]
                }
                Some(ast::InitValue::List(es, span)) => {
                    if len.is_none() {
                        return Err(Diag::at(
                            span.start,
                            format!("`{}` is not an array; give one initial value", n.name.name),
                        ));
                    }
                    if es.len() != cells {
                        return Err(Diag::at(
                            span.start,
                            format!(
                                "{} initial values for the {cells} cells of `{}`",
                                es.len(),
                                n.name.name
                            ),
                        ));
                    }
                    es.iter()
                        .map(|e| self.const_of_type(e, &ty, &n.name.name))
                        .collect::<Result<_, _>>()?
                }
            };
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

    fn const_of_type(&self, e: &ast::Expr, ty: &ValTy, name: &str) -> Result<i64, Diag> {
        let (v, t) = self.const_value(e)?;
        if t != Ty::of(ty) {
            return Err(Diag::at(
                e.span.start,
                format!(
                    "`{name}` holds {} values, but its initial value is {}",
                    Ty::of(ty).name(),
                    t.a()
                ),
            ));
        }
        if !ty.contains(v) {
            return Err(Diag::at(
                e.span.start,
                format!(
                    "the initial value {v} of `{name}` is outside its range {}",
                    ty.describe()
                ),
            ));
        }
        Ok(v)
    }

    // ---------------------------------------------------------------- expressions

    /// Lowers and type-checks an expression; `scope` is `None` in constant contexts.
    /// Constant sub-expressions are folded, so a provably failing one (a division by zero,
    /// an overflow, a constant index out of range) is an error here, not a run-time fault.
    pub fn expr(&self, e: &ast::Expr, scope: Option<&Scope>) -> Result<(Expr, Ty), Diag> {
        match &e.kind {
            ExprKind::Int(v) => Ok((Expr::Const(*v), Ty::Int)),
            ExprKind::Bool(b) => Ok((Expr::Const(*b as i64), Ty::Bool)),
            ExprKind::Name(id) => self.name_expr(id, scope),
            ExprKind::Index(id, idx) => self.index_expr(id, idx, e.span, scope),
            ExprKind::Unary(op, a) => {
                let (x, t) = self.expr(a, scope)?;
                let want = match op {
                    ast::UnOp::Neg => Ty::Int,
                    ast::UnOp::Not => Ty::Bool,
                };
                if t != want {
                    let sym = if *op == ast::UnOp::Neg { "-" } else { "!" };
                    return Err(Diag::at(
                        a.span.start,
                        format!("`{sym}` needs {} operand, found {}", want.a(), t.a()),
                    ));
                }
                if let Expr::Const(v) = x {
                    let r = apply_unary(*op, v).map_err(|m| Diag::at(e.span.start, m))?;
                    return Ok((Expr::Const(r), t));
                }
                Ok((Expr::Unary(*op, Box::new(x)), t))
            }
            ExprKind::Binary(op, a, b) => {
                let (x, ta) = self.expr(a, scope)?;
                let (y, tb) = self.expr(b, scope)?;
                use ast::BinOp::*;
                let (operand, result) = match op {
                    Or | And => (Some(Ty::Bool), Ty::Bool),
                    Eq | Ne => (None, Ty::Bool),
                    Lt | Le | Gt | Ge => (Some(Ty::Int), Ty::Bool),
                    Add | Sub | Mul | Div | Mod | Pow => (Some(Ty::Int), Ty::Int),
                };
                let sym = ast::symbol(*op);
                match operand {
                    Some(want) => {
                        for (t, s) in [(ta, a.span), (tb, b.span)] {
                            if t != want {
                                return Err(Diag::at(
                                    s.start,
                                    format!("`{sym}` needs {} operands, found {}", want.name(), t.name()),
                                ));
                            }
                        }
                    }
                    None => {
                        if ta != tb {
                            return Err(Diag::at(
                                b.span.start,
                                format!("`{sym}` compares {} with {}", ta.a(), tb.a()),
                            ));
                        }
                    }
                }
                if let (Expr::Const(u), Expr::Const(v)) = (&x, &y) {
                    let r = apply_binary(*op, *u, *v).map_err(|m| Diag::at(e.span.start, m))?;
                    return Ok((Expr::Const(r), result));
                }
                Ok((Expr::Binary(*op, Box::new(x), Box::new(y)), result))
            }
        }
    }

    fn name_expr(&self, id: &ast::Ident, scope: Option<&Scope>) -> Result<(Expr, Ty), Diag> {
        if let Some(scope) = scope {
            if let Some(l) = scope.lookup(&id.name) {
                return match &l.sym {
                    LocalSym::Scalar { slot, ty } => Ok((Expr::Local(*slot), Ty::of(ty))),
                    LocalSym::Loop { slot } => Ok((Expr::Local(*slot), Ty::Int)),
                    LocalSym::Array { .. } => Err(Diag::at(
                        id.span.start,
                        format!("`{}` is an array; write `{}[index]`", id.name, id.name),
                    )),
                };
            }
            if let Some((name, _)) = &scope.index {
                if *name == id.name {
                    return Ok((Expr::Index, Ty::Int));
                }
            }
        }
        let g = self.global(&id.name, id.span)?;
        match g {
            None => Err(self.unknown(&id.name, id.span)),
            Some(Global::Const { value, ty, .. }) => Ok((Expr::Const(value), ty)),
            Some(Global::Var(v)) if scope.is_some() => {
                let d = &self.vars[v as usize];
                if d.len.is_some() {
                    return Err(Diag::at(
                        id.span.start,
                        format!("`{}` is an array; write `{}[index]`", id.name, id.name),
                    ));
                }
                Ok((Expr::Shared(v), Ty::of(&d.ty)))
            }
            Some(g) => Err(self.not_a_value(&id.name, id.span, g, scope.is_none())),
        }
    }

    fn not_a_value(&self, name: &str, span: Span, g: Global, constant: bool) -> Diag {
        if constant {
            Diag::at(
                span.start,
                format!(
                    "`{name}` is {}, not a constant; only `const` and `param` values may be used here",
                    g.what()
                ),
            )
        } else {
            Diag::at(span.start, format!("`{name}` is {}, not a value", g.what()))
        }
    }

    fn index_expr(
        &self,
        id: &ast::Ident,
        idx: &ast::Expr,
        span: Span,
        scope: Option<&Scope>,
    ) -> Result<(Expr, Ty), Diag> {
        if let Some(scope) = scope {
            if let Some(l) = scope.lookup(&id.name) {
                return match &l.sym {
                    LocalSym::Array { array, len, ty } => {
                        let i = self.index_of(idx, scope, &id.name, *len, false)?;
                        Ok((
                            Expr::LocalElem {
                                array: *array,
                                index: Box::new(i),
                            },
                            Ty::of(ty),
                        ))
                    }
                    _ => Err(Diag::at(span.start, format!("`{}` is not an array", id.name))),
                };
            }
            if matches!(&scope.index, Some((n, _)) if *n == id.name) {
                return Err(Diag::at(span.start, format!("`{}` is not an array", id.name)));
            }
        }
        match self.global(&id.name, id.span)? {
            None => Err(self.unknown(&id.name, id.span)),
            Some(Global::Var(v)) if scope.is_some() => {
                let d = &self.vars[v as usize];
                let Some(len) = d.len else {
                    return Err(Diag::at(span.start, format!("`{}` is not an array", id.name)));
                };
                let scope = scope.ok_or_else(|| Diag::at(span.start, "[qpor internal bug] scope"))?;
                let i = self.index_of(idx, scope, &id.name, len, true)?;
                Ok((
                    Expr::SharedElem {
                        var: v,
                        index: Box::new(i),
                    },
                    Ty::of(&d.ty),
                ))
            }
            Some(Global::Const { .. }) => Err(Diag::at(span.start, format!("`{}` is not an array", id.name))),
            Some(g) => Err(self.not_a_value(&id.name, id.span, g, scope.is_none())),
        }
    }

    /// Lowers the index of an array of `len` cells called `name`. `selects` says whether the
    /// index picks a component (a shared cell, a mutex, …), which must not depend on shared
    /// data, because a process's locals must decide what its next step touches.
    pub fn index_of(
        &self,
        idx: &ast::Expr,
        scope: &Scope,
        name: &str,
        len: u32,
        selects: bool,
    ) -> Result<Expr, Diag> {
        let (i, t) = self.expr(idx, Some(scope))?;
        if t != Ty::Int {
            return Err(Diag::at(
                idx.span.start,
                format!("the index of `{name}` must be an int, found a bool"),
            ));
        }
        if selects && i.reads_shared() {
            return Err(Diag::at(
                idx.span.start,
                format!(
                    "the index of `{name}` reads a shared variable; copy it into a local variable first (what a step touches must depend on the process's own state)"
                ),
            ));
        }
        if let Expr::Const(k) = i {
            if k < 0 || k >= len as i64 {
                return Err(Diag::at(
                    idx.span.start,
                    format!("index {k} is out of range for `{name}` (size {len})"),
                ));
            }
        }
        Ok(i)
    }
}
