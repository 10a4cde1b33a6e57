//! The typed-to-be syntax tree of a `.proc` file, as the grammar gives it, with byte spans
//! into the source for every node that can be the subject of an error message.
//!
//! # Invariants
//! - Every expression nests at most [`super::parser::MAX_EXPR_DEPTH`] levels deep, so the
//!   recursive passes over it (checks, lowering, evaluation) have a bounded depth.
//! - Blocks nest at most [`super::parser::MAX_NESTING`] levels deep.

/// A byte range `start..end` in the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

/// A name where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ident {
    pub name: String,
    pub span: Span,
}

pub(crate) use crate::system::program::{BinOp, UnOp};

/// Binding strength of a binary operator; higher binds tighter.
pub(crate) fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::Add | BinOp::Sub => 4,
        BinOp::Mul | BinOp::Div | BinOp::Mod => 5,
        BinOp::Pow => 6,
    }
}

pub(crate) fn is_comparison(op: BinOp) -> bool {
    precedence(op) == 3
}

/// The operator as written.
pub(crate) fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Or => "||",
        BinOp::And => "&&",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Pow => "**",
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExprKind {
    Int(i64),
    Bool(bool),
    Name(Ident),
    Index(Ident, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// `lo..hi` (half-open) or `lo..=hi` (inclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    pub lo: Expr,
    pub hi: Expr,
    pub inclusive: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TypeSpec {
    Bool,
    Int,
    Range(Range),
}

/// A declared name with its optional array size: `m`, `fork[N]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeclName {
    pub name: Ident,
    pub size: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum InitValue {
    One(Expr),
    List(Vec<Expr>, Span),
}

/// `var a[N], b: 0..=3 = 0;`, shared at top level, local inside a process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarDecl {
    pub names: Vec<DeclName>,
    pub ty: TypeSpec,
    pub ty_span: Span,
    pub init: Option<InitValue>,
    pub span: Span,
}

/// A name with an optional index, where something is referred to: `m`, `fork[i + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub name: Ident,
    pub index: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AssignOp {
    Set,
    Add,
    Sub,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StmtKind {
    Var(VarDecl),
    Lock(Target),
    Unlock(Target),
    Wait(Target),
    Signal(Target),
    Spawn(Target),
    Join(Target),
    Send(Target, Option<Expr>),
    Recv(Target, Option<Target>),
    Assign(Target, AssignOp, Expr),
    /// `if c1 {..} else if c2 {..} else {..}`: the guarded arms in order, then the else.
    If(Vec<(Expr, Block)>, Option<Block>),
    While(Expr, Block),
    For(Ident, Range, Block),
    Loop(Block),
    Choose(Vec<Block>),
    Assert(Expr),
    Skip,
    Break,
    Continue,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

/// Which instances of a process an `init` entry starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum InitSel {
    All,
    One(Expr),
    Range(Range),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InitEntry {
    pub name: Ident,
    pub sel: InitSel,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcessDef {
    pub name: Ident,
    pub index: Option<(Ident, Range)>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Const(Ident, Expr),
    Param(Ident, Expr),
    Var(VarDecl),
    Mutex(Vec<DeclName>),
    Sem(Vec<DeclName>, Option<Expr>),
    Chan(Vec<DeclName>, Option<(TypeSpec, Span)>),
    Process(ProcessDef),
    Init(Vec<InitEntry>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ItemAt {
    pub item: Item,
    pub span: Span,
}

/// A whole file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct File {
    pub items: Vec<ItemAt>,
}
