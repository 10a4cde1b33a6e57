//! Which engines a check runs, in what order, with what share of the time: the schedule
//! of `--engine auto`, decided from the model's structure and the number of cores.
//!
//! # The rules (also in the README, "Engines")
//! * **Cheap first.** The random walk costs almost nothing to start and finds the
//!   deadlocks of many huge state spaces in milliseconds, so it is always started first.
//!   It can never prove absence, so where it would take a core from an engine that can
//!   (fewer jobs than engines), or where nothing else would end it (no time limit), it
//!   gets a slice: a tenth of the time limit (one second
//!   without a limit), after which the next engine takes its core.
//! * **QPOR next**, then the explicit search: QPOR decides the most nets alone (on the MCC
//!   development nets, 10 s each, it decided about half where the explicit search decided a
//!   third; README, "Engines"), and the explicit search decides some that QPOR does not
//!   (many maximal configurations over few states).
//! * **One job**: the engines take turns; QPOR gets half of what remains after the walk's
//!   slice, the explicit search the rest.
//! * **`--all`** asks for the complete list of dead states, which the walk never gives:
//!   it does not run.

use super::{CheckOptions, EngineChoice};
use std::time::Duration;

/// The walk's slice when it shares cores and there is no time limit.
const WALK_SLICE_UNLIMITED: Duration = Duration::from_secs(1);

/// The share of the time limit the walk gets when it shares cores.
const WALK_SLICE_SHARE: f64 = 0.1;

/// One engine of a schedule.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    /// The engine.
    pub choice: EngineChoice,
    /// The options it runs with (the user's, adjusted by the schedule).
    pub options: CheckOptions,
    /// How long it may run once started (`None`: until the check's deadline).
    pub slice: Option<Duration>,
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

/// The schedule for a check with `opts`: one engine when `opts` names one, else
/// the portfolio of the module comment.
pub(crate) fn plan(opts: &CheckOptions) -> Planned {
    if opts.engine != EngineChoice::Auto {
        return Planned {
            members: vec![Member {
                choice: opts.engine,
                options: opts.clone(),
                slice: None,
            }],
            jobs: 1,
            portfolio: false,
        };
    }
    let jobs = opts
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let choices = [EngineChoice::Walk, EngineChoice::Qpor, EngineChoice::Explicit];
    // Without a time limit the walk always gets a slice: it would never end on its own.
    let walk_slice = (jobs < choices.len() || opts.time_limit.is_none()).then(|| match opts.time_limit {
        Some(limit) => limit.mul_f64(WALK_SLICE_SHARE),
        None => WALK_SLICE_UNLIMITED,
    });
    let qpor_slice = (jobs == 1).then_some(()).and_then(|()| {
        let limit = opts.time_limit?;
        Some(limit.saturating_sub(walk_slice.unwrap_or_default()) / 2)
    });
    let mut members = vec![
        Member {
            choice: EngineChoice::Walk,
            options: opts.clone(),
            slice: walk_slice,
        },
        Member {
            choice: EngineChoice::Qpor,
            options: opts.clone(),
            slice: qpor_slice,
        },
        Member {
            choice: EngineChoice::Explicit,
            options: opts.clone(),
            slice: None,
        },
    ];
    // QPOR's unfoldings do not look at faults of a watched net (`system::one_safe`).
    if opts.system.one_safe_watch {
        members.retain(|m| m.choice != EngineChoice::Qpor);
    }
    // `--all` asks for every dead state, which only a complete exploration lists.
    if opts.all {
        members.retain(|m| m.choice != EngineChoice::Walk);
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
        let p = plan(&opts);
        assert!(!p.portfolio);
        assert_eq!(p.members.len(), 1);
        assert_eq!(p.members[0].choice, EngineChoice::Explicit);
    }

    #[test]
    fn the_walk_gets_a_slice_only_when_it_shares_cores() {
        let opts = |jobs| CheckOptions {
            jobs: Some(jobs),
            time_limit: Some(Duration::from_secs(10)),
            ..CheckOptions::default()
        };
        let two = plan(&opts(2));
        assert_eq!(two.members[0].choice, EngineChoice::Walk);
        assert_eq!(two.members[0].slice, Some(Duration::from_secs(1)));
        assert_eq!(two.members[1].slice, None);
        let one = plan(&opts(1));
        assert_eq!(one.members[1].slice, Some(Duration::from_millis(4500)));
        let three = plan(&opts(3));
        assert!(three.members.iter().all(|m| m.slice.is_none()));
    }
}
