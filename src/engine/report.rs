//! The result of a check: verdict, findings with witnesses, settings, statistics.

use super::{Stats, StopReason};
use crate::system::net::{Net, TransId};
use crate::system::property::Formula;
use crate::system::{ActionId, DeadKind, StateValue, System};
use hashbrown::HashMap;
use serde::de::DeserializeOwned;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::sync::Arc;

/// The answer of a check.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A reachable dead state that is not final.
    Deadlock,
    /// No reachable deadlock (dead final states, i.e. terminations, are fine).
    NoDeadlock,
    /// A reachable fault state (failed assertion, run-time error of a program).
    Fault,
    /// A limit was reached before the question was decided (with properties: before
    /// every one was).
    Inconclusive,
    /// Every reachability property asked was decided; the answers are the report's
    /// `properties`.
    Answered,
}

impl Verdict {
    /// The verdict's name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Deadlock => "deadlock",
            Verdict::NoDeadlock => "no-deadlock",
            Verdict::Fault => "fault",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Answered => "answered",
        }
    }

    /// The process exit status scripts rely on: 0 no deadlock (or every property
    /// answered), 1 deadlock or fault, 3 inconclusive (or some property unknown).
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::NoDeadlock | Verdict::Answered => 0,
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
    /// The action, as the system numbers it (what a replay fires).
    pub id: ActionId,
    /// The action's name (a transition name, a program statement).
    pub action: Arc<str>,
    /// The identifier the model file gives the action (a net transition's PNML id), when
    /// it has one ([`System::action_file_id`]).
    pub file_id: Option<Arc<str>>,
    /// The component executing it (a process), if the model has owners.
    pub owner: Option<Arc<str>>,
}

impl WitnessStep {
    /// What identifies the step in reports and saved witnesses: the file's id, or else
    /// the name.
    pub fn ident(&self) -> &str {
        self.file_id.as_deref().unwrap_or(&self.action)
    }

    /// The step as a report shows it: `t3 (take_first_1)` when the id and the name
    /// differ, else the one of them.
    pub fn shown(&self) -> String {
        match &self.file_id {
            Some(id) if **id != *self.action => format!("{id} ({})", self.action),
            _ => self.action.to_string(),
        }
    }
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
                id: a,
                action: sys.action_name(a).into(),
                file_id: sys.action_file_id(a).map(Into::into),
                owner: sys.action_owner(a).map(|c| sys.component_name(c).into()),
            })
            .clone()
    }

    /// The witness of the firing sequence `transitions` of `net`, its steps named as the
    /// net's system names them (no system needs to be built).
    pub fn net_witness(&mut self, net: &Net, transitions: impl IntoIterator<Item = TransId>) -> Witness {
        let steps = transitions.into_iter().map(|t| {
            self.steps
                .entry(ActionId(t.0))
                .or_insert_with(|| {
                    let transition = &net.transitions[t.index()];
                    WitnessStep {
                        id: ActionId(t.0),
                        action: transition.label().into(),
                        file_id: Some(transition.id.as_str().into()),
                        owner: None,
                    }
                })
                .clone()
        });
        Witness {
            steps: steps.collect(),
        }
    }

    /// The witness of the firing sequence `actions` of `sys`.
    pub fn witness<S: System + ?Sized>(
        &mut self,
        sys: &S,
        actions: impl IntoIterator<Item = ActionId>,
    ) -> Witness {
        Witness {
            steps: actions.into_iter().map(|a| self.step(sys, a)).collect(),
        }
    }
}

/// A firing sequence from the initial state. In JSON: the list of its steps, each an
/// object with `id` (the file's id of the action, or its name), `name` (when it differs
/// from the id) and `process` (the component executing it, when the model has owners).
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

    /// Whether some step names the component executing it.
    pub fn has_owners(&self) -> bool {
        self.steps.iter().any(|s| s.owner.is_some())
    }
}

impl Serialize for Witness {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Step<'w>(&'w WitnessStep);
        impl Serialize for Step<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let step = self.0;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("id", step.ident())?;
                if step.ident() != &*step.action {
                    m.serialize_entry("name", &*step.action)?;
                }
                if let Some(o) = &step.owner {
                    m.serialize_entry("process", &**o)?;
                }
                m.end()
            }
        }
        let mut seq = s.serialize_seq(Some(self.steps.len()))?;
        for step in &self.steps {
            seq.serialize_element(&Step(step))?;
        }
        seq.end()
    }
}

