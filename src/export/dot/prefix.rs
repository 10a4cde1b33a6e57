//! The `prefix` view: a complete finite prefix drawn as an occurrence net (docs/drawing.md;
//! docs/paper.md#drawing-prefixes for how Cunf draws them).
//!
//! - Conditions are circles `c<i>` labelled with their place (or `component=state`).
//! - Events are boxes `e<i>` labelled with their transition (action) and id.
//! - Cutoff events are red octagons, filled pink, whose label names the corresponding
//!   event (`corr e3`, or `corr ∅` for the empty configuration). There is no edge to the
//!   corresponding event: even with `constraint=false`, such back edges made `dot`'s
//!   crossing minimisation ten times slower on cyclic nets (Railroad-PT-005: 40 s instead
//!   of 3 s for 120 events), for a relation the label already states.
//! - Arcs: `c → e` for every preset condition, `e → c` for every postset condition.
//! - The initial cut (conditions without producer) is one `rank=source` group, at the top.
//! - With owners (programs), one cluster `cluster_o<k>` per owner, in order of first
//!   appearance, holding its events and the conditions that only its events produce and
//!   consume (a process's control points; a lock only one process takes). Conditions
//!   shared by several owners stay outside. `newrank=true` lets the initial cut line up
//!   across clusters.
//! - A highlighted event set is filled gold; when the set is a configuration, the
//!   conditions of its cut are filled light gold too (for a deadlock: the dead marking).
//!
//! So the picture has one node per event and condition and one edge per arc
//! (Σ |•e| + |e•|).
//! With `max_events = N` only the first N events are drawn — a causally closed set, since
//! events are listed causes first — with the conditions they produce and the initial cut,
//! and a note tells how many events and conditions were left out. A prefix whose builder
//! stopped early ([`DotOptions::incomplete`], e.g. `qpor dot --max-events N` stopping the
//! builder at N events) is titled "incomplete prefix", counts only what was built, and its
//! note says the rest was not built, without claiming how large the rest is.

use super::{
    common_defaults, plural, titled, DotOptions, DotWriter, Incomplete, CUTOFF_COLOR, CUTOFF_FILL,
    HIGHLIGHT_CUT_FILL, HIGHLIGHT_FILL,
};
use crate::unfold::prefix::Prefix;
use std::io::{self, Write};

/// The label of event `i`: its action, its id and, for a cutoff, the corresponding event.
pub(crate) fn event_label(prefix: &Prefix, i: usize) -> String {
    let e = &prefix.events[i];
    match e.cutoff {
        None => format!("{}\ne{i}", e.label),
        Some(Some(corr)) => format!("{}\ne{i} cutoff, corr e{corr}", e.label),
        Some(None) => format!("{}\ne{i} cutoff, corr ∅", e.label),
    }
}

/// Writes the node of event `i`, styled as a regular or cutoff event, filled when
/// `highlighted`.
pub(crate) fn event_node<W: Write>(
    w: &mut DotWriter<W>,
    prefix: &Prefix,
    i: usize,
    highlighted: bool,
) -> io::Result<()> {
    let label = event_label(prefix, i);
    let id = format!("e{i}");
    let cutoff = prefix.events[i].cutoff.is_some();
    match (cutoff, highlighted) {
        (false, false) => w.node(&id, &[("shape", "box"), ("label", &label)]),
        (false, true) => w.node(
            &id,
            &[
                ("shape", "box"),
                ("style", "filled"),
                ("fillcolor", HIGHLIGHT_FILL),
                ("label", &label),
            ],
        ),
        (true, hl) => w.node(
            &id,
            &[
                ("shape", "octagon"),
                ("style", "filled"),
                ("color", CUTOFF_COLOR),
                ("fillcolor", if hl { HIGHLIGHT_FILL } else { CUTOFF_FILL }),
                ("label", &label),
            ],
        ),
    }
}

/// Groups events by owner: the owners in order of first appearance among the first `n`
/// events, and each event's owner index.
pub(crate) fn owner_clusters(prefix: &Prefix, n: usize) -> (Vec<&str>, Vec<Option<usize>>) {
    let mut owners: Vec<&str> = Vec::new();
    let mut of_event = Vec::with_capacity(n);
    for e in &prefix.events[..n] {
        of_event.push(
            e.owner
                .as_deref()
                .map(|o| match owners.iter().position(|x| *x == o) {
                    Some(k) => k,
                    None => {
                        owners.push(o);
                        owners.len() - 1
                    }
                }),
        );
    }
    (owners, of_event)
}

/// Opens the cluster of owner `k`.
pub(crate) fn open_owner_cluster<W: Write>(w: &mut DotWriter<W>, k: usize, owner: &str) -> io::Result<()> {
    w.open_subgraph(&format!("cluster_o{k}"))?;
    w.attr("label", owner)?;
    w.attr("style", "rounded")?;
    w.attr("color", "gray55")
}

