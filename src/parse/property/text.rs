//! The query syntax of the command line (`--query`, `grammars/query.pest`): one property,
//! `EF φ` or `AG φ`, with `AND`, `OR`, `NOT`, `TRUE`, `FALSE`, comparisons of sums of
//! places and constants (`<=`, `<`, `>=`, `>`, `=`, `!=`) and `FIREABLE(t, …)`; or a
//! bound question, `BOUND(p1, p2, …)`.

use super::{Names, MAX_DEPTH};
use crate::parse::ParseError;
use crate::system::net::Net;
use crate::system::property::{BoundQuery, Formula, Property, Quantifier, Sum};
use pest::error::InputLocation;
use pest::iterators::Pair;
use pest::Parser as _;

/// The parser generated from the grammar; private, so its `Rule` enum stays internal.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammars/query.pest"]
    pub(super) struct QueryParser;
}

use grammar::{QueryParser, Rule};

/// Reads `text`, a query about `net`, as the property `id`; errors name `source` (e.g.
/// `--query`) and the column in `text`.
pub fn parse_query(text: &str, source: &str, net: &Net, id: &str) -> Result<Property, ParseError> {
    let error = |offset: usize, message: String| ParseError::at(source, text, offset, message);
    if let Some(offset) = too_deep(text) {
        return Err(error(
            offset,
            format!("the query nests more than {MAX_DEPTH} parentheses"),
        ));
    }
    let mut pairs = QueryParser::parse(Rule::query, text).map_err(|e| {
        let offset = match e.location {
            InputLocation::Pos(p) | InputLocation::Span((p, _)) => p,
        };
        error(offset, syntax_message(text, offset))
    })?;
    let mut inner = pairs.next().expect("the grammar's query").into_inner();
    let quantifier = match inner
        .next()
        .expect("a quantifier")
        .as_str()
        .to_ascii_uppercase()
        .as_str()
    {
        "EF" => Quantifier::Ef,
        _ => Quantifier::Ag,
    };
    let names = Names::new(net);
    let formula = formula(inner.next().expect("a formula"), &names).map_err(|(o, m)| error(o, m))?;
    Ok(Property {
        id: id.to_string(),
        quantifier,
        formula,
    })
}

/// Whether `text` is a bound query (`BOUND(p1, …)`) rather than `EF φ` or `AG φ`.
pub fn is_bound_query(text: &str) -> bool {
    let t = text.trim_start();
    t.len() >= 5 && t[..5].eq_ignore_ascii_case("BOUND") && t[5..].trim_start().starts_with('(')
}

/// Reads `text`, `BOUND(p1, p2, …)` about `net`, as the bound question `id`; errors name
/// `source` and the column in `text`.
pub fn parse_bound_query(text: &str, source: &str, net: &Net, id: &str) -> Result<BoundQuery, ParseError> {
    let error = |offset: usize, message: String| ParseError::at(source, text, offset, message);
    let pairs = QueryParser::parse(Rule::bound_query, text).map_err(|e| {
        let offset = match e.location {
            InputLocation::Pos(p) | InputLocation::Span((p, _)) => p,
        };
        error(
            offset,
            "a bound query lists places, e.g. `BOUND(p1, p2)`".to_string(),
        )
    })?;
    let names = Names::new(net);
    let mut places = Vec::new();
    for pair in pairs
        .flatten()
        .filter(|p| matches!(p.as_rule(), Rule::ident | Rule::quoted))
    {
        let place = names
            .place(name_of(&pair))
            .map_err(|m| error(pair.as_span().start(), m))?;
        places.push(place);
    }
    Ok(BoundQuery {
        id: id.to_string(),
        places,
    })
}

/// Where the parentheses of `text` first nest deeper than [`MAX_DEPTH`].
fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// What the query holds where the grammar stopped.
fn syntax_message(text: &str, offset: usize) -> String {
    let rest = text[offset..].trim_start();
    match rest.chars().next() {
        None if offset == 0 || text.trim().is_empty() => {
            "an empty query: write `EF φ` or `AG φ`, e.g. `EF (p1 + p2 >= 3 AND FIREABLE(t5))`".to_string()
        }
        None => "the query ends too early: a formula, a comparison or `)` is missing".to_string(),
        Some(_) if offset == 0 => {
            "a query starts with EF or AG, e.g. `EF (p1 + p2 >= 3 AND FIREABLE(t5))`".to_string()
        }
        Some(c) => format!(
            "unexpected `{}`: expected a place, a number, a comparison (<=, <, >=, >, =, !=), AND, OR, NOT, TRUE, FALSE, FIREABLE(…) or parentheses",
            rest.split_whitespace().next().unwrap_or(&c.to_string())
        ),
    }
}

/// A name as written: quoted ones without their quotes.
fn name_of<'p>(pair: &Pair<'p, Rule>) -> &'p str {
    let s = pair.as_str();
    match pair.as_rule() {
        Rule::quoted => &s[1..s.len() - 1],
        _ => s,
    }
}

type Failed = (usize, String);

