//! What `qpor check` can be asked, as the library takes it: the engine chosen with the
//! options only it takes ([`EngineChoice`]), the limits every engine shares ([`Limits`]),
//! and the options of the check itself. An option an engine would ignore cannot be
//! written down (the explicit search has no seed to give); what can still contradict —
//! a limit the engine does not count, cutoffs the threads cannot share —
//! [`CheckOptions::validate`] refuses, with the words the command line prints.

use crate::engine::{CancelToken, Engine, Question};
use crate::explicit::ExplicitOptions;
use crate::prefix_sat::PrefixSatOptions;
use crate::qpor::{AltMode, Exploration, QporOptions, SplitPolicy};
#[cfg(feature = "lp")]
use crate::structural::LpOptions;
use crate::stubborn::{SearchOrder, StubbornOptions};
use crate::system::model::SystemOptions;
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::Backend;
use crate::walk::WalkOptions;
use std::time::{Duration, Instant};

/// The engines by name, as `--engine` spells them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EngineName {
    /// The portfolio: several engines on threads, the first conclusive answer wins.
    #[default]
    Auto,
    /// Quasi-optimal partial order reduction over an unfolding (Algorithm 1).
    Qpor,
    /// Breadth-first search over global states: the oracle and the baseline.
    Explicit,
    /// Random walks: finds deadlocks, never proves their absence.
    Walk,
    /// A search over global states that fires only a stubborn set's transitions.
    Stubborn,
    /// The state equation with trap constraints: proves deadlock freedom of nets, or
    /// fires a dead solution as a deadlock, or says nothing.
    Lp,
    /// The complete finite prefix and a SAT solver: one query for a dead configuration.
    PrefixSat,
}

impl EngineName {
    /// Every engine, in the order `--engine` lists them.
    pub const ALL: [EngineName; 7] = [
        EngineName::Auto,
        EngineName::Qpor,
        EngineName::Explicit,
        EngineName::Walk,
        EngineName::Stubborn,
        EngineName::Lp,
        EngineName::PrefixSat,
    ];

    /// The engine's name, as `--engine` spells it.
    pub fn name(self) -> &'static str {
        match self {
            EngineName::Auto => "auto",
            EngineName::Qpor => "qpor",
            EngineName::Explicit => "explicit",
            EngineName::Walk => "walk",
            EngineName::Stubborn => "stubborn",
            EngineName::Lp => "lp",
            EngineName::PrefixSat => "prefix-sat",
        }
    }

    /// Whether a check with this engine works on the reduced net unless told otherwise:
    /// the portfolio and the state equation do; an exploring engine explores the net as
    /// given.
    pub fn reduces_by_default(self) -> bool {
        matches!(self, EngineName::Auto | EngineName::Lp)
    }

    /// This engine with its default options.
    pub fn with_defaults(self) -> EngineChoice {
        match self {
            EngineName::Auto => EngineChoice::Auto(PortfolioChoice::default()),
            EngineName::Qpor => EngineChoice::Qpor(QporChoice::default()),
            EngineName::Explicit => EngineChoice::Explicit,
            EngineName::Walk => EngineChoice::Walk { seed: 0 },
            EngineName::Stubborn => EngineChoice::Stubborn {
                order: SearchOrder::default(),
            },
            EngineName::Lp => EngineChoice::Lp,
            EngineName::PrefixSat => EngineChoice::PrefixSat {
                unfolding: UnfoldingChoice::default(),
            },
        }
    }
}

/// How an unfolding engine (QPOR, prefix-sat) unfolds: the backend and the adequate
/// order deciding cutoffs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct UnfoldingChoice {
    /// The backend (`--unfolding`).
    pub backend: Backend,
    /// The adequate order deciding cutoffs (`--cutoff`).
    pub cutoff: CutoffMode,
}

/// QPOR's own options, as `--engine qpor` takes them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct QporChoice {
    /// How alternatives are computed (`-k N`, `--optimal`, `--sdpor`).
    pub alt: AltMode,
    /// The unfolding and its cutoffs.
    pub unfolding: UnfoldingChoice,
    /// `--cutoff distance`: how many states the table of distances may hold (`None`: what
    /// fits its default memory).
    pub distance_states: Option<usize>,
    /// With cutoffs every thread decides alike (none, causal, distance, canonical): how
    /// many threads explore (`--threads`; `None`: one per core).
    pub threads: Option<usize>,
    /// Explore Algorithm 1's single tree, on one thread (`--single-tree`). Without it,
    /// k-partial and SDPOR runs with cutoffs every task decides alike split their work
    /// into tasks at nodes fixed by the model alone, on `threads` threads, and every count
    /// is the same for any `threads`.
    pub single_tree: bool,
    /// Never prune the unfolding (for measurements).
    pub no_prune: bool,
}

