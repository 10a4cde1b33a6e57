//! The NP-hardness reductions of the paper (docs/reductions.md;
//! docs/paper.md#np-hardness): instance
//! generators from CNF formulas, readers of the instance files, and deciders that answer
//! the instances with qpor's own algorithms (`docs/reductions.md`).
//!
//! - [`pes`]: Theorem 4.1, an explicit PES where an alternative to D after C = ∅ exists
//!   iff φ is satisfiable;
//! - [`program`]: Theorem 4.2, the same question in the unfolding of a lock-only program;
//! - [`net`]: Theorem 4.3, a P/T net with non-safe places, a configuration C and a target
//!   transition t* such that cex(C) holds a t*-event iff φ is satisfiable;
//! - [`instance`]: what kind an instance file is (by its content) and its question;
//! - [`decide`]: the Alt decider behind `qpor decide alt`;
//! - [`cex`]: the cex decider behind `qpor decide cex`, on the general backend;
//! - [`random`]: random k-CNF formulas from a seed, for tests and benches.

pub(crate) mod cex;
pub(crate) mod decide;
pub(crate) mod instance;
pub(crate) mod net;
pub(crate) mod pes;
pub(crate) mod program;
pub(crate) mod random;

pub use cex::{decide_cex, CexAnswer, CexOptions};
pub use decide::{decide_alt, AltAnswer, DecideError, DecideOptions};
pub use instance::{Instance, InstanceKind};
