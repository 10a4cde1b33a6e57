//! The queue of the prefix builder: candidate extensions with their interned keys in a
//! binary heap ordered by ◁, and, under an event limit, the trimming that keeps only what
//! can still be popped (see the module documentation of [`super`]).

use super::{Builder, Candidate, Extension, Semantics, NONE};
use crate::unfold::cutoff::CutoffMode;
use smallvec::SmallVec;

/// The keys of a new candidate's history (see [`Builder::history_keys`]).
struct HistoryKeys {
    /// |\[e\]|.
    size: u32,
    /// The Foata level of e.
    level: u32,
    /// The sparse Parikh vector of \[e\] \\ {e} (ERV only, else empty).
    parikh: Vec<(u32, u32)>,
}

impl<M: Semantics + ?Sized> Builder<'_, M> {
    /// Queues the possible extension `ext`, unless the event limit can never reach it (it
    /// then counts as dropped).
    pub(super) fn enqueue(&mut self, ext: Extension) {
        let Some(HistoryKeys { size, level, parikh }) = self.history_keys(&ext) else {
            self.dropped += 1;
            return;
        };
        let parikh = if self.opts.cutoff == CutoffMode::Erv {
            let mut parikh = parikh;
            match parikh.binary_search_by_key(&ext.action, |x| x.0) {
                Ok(i) => parikh[i].1 += 1,
                Err(i) => parikh.insert(i, (ext.action, 1)),
            }
            self.parikhs.intern(parikh)
        } else {
            NONE
        };
        let cand = Candidate {
            action: ext.action,
            preset: ext.preset,
            post: self.posts.intern(ext.post),
            size,
            level,
            parikh,
            foata: NONE,
            seq: self.seq,
        };
        self.seq += 1;
        let id = match self.free_cands.pop() {
            Some(i) => {
                self.cands[i as usize] = Some(cand);
                i
            }
            None => {
                self.cands.push(Some(cand));
                self.cands.len() as u32 - 1
            }
        };
        self.push_candidate(id);
    }

    /// The history keys of the extension `ext`; `None` when a candidate of its size could
    /// never be popped under the event limit (checked before the Parikh vector is copied).
    fn history_keys(&mut self, ext: &Extension) -> Option<HistoryKeys> {
        let erv = self.opts.cutoff == CutoffMode::Erv;
        let mut level = 1;
        let mut producers: SmallVec<[u32; 4]> = SmallVec::new();
        for &c in &ext.preset {
            let p = self.producer[c as usize];
            if p != NONE {
                level = level.max(self.events[p as usize].level + 1);
                if !producers.contains(&p) {
                    producers.push(p);
                }
            }
        }
        let (size, parikh) = match producers.len() {
            0 => (1, Vec::new()),
            1 => {
                let p = &self.events[producers[0] as usize];
                let size = p.size + 1;
                if self.beyond_reach(size) {
                    return None;
                }
                let v = if erv {
                    self.parikhs.get(p.parikh).clone()
                } else {
                    Vec::new()
                };
                (size, v)
            }
            _ => {
                let (size, v) = self.walk_size_and_parikh(&ext.preset, erv);
                if self.beyond_reach(size) {
                    return None;
                }
                (size, v)
            }
        };
        if producers.is_empty() && self.beyond_reach(size) {
            return None;
        }
        Some(HistoryKeys { size, level, parikh })
    }

    /// 1 + |⋃ \[producer(c)\]|, c ∈ `preset`, and (when `erv`) the sparse Parikh vector of
    /// that union, by one walk.
    fn walk_size_and_parikh(&mut self, preset: &[u32], erv: bool) -> (u32, Vec<(u32, u32)>) {
        let mut size = 1u32;
        // Action counts in a dense scratch array (and the actions seen).
        let mut counts = std::mem::take(&mut self.counts);
        let mut seen: Vec<u32> = Vec::new();
        self.walk(preset, |x| {
            size += 1;
            if erv {
                let a = x.action as usize;
                if a >= counts.len() {
                    counts.resize(a + 1, 0);
                }
                if counts[a] == 0 {
                    seen.push(x.action);
                }
                counts[a] += 1;
            }
        });
        seen.sort_unstable();
        let v: Vec<(u32, u32)> = seen
            .iter()
            .map(|&a| (a, std::mem::take(&mut counts[a as usize])))
            .collect();
        self.counts = counts;
        (size, v)
    }

    /// Puts the stored candidate `id` in the heap; under an event limit, drops it if it
    /// can never be popped, and cuts the queue back when it has grown too long.
    fn push_candidate(&mut self, id: u32) {
        if let Some(max) = self.opts.max_events {
            // At most `left` more pops: a candidate with `left` smaller ones queued is never
            // popped (every pop takes one of those, and the limit counts every pop), so it
            // is dropped at once — every candidate not below the bar — or when the queue is
            // cut back to its `left` smallest.
            let left = max.saturating_sub(self.events.len() as u64) as usize;
            if left == 0 || (self.bar != NONE && !self.less(id, self.bar)) {
                self.drop_candidate(id);
                return;
            }
            self.heap.push(id);
            let n = self.heap.len() - 1;
            self.sift_up(n);
            if self.heap.len() > 2 * left + 1024 {
                self.keep_smallest(left);
            }
        } else {
            self.heap.push(id);
            let n = self.heap.len() - 1;
            self.sift_up(n);
        }
    }

    /// Whether a candidate of this size can never be popped under the event limit: no pop
    /// is left, or the bar is smaller (its size is, and ◁ compares sizes first).
    fn beyond_reach(&self, size: u32) -> bool {
        let Some(max) = self.opts.max_events else {
            return false;
        };
        max <= self.events.len() as u64 || (self.bar != NONE && self.cand(self.bar).size < size)
    }

    /// Keeps the `keep` ◁-least queued candidates and drops the others (counted in
    /// `dropped`, so that the number of pending extensions stays exact).
    fn keep_smallest(&mut self, keep: usize) {
        let mut kept = Vec::with_capacity(keep.min(self.heap.len()));
        while kept.len() < keep {
            match self.pop_min() {
                Some(i) => kept.push(i),
                None => break,
            }
        }
        for i in std::mem::take(&mut self.heap) {
            self.drop_candidate(i);
        }
        // The `keep` candidates kept are all ◁ their largest: a candidate queued later that
        // is not ◁ it has `keep` smaller ones and is dropped at once. The bar stays queued
        // until `keep` pops, i.e. until the limit ends the construction.
        if kept.len() == keep {
            self.bar = kept.last().copied().unwrap_or(NONE);
        }
        // Sorted by ◁: a valid heap.
        self.heap = kept;
    }

    /// Frees a queued candidate that will never be popped.
    fn drop_candidate(&mut self, i: u32) {
        let c = self.cands[i as usize]
            .take()
            .expect("[qpor internal bug] dropped candidate missing");
        self.free_cands.push(i);
        self.posts.release(c.post);
        if c.parikh != NONE {
            self.parikhs.release(c.parikh);
        }
        if c.foata != NONE {
            self.foatas.release(c.foata);
        }
        self.dropped += 1;
    }

    /// The queued candidate `i`.
    pub(super) fn cand(&self, i: u32) -> &Candidate {
        self.cands[i as usize]
            .as_ref()
            .expect("[qpor internal bug] queued candidate missing")
    }

    /// Restores the heap order above position `i`.
    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.less(self.heap[i], self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    /// Takes the ◁-least candidate out of the heap.
    pub(super) fn pop_min(&mut self) -> Option<u32> {
        if self.heap.is_empty() {
            return None;
        }
        let top = self.heap.swap_remove(0);
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.less(self.heap[l], self.heap[m]) {
                m = l;
            }
            if r < n && self.less(self.heap[r], self.heap[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.heap.swap(i, m);
            i = m;
        }
        Some(top)
    }
}
