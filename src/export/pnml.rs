//! PNML writer: a [`Net`] as a PNML 2009 P/T net document, for [`crate::parse::pnml`] and for
//! other tools.
//!
//! The document holds one `net` of type ptnet with one `page`: places (name, and
//! `initialMarking` when positive), transitions, arcs (`inscription` when the weight is
//! not one) and, when the net has one, the NUPN block, so that reading the file back gives
//! the same [`Net`]. The output is a function of the net alone: the same net gives the
//! same bytes.
//!
//! # Ids
//! PNML ids are `xs:ID`s: a letter or `_`, then letters, digits, `_`, `-` and `.`, unique in
//! the document. A node keeps its id when it is such a name and no earlier node has it;
//! otherwise it gets one derived from it (`12` → `p12` for a place, `t12` for a
//! transition, invalid characters → `_`), made unique with a `_2`, `_3`… suffix. The net's id
//! comes from its name the same way. Arcs get `a1`, `a2`… skipping ids already in use. NUPN
//! unit ids, which live apart from node ids, are kept when valid and unique among units.
//! So nets read from PNML keep their ids; ll_net nets, whose ids are numbers, do not.
//!
//! # Read arcs
//! P/T nets in PNML have no read arcs. A read arc `t — p` is written as a self-loop with the
//! same interleaving semantics: when `t` already consumes from `p` (weight ≥ 1), `t` is only
//! enabled with a token on `p` anyway and the read arc adds nothing; otherwise `t` gets an
//! input arc of weight 1 from `p` and one more token on its output arc to `p`. The net read
//! back has the same reachable markings and firing sequences, but no read arcs: two
//! transitions reading one place are no longer independent.
//!
//! # Names
//! Names are written as text with `&`, `<` and `>` escaped, and a carriage return as the
//! character reference `&#13;`, which survives the end-of-line normalisation of XML readers.
//! Characters that XML 1.0 cannot carry at all (most control characters) become U+FFFD.
//! A net without a name is written with the id `net`, which is the name it gets back.

