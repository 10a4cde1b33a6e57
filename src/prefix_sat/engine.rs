//! The `prefix-sat` engine: build the complete prefix, then ask the solver for dead
//! markings (and, for programs, fault states) until it finds what was asked or proves
//! there is none.

use super::formula::{PrefixFormula, Question};
use super::reach;
use crate::engine::sat::{Sat, Solved};
use crate::engine::Question as EngineQuestion;
use crate::engine::{
    Asked, Budget, Counters, Engine, EngineError, Finding, FindingKind, Observer, Progress, PropertyAnswer,
    Report, RunResult, Settings, Stats, StepNames, StopReason,
};
use crate::system::model::{Model, ModelKind, SystemOptions};
use crate::system::{
    classify_dead, find_fault, state_after, ActionId, FiringError, Local, ModelError, System,
};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::prefix::{build_general, build_program, PrefixOptions, PrefixOutcome};
use crate::unfold::Backend;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The prefix + SAT engine, with its options.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrefixSatOptions {
    /// How the model becomes a system (the OneSafe view is refused).
    pub system: SystemOptions,
    /// Collect every dead state (and fault state) instead of stopping at the first
    /// deadlock.
    pub all: bool,
    /// The unfolding backend building the prefix.
    pub unfolding: Backend,
    /// The adequate order deciding cutoffs (`none` is refused: the prefix must be
    /// complete).
    pub cutoff: CutoffMode,
    /// Stop, inconclusive, when the prefix has this many events.
    pub max_events: Option<u64>,
}

/// The options are the prefix + SAT engine.
impl Engine for PrefixSatOptions {
    fn name(&self) -> &'static str {
        "prefix-sat"
    }

    /// The prefix's deadlock formula asks for a dead configuration (or a fault); a net's
    /// reachability properties ask for a configuration whose cut satisfies a target.
    fn answers(&self, question: &EngineQuestion, kind: ModelKind) -> bool {
        match question {
            EngineQuestion::Deadlock => true,
            EngineQuestion::Reachability(_) => kind == ModelKind::Net,
            _ => false,
        }
    }

    fn run(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult {
        let Asked { model, budget, .. } = &asked;
        let opts = self;
        if opts.cutoff == CutoffMode::None {
            return Err(ModelError::new(
                "the prefix-sat engine needs a complete prefix: --cutoff none is refused",
            )
            .into());
        }
        let start = Instant::now();
        let sys = model.system(&opts.system)?;
        let backend = opts.unfolding.resolve(model, &opts.system);
        let settings = Settings::of(&PrefixSatSettings {
            cutoff: opts.cutoff.name().to_string(),
            unfolding: backend.name().to_string(),
        });
        let mut names = StepNames::default();
        let initial = sys.initial_state();
        if let Some(finding) = fault_finding(&*sys, &initial, &[], &mut names) {
            let stats = Stats::new(Counters::of(&PrefixSatCounters::default()), 0.0);
            return Ok(Report::new(self.name(), vec![finding], None, stats, settings));
        }
        let prefix_opts = PrefixOptions {
            cutoff: opts.cutoff,
            max_events: opts.max_events,
            time_limit: budget
                .deadline()
                .map(|d| d.saturating_duration_since(Instant::now())),
            started: None,
            max_bytes: None,
            cancel: Some(budget.cancel_token().clone()),
        };
        let built = match (backend, model) {
            (Backend::General, Model::Net(net)) => build_general(net, &prefix_opts)?,
            (Backend::General, Model::Program(_)) => {
                return Err(ModelError::new(
                    "the general unfolding backend unfolds Petri nets only; use --unfolding program",
                )
                .into())
            }
            _ => build_program(&*sys, &prefix_opts)?,
        };
        let mut counters = PrefixSatCounters {
            events: built.stats.events,
            conditions: built.stats.conditions,
            cutoffs: built.stats.cutoffs,
            prefix_ms: (built.stats.seconds * 1000.0) as u64,
            ..PrefixSatCounters::default()
        };
        observer.progress(&Progress {
            engine: self.name(),
            seconds: start.elapsed().as_secs_f64(),
            counters: vec![("events", counters.events), ("cutoffs", counters.cutoffs)],
        });
        let properties = asked.net_properties();
        if built.stopped.is_some() {
            let reason = budget.exhausted().unwrap_or(match opts.max_events {
                Some(max) if built.stats.events >= max => StopReason::EventLimit(max),
                _ => budget.time_limit_reached(),
            });
            crate::engine::drop_in_background(built);
            let stats = Stats::new(Counters::of(&counters), start.elapsed().as_secs_f64());
            if let Some((_, properties)) = properties {
                let unknown = properties
                    .iter()
                    .map(|p| PropertyAnswer::unknown(&p.id))
                    .collect();
                return Ok(Report::of_properties(
                    self.name(),
                    unknown,
                    Some(reason),
                    stats,
                    settings,
                ));
            }
            return Ok(Report::new(
                self.name(),
                Vec::new(),
                Some(reason),
                stats,
                settings,
            ));
        }
        let sat_start = Instant::now();
        if let Some((net, properties)) = properties {
            let tokens = reach::cut_tokens(net, &*sys, &built.prefix, backend);
            let (answers, stopped) = reach::answer(
                net,
                properties,
                &built.prefix,
                &tokens,
                budget,
                &mut counters,
                observer,
            )?;
            counters.sat_ms = sat_start.elapsed().as_millis() as u64;
            crate::engine::drop_in_background(built);
            let stats = Stats::new(Counters::of(&counters), start.elapsed().as_secs_f64());
            return Ok(Report::of_properties(
                self.name(),
                answers,
                stopped,
                stats,
                settings,
            ));
        }
        let mut search = Search {
            sys: &*sys,
            built: &built,
            formula: PrefixFormula::deadlock(&built.prefix, &built.faults),
            solver: Sat::new(budget),
            names,
            all: opts.all,
            seen: FxHashSet::default(),
            findings: Vec::new(),
        };
        let stopped = search.run(budget)?;
        counters.variables = u64::from(search.formula.cnf().num_vars);
        counters.clauses = search.formula.cnf().clauses.len() as u64;
        counters.solver_calls = search.solver.calls;
        counters.sat_ms = sat_start.elapsed().as_millis() as u64;
        let findings = std::mem::take(&mut search.findings);
        crate::engine::drop_in_background(built);
        let stats = Stats::new(Counters::of(&counters), start.elapsed().as_secs_f64());
        Ok(Report::new(self.name(), findings, stopped, stats, settings))
    }
}

