//! QPOR as an [`Engine`]: builds the unfolding the options ask for (program-like or
//! general), runs Algorithm 1 ([`explore`](super::explore())) on it and turns the
//! outcome into the common [`Report`].

use super::distributed::explore_distributed;
use super::explore::{explore, ExploreOptions, ExploreOutcome, NoTree, TreeListener};
use super::parallel::explore_parallel;
use super::replica::SplitPolicy;
use super::report::{AltSetting, AlwaysEnabledCounters, QporCounters, QporSettings};
use super::transport::Transport;
use super::AltMode;
use crate::engine::Question;
use crate::engine::{
    drop_in_background, run_on_system, Asked, Budget, Counters, Engine, EngineError, Observer, Report,
    RunResult, Settings, Stats,
};
use crate::system::model::{ModelKind, SystemOptions};
use crate::system::net::{Decomposition, Net, NetSystem};
use crate::system::{ModelError, System};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::{general_backend_net, Backend};
use std::time::Instant;

/// Options of the QPOR engine.
#[derive(Clone, Debug, Default)]
pub struct QporOptions {
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// How alternatives are computed (`-k N`, `--optimal`, `--sdpor`).
    pub alt: AltMode,
    /// Explore every maximal configuration instead of stopping at the first deadlock.
    pub all: bool,
    /// The adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// Stop with an inconclusive verdict after creating this many events; with
    /// `--cutoff none` it defaults to [`DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS`].
    pub max_events: Option<u64>,
    /// `--cutoff distance`: how many states the table of distances may hold (`None`: what
    /// fits 64 MB, at most 131 072).
    pub distance_states: Option<usize>,
    /// Never prune the unfolding (for measurements).
    pub no_prune: bool,
    /// Which unfolding backend to explore.
    pub unfolding: Backend,
    /// Algorithm 1's single tree, or the split exploration on threads (or processes).
    pub exploration: Exploration,
}

/// How QPOR explores, chosen once: Algorithm 1's single tree, or the maximal
/// configurations split into classes explored as tasks (docs/design.md#exploring-on-several-threads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Exploration {
    /// Algorithm 1's single tree on one thread, as the paper does (`--single-tree`): each
    /// Alt call needs U as the whole subtree before it left it, so it cannot be shared.
    #[default]
    SingleTree,
    /// The split exploration: tasks in unfolding replicas of their own, on `workers`
    /// threads. With [`SplitPolicy::Fixed`] (or `Every`) every count, SSBs included, is the
    /// same for any number of workers, and of processes; with k-partial and SDPOR
    /// alternatives they are the counts of the tasks' tree, not of the single tree. It
    /// needs the program-like unfolding and cutoffs every replica decides alike (causal,
    /// distance, canonical or none); otherwise the run explores the single tree.
    Split {
        /// Worker threads (at least one). On processes ([`check_system_distributed`]) the
        /// ranks are the workers, and this is not read.
        workers: usize,
        /// When tasks split: [`SplitPolicy::for_alt`] unless a test wants otherwise.
        policy: SplitPolicy,
    },
}

/// The event limit used without cutoffs when none is given: cyclic models have infinite
/// unfoldings, and the run must end (inconclusive) rather than fill the memory.
pub const DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS: u64 = 20_000_000;

impl QporOptions {
    /// The event limit in force: the one given, or the default without cutoffs.
    fn effective_max_events(&self) -> Option<u64> {
        self.max_events
            .or((self.cutoff == CutoffMode::None).then_some(DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS))
    }

    /// The worker threads and split policy of a run on one process, if it splits: asked
    /// for, and without cutoffs or with causal, distance or canonical ones (under the
    /// adequate orders decided against the states met so far, which event is a cutoff
    /// depends on the order a replica met them).
    fn threads(&self) -> Option<(usize, SplitPolicy)> {
        match self.exploration {
            Exploration::Split { workers, policy } if self.cutoff.same_in_every_replica() => {
                Some((workers.max(1), policy))
            }
            _ => None,
        }
    }

    /// When the tasks of a run on processes split: as asked, or as the alternatives prefer.
    fn ranks_policy(&self) -> SplitPolicy {
        match self.exploration {
            Exploration::Split { policy, .. } => policy,
            Exploration::SingleTree => SplitPolicy::for_alt(self.alt),
        }
    }

