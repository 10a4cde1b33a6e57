//! Quasi-Optimal Partial Order Reduction: Algorithm 1 of the paper over an [`Unfolding`]
//! (DESIGN.md §1 "QPOR"; paper.md §2, §4).
//!
//! - [`explore`](mod@explore): the exploration itself, iterative;
//! - [`alt`]: the alternatives — k-partial (combs), optimal, SDPOR-like.

pub mod alt;
pub mod explore;

pub use alt::AltMode;
pub use explore::{explore, LeafKind, NoTree, QporOptions, QporOutcome, TreeListener};

use crate::unfold::Unfolding;
