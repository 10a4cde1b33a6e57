//! The dispatcher behind `qpor check`: the one place that knows every engine. It turns the
//! user's [`CheckOptions`] into engines with their own options ([`schedule`]), runs them on
//! threads with one deadline and one cancel flag ([`portfolio`]), and replays every witness
//! on the model before the report leaves ([`replay`]). The engines below it know nothing
//! of each other or of this module.

mod portfolio;
pub use portfolio::PortfolioCounters;
mod reduced;
pub(crate) mod replay;
pub(crate) mod saved;
mod schedule;
mod shortest;
pub(crate) mod validate;

use crate::engine::{Budget, CancelToken, Engine, EngineError, Observer, Question, Report, RunResult};
use crate::explicit::ExplicitOptions;
use crate::prefix_sat::PrefixSatOptions;
use crate::qpor::{AltMode, QporOptions};
#[cfg(feature = "lp")]
use crate::structural::LpOptions;
use crate::stubborn::{SearchOrder, StubbornOptions};
use crate::system::model::{Model, SystemOptions};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::Backend;
use crate::walk::WalkOptions;
use std::sync::Arc;
use std::time::{Duration, Instant};

use schedule::{plan, Shape};

/// Which engine answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EngineChoice {
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

impl EngineChoice {
    /// Every choice, in the order `--engine` lists them.
    pub const ALL: [EngineChoice; 7] = [
        EngineChoice::Auto,
        EngineChoice::Qpor,
        EngineChoice::Explicit,
        EngineChoice::Walk,
        EngineChoice::Stubborn,
        EngineChoice::Lp,
        EngineChoice::PrefixSat,
    ];

    /// The engine's name, as `--engine` spells it.
    pub fn name(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::Qpor => "qpor",
            EngineChoice::Explicit => "explicit",
            EngineChoice::Walk => "walk",
            EngineChoice::Stubborn => "stubborn",
            EngineChoice::Lp => "lp",
            EngineChoice::PrefixSat => "prefix-sat",
        }
    }

    /// Whether a check with this engine works on the reduced net unless told otherwise:
    /// the portfolio and the state equation do; an exploring engine explores the net as
    /// given.
    pub fn reduces_by_default(self) -> bool {
        matches!(self, EngineChoice::Auto | EngineChoice::Lp)
    }
}

