//! Reasoning about P/T nets from their structure instead of their states: reductions that
//! keep deadlocks both ways (`reduce`), and the state-equation proof of deadlock freedom
//! with trap refinement (`state_equation`), whose dead solutions `realise` tries to fire
//! as a deadlock witness, all run by the `lp` engine (`engine`).

mod engine;
mod realise;
pub(crate) mod reduce;
pub(crate) mod state_equation;

pub use engine::LpOptions;
pub use reduce::{reduce, ReducedNet};
