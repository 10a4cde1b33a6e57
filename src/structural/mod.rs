//! Reasoning about P/T nets from their structure instead of their states: reductions that
//! keep deadlocks both ways (`reduce`), and the state-equation proof of deadlock freedom
//! with trap refinement (`state_equation`), whose dead solutions `realise` tries to fire
//! as a deadlock witness, all run by the `lp` engine (`engine`).
//!
//! Z3 answers the state equation and the implicit-place rule's linear programs, so both
//! exist only in a build with the `lp` feature (on by default); without it the other
//! reduction rules still run.

#[cfg(feature = "lp")]
mod engine;
#[cfg(feature = "lp")]
mod realise;
pub(crate) mod reduce;
pub(crate) mod siphon_trap;
#[cfg(feature = "lp")]
pub(crate) mod state_equation;

#[cfg(feature = "lp")]
pub use engine::{LpCounters, LpOptions};
pub(crate) use reduce::reduce_cheaply;
#[cfg(feature = "lp")]
pub(crate) use reduce::{disconnect_implicit_places, implicit_time_share};
pub use reduce::{reduce, reduce_keeping, Keep, ReducedNet};
