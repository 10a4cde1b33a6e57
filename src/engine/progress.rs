//! Progress of a long run, for the progress line.

/// Regular progress of a long run. The counters are for display only (the final numbers
/// are in the report's typed [`Counters`](super::Counters)), so a list of names suffices.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// The engine reporting (several may run at once).
    pub engine: &'static str,
    /// Seconds since the start.
    pub seconds: f64,
    /// Named counters (`states`, `frontier`, …), the rate-giving one first.
    pub counters: Vec<(&'static str, u64)>,
}

/// Receives progress reports from an engine, a few times a second at most.
pub trait Observer {
    /// Called with the engine's current counters.
    fn progress(&mut self, p: &Progress);

    /// Called by a bounds check between its rounds with what it knows so far (every lower
    /// bound replayed, every upper bound proved), so that a caller that gives up waiting
    /// at its own deadline can still give the bounds already exact.
    fn bounds_known(&mut self, _known: &[super::BoundAnswer]) {}
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {
    fn progress(&mut self, _p: &Progress) {}
}
