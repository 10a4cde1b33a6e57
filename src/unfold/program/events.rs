//! The event store of the program-like unfolding: events hash-consed by (action,
//! predecessors), their creation (tree nodes, places in the trees, history summary,
//! fault and cutoff) and their freeing, with ids reused through a free list.

use super::summary::{LeafWeight, Summary};
use super::{
    Ancestry, CompatMemo, Event, Node, ProgramUnfolding, SiblingLinks, HOT_NODES, MORE_NODES, NONE,
    NOT_IN_CONFIG,
};
use crate::system::{ActionId, CompId, Local, Step, System};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::fingerprint::local_hash;
use crate::unfold::{EventId, UnfoldError};
use smallvec::SmallVec;
use std::cell::Cell;
use std::hash::{BuildHasher, Hasher};

/// The hash-consing key of an event: its action and its predecessors.
fn key_hash(action: ActionId, preds: &[EventId]) -> u64 {
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write_u32(action.0);
    for p in preds {
        h.write_u32(p.0);
    }
    h.finish()
}

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
    /// The summary weight of event `e` as max_c: its state-hash delta on c and its count
    /// of events at home on c.
    pub(super) fn weight(events: &[Event], initial: &[Local], c: CompId, e: u32) -> LeafWeight {
        let n = events[e as usize]
            .node(c)
            .expect("[qpor internal bug] summary leaf without node");
        LeafWeight {
            hash: local_hash(c, n.post).wrapping_sub(local_hash(c, initial[c.index()])),
            size: n.home_count as u64,
        }
    }

    /// Looks up the event of `action` with predecessors `preds` (parallel to
    /// `step.touched`).
    fn find(&self, action: ActionId, preds: &[EventId]) -> Option<EventId> {
        let h = key_hash(action, preds);
        self.table
            .find(h, |&id| {
                let e = &self.events[id.index()];
                e.action == action
                    && e.nodes.len() == preds.len()
                    && e.nodes.iter().zip(preds).all(|(n, p)| n.pred == *p)
            })
            .copied()
    }

    /// The event of `step` with predecessors `preds` (parallel to `step.touched`),
    /// created if needed. `Ok(None)` when the step is not enabled at those predecessors'
    /// local states. The predecessors must form a consistent history.
    pub fn event(&mut self, step: &Step, preds: &[EventId]) -> Result<Option<EventId>, UnfoldError> {
        debug_assert_eq!(step.touched.len(), preds.len());
        self.tick()?;
        if let Some(e) = self.find(step.action, preds) {
            return Ok(Some(e));
        }
        let before: SmallVec<[Local; 8]> = step
            .touched
            .iter()
            .zip(preds)
            .map(|(c, p)| self.post_on(*p, *c))
            .collect();
        let mut after: SmallVec<[Local; 8]> = SmallVec::from_elem(Local(0), before.len());
        if !self.sys.fire(step, &before, &mut after)? {
            return Ok(None);
        }
        if let Some(max) = self.opts.max_events {
            if self.stats.events_created >= max {
                return Err(UnfoldError::EventLimit(max));
            }
        }
        Ok(Some(self.create(step, preds, &after)))
    }

    /// Makes the event of `step` with predecessors `preds` and post local states `after`:
    /// its nodes, its places in the trees, its history summary, its table entry, and
    /// whether it is a fault or a cutoff.
    fn create(&mut self, step: &Step, preds: &[EventId], after: &[Local]) -> EventId {
        let id = self.alloc_event(step.action);
        self.compat_memo[id.index()].set(CompatMemo::UNKNOWN);
        let (mut nodes, level) = self.new_nodes(step, preds, after);
        self.place_in_runs(step.action, &mut nodes);
        self.link_into_trees(id, &nodes);
        self.mirror_links(id, step.action, &nodes);
        self.mirror_ancestry(id, &nodes);
        if self.opts.canonical.is_some() {
            let fps = &self.fingerprints;
            self.fingerprints[id.index()] = crate::unfold::fingerprint::event_fingerprint(
                step.action,
                nodes.iter().map(|n| {
                    if n.pred.is_none() {
                        crate::unfold::fingerprint::bottom(n.comp)
                    } else {
                        fps[n.pred.index()]
                    }
                }),
            );
        }
        let mut hot = [NONE; HOT_NODES + 1];
        for (slot, n) in hot.iter_mut().zip(&nodes) {
            *slot = n.pred;
        }
        if nodes.len() > HOT_NODES {
            hot[HOT_NODES] = MORE_NODES;
        }
        self.hot_preds[id.index()] = hot;
        self.spilled_node_bytes += spilled_bytes(&nodes);
        {
            let e = &mut self.events[id.index()];
            e.action = step.action;
            e.nodes = nodes;
            e.level = level;
            e.alive = true;
            e.cutoff = false;
            e.fault = false;
            e.pinned = false;
        }
        let root = self.history_summary(id, step, preds);
        let size = self.tries.size(root) as u32;
        let hash = self.tries.hash(root);
        {
            let e = &mut self.events[id.index()];
            e.summary = root;
            e.size = size;
            e.state_hash = hash;
        }
        self.stats.events_created += 1;
        self.stats.events_alive += 1;
        self.stats.events_alive_peak = self.stats.events_alive_peak.max(self.stats.events_alive);
        let h = key_hash(step.action, preds);
        let events = &self.events;
        self.table.insert_unique(h, id, |&x| {
            let e = &events[x.index()];
            let preds: SmallVec<[EventId; 8]> = e.nodes.iter().map(|n| n.pred).collect();
            key_hash(e.action, &preds)
        });
        let fault = step
            .touched
            .iter()
            .zip(after)
            .any(|(c, l)| self.sys.fault(*c, *l).is_some());
        self.events[id.index()].fault = fault;
        if self.opts.cutoff != CutoffMode::None && !fault {
            self.decide_cutoff(id);
        }
        id
    }

    /// A free event id (a freed one, or a new slot in every per-event array).
    fn alloc_event(&mut self, action: ActionId) -> EventId {
        if let Some(id) = self.free.pop() {
            return id;
        }
        self.events.push(Event {
            action,
            nodes: SmallVec::new(),
            summary: Summary::EMPTY,
            size: 0,
            level: 0,
            state_hash: 0,
            alive: false,
            cutoff: false,
            fault: false,
            pinned: false,
        });
        self.config_index.push(NOT_IN_CONFIG);
        self.marks.push(0);
        self.hot_preds.push([NONE; HOT_NODES + 1]);
        self.compat_memo.push(Cell::new(CompatMemo::UNKNOWN));
        self.ancestry.push(Ancestry::EMPTY);
        self.fingerprints.push(0);
        self.links.push(SiblingLinks {
            action,
            comps: [CompId(u32::MAX); HOT_NODES],
            next_sibling: [NONE; HOT_NODES],
            next_same: [NONE; HOT_NODES],
            run_key: [u32::MAX; HOT_NODES],
        });
        EventId(self.events.len() as u32 - 1)
    }

    /// The nodes of a new event of `step` with predecessors `preds` and post local states
    /// `after`, not yet linked into the trees, and the event's Foata level.
    fn new_nodes(&self, step: &Step, preds: &[EventId], after: &[Local]) -> (SmallVec<[Node; 3]>, u32) {
        let home = step.touched[0];
        let mut nodes: SmallVec<[Node; 3]> = SmallVec::with_capacity(preds.len());
        let mut level = 1;
        for (i, (&c, &p)) in step.touched.iter().zip(preds).enumerate() {
            let (depth, jump, home_count) = if p.is_none() {
                (0, NONE, (c == home) as u32)
            } else {
                let pn = self.node(p, c);
                level = level.max(self.ev(p).level + 1);
                (
                    pn.depth + 1,
                    self.jump_pointer(p, pn, c),
                    pn.home_count + (c == home) as u32,
                )
            };
            nodes.push(Node {
                comp: c,
                pred: p,
                depth,
                jump,
                first_child: NONE,
                next_sibling: NONE,
                prev_sibling: NONE,
                next_same: NONE,
                prev_same: NONE,
                post: after[i],
                home_count,
            });
        }
        (nodes, level)
    }

    /// The summary of a new event `id` of `step`: the predecessors' summaries merged
    /// (keeping the deeper event per component; they are comparable because the history
    /// is consistent), then `id` itself on its components. The result is retained.
    fn history_summary(&mut self, id: EventId, step: &Step, preds: &[EventId]) -> Summary {
        let mut root = Summary::EMPTY;
        let events = &self.events;
        let initial = &self.initial;
        let weight = |c: CompId, e: u32| Self::weight(events, initial, c, e);
        let pick = |c: CompId, x: u32, y: u32| {
            let dx = events[x as usize].node(c).map(|n| n.depth).unwrap_or(0);
            let dy = events[y as usize].node(c).map(|n| n.depth).unwrap_or(0);
            if dx >= dy {
                x
            } else {
                y
            }
        };
        for &p in preds {
            if p.is_none() {
                continue;
            }
            let ps = events[p.index()].summary;
            let merged = self.tries.merge(root, ps, &pick, &weight);
            self.tries.retain(merged);
            self.tries.release(root);
            root = merged;
        }
        let entries: SmallVec<[(CompId, u32); 8]> = step.touched.iter().map(|&c| (c, id.0)).collect();
        let with_e = self.tries.set_all(root, &entries, &weight);
        self.tries.retain(with_e);
        self.tries.release(root);
        with_e
    }

    /// Frees `e`: out of the trees, the table and the summaries; its id goes to the free
    /// list.
    pub(super) fn free_event(&mut self, e: EventId) {
        let nodes = std::mem::take(&mut self.events[e.index()].nodes);
        self.spilled_node_bytes -= spilled_bytes(&nodes);
        for n in &nodes {
            self.unlink_node(n);
        }
        let preds: SmallVec<[EventId; 8]> = nodes.iter().map(|n| n.pred).collect();
        let action = self.events[e.index()].action;
        let h = key_hash(action, &preds);
        if let Ok(entry) = self.table.find_entry(h, |&x| x == e) {
            entry.remove();
        }
        let summary = self.events[e.index()].summary;
        self.tries.release(summary);
        let ev = &mut self.events[e.index()];
        ev.nodes = crate::unfold::emptied(nodes);
        ev.alive = false;
        ev.summary = Summary::EMPTY;
        self.free.push(e);
        self.stats.events_alive -= 1;
    }
}

/// Heap bytes a node list holds: none while it fits inline.
pub(super) fn spilled_bytes(nodes: &SmallVec<[Node; 3]>) -> u64 {
    if nodes.spilled() {
        (nodes.capacity() * std::mem::size_of::<Node>()) as u64
    } else {
        0
    }
}