/// What kind of bad (or final) state was found.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
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

    /// Faults first, then deadlocks, then terminations: the order of a report.
    fn rank(self) -> u8 {
        match self {
            FindingKind::Fault => 0,
            FindingKind::Deadlock => 1,
            FindingKind::Termination => 2,
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
    /// The states the witness passes through, the initial one first and `state` last, when
    /// they were asked for (`--witness states`); empty otherwise.
    pub states: Vec<String>,
    /// `state` as data (a net's marked places by id, a program's components), set by the
    /// replay every reported finding goes through; empty before it.
    pub entries: StateEntries,
    /// `states` as data, when they were asked for.
    pub states_entries: Vec<StateEntries>,
}

/// A state as data: (name, value) pairs, a JSON object in reports.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct StateEntries(pub Vec<(String, StateValue)>);

impl Serialize for StateEntries {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl Finding {
    /// A finding without its intermediate states (a replay adds them on request).
    pub fn new(kind: FindingKind, state: String, message: Option<String>, witness: Witness) -> Finding {
        Finding {
            kind,
            state,
            message,
            witness,
            states: Vec::new(),
            entries: StateEntries::default(),
            states_entries: Vec::new(),
        }
    }
}

/// In JSON: `kind`, `state` (the state as data: an object from a net's marked places, by
/// id, to their tokens, or from a program's components to their values), `state_text`
/// (the state in words, as the text report shows it), `message` (faults), `witness` (its
/// steps) and, under `--witness states`, `states` and `states_text` (every state the
/// witness passes through, the initial one first).
impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", &self.kind)?;
        m.serialize_entry("state", &self.entries)?;
        m.serialize_entry("state_text", &self.state)?;
        if let Some(msg) = &self.message {
            m.serialize_entry("message", msg)?;
        }
        m.serialize_entry("witness", &self.witness)?;
        if !self.states.is_empty() {
            m.serialize_entry("states", &self.states_entries)?;
            m.serialize_entry("states_text", &self.states)?;
        }
        m.end()
    }
}

/// How the engine was set up, where it matters to read the numbers (QPOR's `k`, `cutoff`
/// and `unfolding`; a search's order); empty for engines without such settings. Like
/// [`crate::engine::Counters`], each engine defines its settings in a struct of its own
/// and hands it over with [`Settings::of`]; reports flatten them into their JSON object.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Settings {
    /// (JSON name, value), in the order of the engine's struct.
    entries: serde_json::Map<String, serde_json::Value>,
}

impl Settings {
    /// The settings of `section`, an engine's settings struct (fields skipped by serde,
    /// e.g. absent options, are left out).
    pub fn of<T: Serialize>(section: &T) -> Settings {
        match serde_json::to_value(section) {
            Ok(serde_json::Value::Object(entries)) => Settings { entries },
            _ => Settings::default(),
        }
    }

    /// The setting called `name`, if the engine reports it.
    pub fn get(&self, name: &str) -> Option<&serde_json::Value> {
        self.entries.get(name)
    }

    /// The setting called `name`, if the engine reports it as a word.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.entries.get(name)?.as_str()
    }

    /// The engine's own settings struct, if these are its settings.
    pub fn typed<T: DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_value(serde_json::Value::Object(self.entries.clone())).ok()
    }

    /// Changes the settings through the engine's struct; nothing happens if these are not
    /// `T`'s settings.
    pub fn update<T: Serialize + DeserializeOwned>(&mut self, change: impl FnOnce(&mut T)) {
        if let Some(mut section) = self.typed::<T>() {
            change(&mut section);
            *self = Settings::of(&section);
        }
    }
}

impl Serialize for Settings {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.entries.serialize(s)
    }
}

