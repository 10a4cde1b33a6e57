//! What QPOR's report carries of its own: its counters and its settings, typed here and
//! handed to the shared report as sections ([`crate::engine::Counters::of`],
//! [`crate::engine::Settings::of`]).

use serde::{Deserialize, Serialize};

/// Counters of QPOR: the exploration tree, the unfolding and Alt.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct QporCounters {
    /// Leaves with en(C) = ∅ (dead states and cutoff leaves).
    pub max_configurations: u64,
    /// Sleep-set-blocked leaves.
    pub ssbs: u64,
    /// Maximal configurations stopped by cutoffs (their state still enables a step).
    pub cutoff_leaves: u64,
    /// Maximal configurations whose state is a deadlock.
    pub deadlocks: u64,
    /// Maximal configurations whose state is final.
    pub terminations: u64,
    /// Events created in all.
    pub events: u64,
    /// Most events alive at once (the pruned U).
    pub peak_live_events: u64,
    /// Events found to be cutoffs.
    pub cutoff_events: u64,
    /// Combs built by Alt.
    pub comb_calls: u64,
    /// Calls of Alt.
    pub alt_calls: u64,
    /// Most spikes in one comb.
    pub max_comb_size: u64,
    /// Longest configuration explored.
    pub max_depth: u64,
    /// Times U was pruned.
    pub prunes: u64,
    /// Tasks of a parallel or distributed exploration (`--threads`, `--distributed`), if it
    /// was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<u64>,
    /// Messages between the processes of a distributed exploration, both ways.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    /// Their bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_bytes: Option<u64>,
    /// States in the table of distance cutoffs (`--cutoff distance`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_table_states: Option<u64>,
    /// The largest distance in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_table_radius: Option<u64>,
    /// Events of the complete ERV prefix built for `--cutoff canonical`, cutoffs included
    /// (of the unfinished prefix, when the run ended while it was built).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_prefix_events: Option<u64>,
    /// Its cutoff events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_prefix_cutoffs: Option<u64>,
}

/// QPOR's answer without exploration: an enabled action touches no component, so it is
/// enabled in every reachable state and nothing can deadlock.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct AlwaysEnabledCounters {
    /// The index of that action.
    pub always_enabled_action: u64,
}

/// How QPOR was set up, where it matters to read its numbers.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct QporSettings {
    /// The alternatives: `k`, or `optimal`, `sdpor`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<AltSetting>,
    /// The adequate order deciding cutoffs (`erv`, `mcmillan`, `none`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cutoff: Option<String>,
    /// The unfolding explored (`program`, `general`).
    pub unfolding: String,
    /// Threads of a parallel exploration, if it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Processes of a distributed exploration, if it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<usize>,
    /// Where a split exploration (parallel, distributed, or k-partial on one thread) split
    /// its work: `fixed` (at nodes each task decides alone: every count is the same for
    /// any number of workers) or `when-idle` (while a worker waited for work).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub splits: Option<String>,
}

/// QPOR's alternatives as a setting: a number k, or a name.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AltSetting {
    /// k-partial alternatives.
    K(usize),
    /// `optimal` or `sdpor`.
    Named(String),
}
