//! The PEP ll_net writer: the inverse of [`crate::parse::llnet`], readable by Cunf, Punf
//! and Mole for safe nets without weights.
//!
//! The output is the three header lines `PEP`, `PTNet`, `FORMAT_N`, then `PL`, `TR`, `TP`,
//! `PT`, and `RA` when the net has read arcs. Every place and transition line carries an
//! explicit id and a quoted name, so no reader has to rely on autonumbering; arcs carry
//! `w<k>` only when k ≠ 1. Arcs are listed transition by transition, places ascending, so
//! the output depends on the net alone.
//!
//! # Ids and names
//! - The net's ids are kept when the places' (resp. transitions') ids are all distinct
//!   positive integers in canonical decimal, as the reader produces them; otherwise that
//!   side is renumbered 1..n in order. Reading the output back then gives the same [`Net`].
//! - A name is quoted with `"`, or with `'` when it contains `"`. The format has no escapes
//!   and one entity per line, so a name holding both quote characters or a line break
//!   cannot be written: [`write()`] fails with [`io::ErrorKind::InvalidData`] before writing
//!   anything.
//! - A missing name is written as the entity's id, because Cunf crashes on nameless
//!   entities; reading back then gives that name.
//!
//! Not written: the net's name and its NUPN units (the format has no place for them).

use crate::system::net::Net;
use std::collections::HashSet;
use std::io::{self, Write};

/// Writes `net` in the PEP ll_net format.
///
/// ```
/// let mut net = qpor::net::Net::default();
/// let p = net.add_place("1", Some("idle".into()), 1);
/// let t = net.add_transition("1", Some("go".into()));
/// net.add_pre(t, p, 2);
/// let mut out = Vec::new();
/// qpor::formats::llnet::write(&net, &mut out).unwrap();
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "PEP\nPTNet\nFORMAT_N\nPL\n1\"idle\"M1\nTR\n1\"go\"\nTP\nPT\n1>1w2\n"
/// );
/// ```
pub fn write<W: Write>(net: &Net, out: W) -> io::Result<()> {
    let place_ids = file_ids(net.places.iter().map(|p| p.id.as_str()));
    let trans_ids = file_ids(net.transitions.iter().map(|t| t.id.as_str()));
    // Quote every name first, so that an unwritable one leaves the output untouched.
    let place_names = net
        .places
        .iter()
        .map(|p| quote(p.label(), "place"))
        .collect::<io::Result<Vec<_>>>()?;
    let trans_names = net
        .transitions
        .iter()
        .map(|t| quote(t.label(), "transition"))
        .collect::<io::Result<Vec<_>>>()?;

    let mut out = io::BufWriter::new(out);
    out.write_all(b"PEP\nPTNet\nFORMAT_N\nPL\n")?;
    for (i, place) in net.places.iter().enumerate() {
        write!(out, "{}{}", place_ids[i], place_names[i])?;
        if place.initial > 0 {
            write!(out, "M{}", place.initial)?;
        }
        out.write_all(b"\n")?;
    }
    out.write_all(b"TR\n")?;
    for (i, name) in trans_names.iter().enumerate() {
        writeln!(out, "{}{name}", trans_ids[i])?;
    }
    out.write_all(b"TP\n")?;
    for (i, t) in net.transitions.iter().enumerate() {
        for &(p, w) in &t.post {
            write!(out, "{}<{}", trans_ids[i], place_ids[p.index()])?;
            write_weight(&mut out, w)?;
        }
    }
    out.write_all(b"PT\n")?;
    for (i, t) in net.transitions.iter().enumerate() {
        for &(p, w) in &t.pre {
            write!(out, "{}>{}", place_ids[p.index()], trans_ids[i])?;
            write_weight(&mut out, w)?;
        }
    }
    if net.transitions.iter().any(|t| !t.read.is_empty()) {
        out.write_all(b"RA\n")?;
        for (i, t) in net.transitions.iter().enumerate() {
            for p in &t.read {
                writeln!(out, "{}<{}", trans_ids[i], place_ids[p.index()])?;
            }
        }
    }
    out.flush()
}

/// Ends an arc line, with its weight when it is not 1.
fn write_weight<W: Write>(out: &mut W, weight: u32) -> io::Result<()> {
    if weight == 1 {
        out.write_all(b"\n")
    } else {
        writeln!(out, "w{weight}")
    }
}

/// The numbers to write for entities with the given ids: the ids themselves when they are
/// distinct canonical positive integers, else positions 1..n.
fn file_ids<'a>(ids: impl Iterator<Item = &'a str> + Clone) -> Vec<u32> {
    let mut seen = HashSet::new();
    let kept: Option<Vec<u32>> = ids
        .clone()
        .map(|id| match id.parse::<u32>() {
            Ok(n) if n > 0 && n.to_string() == id && seen.insert(n) => Some(n),
            _ => None,
        })
        .collect();
    kept.unwrap_or_else(|| (1..).zip(ids).map(|(n, _)| n).collect())
}

/// `name` as an ll_net string, or why it cannot be one.
fn quote(name: &str, kind: &str) -> io::Result<String> {
    let unwritable = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("cannot write the {kind} name {name:?} in ll_net: {why}"),
        )
    };
    if name.contains(['\n', '\r']) {
        return Err(unwritable("names cannot contain a line break"));
    }
    match (name.contains('"'), name.contains('\'')) {
        (false, _) => Ok(format!("\"{name}\"")),
        (true, false) => Ok(format!("'{name}'")),
        (true, true) => Err(unwritable(
            "it contains both \" and ', and ll_net strings have no escapes",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_numeric_ids_are_renumbered_and_names_default_to_ids() {
        let mut net = Net::default();
        let a = net.add_place("lockA", None, 1);
        let b = net.add_place("7", Some("say \"hi\"".into()), 0);
        let t = net.add_transition("9", None);
        net.add_post(t, a, 3);
        net.add_read(t, b);
        let mut out = Vec::new();
        write(&net, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "PEP\nPTNet\nFORMAT_N\nPL\n1\"lockA\"M1\n2'say \"hi\"'\nTR\n9\"9\"\nTP\n9<1w3\nPT\nRA\n9<2\n"
        );
    }

    #[test]
    fn duplicate_or_non_canonical_ids_are_renumbered() {
        assert_eq!(file_ids(["3", "3"].into_iter()), [1, 2]);
        assert_eq!(file_ids(["03", "4"].into_iter()), [1, 2]);
        assert_eq!(file_ids(["0", "4"].into_iter()), [1, 2]);
        assert_eq!(file_ids(["5", "4"].into_iter()), [5, 4]);
    }

    #[test]
    fn unwritable_names_leave_the_output_empty() {
        let mut net = Net::default();
        net.add_place("1", Some("a\"b'c".into()), 0);
        let mut out = Vec::new();
        let e = write(&net, &mut out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(out.is_empty());
    }
}