/// The highlighted events as a membership table over the first `n` events (ids beyond are
/// ignored).
pub(crate) fn highlight_mask(opts: &DotOptions, n: usize) -> Vec<bool> {
    let mut mask = vec![false; n];
    if let Some(h) = &opts.highlight {
        for &e in &h.events {
            if let Some(m) = mask.get_mut(e as usize) {
                *m = true;
            }
        }
    }
    mask
}

/// The cut of `set` (a membership table over events) when it is a configuration: causally
/// closed and conflict-free. Returns a membership table over conditions.
fn configuration_cut(prefix: &Prefix, set: &[bool]) -> Option<Vec<bool>> {
    let mut consumed = vec![false; prefix.conditions.len()];
    let mut cut: Vec<bool> = prefix.conditions.iter().map(|c| c.producer.is_none()).collect();
    for (i, e) in prefix.events.iter().enumerate() {
        if !set.get(i).copied().unwrap_or(false) {
            continue;
        }
        for &c in &e.preset {
            let c = c as usize;
            let producer_in = match prefix.conditions.get(c)?.producer {
                None => true,
                Some(p) => set.get(p as usize).copied().unwrap_or(false),
            };
            if !producer_in || std::mem::replace(&mut consumed[c], true) {
                return None;
            }
        }
        for &c in &e.postset {
            *cut.get_mut(c as usize)? = true;
        }
    }
    for (c, used) in consumed.iter().enumerate() {
        if *used {
            cut[c] = false;
        }
    }
    Some(cut)
}

/// Writes the `prefix` view of `prefix` to `out`.
pub fn write_prefix<W: Write>(prefix: &Prefix, opts: &DotOptions, out: W) -> io::Result<W> {
    let n = opts.max_events.unwrap_or(usize::MAX).min(prefix.events.len());
    let layout = Layout::new(prefix, n);
    let mask = highlight_mask(opts, n);
    // The cut is filled only for a non-empty set: the cut of ∅ is the initial cut, which
    // says nothing when nothing was highlighted (e.g. a model without deadlock).
    let cut = opts
        .highlight
        .as_ref()
        .filter(|h| !h.events.is_empty())
        .and_then(|_| configuration_cut(prefix, &mask))
        .unwrap_or_default();
    let mut w = DotWriter::digraph(out, "prefix")?;
    common_defaults(&mut w, Some(&prefix_title(prefix, opts)), &[("newrank", "true")])?;
    let write_condition = |w: &mut DotWriter<W>, ci: usize| -> io::Result<()> {
        let label = &prefix.conditions[ci].label;
        let id = format!("c{ci}");
        if cut.get(ci).copied().unwrap_or(false) {
            let filled = [
                ("shape", "circle"),
                ("style", "filled"),
                ("fillcolor", HIGHLIGHT_CUT_FILL),
                ("label", label.as_str()),
            ];
            w.node(&id, &filled)
        } else {
            w.node(&id, &[("shape", "circle"), ("label", label)])
        }
    };
    let cluster_conds = members(&layout.cond_owner, layout.owners.len());
    let cluster_events = members(&layout.event_owner, layout.owners.len());
    for (k, owner) in layout.owners.iter().enumerate() {
        open_owner_cluster(&mut w, k, owner)?;
        for &ci in &cluster_conds[k] {
            write_condition(&mut w, ci)?;
        }
        for &i in &cluster_events[k] {
            event_node(&mut w, prefix, i, mask[i])?;
        }
        w.close()?;
    }
    for ci in 0..prefix.conditions.len() {
        if layout.drawn_cond[ci] && layout.cond_owner[ci].is_none() {
            write_condition(&mut w, ci)?;
        }
    }
    for (i, owner) in layout.event_owner.iter().enumerate() {
        if owner.is_none() {
            event_node(&mut w, prefix, i, mask[i])?;
        }
    }
    write_arcs(&mut w, prefix, n)?;
    let notes = prefix_notes(prefix, opts, n, layout.drawn_cond.iter().filter(|d| **d).count());
    if !notes.is_empty() {
        w.note("note_truncated", &notes.join("\n"))?;
    }
    w.finish()
}

/// Which conditions are drawn and which owner's cluster each drawn node joins.
struct Layout<'p> {
    drawn_cond: Vec<bool>,
    owners: Vec<&'p str>,
    event_owner: Vec<Option<usize>>,
    cond_owner: Vec<Option<usize>>,
}

