//! Writers: nets (PNML, ll_net, PES text), reports of checks, prefixes and models (text,
//! JSON), and Graphviz pictures (DOT).

pub(crate) mod dot;
pub(crate) mod info;
pub(crate) mod llnet;
pub(crate) mod pes;
pub(crate) mod pnml;
pub(crate) mod prefix_report;
pub(crate) mod report;
