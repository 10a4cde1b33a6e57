//! qpor reads concurrent models — Petri nets (PNML, PEP ll_net) and a small process
//! language — as component systems, unfolds them into prime event structures and finds
//! their deadlocks with Quasi-Optimal Partial Order Reduction (Nguyen, Rodríguez, Sousa,
//! Coti, Petrucci, CAV'18), an explicit-state search, a stubborn-set search and random
//! walks, and proves deadlock freedom of nets from their structure (reductions that keep
//! deadlocks, the state equation), all run together as a portfolio by default.
//!
//! # Using the library
//! Load a model ([`load`]), check it ([`check`] with [`CheckOptions`], or one engine
//! through the [`Engine`] trait), and read the [`Report`]:
//!
//! ```
//! use qpor::{check, load, CheckOptions, FindingKind, LoadOptions, Silent, Verdict};
//! let loaded = load("models/nets/philosophers-5.ll_net".as_ref(), &LoadOptions::default()).unwrap();
//! let report = check(&loaded.model, &CheckOptions::default(), &mut Silent).unwrap();
//! assert_eq!(report.verdict, Verdict::Deadlock);
//! let deadlock = report.findings_of(FindingKind::Deadlock).next().unwrap();
//! assert!(deadlock.witness.steps.len() >= 5); // each philosopher takes a first fork
//! ```
//!
//! Nets are also asked reachability properties, `EF φ` and `AG φ` ([`properties`]: read from
//! the query syntax or the contest's XML files, asked as [`Question::Reachability`], answered
//! per property in [`Report::properties`]).
//!
//! Beyond checking, [`unfolding`] builds complete finite prefixes and explores unfoldings
//! event by event, [`dot`] draws models, prefixes, event structures and exploration trees,
//! [`render`] writes reports as text and JSON, [`formats`] reads and writes single file
//! formats, and [`hardness`] makes and decides the paper's NP-hardness instances.
//!
//! # Layers
//! The modules behind this face are private; each imports only the ones listed before it,
//! the engines of one level never import each other, and no two folders import each
//! other in a loop (`tests/layers.rs` checks all three):
//! 1. `source`: positions in source text;
//! 2. `system`: the component-system IR every input becomes (nets, programs);
//! 3. `engine`: the vocabulary every engine speaks (question, report, witness, budget,
//!    counters as sections) and the [`Engine`] trait;
//! 4. `space`: the state space as searches store it — the packed state store, the search
//!    tree of witnesses — shared by the explicit and stubborn searches;
//! 5. `unfold`: unfoldings as prime event structures — the [`unfolding::Unfolding`] trait,
//!    the program-like, general and explicit-PES backends, cutoffs and their tables,
//!    complete prefixes;
//! 6. `parse`: the readers, with `file:line:col` errors;
//! 7. the engines, peers: `explicit` (breadth-first search), `stubborn` (the stubborn-set
//!    search), `walk` (random walks), `qpor` (Algorithm 1 with Alt), `prefix_sat` (the
//!    complete prefix and a SAT solver) and `structural` (reductions of nets that keep
//!    deadlocks, and the state-equation proof of deadlock freedom: the `lp` engine);
//! 8. `check`: the dispatcher, the one place that knows every engine — the schedule, the
//!    portfolio's threads, the replay of every witness;
//! 9. `export`: the writers — nets, reports, Graphviz pictures;
//! 10. `hardness`: the NP-hardness constructions, their instance files and their deciders
//!     (public: it is its own face, [`hardness`]);
//! 11. `mcc`: the Model Checking Contest's interface ([`answer_mcc`]).
//!
//! The `qpor` binary (`src/main.rs`, `src/cli/`) uses only this public face.
//!
//! # Cargo features
//! - `lp` (default): Z3, for the state-equation engine (`engines::lp`, [`EngineChoice::Lp`])
//!   and the implicit-place reduction rule. Without it, [`check`] refuses
//!   [`EngineChoice::Lp`], the portfolio runs without it, and [`net::reduce`] applies the
//!   other rules.
//! - `cli` (default): the `qpor` binary and the crates only it uses (clap, indicatif,
//!   ctrlc). `--no-default-features` builds this library alone.
//! - `mpi`: the binary's `check --distributed`, QPOR across processes over MPI (the
//!   library's [`check_distributed`] takes any transport).

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod check;
mod engine;
mod explicit;
mod export;
pub mod hardness;
mod mcc;
mod parse;
mod prefix_sat;
mod qpor;
mod source;
mod space;
mod structural;
mod stubborn;
mod system;
mod unfold;
mod walk;

