//! Local variable declarations: slots, scopes and the assignments of initial values.

use super::super::ast::{self, Ident};
use super::super::check::{check_initial, initial_values, Front, LocalSym};
use super::super::Diag;
use super::Builder;
use crate::system::program::{Expr, LValue, LocalArray, OpKind, Slot, ValTy};

impl Builder<'_, '_> {
    pub(super) fn local_var(&mut self, d: &ast::VarDecl) -> Result<(), Diag> {
        let ty = self.f.value_type(&d.ty, d.ty_span)?;
        let text = self.f.snippet(d.span);
        for n in &d.names {
            let len = self.f.array_size(n)?;
            // The initialiser is read before the name is in scope.
            let init = initial_values(n, len, d.init.as_ref(), |e| self.init_expr(e, &ty, &n.name.name))?
                .unwrap_or_default();
            let default = Front::default_value(&ty);
            match len {
                None => {
                    let value = match init.into_iter().next() {
                        Some(x) => Some(x),
                        None if default != 0 => Some(Expr::Const(default)),
                        None => None,
                    };
                    self.local_scalar(&n.name, ty, value, d, &text)?;
                }
                Some(len) => {
                    let values: Vec<Expr> = if init.is_empty() {
                        vec![Expr::Const(default); len as usize]
                    } else {
                        init
                    };
                    self.local_array(&n.name, ty, values, d, &text)?;
                }
            }
        }
        Ok(())
    }

    /// Declares scalar `name` and assigns `value` to it, if any (a fresh slot holds 0).
    fn local_scalar(
        &mut self,
        name: &Ident,
        ty: ValTy,
        value: Option<Expr>,
        d: &ast::VarDecl,
        text: &str,
    ) -> Result<(), Diag> {
        let slot = self.new_slot(name.name.clone(), Some(ty), None);
        self.declare_local(name, LocalSym::Scalar { slot, ty })?;
        self.record_decl(slot, 1);
        if let Some(value) = value {
            let shared = value.reads_shared();
            self.emit(
                OpKind::Assign {
                    target: LValue::Local(slot),
                    value,
                },
                d.span,
                text.to_string(),
                shared,
            );
        }
        Ok(())
    }

    /// Declares array `name` with one slot per value and assigns the values that are not 0.
    fn local_array(
        &mut self,
        name: &Ident,
        ty: ValTy,
        values: Vec<Expr>,
        d: &ast::VarDecl,
        text: &str,
    ) -> Result<(), Diag> {
        let len = values.len() as u32;
        let array = self.arrays.len() as u32;
        let base = self.slots.len() as Slot;
        for k in 0..len {
            self.new_slot(format!("{}[{k}]", name.name), Some(ty), Some(array));
        }
        self.arrays.push(LocalArray {
            name: name.name.clone(),
            base,
            len,
            ty,
        });
        self.declare_local(name, LocalSym::Array { array, len, ty })?;
        self.record_decl(base, len);
        for (k, value) in values.into_iter().enumerate() {
            if value == Expr::Const(0) {
                continue;
            }
            let shared = value.reads_shared();
            self.emit(
                OpKind::Assign {
                    target: LValue::LocalElem {
                        array,
                        index: Expr::Const(k as i64),
                    },
                    value,
                },
                d.span,
                text.to_string(),
                shared,
            );
        }
        Ok(())
    }

    /// An initial value of local `name`, of type `ty`.
    fn init_expr(&self, e: &ast::Expr, ty: &ValTy, name: &str) -> Result<Expr, Diag> {
        let (x, t) = self.expr(e)?;
        let value = match x {
            Expr::Const(v) => Some(v),
            _ => None,
        };
        check_initial(e, t, value, ty, name)?;
        Ok(x)
    }
}
