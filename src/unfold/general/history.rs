//! Persistent sets of event ids: the local configurations \[e\] of the general backend and
//! its current configuration C, as 16-ary tries of 64-bit words with shared subtrees.
//!
//! \[e\] is the union of the histories of the producers of e's preset, plus e. Building it
//! copies only the trie paths that change, so a new event costs a few nodes, not a copy of
//! its history; causality a ≤ b is one lookup of a in \[b\]; and walks over \[a\] \ \[b\] (for
//! conflict and compatibility tests) skip every subtree the two sets share.
//!
//! A root carries its height. A node of height 0 is a word holding ids 64·w … 64·w + 63;
//! a node of height h ≥ 1 has 16 children of height h − 1 and covers 16^h words. A root
//! lower than another is read as if it were lifted along slot 0, so histories built when
//! ids were small need not be rebuilt when ids grow.
//!
//! Every node caches the number of ids below it and the wrapping sum of a caller-supplied
//! weight per id (for the general backend: each event's change of the marking hash), so
//! |\[e\]| and the hash of Mark(\[e\]) come with the root.
//!
//! # Invariants
//! - Nodes are immutable once built; slot 0 means empty, otherwise it is the index of a
//!   child in the arena of its height (words for height 1, inner nodes above).
//! - A node's `refs` counts the nodes and external holders pointing at it; at zero the
//!   node is freed together with the children nobody else holds, iteratively.
//! - Recursion is bounded by the trie height (at most 7 for 32-bit ids), never by the
//!   length of a history.

const FANOUT: usize = 16;
const BITS: u32 = 4;

/// A set of event ids (the empty set is [`History::EMPTY`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub(crate) struct History {
    node: u32,
    height: u8,
}

impl History {
    /// The empty set.
    pub(crate) const EMPTY: History = History { node: 0, height: 0 };
}

#[derive(Clone, Debug)]
struct Inner {
    slots: [u32; FANOUT],
    refs: u32,
    size: u32,
    hash: u64,
}

#[derive(Clone, Debug)]
struct Word {
    bits: u64,
    refs: u32,
    size: u32,
    hash: u64,
}

/// The arena holding every history's nodes.
pub(crate) struct Histories {
    inner: Vec<Inner>,
    words: Vec<Word>,
    free_inner: Vec<u32>,
    free_words: Vec<u32>,
    live_inner: usize,
    live_words: usize,
}

impl Default for Histories {
    fn default() -> Self {
        Self::new()
    }
}

/// Puts `item` in a free slot of `arena` (the last freed one) or a new one; returns its
/// index.
#[inline]
fn store<T>(arena: &mut Vec<T>, free: &mut Vec<u32>, item: T) -> u32 {
    match free.pop() {
        Some(i) => {
            arena[i as usize] = item;
            i
        }
        None => {
            arena.push(item);
            arena.len() as u32 - 1
        }
    }
}

fn capacity_words(h: u8) -> u64 {
    1u64 << (BITS * h as u32)
}

fn height_for(id: u32) -> u8 {
    let w = (id >> 6) as u64;
    let mut h = 0u8;
    while capacity_words(h) <= w {
        h += 1;
    }
    h
}

fn digit(word: u32, h: u8) -> usize {
    ((word >> (BITS * (h as u32 - 1))) as usize) & (FANOUT - 1)
}

impl Histories {
    /// An empty arena.
    pub(crate) fn new() -> Histories {
        // Index 0 of each arena is the empty node; it is never freed.
        Histories {
            inner: vec![Inner {
                slots: [0; FANOUT],
                refs: u32::MAX / 2,
                size: 0,
                hash: 0,
            }],
            words: vec![Word {
                bits: 0,
                refs: u32::MAX / 2,
                size: 0,
                hash: 0,
            }],
            free_inner: Vec::new(),
            free_words: Vec::new(),
            live_inner: 0,
            live_words: 0,
        }
    }

    /// Bytes held by live nodes.
    pub(crate) fn live_bytes(&self) -> usize {
        self.live_inner * std::mem::size_of::<Inner>() + self.live_words * std::mem::size_of::<Word>()
    }

