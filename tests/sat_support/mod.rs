//! An independent SAT oracle (batsat) for the tests and the bench of the NP-hardness
//! reductions.

use batsat::{lbool, BasicSolver, Lit, SolverInterface};
use qpor::formats::dimacs::Cnf;

/// The solver's verdict on `cnf`.
pub fn solver_says_sat(cnf: &Cnf) -> bool {
    let mut s = BasicSolver::default();
    let vars: Vec<_> = (0..cnf.num_vars).map(|_| s.new_var_default()).collect();
    for c in &cnf.clauses {
        let mut lits: Vec<Lit> = c
            .iter()
            .map(|&l| Lit::new(vars[l.unsigned_abs() as usize - 1], l > 0))
            .collect();
        s.add_clause_reuse(&mut lits);
    }
    s.solve_limited(&[]) == lbool::TRUE
}
