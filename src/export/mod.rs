//! Writers: nets (PNML, ll_net), reports (text, JSON) and Graphviz pictures (DOT).

pub mod dot;
pub mod llnet;
pub mod pes;
pub mod pnml;
pub mod prefix_report;
pub mod report;