    fn explore_options(&self) -> ExploreOptions {
        ExploreOptions {
            alt: self.alt,
            all: self.all,
            no_prune: self.no_prune,
        }
    }
}

/// The options are the QPOR engine.
impl Engine for QporOptions {
    fn name(&self) -> &'static str {
        "qpor"
    }

    /// The unfolding's maximal configurations are the dead states (and faults); the
    /// OneSafe view's faults are not among its events' states.
    fn answers(&self, question: &Question, _kind: ModelKind) -> bool {
        *question == Question::Deadlock
    }

    fn run(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult {
        let Asked { model, budget, .. } = asked;
        match self.unfolding.resolve(model, &self.system) {
            Backend::General => check_net(general_backend_net(model)?, self, budget, observer),
            _ => run_on_system(model, &self.system, |sys| {
                check_system(sys, self, budget, observer, &mut NoTree)
            }),
        }
    }
}

/// Runs QPOR on the general unfolding (branching process) of `net`.
pub fn check_net(net: &Net, opts: &QporOptions, budget: &Budget, observer: &mut dyn Observer) -> RunResult {
    use crate::unfold::general::{GeneralOptions, GeneralUnfolding};
    let start = Instant::now();
    crate::unfold::fits_general_backend(net)?;
    if !opts.cutoff.uses_representatives() && opts.cutoff != CutoffMode::None {
        return Err(ModelError::new(format!(
            "--cutoff {} runs on the program-like unfolding, and this net needs the general one (a net with NUPN units or --components units has the program-like one)",
            opts.cutoff.name()
        ))
        .into());
    }
    // The general backend's states are token counts per place: the place-component view.
    let sys = NetSystem::new(net, Decomposition::Places)?;
    // ERV's tie-break is adequate on safe nets only (see `GeneralOptions::erv_ties`).
    let erv_ties = opts.cutoff == CutoffMode::Erv
        && crate::system::invariants::structural_safeness(net, &|| budget.exhausted().is_some()).is_safe();
    let mut unf = GeneralUnfolding::new(
        net,
        GeneralOptions {
            cutoff: opts.cutoff,
            max_events: opts.effective_max_events(),
            erv_ties,
        },
    );
    // One co-set search can outlast the time limit (cex(C) is NP-complete on non-safe
    // nets): the backend watches the clock inside its searches too.
    unf.set_deadline(budget.deadline());
    unf.set_cancel(budget.cancel_token().clone());
    let out = explore(
        &mut unf,
        &sys,
        &opts.explore_options(),
        budget,
        observer,
        &mut NoTree,
    )?;
    let report = report(out, opts, "general", start);
    drop_in_background(unf);
    Ok(report)
}

/// Runs QPOR on the program-like unfolding of `sys`, reporting the exploration tree to
/// `tree` as it is built ([`NoTree`] to ignore it).
pub fn check_system<S: System + Sync + ?Sized>(
    sys: &S,
    opts: &QporOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    tree: &mut dyn TreeListener,
) -> RunResult {
    let report = check_program_unfolding(sys, opts, budget, observer, tree, None::<&NoTransport>)?;
    report.ok_or_else(|| ModelError::new("[qpor internal bug] a run on one process gave no report").into())
}

/// Runs QPOR on the program-like unfolding of `sys` with the processes of `transport`
/// (`--distributed`; `--cutoff none` only): every process calls it with the same model and
/// options, and rank 0 returns the report, the others `None`.
pub fn check_system_distributed<S: System + Sync + ?Sized, T: Transport + ?Sized>(
    sys: &S,
    opts: &QporOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    transport: &T,
) -> Result<Option<Report>, EngineError> {
    check_program_unfolding(sys, opts, budget, observer, &mut NoTree, Some(transport))
}

/// No processes to share the work with.
enum NoTransport {}

impl Transport for NoTransport {
    fn rank(&self) -> usize {
        match *self {}
    }
    fn size(&self) -> usize {
        match *self {}
    }
    fn send(&self, _: usize, _: &[u8]) {
        match *self {}
    }
    fn try_receive(&self) -> Option<Vec<u8>> {
        match *self {}
    }
    fn receive(&self) -> Vec<u8> {
        match *self {}
    }
}