/// The result of a check.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Report {
    /// The answer.
    pub verdict: Verdict,
    /// The engine that produced it.
    pub engine: &'static str,
    /// Engine settings worth reporting.
    #[serde(flatten)]
    pub settings: Settings,
    /// Why the run stopped before exploring everything it was asked to, if it did. With a
    /// deadlock found the verdict stands, but under `--all` the list of findings may then
    /// be incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
    /// The deadlocks and faults found (the first one only, unless `--all`), and with `--all`
    /// the terminations too; sorted by kind, then in discovery order.
    pub findings: Vec<Finding>,
    /// With reachability properties: the answer to each, in the order asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<PropertyAnswer>,
    /// With bound questions: the bounds found for each, in the order asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bounds: Vec<BoundAnswer>,
    /// With a question about the whole net (quasi-liveness, a stable place, liveness):
    /// its answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<GlobalAnswer>,
    /// Counters and resources.
    pub stats: Stats,
    /// With several engines (`--engine auto`): the one whose answer this is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<&'static str>,
    /// With several engines: every engine of the schedule, how it ended and what it counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<EngineRun>,
    /// When the engines ran on a structurally reduced net: how it was reduced. The
    /// findings are those of the original net (lifted, then replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reduction: Option<ReductionSummary>,
    /// The time spent reading the model, in seconds, when the caller measured it (the
    /// command line does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_seconds: Option<f64>,
    /// The time spent reducing the net before the first engine started, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reduce_seconds: Option<f64>,
    /// What was done to the findings after the engines (e.g. a witness shortened).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What the structural reductions did to a net: sizes before and after, and how often
/// each rule applied. In JSON `rules` is an object from rule name to count.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct ReductionSummary {
    /// Places of the original net.
    pub places_before: u64,
    /// Places of the reduced net.
    pub places_after: u64,
    /// Transitions of the original net.
    pub transitions_before: u64,
    /// Transitions of the reduced net.
    pub transitions_after: u64,
    /// (rule name, applications), in the order the rules are tried; rules that never
    /// applied are left out.
    #[serde(serialize_with = "serialize_rules")]
    pub rules: Vec<(&'static str, u64)>,
    /// Time spent reducing before the engines started, in seconds.
    pub seconds: f64,
    /// Time of the rules that ran beside the engines (the implicit places, for the
    /// portfolio), in seconds, when some did: their removals count in `rules` and
    /// `places_after` only if they ended before the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beside_seconds: Option<f64>,
}

impl ReductionSummary {
    /// This summary with `beside`'s, the summary of the rules that ran beside the engines
    /// on the net this one made: their removals and their time.
    pub fn merge_beside(&mut self, beside: ReductionSummary) {
        let removed = beside.places_before.saturating_sub(beside.places_after);
        self.places_after = self.places_after.saturating_sub(removed);
        for (rule, n) in beside.rules {
            match self.rules.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, count)) => *count += n,
                None => self.rules.push((rule, n)),
            }
        }
        self.beside_seconds = Some(self.beside_seconds.unwrap_or(0.0) + beside.beside_seconds.unwrap_or(0.0));
    }
}

fn serialize_rules<S: Serializer>(rules: &[(&'static str, u64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(rules.iter().map(|(name, n)| (*name, *n)))
}

/// How one engine of a portfolio ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunEnd {
    /// Its answer is the report's.
    Answered,
    /// It answered too, after the one whose answer is the report's.
    AnsweredLate,
    /// It ended without deciding (a limit, its time slice, or it cannot prove absence).
    Inconclusive,
    /// It was stopped because another engine answered.
    Cancelled,
    /// It could not run on this model.
    Failed,
    /// It had not started when the check ended.
    #[default]
    NotStarted,
    /// It did not stop in time after being told to; its numbers are unknown.
    Abandoned,
}

impl RunEnd {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            RunEnd::Answered => "answered",
            RunEnd::AnsweredLate => "answered-late",
            RunEnd::Inconclusive => "inconclusive",
            RunEnd::Cancelled => "cancelled",
            RunEnd::Failed => "failed",
            RunEnd::NotStarted => "not-started",
            RunEnd::Abandoned => "abandoned",
        }
    }
}

/// The answer to one reachability property.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct PropertyAnswer {
    /// The property's identifier.
    pub id: String,
    /// TRUE or FALSE; `None` when the run ended before deciding it.
    pub value: Option<bool>,
    /// The engine that decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<&'static str>,
    /// The reachable marking that decided it (TRUE for `EF φ`: a marking satisfying φ;
    /// FALSE for `AG φ`: one violating φ), with its witness; `None` when the answer
    /// comes from a complete exploration or a proof, or is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// For an undecided property: its formula with the sub-formulas the engine showed
    /// constant on every reachable marking replaced by their value, for the engines that
    /// run after it (not reported).
    #[serde(skip)]
    pub simplified: Option<Formula>,
}

