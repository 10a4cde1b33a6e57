//! The Model Checking Contest's interface (`qpor mcc`): a directory as the contest lays it
//! out (`model.pnml`, `iscolored`, one XML file of properties per examination), an
//! examination, a time budget, and one answer line per property on standard output.
//!
//! Two examinations are answered:
//! * **ReachabilityDeadlock**: `TRUE` when a deadlock is reachable, by the same portfolio
//!   as `qpor check` (every witness replayed);
//! * **OneSafe**: `TRUE` when every reachable marking puts at most one token on every
//!   place: first structurally (a NUPN declared safe, or place invariants bounding every
//!   place by one), else by exploration, where a place holding two tokens is a fault
//!   (`system::one_safe`): the walk finds such markings, the explicit search finds them or
//!   proves there are none.
//!
//! * **ReachabilityCardinality** and **ReachabilityFireability**: the properties of
//!   `<Examination>.xml` (`EF φ`, `AG φ`), answered together by the portfolio
//!   (`Question::Reachability`); one line per decided property, none for the others.
//!
//! * **UpperBounds**: the `place-bound` properties of `UpperBounds.xml`, one number each
//!   (`Question::Bounds`): a witnessed lower bound met by a proved upper bound;
//! * **QuasiLiveness**, **StableMarking**, **Liveness**: one answer about the whole net
//!   (`Question::QuasiLiveness`, `StableMarking`, `Liveness`).
//!
//! Coloured nets and other examinations get `DO_NOT_COMPETE`; a run that decides nothing
//! within the budget, `CANNOT_COMPUTE`.

use crate::check::{check_shared, CheckOptions, EngineChoice, Limits, PortfolioChoice};
use crate::engine::{BoundAnswer, Budget, EngineError, Observer, Question, Report, Verdict};
use crate::parse::property::xml::{read_queries, Queries};
use crate::parse::{load, pnml, LoadError, LoadOptions};
use crate::system::invariants::{structural_safeness, Safeness};
use crate::system::model::Model;
use quick_xml::events::Event;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Above this many places the invariant search of OneSafe is skipped: its rows grow with
/// the square of the places (seconds and hundreds of megabytes past a few thousand).
const INVARIANTS_UP_TO_PLACES: usize = 1000;

/// What `qpor mcc` is asked.
#[derive(Clone, Debug, Default)]
pub struct MccOptions {
    /// The examination (`ReachabilityDeadlock`, `OneSafe`, …).
    pub examination: String,
    /// The time budget of the whole run.
    pub time_limit: Option<Duration>,
    /// When the budget started counting; `None`: when [`answer`] is called.
    pub started: Option<Instant>,
    /// How many engines run at once (`None`: one per core).
    pub jobs: Option<usize>,
    /// The random walk's seed.
    pub seed: u64,
    /// Stop every engine when the process holds more than this many megabytes.
    pub max_memory_mb: Option<u64>,
}

/// The examinations `qpor mcc` answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Examination {
    /// Is a deadlock reachable?
    ReachabilityDeadlock,
    /// Is every reachable marking 1-bounded?
    OneSafe,
    /// Reachability properties over token counts.
    ReachabilityCardinality,
    /// Reachability properties over enabled transitions.
    ReachabilityFireability,
    /// The largest sums of tokens of place sets, one number per property.
    UpperBounds,
    /// Can every transition fire from some reachable marking?
    QuasiLiveness,
    /// Does some place keep its tokens in every reachable marking?
    StableMarking,
    /// Can every transition fire again from every reachable marking?
    Liveness,
}

impl Examination {
    /// The examination called `name` in the contest, if qpor answers it.
    pub fn from_name(name: &str) -> Option<Examination> {
        match name {
            "ReachabilityDeadlock" => Some(Examination::ReachabilityDeadlock),
            "OneSafe" => Some(Examination::OneSafe),
            "ReachabilityCardinality" => Some(Examination::ReachabilityCardinality),
            "ReachabilityFireability" => Some(Examination::ReachabilityFireability),
            "UpperBounds" => Some(Examination::UpperBounds),
            "QuasiLiveness" => Some(Examination::QuasiLiveness),
            "StableMarking" => Some(Examination::StableMarking),
            "Liveness" => Some(Examination::Liveness),
            _ => None,
        }
    }