/// QPOR on the program-like unfolding: sequential, on threads, or on processes.
fn check_program_unfolding<S: System + Sync + ?Sized, T: Transport + ?Sized>(
    sys: &S,
    opts: &QporOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    tree: &mut dyn TreeListener,
    distributed: Option<&T>,
) -> Result<Option<Report>, EngineError> {
    use crate::unfold::program::{ProgramOptions, ProgramUnfolding};
    use crate::unfold::tables::{default_table_states, CanonicalCutoffs, CanonicalError, StateDistances};
    use std::sync::Arc;
    let start = Instant::now();
    if !crate::unfold::fits_program_backend(sys) {
        return Err(ModelError::new(
            "this model cannot be unfolded (its system does not list anchored steps); use --engine explicit",
        )
        .into());
    }
    // An enabled action that touches no component is enabled in every reachable state:
    // the system never deadlocks, and the unfolding cannot represent its repetitions.
    let mut initial_steps = Vec::new();
    sys.enabled_steps(&sys.initial_state(), &mut initial_steps);
    if let Some(s) = initial_steps.iter().find(|s| s.touched.is_empty()) {
        let stats = Stats::new(
            Counters::of(&AlwaysEnabledCounters {
                always_enabled_action: s.action.0 as u64,
            }),
            start.elapsed().as_secs_f64(),
        );
        let settings = Settings::of(&QporSettings {
            unfolding: "program".to_string(),
            ..QporSettings::default()
        });
        return Ok(Some(Report::new("qpor", Vec::new(), None, stats, settings)));
    }
    let distances = if opts.cutoff == CutoffMode::Distance {
        let max_states = opts
            .distance_states
            .unwrap_or_else(|| default_table_states(sys.num_components()));
        let table = StateDistances::search(sys, max_states, budget.deadline(), budget.cancel_token())?;
        Some(Arc::new(table))
    } else {
        None
    };
    let canonical = if opts.cutoff == CutoffMode::Canonical {
        // Ok: the table; Err: how many events the prefix had when time ran out.
        let built = match CanonicalCutoffs::build(sys, budget.deadline(), budget.cancel_token()) {
            Ok(table) => Ok(table),
            Err(CanonicalError::Model(e)) => return Err(e.into()),
            Err(CanonicalError::Stopped(events)) => Err(events),
        };
        // The processes of a distributed run must cut alike: they go on only if every
        // one of them finished its prefix.
        let everywhere = match distributed {
            Some(t) => all_ranks_agree(t, built.is_ok()),
            None => built.is_ok(),
        };
        match built {
            Ok(table) if everywhere => Some(Arc::new(table)),
            _ if distributed.is_some_and(|t| t.rank() != 0) => return Ok(None),
            built => {
                // The run ended while a prefix was built: nothing was explored; the
                // report says how far this process's prefix got.
                let why = budget.exhausted().unwrap_or_else(|| budget.time_limit_reached());
                let out = ExploreOutcome {
                    stopped: Some(why),
                    ..ExploreOutcome::default()
                };
                let mut report = report(out, opts, "program", start);
                report.stats.counters.update(|c: &mut QporCounters| {
                    c.canonical_prefix_events =
                        Some(built.map_or_else(|events| events, |t| t.prefix_events()));
                });
                return Ok(Some(report));
            }
        }
    } else {
        None
    };
    let table = distances.as_ref().map(|t| (t.len() as u64, t.radius() as u64));
    let prefix = canonical
        .as_ref()
        .map(|t| (t.prefix_events(), t.prefix_cutoffs()));
    let with_table = |mut report: Report| {
        report.stats.counters.update(|c: &mut QporCounters| {
            if let Some((states, radius)) = table {
                c.distance_table_states = Some(states);
                c.distance_table_radius = Some(radius);
            }
            if let Some((events, cutoffs)) = prefix {
                c.canonical_prefix_events = Some(events);
                c.canonical_prefix_cutoffs = Some(cutoffs);
            }
        });
        report
    };
    let unfolding = ProgramOptions {
        cutoff: opts.cutoff,
        max_events: opts.effective_max_events(),
        distances,
        canonical,
    };
    // Where the exploration runs, decided once: threads (or one thread) of this process,
    // or the processes of `distributed`.
    let (workers, policy) = match distributed {
        Some(transport) => {
            if let Some(why) = opts.cutoff.split_refusal("--distributed") {
                return Err(ModelError::new(why).into());
            }
            (transport.size(), opts.ranks_policy())
        }
        None => match opts.threads() {
            Some(threads) => threads,
            None => {
                let mut unf = ProgramUnfolding::new(sys, unfolding);
                unf.watch(budget.deadline(), budget.cancel_token().clone());
                let out = explore(&mut unf, sys, &opts.explore_options(), budget, observer, tree)?;
                return Ok(Some(with_table(report(out, opts, "program", start))));
            }
        },
    };
    // The event limit holds for each replica: shared out, it bounds the run as before.
    let unfolding = ProgramOptions {
        max_events: unfolding.max_events.map(|n| n.div_ceil(workers as u64)),
        ..unfolding
    };
    let explore_opts = opts.explore_options();
    let (out, stats) = match distributed {
        Some(transport) => {
            let explored =
                explore_distributed(sys, unfolding, &explore_opts, budget, observer, transport, policy)?;
            let Some(explored) = explored else {
                return Ok(None);
            };
            explored
        }
        None => explore_parallel(sys, unfolding, &explore_opts, budget, observer, workers, policy)?,
    };
    let mut report = with_table(report(out, opts, "program", start));
    report.settings.update(|s: &mut QporSettings| {
        s.splits = Some(policy.name().to_string());
        if distributed.is_some() {
            s.ranks = Some(workers);
        } else {
            s.threads = Some(workers);
        }
    });
    report.stats.counters.update(|c: &mut QporCounters| {
        c.tasks = Some(stats.tasks);
        if distributed.is_some() {
            c.messages = Some(stats.messages);
            c.message_bytes = Some(stats.message_bytes);
        }
    });
    Ok(Some(report))
}

