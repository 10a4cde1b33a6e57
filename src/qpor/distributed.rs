//! QPOR across processes (`mpirun -np N qpor check --distributed`): the split exploration
//! of [`super::driver`] with one rank per process, over the caller's [`Transport`] (MPI in
//! the CLI). Every process loads the model; rank 0 runs tasks too, between the messages it
//! coordinates, and prints the report.
//!
//! Processes number actions each in the order it met them (a program's actions are
//! interned as they are reached), so messages name actions by
//! [`System::action_key`], and the receiver finds the enabled event with that key.
//! Witnesses come to rank 0 the same way and are replayed there on its own system.

use super::coordinator::SplitStats;
use super::driver::{drive, Drive};
use super::explore::{ExploreOptions, ExploreOutcome};
use super::replica::SplitPolicy;
use super::transport::Transport;
use crate::engine::{Budget, Observer};
use crate::system::{ModelError, System};
use crate::unfold::program::ProgramOptions;
use std::sync::atomic::AtomicU64;

/// Runs Algorithm 1 on the program-like unfolding of `sys` with the processes of
/// `transport` (see [`super::driver`]); `unfolding` must have cutoffs every replica
/// decides alike (none, causal, distance or canonical), and its event limit holds for
/// each replica. Every rank calls it with the same model and options; rank 0 returns the
/// outcome, the others `None`. `split` says when tasks split.
pub(crate) fn explore_distributed<S: System + ?Sized, T: Transport + ?Sized>(
    sys: &S,
    unfolding: ProgramOptions,
    opts: &ExploreOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    transport: &T,
    split: SplitPolicy,
) -> Result<Option<(ExploreOutcome, SplitStats)>, ModelError> {
    // Each process has its own token: rank 0 stops the others by message.
    let own = budget.with_own_cancel();
    let d = Drive {
        sys,
        unfolding,
        opts,
        caller: budget,
        budget: &own,
        split,
        rank0_works: true,
        deepest: &AtomicU64::new(0),
    };
    drive(d, observer, transport)
}
