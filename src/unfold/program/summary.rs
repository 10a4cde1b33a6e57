//! Persistent history summaries: for an event e, the map c ↦ max_c(\[e\]) from each component
//! touched by the local configuration \[e\] to the last event of \[e\] on that component
//! (Dpu's `cone` and `lockmax`, generalised to any number of components).
//!
//! A summary is an 8-ary trie keyed by [`CompId`], stored in a shared arena with reference
//! counts. An event's summary is built by merging its predecessors' summaries and setting
//! its own components; only the paths that change are copied. On a net with one component
//! per place a history touches many components, yet a new event costs a few trie nodes,
//! not a copy of its history. Identical subtrees are shared, so comparing two summaries
//! (conflict, compatibility, equal states) skips what the two histories have in common.
//!
//! Fan-out 8 (56-byte nodes) measured smallest per event: against 16 (88 bytes) it saves
//! 20–30 % on programs of 17–48 components (Pol(8,3): 260 → 180 bytes per event; peak
//! memory 10–16 % lower), at the same speed on Pol and Disp but 5 % slower on Mpat(6) and
//! 23 % on Pi(8), whose 10 components fit one 16-ary node; 4 needs too many levels
//! (`cargo bench --bench summaries`, benches/README.md).
//!
//! Every node caches two sums over its leaves, supplied by the caller's weight function:
//! a state-hash delta and a size count. A root's sums give the hash of state(\[e\]) and
//! |\[e\]| without walking the history.
//!
//! # Invariants
//! - A node's `refs` counts the nodes and external holders pointing at it; when it drops to
//!   zero the node is freed together with its unshared children, iteratively.
//! - Nodes are immutable once built. A slot value 0 means "empty"; otherwise it holds
//!   `id + 1` of a child node (inner levels) or of an event (leaf level).
//! - The recursion in [`Tries::merge`], [`Tries::diff`] and [`Tries::set_all`] is bounded
//!   by the trie's height (at most 11 levels: 32-bit component ids, 3 bits a level), never
//!   by the length of a history.

use crate::system::CompId;

const FANOUT: usize = 8;
const BITS: u32 = 3;

/// A trie root; [`Summary::EMPTY`] is the empty map (the empty configuration).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub(crate) struct Summary(u32);

impl Summary {
    /// The empty summary.
    pub(crate) const EMPTY: Summary = Summary(0);
}

#[derive(Clone, Debug)]
struct Node {
    slots: [u32; FANOUT],
    refs: u32,
    hash: u64,
    size: u64,
}

/// What a leaf contributes to the cached sums of the nodes above it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LeafWeight {
    /// Added (wrapping) to the state hash.
    pub hash: u64,
    /// Added to the size count.
    pub size: u64,
}

/// The arena of trie nodes.
pub(crate) struct Tries {
    nodes: Vec<Node>,
    free: Vec<u32>,
    levels: u32,
    live: usize,
    peak: usize,
    release_stack: Vec<(u32, u32)>,
}

impl Tries {
    /// An arena for summaries over `components` components.
    pub(crate) fn new(components: usize) -> Tries {
        let mut levels = 1;
        while (FANOUT as u64).pow(levels) < components.max(1) as u64 {
            levels += 1;
        }
        // Node 0 is the empty trie; it is never freed.
        Tries {
            nodes: vec![Node {
                slots: [0; FANOUT],
                refs: u32::MAX / 2,
                hash: 0,
                size: 0,
            }],
            free: Vec::new(),
            levels,
            live: 0,
            peak: 0,
            release_stack: Vec::new(),
        }
    }

    /// Number of live nodes.
    pub(crate) fn live_nodes(&self) -> usize {
        self.live
    }

    /// Bytes of one node.
    pub(crate) const NODE_BYTES: usize = std::mem::size_of::<Node>();

    fn digit(&self, c: u32, level: u32) -> usize {
        let shift = BITS * (self.levels - 1 - level);
        ((c >> shift) as usize) & (FANOUT - 1)
    }

    /// The event stored for `c`, if any.
    pub(crate) fn get(&self, root: Summary, c: CompId) -> Option<u32> {
        let mut at = root.0;
        for level in 0..self.levels {
            if at == 0 {
                return None;
            }
            at = self.nodes[at as usize].slots[self.digit(c.0, level)];
            if level + 1 < self.levels && at != 0 {
                at -= 1;
            }
        }
        (at != 0).then(|| at - 1)
    }

    /// Hash sum of the summary's leaves.
    pub(crate) fn hash(&self, root: Summary) -> u64 {
        self.nodes[root.0 as usize].hash
    }

