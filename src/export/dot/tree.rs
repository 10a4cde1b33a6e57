//! The `tree` view: the binary exploration tree of Algorithm 1 (docs/paper.md#algorithm-1; the
//! `Explore(C, D, A)` listing in [`crate::qpor::explore`](mod@crate::qpor::explore)).
//!
//! Every node is one call Explore(C, D, A). Its left child is the call for C ∪ {e} (line
//! 5), its right child the call for C with D ∪ {e}, aiming at an alternative J (line 7).
//! A [`TreeRecorder`] follows the exploration through the
//! [`TreeListener`] callbacks and keeps the tree; [`write_tree`] draws it:
//! - internal nodes are small circles `n<i>` numbered in call order (0 is the root);
//! - leaves are boxes saying what they are: a maximal configuration that is a deadlock
//!   (red), a termination (green), a cutoff leaf (yellow: stopped by cutoffs, its state
//!   still enables a step) or a fault (orange); or an SSB, a sleep-set-blocked call
//!   (grey, dashed: en(C) ⊆ D with C not maximal);
//! - a node that is neither a leaf nor has children is where the exploration stopped
//!   (dotted), e.g. at the first deadlock;
//! - left edges are solid and labelled with the action of e, right edges dashed and
//!   labelled with the size of the alternative's new part, |J \ C|; `ordering=out` keeps
//!   left children on the left.
//!
//! So the picture has one node per call and one edge per non-root call; over a complete
//! exploration the calls are `alt_calls + max_configurations + ssbs` of the check's
//! statistics (every internal node has a left child and calls Alt once when it comes
//! back; every right child is one more leaf than there would be without it). With
//! `max_events = N` the recorder keeps the first N calls (a subtree containing the root,
//! since parents are made before their children) and a note tells how many calls were
//! left out.
//!
//! # Invariants
//! - The recorder's path lists the calls from the root to the current one; sizes of C
//!   along it never decrease (a left child is one larger, a right child the same size).

use super::{common_defaults, plural, titled, DotOptions, DotWriter};
use crate::qpor::{LeafKind, TreeListener};
use crate::system::ActionId;
use crate::unfold::EventId;
use std::io::{self, Write};

/// How a call was reached from its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// The first call, Explore(∅, ∅, ∅).
    Root,
    /// A left child: C ∪ {e}, where e is an event of this action.
    Left(ActionId),
    /// A right child: D ∪ {e}, with an alternative adding `alternative` events (|J \ C|).
    Right {
        /// |J \ C|.
        alternative: usize,
    },
}

/// One call of Explore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeNode {
    /// The parent call (`None` for the root).
    pub parent: Option<u32>,
    /// How the call was reached.
    pub branch: Branch,
    /// |C| at the call.
    pub depth: u32,
    /// What the call is, when it is a leaf.
    pub leaf: Option<LeafKind>,
    /// Whether some call was made from it (recorded or not).
    pub has_children: bool,
}

#[derive(Clone, Copy, Debug)]
struct PathEntry {
    /// The recorded node, or `None` past the recording limit.
    node: Option<u32>,
    depth: u32,
}

/// Records the exploration tree from [`TreeListener`] callbacks, keeping the first
/// `limit` calls and counting all of them.
#[derive(Clone, Debug)]
pub struct TreeRecorder {
    nodes: Vec<TreeNode>,
    limit: usize,
    calls: u64,
    leaves: [u64; 5],
    path: Vec<PathEntry>,
}

fn leaf_index(kind: LeafKind) -> usize {
    match kind {
        LeafKind::Deadlock => 0,
        LeafKind::Termination => 1,
        LeafKind::Cutoff => 2,
        LeafKind::Fault => 3,
        LeafKind::Ssb => 4,
    }
}

impl TreeRecorder {
    /// A recorder of the first `limit` calls (all of them for `None`), positioned at the
    /// root call.
    pub fn new(limit: Option<usize>) -> Self {
        let limit = limit.unwrap_or(usize::MAX);
        let mut nodes = Vec::new();
        let root = if limit > 0 {
            nodes.push(TreeNode {
                parent: None,
                branch: Branch::Root,
                depth: 0,
                leaf: None,
                has_children: false,
            });
            Some(0)
        } else {
            None
        };
        TreeRecorder {
            nodes,
            limit,
            calls: 1,
            leaves: [0; 5],
            path: vec![PathEntry { node: root, depth: 0 }],
        }
    }

