//! The vocabulary every engine speaks, and the [`Engine`] trait they all implement
//! (docs/design.md#engines-and-verdicts).
//!
//! An engine takes a model, a [`Budget`] (a deadline and a cancel flag shared with the
//! other engines of a check) and an [`Observer`] for its progress line, and returns the
//! common [`Report`]: a [`Verdict`], the [`Finding`]s with their [`Witness`]es, why it
//! stopped early if it did ([`StopReason`]), and its [`Stats`]. The CLI, the JSON output,
//! the portfolio and the tests treat every engine alike through this vocabulary.
//!
//! This module sits just above `system` and below everything that explores: the unfolding
//! backends, the engines, the dispatcher (`check`) and the writers all use it, and it uses
//! nothing of theirs. Each engine's counters are declared here ([`Counters`]) so that a
//! report stays plain data with one JSON schema.

mod budget;
mod progress;
mod report;
pub(crate) mod sat;
mod stats;

pub(crate) use budget::Pacer;
pub use budget::{Budget, CancelToken, StopReason};
pub use progress::{Observer, Progress, Silent};
pub use report::{
    BoundAnswer, EngineRun, Finding, FindingKind, GlobalAnswer, PropertyAnswer, Reached, ReductionSummary,
    Report, RunEnd, Settings, StateEntries, StepNames, Verdict, Witness, WitnessStep,
};
pub use stats::{current_rss_bytes, peak_rss_bytes, Counters, Stats};

use crate::system::model::{Model, ModelKind, SystemOptions};
use crate::system::net::Net;
use crate::system::property::{BoundQuery, Property};
use crate::system::{ModelError, System};
use std::sync::Arc;

/// What a check asks of a model. Each engine says which questions it answers
/// ([`Engine::answers`]) and the portfolio asks each engine only those, so a new question
/// is added here and to the engines that answer it, and no other engine changes.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
#[non_exhaustive]
pub enum Question {
    /// Is a dead state that is not final reachable, or, in a program, a fault? Answered
    /// by a witness or by a complete exploration or proof.
    #[default]
    Deadlock,
    /// Does some reachable marking of a net put two tokens on a place (the Model Checking
    /// Contest's OneSafe)? Asked through the net's OneSafe view, whose faults are such
    /// markings (`system::one_safe`): a witness answers no, a complete exploration yes.
    OneSafe,
    /// Reachability properties of a net, `EF φ` or `AG φ`, answered together: each by a
    /// reachable marking satisfying its target (a witness), or by a complete exploration
    /// or proof that none is reachable (`system::property`).
    Reachability(Arc<[Property]>),
    /// Bounds of sums of places (the contest's UpperBounds): the largest sum on a
    /// reachable marking, known when a witnessed lower bound meets a proved upper bound.
    Bounds(Arc<[BoundQuery]>),
    /// Can every transition of a net fire from some reachable marking? Asked of the
    /// engines as one `EF FIREABLE(t)` property per transition (`check` translates it).
    QuasiLiveness,
    /// Does some place of a net keep the same number of tokens in every reachable
    /// marking? Asked of the engines as one `AG p = m0(p)` property per place.
    StableMarking,
    /// Can every transition of a net fire again from every reachable marking? FALSE from
    /// a reachable deadlock, a dead transition, or a bottom component of the state graph
    /// missing a transition; TRUE only from a complete analysis of the components.
    Liveness,
}

impl Question {
    /// The question's name in messages.
    pub fn name(&self) -> &'static str {
        match self {
            Question::Deadlock => "the deadlock question",
            Question::OneSafe => "the OneSafe question",
            Question::Reachability(_) => "reachability properties",
            Question::Bounds(_) => "bound questions",
            Question::QuasiLiveness => "quasi-liveness",
            Question::StableMarking => "the stable-marking question",
            Question::Liveness => "liveness",
        }
    }

    /// Whether a search that meets every marking it can answers this question of a net:
    /// OneSafe, reachability properties, bounds and liveness (quasi-liveness and a
    /// stable place reach the engines as reachability properties).
    pub fn read_off_markings(&self) -> bool {
        matches!(
            self,
            Question::OneSafe | Question::Reachability(_) | Question::Bounds(_) | Question::Liveness
        )
    }

    /// The system options that ask this question of a model: the OneSafe view for
    /// OneSafe, the model itself otherwise.
    pub fn system_options(&self, opts: &SystemOptions) -> SystemOptions {
        SystemOptions {
            one_safe_watch: *self == Question::OneSafe,
            ..*opts
        }
    }
}

/// The refusal of an engine asked a question it does not answer on a model of this kind.
fn unanswered(engine: &str, question: &Question, kind: ModelKind) -> EngineError {
    // An engine for nets still answers a program once it is a net.
    let model = match kind {
        ModelKind::Net => "a net",
        ModelKind::Program => {
            "a program (it works on nets: `qpor convert --to pnml` makes a net of a program)"
        }
    };
    EngineError::Options(format!(
        "the {engine} engine does not answer {} on {model}",
        question.name()
    ))
}

