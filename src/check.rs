//! The dispatcher behind `qpor check`: the one place that knows every engine. It turns the
//! user's [`CheckOptions`] into an [`Engine`] with its own options and a [`Budget`], and
//! runs it. The engines below it know nothing of each other or of this module.

use crate::engine::{Budget, Engine, EngineError, Observer, Report};
use crate::explicit::{Explicit, ExplicitOptions};
use crate::qpor::{AltMode, Qpor, QporOptions};
use crate::system::model::{Model, SystemOptions};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::Backend;
use std::time::Duration;

/// Which engine explores the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EngineChoice {
    /// Quasi-optimal partial order reduction over an unfolding (Algorithm 1).
    #[default]
    Qpor,
    /// Breadth-first search over global states: the oracle and the baseline.
    Explicit,
}

/// Everything `qpor check` can be asked: the engine, the settings of every engine (each
/// engine reads its own), and the limits.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The engine.
    pub engine: EngineChoice,
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// Collect every dead state instead of stopping at the first deadlock.
    pub all: bool,
    /// Explicit engine: stop with an inconclusive verdict after storing this many states.
    pub max_states: Option<u64>,
    /// Stop with an inconclusive verdict after this much time.
    pub time_limit: Option<Duration>,
    /// QPOR: how alternatives are computed (`-k N`, `--optimal`, `--sdpor`).
    pub alt: AltMode,
    /// QPOR: the adequate order for cutoffs.
    pub cutoff: CutoffMode,
    /// QPOR: stop with an inconclusive verdict after creating this many events.
    pub max_events: Option<u64>,
    /// QPOR: never prune the unfolding (for measurements).
    pub no_prune: bool,
    /// QPOR: which unfolding backend to explore.
    pub unfolding: Backend,
}

impl CheckOptions {
    /// Sets [`CheckOptions::engine`].
    pub fn engine(mut self, engine: EngineChoice) -> Self {
        self.engine = engine;
        self
    }

    /// Sets [`CheckOptions::all`].
    pub fn all(mut self, all: bool) -> Self {
        self.all = all;
        self
    }

    /// Sets [`CheckOptions::max_states`].
    pub fn max_states(mut self, n: u64) -> Self {
        self.max_states = Some(n);
        self
    }

    /// Sets [`CheckOptions::time_limit`].
    pub fn time_limit(mut self, d: Duration) -> Self {
        self.time_limit = Some(d);
        self
    }

    /// Sets [`CheckOptions::alt`].
    pub fn alt(mut self, alt: AltMode) -> Self {
        self.alt = alt;
        self
    }

    /// Sets [`CheckOptions::cutoff`].
    pub fn cutoff(mut self, cutoff: CutoffMode) -> Self {
        self.cutoff = cutoff;
        self
    }

    /// Sets [`CheckOptions::max_events`].
    pub fn max_events(mut self, n: u64) -> Self {
        self.max_events = Some(n);
        self
    }

    /// Sets [`CheckOptions::unfolding`].
    pub fn unfolding(mut self, backend: Backend) -> Self {
        self.unfolding = backend;
        self
    }

    /// The options of the QPOR engine.
    pub fn qpor(&self) -> QporOptions {
        QporOptions {
            system: self.system,
            alt: self.alt,
            all: self.all,
            cutoff: self.cutoff,
            max_events: self.max_events,
            no_prune: self.no_prune,
            unfolding: self.unfolding,
        }
    }

    /// The options of the explicit engine.
    pub fn explicit(&self) -> ExplicitOptions {
        ExplicitOptions {
            system: self.system,
            all: self.all,
            max_states: self.max_states,
        }
    }

    /// The engine these options choose, set up with its own options.
    pub fn build_engine(&self) -> Box<dyn Engine> {
        match self.engine {
            EngineChoice::Qpor => Box::new(Qpor { options: self.qpor() }),
            EngineChoice::Explicit => Box::new(Explicit {
                options: self.explicit(),
            }),
        }
    }
}

/// Checks `model` for deadlocks with the engine of `opts`, within its time limit.
pub fn check(model: &Model, opts: &CheckOptions, observer: &mut dyn Observer) -> Result<Report, EngineError> {
    let budget = Budget::new(opts.time_limit);
    opts.build_engine().run(model, &budget, observer)
}
