//! Which engines a check runs, in what order, with what share of the time: the schedule
//! of `--engine auto`, decided from the model's structure and the number of cores.
//!
//! The rules — the members and their order, the slices, one job, and the measurements
//! that chose them — are written once, in docs/engines.md#the-auto-schedule; this module
//! carries them out, and its constants name the slices that page gives.

use super::{CheckOptions, EngineChoice, EngineName, PortfolioChoice};
use crate::engine::Question;
use crate::stubborn::SearchOrder;
use crate::system::model::{Model, ModelKind};
use std::time::Duration;

/// The walk's slice when it shares cores and there is no time limit.
const WALK_SLICE_UNLIMITED: Duration = Duration::from_secs(1);

/// The share of the time limit the walk gets when it shares cores.
const WALK_SLICE_SHARE: f64 = 0.1;

/// The state equation's slice without a time limit.
const LP_SLICE_UNLIMITED: Duration = Duration::from_secs(5);

/// The share of the time limit the state equation gets.
const LP_SLICE_SHARE: f64 = 0.2;

/// The best-first stubborn search's slice without a time limit.
const BEST_FIRST_SLICE_UNLIMITED: Duration = Duration::from_secs(5);

/// The share of the time limit the best-first stubborn search gets.
const BEST_FIRST_SLICE_SHARE: f64 = 0.2;

/// The first stubborn search's slice: enough to finish the small state spaces before
/// the state equation pays for Z3's start-up (tens of milliseconds and of megabytes).
const QUICK_SLICE: Duration = Duration::from_millis(20);

/// The share of the time limit the first stubborn search gets at most.
const QUICK_SLICE_SHARE: f64 = 0.01;

/// The prefix + SAT check's slice without a time limit.
const PREFIX_SAT_SLICE_UNLIMITED: Duration = Duration::from_secs(10);

/// The share of the time limit the prefix + SAT check gets.
const PREFIX_SAT_SLICE_SHARE: f64 = 0.3;

/// What the schedule looks at in a model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Shape {
    /// A program.
    Program,
    /// A net with an arc weight above one or a place marked twice initially.
    Net,
    /// A net with unit weights and at most one initial token per place, as safe nets have:
    /// their complete prefixes are often small where the state space is not.
    UnitNet,
}

impl Shape {
    /// Whether the shape is a net's or a program's.
    pub(crate) fn kind(self) -> ModelKind {
        match self {
            Shape::Program => ModelKind::Program,
            Shape::Net | Shape::UnitNet => ModelKind::Net,
        }
    }

    /// The shape of `model`.
    pub(crate) fn of(model: &Model) -> Shape {
        let Model::Net(net) = model else {
            return Shape::Program;
        };
        let unit = net.places.iter().all(|p| p.initial <= 1)
            && net
                .transitions
                .iter()
                .all(|t| t.pre.iter().chain(&t.post).all(|&(_, w)| w == 1));
        if unit {
            Shape::UnitNet
        } else {
            Shape::Net
        }
    }
}

/// One engine of a schedule.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    /// The engine.
    pub choice: EngineName,
    /// The options it runs with (the user's, adjusted by the schedule).
    pub options: CheckOptions,
    /// How long it may run once started (`None`: until the check's deadline).
    pub slice: Option<Duration>,
    /// Whether it runs on the refined net when the portfolio has one (the net without
    /// its implicit places, worked out while the first members run): the searches,
    /// whose states and independence it shrinks; not the walk and the state equation,
    /// which start before it is ready.
    pub refined: bool,
    /// Whether this is the first, short stubborn search.
    pub quick: bool,
}

impl Member {
    /// The engine's name in the portfolio's report: the stubborn search runs twice on
    /// nets, and the second says which it is.
    pub(crate) fn name(&self) -> &'static str {
        if self.quick {
            "stubborn-quick"
        } else if self.choice == EngineName::Stubborn && self.options.engine.order() == SearchOrder::Best {
            "stubborn-best"
        } else {
            self.choice.name()
        }
    }
}

/// The engines of a check, in the order they start, and how many run at once.
#[derive(Clone, Debug)]
pub(crate) struct Planned {
    /// The engines, in starting order.
    pub members: Vec<Member>,
    /// How many run at once.
    pub jobs: usize,
    /// Whether this is the portfolio (`--engine auto`) rather than one engine alone.
    pub portfolio: bool,
}