impl PropertyAnswer {
    /// The answer "unknown" to the property `id`.
    pub fn unknown(id: &str) -> PropertyAnswer {
        PropertyAnswer {
            id: id.to_string(),
            value: None,
            decided_by: None,
            reached: None,
            simplified: None,
        }
    }
}

/// What is known of one bound question: the largest sum met on a reachable marking,
/// with the firing sequence that reaches it, and the smallest proved upper bound. The
/// bound is known when the two meet.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct BoundAnswer {
    /// The question's identifier.
    pub id: String,
    /// A sum some reachable marking reaches (at least the initial marking's).
    pub lower: u64,
    /// A number no reachable marking exceeds; `None` when none was proved.
    pub upper: Option<u64>,
    /// The engine that reached `lower` (`None`: the initial marking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_by: Option<&'static str>,
    /// The engine that proved `upper`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_by: Option<&'static str>,
    /// The marking reaching `lower`, with its witness (`None` for the initial marking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
}

impl BoundAnswer {
    /// Nothing known beyond the initial marking's sum `initial`.
    pub fn initial(id: &str, initial: u64) -> BoundAnswer {
        BoundAnswer {
            id: id.to_string(),
            lower: initial,
            upper: None,
            lower_by: None,
            upper_by: None,
            reached: None,
        }
    }

    /// The bound, when the lower and upper bounds meet.
    pub fn value(&self) -> Option<u64> {
        (self.upper == Some(self.lower)).then_some(self.lower)
    }

    /// Takes what `other` knows better: a larger lower bound with its witness, a smaller
    /// upper bound. `Err` names the contradiction when one's lower bound exceeds the
    /// other's upper bound (an engine bug).
    pub fn narrow(&mut self, other: BoundAnswer) -> Result<(), String> {
        if other.lower > self.lower {
            self.lower = other.lower;
            self.lower_by = other.lower_by;
            self.reached = other.reached;
        }
        if let Some(u) = other.upper {
            if self.upper.is_none_or(|mine| u < mine) {
                self.upper = Some(u);
                self.upper_by = other.upper_by;
            }
        }
        match self.upper {
            Some(u) if self.lower > u => Err(format!(
                "bound {}: {} reached by {} but {} proved by {}",
                self.id,
                self.lower,
                self.lower_by.unwrap_or("the initial marking"),
                u,
                self.upper_by.unwrap_or("?")
            )),
            _ => Ok(()),
        }
    }
}

/// The answer to a question about the whole net (quasi-liveness, a stable place,
/// liveness), with what decided it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct GlobalAnswer {
    /// The question: `quasi-liveness`, `stable-marking` or `liveness`.
    pub question: &'static str,
    /// TRUE or FALSE; `None` when undecided.
    pub value: Option<bool>,
    /// The engine that decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<&'static str>,
    /// Why, in words: the transition or place that decides it and how.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The reachable marking that decided it, with its witness, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// For a FALSE liveness from a component of the state graph: the transitions no
    /// marking of that component enables (by id), checked again from the witness's
    /// marking before the report leaves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl GlobalAnswer {
    /// The answer "unknown" to `question`.
    pub fn unknown(question: &'static str) -> GlobalAnswer {
        GlobalAnswer {
            question,
            value: None,
            decided_by: None,
            reason: String::new(),
            reached: None,
            missing: Vec::new(),
        }
    }
}

/// A reachable marking and how to reach it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Reached {
    /// The marking as data: marked places by id, with their tokens (set by the replay).
    pub state: StateEntries,
    /// The marking in words.
    pub state_text: String,
    /// A firing sequence reaching it.
    pub witness: Witness,
}

/// One engine of a portfolio run.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct EngineRun {
    /// The engine's name.
    pub engine: &'static str,
    /// How it ended.
    pub ended: RunEnd,
    /// Its own verdict, when it returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Why it stopped early, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
    /// Why it could not run, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its settings.
    #[serde(flatten)]
    pub settings: Settings,
    /// Its counters, when it returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
    /// When it started, in seconds since the check started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_seconds: Option<f64>,
    /// When its answer reached the portfolio, in seconds since the check started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_seconds: Option<f64>,
    /// Whether it ran on the refined net (the reduced net without its implicit places).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub refined: bool,
}

