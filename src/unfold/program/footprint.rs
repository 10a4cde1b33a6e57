//! Measuring what the history summaries cost, against the two ways of storing them that
//! copy a history per event (for `cargo bench --bench summaries`).

use super::summary::Tries;
use super::ProgramUnfolding;
use crate::system::System;

/// The memory of the history summaries of the live events (for measurements): the shared
/// tries qpor keeps, against a dense array per event (4 bytes per component) and a sparse
/// sorted list per event (8 bytes per component its history touches), which copy a
/// history per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummaryFootprint {
    /// Live events.
    pub events: u64,
    /// Components of the system.
    pub components: u64,
    /// Bytes of the live trie nodes.
    pub trie_bytes: u64,
    /// Entries (component, maximum) over all live events' summaries.
    pub entries: u64,
}

impl SummaryFootprint {
    /// Trie bytes per live event.
    pub fn trie_bytes_per_event(&self) -> f64 {
        self.trie_bytes as f64 / self.events.max(1) as f64
    }

    /// Bytes per event of sparse sorted copies (a u32 component and a u32 event each).
    pub fn sparse_bytes_per_event(&self) -> f64 {
        8.0 * self.entries as f64 / self.events.max(1) as f64
    }

    /// Bytes per event of dense copies (a u32 event per component).
    pub fn dense_bytes_per_event(&self) -> f64 {
        4.0 * self.components as f64
    }
}

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
    /// What the history summaries of the live events cost, against the two ways of
    /// storing them that copy a history per event (see [`SummaryFootprint`]).
    pub fn summary_footprint(&self) -> SummaryFootprint {
        let mut entries = 0u64;
        let mut events = 0u64;
        for e in self.events.iter().filter(|e| e.alive) {
            events += 1;
            self.tries.for_each(e.summary, &mut |_, _| entries += 1);
        }
        SummaryFootprint {
            events,
            components: self.sys.num_components() as u64,
            trie_bytes: (self.tries.live_nodes() * Tries::NODE_BYTES) as u64,
            entries,
        }
    }
}
