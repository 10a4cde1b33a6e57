//! QPOR on several threads (`--threads N`): the split exploration of [`super::driver`], each
//! worker thread a rank and the calling thread rank 0, passing messages over channels
//! ([`ChannelTransport`]). Rank 0 runs no task: it hands tasks out, keeps the books of the
//! splits, watches the caller's budget and reports progress, so the workers never wait
//! for a coordinator busy in a task of its own.
//!
//! The threads share the system (its tables of actions are behind a lock) and one cancel
//! token, so a limit or an answer stops every worker at its next node; each worker
//! explores in unfolding replicas of its own.

use super::coordinator::SplitStats;
use super::driver::{drive, Drive};
use super::explore::{ExploreOptions, ExploreOutcome};
use super::replica::SplitPolicy;
use super::transport::{ChannelTransport, Transport};
use super::wire::Message;
use crate::engine::{Budget, Observer, Silent};
use crate::system::{ModelError, System};
use crate::unfold::program::ProgramOptions;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicU64;

/// Runs Algorithm 1 on the program-like unfolding of `sys` split into tasks on `workers`
/// threads (see [`super::driver`]); `unfolding` must have cutoffs every replica decides
/// alike (none, causal, distance or canonical). Its event limit holds for each replica,
/// so the caller divides it.
pub(crate) fn explore_parallel<S: System + Sync + ?Sized>(
    sys: &S,
    unfolding: ProgramOptions,
    opts: &ExploreOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
    workers: usize,
    split: SplitPolicy,
) -> Result<(ExploreOutcome, SplitStats), ModelError> {
    debug_assert!(unfolding.cutoff.same_in_every_replica());
    let workers = workers.max(1);
    let own = budget.with_own_cancel();
    let deepest = AtomicU64::new(0);
    let drive_with = |rank0_works| Drive {
        sys,
        unfolding: unfolding.clone(),
        opts,
        caller: budget,
        budget: &own,
        split,
        rank0_works,
        deepest: &deepest,
    };
    let mut transports = ChannelTransport::group(workers + 1).into_iter();
    let coordinator = transports.next().expect("rank 0 is in the group");
    std::thread::scope(|threads| {
        let mut handles = Vec::with_capacity(workers);
        for t in transports {
            let rank = t.rank();
            let drive_with = &drive_with;
            let spawned = std::thread::Builder::new()
                .name(format!("qpor-worker-{}", rank - 1))
                .spawn_scoped(threads, move || {
                    let done = catch_unwind(AssertUnwindSafe(|| drive(drive_with(false), &mut Silent, &t)));
                    // Rank 0 waits for this rank's tasks: tell it they will not end.
                    let failed = match &done {
                        Ok(Ok(_)) => None,
                        Ok(Err(e)) => Some(e.to_string()),
                        Err(_) => Some(format!("[qpor internal bug] worker thread {} panicked", rank - 1)),
                    };
                    if let Some(error) = failed {
                        let msg = Message::Failed {
                            from: rank as u32,
                            error,
                        };
                        t.send(0, &msg.encode());
                    }
                    if let Err(panic) = done {
                        resume_unwind(panic);
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    finish_workers(&coordinator, &own);
                    return Err(ModelError::new(format!(
                        "cannot start {workers} worker threads: {e}"
                    )));
                }
            }
        }
        let done = drive(drive_with(false), observer, &coordinator);
        // Normally every worker was told to finish; after an error in rank 0 they are now.
        finish_workers(&coordinator, &own);
        for h in handles {
            if let Err(panic) = h.join() {
                resume_unwind(panic);
            }
        }
        done?.ok_or_else(|| ModelError::new("[qpor internal bug] rank 0 of a threaded run gave no outcome"))
    })
}

/// Stops the worker ranks and tells them to return (a worker that already returned
/// ignores it).
fn finish_workers(coordinator: &ChannelTransport, own: &Budget) {
    own.cancel_token().cancel();
    for rank in 1..coordinator.size() {
        coordinator.send(rank, &Message::Finish.encode());
    }
}