/// The portfolio's own option and those of the engines it runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PortfolioChoice {
    /// How many engines run at once (`--jobs`; `None`: one per core).
    pub jobs: Option<usize>,
    /// QPOR's alternatives.
    pub alt: AltMode,
    /// QPOR's and prefix-sat's unfolding.
    pub unfolding: UnfoldingChoice,
    /// QPOR's table of distances, with `--cutoff distance`.
    pub distance_states: Option<usize>,
    /// The stubborn search's order.
    pub order: SearchOrder,
    /// The random walk's seed.
    pub seed: u64,
}

/// Which engine answers, with the options only it takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EngineChoice {
    /// The portfolio, with the options of the engines it runs.
    Auto(PortfolioChoice),
    /// QPOR (Algorithm 1).
    Qpor(QporChoice),
    /// The breadth-first search over global states.
    Explicit,
    /// Random walks.
    Walk {
        /// The seed of the random choices: the same seed gives the same walks.
        seed: u64,
    },
    /// The stubborn-set search.
    Stubborn {
        /// Depth, breadth or best first.
        order: SearchOrder,
    },
    /// The state equation.
    Lp,
    /// The complete prefix and a SAT solver.
    PrefixSat {
        /// The unfolding of the prefix and its cutoffs.
        unfolding: UnfoldingChoice,
    },
}

impl Default for EngineChoice {
    fn default() -> EngineChoice {
        EngineName::Auto.with_defaults()
    }
}

impl EngineChoice {
    /// The engine's name.
    pub fn name(&self) -> EngineName {
        match self {
            EngineChoice::Auto(_) => EngineName::Auto,
            EngineChoice::Qpor(_) => EngineName::Qpor,
            EngineChoice::Explicit => EngineName::Explicit,
            EngineChoice::Walk { .. } => EngineName::Walk,
            EngineChoice::Stubborn { .. } => EngineName::Stubborn,
            EngineChoice::Lp => EngineName::Lp,
            EngineChoice::PrefixSat { .. } => EngineName::PrefixSat,
        }
    }

    /// The unfolding QPOR and prefix-sat build under this choice (the default for the
    /// engines that build none).
    pub fn unfolding(&self) -> UnfoldingChoice {
        match self {
            EngineChoice::Auto(p) => p.unfolding,
            EngineChoice::Qpor(q) => q.unfolding,
            EngineChoice::PrefixSat { unfolding } => *unfolding,
            _ => UnfoldingChoice::default(),
        }
    }

    /// QPOR's options under this choice: its own, or the portfolio's share of them.
    fn qpor(&self) -> QporChoice {
        match self {
            EngineChoice::Qpor(q) => *q,
            EngineChoice::Auto(p) => QporChoice {
                alt: p.alt,
                unfolding: p.unfolding,
                distance_states: p.distance_states,
                ..QporChoice::default()
            },
            other => QporChoice {
                unfolding: other.unfolding(),
                ..QporChoice::default()
            },
        }
    }

    /// The stubborn search's order under this choice.
    pub fn order(&self) -> SearchOrder {
        match self {
            EngineChoice::Auto(p) => p.order,
            EngineChoice::Stubborn { order } => *order,
            _ => SearchOrder::default(),
        }
    }

    /// The walk's seed under this choice.
    fn seed(&self) -> u64 {
        match self {
            EngineChoice::Auto(p) => p.seed,
            EngineChoice::Walk { seed } => *seed,
            _ => 0,
        }
    }
}

/// The limits every engine shares: past one, a run stops with an inconclusive verdict
/// (or, with a deadlock found under `--all`, a list that may be incomplete).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop after this much time.
    pub time_limit: Option<Duration>,
    /// When the time limit started counting (the command line starts it before reading
    /// the model); `None`: when the check is called.
    pub started: Option<Instant>,
    /// Stop every engine when the process holds more than this many megabytes.
    pub max_memory_mb: Option<u64>,
    /// The engines that store states (explicit, stubborn): stop after storing this many.
    pub max_states: Option<u64>,
    /// The engines that create events (QPOR, prefix-sat): stop after creating this many.
    pub max_events: Option<u64>,
    /// Stop every engine ("interrupted") when this token is set: the command line sets it
    /// on Ctrl-C, so that the run reports what it did.
    pub interrupt: Option<CancelToken>,
}

