//! Arguments several subcommands share, and their translation into library options.

use clap::{Args, ValueEnum};
use qpor::engines::qpor::AltMode;
use qpor::unfolding::Backend;
use qpor::unfolding::CutoffMode;
use qpor::Budget;
use std::time::Duration;

use super::memory::MemoryArg;

/// `--time-limit` and `--max-memory`, for the commands whose work stops where it is and
/// reports what it has (`info`, `reduce-net`).
#[derive(Args, Clone, Copy, Debug)]
pub struct PartialWorkLimits {
    /// Stop after this many seconds; what was not done by then is reported as not known
    /// or partial.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    #[command(flatten)]
    pub memory: MemoryArg,
}

impl PartialWorkLimits {
    /// The time limit, and the budget it starts now, cancelled when the process passes
    /// the memory cap.
    pub fn start(self) -> Result<(Option<Duration>, Budget), String> {
        let limit = time_limit(self.time_limit)?;
        let cap = self.memory.enforce()?;
        Ok((limit, Budget::new(limit).with_cancel(cap.token)))
    }
}

/// `--unfolding`: which unfolding backend.
#[derive(Clone, Copy, ValueEnum)]
pub enum UnfoldingArg {
    Auto,
    Program,
    General,
}

impl From<UnfoldingArg> for Backend {
    fn from(u: UnfoldingArg) -> Backend {
        match u {
            UnfoldingArg::Auto => Backend::Auto,
            UnfoldingArg::Program => Backend::Program,
            UnfoldingArg::General => Backend::General,
        }
    }
}

/// `--cutoff` of `qpor unfold`: the adequate orders a complete prefix is built with.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PrefixCutoffArg {
    /// A smaller history with the same state in the total ERV order: the fewest events.
    Erv,
    /// A shorter history with the same state (McMillan's order).
    Mcmillan,
}

impl From<PrefixCutoffArg> for CutoffMode {
    fn from(c: PrefixCutoffArg) -> CutoffMode {
        match c {
            PrefixCutoffArg::Erv => CutoffMode::Erv,
            PrefixCutoffArg::Mcmillan => CutoffMode::McMillan,
        }
    }
}

/// `--cutoff`: the adequate order deciding cutoff events, or none.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CutoffArg {
    /// A smaller history with the same state in the total ERV order: the fewest events.
    Erv,
    /// A shorter history with the same state (McMillan's order).
    Mcmillan,
    /// A cause with the same state: decided by the event's history alone, so QPOR can
    /// run on several threads or processes with it.
    Causal,
    /// A firing sequence to the event's state smaller in the ERV order, in a table a
    /// breadth-first search fills up front (see --distance-states), or else a cause with
    /// the same state: QPOR on several threads or processes, with fewer events than ERV
    /// where the table holds the states.
    Distance,
    /// The cutoffs of the complete ERV prefix, built first: each state keeps its least
    /// history only, decided by the event's history alone, so QPOR runs on several
    /// threads or processes with it, and it usually cuts more than ERV.
    Canonical,
    /// No cutoffs: the plain unfolding, finite on acyclic behaviour only.
    None,
}

impl From<CutoffArg> for CutoffMode {
    fn from(c: CutoffArg) -> CutoffMode {
        match c {
            CutoffArg::Erv => CutoffMode::Erv,
            CutoffArg::Mcmillan => CutoffMode::McMillan,
            CutoffArg::Causal => CutoffMode::Causal,
            CutoffArg::Distance => CutoffMode::Distance,
            CutoffArg::Canonical => CutoffMode::Canonical,
            CutoffArg::None => CutoffMode::None,
        }
    }
}

/// QPOR's alternatives: `-k N`, `--optimal` or `--sdpor`.
#[derive(Args)]
pub struct AltArgs {
    /// QPOR: k-partial alternatives (comb of the k newest unjustified events; default 3).
    #[arg(short = 'k', value_name = "N", conflicts_with_all = ["optimal", "sdpor"])]
    k: Option<usize>,
    /// QPOR: optimal alternatives (k = infinity): no sleep-set-blocked executions.
    #[arg(long, conflicts_with = "sdpor")]
    optimal: bool,
    /// QPOR: singleton alternatives, the SDPOR view of the paper.
    #[arg(long)]
    sdpor: bool,
}

impl AltArgs {
    /// Whether `-k` was given.
    pub fn given_k(&self) -> bool {
        self.k.is_some()
    }

    /// Whether `--optimal` was given.
    pub fn given_optimal(&self) -> bool {
        self.optimal
    }

    /// Whether `--sdpor` was given.
    pub fn given_sdpor(&self) -> bool {
        self.sdpor
    }

    /// The alternatives asked for.
    pub fn mode(&self) -> Result<AltMode, String> {
        Ok(match (self.k, self.optimal, self.sdpor) {
            (Some(0), _, _) => {
                return Err("-k 0: k must be at least 1 (use --optimal for k = infinity)".into())
            }
            (Some(k), _, _) => AltMode::KPartial(k),
            (None, true, _) => AltMode::Optimal,
            (None, _, true) => AltMode::Sdpor,
            (None, false, false) => AltMode::default(),
        })
    }
}

/// `--time-limit S` as a duration: a positive number of seconds. A limit too large for a
/// duration is no limit at all.
pub fn time_limit(seconds: Option<f64>) -> Result<Option<Duration>, String> {
    match seconds {
        None => Ok(None),
        Some(s) if !(s.is_finite() && s > 0.0) => {
            Err(format!("--time-limit {s}: expected a positive number of seconds"))
        }
        Some(s) => Ok(Duration::try_from_secs_f64(s).ok()),
    }
}
