//! Tables of cutoffs built before an exploration from the system alone, so that every
//! replica of a split exploration cuts the same events: the [`distances`] a breadth-first
//! search finds, and the [`canonical`] cutoffs of the complete ERV prefix. The program
//! unfolding consults them; they need none of its events, only the shared
//! [`fingerprint`](super::fingerprint)s.

pub(crate) mod canonical;
pub(crate) mod distances;

pub(crate) use canonical::{CanonicalCutoffs, CanonicalError};
pub(crate) use distances::{default_table_states, StateDistances};
