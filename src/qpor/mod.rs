//! Quasi-Optimal Partial Order Reduction: Algorithm 1 of the paper over an
//! [`Unfolding`](crate::unfold::Unfolding) (docs/design.md#qpor-algorithm-1;
//! docs/paper.md#algorithm-1, docs/paper.md#combs).
//!
//! - [`explore`](mod@explore): the exploration itself, iterative;
//! - [`alt`]: the alternatives — k-partial (combs), optimal, SDPOR-like;
//! - [`driver`]: the split exploration's task driver, one for threads and processes,
//!   with rank 0's [`coordinator`], the [`wire`] messages and their [`transport`];
//! - [`replica`]: what a task of a split exploration does in its unfolding replica;
//! - [`parallel`]: the split exploration on several threads (`--threads`);
//! - [`distributed`]: the split exploration on several processes (`--distributed`, MPI);
//! - [`engine`]: QPOR as an [`Engine`](crate::engine::Engine), on either unfolding;
//! - [`report`]: its counters and settings, as its reports carry them.

pub(crate) mod alt;
pub(crate) mod coordinator;
pub(crate) mod distributed;
pub(crate) mod driver;
pub(crate) mod engine;
pub mod explore;
pub(crate) mod parallel;
pub(crate) mod replica;
pub(crate) mod report;
pub(crate) mod transport;
pub(crate) mod wire;

pub use alt::AltMode;
pub use engine::{
    check_net, check_system, check_system_distributed, Exploration, QporOptions,
    DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS,
};
pub use explore::{explore, ExploreOptions, ExploreOutcome, LeafKind, NoTree, TreeListener};
pub use replica::{SplitPolicy, FIXED_SPLIT_NODES};
pub use report::{AltSetting, AlwaysEnabledCounters, QporCounters, QporSettings};
pub use transport::{ChannelTransport, Transport};