use crate::parse::pnml::{PNML_NAMESPACE, PTNET_TYPE};
use crate::system::net::{Net, PlaceId, Transition};
use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Writes `net` as a PNML P/T net document.
///
/// Fails with [`io::ErrorKind::InvalidInput`], before writing anything, when the net breaks
/// its own invariants (an arc or a NUPN unit naming a place that does not exist, a subunit
/// or root out of range) or when a read arc cannot become a self-loop because the output
/// arc already has the largest weight.
///
/// ```
/// use qpor::net::Net;
/// let mut net = Net::default();
/// let p = net.add_place("p", Some("idle & ready".into()), 1);
/// let t = net.add_transition("t", None);
/// net.add_pre(t, p, 2);
/// let mut out = Vec::new();
/// qpor::formats::pnml::write(&net, &mut out).unwrap();
/// let (back, _) = qpor::formats::pnml::read(out.as_slice(), "back.pnml").unwrap();
/// assert_eq!(back.places, net.places);
/// assert_eq!(back.transitions, net.transitions);
/// ```
pub fn write<W: Write>(net: &Net, out: W) -> io::Result<()> {
    let arcs = arcs_to_write(net)?;
    check_nupn(net)?;
    let ids = Ids::assign(net);
    let mut w = io::BufWriter::new(out);

    writeln!(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(w, "<pnml xmlns=\"{PNML_NAMESPACE}\">")?;
    writeln!(w, "  <net id=\"{}\" type=\"{PTNET_TYPE}\">", ids.net)?;
    if let Some(name) = &net.name {
        write!(w, "    <name><text>")?;
        escape(&mut w, name, false)?;
        writeln!(w, "</text></name>")?;
    }
    writeln!(w, "    <page id=\"{}\">", ids.page)?;
    for (i, p) in net.places.iter().enumerate() {
        write!(w, "      <place id=\"{}\"", ids.places[i])?;
        if p.name.is_none() && p.initial == 0 {
            writeln!(w, "/>")?;
            continue;
        }
        writeln!(w, ">")?;
        write_name(&mut w, p.name.as_deref())?;
        if p.initial > 0 {
            writeln!(
                w,
                "        <initialMarking><text>{}</text></initialMarking>",
                p.initial
            )?;
        }
        writeln!(w, "      </place>")?;
    }
    for (i, t) in net.transitions.iter().enumerate() {
        write!(w, "      <transition id=\"{}\"", ids.transitions[i])?;
        if t.name.is_none() {
            writeln!(w, "/>")?;
            continue;
        }
        writeln!(w, ">")?;
        write_name(&mut w, t.name.as_deref())?;
        writeln!(w, "      </transition>")?;
    }
    let mut arc_id = ArcIds::default();
    let mut arc_count = 0usize;
    for (ti, (pre, post)) in arcs.iter().enumerate() {
        let t = &ids.transitions[ti];
        for &(p, weight) in pre {
            write_arc(&mut w, arc_id.next(&ids), &ids.places[p.index()], t, weight)?;
        }
        for &(p, weight) in post {
            write_arc(&mut w, arc_id.next(&ids), t, &ids.places[p.index()], weight)?;
        }
        arc_count += pre.len() + post.len();
    }
    if let Some(nupn) = &net.nupn {
        writeln!(w, "      <toolspecific tool=\"nupn\" version=\"1.1\">")?;
        writeln!(
            w,
            "        <size places=\"{}\" transitions=\"{}\" arcs=\"{arc_count}\"/>",
            net.places.len(),
            net.transitions.len()
        )?;
        writeln!(
            w,
            "        <structure units=\"{}\" root=\"{}\" safe=\"{}\">",
            nupn.units.len(),
            ids.units[nupn.root],
            nupn.safe
        )?;
        for (ui, unit) in nupn.units.iter().enumerate() {
            writeln!(w, "          <unit id=\"{}\">", ids.units[ui])?;
            write_list(
                &mut w,
                "places",
                unit.places.iter().map(|p| &*ids.places[p.index()]),
            )?;
            write_list(&mut w, "subunits", unit.subunits.iter().map(|&u| &*ids.units[u]))?;
            writeln!(w, "          </unit>")?;
        }
        writeln!(w, "        </structure>")?;
        writeln!(w, "      </toolspecific>")?;
    }
    writeln!(w, "    </page>")?;
    writeln!(w, "  </net>")?;
    writeln!(w, "</pnml>")?;
    w.flush()
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Per transition, its input and output arcs as written: sorted by place, merged, without
/// weight-0 entries (which mean no arc), read arcs turned into self-loops.
type WrittenArcs = Vec<(Vec<(PlaceId, u32)>, Vec<(PlaceId, u32)>)>;

fn arcs_to_write(net: &Net) -> io::Result<WrittenArcs> {
    let places = net.places.len();
    let mut all = Vec::with_capacity(net.transitions.len());
    for t in &net.transitions {
        let check = |p: PlaceId| {
            if p.index() < places {
                Ok(p)
            } else {
                Err(invalid(format!(
                    "transition {} has an arc to place #{}, but the net has {places} places",
                    t.label(),
                    p.0
                )))
            }
        };
        let mut pre = normalised(&t.pre, t)?;
        let mut post = normalised(&t.post, t)?;
        for &(p, _) in pre.iter().chain(post.iter()) {
            check(p)?;
        }
        for &p in &t.read {
            check(p)?;
            if let Err(i) = pre.binary_search_by_key(&p, |(q, _)| *q) {
                pre.insert(i, (p, 1));
                match post.binary_search_by_key(&p, |(q, _)| *q) {
                    Err(j) => post.insert(j, (p, 1)),
                    Ok(j) => {
                        post[j].1 = post[j].1.checked_add(1).ok_or_else(|| {
                            invalid(format!(
                                "transition {} reads place {} and already puts {} tokens on it: the \
                                 self-loop standing for the read arc would overflow the weight",
                                t.label(),
                                net.places[p.index()].label(),
                                u32::MAX
                            ))
                        })?
                    }
                }
            }
        }
        all.push((pre, post));
    }
    Ok(all)
}

/// The arc list sorted by place, entries for one place summed, weight-0 entries dropped:
/// the lists of a [`Net`] already are, but their fields are public.
fn normalised(arcs: &[(PlaceId, u32)], t: &Transition) -> io::Result<Vec<(PlaceId, u32)>> {
    let mut v: Vec<(PlaceId, u32)> = arcs.iter().copied().filter(|&(_, w)| w > 0).collect();
    v.sort_by_key(|&(p, _)| p);
    let mut merged: Vec<(PlaceId, u32)> = Vec::with_capacity(v.len());
    for (p, w) in v {
        match merged.last_mut() {
            Some(last) if last.0 == p => {
                last.1 = last.1.checked_add(w).ok_or_else(|| {
                    invalid(format!(
                        "transition {} has arcs of total weight above {}",
                        t.label(),
                        u32::MAX
                    ))
                })?
            }
            _ => merged.push((p, w)),
        }
    }
    Ok(merged)
}

fn check_nupn(net: &Net) -> io::Result<()> {
    let Some(nupn) = &net.nupn else {
        return Ok(());
    };
    let units = nupn.units.len();
    if nupn.root >= units {
        return Err(invalid(format!(
            "the NUPN root is unit #{}, but there are {units} units",
            nupn.root
        )));
    }
    for u in &nupn.units {
        if let Some(p) = u.places.iter().find(|p| p.index() >= net.places.len()) {
            return Err(invalid(format!(
                "NUPN unit {} holds place #{}, but the net has {} places",
                u.id,
                p.0,
                net.places.len()
            )));
        }
        if let Some(s) = u.subunits.iter().find(|&&s| s >= units) {
            return Err(invalid(format!(
                "NUPN unit {} has subunit #{s}, but there are {units} units",
                u.id
            )));
        }
    }
    Ok(())
}

fn write_name<W: Write>(w: &mut W, name: Option<&str>) -> io::Result<()> {
    if let Some(name) = name {
        write!(w, "        <name><text>")?;
        escape(w, name, false)?;
        writeln!(w, "</text></name>")?;
    }
    Ok(())
}

fn write_arc<W: Write>(w: &mut W, id: &str, source: &str, target: &str, weight: u32) -> io::Result<()> {
    write!(
        w,
        "      <arc id=\"{id}\" source=\"{source}\" target=\"{target}\""
    )?;
    if weight == 1 {
        writeln!(w, "/>")
    } else {
        writeln!(w, ">")?;
        writeln!(w, "        <inscription><text>{weight}</text></inscription>")?;
        writeln!(w, "      </arc>")
    }
}

fn write_list<'a, W: Write>(w: &mut W, tag: &str, ids: impl Iterator<Item = &'a str>) -> io::Result<()> {
    let mut ids = ids.peekable();
    if ids.peek().is_none() {
        return writeln!(w, "            <{tag}/>");
    }
    write!(w, "            <{tag}>")?;
    for (k, id) in ids.enumerate() {
        if k > 0 {
            w.write_all(b" ")?;
        }
        w.write_all(id.as_bytes())?;
    }
    writeln!(w, "</{tag}>")
}

/// Whether XML 1.0 can carry `c` at all.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Writes `s` as XML character data (or, with `attr`, as a double-quoted attribute value).
fn escape<W: Write>(w: &mut W, s: &str, attr: bool) -> io::Result<()> {
    let mut done = 0;
    for (i, c) in s.char_indices() {
        let replacement = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '\r' => "&#13;",
            '"' if attr => "&quot;",
            // Attribute values have their blanks normalised to spaces; references survive.
            '\t' if attr => "&#9;",
            '\n' if attr => "&#10;",
            c if !is_xml_char(c) => "\u{FFFD}",
            _ => continue,
        };
        w.write_all(&s.as_bytes()[done..i])?;
        w.write_all(replacement.as_bytes())?;
        done = i + c.len_utf8();
    }
    w.write_all(&s.as_bytes()[done..])
}