/// A checking engine: explores (or reasons about) a model within a budget, to answer a
/// [`Question`].
///
/// Implementations hold their own options. `run` must return when the model is decided,
/// when the budget's deadline passes or its cancel token is set (then with
/// [`Verdict::Inconclusive`] and a [`StopReason`], unless a deadlock was already found),
/// or on a model error. A [`Verdict::NoDeadlock`] comes only from a complete exploration
/// or a proof; a [`Verdict::Deadlock`] comes with a witness.
pub trait Engine {
    /// The engine's name in reports (`qpor`, `explicit`, …).
    fn name(&self) -> &'static str;

    /// Whether the engine answers `question` on a model of kind `kind`.
    fn answers(&self, question: &Question, kind: ModelKind) -> bool;

    /// Answers what it is `asked`, a question it answers on that kind of model.
    fn run(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult;

    /// [`Engine::run`], or an [`EngineError::Options`] when the engine does not answer the
    /// question on this kind of model.
    fn ask(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult {
        let kind = asked.model.kind();
        if !self.answers(asked.question, kind) {
            return Err(unanswered(self.name(), asked.question, kind));
        }
        self.run(asked, observer)
    }
}

/// What an engine is asked: a question about a model, within a budget.
#[derive(Clone, Copy)]
pub struct Asked<'a> {
    /// The question.
    pub question: &'a Question,
    /// The model it is about.
    pub model: &'a Model,
    /// The time, memory and cancellation the answer must fit in.
    pub budget: &'a Budget,
}

impl<'a> Asked<'a> {
    /// The net and its properties when the question is about reachability properties of
    /// a net.
    pub(crate) fn net_properties(&self) -> Option<(&'a Net, &'a [Property])> {
        match (self.question, self.model) {
            (Question::Reachability(properties), Model::Net(net)) => Some((net, properties)),
            _ => None,
        }
    }

    /// The net and its bound questions when the question is about bounds of a net.
    pub(crate) fn net_bounds(&self) -> Option<(&'a Net, &'a [BoundQuery])> {
        match (self.question, self.model) {
            (Question::Bounds(bounds), Model::Net(net)) => Some((net, bounds)),
            _ => None,
        }
    }

    /// The net when the question is liveness of a net.
    pub(crate) fn net_liveness(&self) -> Option<&'a Net> {
        match (self.question, self.model) {
            (Question::Liveness, Model::Net(net)) => Some(net),
            _ => None,
        }
    }

    /// Runs `search` on the component system the model becomes under `system` as the
    /// question views it (the OneSafe view for OneSafe), handing it those options: the
    /// whole of [`Engine::run`] for a search that answers every question on any system.
    pub(crate) fn search_system<E>(
        &self,
        system: &SystemOptions,
        search: impl FnOnce(&(dyn System + Sync), SystemOptions) -> Result<Report, E>,
    ) -> RunResult
    where
        EngineError: From<E>,
    {
        let viewed = self.question.system_options(system);
        run_on_system(self.model, &viewed, |sys| search(sys, viewed))
    }
}

/// Runs `search` on the component system `model` becomes under `opts`: the whole of
/// [`Engine::run`] for an engine that searches any system alike.
pub(crate) fn run_on_system<E>(
    model: &Model,
    opts: &SystemOptions,
    search: impl FnOnce(&(dyn System + Sync)) -> Result<Report, E>,
) -> RunResult
where
    EngineError: From<E>,
{
    let sys = model.system(opts)?;
    Ok(search(&*sys)?)
}

/// What an engine run gives: its report, or why it could not run at all.
pub type RunResult = Result<Report, EngineError>;

/// Frees `value` on a thread of its own and returns at once. An engine's arenas can hold
/// gigabytes in millions of small allocations (seen: 0.4 s to free a 4 GB unfolding),
/// longer than the portfolio waits for an engine to return once told to stop.
pub(crate) fn drop_in_background<T: Send + 'static>(value: T) {
    // If no thread can be started the closure, and `value` with it, is dropped here.
    let _ = std::thread::Builder::new()
        .name("qpor-free".into())
        .spawn(move || drop(value));
}

/// Why an engine could not run at all (as opposed to running out of budget, which is an
/// inconclusive [`Report`]).
#[derive(Debug)]
pub enum EngineError {
    /// The model's semantics cannot be honoured (e.g. a NUPN block contradicting the net,
    /// or an engine that does not apply to this kind of model).
    Model(ModelError),
    /// The options contradict each other or ask an engine for what it does not do
    /// (`CheckOptions::validate`); the command line exits with status 2.
    Options(String),
    /// An engine bug caught before it became a wrong answer (a witness refused by the
    /// replay); the command line exits with status 4.
    Internal(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Model(e) => e.fmt(f),
            EngineError::Options(m) => f.write_str(m),
            EngineError::Internal(m) => write!(f, "[qpor internal error] {m}"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<ModelError> for EngineError {
    fn from(e: ModelError) -> Self {
        EngineError::Model(e)
    }
}
