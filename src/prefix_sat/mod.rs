//! Deadlocks from the complete prefix with a SAT solver (Khomenko & Koutny; Rodríguez &
//! Schwoon's `cna`; docs/paper.md#deadlocks-by-sat): one query — is there a cutoff-free
//! configuration of the complete prefix whose cut enables no event? — instead of an
//! enumeration of configurations or states.
//!
//! The prefix comes from either backend ([`crate::unfold::prefix`]); [`formula`] writes the
//! question in CNF (and says why it is sound and complete), [`solver`] hands it to the SAT
//! solver, and [`engine`] runs the loop: a model is a configuration, fired on the system
//! (prefix order is a linearisation) and checked dead before it is reported; with `--all`
//! the marking found is blocked and the solver asked again, incrementally, until it
//! answers UNSAT. UNSAT on a complete prefix means no deadlock. A net's reachability
//! properties are asked the same way (`reach`): a configuration whose cut satisfies the
//! property's target, or UNSAT.

mod engine;
mod formula;
mod reach;

pub use crate::system::cnf::{Cnf, Lit};
pub use engine::{PrefixSatCounters, PrefixSatOptions, PrefixSatSettings};

/// The deadlock formula of a complete prefix (the one `prefix-sat` solves first), for
/// `qpor unfold --cnf` and the solver measurements. `faults` are the prefix's fault events
/// ([`crate::unfold::prefix::PrefixOutcome::faults`]).
pub fn deadlock_cnf(prefix: &crate::unfold::prefix::Prefix, faults: &[u32]) -> Cnf {
    formula::PrefixFormula::deadlock(prefix, faults).cnf().clone()
}