pub use check::saved::{read_saved_witness, replay_saved, ReplayFailure, Replayed, SavedStep, SavedWitness};
pub use check::validate::OptionsError;
/// Which options each engine takes, and the errors for those it would ignore.
pub mod validate {
    pub use crate::check::validate::{
        applies_to, distributed_refusal, ignored_option, split_refusal, OptionsError, OPTION_ENGINES,
    };
}
pub use check::PortfolioCounters;
pub use check::{
    check, check_distributed, check_shared, CheckOptions, EngineChoice, EngineName, Limits, PortfolioChoice,
    QporChoice, UnfoldingChoice,
};
pub use engine::{
    current_rss_bytes, peak_rss_bytes, Asked, BoundAnswer, Budget, CancelToken, Counters, Engine,
    EngineError, EngineRun, Finding, FindingKind, GlobalAnswer, Observer, Progress, PropertyAnswer, Question,
    Reached, ReductionSummary, Report, RunEnd, RunResult, Settings, Silent, StateEntries, Stats, StepNames,
    StopReason, Verdict, Witness, WitnessStep,
};
pub use mcc::{
    answer as answer_mcc, exact_bounds as mcc_exact_bounds, property_id as mcc_property_id, Examination,
    MccAnswer, MccOptions, MccOutcome,
};
pub use parse::{load, load_str, read_text, Format, LoadError, LoadOptions, Loaded, ParseError};
pub use source::Pos;
pub use space::StoreCounters;
pub use system::invariants::Safeness;
pub use system::model::{Model, ModelInfo, ModelKind, NetInfo, SystemOptions};
pub use system::{
    classify_dead, find_fault, ActionId, CompId, DeadKind, Local, ModelError, StateValue, Step, System,
    TouchSet,
};

/// P/T nets: the data, its ids, its view as a component system, and the structural
/// reductions that keep deadlocks both ways.
pub mod net {
    pub use crate::structural::{reduce, reduce_keeping, Keep, ReducedNet};
    pub use crate::system::net::{
        Decomposition, Net, NetSystem, Nupn, Place, PlaceId, TransId, Transition, Unit,
    };
}

/// Programs of the process language (`docs/language.md`) and their translation to nets.
pub mod program {
    pub use crate::parse::proc::parse;
    pub use crate::system::program::{to_net, Param, Program, ProgramSystem, ToNetOptions, MAX_LOCAL_STEPS};
}

/// Reachability properties of nets, `EF φ` and `AG φ` (docs/queries.md): read from the
/// Model Checking Contest's XML files or from the query syntax of `--query`, places and
/// transitions resolved against the net.
pub mod properties {
    pub use crate::parse::property::text::{is_bound_query, parse_bound_query, parse_query};
    pub use crate::parse::property::xml::{read_properties, read_queries, Queries};
    pub use crate::system::property::{BoundQuery, Formula, Property, Quantifier, Shown, Sum};
}

/// Readers and writers of single file formats ([`load`] picks the reader
/// by extension).
pub mod formats {
    /// PNML, as the Model Checking Contest ships it.
    pub mod pnml {
        pub use crate::export::pnml::write;
        pub use crate::parse::pnml::read;
    }
    /// PEP's ll_net format (Punf, Cunf, Mole).
    pub mod llnet {
        pub use crate::export::llnet::write;
        pub use crate::parse::llnet::{decode, parse};
    }
    /// qpor's text format of explicit prime event structures (`docs/pes-format.md`).
    pub mod pes {
        pub use crate::export::pes::write;
        pub use crate::parse::pes::{looks_like_pes, parse, FORMAT_VERSION};
    }
    /// DIMACS CNF formulas.
    pub mod dimacs {
        pub use crate::parse::dimacs::{parse, read, MAX_VARIABLES};
        pub use crate::system::cnf::{literal_value, Cnf};
    }
}

