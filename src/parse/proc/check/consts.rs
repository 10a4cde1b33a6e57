//! Constant evaluation: constant expressions, ranges, types, array sizes, instance
//! offsets and initial values, which must all be known before the run.

use super::super::ast::{self, Span, TypeSpec};
use super::super::Diag;
use super::{Front, Ty, MAX_ARRAY};
use crate::system::program::{Expr, ValTy};

impl Front<'_> {
    /// Evaluates a constant expression (consts and params declared before it only).
    pub(crate) fn const_value(&self, e: &ast::Expr) -> Result<(i64, Ty), Diag> {
        let (x, ty) = self.expr(e, None)?;
        match x {
            Expr::Const(v) => Ok((v, ty)),
            _ => Err(Diag::at(e.span.start, "expected a constant expression")),
        }
    }

    /// Evaluates a constant int expression.
    pub(crate) fn const_int(&self, e: &ast::Expr) -> Result<i64, Diag> {
        match self.const_value(e)? {
            (v, Ty::Int) => Ok(v),
            (_, Ty::Bool) => Err(Diag::at(e.span.start, "expected an int here, found a bool")),
        }
    }

    /// An inclusive `(lo, hi)` from `lo..hi` or `lo..=hi`; `hi < lo` means empty.
    pub(crate) fn const_range(&self, r: &ast::Range) -> Result<(i64, i64), Diag> {
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

    /// The value type a declaration names; a range must be non-empty and hold at most
    /// 2^32 values.
    pub(crate) fn value_type(&self, t: &TypeSpec, span: Span) -> Result<ValTy, Diag> {
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
    pub(crate) fn array_size(&self, n: &ast::DeclName) -> Result<Option<u32>, Diag> {
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
    pub(crate) fn instance_offset(&self, d: u32, k: i64, span: Span) -> Result<u32, Diag> {
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
    pub(crate) fn default_value(ty: &ValTy) -> i64 {
        if ty.contains(0) {
            0
        } else {
            ty.lo
        }
    }

    /// A constant initial value of `name`, of type `ty`.
    pub(super) fn const_of_type(&self, e: &ast::Expr, ty: &ValTy, name: &str) -> Result<i64, Diag> {
        let (v, t) = self.const_value(e)?;
        check_initial(e, t, Some(v), ty, name)?;
        Ok(v)
    }
}

/// Checks an initial value `e` of `name`, of type `ty`: `t` is its type, `value` its value
/// when constant, which must then be in range.
pub(in super::super) fn check_initial(
    e: &ast::Expr,
    t: Ty,
    value: Option<i64>,
    ty: &ValTy,
    name: &str,
) -> Result<(), Diag> {
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
    if let Some(v) = value {
        if !ty.contains(v) {
            return Err(Diag::at(
                e.span.start,
                format!(
                    "the initial value {v} of `{name}` is outside its range {}",
                    ty.describe()
                ),
            ));
        }
    }
    Ok(())
}

/// The initial values of the cells of `n` (`len` cells, `None` for a scalar), each read by
/// `value`: one value for every cell, or a list with one per cell of an array. `None`
/// without initialiser.
pub(in super::super) fn initial_values<T: Clone>(
    n: &ast::DeclName,
    len: Option<u32>,
    init: Option<&ast::InitValue>,
    mut value: impl FnMut(&ast::Expr) -> Result<T, Diag>,
) -> Result<Option<Vec<T>>, Diag> {
    let cells = len.unwrap_or(1) as usize;
    match init {
        None => Ok(None),
        Some(ast::InitValue::One(e)) => Ok(Some(vec![value(e)?; cells])),
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
            Ok(Some(es.iter().map(value).collect::<Result<_, _>>()?))
        }
    }
}