impl Report {
    /// The report of an engine run: the findings are put in report order (faults, then
    /// deadlocks, then terminations, each in discovery order) and the verdict follows
    /// from them and from whether the run stopped early.
    pub fn new(
        engine: &'static str,
        mut findings: Vec<Finding>,
        stopped: Option<StopReason>,
        stats: Stats,
        settings: Settings,
    ) -> Report {
        findings.sort_by_key(|f| f.kind.rank());
        let has = |k: FindingKind| findings.iter().any(|f| f.kind == k);
        let verdict = if has(FindingKind::Fault) {
            Verdict::Fault
        } else if has(FindingKind::Deadlock) {
            Verdict::Deadlock
        } else if stopped.is_some() {
            Verdict::Inconclusive
        } else {
            Verdict::NoDeadlock
        };
        Report {
            verdict,
            engine,
            settings,
            stopped,
            findings,
            stats,
            properties: Vec::new(),
            bounds: Vec::new(),
            global: None,
            answered_by: None,
            engines: Vec::new(),
            reduction: None,
            read_seconds: None,
            reduce_seconds: None,
            notes: Vec::new(),
        }
    }

    /// The report of an engine run asked reachability properties: the answers in the
    /// order asked; the verdict is [`Verdict::Answered`] when every one is decided.
    pub fn of_properties(
        engine: &'static str,
        properties: Vec<PropertyAnswer>,
        stopped: Option<StopReason>,
        stats: Stats,
        settings: Settings,
    ) -> Report {
        let mut report = Report::new(engine, Vec::new(), stopped, stats, settings);
        report.verdict = if properties.iter().all(|p| p.value.is_some()) {
            Verdict::Answered
        } else {
            Verdict::Inconclusive
        };
        report.properties = properties;
        report
    }

    /// The report of an engine run asked bound questions: the verdict is
    /// [`Verdict::Answered`] when every bound is known exactly.
    pub fn of_bounds(
        engine: &'static str,
        bounds: Vec<BoundAnswer>,
        stopped: Option<StopReason>,
        stats: Stats,
        settings: Settings,
    ) -> Report {
        let mut report = Report::new(engine, Vec::new(), stopped, stats, settings);
        report.verdict = if bounds.iter().all(|b| b.value().is_some()) {
            Verdict::Answered
        } else {
            Verdict::Inconclusive
        };
        report.bounds = bounds;
        report
    }

    /// The report of an engine run asked a question about the whole net: the verdict is
    /// [`Verdict::Answered`] when `global` is decided.
    pub fn of_global(
        engine: &'static str,
        global: GlobalAnswer,
        stopped: Option<StopReason>,
        stats: Stats,
        settings: Settings,
    ) -> Report {
        let mut report = Report::new(engine, Vec::new(), stopped, stats, settings);
        report.verdict = if global.value.is_some() {
            Verdict::Answered
        } else {
            Verdict::Inconclusive
        };
        report.global = Some(global);
        report
    }

    /// This report of a deadlock search, read as an answer to liveness: a reachable
    /// deadlock makes a net with transitions not live (its witness says how to get
    /// there); anything else leaves liveness unknown, since a net without deadlocks may
    /// still lose a transition.
    pub fn as_liveness(self) -> Report {
        let mut global = GlobalAnswer::unknown("liveness");
        if let Some(f) = self.findings.iter().find(|f| f.kind == FindingKind::Deadlock) {
            global.value = Some(false);
            global.decided_by = Some(self.engine);
            global.reason = "a dead marking is reachable".to_string();
            global.reached = Some(Reached {
                state: StateEntries::default(),
                state_text: f.state.clone(),
                witness: f.witness.clone(),
            });
        }
        let stopped = match global.value {
            Some(_) => None,
            None => Some(self.stopped.unwrap_or(StopReason::Cancelled)),
        };
        Report::of_global(self.engine, global, stopped, self.stats, self.settings)
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Clone, PartialEq, Debug, Default, Serialize, Deserialize)]
    struct Probe {
        order: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        jobs: Option<usize>,
    }

    #[test]
    fn settings_are_the_engines_struct_flattened_into_the_report() {
        let mut settings = Settings::of(&Probe {
            order: "depth".to_string(),
            jobs: None,
        });
        assert_eq!(settings.get_str("order"), Some("depth"));
        assert_eq!(settings.get("jobs"), None);
        settings.update(|p: &mut Probe| p.jobs = Some(2));
        assert_eq!(settings.typed::<Probe>().map(|p| p.jobs), Some(Some(2)));
        assert_eq!(
            serde_json::to_string(&settings).unwrap(),
            r#"{"order":"depth","jobs":2}"#
        );
    }
}