    /// Number of ids in `h`.
    pub(crate) fn size(&self, h: History) -> u32 {
        match (h.node, h.height) {
            (0, _) => 0,
            (n, 0) => self.words[n as usize].size,
            (n, _) => self.inner[n as usize].size,
        }
    }

    /// Wrapping sum of the weights of the ids in `h`.
    pub(crate) fn hash(&self, h: History) -> u64 {
        match (h.node, h.height) {
            (0, _) => 0,
            (n, 0) => self.words[n as usize].hash,
            (n, _) => self.inner[n as usize].hash,
        }
    }

    /// Whether `id` ∈ `h`.
    pub(crate) fn contains(&self, h: History, id: u32) -> bool {
        let w = id >> 6;
        if h.node == 0 || w as u64 >= capacity_words(h.height) {
            return false;
        }
        let mut n = h.node;
        let mut level = h.height;
        while level > 0 {
            n = self.inner[n as usize].slots[digit(w, level)];
            if n == 0 {
                return false;
            }
            level -= 1;
        }
        (self.words[n as usize].bits >> (id & 63)) & 1 == 1
    }

    /// Adds an external reference to `h`.
    pub(crate) fn retain(&mut self, h: History) {
        match (h.node, h.height) {
            (0, _) => {}
            (n, 0) => self.words[n as usize].refs += 1,
            (n, _) => self.inner[n as usize].refs += 1,
        }
    }

    /// Drops an external reference to `h`, freeing what nobody else holds.
    pub(crate) fn release(&mut self, h: History) {
        if h.node == 0 {
            return;
        }
        let mut stack = vec![(h.node, h.height)];
        while let Some((n, level)) = stack.pop() {
            if level == 0 {
                let w = &mut self.words[n as usize];
                w.refs -= 1;
                if w.refs == 0 {
                    self.free_words.push(n);
                    self.live_words -= 1;
                }
                continue;
            }
            let node = &mut self.inner[n as usize];
            node.refs -= 1;
            if node.refs > 0 {
                continue;
            }
            for &s in &self.inner[n as usize].slots {
                if s != 0 {
                    stack.push((s, level - 1));
                }
            }
            self.free_inner.push(n);
            self.live_inner -= 1;
        }
    }

    fn alloc_word(&mut self, bits: u64, size: u32, hash: u64) -> u32 {
        let w = Word {
            bits,
            refs: 0,
            size,
            hash,
        };
        self.live_words += 1;
        store(&mut self.words, &mut self.free_words, w)
    }

    /// A new inner node of height `h` over `slots` (children of height h − 1).
    fn alloc_inner(&mut self, slots: [u32; FANOUT], h: u8) -> u32 {
        let (mut size, mut hash) = (0u32, 0u64);
        for &s in &slots {
            if s == 0 {
                continue;
            }
            if h == 1 {
                let w = &mut self.words[s as usize];
                w.refs += 1;
                size += w.size;
                hash = hash.wrapping_add(w.hash);
            } else {
                let c = &mut self.inner[s as usize];
                c.refs += 1;
                size += c.size;
                hash = hash.wrapping_add(c.hash);
            }
        }
        let node = Inner {
            slots,
            refs: 0,
            size,
            hash,
        };
        self.live_inner += 1;
        store(&mut self.inner, &mut self.free_inner, node)
    }

    /// Child `d` of the node `n` of height `nh`, read at height `h` ≥ `nh` (a lower node
    /// is lifted along slot 0).
    fn child(&self, n: u32, nh: u8, h: u8, d: usize) -> (u32, u8) {
        if n == 0 {
            (0, h - 1)
        } else if nh == h {
            (self.inner[n as usize].slots[d], h - 1)
        } else if d == 0 {
            (n, nh)
        } else {
            (0, h - 1)
        }
    }

