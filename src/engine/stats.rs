//! What a run cost and counted: typed counters per engine, time and memory.

use serde::Serialize;

/// Counters and resources of a run. In JSON one flat object: the engine's counters, then
/// `seconds` and `peak_rss_bytes`.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Stats {
    /// The engine's own counters.
    #[serde(flatten)]
    pub counters: Counters,
    /// Wall-clock time of the exploration, in seconds.
    pub seconds: f64,
    /// Peak resident memory of the process, in bytes (0 where the OS does not say).
    pub peak_rss_bytes: u64,
}

impl Stats {
    /// The stats of a run that counted `counters` in `seconds`, with the process's peak
    /// memory so far.
    pub fn new(counters: Counters, seconds: f64) -> Stats {
        Stats {
            counters,
            seconds,
            peak_rss_bytes: peak_rss_bytes(),
        }
    }

    /// The counter called `name` (its JSON name), if the engine reports it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.counters
            .list()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
}

/// The counters of each engine, typed, in the order reports list them.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(untagged)]
pub enum Counters {
    /// The explicit-state search.
    Explicit(ExplicitCounters),
    /// QPOR (Algorithm 1).
    Qpor(QporCounters),
    /// The random walk.
    Walk(WalkCounters),
    /// The stubborn-set search.
    Stubborn(StubbornCounters),
    /// The state equation.
    Lp(LpCounters),
    /// The complete prefix and its deadlock formula.
    PrefixSat(PrefixSatCounters),
    /// A portfolio: each engine's counters are in its own entry of the report.
    Portfolio {
        /// Engines started.
        engines_started: u64,
    },
    /// QPOR's answer without exploration: an enabled action touches no component, so it
    /// is enabled in every reachable state and nothing can deadlock.
    AlwaysEnabled {
        /// The index of that action.
        always_enabled_action: u64,
    },
}

impl Counters {
    /// The counters as (JSON name, value) pairs, in report order.
    pub fn list(&self) -> Vec<(String, u64)> {
        // One schema: the names and order come from the serialised form (serde_json keeps
        // field order), so text and JSON cannot drift apart.
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(m)) => m
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.as_u64()?)))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Counters of the explicit-state search.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct ExplicitCounters {
    /// The state store.
    #[serde(flatten)]
    pub store: StoreCounters,
    /// States whose successors were computed.
    pub expanded: u64,
    /// Transitions fired (with repeats).
    pub edges: u64,
    /// Expanded states without successors.
    pub dead_states: u64,
    /// Dead states that are final.
    pub terminations: u64,
}

/// Counters of a search that stores states (explicit, stubborn).
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct StoreCounters {
    /// Distinct states stored.
    pub states: u64,
    /// Bits of one packed state.
    pub state_bits: u64,
    /// Bytes per stored state, table included.
    pub bytes_per_state: u64,
    /// Stored states per second of the run.
    pub states_per_second: u64,
}

/// Counters of the stubborn-set search.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct StubbornCounters {
    /// The state store.
    #[serde(flatten)]
    pub store: StoreCounters,
    /// States whose stubborn set was computed and fired.
    pub expanded: u64,
    /// Transitions fired (with repeats).
    pub edges: u64,
    /// Transitions enabled at the expanded states, fired or not: `edges / enabled` is
    /// the share the reduction kept.
    pub enabled: u64,
    /// Expanded states without successors.
    pub dead_states: u64,
    /// Dead states where every process had ended (programs).
    pub terminations: u64,
    /// States expanded fully because a reduced successor had been stored before them
    /// (the cycle proviso that keeps faults, programs only).
    pub cycle_expansions: u64,
}

/// Counters of the state-equation check.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct LpCounters {
    /// Places of the net it was given.
    pub places: u64,
    /// Transitions of the net it was given.
    pub transitions: u64,
    /// Calls of the solver.
    pub solver_calls: u64,
    /// Trap constraints added to rule out candidates.
    pub trap_constraints: u64,
    /// Dead solutions no firing order was found for, set aside to ask for another.
    pub candidates_set_aside: u64,
}

/// Counters of the prefix + SAT check.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct PrefixSatCounters {
    /// Events of the prefix, cutoffs included.
    pub events: u64,
    /// Conditions of the prefix.
    pub conditions: u64,
    /// Cutoff events.
    pub cutoffs: u64,
    /// Milliseconds spent building the prefix.
    pub prefix_ms: u64,
    /// Variables of the formula (at the end: blocking adds counters).
    pub variables: u64,
    /// Clauses of the formula (at the end).
    pub clauses: u64,
    /// Calls of the SAT solver.
    pub solver_calls: u64,
    /// Milliseconds spent encoding and solving.
    pub sat_ms: u64,
}

/// Counters of the random walk.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct WalkCounters {
    /// Walks started from the initial state.
    pub walks: u64,
    /// Steps fired in all walks.
    pub steps: u64,
    /// Walks that ended in a dead state.
    pub dead_states: u64,
    /// Walks that ended in a final dead state.
    pub terminations: u64,
}

/// Counters of QPOR: the exploration tree, the unfolding and Alt.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
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
    /// Tasks of a parallel or distributed exploration (`--jobs`, `--distributed`), if it
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

/// Resident memory of this process now, in bytes (Linux `VmRSS`), 0 if unknown.
pub fn current_rss_bytes() -> u64 {
    proc_status_bytes("VmRSS:")
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), 0 if unknown.
pub fn peak_rss_bytes() -> u64 {
    proc_status_bytes("VmHWM:")
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn proc_status_bytes(field: &str) -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}
