//! Which options contradict each other, decided once, in the library: the command line
//! prints these errors as they are, and a library caller gets the same ones instead of
//! options silently ignored or overridden.

use super::{CheckOptions, EngineChoice, EngineName, QporChoice};
use crate::engine::Question;
use crate::unfold::cutoff::CutoffMode;
use std::fmt;

/// Options that contradict each other or that the chosen engine would ignore; the message
/// names the options as the command line spells them and says where they apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionsError {
    /// What is wrong, and what to give instead.
    pub message: String,
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OptionsError {}

impl From<String> for OptionsError {
    fn from(message: String) -> OptionsError {
        OptionsError { message }
    }
}

/// The engines each engine-specific option applies to (`auto` runs them all).
pub const OPTION_ENGINES: [(&str, &[EngineName]); 14] = {
    use EngineName::{Auto, Explicit, PrefixSat, Qpor, Stubborn, Walk};
    [
        ("-k", &[Auto, Qpor]),
        ("--optimal", &[Auto, Qpor]),
        ("--sdpor", &[Auto, Qpor]),
        ("--cutoff", &[Auto, Qpor, PrefixSat]),
        ("--max-events", &[Auto, Qpor, PrefixSat]),
        ("--unfolding", &[Auto, Qpor, PrefixSat]),
        ("--distance-states", &[Auto, Qpor]),
        ("--single-tree", &[Qpor]),
        ("--distributed", &[Qpor]),
        ("--jobs", &[Auto]),
        ("--threads", &[Qpor]),
        ("--max-states", &[Auto, Explicit, Stubborn]),
        ("--order", &[Auto, Stubborn]),
        ("--seed", &[Auto, Walk]),
    ]
};

/// Whether `option` (one of [`OPTION_ENGINES`]) applies to `engine`.
pub fn applies_to(option: &str, engine: EngineName) -> bool {
    OPTION_ENGINES
        .iter()
        .find(|(name, _)| *name == option)
        .is_some_and(|(_, engines)| engines.contains(&engine))
}

/// The refusal of `option` given to `engine`, which ignores it.
pub fn ignored_option(option: &str, engine: EngineName) -> OptionsError {
    let engines = OPTION_ENGINES
        .iter()
        .find(|(name, _)| *name == option)
        .map_or(&[][..], |(_, engines)| *engines);
    let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    // The two size limits are each other's counterpart: say which one this engine takes.
    let instead = match (option, engine) {
        ("--max-states", EngineName::Qpor | EngineName::PrefixSat) => {
            " (it stores no states: use --max-events)"
        }
        ("--max-events", EngineName::Explicit | EngineName::Stubborn) => {
            " (it creates no events: use --max-states)"
        }
        ("--jobs", EngineName::Qpor) => " (engines at once; its exploration's threads: use --threads)",
        _ => "",
    };
    OptionsError {
        message: format!(
            "{option} applies to --engine {}; the {} engine does not take it{instead}",
            names.join(", "),
            engine.name()
        ),
    }
}

/// The refusal of `option` (`--threads N`, `--distributed`) with `cutoff`, whose cutoffs
/// depend on the order each worker met the states, or `None` when the order allows
/// splitting the exploration.
pub fn split_refusal(option: &str, cutoff: CutoffMode) -> Option<OptionsError> {
    cutoff
        .split_refusal(option)
        .map(|message| OptionsError { message })
}

/// The refusal of QPOR's options that a distributed run (`--distributed`) cannot take:
/// each process explores on one thread, and the single tree on one process.
pub fn distributed_refusal(qpor: &QporChoice) -> Option<OptionsError> {
    if qpor.single_tree {
        return Some(
            "--single-tree with --distributed: the single tree is explored by one process"
                .to_string()
                .into(),
        );
    }
    qpor.threads.map(|_| {
        "--threads with --distributed: each process explores on one thread; start more processes (mpirun -np N)"
            .to_string()
            .into()
    })
}

/// The refusal of `--distance-states` without `--cutoff distance`, whose table it sizes.
fn distance_refusal(distance_states: Option<usize>, cutoff: CutoffMode) -> Result<(), OptionsError> {
    if distance_states.is_some() && cutoff != CutoffMode::Distance {
        return Err(
            "--distance-states sizes the table of --cutoff distance; give --cutoff distance"
                .to_string()
                .into(),
        );
    }
    Ok(())
}