impl Limits {
    /// When the time limit ends, counted from `started` (or now).
    pub fn deadline(&self) -> Option<Instant> {
        let started = self.started.unwrap_or_else(Instant::now);
        self.time_limit.and_then(|l| started.checked_add(l))
    }
}

/// Everything `qpor check` can be asked: the question, the engine with its options, the
/// limits, and how to report.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// What the check asks: deadlocks (the default) or, of a net, OneSafe.
    pub question: Question,
    /// The engine, or the portfolio, with its options.
    pub engine: EngineChoice,
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// Collect every dead state instead of stopping at the first deadlock.
    pub all: bool,
    /// Time, memory, states and events.
    pub limits: Limits,
    /// List the states each witness passes through (`--witness states`).
    pub witness_states: bool,
    /// Replace each witness by one of the fewest steps to the same state, found by a
    /// breadth-first search within the limits (`--witness shortest`).
    pub shortest_witness: bool,
    /// Run the engines on the net reduced by the structural rules (`--reduce on|off`);
    /// `None`: as the engine prefers ([`EngineName::reduces_by_default`]). Never for
    /// `--all`, programs or the OneSafe view.
    pub reduce: Option<bool>,
}

impl CheckOptions {
    /// The system options that ask [`CheckOptions::question`] of the model (the OneSafe
    /// view for OneSafe): what the witnesses are replayed on.
    pub fn asked_system(&self) -> SystemOptions {
        self.question.system_options(&self.system)
    }

    /// The options of the QPOR engine.
    pub fn qpor(&self) -> QporOptions {
        let q = self.engine.qpor();
        QporOptions {
            system: self.system,
            alt: q.alt,
            all: self.all,
            cutoff: q.unfolding.cutoff,
            max_events: self.limits.max_events,
            distance_states: q.distance_states,
            no_prune: q.no_prune,
            unfolding: q.unfolding.backend,
            // In the portfolio QPOR's share of the cores is one thread, and it explores
            // the single tree, which needs no replays. Alone, it splits its work, even on
            // one thread unless in optimal mode: k-partial and SDPOR counts are then the
            // same for any number of threads.
            exploration: match self.engine {
                EngineChoice::Qpor(q) if !q.single_tree => {
                    let workers = q.threads.unwrap_or_else(super::cores);
                    if workers > 1 || q.alt != AltMode::Optimal {
                        Exploration::Split {
                            workers,
                            policy: SplitPolicy::for_alt(q.alt),
                        }
                    } else {
                        Exploration::SingleTree
                    }
                }
                _ => Exploration::SingleTree,
            },
        }
    }

    /// The options of the explicit engine.
    pub fn explicit(&self) -> ExplicitOptions {
        ExplicitOptions {
            system: self.system,
            all: self.all,
            max_states: self.limits.max_states,
        }
    }

    /// The options of the stubborn-set search.
    pub fn stubborn(&self) -> StubbornOptions {
        StubbornOptions {
            system: self.system,
            all: self.all,
            max_states: self.limits.max_states,
            order: self.engine.order(),
        }
    }

    /// The options of the random walk.
    pub fn walk(&self) -> WalkOptions {
        WalkOptions {
            system: self.system,
            seed: self.engine.seed(),
            all: self.all,
        }
    }

    /// The options of the state-equation engine (a build with the `lp` feature).
    #[cfg(feature = "lp")]
    pub fn lp(&self) -> LpOptions {
        LpOptions {
            system: self.system,
            all: self.all,
        }
    }

    /// The options of the prefix + SAT check.
    pub fn prefix_sat(&self) -> PrefixSatOptions {
        let unfolding = self.engine.unfolding();
        PrefixSatOptions {
            system: self.system,
            all: self.all,
            unfolding: unfolding.backend,
            cutoff: unfolding.cutoff,
            max_events: self.limits.max_events,
        }
    }

    /// One engine, set up with its own options (`None` for [`EngineName::Auto`], which
    /// is several, and for [`EngineName::Lp`] in a build without the `lp` feature).
    pub fn build_engine(&self, name: EngineName) -> Option<Box<dyn Engine + Send + Sync>> {
        Some(match name {
            EngineName::Auto => return None,
            EngineName::Qpor => Box::new(self.qpor()),
            EngineName::Explicit => Box::new(self.explicit()),
            EngineName::Walk => Box::new(self.walk()),
            EngineName::Stubborn => Box::new(self.stubborn()),
            #[cfg(feature = "lp")]
            EngineName::Lp => Box::new(self.lp()),
            #[cfg(not(feature = "lp"))]
            EngineName::Lp => return None,
            EngineName::PrefixSat => Box::new(self.prefix_sat()),
        })
    }
}