/// The engines, each with its own options, counters and settings (a report's
/// [`Counters::typed`] and [`Settings::typed`] give them back), for use without the
/// dispatcher.
pub mod engines {
    /// Breadth-first search over global states: the oracle of every other engine.
    pub mod explicit {
        pub use crate::explicit::{search, ExplicitCounters, ExplicitOptions};
    }
    /// Stubborn sets: an explicit search that fires only a deadlock-preserving subset of
    /// the enabled steps (P/T nets and programs).
    pub mod stubborn {
        pub use crate::stubborn::{
            search_net, search_program, SearchOrder, StubbornCounters, StubbornOptions, StubbornSettings,
        };
    }
    /// The state equation with trap constraints (Z3): proves deadlock freedom of nets, or
    /// fires a dead solution as a deadlock. Only in a build with the `lp` feature.
    #[cfg(feature = "lp")]
    pub mod lp {
        pub use crate::structural::{LpCounters, LpOptions};
    }
    /// The complete prefix and a SAT solver: one query for a dead configuration, UNSAT
    /// proves deadlock freedom.
    pub mod prefix_sat {
        pub use crate::prefix_sat::{
            deadlock_cnf, Cnf, Lit, PrefixSatCounters, PrefixSatOptions, PrefixSatSettings,
        };
    }
    /// Random walks: finds deadlocks in huge state spaces, never proves their absence.
    pub mod walk {
        pub use crate::walk::{walk, WalkCounters, WalkOptions};
    }
    /// Quasi-optimal partial order reduction (Algorithm 1) over an unfolding.
    pub mod qpor {
        pub use crate::qpor::alt::{alternative, AltScratch, AltStats};
        pub use crate::qpor::{
            check_net, check_system, check_system_distributed, explore, AltMode, AltSetting,
            AlwaysEnabledCounters, ChannelTransport, Exploration, ExploreOptions, ExploreOutcome, LeafKind,
            NoTree, QporCounters, QporOptions, QporSettings, SplitPolicy, Transport, TreeListener,
            DEFAULT_MAX_EVENTS_WITHOUT_CUTOFFS, FIXED_SPLIT_NODES,
        };
    }
}

/// Unfoldings as prime event structures: the trait every engine explores through, its
/// backends, cutoffs and complete finite prefixes.
pub mod unfolding {
    pub use crate::unfold::cutoff::CutoffMode;
    pub use crate::unfold::general::{CondId, GeneralOptions, GeneralUnfolding};
    pub use crate::unfold::pes::{Pes, PesBuilder, PesError, PesEventId, PesOptions, PesUnfolding};
    pub use crate::unfold::program::{ProgramOptions, ProgramUnfolding, SummaryFootprint};
    pub use crate::unfold::{Backend, EventId, UnfoldError, UnfoldStats, Unfolding, GENERAL_TOKENS_MAX};

    /// Complete finite prefixes (the ERV algorithm), built by either backend.
    pub mod prefix {
        pub use crate::unfold::prefix::{
            build_general, build_model, build_program, prefix_system_options, Condition, Prefix, PrefixEvent,
            PrefixOptions, PrefixOutcome, PrefixStats,
        };
    }
}

/// Reports as text for a terminal and as the documented JSON.
pub mod render {
    pub use crate::export::info::{info_json, info_text, safeness_text};
    pub use crate::export::prefix_report::{outcome_json, outcome_text};
    pub use crate::export::report::{
        reduction_text, report_json, report_text, stats_text, witness_json, write_report_json, TextOptions,
    };
    pub use crate::hardness::render::{alt_json, alt_text, cex_json, cex_text};
}

/// Graphviz pictures: a net or program, a prefix as an occurrence net, its event
/// structure, an explicit PES, and QPOR's exploration tree.
pub mod dot {
    pub use crate::export::dot::highlight::{
        deadlock_configuration, DeadlockSearch, MAX_SEARCHED_CONFIGURATIONS,
    };
    pub use crate::export::dot::net::write_net;
    pub use crate::export::dot::pes::{immediate_causality, immediate_conflicts, write_pes};
    pub use crate::export::dot::pes_file::write_explicit_pes;
    pub use crate::export::dot::prefix::write_prefix;
    pub use crate::export::dot::system::{sketch_system, write_system, SystemSketch};
    pub use crate::export::dot::tree::{write_tree, TreeRecorder};
    pub use crate::export::dot::{DotOptions, Highlight, Incomplete, MarkingHighlight};
}