/// The solver loop over one prefix.
struct Search<'a, S: System + ?Sized> {
    sys: &'a S,
    built: &'a PrefixOutcome,
    formula: PrefixFormula,
    solver: Sat,
    names: StepNames,
    all: bool,
    seen: FxHashSet<Vec<Local>>,
    findings: Vec<Finding>,
}

impl<S: System + ?Sized> Search<'_, S> {
    /// Asks the fault question, then the deadlock question, each until the solver finds no
    /// new state (or one state, when not asked for all); returns why it stopped early.
    fn run(&mut self, budget: &Budget) -> Result<Option<StopReason>, EngineError> {
        for question in [Question::Fault, Question::Dead] {
            let Some(assumptions) = self.formula.assumptions(question) else {
                continue;
            };
            loop {
                match self.solver.solve(self.formula.cnf(), &assumptions) {
                    Solved::Unsat => break,
                    Solved::Stopped => {
                        return Ok(Some(budget.exhausted().unwrap_or(StopReason::Cancelled)));
                    }
                    Solved::Sat => {}
                }
                let solver = &self.solver;
                let value = |l| solver.value(l);
                let config = self.formula.configuration(&value);
                let cut = self.formula.cut(&value);
                let finding = self.finding(question, &config)?;
                self.formula.block(&cut);
                let decisive = finding.kind != FindingKind::Termination;
                if decisive || self.all {
                    self.findings.push(finding);
                }
                if decisive && !self.all {
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }

    /// Fires the configuration `config` (prefix order is a linearisation) and returns what
    /// its last state is: a fault, a deadlock or a termination.
    fn finding(&mut self, question: Question, config: &[u32]) -> Result<Finding, EngineError> {
        let events = &self.built.prefix.events;
        let actions: Vec<ActionId> = config
            .iter()
            .map(|&e| ActionId(events[e as usize].action))
            .collect();
        let state = state_after(self.sys, actions.iter().copied()).map_err(|e| match e {
            FiringError::Model(e) => EngineError::Model(e),
            e => EngineError::Internal(format!("prefix-sat: {e} in the configuration's order")),
        })?;
        if !self.seen.insert(state.clone()) {
            // Blocking is exact: a state found twice would loop forever.
            return Err(EngineError::Internal(format!(
                "prefix-sat: a blocked state was found again: {}",
                self.sys.describe_state(&state)
            )));
        }
        if question == Question::Fault {
            return fault_finding(self.sys, &state, &actions, &mut self.names).ok_or_else(|| {
                EngineError::Internal(
                    "prefix-sat: a configuration with a fault event ends in no fault".into(),
                )
            });
        }
        let mut steps = Vec::new();
        self.sys.enabled_steps(&state, &mut steps);
        if let Some(s) = steps.first() {
            return Err(EngineError::Internal(format!(
                "prefix-sat: the marking of a dead configuration enables {}",
                self.sys.action_name(s.action)
            )));
        }
        let kind = FindingKind::from(classify_dead(self.sys, &state));
        let witness = self.names.witness(self.sys, actions);
        Ok(Finding::new(kind, self.sys.describe_state(&state), None, witness))
    }
}

/// The fault finding of `state`, reached by `actions`, if it is a fault state.
fn fault_finding<S: System + ?Sized>(
    sys: &S,
    state: &[Local],
    actions: &[ActionId],
    names: &mut StepNames,
) -> Option<Finding> {
    let (c, message) = find_fault(sys, state)?;
    Some(Finding::new(
        FindingKind::Fault,
        sys.describe_state(state),
        Some(format!("{}: {message}", sys.component_name(c))),
        names.witness(sys, actions.iter().copied()),
    ))
}

/// Counters of the prefix + SAT check.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
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
    /// Properties left unknown because their target's counters would be too large to
    /// encode (more than a few million variables).
    pub targets_too_large: u64,
}

/// The prefix-sat engine's settings: how its prefix was built.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct PrefixSatSettings {
    /// The adequate order deciding cutoffs (`erv`, `mcmillan`).
    pub cutoff: String,
    /// The unfolding built (`program`, `general`).
    pub unfolding: String,
}
