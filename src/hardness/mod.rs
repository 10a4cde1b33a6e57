//! The paper's NP-hardness constructions (Theorems 4.1–4.3; docs/paper.md#np-hardness,
//! docs/hardness.md): instances from CNF formulas, their files, and qpor's own deciders for
//! them (`qpor hardness`, `qpor decide`).
//!
//! Inside, one file per part:
//! - `pes`: Theorem 4.1, an explicit PES where an alternative to D after C = ∅ exists
//!   iff φ is satisfiable;
//! - `program`: Theorem 4.2, the same question in the unfolding of a lock-only program;
//! - `net`: Theorem 4.3, a P/T net with non-safe places, a configuration C and a target
//!   transition t* such that cex(C) holds a t*-event iff φ is satisfiable;
//! - `write`: the instance files, with comments saying what they encode;
//! - `instance`: what kind an instance file is (by its content) and its question;
//! - `decide`: the Alt decider behind `qpor decide alt`;
//! - `cex`: the cex decider behind `qpor decide cex`, on the general backend;
//! - `render`: the deciders' answers as text and JSON;
//! - `random`: random k-CNF formulas from a seed, for tests and benches.
//!
//! This layer sits above `export`: it writes its instance files with the PNML and PES
//! writers, and nothing below it knows about hardness instances.

pub(crate) mod cex;
pub(crate) mod decide;
pub(crate) mod instance;
pub(crate) mod net;
pub(crate) mod pes;
pub(crate) mod program;
pub(crate) mod random;
pub(crate) mod render;
pub(crate) mod write;

pub use cex::{decide_cex, decide_cex_net, BackendCex, CexAnswer, CexOptions, CexWitness};
pub use decide::{
    decide_alt, decide_alt_pes, decide_alt_program, AltAnswer, DecideError, DecideOptions, WitnessEvent,
};
pub use instance::{
    read as read_instance, read_net as read_net_instance, read_program as read_program_instance, Instance,
    InstanceKind, Literal, NetInstance, ProgramInstance,
};
pub use net::{instance as net_instance, HardnessNet};
pub use pes::{instance as pes_instance, instance_bytes as pes_instance_bytes};
pub use program::instance_text as program_instance_text;
pub use random::random_cnf;
pub use write::{net_instance_pnml, pes_instance_text};