    /// The recorded calls, in the order they were made.
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// Every call made, recorded or not.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// Leaves of one kind, recorded or not.
    pub fn leaves(&self, kind: LeafKind) -> u64 {
        self.leaves[leaf_index(kind)]
    }

    /// Marks the current call as a leaf of `kind` if it is still open (neither a leaf nor
    /// a parent): for an exploration that stopped right after adding a faulty event.
    pub fn close_open_call(&mut self, kind: LeafKind) {
        let open =
            self.path.last().and_then(|p| p.node).is_some_and(|i| {
                self.nodes[i as usize].leaf.is_none() && !self.nodes[i as usize].has_children
            });
        if open {
            self.leaf(kind);
        }
    }

    fn child(&mut self, branch: Branch, depth: u32) {
        self.calls += 1;
        let parent = self.path.last().and_then(|p| p.node);
        if let Some(p) = parent {
            self.nodes[p as usize].has_children = true;
        }
        let node = (parent.is_some() && self.nodes.len() < self.limit).then(|| {
            self.nodes.push(TreeNode {
                parent,
                branch,
                depth,
                leaf: None,
                has_children: false,
            });
            self.nodes.len() as u32 - 1
        });
        self.path.push(PathEntry { node, depth });
    }

    /// Back to the last call on the path with |C| = `depth`.
    fn back_to(&mut self, depth: usize) {
        while self.path.len() > 1 && self.path.last().is_some_and(|p| p.depth as usize > depth) {
            self.path.pop();
        }
        debug_assert!(
            self.path.windows(2).all(|w| w[0].depth <= w[1].depth),
            "[qpor internal bug] exploration-tree path out of order"
        );
    }
}

impl TreeListener for TreeRecorder {
    fn left(&mut self, _e: EventId, a: ActionId) {
        let depth = self.path.last().map(|p| p.depth + 1).unwrap_or(1);
        self.child(Branch::Left(a), depth);
    }

    fn right(&mut self, depth: usize, _e: EventId, j: &[EventId]) {
        self.back_to(depth);
        self.child(Branch::Right { alternative: j.len() }, depth as u32);
    }

    fn leaf(&mut self, kind: LeafKind) {
        self.leaves[leaf_index(kind)] += 1;
        if let Some(i) = self.path.last().and_then(|p| p.node) {
            self.nodes[i as usize].leaf = Some(kind);
        }
    }

    fn up(&mut self, depth: usize) {
        self.back_to(depth);
    }
}

fn leaf_attrs(kind: LeafKind) -> [(&'static str, &'static str); 4] {
    let (label, fill, style) = match kind {
        LeafKind::Deadlock => ("maximal\ndeadlock", "salmon", "filled"),
        LeafKind::Termination => ("maximal\nterminated", "palegreen", "filled"),
        LeafKind::Cutoff => ("maximal\ncutoff leaf", "khaki1", "filled"),
        LeafKind::Fault => ("maximal\nfault", "orange", "filled"),
        LeafKind::Ssb => ("SSB", "gray85", "filled,dashed"),
    };
    [
        ("shape", "box"),
        ("style", style),
        ("fillcolor", fill),
        ("label", label),
    ]
}