fn is_name_start(c: char) -> bool {
    c == '_' || c.is_ascii_alphabetic() || (!c.is_ascii() && c.is_alphabetic())
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-' || c == '.'
}

/// Whether `id` can be written as an `xs:ID` (an XML NCName), without escaping.
fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}

/// `id` made into a valid id: invalid characters become `_`, and `prefix` goes in front
/// when the id cannot start a name.
fn sanitised(prefix: char, id: &str) -> String {
    let mut s = String::with_capacity(id.len() + 1);
    if !id.chars().next().is_some_and(is_name_start) {
        s.push(prefix);
    }
    s.extend(id.chars().map(|c| if is_name_char(c) { c } else { '_' }));
    s
}

/// The ids the document uses.
struct Ids<'n> {
    net: String,
    page: String,
    places: Vec<Cow<'n, str>>,
    transitions: Vec<Cow<'n, str>>,
    units: Vec<Cow<'n, str>>,
    /// Node ids kept from the net.
    kept: FxHashSet<&'n str>,
    /// Ids made up by the writer (nodes, net, page).
    made: FxHashSet<String>,
}

impl<'n> Ids<'n> {
    /// The node's own `id` when it is `kept`, else a new one made from it after `letter`.
    fn kept_or_made(&mut self, id: &'n str, kept: bool, letter: char) -> Cow<'n, str> {
        if kept {
            Cow::Borrowed(id)
        } else {
            Cow::Owned(self.make(sanitised(letter, id)))
        }
    }

    fn assign(net: &'n Net) -> Self {
        let mut ids = Ids {
            net: String::new(),
            page: String::new(),
            places: Vec::with_capacity(net.places.len()),
            transitions: Vec::with_capacity(net.transitions.len()),
            units: Vec::new(),
            kept: FxHashSet::default(),
            made: FxHashSet::default(),
        };
        // Ids kept first, so that no made-up id can take one a later node would keep.
        let keep = |kept: &mut FxHashSet<&'n str>, id: &'n str| is_valid_id(id) && kept.insert(id);
        let place_kept: Vec<bool> = net.places.iter().map(|p| keep(&mut ids.kept, &p.id)).collect();
        let trans_kept: Vec<bool> = net
            .transitions
            .iter()
            .map(|t| keep(&mut ids.kept, &t.id))
            .collect();
        for (p, kept) in net.places.iter().zip(place_kept) {
            let id = ids.kept_or_made(&p.id, kept, 'p');
            ids.places.push(id);
        }
        for (t, kept) in net.transitions.iter().zip(trans_kept) {
            let id = ids.kept_or_made(&t.id, kept, 't');
            ids.transitions.push(id);
        }
        ids.net = ids.make(sanitised('n', net.name.as_deref().unwrap_or("net")));
        ids.page = ids.make("page".to_string());

        if let Some(nupn) = &net.nupn {
            let mut seen: FxHashSet<Cow<'n, str>> = FxHashSet::default();
            let kept: Vec<bool> = nupn
                .units
                .iter()
                .map(|u| is_valid_id(&u.id) && seen.insert(Cow::Borrowed(u.id.as_str())))
                .collect();
            for (ui, (u, kept)) in nupn.units.iter().zip(kept).enumerate() {
                if kept {
                    ids.units.push(Cow::Borrowed(u.id.as_str()));
                } else {
                    let id = unique(format!("u{ui}"), |c| seen.contains(c));
                    seen.insert(Cow::Owned(id.clone()));
                    ids.units.push(Cow::Owned(id));
                }
            }
        }
        ids
    }

    fn taken(&self, id: &str) -> bool {
        self.kept.contains(id) || self.made.contains(id)
    }

    /// `base`, or `base_2`, `base_3`… whichever is free first; reserves it.
    fn make(&mut self, base: String) -> String {
        let id = unique(base, |c| self.taken(c));
        self.made.insert(id.clone());
        id
    }
}

fn unique(base: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&base) {
        return base;
    }
    let mut candidate = String::with_capacity(base.len() + 4);
    (2u64..)
        .find_map(|k| {
            candidate.clear();
            let _ = write!(candidate, "{base}_{k}");
            (!taken(&candidate)).then(|| candidate.clone())
        })
        .expect("[qpor internal bug] ran out of id suffixes")
}