/// Whether `ok` holds on every process of `t`: rank 0 gathers one byte from each other
/// rank and sends the answer back. Every process calls it before the exploration's
/// messages start, and waits for rank 0's answer, so these are the first messages each
/// pair exchanges.
fn all_ranks_agree<T: Transport + ?Sized>(t: &T, ok: bool) -> bool {
    if t.rank() == 0 {
        let mut all = ok;
        for _ in 1..t.size() {
            all &= t.receive() == [1];
        }
        for rank in 1..t.size() {
            t.send(rank, &[all as u8]);
        }
        all
    } else {
        t.send(0, &[ok as u8]);
        t.receive() == [1]
    }
}

/// The report of an exploration of the `backend` unfolding.
fn report(out: ExploreOutcome, opts: &QporOptions, backend: &'static str, start: Instant) -> Report {
    let u = out.unfolding;
    let counters = QporCounters {
        max_configurations: out.max_configurations,
        ssbs: out.ssbs,
        cutoff_leaves: out.cutoff_leaves,
        deadlocks: out.deadlock_leaves,
        terminations: out.termination_leaves,
        events: u.events_created,
        peak_live_events: u.events_alive_peak,
        cutoff_events: u.cutoff_events,
        comb_calls: out.alt.combs,
        alt_calls: out.alt.calls,
        max_comb_size: out.alt.max_spikes,
        max_depth: out.max_depth,
        prunes: out.prunes,
        tasks: None,
        messages: None,
        message_bytes: None,
        distance_table_states: None,
        distance_table_radius: None,
        canonical_prefix_events: None,
        canonical_prefix_cutoffs: None,
    };
    let stats = Stats::new(Counters::of(&counters), start.elapsed().as_secs_f64());
    let settings = Settings::of(&QporSettings {
        k: Some(match opts.alt {
            AltMode::KPartial(k) => AltSetting::K(k),
            AltMode::Optimal => AltSetting::Named("optimal".to_string()),
            AltMode::Sdpor => AltSetting::Named("sdpor".to_string()),
        }),
        cutoff: Some(opts.cutoff.name().to_string()),
        unfolding: backend.to_string(),
        ..QporSettings::default()
    });
    Report::new("qpor", out.findings, out.stopped, stats, settings)
}