/// Writes the recorded tree to `out`, naming left edges with `action_name`.
pub fn write_tree<W: Write>(
    tree: &TreeRecorder,
    action_name: &dyn Fn(ActionId) -> String,
    opts: &DotOptions,
    out: W,
) -> io::Result<W> {
    let maximal: u64 = [
        LeafKind::Deadlock,
        LeafKind::Termination,
        LeafKind::Cutoff,
        LeafKind::Fault,
    ]
    .iter()
    .map(|k| tree.leaves(*k))
    .sum();
    let mut summary = format!(
        "QPOR exploration tree: {}, {} ({} deadlock, {} terminated, {} cutoff leaf, {} fault), {}",
        plural(tree.calls() as usize, "call", "calls"),
        plural(
            maximal as usize,
            "maximal configuration",
            "maximal configurations"
        ),
        tree.leaves(LeafKind::Deadlock),
        tree.leaves(LeafKind::Termination),
        tree.leaves(LeafKind::Cutoff),
        tree.leaves(LeafKind::Fault),
        plural(tree.leaves(LeafKind::Ssb) as usize, "SSB", "SSBs"),
    );
    summary.push_str("\nleft: C ∪ {e}, labelled with e's action; right (dashed): D ∪ {e}, labelled |J \\ C|");
    let title = titled(opts, summary);
    let mut w = DotWriter::digraph(out, "exploration tree")?;
    common_defaults(&mut w, Some(&title), &[("ordering", "out")])?;
    for (i, n) in tree.nodes().iter().enumerate() {
        let id = format!("n{i}");
        match n.leaf {
            Some(kind) => w.node(&id, &leaf_attrs(kind))?,
            None if n.has_children => w.node(
                &id,
                &[
                    ("shape", "circle"),
                    ("width", "0.3"),
                    ("fixedsize", "false"),
                    ("label", &i.to_string()),
                ],
            )?,
            None => w.node(
                &id,
                &[
                    ("shape", "circle"),
                    ("style", "dotted"),
                    ("label", &format!("{i}\nstopped")),
                ],
            )?,
        }
    }
    for (i, n) in tree.nodes().iter().enumerate() {
        let Some(p) = n.parent else { continue };
        let (from, to) = (format!("n{p}"), format!("n{i}"));
        match n.branch {
            Branch::Root => {}
            Branch::Left(a) => w.edge(&from, &to, &[("label", &action_name(a))])?,
            Branch::Right { alternative } => w.edge(
                &from,
                &to,
                &[
                    ("style", "dashed"),
                    ("label", &format!("|J \\ C| = {alternative}")),
                ],
            )?,
        }
    }
    let drawn = tree.nodes().len() as u64;
    if drawn < tree.calls() {
        w.note(
            "note_truncated",
            &format!(
                "not drawn: {} of {}\n(--max-events {drawn})",
                tree.calls() - drawn,
                plural(tree.calls() as usize, "call", "calls")
            ),
        )?;
    }
    w.finish()
}

#[cfg(test)]
mod test {
    use super::*;

    /// Root → left a0 → leaf; back, alternative → right → left a1 → leaf `last`.
    fn record(t: &mut TreeRecorder, last: LeafKind) {
        t.left(EventId(0), ActionId(0));
        t.left(EventId(1), ActionId(1));
        t.leaf(LeafKind::Termination);
        t.up(1);
        t.right(0, EventId(0), &[EventId(2)]);
        t.left(EventId(2), ActionId(2));
        t.leaf(last);
    }

    /// The tree of [`record`] ending in an SSB, then up twice.
    fn small() -> TreeRecorder {
        let mut t = TreeRecorder::new(None);
        record(&mut t, LeafKind::Ssb);
        t.up(0);
        t
    }

    #[test]
    fn recorder_builds_the_binary_tree() {
        let t = small();
        assert_eq!(t.calls(), 5);
        let shape: Vec<(Option<u32>, Branch, u32)> =
            t.nodes().iter().map(|n| (n.parent, n.branch, n.depth)).collect();
        assert_eq!(
            shape,
            vec![
                (None, Branch::Root, 0),
                (Some(0), Branch::Left(ActionId(0)), 1),
                (Some(1), Branch::Left(ActionId(1)), 2),
                (Some(0), Branch::Right { alternative: 1 }, 0),
                (Some(3), Branch::Left(ActionId(2)), 1),
            ]
        );
        assert_eq!(t.nodes()[2].leaf, Some(LeafKind::Termination));
        assert_eq!(t.nodes()[4].leaf, Some(LeafKind::Ssb));
        assert_eq!(t.leaves(LeafKind::Ssb), 1);
    }

    #[test]
    fn recorder_limit_keeps_a_rooted_subtree_and_counts_the_rest() {
        let mut t = TreeRecorder::new(Some(3));
        record(&mut t, LeafKind::Deadlock);
        assert_eq!(t.nodes().len(), 3);
        assert_eq!(t.calls(), 5);
        assert_eq!(t.leaves(LeafKind::Deadlock), 1);
        let text = String::from_utf8(
            write_tree(&t, &|a| format!("a{}", a.0), &DotOptions::default(), Vec::new()).unwrap(),
        )
        .unwrap();
        assert!(text.contains("not drawn: 2 of 5 calls"), "{text}");
    }

    #[test]
    fn edges_are_labelled_with_actions_and_alternative_sizes() {
        let text = String::from_utf8(
            write_tree(
                &small(),
                &|a| format!("act {}", a.0),
                &DotOptions::default(),
                Vec::new(),
            )
            .unwrap(),
        )
        .unwrap();
        assert!(text.contains("\"n0\" -> \"n1\" [label=\"act 0\"];"), "{text}");
        assert!(
            text.contains("\"n0\" -> \"n3\" [style=\"dashed\", label=\"|J \\\\ C| = 1\"];"),
            "{text}"
        );
        assert_eq!(text.matches(" -> ").count(), 4);
    }
}