/// Everything `qpor check` can be asked: the engine, the settings of every engine (each
/// engine reads its own), and the limits.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// What the check asks: deadlocks (the default) or, of a net, OneSafe.
    pub question: Question,
    /// The engine, or the portfolio.
    pub engine: EngineChoice,
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// Collect every dead state instead of stopping at the first deadlock.
    pub all: bool,
    /// Explicit and stubborn engines: stop with an inconclusive verdict after storing this
    /// many states.
    pub max_states: Option<u64>,
    /// Stubborn engine: depth, breadth or best first.
    pub order: SearchOrder,
    /// Stop with an inconclusive verdict after this much time.
    pub time_limit: Option<Duration>,
    /// When the time limit started counting (the command line starts it before reading the
    /// model); `None`: when [`check`] is called.
    pub started: Option<Instant>,
    /// Stop every engine, inconclusive, when the process holds more than this many
    /// megabytes.
    pub max_memory_mb: Option<u64>,
    /// Stop every engine, inconclusive ("interrupted"), when this token is set: the
    /// command line sets it on Ctrl-C, so that the run reports what it did.
    pub interrupt: Option<CancelToken>,
    /// The portfolio: how many engines run at once (`--jobs`; `None`: one per core).
    pub jobs: Option<usize>,
    /// QPOR alone, with cutoffs every thread decides alike (none, causal, distance,
    /// canonical): how many threads its exploration runs on (`--threads`; `None`: one per
    /// core).
    pub threads: Option<usize>,
    /// QPOR alone: explore Algorithm 1's single tree, on one thread (`--single-tree`).
    /// Without it, k-partial and SDPOR runs with cutoffs every task decides alike (none,
    /// causal, distance, canonical) split their work into tasks at nodes fixed by the model
    /// alone, on `threads` threads, and every count is the same for any `threads`.
    pub single_tree: bool,
    /// QPOR: how alternatives are computed (`-k N`, `--optimal`, `--sdpor`).
    pub alt: AltMode,
    /// QPOR and prefix-sat: the adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// QPOR and prefix-sat: stop with an inconclusive verdict after creating this many
    /// events.
    pub max_events: Option<u64>,
    /// QPOR, `--cutoff distance`: how many states the table of distances may hold (`None`:
    /// what fits its default memory).
    pub distance_states: Option<usize>,
    /// QPOR: never prune the unfolding (for measurements).
    pub no_prune: bool,
    /// QPOR and prefix-sat: which unfolding backend to explore.
    pub unfolding: Backend,
    /// Random walk: the seed of its choices.
    pub seed: u64,
    /// List the states each witness passes through (`--witness states`).
    pub witness_states: bool,
    /// Replace each witness by one of the fewest steps to the same state, found by a
    /// breadth-first search within the limits (`--witness shortest`).
    pub shortest_witness: bool,
    /// Run the engines on the net reduced by the structural rules (`--reduce on|off`);
    /// `None`: as the engine prefers ([`EngineChoice::reduces_by_default`]). Never for
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
        use crate::qpor::{Exploration, SplitPolicy};
        QporOptions {
            system: self.system,
            alt: self.alt,
            all: self.all,
            cutoff: self.cutoff,
            max_events: self.max_events,
            distance_states: self.distance_states,
            no_prune: self.no_prune,
            unfolding: self.unfolding,
            // In the portfolio QPOR's share of the cores is one thread, and it explores
            // the single tree, which needs no replays. Alone, it splits its work, even on
            // one thread unless in optimal mode: k-partial and SDPOR counts are then the
            // same for any number of threads.
            exploration: match self.engine {
                EngineChoice::Qpor if !self.single_tree => {
                    let workers = self.threads.unwrap_or_else(cores);
                    if workers > 1 || self.alt != AltMode::Optimal {
                        Exploration::Split {
                            workers,
                            policy: SplitPolicy::for_alt(self.alt),
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
            max_states: self.max_states,
        }
    }

    /// The options of the stubborn-set search.
    pub fn stubborn(&self) -> StubbornOptions {
        StubbornOptions {
            system: self.system,
            all: self.all,
            max_states: self.max_states,
            order: self.order,
        }
    }

    /// The options of the random walk.
    pub fn walk(&self) -> WalkOptions {
        WalkOptions {
            system: self.system,
            seed: self.seed,
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
        PrefixSatOptions {
            system: self.system,
            all: self.all,
            unfolding: self.unfolding,
            cutoff: self.cutoff,
            max_events: self.max_events,
        }
    }

    /// One engine, set up with its own options (`None` for [`EngineChoice::Auto`], which
    /// is several, and for [`EngineChoice::Lp`] in a build without the `lp` feature).
    pub fn build_engine(&self, choice: EngineChoice) -> Option<Box<dyn Engine + Send + Sync>> {
        Some(match choice {
            EngineChoice::Auto => return None,
            EngineChoice::Qpor => Box::new(self.qpor()),
            EngineChoice::Explicit => Box::new(self.explicit()),
            EngineChoice::Walk => Box::new(self.walk()),
            EngineChoice::Stubborn => Box::new(self.stubborn()),
            #[cfg(feature = "lp")]
            EngineChoice::Lp => Box::new(self.lp()),
            #[cfg(not(feature = "lp"))]
            EngineChoice::Lp => return None,
            EngineChoice::PrefixSat => Box::new(self.prefix_sat()),
        })
    }
}

/// Why `--engine lp` is refused by a build without Z3.
#[cfg(not(feature = "lp"))]
pub(crate) const LP_MISSING: &str =
    "--engine lp: this qpor was built without the `lp` feature (Z3); build it with the default features to use the state equation";

/// The number of cores, or 1 when it cannot be known.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Checks `model` with QPOR on the processes of `transport` (`--distributed`): every
/// process calls it with the same model and options. Rank 0 returns the report, its
/// witnesses replayed on the model as [`check`] does; the others return `None`. Needs
/// `--engine qpor`, `--cutoff none`, `causal` or `distance`, and the program-like unfolding.
pub fn check_distributed<T: crate::qpor::Transport + ?Sized>(
    model: &Model,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
    transport: &T,
) -> Result<Option<Report>, EngineError> {
    let refuse = |why: &str| Err(EngineError::from(crate::system::ModelError::new(why)));
    if opts.engine != EngineChoice::Qpor {
        return refuse("--distributed runs the qpor engine: give --engine qpor");
    }
    opts.validate().map_err(|e| EngineError::Options(e.message))?;
    if let Some(e) = validate::split_refusal("--distributed", opts.cutoff) {
        return refuse(&e.message);
    }
    if opts.unfolding.resolve(model, &opts.system) == Backend::General {
        return refuse(
            "--distributed explores the program-like unfolding, and this net needs the general one (a net with NUPN units or --components units has the program-like one)",
        );
    }
    let deadline = opts
        .time_limit
        .and_then(|l| opts.started.unwrap_or_else(Instant::now).checked_add(l));
    let budget = Budget::until(deadline, opts.time_limit);
    let sys = model.system(&opts.system)?;
    let qpor = opts.qpor();
    let Some(mut report) = crate::qpor::check_system_distributed(&*sys, &qpor, &budget, observer, transport)?
    else {
        return Ok(None);
    };
    for finding in &mut report.findings {
        replay::replay(&*sys, finding, opts.witness_states)
            .map_err(|e| EngineError::Internal(format!("qpor engine, distributed: {e}")))?;
    }
    Ok(Some(report))
}

/// Checks `model` for deadlocks with the engine (or the portfolio) of `opts`, within its
/// limits. Every finding's witness has been replayed on the model; a witness the replay
/// refuses is an [`EngineError::Internal`], never a verdict.
///
/// The engines run on threads that may outlive the call (one that does not stop when told
/// is left behind, see `portfolio`), so they get their own copy of the model; use
/// [`check_shared`] to lend them yours instead.
pub fn check(model: &Model, opts: &CheckOptions, observer: &mut dyn Observer) -> RunResult {
    check_shared(&Arc::new(model.clone()), opts, observer)
}

/// [`check`] on a model the engine threads share without copying it.
pub fn check_shared(model: &Arc<Model>, opts: &CheckOptions, observer: &mut dyn Observer) -> RunResult {
    opts.validate().map_err(|e| EngineError::Options(e.message))?;
    #[cfg(not(feature = "lp"))]
    if opts.engine == EngineChoice::Lp {
        return Err(EngineError::from(crate::system::ModelError::new(LP_MISSING)));
    }
    let mut report = check_once(model, opts, observer)?;
    if opts.shortest_witness {
        shorten_witnesses(model, opts, &mut report)?;
    }
    Ok(report)
}

/// `--witness shortest`: each finding's witness replaced by a shortest one to its state,
/// replayed like the engines' own; a note in the report says what the search did.
fn shorten_witnesses(model: &Model, opts: &CheckOptions, report: &mut Report) -> Result<(), EngineError> {
    if report.findings.is_empty() {
        return Ok(());
    }
    let sys = model.system(&opts.asked_system())?;
    let started = opts.started.unwrap_or_else(Instant::now);
    let deadline = opts.time_limit.and_then(|l| started.checked_add(l));
    let mut budget = Budget::until(deadline, opts.time_limit);
    if let Some(token) = &opts.interrupt {
        budget = budget.with_cancel(token.clone());
    }
    for finding in &mut report.findings {
        let note = match shortest::shorten(&*sys, finding, &budget, opts.max_states) {
            shortest::Shortening::Shortened { before } => {
                replay::replay(&*sys, finding, opts.witness_states).map_err(|e| {
                    EngineError::Internal(format!("breadth-first search for a shortest witness: {e}"))
                })?;
                format!(
                    "witness shortened from {before} to {} steps (--witness shortest)",
                    finding.witness.steps.len()
                )
            }
            shortest::Shortening::WasShortest => "the witness is a shortest one (--witness shortest)".into(),
            shortest::Shortening::Stopped(why) => {
                format!("--witness shortest: the breadth-first search stopped ({why}); the witness is the engine's")
            }
        };
        if !report.notes.contains(&note) {
            report.notes.push(note);
        }
    }
    Ok(())
}

/// One check, without the shortening of witnesses.
fn check_once(model: &Arc<Model>, opts: &CheckOptions, observer: &mut dyn Observer) -> RunResult {
    if let Some(net) = reduced::applies(model, opts) {
        return reduced::check(model, net, opts, observer);
    }
    let planned = plan(opts, Shape::of(model));
    let mut report = portfolio::run(model, opts, &planned, observer)?;
    if report.findings.is_empty() {
        return Ok(report);
    }
    let sys = model.system(&opts.asked_system())?;
    for finding in &mut report.findings {
        replay::replay(&*sys, finding, opts.witness_states).map_err(|e| {
            EngineError::Internal(format!(
                "{} engine: {e}",
                report.answered_by.unwrap_or(report.engine)
            ))
        })?;
    }
    Ok(report)
}
