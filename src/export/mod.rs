//! Writers: nets (PNML, ll_net, PES text), reports of checks, prefixes and models (text,
//! JSON), and Graphviz pictures (DOT).

pub mod dot;
pub mod info;
pub mod llnet;
pub mod pes;
pub mod pnml;
pub mod prefix_report;
pub mod report;
