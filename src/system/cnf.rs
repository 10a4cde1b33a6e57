//! Formulas in conjunctive normal form, DIMACS style: the data the DIMACS reader gives
//! (`crate::parse::dimacs`, the input of the NP-hardness constructions) and the deadlock
//! formula the `prefix-sat` engine builds and solves (`crate::prefix_sat`). One type for
//! both, here, in the lowest layer the two use.
//!
//! # Invariants
//! - A literal is a non-zero [`Lit`]: `v` is xᵥ and `-v` is ¬xᵥ, with 1 ≤ v ≤
//!   [`Cnf::num_vars`] ([`Cnf::is_well_formed`]; the reader and the formula builder keep it).

use std::io::{self, Write};

/// A literal: a variable number (from 1) with a sign, as in DIMACS.
pub type Lit = i32;

/// A formula in conjunctive normal form over the variables x₁ … xₙ.
///
/// A literal is a non-zero `i32`, DIMACS style: `v` is xᵥ and `-v` is ¬xᵥ, with
/// 1 ≤ v ≤ [`Cnf::num_vars`].
///
/// ```
/// use qpor::formats::dimacs::{parse, Cnf};
/// let (cnf, warnings) = parse("c (x1 | -x2) & -x1\np cnf 2 2\n1 -2 0\n-1 0\n", "f.cnf").unwrap();
/// assert!(warnings.is_empty());
/// assert_eq!(cnf, Cnf::new(2, vec![vec![1, -2], vec![-1]]));
/// assert!(cnf.satisfied_by(&[false, false]));
/// assert!(!cnf.satisfied_by(&[true, false]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Cnf {
    /// Number of variables n (a DIMACS header's count; some may occur in no clause).
    pub num_vars: u32,
    /// The clauses, each a list of literals, in file (or construction) order.
    pub clauses: Vec<Vec<Lit>>,
}

impl Cnf {
    /// A formula over `num_vars` variables.
    pub fn new(num_vars: u32, clauses: Vec<Vec<Lit>>) -> Cnf {
        Cnf { num_vars, clauses }
    }

    /// A fresh variable, x_{n+1}, as a positive literal.
    pub(crate) fn new_var(&mut self) -> Lit {
        self.num_vars += 1;
        self.num_vars as Lit
    }

    /// Whether every literal names a variable in 1..=n (true for every parsed formula).
    pub fn is_well_formed(&self) -> bool {
        self.clauses
            .iter()
            .flatten()
            .all(|&l| l != 0 && l.unsigned_abs() <= self.num_vars)
    }

    /// The total number of literals in the clauses.
    pub fn literals(&self) -> u64 {
        self.clauses.iter().map(|c| c.len() as u64).sum()
    }

    /// Whether `assignment` (`assignment[v - 1]` is the value of xᵥ) satisfies every clause.
    /// Variables beyond the slice count as false.
    pub fn satisfied_by(&self, assignment: &[bool]) -> bool {
        self.first_falsified(assignment).is_none()
    }

    /// The index of the first clause that `assignment` falsifies, if any.
    pub fn first_falsified(&self, assignment: &[bool]) -> Option<usize> {
        self.clauses
            .iter()
            .position(|c| !c.iter().any(|&l| literal_value(l, assignment)))
    }

    /// Writes the formula in DIMACS, the header and then one clause per line.
    pub fn write_dimacs(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "p cnf {} {}", self.num_vars, self.clauses.len())?;
        for clause in &self.clauses {
            for lit in clause {
                write!(out, "{lit} ")?;
            }
            writeln!(out, "0")?;
        }
        Ok(())
    }

    /// The formula in DIMACS, as [`Cnf::write_dimacs`] writes it and the DIMACS reader
    /// reads it back.
    pub fn to_dimacs(&self) -> String {
        let mut out = Vec::new();
        self.write_dimacs(&mut out)
            .expect("[qpor internal bug] writing to a Vec cannot fail");
        String::from_utf8(out).expect("[qpor internal bug] DIMACS text is ASCII")
    }

    /// The clause as text, `x1 | -x2` (`false` for the empty clause).
    pub fn clause_text(clause: &[Lit]) -> String {
        if clause.is_empty() {
            return "false".into();
        }
        let parts: Vec<String> = clause
            .iter()
            .map(|&l| {
                if l < 0 {
                    format!("-x{}", -(l as i64))
                } else {
                    format!("x{l}")
                }
            })
            .collect();
        parts.join(" | ")
    }
}

/// The value of literal `l` under `assignment` (missing variables are false).
pub fn literal_value(l: Lit, assignment: &[bool]) -> bool {
    let v = assignment
        .get(l.unsigned_abs() as usize - 1)
        .copied()
        .unwrap_or(false);
    if l > 0 {
        v
    } else {
        !v
    }
}