    /// A real node of height `h` for node `n` of height `nh` ≤ `h` (wrappers along slot 0).
    fn materialize(&mut self, n: u32, nh: u8, h: u8) -> u32 {
        if n == 0 || nh == h {
            return n;
        }
        let mut at = n;
        for level in nh + 1..=h {
            let mut slots = [0; FANOUT];
            slots[0] = at;
            at = self.alloc_inner(slots, level);
        }
        at
    }

    /// `h` ∪ {id}; the result carries no external reference (retain it to keep it).
    pub(crate) fn insert(&mut self, h: History, id: u32, weight: u64) -> History {
        if self.contains(h, id) {
            return h;
        }
        let height = h.height.max(height_for(id));
        let node = self.insert_at(h.node, h.height, id, height, weight);
        History { node, height }
    }

    fn insert_at(&mut self, n: u32, nh: u8, id: u32, h: u8, weight: u64) -> u32 {
        if h == 0 {
            let (bits, size, hash) = if n == 0 {
                (0, 0, 0)
            } else {
                let w = &self.words[n as usize];
                (w.bits, w.size, w.hash)
            };
            return self.alloc_word(bits | 1 << (id & 63), size + 1, hash.wrapping_add(weight));
        }
        let d = digit(id >> 6, h);
        let (c, ch) = self.child(n, nh, h, d);
        let new_child = self.insert_at(c, ch, id, h - 1, weight);
        let mut slots = [0u32; FANOUT];
        for (i, slot) in slots.iter_mut().enumerate() {
            *slot = if i == d {
                new_child
            } else {
                let (x, xh) = self.child(n, nh, h, i);
                self.materialize(x, xh, h - 1)
            };
        }
        self.alloc_inner(slots, h)
    }

    /// `a` ∪ `b`, sharing every subtree it can; `weight` gives the weight of an id. The
    /// result carries no external reference of its own.
    pub(crate) fn union(&mut self, a: History, b: History, weight: &dyn Fn(u32) -> u64) -> History {
        if a.node == 0 {
            return b;
        }
        if b.node == 0 || a == b {
            return a;
        }
        let height = a.height.max(b.height);
        let node = self.union_at(a.node, a.height, b.node, b.height, height, 0, weight);
        History { node, height }
    }

    #[allow(clippy::too_many_arguments)]
    fn union_at(
        &mut self,
        a: u32,
        ah: u8,
        b: u32,
        bh: u8,
        h: u8,
        base_word: u32,
        weight: &dyn Fn(u32) -> u64,
    ) -> u32 {
        if a == 0 {
            return self.materialize(b, bh, h);
        }
        if b == 0 || (a == b && ah == bh) {
            return self.materialize(a, ah, h);
        }
        if h == 0 {
            let (wa, wb) = (&self.words[a as usize], &self.words[b as usize]);
            let bits = wa.bits | wb.bits;
            if bits == wa.bits {
                return a;
            }
            if bits == wb.bits {
                return b;
            }
            let mut hash = wa.hash;
            let mut extra = wb.bits & !wa.bits;
            while extra != 0 {
                let i = extra.trailing_zeros();
                hash = hash.wrapping_add(weight(base_word * 64 + i));
                extra &= extra - 1;
            }
            return self.alloc_word(bits, bits.count_ones(), hash);
        }
        let mut out = [0u32; FANOUT];
        let span = 1u32 << (BITS * (h as u32 - 1));
        for (i, o) in out.iter_mut().enumerate() {
            let (x, xh) = self.child(a, ah, h, i);
            let (y, yh) = self.child(b, bh, h, i);
            *o = self.union_at(x, xh, y, yh, h - 1, base_word + i as u32 * span, weight);
        }
        if ah == h && out == self.inner[a as usize].slots {
            return a;
        }
        if bh == h && out == self.inner[b as usize].slots {
            return b;
        }
        self.alloc_inner(out, h)
    }

    /// Calls `f` on every id of `a` \ `b`, in increasing order, skipping shared
    /// subtrees; stops when `f` returns `true` and then returns `true`.
    pub(crate) fn for_each_minus(&self, a: History, b: History, f: &mut dyn FnMut(u32) -> bool) -> bool {
        if a.node == 0 {
            return false;
        }
        let height = a.height.max(b.height);
        self.minus_at(a.node, a.height, b.node, b.height, height, 0, f)
    }

