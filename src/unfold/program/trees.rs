//! The component trees of the program-like unfolding: level-ancestor queries with jump
//! pointers, and the child lists with their same-action runs (placing a new event, taking
//! a freed one out), mirrored for the immediate-conflict walk in [`super::SiblingLinks`].

use super::{Ancestry, Node, ProgramUnfolding, HOT_NODES, NONE};
use crate::system::{ActionId, CompId, System};
use crate::unfold::EventId;

/// The key that orders the runs an event's `k`-th node belongs to: the event's depth on
/// its first *other* component (`nodes[0]`, or `nodes[1]` for k = 0), which all events of
/// a run touch since they share the action; `u32::MAX` for an event of one component.
///
/// Why: a run member x whose key is at most depth(max(C)) on that component has its
/// predecessor there strictly above C's maximum — in C but not its maximum, or off C's
/// chain — so C ∪ \[x\] is not a configuration. Sorted deepest first, the rest of a run is
/// incompatible with C from the first such member on, and Alt's spike filter stops there.
pub(super) fn run_key(nodes: &[Node], k: usize) -> u32 {
    match nodes.len() {
        1 => u32::MAX,
        _ => nodes[(k == 0) as usize].depth,
    }
}

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
    /// The ancestor-or-self of `x` at depth `d` in c's tree (d ≤ depth of x).
    #[inline]
    fn ancestor_at(&self, mut x: EventId, c: CompId, d: u32) -> EventId {
        loop {
            let a = &self.ancestry[x.index()];
            let (depth, jump, jump_depth, pred) = match a.slot(c) {
                Some(k) => (a.depth[k], a.jump[k], a.jump_depth[k], a.pred[k]),
                None => {
                    let n = self.node(x, c);
                    let jump_depth = if n.jump.is_none() {
                        0
                    } else {
                        self.node(n.jump, c).depth
                    };
                    (n.depth, n.jump, jump_depth, n.pred)
                }
            };
            if depth == d {
                return x;
            }
            x = if !jump.is_none() && jump_depth >= d {
                jump
            } else {
                pred
            };
        }
    }

    /// `x`'s depth in c's tree (`x` has a node there).
    #[inline]
    pub(super) fn tree_depth(&self, x: EventId, c: CompId) -> u32 {
        let a = &self.ancestry[x.index()];
        match a.slot(c) {
            Some(k) => a.depth[k],
            None => self.node(x, c).depth,
        }
    }

    /// Whether `x` is an ancestor-or-self of `y` in c's tree (⊥ is everyone's ancestor).
    #[inline]
    pub(super) fn is_ancestor(&self, x: EventId, y: EventId, c: CompId) -> bool {
        if x.is_none() {
            return true;
        }
        if y.is_none() {
            return false;
        }
        let dx = self.tree_depth(x, c);
        let dy = self.tree_depth(y, c);
        dx <= dy && self.ancestor_at(y, c, dx) == x
    }

    /// Whether `x` and `y` lie on one root path of c's tree.
    #[inline]
    pub(super) fn comparable(&self, x: EventId, y: EventId, c: CompId) -> bool {
        self.is_ancestor(x, y, c) || self.is_ancestor(y, x, c)
    }

    /// The jump pointer of a new child of `p` (whose node on `c` is `pn`), in Myers'
    /// scheme: jump(jump(p)) when the two jumps below p have equal length, else p.
    /// Level-ancestor queries are then O(log depth).
    pub(super) fn jump_pointer(&self, p: EventId, pn: &Node, c: CompId) -> EventId {
        if pn.jump.is_none() {
            return p;
        }
        let jn = self.node(pn.jump, c);
        let jj_depth = if jn.jump.is_none() {
            -1
        } else {
            self.node(jn.jump, c).depth as i64
        };
        if pn.depth as i64 - jn.depth as i64 == jn.depth as i64 - jj_depth && !jn.jump.is_none() {
            jn.jump
        } else {
            p
        }
    }

    /// Sets the places of a new event of `action` in the trees, in its `nodes`: at the
    /// head of the child list (`next_sibling`), or in the run of the action, after its
    /// head, in key order (`prev_same`, `next_same`).
    pub(super) fn place_in_runs(&self, action: ActionId, nodes: &mut [Node]) {
        for k in 0..nodes.len() {
            let (c, p) = (nodes[k].comp, nodes[k].pred);
            let head = if p.is_none() {
                self.roots[c.index()]
            } else {
                self.node(p, c).first_child
            };
            // The head of the run of this action among the siblings, if there is one.
            let mut run = head;
            while !run.is_none() {
                let (run_action, next_sibling, _) = self.sibling_links(run, c);
                if run_action == action {
                    break;
                }
                run = next_sibling;
            }
            if run.is_none() {
                nodes[k].next_sibling = head;
                continue;
            }
            // The run gets a member its last walk did not see.
            self.run_memos.borrow_mut().remove(&(run, c));
            let key = run_key(nodes, k);
            let mut prev = run;
            let mut next = self.sibling_links(run, c).2;
            while !next.is_none() && self.run_key_on(next, c) > key {
                prev = next;
                next = self.sibling_links(next, c).2;
            }
            nodes[k].prev_same = prev;
            nodes[k].next_same = next;
        }
    }

    /// Links the new event `id` with `nodes` (placed by [`Self::place_in_runs`]) into its
    /// parents' child lists (or the roots), or into the run of its action.
    pub(super) fn link_into_trees(&mut self, id: EventId, nodes: &[Node]) {
        for n in nodes {
            if !n.prev_same.is_none() {
                let k = self.events[n.prev_same.index()].node_index(n.comp).unwrap();
                self.set_next_same(n.prev_same, k, id);
                if !n.next_same.is_none() {
                    let k = self.events[n.next_same.index()].node_index(n.comp).unwrap();
                    self.events[n.next_same.index()].nodes[k].prev_same = id;
                }
                continue;
            }
            if !n.next_sibling.is_none() {
                let k = self.events[n.next_sibling.index()].node_index(n.comp).unwrap();
                self.events[n.next_sibling.index()].nodes[k].prev_sibling = id;
            }
            if n.pred.is_none() {
                self.roots[n.comp.index()] = id;
            } else {
                let k = self.events[n.pred.index()].node_index(n.comp).unwrap();
                self.events[n.pred.index()].nodes[k].first_child = id;
            }
        }
    }

    /// Writes the mirror of the new event `id`'s first [`HOT_NODES`] nodes.
    pub(super) fn mirror_links(&mut self, id: EventId, action: ActionId, nodes: &[Node]) {
        let l = &mut self.links[id.index()];
        l.action = action;
        l.comps = [CompId(u32::MAX); HOT_NODES];
        for (k, n) in nodes.iter().take(HOT_NODES).enumerate() {
            l.comps[k] = n.comp;
            l.next_sibling[k] = n.next_sibling;
            l.next_same[k] = n.next_same;
            l.run_key[k] = run_key(nodes, k);
        }
    }

    /// Writes the mirror of the new event `id`'s tree positions ([`super::Ancestry`]).
    pub(super) fn mirror_ancestry(&mut self, id: EventId, nodes: &[Node]) {
        let mut a = Ancestry::EMPTY;
        for (k, n) in nodes.iter().take(HOT_NODES).enumerate() {
            a.comps[k] = n.comp;
            a.depth[k] = n.depth;
            a.pred[k] = n.pred;
            a.jump[k] = n.jump;
            a.jump_depth[k] = if n.jump.is_none() {
                0
            } else {
                self.node(n.jump, n.comp).depth
            };
        }
        self.ancestry[id.index()] = a;
    }

    /// Takes a freed event's node `n` out of its child list or run.
    pub(super) fn unlink_node(&mut self, n: &Node) {
        // Unlink from the sibling list; a freed predecessor's list does not matter,
        // but predecessors of freed events are freed only in the same sweep, after us
        // or before us: fix up whichever neighbours are still alive.
        if !n.prev_same.is_none() {
            // Inside a run: only the run's chain changes.
            if let Some(k) = self.events[n.prev_same.index()].node_index(n.comp) {
                self.set_next_same(n.prev_same, k, n.next_same);
            }
            if !n.next_same.is_none() {
                if let Some(k) = self.events[n.next_same.index()].node_index(n.comp) {
                    self.events[n.next_same.index()].nodes[k].prev_same = n.prev_same;
                }
            }
            return;
        }
        // A run head: the next event of the run, if any, takes its place in the list.
        let mut successor = n.next_sibling;
        if !n.next_same.is_none() {
            if let Some(k) = self.events[n.next_same.index()].node_index(n.comp) {
                let y = &mut self.events[n.next_same.index()].nodes[k];
                y.prev_same = NONE;
                y.prev_sibling = n.prev_sibling;
                self.set_next_sibling(n.next_same, k, n.next_sibling);
                successor = n.next_same;
            }
        }
        if !n.prev_sibling.is_none() {
            if let Some(k) = self.events[n.prev_sibling.index()].node_index(n.comp) {
                self.set_next_sibling(n.prev_sibling, k, successor);
            }
        } else if n.pred.is_none() {
            self.roots[n.comp.index()] = successor;
        } else if let Some(k) = self.events[n.pred.index()].node_index(n.comp) {
            self.events[n.pred.index()].nodes[k].first_child = successor;
        }
        if !n.next_sibling.is_none() {
            if let Some(k) = self.events[n.next_sibling.index()].node_index(n.comp) {
                self.events[n.next_sibling.index()].nodes[k].prev_sibling = if successor == n.next_sibling {
                    n.prev_sibling
                } else {
                    successor
                };
            }
        }
    }

    /// Sets `next_sibling` of the `k`-th node of `x`, and its mirror.
    pub(super) fn set_next_sibling(&mut self, x: EventId, k: usize, v: EventId) {
        self.events[x.index()].nodes[k].next_sibling = v;
        if k < HOT_NODES {
            self.links[x.index()].next_sibling[k] = v;
        }
    }

    /// Sets `next_same` of the `k`-th node of `x`, and its mirror.
    pub(super) fn set_next_same(&mut self, x: EventId, k: usize, v: EventId) {
        self.events[x.index()].nodes[k].next_same = v;
        if k < HOT_NODES {
            self.links[x.index()].next_same[k] = v;
        }
    }

    /// `(action, next_sibling, next_same)` of `x` on component `c`, from the mirror when
    /// it has the node.
    #[inline]
    pub(super) fn sibling_links(&self, x: EventId, c: CompId) -> (ActionId, EventId, EventId) {
        let l = &self.links[x.index()];
        for k in 0..HOT_NODES {
            if l.comps[k] == c {
                return (l.action, l.next_sibling[k], l.next_same[k]);
            }
        }
        let n = self.node(x, c);
        (l.action, n.next_sibling, n.next_same)
    }

    /// [`run_key`] of `x`'s node on component `c`, from the mirror when it has the node.
    #[inline]
    pub(super) fn run_key_on(&self, x: EventId, c: CompId) -> u32 {
        let l = &self.links[x.index()];
        for k in 0..HOT_NODES {
            if l.comps[k] == c {
                return l.run_key[k];
            }
        }
        let ev = self.ev(x);
        run_key(&ev.nodes, ev.node_index(c).unwrap())
    }
}