    /// The contest's name of the examination.
    pub fn name(self) -> &'static str {
        match self {
            Examination::ReachabilityDeadlock => "ReachabilityDeadlock",
            Examination::OneSafe => "OneSafe",
            Examination::ReachabilityCardinality => "ReachabilityCardinality",
            Examination::ReachabilityFireability => "ReachabilityFireability",
            Examination::UpperBounds => "UpperBounds",
            Examination::QuasiLiveness => "QuasiLiveness",
            Examination::StableMarking => "StableMarking",
            Examination::Liveness => "Liveness",
        }
    }

    /// Whether the examination asks the properties of its file, one answer line each.
    pub fn asks_properties(self) -> bool {
        matches!(
            self,
            Examination::ReachabilityCardinality
                | Examination::ReachabilityFireability
                | Examination::UpperBounds
        )
    }
}

/// The answer of `qpor mcc`, printed as the contest reads it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MccAnswer {
    /// `FORMULA <id> TRUE|FALSE TECHNIQUES …`.
    Formula {
        /// The property's id.
        id: String,
        /// Whether the property holds.
        holds: bool,
        /// What answered, in the contest's words.
        techniques: Vec<&'static str>,
    },
    /// `FORMULA <id> <number> TECHNIQUES …`: a bound.
    Bound {
        /// The property's id.
        id: String,
        /// The largest sum of the places' tokens on a reachable marking.
        value: u64,
        /// What answered, in the contest's words.
        techniques: Vec<&'static str>,
    },
    /// `FORMULA <id> CANNOT_COMPUTE`: nothing decided within the budget.
    CannotCompute {
        /// The property's id.
        id: String,
    },
    /// `DO_NOT_COMPETE`: a coloured net, or an examination qpor does not answer.
    DoNotCompete,
}

impl fmt::Display for MccAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MccAnswer::Formula {
                id,
                holds,
                techniques,
            } => {
                let value = if *holds { "TRUE" } else { "FALSE" };
                write!(f, "FORMULA {id} {value} TECHNIQUES {}", techniques.join(" "))
            }
            MccAnswer::Bound {
                id,
                value,
                techniques,
            } => {
                write!(f, "FORMULA {id} {value} TECHNIQUES {}", techniques.join(" "))
            }
            MccAnswer::CannotCompute { id } => write!(f, "FORMULA {id} CANNOT_COMPUTE"),
            MccAnswer::DoNotCompete => f.write_str("DO_NOT_COMPETE"),
        }
    }
}

/// The answers with what the user should know about how they came (a reader's error
/// behind a CANNOT_COMPUTE, an engine that failed); `notes` go to standard error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MccOutcome {
    /// The answer lines: one, or one per decided property of a reachability examination.
    pub answers: Vec<MccAnswer>,
    /// The properties of a reachability examination left undecided (no line is printed
    /// for them).
    pub undecided: Vec<String>,
    /// Diagnostics for standard error.
    pub notes: Vec<String>,
}

impl MccOutcome {
    fn one(answer: MccAnswer, notes: Vec<String>) -> MccOutcome {
        MccOutcome {
            answers: vec![answer],
            undecided: Vec::new(),
            notes,
        }
    }

    /// Whether every property asked was decided.
    pub fn complete(&self) -> bool {
        self.undecided.is_empty()
            && self
                .answers
                .iter()
                .all(|a| !matches!(a, MccAnswer::CannotCompute { .. }))
    }
}