impl CheckOptions {
    /// Refuses what still contradicts once each engine carries its own options: a limit
    /// the chosen engine does not count, zero engines or threads, a table without its
    /// cutoffs, threads whose cutoffs they cannot share, a complete prefix without
    /// adequate cutoffs, and a shortest witness for every finding.
    pub fn validate(&self) -> Result<(), OptionsError> {
        let name = self.engine.name();
        let limits = [
            ("--max-states", self.limits.max_states.is_some()),
            ("--max-events", self.limits.max_events.is_some()),
        ];
        for (option, given) in limits {
            if given && !applies_to(option, name) {
                return Err(ignored_option(option, name));
            }
        }
        match self.engine {
            EngineChoice::Auto(p) => {
                if p.jobs == Some(0) {
                    return Err("--jobs 0: at least one engine must run".to_string().into());
                }
                distance_refusal(p.distance_states, p.unfolding.cutoff)?;
            }
            EngineChoice::Qpor(q) => {
                distance_refusal(q.distance_states, q.unfolding.cutoff)?;
                if q.threads == Some(0) {
                    return Err("--threads 0: at least one thread must explore".to_string().into());
                }
                if let Some(n) = q.threads.filter(|&n| n > 1) {
                    if let Some(e) = split_refusal(&format!("--threads {n}"), q.unfolding.cutoff) {
                        return Err(e);
                    }
                    if q.single_tree {
                        return Err(format!(
                            "--single-tree with --threads {n}: Algorithm 1's single tree is explored on one thread (each Alt call needs U as the whole subtree before it left it); drop --single-tree to split the work into tasks"
                        )
                        .into());
                    }
                }
            }
            EngineChoice::PrefixSat { unfolding } if !unfolding.cutoff.uses_representatives() => {
                return Err(format!(
                    "--cutoff {}: the prefix-sat engine builds a complete prefix, which needs --cutoff erv or mcmillan",
                    unfolding.cutoff.name()
                )
                .into());
            }
            _ => {}
        }
        if let Question::Reachability(properties) = &self.question {
            let mut ids = hashbrown::HashSet::new();
            if let Some(p) = properties.iter().find(|p| !ids.insert(p.id.as_str())) {
                return Err(format!(
                    "property id `{}` appears twice: each property is answered under its id",
                    p.id
                )
                .into());
            }
            let refused = [
                (
                    "--all",
                    self.all,
                    "it lists every dead state; each property is answered once",
                ),
                (
                    "--witness states",
                    self.witness_states,
                    "property witnesses list their steps only",
                ),
                (
                    "--witness shortest",
                    self.shortest_witness,
                    "property witnesses are not shortened (the explicit engine's are shortest: --engine explicit)",
                ),
            ];
            if let Some((option, _, why)) = refused.into_iter().find(|(_, given, _)| *given) {
                return Err(format!("{option} with reachability properties: {why}").into());
            }
        }
        if let Question::Bounds(_) | Question::QuasiLiveness | Question::StableMarking | Question::Liveness =
            &self.question
        {
            let name = self.question.name();
            let refused = [
                ("--all", self.all, "it lists every dead state"),
                (
                    "--witness states",
                    self.witness_states,
                    "these witnesses list their steps only",
                ),
                (
                    "--witness shortest",
                    self.shortest_witness,
                    "these witnesses are not shortened",
                ),
            ];
            if let Some((option, _, why)) = refused.into_iter().find(|(_, given, _)| *given) {
                return Err(format!("{option} with {name}: {why}").into());
            }
            if let (Question::Bounds(_) | Question::Liveness, Some(true)) = (&self.question, self.reduce) {
                return Err(format!(
                    "--reduce on with {name}: the reductions keep deadlocks and reachability properties, not these; drop --reduce"
                )
                .into());
            }
        }
        if self.shortest_witness && self.all {
            return Err("--witness shortest with --all: the shortest witness is searched for the first finding only; drop one of them".to_string().into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contradictions_are_refused_and_defaults_pass() {
        assert_eq!(CheckOptions::default().validate(), Ok(()));
        let qpor = |cutoff| QporChoice {
            threads: Some(4),
            unfolding: super::super::UnfoldingChoice {
                cutoff,
                ..Default::default()
            },
            ..QporChoice::default()
        };
        let threads = CheckOptions {
            engine: EngineChoice::Qpor(qpor(CutoffMode::Erv)),
            ..CheckOptions::default()
        };
        let e = threads.validate().unwrap_err();
        assert!(e.message.starts_with("--threads 4 with --cutoff erv: "), "{e}");
        let ok = CheckOptions {
            engine: EngineChoice::Qpor(qpor(CutoffMode::Causal)),
            ..threads
        };
        assert_eq!(ok.validate(), Ok(()));
        let states = CheckOptions {
            engine: EngineChoice::Walk { seed: 5 },
            limits: super::super::Limits {
                max_states: Some(9),
                ..Default::default()
            },
            ..CheckOptions::default()
        };
        assert_eq!(
            states.validate().unwrap_err().message,
            "--max-states applies to --engine auto, explicit, stubborn; the walk engine does not take it"
        );
    }
}