fn formula(pair: Pair<'_, Rule>, names: &Names<'_>) -> Result<Formula, Failed> {
    match pair.as_rule() {
        Rule::formula | Rule::conjunction => {
            let is_or = pair.as_rule() == Rule::formula;
            let mut parts = Vec::new();
            for p in pair
                .into_inner()
                .filter(|p| !matches!(p.as_rule(), Rule::and | Rule::or))
            {
                parts.push(formula(p, names)?);
            }
            Ok(match (parts.len(), is_or) {
                (1, _) => parts.pop().expect("one part"),
                (_, true) => Formula::Or(parts),
                (_, false) => Formula::And(parts),
            })
        }
        Rule::unary => {
            let mut negations = 0;
            let mut atom = None;
            for p in pair.into_inner() {
                match p.as_rule() {
                    Rule::not => negations += 1,
                    _ => atom = Some(formula(p, names)?),
                }
            }
            let mut f = atom.expect("the grammar's atom");
            for _ in 0..negations {
                f = Formula::Not(Box::new(f));
            }
            Ok(f)
        }
        Rule::atom => formula(pair.into_inner().next().expect("an atom's part"), names),
        Rule::truth => Ok(Formula::Const(pair.as_str().eq_ignore_ascii_case("true"))),
        Rule::fireable => {
            let mut ts = Vec::new();
            for p in pair.into_inner() {
                let offset = p.as_span().start();
                ts.push(names.transition(name_of(&p)).map_err(|m| (offset, m))?);
            }
            Ok(Formula::Fireable(ts))
        }
        Rule::comparison => {
            let mut inner = pair.into_inner();
            let left = sum(inner.next().expect("a left sum"), names)?;
            let op = inner.next().expect("a comparator").as_str();
            let right = sum(inner.next().expect("a right sum"), names)?;
            Ok(comparison(left, op, right))
        }
        other => unreachable!("the grammar gives no {other:?} here"),
    }
}

/// `left op right` as `<=` comparisons: `a < b` is `a + 1 <= b`, `a = b` both ways.
fn comparison(left: Sum, op: &str, right: Sum) -> Formula {
    let plus_one = |mut s: Sum| {
        s.constant = s.constant.saturating_add(1);
        s
    };
    let equal = |a: Sum, b: Sum| Formula::And(vec![Formula::Le(a.clone(), b.clone()), Formula::Le(b, a)]);
    match op {
        "<=" => Formula::Le(left, right),
        ">=" => Formula::Le(right, left),
        "<" => Formula::Le(plus_one(left), right),
        ">" => Formula::Le(plus_one(right), left),
        "=" => equal(left, right),
        _ => Formula::Not(Box::new(equal(left, right))),
    }
}

fn sum(pair: Pair<'_, Rule>, names: &Names<'_>) -> Result<Sum, Failed> {
    let mut s = Sum::default();
    for term in pair.into_inner() {
        let offset = term.as_span().start();
        match term.as_rule() {
            Rule::number => {
                let n: u64 = term
                    .as_str()
                    .parse()
                    .map_err(|_| (offset, format!("{} is too large a number", term.as_str())))?;
                s.constant = s.constant.saturating_add(n);
            }
            _ => s
                .places
                .push(names.place(name_of(&term)).map_err(|m| (offset, m))?),
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> Net {
        let (mut net, [p1, p2]) = Net::with_places([("p1", 1), ("p2", 0)]);
        net.add_transition_between("t5", &[p1], &[p2]);
        net.places[1].name = Some("second place".into());
        net
    }

    #[test]
    fn queries_read_as_the_docs_write_them() {
        let net = net();
        let q = parse_query("EF (p1 + p2 >= 3 AND FIREABLE(t5))", "--query", &net, "query").unwrap();
        assert_eq!(q.quantifier, Quantifier::Ef);
        assert_eq!(
            q.formula.shown(&net).to_string(),
            "(3 <= p1 + p2 AND FIREABLE(t5))"
        );
        let q = parse_query("ag not !(p1 < 2 | \"second place\" = 1)", "--query", &net, "q").unwrap();
        assert_eq!(q.quantifier, Quantifier::Ag);
        assert_eq!(
            q.formula.shown(&net).to_string(),
            "NOT NOT (p1 + 1 <= 2 OR (p2 <= 1 AND 1 <= p2))"
        );
        let q = parse_query("EF p1 != p2", "--query", &net, "q").unwrap();
        assert!(q.formula.holds(&net, &net.initial_marking()));
        let q = parse_query("EF TRUE", "--query", &net, "q").unwrap();
        assert_eq!(q.formula, Formula::Const(true));
    }

    #[test]
    fn errors_say_where_and_what() {
        let net = net();
        let e = parse_query("EF p1 + p9 >= 3", "--query", &net, "q").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--query:1:9: no place `p9` in the net (places are named by PNML id)"
        );
        let e = parse_query("EF FIREABLE(t1)", "--query", &net, "q").unwrap_err();
        assert_eq!(e.pos.col, 13);
        let e = parse_query("p1 >= 3", "--query", &net, "q").unwrap_err();
        assert!(e.message.starts_with("a query starts with EF or AG"), "{e}");
        let e = parse_query("EF p1 >= ", "--query", &net, "q").unwrap_err();
        assert!(e.message.contains("ends too early"), "{e}");
        let deep = format!(
            "EF {}TRUE{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        let e = parse_query(&deep, "--query", &net, "q").unwrap_err();
        assert!(e.message.contains("nests more than"), "{e}");
    }
}
