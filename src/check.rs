//! Deadlock checking: the options every engine takes and the [`Report`] every engine returns.
//!
//! The engines differ in how they explore; they agree on this vocabulary, so the CLI, the
//! JSON output and the tests treat them alike.

use crate::qpor::AltMode;
use crate::system::model::{Model, SystemOptions};
use crate::system::net::{Decomposition, Net, NetSystem};
use crate::system::{ActionId, DeadKind, ModelError, System};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::{Backend, Unfolding};
use hashbrown::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Which engine explores the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Engine {
    /// Quasi-optimal partial order reduction over the program-like unfolding (Algorithm 1).
    #[default]
    Qpor,
    /// Breadth-first search over global states: the oracle and the baseline.
    Explicit,
}

impl Engine {
    /// The engine's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Qpor => "qpor",
            Engine::Explicit => "explicit",
        }
    }
}

/// Options of a deadlock check.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The engine.
    pub engine: Engine,
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// Collect every dead state instead of stopping at the first deadlock.
    pub all: bool,
    /// Stop with an inconclusive verdict after storing this many states.
    pub max_states: Option<u64>,
    /// Stop with an inconclusive verdict after this much time.
    pub time_limit: Option<Duration>,
    /// QPOR: how alternatives are computed (`-k N`, `--optimal`, `--sdpor`).
    pub alt: AltMode,
    /// QPOR: the adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// QPOR: stop with an inconclusive verdict after creating this many events; with
    /// `--cutoff none` it defaults to [`DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS`].
    pub max_events: Option<u64>,
    /// QPOR: never prune the unfolding (for measurements).
    pub no_prune: bool,
    /// QPOR: which unfolding backend to explore.
    pub unfolding: Backend,
}

/// The event limit used without cutoffs when none is given: cyclic models have infinite
/// unfoldings, and the run must end (inconclusive) rather than fill the memory.
pub const DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS: u64 = 20_000_000;

impl CheckOptions {
    /// Sets [`CheckOptions::all`].
    pub fn all(mut self, all: bool) -> Self {
        self.all = all;
        self
    }

    /// Sets [`CheckOptions::max_states`].
    pub fn max_states(mut self, n: u64) -> Self {
        self.max_states = Some(n);
        self
    }

    /// Sets [`CheckOptions::engine`].
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        self
    }

    /// Sets [`CheckOptions::alt`].
    pub fn alt(mut self, alt: AltMode) -> Self {
        self.alt = alt;
        self
    }

    /// Sets [`CheckOptions::cutoff`].
    pub fn cutoff(mut self, cutoff: CutoffMode) -> Self {
        self.cutoff = cutoff;
        self
    }

    /// Sets [`CheckOptions::max_events`].
    pub fn max_events(mut self, n: u64) -> Self {
        self.max_events = Some(n);
        self
    }

    /// Sets [`CheckOptions::time_limit`].
    pub fn time_limit(mut self, d: Duration) -> Self {
        self.time_limit = Some(d);
        self
    }
}

/// The answer of a check.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// A reachable dead state that is not final.
    Deadlock,
    /// No reachable deadlock (dead final states, i.e. terminations, are fine).
    NoDeadlock,
    /// A reachable fault state (failed assertion, run-time error of a program).
    Fault,
    /// A limit was reached before the question was decided.
    Inconclusive,
}

impl Verdict {
    /// The verdict's name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Deadlock => "deadlock",
            Verdict::NoDeadlock => "no-deadlock",
            Verdict::Fault => "fault",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The process exit status scripts rely on: 0 no deadlock, 1 deadlock or fault,
    /// 3 inconclusive.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::NoDeadlock => 0,
            Verdict::Deadlock | Verdict::Fault => 1,
            Verdict::Inconclusive => 3,
        }
    }
}

/// One step of a witness. The names are shared between the steps of all witnesses of a
/// run (see [`StepNames`]): with `--all` a run can report tens of thousands of findings
/// with millions of steps, and a string per step made those most of its memory.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct WitnessStep {
    /// The action's name (a transition name, a program statement).
    pub action: Arc<str>,
    /// The component executing it (a process), if the model has owners.
    pub owner: Option<Arc<str>>,
}

