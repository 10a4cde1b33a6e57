//! The state space as the exploring engines store it, below every engine so that they
//! share it as peers: a bit-packed store of global states ([`store::StateStore`]), the
//! search tree that remembers how each state was first reached (witnesses), the dead and
//! faulty states found, and the store's counters, which the explicit and stubborn
//! searches flatten into theirs.

pub(crate) mod store;

pub use store::StoreCounters;
pub(crate) use store::{FoundStates, SearchTree};
