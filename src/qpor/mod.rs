//! Quasi-Optimal Partial Order Reduction: Algorithm 1 of the paper over an
//! [`Unfolding`](crate::unfold::Unfolding) (docs/design.md#qpor-algorithm-1;
//! docs/paper.md#algorithm-1, docs/paper.md#combs).
//!
//! - [`explore`](mod@explore): the exploration itself, iterative;
//! - [`alt`]: the alternatives — k-partial (combs), optimal, SDPOR-like;
//! - [`parallel`]: the exploration on several threads (`--jobs`);
//! - [`replica`]: what a task of a split exploration does in its unfolding replica;
//! - [`distributed`]: the exploration on several processes (`--distributed`, MPI);
//! - [`engine`]: QPOR as an [`Engine`](crate::engine::Engine), on either unfolding.

pub(crate) mod alt;
pub(crate) mod distributed;
pub(crate) mod engine;
pub mod explore;
pub(crate) mod parallel;
pub(crate) mod replica;

pub use alt::AltMode;
pub use distributed::{ChannelTransport, Transport};
pub use engine::{
    check_net, check_system, check_system_distributed, QporOptions, DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS,
};
pub use explore::{explore, ExploreOptions, ExploreOutcome, LeafKind, NoTree, TreeListener};
