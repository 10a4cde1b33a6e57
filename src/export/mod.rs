//! Writers: nets (PNML, ll_net) and reports (text, JSON).

pub mod llnet;
pub mod pnml;
pub mod report;
