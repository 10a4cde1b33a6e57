//! The end of the document: reference nodes followed to their places and transitions,
//! arcs attached to them, and the net built.

use super::symbols::SymKind;
use super::{ParseError, Parser, Pos};
use crate::system::net::{Net, PlaceId, TransId};
use hashbrown::HashTable;

/// A node of the net, as an arc end.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Node {
    Place(u32),
    Transition(u32),
}

/// Progress of resolving a reference node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Resolution {
    Unvisited,
    /// On the chain being followed: meeting it again closes a cycle.
    Active,
    Done(Node),
}

/// An arc attached to its transition: (transition, 0 = input / 1 = output, place, weight,
/// index in the file).
type ResolvedArc = (u32, u8, u32, u32, u32);

impl Parser<'_> {
    pub(super) fn finish(mut self, eof: Pos) -> Result<(Net, Vec<String>), ParseError> {
        if let Some(open) = self.stack.last() {
            let name = &self.open_names[open.name_start..];
            return Err(self.error(
                eof,
                format!(
                    "the file ends inside <{name}> (opened at line {}, column {}): the document is \
                     truncated or an end tag is missing",
                    open.pos.line, open.pos.col
                ),
            ));
        }
        let Some(root) = self.root_pos else {
            return Err(self.error(
                eof,
                "the file holds no XML element: expected a PNML document (<pnml> holding a <net>)",
            ));
        };
        if self.nets == 0 {
            return Err(self.error(root, "the PNML document holds no <net> element"));
        }
        if let Some(second) = self.second_net {
            let first = self.net_id.clone().unwrap_or_default();
            let message = format!("the file holds {} nets; using the first ({first})", self.nets);
            self.warn(second, message);
        }
        let resolution = self.resolve_references()?;
        let arcs = self.resolve_arcs(&resolution)?;
        let nupn = self.resolve_nupn(&resolution)?;
        // The net is about to be built next to what it is built from: free what is no
        // longer needed first.
        drop(resolution);
        self.arcs = Vec::new();
        self.syms.table = HashTable::new();
        self.syms.syms = Vec::new();

        let mut net = Net {
            name: self.net_name.take().or(self.net_id.take()),
            places: Vec::with_capacity(self.places.len()),
            transitions: Vec::with_capacity(self.transitions.len()),
            nupn,
        };
        for d in self.places.drain(..) {
            let id = std::mem::take(&mut self.syms.ids[d.sym as usize]);
            net.add_place(id, d.name, d.initial);
        }
        for d in self.transitions.drain(..) {
            let id = std::mem::take(&mut self.syms.ids[d.sym as usize]);
            net.add_transition(id, d.name);
        }
        // Sorted by (transition, direction, place): each add appends to a sorted list.
        for (t, out, p, w, _) in arcs {
            if out == 0 {
                net.add_pre(TransId(t), PlaceId(p), w);
            } else {
                net.add_post(TransId(t), PlaceId(p), w);
            }
        }
        Ok((net, self.warnings))
    }

    /// What symbol `s` finally stands for, once references are resolved.
    pub(super) fn node_of(&self, resolution: &[Resolution], s: u32) -> Option<Node> {
        match self.syms.kind(s) {
            SymKind::Undeclared | SymKind::Element(_) => None,
            SymKind::Place(i) => Some(Node::Place(i)),
            SymKind::Transition(i) => Some(Node::Transition(i)),
            SymKind::RefPlace(_) | SymKind::RefTransition(_) => match resolution[s as usize] {
                Resolution::Done(node) => Some(node),
                Resolution::Unvisited | Resolution::Active => None,
            },
        }
    }

    /// Follows every reference chain to its place or transition, in file order, each symbol
    /// once.
    fn resolve_references(&self) -> Result<Vec<Resolution>, ParseError> {
        let mut resolution = vec![Resolution::Unvisited; self.syms.syms.len()];
        let mut chain: Vec<u32> = Vec::new();
        for &r in &self.refs {
            if resolution[r as usize] != Resolution::Unvisited {
                continue;
            }
            chain.clear();
            let mut cur = r;
            let node = loop {
                match resolution[cur as usize] {
                    Resolution::Done(node) => break node,
                    Resolution::Active => {
                        let mut ids: Vec<&str> = chain.iter().map(|&s| self.syms.id(s)).collect();
                        ids.push(self.syms.id(cur));
                        return Err(self.error(
                            self.syms.pos(r),
                            format!(
                                "the reference nodes {} form a cycle; a reference must lead to a place \
                                 or a transition",
                                ids.join(" → ")
                            ),
                        ));
                    }
                    Resolution::Unvisited => {}
                }
                match self.syms.kind(cur) {
                    SymKind::Place(i) => break Node::Place(i),
                    SymKind::Transition(i) => break Node::Transition(i),
                    SymKind::Undeclared | SymKind::Element(_) => {
                        let from = *chain
                            .last()
                            .expect("[qpor internal bug] a reference chain starts at a reference");
                        return Err(self.bad_reference(from, cur, "a node of the net"));
                    }
                    SymKind::RefPlace(next) | SymKind::RefTransition(next) => {
                        resolution[cur as usize] = Resolution::Active;
                        chain.push(cur);
                        cur = next;
                    }
                }
            };
            for &s in &chain {
                let (wanted, ok) = match self.syms.kind(s) {
                    SymKind::RefPlace(_) => ("place", matches!(node, Node::Place(_))),
                    _ => ("transition", matches!(node, Node::Transition(_))),
                };
                if !ok {
                    return Err(self.bad_reference(s, cur, &format!("a {wanted}")));
                }
                resolution[s as usize] = Resolution::Done(node);
            }
        }
        Ok(resolution)
    }

    /// The error of the reference node `from`, which leads to `to`, not to `wanted`.
    fn bad_reference(&self, from: u32, to: u32, wanted: &str) -> ParseError {
        self.error(
            self.syms.pos(from),
            format!(
                "{} {} refers to {}, which is not {wanted}",
                self.syms.kind(from).noun(),
                self.syms.id(from),
                self.syms.id(to)
            ),
        )
    }

    /// Attaches every arc to its transition, sorted by (transition, direction, place), with
    /// parallel arcs summed into one.
    fn resolve_arcs(&mut self, resolution: &[Resolution]) -> Result<Vec<ResolvedArc>, ParseError> {
        let mut out = Vec::with_capacity(self.arcs.len());
        for (k, a) in self.arcs.iter().enumerate() {
            let (s, t) = (self.syms.id(a.source), self.syms.id(a.target));
            let unknown = |end: &str, id: &str| {
                self.error(
                    a.pos(),
                    format!(
                        "the arc from {s} to {t} {end} {id}, which is not a place or transition of the net"
                    ),
                )
            };
            let source = self
                .node_of(resolution, a.source)
                .ok_or_else(|| unknown("starts at", s))?;
            let target = self
                .node_of(resolution, a.target)
                .ok_or_else(|| unknown("goes to", t))?;
            let between = |what: &str| {
                self.error(
                    a.pos(),
                    format!(
                        "the arc from {s} to {t} joins two {what}; an arc must join a place and a transition"
                    ),
                )
            };
            out.push(match (source, target) {
                (Node::Place(p), Node::Transition(tr)) => (tr, 0, p, a.weight, k as u32),
                (Node::Transition(tr), Node::Place(p)) => (tr, 1, p, a.weight, k as u32),
                (Node::Place(_), Node::Place(_)) => return Err(between("places")),
                (Node::Transition(_), Node::Transition(_)) => return Err(between("transitions")),
            });
        }
        // File order within each (transition, direction, place): the first arc comes first.
        out.sort_unstable_by_key(|&(t, dir, p, _, k)| (t, dir, p, k));
        self.sum_parallel_arcs(out)
    }

    /// Merges the arcs that join the same place and transition in the same direction into
    /// one arc whose weight is their sum, as LoLA and verifypn read them: such arcs are
    /// usually generated by a tool that emits one arc per use of a place, and summing them
    /// is the only firing rule that agrees with those tools. The net gets one warning, at
    /// the repeat that comes first in the file. `sorted` is sorted by (transition,
    /// direction, place, file index).
    fn sum_parallel_arcs(&mut self, sorted: Vec<ResolvedArc>) -> Result<Vec<ResolvedArc>, ParseError> {
        let mut out: Vec<ResolvedArc> = Vec::with_capacity(sorted.len());
        // Arcs in groups of two or more, such groups, and the repeat that comes first in the
        // file with the file index of the arc it repeats.
        let (mut parallel, mut groups) = (0usize, 0usize);
        let mut first_repeat: Option<(u32, ResolvedArc)> = None;
        let mut group_size = 0usize;
        for arc in sorted {
            let Some(last) = out
                .last_mut()
                .filter(|l| (l.0, l.1, l.2) == (arc.0, arc.1, arc.2))
            else {
                out.push(arc);
                group_size = 1;
                continue;
            };
            group_size += 1;
            if group_size == 2 {
                groups += 1;
                parallel += 2;
                if first_repeat.is_none_or(|(_, later)| arc.4 < later.4) {
                    first_repeat = Some((last.4, arc));
                }
            } else {
                parallel += 1;
            }
            let Some(sum) = last.3.checked_add(arc.3) else {
                let a = &self.arcs[arc.4 as usize];
                return Err(self.error(
                    a.pos(),
                    format!(
                        "the weights of the parallel arcs from {} to {} add up to more than {}",
                        self.syms.id(a.source),
                        self.syms.id(a.target),
                        u32::MAX
                    ),
                ));
            };
            last.3 = sum;
        }
        if let Some((first, (t, dir, p, _, later))) = first_repeat {
            // The nodes themselves, even where the arcs name them through references.
            let place = self.syms.id(self.places[p as usize].sym);
            let transition = self.syms.id(self.transitions[t as usize].sym);
            let (source, target) = if dir == 0 {
                (place, transition)
            } else {
                (transition, place)
            };
            let f = self.arcs[first as usize].pos();
            let message = format!(
                "{parallel} parallel arcs summed into {} (first: {source} → {target}, here and at \
                 line {}, column {})",
                if groups == 1 {
                    "one weight".to_string()
                } else {
                    format!("{groups} weights")
                },
                f.line,
                f.col
            );
            let at = self.arcs[later as usize].pos();
            self.warn(at, message);
        }
        Ok(out)
    }
}