/// The schedule for a check with `opts` of a model of `shape`: one engine when `opts` names
/// one, else the portfolio of the module comment.
pub(crate) fn plan(opts: &CheckOptions, shape: Shape) -> Planned {
    let EngineChoice::Auto(portfolio) = opts.engine else {
        return Planned {
            members: vec![Member {
                choice: opts.engine.name(),
                options: opts.clone(),
                slice: None,
                refined: false,
                quick: false,
            }],
            jobs: 1,
            portfolio: false,
        };
    };
    let jobs = portfolio.jobs.unwrap_or_else(super::cores).max(1);
    // The engines in starting order, each with whether it is the best-first stubborn
    // search; each runs only where it answers the question on this kind of model.
    let mut choices = vec![
        (EngineName::Walk, false),
        // The state equation proves deadlock freedom of nets.
        (EngineName::Lp, false),
        // The stubborn search's states are a subset of the explicit one's, and every
        // dead state is among them.
        (EngineName::Stubborn, false),
    ];
    // Best first changes only how soon the first deadlock is met: `--all` explores
    // everything either way; programs keep depth first.
    if shape != Shape::Program && portfolio.order != SearchOrder::Best && !opts.all {
        choices.push((EngineName::Stubborn, true));
    }
    // Complete prefixes are rarely small for nets with a condition per token. On
    // properties the stubborn search and the state equation left it 11 of the 3 870
    // development properties at 3 s, for the memory and the core it holds where the
    // prefix is large: it answers them alone (`--engine prefix-sat`).
    let properties = matches!(opts.question, Question::Reachability(_));
    if shape == Shape::UnitNet && !properties {
        choices.push((EngineName::PrefixSat, false));
    }
    choices.push((EngineName::Qpor, false));
    choices.push((EngineName::Explicit, false));
    let kind = shape.kind();
    choices.retain(|&(choice, _)| {
        opts.build_engine(choice)
            .is_some_and(|engine| engine.answers(&opts.question, kind))
    });
    // `--all` asks for every dead state, which only a complete exploration lists.
    if opts.all {
        choices.retain(|&(c, _)| c != EngineName::Walk);
    }
    // Before the state equation pays for Z3, a short stubborn search has its chance: the
    // small state spaces end in it (the `quick` member).
    let quick_at = choices
        .iter()
        .position(|&(c, _)| c == EngineName::Lp)
        .filter(|_| choices.contains(&(EngineName::Stubborn, false)));
    let has = |choice: EngineName, best: bool| choices.contains(&(choice, best));
    let slice = |present: bool, share: f64, unlimited: Duration| {
        present.then(|| match opts.limits.time_limit {
            Some(limit) => limit.mul_f64(share),
            None => unlimited,
        })
    };
    // Without a time limit the walk always gets a slice: it would never end on its own.
    let walk_slice = slice(
        has(EngineName::Walk, false) && (jobs < choices.len() || opts.limits.time_limit.is_none()),
        WALK_SLICE_SHARE,
        WALK_SLICE_UNLIMITED,
    );
    let lp_slice = slice(has(EngineName::Lp, false), LP_SLICE_SHARE, LP_SLICE_UNLIMITED);
    let best_first_slice = slice(
        has(EngineName::Stubborn, true),
        BEST_FIRST_SLICE_SHARE,
        BEST_FIRST_SLICE_UNLIMITED,
    );
    let prefix_sat_slice = slice(
        has(EngineName::PrefixSat, false),
        PREFIX_SAT_SLICE_SHARE,
        PREFIX_SAT_SLICE_UNLIMITED,
    );
    // With one job, the first search after the walk and the state equation gets half of
    // what remains once the sliced engines had theirs.
    let first_search = choices.iter().position(|&(c, best)| {
        !best && !matches!(c, EngineName::Walk | EngineName::Lp | EngineName::PrefixSat)
    });
    let first_slice = match (jobs, opts.limits.time_limit) {
        (1, Some(limit)) => Some(
            [walk_slice, lp_slice, best_first_slice, prefix_sat_slice]
                .into_iter()
                .flatten()
                .fold(limit, |left, s| left.saturating_sub(s))
                / 2,
        ),
        _ => None,
    };
    let quick_slice = match opts.limits.time_limit {
        Some(limit) => limit.mul_f64(QUICK_SLICE_SHARE).min(QUICK_SLICE),
        None => QUICK_SLICE,
    };
    let mut members: Vec<Member> = choices
        .into_iter()
        .enumerate()
        .map(|(i, (choice, best))| Member {
            choice,
            options: if best {
                CheckOptions {
                    engine: EngineChoice::Auto(PortfolioChoice {
                        order: SearchOrder::Best,
                        ..portfolio
                    }),
                    ..opts.clone()
                }
            } else {
                opts.clone()
            },
            slice: match choice {
                _ if best => best_first_slice,
                EngineName::Walk => walk_slice,
                EngineName::Lp => lp_slice,
                EngineName::PrefixSat => prefix_sat_slice,
                _ if Some(i) == first_search => first_slice,
                _ => None,
            },
            refined: !matches!(choice, EngineName::Walk | EngineName::Lp),
            quick: false,
        })
        .collect();
    if let Some(at) = quick_at {
        let search = members
            .iter()
            .find(|m| m.choice == EngineName::Stubborn)
            .expect("[qpor internal bug] the quick search needs the stubborn member");
        let quick = Member {
            slice: Some(quick_slice),
            refined: false,
            quick: true,
            ..search.clone()
        };
        members.insert(at, quick);
    }
    Planned {
        members,
        jobs,
        portfolio: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_engine_runs_alone() {
        let opts = CheckOptions {
            engine: EngineChoice::Explicit,
            ..CheckOptions::default()
        };
        let p = plan(&opts, Shape::Net);
        assert!(!p.portfolio);
        assert_eq!(p.members.len(), 1);
        assert_eq!(p.members[0].choice, EngineName::Explicit);
    }

    #[test]
    fn the_walk_gets_a_slice_only_when_it_shares_cores() {
        let opts = |jobs| CheckOptions {
            engine: EngineChoice::Auto(PortfolioChoice {
                jobs: Some(jobs),
                ..PortfolioChoice::default()
            }),
            limits: crate::check::Limits {
                time_limit: Some(Duration::from_secs(10)),
                ..Default::default()
            },
            ..CheckOptions::default()
        };
        let two = plan(&opts(2), Shape::Program);
        assert_eq!(two.members[0].choice, EngineName::Walk);
        assert_eq!(two.members[0].slice, Some(Duration::from_secs(1)));
        assert_eq!(two.members[1].slice, None);
        let one = plan(&opts(1), Shape::Program);
        assert_eq!(one.members[1].slice, Some(Duration::from_millis(4500)));
        let four = plan(&opts(4), Shape::Program);
        assert!(four.members.iter().all(|m| m.slice.is_none()));
        // On a net the state equation and the best-first search have their slices, and
        // one job shares what is left. A build without `lp` has no state equation: one
        // member fewer, and more left to share.
        // With `lp`, the quick stubborn search comes before it.
        let lp = 2 * usize::from(cfg!(feature = "lp"));
        let one = plan(&opts(1), Shape::Net);
        if lp == 2 {
            assert_eq!(one.members[1].name(), "stubborn-quick");
            assert_eq!(one.members[1].slice, Some(Duration::from_millis(20)));
            assert_eq!(one.members[2].choice, EngineName::Lp);
            assert_eq!(one.members[2].slice, Some(Duration::from_secs(2)));
        }
        let shared = if lp == 2 { 2500 } else { 3500 };
        assert_eq!(one.members[1 + lp].slice, Some(Duration::from_millis(shared)));
        assert_eq!(one.members[2 + lp].name(), "stubborn-best");
        assert_eq!(one.members[2 + lp].options.engine.order(), SearchOrder::Best);
        assert_eq!(one.members[2 + lp].slice, Some(Duration::from_secs(2)));
        assert_eq!(one.members[1 + lp].options.engine.order(), SearchOrder::Depth);
        // On a net like a safe one, prefix-sat's slice too.
        let one = plan(&opts(1), Shape::UnitNet);
        assert_eq!(one.members[3 + lp].choice, EngineName::PrefixSat);
        assert_eq!(one.members[3 + lp].slice, Some(Duration::from_secs(3)));
        let shared = if lp == 2 { 1000 } else { 2000 };
        assert_eq!(one.members[1 + lp].slice, Some(Duration::from_millis(shared)));
    }

    #[test]
    fn the_stubborn_search_comes_first_after_the_walk() {
        let opts = CheckOptions {
            engine: EngineChoice::Auto(PortfolioChoice {
                jobs: Some(2),
                ..PortfolioChoice::default()
            }),
            ..CheckOptions::default()
        };
        let names = |p: Planned| p.members.iter().map(Member::name).collect::<Vec<_>>();
        // A build without `lp` plans the same without the state equation.
        let names_of = |expected: &[&'static str]| {
            expected
                .iter()
                .copied()
                .filter(|n| cfg!(feature = "lp") || !["lp", "stubborn-quick"].contains(n))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(plan(&opts, Shape::Program)),
            ["walk", "stubborn", "qpor", "explicit"]
        );
        let net = [
            "walk",
            "stubborn-quick",
            "lp",
            "stubborn",
            "stubborn-best",
            "qpor",
            "explicit",
        ];
        assert_eq!(names(plan(&opts, Shape::Net)), names_of(&net));
        // A net shaped like a safe one has prefix-sat before QPOR.
        let mut unit = net.to_vec();
        unit.insert(5, "prefix-sat");
        assert_eq!(names(plan(&opts, Shape::UnitNet)), names_of(&unit));
        // Asked for best first, the one stubborn search is; `--all` explores everything
        // either way.
        let best = CheckOptions {
            engine: EngineChoice::Auto(PortfolioChoice {
                jobs: Some(2),
                order: SearchOrder::Best,
                ..PortfolioChoice::default()
            }),
            ..opts.clone()
        };
        assert_eq!(
            names(plan(&best, Shape::Net)),
            names_of(&[
                "walk",
                "stubborn-quick",
                "lp",
                "stubborn-best",
                "qpor",
                "explicit"
            ])
        );
        let all = CheckOptions {
            all: true,
            ..opts.clone()
        };
        assert_eq!(
            names(plan(&all, Shape::Net)),
            names_of(&["stubborn-quick", "lp", "stubborn", "qpor", "explicit"])
        );
        let one_safe = CheckOptions {
            question: crate::engine::Question::OneSafe,
            ..opts
        };
        assert_eq!(names(plan(&one_safe, Shape::UnitNet)), ["walk", "explicit"]);
    }
}
