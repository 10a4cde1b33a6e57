//! The time and memory limits of the prefix builder, and its memory accounting.

use super::{Builder, Candidate, Extension, Label, Popped, Semantics};

/// How many extensions are queued between two looks at the time and memory limits.
const QUEUED_PER_LIMIT_CHECK: u32 = 1024;

impl<M: Semantics + ?Sized> Builder<'_, M> {
    /// Queues the extensions of `found` (emptying it), looking at the time and memory
    /// limits every `QUEUED_PER_LIMIT_CHECK` extensions and at the end; returns why it
    /// stopped, if a limit was reached (the extensions not queued count as dropped).
    pub(super) fn enqueue_all(&mut self, found: &mut Vec<Extension>) -> Option<String> {
        let mut left = found.len() as u64;
        for ext in found.drain(..) {
            debug_assert!(
                ext.preset.windows(2).all(|w| w[0] < w[1]),
                "[qpor internal bug] extension preset not sorted"
            );
            self.enqueue(ext);
            left -= 1;
            self.since_limit_check += 1;
            if self.since_limit_check >= QUEUED_PER_LIMIT_CHECK {
                self.since_limit_check = 0;
                if let Some(why) = self.limit_reached() {
                    self.dropped += left;
                    return Some(why);
                }
            }
        }
        self.limit_reached()
    }

    /// Why the time or memory limit (or a cancel) stops the construction now, if one does.
    pub(super) fn limit_reached(&self) -> Option<String> {
        if let Some(reason) = self.opts.cancel.as_ref().and_then(|c| c.reason()) {
            return Some(reason.to_string());
        }
        if let Some(limit) = self.opts.time_limit {
            if self.opts.started.unwrap_or(self.start).elapsed() >= limit {
                return Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
            }
        }
        if let Some(max) = self.opts.max_bytes {
            if self.bytes() >= max {
                return Some(format!("memory limit of {} MB reached", max >> 20));
            }
        }
        None
    }

    /// The builder's data: co-relation, queue (candidate slots, heap, interned keys),
    /// events, conditions and recorded markings.
    pub(super) fn bytes(&self) -> u64 {
        self.co_entries * 4
            + (self.cands.len() * std::mem::size_of::<Option<Candidate>>()) as u64
            + ((self.heap.len() + self.free_cands.len()) * 4) as u64
            + self.parikhs.bytes()
            + self.foatas.bytes()
            + self.posts.bytes()
            + self.reps_bytes
            + (self.events.len() * std::mem::size_of::<Popped>()) as u64
            + (self.labels.len() * (std::mem::size_of::<Label>() + 4 + std::mem::size_of::<Vec<u32>>()))
                as u64
    }
}
