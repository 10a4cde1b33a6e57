//! Which options contradict each other, decided once, in the library: the command line
//! prints these errors as they are, and a library caller gets the same ones instead of
//! options silently ignored or overridden.

use super::{CheckOptions, EngineChoice};
use crate::qpor::AltMode;
use crate::stubborn::SearchOrder;
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::Backend;
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
pub const OPTION_ENGINES: [(&str, &[EngineChoice]); 14] = {
    use EngineChoice::{Auto, Explicit, PrefixSat, Qpor, Stubborn, Walk};
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
pub fn applies_to(option: &str, engine: EngineChoice) -> bool {
    OPTION_ENGINES
        .iter()
        .find(|(name, _)| *name == option)
        .is_some_and(|(_, engines)| engines.contains(&engine))
}

/// The refusal of `option` given to `engine`, which ignores it.
pub fn ignored_option(option: &str, engine: EngineChoice) -> OptionsError {
    let engines = OPTION_ENGINES
        .iter()
        .find(|(name, _)| *name == option)
        .map_or(&[][..], |(_, engines)| *engines);
    let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    // The two size limits are each other's counterpart: say which one this engine takes.
    let instead = match (option, engine) {
        ("--max-states", EngineChoice::Qpor | EngineChoice::PrefixSat) => {
            " (it stores no states: use --max-events)"
        }
        ("--max-events", EngineChoice::Explicit | EngineChoice::Stubborn) => {
            " (it creates no events: use --max-states)"
        }
        ("--jobs", EngineChoice::Qpor) => " (engines at once; its exploration's threads: use --threads)",
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

impl CheckOptions {
    /// Refuses options that contradict each other or that the chosen engine would
    /// ignore: an option is taken as given when it differs from its default.
    pub fn validate(&self) -> Result<(), OptionsError> {
        let engine = self.engine;
        let defaults = CheckOptions::default();
        let given = [
            (
                "-k",
                matches!(self.alt, AltMode::KPartial(_)) && self.alt != defaults.alt,
            ),
            ("--optimal", self.alt == AltMode::Optimal),
            ("--sdpor", self.alt == AltMode::Sdpor),
            ("--cutoff", self.cutoff != defaults.cutoff),
            ("--max-events", self.max_events.is_some()),
            ("--unfolding", self.unfolding != Backend::Auto),
            ("--distance-states", self.distance_states.is_some()),
            ("--single-tree", self.single_tree),
            ("--jobs", self.jobs.is_some()),
            ("--threads", self.threads.is_some()),
            ("--max-states", self.max_states.is_some()),
            ("--order", self.order != SearchOrder::Depth),
            ("--seed", self.seed != 0),
        ];
        for (option, is_given) in given {
            if is_given && !applies_to(option, engine) {
                return Err(ignored_option(option, engine));
            }
        }
        if self.jobs == Some(0) {
            return Err("--jobs 0: at least one engine must run".to_string().into());
        }
        if self.threads == Some(0) {
            return Err("--threads 0: at least one thread must explore".to_string().into());
        }
        if self.distance_states.is_some() && self.cutoff != CutoffMode::Distance {
            return Err(
                "--distance-states sizes the table of --cutoff distance; give --cutoff distance"
                    .to_string()
                    .into(),
            );
        }
        if engine == EngineChoice::PrefixSat && !self.cutoff.uses_representatives() {
            return Err(format!(
                "--cutoff {}: the prefix-sat engine builds a complete prefix, which needs --cutoff erv or mcmillan",
                self.cutoff.name()
            )
            .into());
        }
        if let Some(n) = self.threads.filter(|&n| n > 1) {
            if let Some(e) = split_refusal(&format!("--threads {n}"), self.cutoff) {
                return Err(e);
            }
            if self.single_tree {
                return Err(format!(
                    "--single-tree with --threads {n}: Algorithm 1's single tree is explored on one thread (each Alt call needs U as the whole subtree before it left it); drop --single-tree to split the work into tasks"
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
        let threads = CheckOptions {
            engine: EngineChoice::Qpor,
            threads: Some(4),
            ..CheckOptions::default()
        };
        let e = threads.validate().unwrap_err();
        assert!(e.message.starts_with("--threads 4 with --cutoff erv: "), "{e}");
        let ok = CheckOptions {
            cutoff: CutoffMode::Causal,
            ..threads
        };
        assert_eq!(ok.validate(), Ok(()));
        let seed = CheckOptions {
            engine: EngineChoice::Explicit,
            seed: 5,
            ..CheckOptions::default()
        };
        assert_eq!(
            seed.validate().unwrap_err().message,
            "--seed applies to --engine auto, walk; the explicit engine does not take it"
        );
    }
}
