//! Writers: nets (PNML, ll_net) and, later, DOT and JSON views of results.

pub mod llnet;
pub mod pnml;
