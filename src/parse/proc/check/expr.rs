//! Lowering and type checking of expressions, in constant contexts and in process bodies,
//! with constant folding.

use super::super::ast::{self, ExprKind, Span};
use super::super::Diag;
use super::{Front, Global, LocalSym, Scope, Ty};
use crate::system::program::{apply_binary, apply_unary, Expr};

impl Front<'_> {
    /// Lowers and type-checks an expression; `scope` is `None` in constant contexts.
    /// Constant sub-expressions are folded, so a provably failing one (a division by zero,
    /// an overflow, a constant index out of range) is an error here, not a run-time fault.
    pub(crate) fn expr(&self, e: &ast::Expr, scope: Option<&Scope>) -> Result<(Expr, Ty), Diag> {
        match &e.kind {
            ExprKind::Int(v) => Ok((Expr::Const(*v), Ty::Int)),
            ExprKind::Bool(b) => Ok((Expr::Const(*b as i64), Ty::Bool)),
            ExprKind::Name(id) => self.name_expr(id, scope),
            ExprKind::Index(id, idx) => self.index_expr(id, idx, e.span, scope),
            ExprKind::Unary(op, a) => self.unary_expr(*op, a, e.span, scope),
            ExprKind::Binary(op, a, b) => self.binary_expr(*op, a, b, e.span, scope),
        }
    }

    fn unary_expr(
        &self,
        op: ast::UnOp,
        a: &ast::Expr,
        span: Span,
        scope: Option<&Scope>,
    ) -> Result<(Expr, Ty), Diag> {
        let (x, t) = self.expr(a, scope)?;
        let want = match op {
            ast::UnOp::Neg => Ty::Int,
            ast::UnOp::Not => Ty::Bool,
        };
        if t != want {
            let sym = if op == ast::UnOp::Neg { "-" } else { "!" };
            return Err(Diag::at(
                a.span.start,
                format!("`{sym}` needs {} operand, found {}", want.a(), t.a()),
            ));
        }
        if let Expr::Const(v) = x {
            let r = apply_unary(op, v).map_err(|m| Diag::at(span.start, m))?;
            return Ok((Expr::Const(r), t));
        }
        Ok((Expr::Unary(op, Box::new(x)), t))
    }

    fn binary_expr(
        &self,
        op: ast::BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
        scope: Option<&Scope>,
    ) -> Result<(Expr, Ty), Diag> {
        let (x, ta) = self.expr(a, scope)?;
        let (y, tb) = self.expr(b, scope)?;
        use ast::BinOp::*;
        let (operand, result) = match op {
            Or | And => (Some(Ty::Bool), Ty::Bool),
            Eq | Ne => (None, Ty::Bool),
            Lt | Le | Gt | Ge => (Some(Ty::Int), Ty::Bool),
            Add | Sub | Mul | Div | Mod | Pow => (Some(Ty::Int), Ty::Int),
        };
        let sym = ast::symbol(op);
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
            let r = apply_binary(op, *u, *v).map_err(|m| Diag::at(span.start, m))?;
            return Ok((Expr::Const(r), result));
        }
        Ok((Expr::Binary(op, Box::new(x), Box::new(y)), result))
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
    pub(crate) fn index_of(
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