/// Answers the examination of `opts` on the contest directory `dir`. A witness the replay
/// refuses is an error ([`EngineError::Internal`]); every other problem is an answer with
/// notes.
pub fn answer(dir: &Path, opts: &MccOptions, observer: &mut dyn Observer) -> Result<MccOutcome, EngineError> {
    let started = opts.started.unwrap_or_else(Instant::now);
    let plain = |answer| MccOutcome::one(answer, Vec::new());
    let Some(exam) = Examination::from_name(&opts.examination) else {
        return Ok(MccOutcome::one(
            MccAnswer::DoNotCompete,
            vec![format!(
                "examination {:?}: qpor answers ReachabilityDeadlock, OneSafe, ReachabilityCardinality, ReachabilityFireability, UpperBounds, QuasiLiveness, StableMarking and Liveness",
                opts.examination
            )],
        ));
    };
    if is_coloured_dir(dir) {
        return Ok(plain(MccAnswer::DoNotCompete));
    }
    let id = property_id(dir, exam);
    let property_note = property_file_problem(dir, exam);
    let loaded = match load(&dir.join("model.pnml"), &LoadOptions::default()) {
        Ok(l) => l,
        Err(LoadError::Parse(e)) if pnml::is_not_pt_net_error(&e) => {
            return Ok(plain(MccAnswer::DoNotCompete))
        }
        Err(e) => {
            return Ok(MccOutcome::one(
                MccAnswer::CannotCompute { id },
                vec![e.to_string()],
            ))
        }
    };
    let mut notes = loaded.warnings;
    notes.extend(property_note);
    if exam == Examination::OneSafe {
        if let Some(techniques) = structurally_safe(&loaded.model, &invariant_budget(opts)) {
            let answer = MccAnswer::Formula {
                id,
                holds: true,
                techniques,
            };
            return Ok(MccOutcome::one(answer, notes));
        }
    }
    let mut check_opts = CheckOptions {
        engine: EngineChoice::Auto(PortfolioChoice {
            jobs: opts.jobs,
            seed: opts.seed,
            ..PortfolioChoice::default()
        }),
        limits: Limits {
            time_limit: opts.time_limit,
            started: Some(started),
            max_memory_mb: opts.max_memory_mb,
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    check_opts.question = match exam {
        Examination::OneSafe => Question::OneSafe,
        Examination::ReachabilityDeadlock => Question::Deadlock,
        Examination::QuasiLiveness => Question::QuasiLiveness,
        Examination::StableMarking => Question::StableMarking,
        Examination::Liveness => Question::Liveness,
        Examination::ReachabilityCardinality
        | Examination::ReachabilityFireability
        | Examination::UpperBounds => {
            let file = dir.join(format!("{}.xml", exam.name()));
            let read = crate::parse::read_text(&file)
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    let net = loaded.model.as_net().ok_or("a contest model is a net")?;
                    read_queries(&text, &file.display().to_string(), net).map_err(|e| e.to_string())
                });
            match read {
                Ok(Queries::Reachability(properties)) if exam != Examination::UpperBounds => {
                    Question::Reachability(properties.into())
                }
                Ok(Queries::Bounds(bounds)) if exam == Examination::UpperBounds => {
                    Question::Bounds(bounds.into())
                }
                Ok(_) => {
                    notes.push(format!(
                        "{}: the file asks another kind of question than {}",
                        file.display(),
                        exam.name()
                    ));
                    return Ok(MccOutcome::one(MccAnswer::CannotCompute { id }, notes));
                }
                Err(e) => {
                    notes.push(e);
                    return Ok(MccOutcome::one(MccAnswer::CannotCompute { id }, notes));
                }
            }
        }
    };
    let report = match check_shared(&Arc::new(loaded.model), &check_opts, observer) {
        Ok(r) => r,
        Err(e @ EngineError::Internal(_)) => return Err(e),
        Err(e) => {
            notes.push(e.to_string());
            return Ok(MccOutcome::one(MccAnswer::CannotCompute { id }, notes));
        }
    };
    if exam.asks_properties() {
        let mut out = MccOutcome {
            answers: Vec::new(),
            undecided: Vec::new(),
            notes,
        };
        for b in &report.bounds {
            match bound_answer(b, Some(&report)) {
                Some(answer) => out.answers.push(answer),
                None => out.undecided.push(b.id.clone()),
            }
        }
        for p in &report.properties {
            match p.value {
                Some(holds) => out.answers.push(MccAnswer::Formula {
                    id: p.id.clone(),
                    holds,
                    techniques: engine_techniques(p.decided_by.unwrap_or(report.engine), &report),
                }),
                None => out.undecided.push(p.id.clone()),
            }
        }
        return Ok(out);
    }
    let global = report
        .global
        .as_ref()
        .and_then(|g| Some((g.value?, g.decided_by)));
    if let Some((holds, by)) = global {
        let answer = MccAnswer::Formula {
            id,
            holds,
            techniques: engine_techniques(by.unwrap_or(report.engine), &report),
        };
        return Ok(MccOutcome::one(answer, notes));
    }
    let holds = match (exam, report.verdict) {
        (Examination::ReachabilityDeadlock, Verdict::Deadlock) => Some(true),
        (Examination::ReachabilityDeadlock, Verdict::NoDeadlock) => Some(false),
        // A fault of a net watched for OneSafe is a place with two tokens.
        (Examination::OneSafe, Verdict::Fault) => Some(false),
        (Examination::OneSafe, Verdict::NoDeadlock) => Some(true),
        _ => None,
    };
    let answer = match holds {
        Some(holds) => MccAnswer::Formula {
            id,
            holds,
            techniques: techniques(&report),
        },
        None => MccAnswer::CannotCompute { id },
    };
    Ok(MccOutcome::one(answer, notes))
}

