//! qpor reads concurrent models — Petri nets (PNML, PEP ll_net) and a small process
//! language — as component systems, unfolds them into prime event structures and finds
//! their deadlocks with Quasi-Optimal Partial Order Reduction (Nguyen, Rodríguez, Sousa,
//! Coti, Petrucci, CAV'18).
//!
//! The layers, each importing only the ones before it:
//! - [`parse`]: readers of every input format, with `file:line:col` errors;
//! - [`system`]: the component-system IR every input becomes ([`system::System`]);
//! - [`explicit`]: breadth-first search over global states, the oracle of every test;
//! - [`check`]: the options and [`check::Report`] every engine shares;
//! - [`export`]: writers of nets and reports;
//! - [`reduce`]: the paper's NP-hardness reductions from CNF formulas and their deciders.
//!
//! ```
//! use qpor::check::{check, CheckOptions, Silent, Verdict};
//! use qpor::parse::{load, LoadOptions};
//! let loaded = load("models/nets/philosophers-5.ll_net".as_ref(), &LoadOptions::default()).unwrap();
//! let report = check(&loaded.model, &CheckOptions::default(), &mut Silent).unwrap();
//! assert_eq!(report.verdict, Verdict::Deadlock);
//! ```

#![deny(missing_docs)]

pub mod check;
pub mod engine;
pub mod explicit;
pub mod export;
pub mod parse;
pub mod qpor;
pub mod reduce;
pub mod source;
pub mod system;
pub mod unfold;
