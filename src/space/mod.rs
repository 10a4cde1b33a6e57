//! The state space as the exploring engines store it, below every engine so that they
//! share it as peers: a bit-packed store of global states ([`store::StateStore`]), the
//! search tree that remembers how each state was first reached (witnesses), the dead and
//! faulty states found, and the store's counters, which the explicit and stubborn
//! searches flatten into theirs; and the breadth-first search that answers reachability
//! properties ([`properties`]), which both run with their own choice of steps.

pub(crate) mod properties;
pub(crate) mod store;

pub use store::StoreCounters;
pub(crate) use store::{FoundStates, SearchTree};