/// Whether the directory says its net is coloured (the contest's `iscolored` file).
fn is_coloured_dir(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("iscolored")).is_ok_and(|s| s.trim().eq_ignore_ascii_case("true"))
}

/// The id of the examination's property: the first `<id>` of `<Examination>.xml`, or the
/// examination's name when the file is absent or holds none.
pub fn property_id(dir: &Path, exam: Examination) -> String {
    let file = dir.join(format!("{}.xml", exam.name()));
    std::fs::read_to_string(file)
        .ok()
        .and_then(|xml| first_id(&xml))
        .unwrap_or_else(|| exam.name().to_string())
}

/// What is wrong with the examination's property file, when it is there but no property
/// id can be read from it (it is not XML, or holds no `<id>`).
fn property_file_problem(dir: &Path, exam: Examination) -> Option<String> {
    let file = dir.join(format!("{}.xml", exam.name()));
    let xml = std::fs::read(&file).ok()?;
    let text = String::from_utf8_lossy(&xml);
    first_id(&text).is_none().then(|| {
        format!(
            "{}: no property <id> could be read (not XML, or no <id> element); the examination's \
             name stands for it",
            file.display()
        )
    })
}

/// The text of the first `<id>` element of `xml`.
fn first_id(xml: &str) -> Option<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut in_id = false;
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) if e.local_name().into_inner() == "id" => in_id = true,
            Event::Text(t) if in_id => {
                let text = t.xml10_content().trim().to_string();
                return (!text.is_empty()).then_some(text);
            }
            Event::End(_) => in_id = false,
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// The time the invariant search of OneSafe may take: a tenth of the run's.
fn invariant_budget(opts: &MccOptions) -> Budget {
    Budget::new(opts.time_limit.map(|l| l / 10))
}

/// The techniques proving `model` 1-safe without exploring it, if it is structurally safe.
fn structurally_safe(model: &Model, budget: &Budget) -> Option<Vec<&'static str>> {
    let net = model.as_net()?;
    let declared_safe = net.nupn.as_ref().is_some_and(|n| n.safe);
    if !declared_safe && net.places.len() > INVARIANTS_UP_TO_PLACES {
        return None;
    }
    match structural_safeness(net, &|| budget.exhausted().is_some()) {
        Safeness::NupnUnits => Some(vec!["USE_NUPN"]),
        Safeness::Invariants => Some(vec!["TOPOLOGICAL"]),
        Safeness::Unknown { .. } => None,
    }
}

/// The contest's line for bound `b` when it is exact, naming the techniques of the engines
/// that reached and proved it (within `report`'s run, when it is known).
fn bound_answer(b: &BoundAnswer, report: Option<&Report>) -> Option<MccAnswer> {
    let value = b.value()?;
    let by = match (b.lower_by, b.upper_by) {
        (Some(l), Some(u)) if l != u => vec![l, u],
        (l, u) => vec![u.or(l).unwrap_or(report.map_or("explicit", |r| r.engine))],
    };
    let mut techniques: Vec<&'static str> = Vec::new();
    for engine in by {
        let names = match report {
            Some(report) => engine_techniques(engine, report),
            None => engine_names(engine),
        };
        for t in names {
            if !techniques.contains(&t) {
                techniques.push(t);
            }
        }
    }
    Some(MccAnswer::Bound {
        id: b.id.clone(),
        value,
        techniques,
    })
}