impl<'p> Layout<'p> {
    /// The layout of the first `n` events of `prefix` and their conditions.
    fn new(prefix: &'p Prefix, n: usize) -> Layout<'p> {
        let drawn_cond: Vec<bool> = prefix
            .conditions
            .iter()
            .map(|c| c.producer.is_none_or(|p| (p as usize) < n))
            .collect();
        let mut consumers: Vec<Vec<u32>> = vec![Vec::new(); prefix.conditions.len()];
        for (i, e) in prefix.events[..n].iter().enumerate() {
            for &c in &e.preset {
                if let Some(list) = consumers.get_mut(c as usize) {
                    list.push(i as u32);
                }
            }
        }
        let (owners, event_owner) = owner_clusters(prefix, n);
        // A condition joins an owner's cluster when every drawn event touching it is that
        // owner's.
        let cond_owner = prefix
            .conditions
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                if !drawn_cond[ci] {
                    return None;
                }
                let mut touching = c.producer.into_iter().chain(consumers[ci].iter().copied());
                let first = event_owner.get(touching.next()? as usize).copied().flatten()?;
                touching
                    .all(|e| event_owner.get(e as usize).copied().flatten() == Some(first))
                    .then_some(first)
            })
            .collect();
        Layout {
            drawn_cond,
            owners,
            event_owner,
            cond_owner,
        }
    }
}

/// The members of each of `clusters` clusters, in order, given each item's cluster.
fn members(owner: &[Option<usize>], clusters: usize) -> Vec<Vec<usize>> {
    let mut members = vec![Vec::new(); clusters];
    for (i, o) in owner.iter().enumerate() {
        if let Some(k) = o {
            members[*k].push(i);
        }
    }
    members
}

/// The title: what the prefix holds, and what is filled.
fn prefix_title(prefix: &Prefix, opts: &DotOptions) -> String {
    let incomplete = opts.incomplete.is_some();
    let mut title = titled(
        opts,
        format!(
            "{}: {} ({}), {}{}",
            if incomplete { "incomplete prefix" } else { "prefix" },
            plural(prefix.events.len(), "event", "events"),
            plural(prefix.cutoffs(), "cutoff", "cutoffs"),
            plural(prefix.conditions.len(), "condition", "conditions"),
            if incomplete { " built" } else { "" }
        ),
    );
    if let Some(h) = &opts.highlight {
        title.push_str(&format!("\nfilled: {}", h.caption));
    }
    title
}

/// The arcs of the first `n` events, conditions of the initial cut on the top row.
fn write_arcs<W: Write>(w: &mut DotWriter<W>, prefix: &Prefix, n: usize) -> io::Result<()> {
    for (i, e) in prefix.events[..n].iter().enumerate() {
        let eid = format!("e{i}");
        for &c in &e.preset {
            w.edge(&format!("c{c}"), &eid, &[])?;
        }
        for &c in &e.postset {
            w.edge(&eid, &format!("c{c}"), &[])?;
        }
    }
    let initial: Vec<u32> = prefix.initial_conditions().collect();
    if !initial.is_empty() {
        w.open_group()?;
        w.attr("rank", "source")?;
        for c in initial {
            w.node(&format!("c{c}"), &[])?;
        }
        w.close()?;
    }
    Ok(())
}

/// What the picture leaves out: events past `--max-events` (`n` drawn, with
/// `drawn_conditions`), and what a stopped builder did not build.
fn prefix_notes(prefix: &Prefix, opts: &DotOptions, n: usize, drawn_conditions: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if n < prefix.events.len() {
        let built = if opts.incomplete.is_some() { " built" } else { "" };
        notes.push(format!(
            "not drawn: {} of {}{built} and {} of {}{built}\n(--max-events {n})",
            prefix.events.len() - n,
            plural(prefix.events.len(), "event", "events"),
            prefix.conditions.len() - drawn_conditions,
            plural(prefix.conditions.len(), "condition", "conditions")
        ));
    }
    if let Some(inc) = &opts.incomplete {
        notes.push(incomplete_note(prefix.events.len(), inc));
    }
    notes
}

/// The note of a picture of a prefix whose builder stopped after `built` events: what it
/// did not build, as bounds only (the complete prefix was never computed).
pub(crate) fn incomplete_note(built: usize, inc: &Incomplete) -> String {
    // A queued possible extension is an event of the complete prefix not built yet.
    match inc.pending {
        0 => format!(
            "not built, so not drawn: whatever the prefix has beyond these {}\n(prefix builder: {})",
            plural(built, "event", "events"),
            inc.why
        ),
        k => format!(
            "not built, so not drawn: the rest of the prefix (more than {} in all)\n(prefix builder: {}, {} still queued)",
            plural(built, "event", "events"),
            inc.why,
            plural(k as usize, "possible extension", "possible extensions")
        ),
    }
}