/// The witness step of each action, named once per run.
#[derive(Default)]
pub struct StepNames {
    steps: HashMap<ActionId, WitnessStep>,
}

impl StepNames {
    /// The step for action `a` of `sys`.
    pub fn step<S: System + ?Sized>(&mut self, sys: &S, a: ActionId) -> WitnessStep {
        self.steps
            .entry(a)
            .or_insert_with(|| WitnessStep {
                action: sys.action_name(a).into(),
                owner: sys.action_owner(a).map(|c| sys.component_name(c).into()),
            })
            .clone()
    }
}

/// A firing sequence from the initial state.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Witness {
    /// The steps, in order.
    pub steps: Vec<WitnessStep>,
}

impl Witness {
    /// The action names, in order.
    pub fn actions(&self) -> Vec<&str> {
        self.steps.iter().map(|s| &*s.action).collect()
    }
}

/// What kind of bad (or final) state was found.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// A dead state that is not final.
    Deadlock,
    /// A dead final state.
    Termination,
    /// A fault state.
    Fault,
}

impl From<DeadKind> for FindingKind {
    fn from(k: DeadKind) -> Self {
        match k {
            DeadKind::Deadlock => FindingKind::Deadlock,
            DeadKind::Termination => FindingKind::Termination,
        }
    }
}

impl FindingKind {
    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Deadlock => "deadlock",
            FindingKind::Termination => "termination",
            FindingKind::Fault => "fault",
        }
    }
}

/// A dead or faulty state, with how to reach it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Finding {
    /// Deadlock, termination or fault.
    pub kind: FindingKind,
    /// The state, readable (for nets: the marked places).
    pub state: String,
    /// For faults: what failed.
    pub message: Option<String>,
    /// A firing sequence reaching the state (the shortest, for the explicit engine).
    pub witness: Witness,
}

/// Counters and resources of a run. Every engine fills the common fields and adds its own
/// named counters.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Stats {
    /// Wall-clock time of the exploration, in seconds.
    pub seconds: f64,
    /// Peak resident memory of the process, in bytes (0 where the OS does not say).
    pub peak_rss_bytes: u64,
    /// Engine-specific counters, in a fixed order (`states`, `edges`, …).
    pub counters: Vec<(&'static str, u64)>,
}

impl Stats {
    /// The counter called `name`, if the engine reports it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// The result of a check.
#[derive(Clone, PartialEq, Debug)]
pub struct Report {
    /// The answer.
    pub verdict: Verdict,
    /// The engine that produced it.
    pub engine: &'static str,
    /// Why the run stopped before exploring everything it was asked to (a limit), if it
    /// did. With a deadlock found the verdict stands, but under `--all` the list of
    /// findings may then be incomplete.
    pub stopped: Option<String>,
    /// The deadlocks and faults found (the first one only, unless `--all`), and with `--all`
    /// the terminations too; sorted by kind, then in discovery order.
    pub findings: Vec<Finding>,
    /// Counters and resources.
    pub stats: Stats,
    /// Engine settings worth reporting (`k`, `cutoff`), in a fixed order.
    pub settings: Vec<(&'static str, serde_json::Value)>,
}

impl Report {
    /// The witness of the first deadlock or fault, if any.
    pub fn witness(&self) -> Option<&Witness> {
        self.findings
            .iter()
            .find(|f| f.kind != FindingKind::Termination)
            .map(|f| &f.witness)
    }

    /// The findings of one kind.
    pub fn findings_of(&self, kind: FindingKind) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.kind == kind)
    }
}

/// Regular progress of a long run, for a progress line.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Seconds since the start.
    pub seconds: f64,
    /// Named counters (`states`, `frontier`, …).
    pub counters: Vec<(&'static str, u64)>,
}