    /// Size sum of the summary's leaves.
    pub(crate) fn size(&self, root: Summary) -> u64 {
        self.nodes[root.0 as usize].size
    }

    /// Adds an external reference to `root`.
    pub(crate) fn retain(&mut self, root: Summary) {
        if root.0 != 0 {
            self.nodes[root.0 as usize].refs += 1;
        }
    }

    /// Drops an external reference to `root`, freeing what nobody else holds.
    pub(crate) fn release(&mut self, root: Summary) {
        if root.0 == 0 {
            return;
        }
        // A stack kept between calls: releases run at every pop of C and every freed event.
        let mut stack = std::mem::take(&mut self.release_stack);
        stack.push((root.0, 0u32));
        while let Some((n, level)) = stack.pop() {
            let node = &mut self.nodes[n as usize];
            node.refs -= 1;
            if node.refs > 0 {
                continue;
            }
            if level + 1 < self.levels {
                for &s in &self.nodes[n as usize].slots {
                    if s != 0 {
                        stack.push((s - 1, level + 1));
                    }
                }
            }
            self.free.push(n);
            self.live -= 1;
        }
        self.release_stack = stack;
    }

    fn alloc(&mut self, slots: [u32; FANOUT], hash: u64, size: u64, inner: bool) -> u32 {
        if inner {
            for &s in &slots {
                if s != 0 {
                    self.nodes[(s - 1) as usize].refs += 1;
                }
            }
        }
        let node = Node {
            slots,
            refs: 0,
            hash,
            size,
        };
        self.live += 1;
        self.peak = self.peak.max(self.live);
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
        }
    }

    /// Frees a node just built that nobody references (an intermediate result).
    fn drop_temp(&mut self, root: u32) {
        if root != 0 && self.nodes[root as usize].refs == 0 {
            self.nodes[root as usize].refs = 1;
            self.release(Summary(root));
        }
    }

    fn inner_sums(&self, slots: &[u32; FANOUT]) -> (u64, u64) {
        let (mut h, mut s) = (0u64, 0u64);
        for &x in slots {
            if x != 0 {
                let n = &self.nodes[(x - 1) as usize];
                h = h.wrapping_add(n.hash);
                s += n.size;
            }
        }
        (h, s)
    }

    /// The summary `root` with `c ↦ event` for every pair of `entries` (sorted by
    /// component). The result carries no external reference: retain it to keep it.
    pub(crate) fn set_all(
        &mut self,
        root: Summary,
        entries: &[(CompId, u32)],
        weight: &dyn Fn(CompId, u32) -> LeafWeight,
    ) -> Summary {
        if entries.is_empty() {
            return root;
        }
        if entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // One pass down the trie for all entries: each changed node is copied once.
            return Summary(self.set_sorted(root.0, 0, entries, weight));
        }
        let mut at = root;
        for &(c, e) in entries {
            let next = Summary(self.set_sorted(at.0, 0, &[(c, e)], weight));
            self.retain(next);
            if at != root {
                self.release(at);
            }
            at = next;
        }
        // Hand the final root back without our temporary reference.
        if at != root && at.0 != 0 {
            self.nodes[at.0 as usize].refs -= 1;
        }
        at
    }

    /// The node `node` at `level` with the (sorted, nonempty) `entries` set below it,
    /// built without an external reference.
    fn set_sorted(
        &mut self,
        node: u32,
        level: u32,
        entries: &[(CompId, u32)],
        weight: &dyn Fn(CompId, u32) -> LeafWeight,
    ) -> u32 {
        let mut slots = self.nodes[node as usize].slots;
        if level + 1 == self.levels {
            let (mut h, mut s) = (self.nodes[node as usize].hash, self.nodes[node as usize].size);
            for &(c, e) in entries {
                let d = self.digit(c.0, level);
                if slots[d] != 0 {
                    let w = weight(c, slots[d] - 1);
                    h = h.wrapping_sub(w.hash);
                    s -= w.size;
                }
                let w = weight(c, e);
                h = h.wrapping_add(w.hash);
                s += w.size;
                slots[d] = e + 1;
            }
            return self.alloc(slots, h, s, false);
        }
        let mut i = 0;
        while i < entries.len() {
            let d = self.digit(entries[i].0 .0, level);
            let mut j = i + 1;
            while j < entries.len() && self.digit(entries[j].0 .0, level) == d {
                j += 1;
            }
            let built = self.set_sorted(slots[d].saturating_sub(1), level + 1, &entries[i..j], weight);
            slots[d] = built + 1;
            i = j;
        }
        let (h, s) = self.inner_sums(&slots);
        self.alloc(slots, h, s, true)
    }

    /// The union of two summaries; where both map a component, `pick` chooses which event
    /// to keep. Subtrees equal in both, or empty in one, are shared. The result carries no
    /// external reference of its own unless it is `a` or `b`.
    pub(crate) fn merge(
        &mut self,
        a: Summary,
        b: Summary,
        pick: &dyn Fn(CompId, u32, u32) -> u32,
        weight: &dyn Fn(CompId, u32) -> LeafWeight,
    ) -> Summary {
        Summary(self.merge_at(a.0, b.0, 0, 0, pick, weight))
    }

    fn merge_at(
        &mut self,
        a: u32,
        b: u32,
        level: u32,
        prefix: u32,
        pick: &dyn Fn(CompId, u32, u32) -> u32,
        weight: &dyn Fn(CompId, u32) -> LeafWeight,
    ) -> u32 {
        if a == b || b == 0 {
            return a;
        }
        if a == 0 {
            return b;
        }
        let sa = self.nodes[a as usize].slots;
        let sb = self.nodes[b as usize].slots;
        let mut out = [0u32; FANOUT];
        if level + 1 == self.levels {
            for i in 0..FANOUT {
                out[i] = match (sa[i], sb[i]) {
                    (0, y) => y,
                    (x, 0) => x,
                    (x, y) if x == y => x,
                    (x, y) => pick(CompId((prefix << BITS) | i as u32), x - 1, y - 1) + 1,
                };
            }
            if out == sa {
                return a;
            }
            if out == sb {
                return b;
            }
            // a's sums, corrected where the merge changed a slot: weights are looked up
            // for the changed slots only.
            let (mut h, mut s) = (self.nodes[a as usize].hash, self.nodes[a as usize].size);
            for i in 0..FANOUT {
                if out[i] == sa[i] {
                    continue;
                }
                let c = CompId((prefix << BITS) | i as u32);
                if sa[i] != 0 {
                    let w = weight(c, sa[i] - 1);
                    h = h.wrapping_sub(w.hash);
                    s -= w.size;
                }
                let w = weight(c, out[i] - 1);
                h = h.wrapping_add(w.hash);
                s += w.size;
            }
            return self.alloc(out, h, s, false);
        }
        let mut temps = Vec::new();
        for i in 0..FANOUT {
            let (x, y) = (sa[i], sb[i]);
            out[i] = match (x, y) {
                (0, y) => y,
                (x, 0) => x,
                (x, y) => {
                    let m = self.merge_at(x - 1, y - 1, level + 1, (prefix << BITS) | i as u32, pick, weight);
                    if m != x - 1 && m != y - 1 {
                        temps.push(m);
                    }
                    m + 1
                }
            };
        }
        let result = if out == sa {
            a
        } else if out == sb {
            b
        } else {
            let (h, s) = self.inner_sums(&out);
            self.alloc(out, h, s, true)
        };
        // Children built here are now held by `result` (or unused if a or b was reused).
        for t in temps {
            self.drop_temp(t);
        }
        result
    }

    /// Calls `f(c, in_a, in_b)` for every component whose entries differ between `a` and
    /// `b`, in increasing order, skipping shared subtrees; stops early when `f` returns
    /// `true`, and then returns `true`.
    pub(crate) fn diff(
        &self,
        a: Summary,
        b: Summary,
        f: &mut dyn FnMut(CompId, Option<u32>, Option<u32>) -> bool,
    ) -> bool {
        self.diff_at(a.0, b.0, 0, 0, f)
    }

    fn diff_at(
        &self,
        a: u32,
        b: u32,
        level: u32,
        prefix: u32,
        f: &mut dyn FnMut(CompId, Option<u32>, Option<u32>) -> bool,
    ) -> bool {
        if a == b {
            return false;
        }
        // Node 0 is the empty trie: its slots are all empty.
        let sa = &self.nodes[a as usize].slots;
        let sb = &self.nodes[b as usize].slots;
        let leaf = level + 1 == self.levels;
        for i in 0..FANOUT {
            if sa[i] == sb[i] {
                continue;
            }
            let p = (prefix << BITS) | i as u32;
            if leaf {
                let x = (sa[i] != 0).then(|| sa[i] - 1);
                let y = (sb[i] != 0).then(|| sb[i] - 1);
                if f(CompId(p), x, y) {
                    return true;
                }
            } else if self.diff_at(sa[i].saturating_sub(1), sb[i].saturating_sub(1), level + 1, p, f) {
                return true;
            }
        }
        false
    }

    /// Calls `f(c, event)` for every entry of `root`, in increasing component order.
    pub(crate) fn for_each(&self, root: Summary, f: &mut dyn FnMut(CompId, u32)) {
        self.diff(root, Summary::EMPTY, &mut |c, x, _| {
            if let Some(x) = x {
                f(c, x);
            }
            false
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(c: CompId, e: u32) -> LeafWeight {
        LeafWeight {
            hash: (c.0 as u64 + 1) * 1_000_003 + e as u64,
            size: 1,
        }
    }

    fn entries(t: &Tries, r: Summary) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        t.for_each(r, &mut |c, e| v.push((c.0, e)));
        v
    }

    #[test]
    fn set_get_and_sums() {
        for comps in [3usize, 16, 17, 300, 5000] {
            let mut t = Tries::new(comps);
            let last = CompId(comps as u32 - 1);
            let a = t.set_all(Summary::EMPTY, &[(CompId(0), 7), (last, 9)], &w);
            t.retain(a);
            assert_eq!(t.get(a, CompId(0)), Some(7));
            assert_eq!(t.get(a, last), Some(9));
            assert_eq!(t.get(a, CompId(1)), None);
            assert_eq!(t.size(a), if comps == 1 { 1 } else { 2 });
            let b = t.set_all(a, &[(CompId(0), 8)], &w);
            t.retain(b);
            assert_eq!(t.get(a, CompId(0)), Some(7), "persistent: a unchanged");
            assert_eq!(t.get(b, CompId(0)), Some(8));
            assert_eq!(t.hash(b), w(CompId(0), 8).hash.wrapping_add(w(last, 9).hash));
            t.release(a);
            t.release(b);
            assert_eq!(t.live_nodes(), 0, "everything freed ({comps} components)");
        }
    }

    #[test]
    fn setting_sorted_entries_at_once_equals_setting_them_one_by_one() {
        // All entries in one pass against one pass per entry, on summaries over a few and over many components.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as u32
        };
        for comps in [5u32, 64, 70, 600] {
            let mut t = Tries::new(comps as usize);
            let mut base = Summary::EMPTY;
            for round in 0..40 {
                let mut sorted: Vec<(CompId, u32)> = (0..1 + next(4))
                    .map(|_| (CompId(next(comps)), next(1000)))
                    .collect();
                sorted.sort_by_key(|&(c, _)| c);
                sorted.dedup_by_key(|&mut (c, _)| c);
                let one_pass = t.set_all(base, &sorted, &w);
                t.retain(one_pass);
                let mut by_one = base;
                t.retain(by_one);
                for &entry in sorted.iter().rev() {
                    let next_root = t.set_all(by_one, &[entry], &w);
                    t.retain(next_root);
                    t.release(by_one);
                    by_one = next_root;
                }
                assert_eq!(
                    entries(&t, one_pass),
                    entries(&t, by_one),
                    "round {round}, {comps} components"
                );
                assert_eq!(t.hash(one_pass), t.hash(by_one));
                assert_eq!(t.size(one_pass), t.size(by_one));
                t.release(by_one);
                t.release(base);
                base = one_pass;
            }
            t.release(base);
            assert_eq!(t.live_nodes(), 0, "everything freed ({comps} components)");
        }
    }

    #[test]
    fn merge_shares_and_picks() {
        let mut t = Tries::new(200);
        let base = t.set_all(
            Summary::EMPTY,
            &[(CompId(1), 1), (CompId(40), 2), (CompId(150), 3)],
            &w,
        );
        t.retain(base);
        let a = t.set_all(base, &[(CompId(40), 10)], &w);
        t.retain(a);
        let b = t.set_all(base, &[(CompId(41), 11), (CompId(150), 12)], &w);
        t.retain(b);
        let pick = |_c: CompId, x: u32, y: u32| x.max(y);
        let m = t.merge(a, b, &pick, &w);
        t.retain(m);
        assert_eq!(entries(&t, m), vec![(1, 1), (40, 10), (41, 11), (150, 12)]);
        assert_eq!(t.size(m), 4);
        let same = t.merge(a, a, &pick, &w);
        assert_eq!(same, a);
        let mut diffs = Vec::new();
        t.diff(a, b, &mut |c, x, y| {
            diffs.push((c.0, x, y));
            false
        });
        assert_eq!(
            diffs,
            vec![
                (40, Some(10), Some(2)),
                (41, None, Some(11)),
                (150, Some(3), Some(12))
            ]
        );
        for r in [base, a, b, m] {
            t.release(r);
        }
        assert_eq!(t.live_nodes(), 0);
    }
}
