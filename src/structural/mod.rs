//! Reasoning about P/T nets from their structure instead of their states: reductions that
//! keep deadlocks (`reduce`), and later the proofs of deadlock freedom built on them.

pub(crate) mod reduce;

pub use reduce::{reduce, ReducedNet};