    /// Calls `f` on every id of `a`, in increasing order (see [`Histories::for_each_minus`]).
    pub(crate) fn for_each(&self, a: History, f: &mut dyn FnMut(u32) -> bool) -> bool {
        self.for_each_minus(a, History::EMPTY, f)
    }

    #[allow(clippy::too_many_arguments)]
    fn minus_at(
        &self,
        a: u32,
        ah: u8,
        b: u32,
        bh: u8,
        h: u8,
        base_word: u32,
        f: &mut dyn FnMut(u32) -> bool,
    ) -> bool {
        if a == 0 || (a == b && ah == bh) {
            return false;
        }
        if h == 0 {
            let bb = if b == 0 { 0 } else { self.words[b as usize].bits };
            let mut bits = self.words[a as usize].bits & !bb;
            while bits != 0 {
                let i = bits.trailing_zeros();
                if f(base_word * 64 + i) {
                    return true;
                }
                bits &= bits - 1;
            }
            return false;
        }
        let span = 1u32 << (BITS * (h as u32 - 1));
        for i in 0..FANOUT {
            let (x, xh) = self.child(a, ah, h, i);
            if x == 0 {
                continue;
            }
            let (y, yh) = self.child(b, bh, h, i);
            if self.minus_at(x, xh, y, yh, h - 1, base_word + i as u32 * span, f) {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn w(id: u32) -> u64 {
        (id as u64 + 1) * 0x9e37_79b9
    }

    fn ids(t: &Histories, h: History) -> Vec<u32> {
        let mut v = Vec::new();
        t.for_each(h, &mut |x| {
            v.push(x);
            false
        });
        v
    }

    #[test]
    fn insert_union_minus_agree_with_sets_and_free_everything() {
        let mut t = Histories::new();
        // Pseudo-random ids over several heights, including ones that force lifting.
        let mut x = 12345u64;
        let mut roots: Vec<(History, BTreeSet<u32>)> = vec![(History::EMPTY, BTreeSet::new())];
        for step in 0..400u32 {
            x = super::super::net::mix(x);
            let bound = if step < 200 { 300 } else { 70_000 };
            let id = (x % bound) as u32;
            let i = (x >> 20) as usize % roots.len();
            let j = (x >> 40) as usize % roots.len();
            let (ra, sa) = roots[i].clone();
            let (rb, sb) = roots[j].clone();
            let u = t.union(ra, rb, &w);
            t.retain(u);
            let v = t.insert(u, id, w(id));
            t.retain(v);
            t.release(u);
            let mut s: BTreeSet<u32> = sa.union(&sb).copied().collect();
            s.insert(id);
            assert_eq!(ids(&t, v), s.iter().copied().collect::<Vec<_>>());
            assert_eq!(t.size(v) as usize, s.len());
            let hash = s.iter().fold(0u64, |h, &y| h.wrapping_add(w(y)));
            assert_eq!(t.hash(v), hash);
            assert!(t.contains(v, id) && !t.contains(v, 1_000_000));
            let mut minus = Vec::new();
            t.for_each_minus(v, ra, &mut |y| {
                minus.push(y);
                false
            });
            let expect: Vec<u32> = s.difference(&sa).copied().collect();
            assert_eq!(minus, expect);
            roots.push((v, s));
        }
        for (r, _) in roots {
            t.release(r);
        }
        assert_eq!(t.live_bytes(), 0, "every node freed");
    }

    #[test]
    fn union_shares_equal_and_included_sets() {
        let mut t = Histories::new();
        let a = t.insert(History::EMPTY, 3, 1);
        t.retain(a);
        let b = t.insert(a, 5000, 1);
        t.retain(b);
        assert_eq!(t.union(a, b, &w), b, "a ⊆ b: the union is b itself");
        assert_eq!(t.union(b, a, &w), b);
        assert_eq!(t.union(a, a, &w), a);
        t.release(a);
        t.release(b);
        assert_eq!(t.live_bytes(), 0);
    }
}