/// Arc ids `a1`, `a2`…, skipping ids the document already uses.
#[derive(Default)]
struct ArcIds {
    next: u64,
    buf: String,
}

impl ArcIds {
    fn next(&mut self, ids: &Ids) -> &str {
        loop {
            self.next += 1;
            self.buf.clear();
            let _ = write!(self.buf, "a{}", self.next);
            if !ids.taken(&self.buf) {
                return &self.buf;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert!(is_valid_id("Think_1"));
        assert!(is_valid_id("_x-1.2"));
        assert!(is_valid_id("été"));
        assert!(!is_valid_id("12"));
        assert!(!is_valid_id("a b"));
        assert!(!is_valid_id(""));
        assert!(!is_valid_id("-a"));
        assert_eq!(sanitised('p', "12"), "p12");
        assert_eq!(sanitised('p', "a b"), "a_b");
        assert_eq!(sanitised('t', ""), "t");
    }

    #[test]
    fn made_up_ids_avoid_kept_ones() {
        let mut net = Net::default();
        net.add_place("p1", None, 0);
        net.add_place("1", None, 0);
        net.add_place("1", None, 0);
        net.add_transition("a1", None);
        let ids = Ids::assign(&net);
        assert_eq!(ids.places, ["p1", "p1_2", "p1_3"]);
        assert_eq!(ids.transitions, ["a1"]);
        assert_eq!(ids.net, "net");
        let mut arcs = ArcIds::default();
        assert_eq!(arcs.next(&ids), "a2", "a1 is a transition");
    }

    #[test]
    fn escaping() {
        let mut out = Vec::new();
        escape(&mut out, "a<b & \"c\"\r\n\u{1}", false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a&lt;b &amp; \"c\"&#13;\n\u{FFFD}"
        );
        let mut out = Vec::new();
        escape(&mut out, "\"\t\n", true).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "&quot;&#9;&#10;");
    }
}
