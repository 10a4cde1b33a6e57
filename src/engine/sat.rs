//! The SAT solver the engines share (the prefix check, the siphon-trap check): batsat, fed
//! incrementally from a [`Cnf`] (a blocking clause or a new counter column adds clauses;
//! the question is chosen by assumptions), stopped by the budget through its `stop`
//! callback.

use crate::engine::Budget;
use crate::system::cnf::{Cnf, Lit};
use batsat::{lbool, Callbacks, SolverInterface, SolverOpts};

/// What a solver call found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Solved {
    /// A model: read it with [`Sat::value`].
    Sat,
    /// No model.
    Unsat,
    /// The budget ran out first.
    Stopped,
}

/// Asks the solver to stop when the budget is exhausted.
struct Stop(Budget);

impl Callbacks for Stop {
    fn stop(&self) -> bool {
        self.0.exhausted().is_some()
    }
}

/// A solver holding the clauses of one [`Cnf`] that it was given so far.
pub(crate) struct Sat {
    solver: batsat::Solver<Stop>,
    vars: Vec<batsat::Var>,
    fed: usize,
    /// Solver calls made.
    pub(crate) calls: u64,
}

impl Sat {
    /// An empty solver that stops when `budget` is exhausted.
    pub(crate) fn new(budget: &Budget) -> Sat {
        Sat {
            solver: batsat::Solver::new(SolverOpts::default(), Stop(budget.clone())),
            vars: Vec::new(),
            fed: 0,
            calls: 0,
        }
    }

    fn lit(&self, l: Lit) -> batsat::Lit {
        batsat::Lit::new(self.vars[(l.unsigned_abs() - 1) as usize], l > 0)
    }

    /// Solves the clauses of `cnf` (those not given before are added first) under
    /// `assumptions`.
    pub(crate) fn solve(&mut self, cnf: &Cnf, assumptions: &[Lit]) -> Solved {
        while (self.vars.len() as u32) < cnf.num_vars {
            let v = self.solver.new_var_default();
            self.vars.push(v);
        }
        let mut clause = Vec::new();
        for c in &cnf.clauses[self.fed..] {
            clause.clear();
            clause.extend(c.iter().map(|&l| self.lit(l)));
            // `false` means the clauses are unsatisfiable already; the solve says so.
            self.solver.add_clause_reuse(&mut clause);
        }
        self.fed = cnf.clauses.len();
        let assumed: Vec<batsat::Lit> = assumptions.iter().map(|&l| self.lit(l)).collect();
        self.calls += 1;
        let result = self.solver.solve_limited(&assumed);
        if result == lbool::TRUE {
            Solved::Sat
        } else if result == lbool::FALSE {
            Solved::Unsat
        } else {
            Solved::Stopped
        }
    }

    /// The value of `l` in the last model.
    pub(crate) fn value(&self, l: Lit) -> bool {
        self.solver.value_lit(self.lit(l)) == lbool::TRUE
    }
}