/// The contest's lines for the bounds of `known` that are exact: what a bounds check
/// knew between its rounds ([`Observer::bounds_known`]), printed when the run did not
/// come back by the deadline.
pub fn exact_bounds(known: &[BoundAnswer]) -> Vec<MccAnswer> {
    known.iter().filter_map(|b| bound_answer(b, None)).collect()
}

/// The contest's names for what produced `report`'s answer.
fn techniques(report: &Report) -> Vec<&'static str> {
    engine_techniques(report.answered_by.unwrap_or(report.engine), report)
}

/// The contest's names for an answer of `engine` within `report`'s run.
fn engine_techniques(engine: &str, report: &Report) -> Vec<&'static str> {
    let mut out = engine_names(engine);
    if report.reduction.as_ref().is_some_and(|r| !r.rules.is_empty()) {
        out.push("STRUCTURAL_REDUCTION");
    }
    if report.engines.len() > 1 {
        out.push("COLLATERAL_PROCESSING");
    }
    out
}

/// The contest's names for the technique of `engine`.
fn engine_names(engine: &str) -> Vec<&'static str> {
    match engine {
        "qpor" => vec!["NET_UNFOLDING", "PARTIAL_ORDER_REDUCTION"],
        "walk" => vec!["RANDOM_WALK"],
        "stubborn" | "stubborn-best" => vec!["EXPLICIT", "STUBBORN_SETS"],
        "lp" => vec!["STATE_EQUATION", "SAT_SMT"],
        "prefix-sat" => vec!["NET_UNFOLDING", "SAT_SMT"],
        "structural" => vec!["TOPOLOGICAL"],
        _ => vec!["EXPLICIT"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_property_id_is_the_first_id_element() {
        let xml = "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n\
                   <property><id>Net-PT-01-ReachabilityDeadlock-0</id><description>d</description>\n\
                   </property></property-set>";
        assert_eq!(first_id(xml).as_deref(), Some("Net-PT-01-ReachabilityDeadlock-0"));
        assert_eq!(first_id("<property-set/>"), None);
        assert_eq!(first_id("not xml <"), None);
    }

    #[test]
    #[cfg(feature = "lp")]
    fn a_state_equation_proof_on_a_reduced_net_names_both_techniques() {
        use crate::engine::{Counters, ReductionSummary, Settings, Stats};
        use crate::structural::LpCounters;
        let stats = Stats::new(Counters::of(&LpCounters::default()), 0.0);
        let mut report = Report::new("lp", Vec::new(), None, stats, Settings::default());
        report.reduction = Some(ReductionSummary {
            places_before: 2,
            places_after: 1,
            transitions_before: 2,
            transitions_after: 1,
            rules: vec![("post-agglomeration", 1)],
            seconds: 0.0,
            beside_seconds: None,
        });
        assert_eq!(
            techniques(&report),
            ["STATE_EQUATION", "SAT_SMT", "STRUCTURAL_REDUCTION"]
        );
    }

    #[test]
    fn answers_print_as_the_contest_reads_them() {
        let a = MccAnswer::Formula {
            id: "X".into(),
            holds: true,
            techniques: vec!["EXPLICIT", "COLLATERAL_PROCESSING"],
        };
        assert_eq!(
            a.to_string(),
            "FORMULA X TRUE TECHNIQUES EXPLICIT COLLATERAL_PROCESSING"
        );
        assert_eq!(
            MccAnswer::CannotCompute { id: "X".into() }.to_string(),
            "FORMULA X CANNOT_COMPUTE"
        );
        assert_eq!(MccAnswer::DoNotCompete.to_string(), "DO_NOT_COMPETE");
    }

    #[test]
    fn a_run_cut_off_gives_the_bounds_already_exact() {
        let exact = BoundAnswer {
            upper: Some(3),
            lower: 3,
            lower_by: Some("walk"),
            upper_by: Some("lp"),
            ..BoundAnswer::initial("B0", 0)
        };
        let open = BoundAnswer {
            upper: Some(5),
            lower: 3,
            ..BoundAnswer::initial("B1", 0)
        };
        let lines: Vec<String> = exact_bounds(&[exact, open])
            .iter()
            .map(|a| a.to_string())
            .collect();
        assert_eq!(
            lines,
            ["FORMULA B0 3 TECHNIQUES RANDOM_WALK STATE_EQUATION SAT_SMT"]
        );
    }
}