/// Receives progress reports from an engine, a few times a second at most.
pub trait Observer {
    /// Called with the engine's current counters.
    fn progress(&mut self, p: &Progress);
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {
    fn progress(&mut self, _p: &Progress) {}
}

/// Why a check could not run.
#[derive(Debug)]
pub enum CheckError {
    /// The model's semantics cannot be honoured (e.g. a NUPN block contradicting the net).
    Model(ModelError),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Model(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<ModelError> for CheckError {
    fn from(e: ModelError) -> Self {
        CheckError::Model(e)
    }
}

/// Checks `model` for deadlocks with the engine of `opts`.
pub fn check(model: &Model, opts: &CheckOptions, observer: &mut dyn Observer) -> Result<Report, CheckError> {
    match opts.engine {
        Engine::Explicit => {
            let sys = model.system(&opts.system)?;
            Ok(crate::explicit::check(&*sys, opts, observer)?)
        }
        Engine::Qpor => match resolve_backend(model, opts.unfolding, &opts.system) {
            Backend::General => {
                let net = model.as_net().ok_or_else(|| {
                    CheckError::Model(ModelError::new(
                        "the general unfolding backend unfolds Petri nets only; use --unfolding program",
                    ))
                })?;
                check_general(net, opts, observer)
            }
            _ => {
                let sys = model.system(&opts.system)?;
                check_qpor(&*sys, opts, observer)
            }
        },
    }
}

/// The backend `--unfolding auto` stands for, or `requested` itself when it is not
/// [`Backend::Auto`].
///
/// Auto picks the program-like unfolding for programs, for nets with NUPN units and for
/// nets whose components the user chose (`--components places|units`), and the general
/// backend for the other nets. On plain nets both give the same verdicts; QPOR over the
/// general backend was measured faster on most ll_net and MCC nets without NUPN (e.g.
/// DPD(5) 0.035 s against 0.126 s, DPH(5) 7.0 s against more than 15 s, FMS-2 0.76 s
/// against 6.9 s; `benches/README.md`, "Unfolding backends"), because its events consume
/// only marked places where the place-component unfolding also chains every event on the
/// places it fills.
pub fn resolve_backend(model: &Model, requested: Backend, system: &SystemOptions) -> Backend {
    match (requested, model) {
        (Backend::Auto, Model::Program(_)) => Backend::Program,
        (Backend::Auto, Model::Net(net)) => {
            if net.nupn.is_some() || system.decomposition.is_some() {
                Backend::Program
            } else {
                Backend::General
            }
        }
        (b, _) => b,
    }
}

/// Runs QPOR on the general unfolding (branching process) of `net`.
pub fn check_general(
    net: &Net,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
) -> Result<Report, CheckError> {
    use crate::unfold::general::{GeneralOptions, GeneralUnfolding};
    let start = std::time::Instant::now();
    // The general backend's states are token counts per place: the place-component view.
    let sys = NetSystem::new(net, Decomposition::Places)?;
    let mut unf = GeneralUnfolding::new(
        net,
        GeneralOptions {
            cutoff: opts.cutoff,
            max_events: effective_max_events(opts),
        },
    );
    // One co-set search can outlast the time limit (cex(C) is NP-complete on non-safe
    // nets): the backend watches the clock inside its searches too.
    unf.set_deadline(opts.time_limit.map(|limit| start + limit));
    run_qpor(
        &mut unf,
        &sys,
        opts,
        observer,
        &mut crate::qpor::NoTree,
        "general",
        start,
    )
}

fn effective_max_events(opts: &CheckOptions) -> Option<u64> {
    opts.max_events
        .or((opts.cutoff == CutoffMode::None).then_some(DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS))
}

/// Runs QPOR on the program-like unfolding of `sys`.
pub fn check_qpor<S: System + ?Sized>(
    sys: &S,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
) -> Result<Report, CheckError> {
    check_qpor_with_tree(sys, opts, observer, &mut crate::qpor::NoTree)
}

/// [`check_qpor`], reporting the exploration tree to `tree` as it is built.
pub fn check_qpor_with_tree<S: System + ?Sized>(
    sys: &S,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
    tree: &mut dyn crate::qpor::TreeListener,
) -> Result<Report, CheckError> {
    use crate::unfold::program::{ProgramOptions, ProgramUnfolding};
    let start = std::time::Instant::now();
    if !crate::unfold::program::supports(sys) {
        return Err(CheckError::Model(ModelError::new(
            "this model cannot be unfolded (its system does not list anchored steps); use --engine explicit",
        )));
    }
    // An enabled action that touches no component is enabled in every reachable state:
    // the system never deadlocks, and the unfolding cannot represent its repetitions.
    let mut initial_steps = Vec::new();
    sys.enabled_steps(&sys.initial_state(), &mut initial_steps);
    if let Some(s) = initial_steps.iter().find(|s| s.touched.is_empty()) {
        return Ok(Report {
            verdict: Verdict::NoDeadlock,
            engine: "qpor",
            stopped: None,
            findings: Vec::new(),
            stats: Stats {
                seconds: start.elapsed().as_secs_f64(),
                peak_rss_bytes: peak_rss_bytes(),
                counters: vec![("always_enabled_action", s.action.0 as u64)],
            },
            settings: vec![("unfolding", serde_json::json!("program"))],
        });
    }
    let mut unf = ProgramUnfolding::new(
        sys,
        ProgramOptions {
            cutoff: opts.cutoff,
            max_events: effective_max_events(opts),
        },
    );
    run_qpor(&mut unf, sys, opts, observer, tree, "program", start)
}

/// Algorithm 1 over `unf` and the report, shared by both backends.
fn run_qpor<U: Unfolding + ?Sized, S: System + ?Sized>(
    unf: &mut U,
    sys: &S,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
    tree: &mut dyn crate::qpor::TreeListener,
    backend: &'static str,
    start: std::time::Instant,
) -> Result<Report, CheckError> {
    let qopts = crate::qpor::QporOptions {
        alt: opts.alt,
        all: opts.all,
        time_limit: opts.time_limit,
        no_prune: opts.no_prune,
    };
    let out = crate::qpor::explore(unf, sys, &qopts, observer, tree)?;
    let mut findings = out.findings;
    findings.sort_by_key(|f| (f.kind != FindingKind::Fault, f.kind != FindingKind::Deadlock));
    let verdict = if findings.iter().any(|f| f.kind == FindingKind::Fault) {
        Verdict::Fault
    } else if findings.iter().any(|f| f.kind == FindingKind::Deadlock) {
        Verdict::Deadlock
    } else if out.stopped.is_some() {
        Verdict::Inconclusive
    } else {
        Verdict::NoDeadlock
    };
    let u = out.unfolding;
    let stats = Stats {
        seconds: start.elapsed().as_secs_f64(),
        peak_rss_bytes: peak_rss_bytes(),
        counters: vec![
            ("max_configurations", out.max_configurations),
            ("ssbs", out.ssbs),
            ("cutoff_leaves", out.cutoff_leaves),
            ("deadlocks", out.deadlock_leaves),
            ("terminations", out.termination_leaves),
            ("events", u.events_created),
            ("peak_live_events", u.events_alive_peak),
            ("cutoff_events", u.cutoff_events),
            ("comb_calls", out.alt.combs),
            ("alt_calls", out.alt.calls),
            ("max_comb_size", out.alt.max_spikes),
            ("max_depth", out.max_depth),
            ("prunes", out.prunes),
        ],
    };
    let k = match opts.alt {
        AltMode::KPartial(k) => serde_json::json!(k),
        AltMode::Optimal => serde_json::json!("optimal"),
        AltMode::Sdpor => serde_json::json!("sdpor"),
    };
    Ok(Report {
        verdict,
        engine: "qpor",
        stopped: out.stopped,
        findings,
        stats,
        settings: vec![
            ("k", k),
            ("cutoff", serde_json::json!(opts.cutoff.name())),
            ("unfolding", serde_json::json!(backend)),
        ],
    })
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), 0 if unknown.
pub fn peak_rss_bytes() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}
