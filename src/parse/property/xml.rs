//! The Model Checking Contest's property files (`ReachabilityCardinality.xml`,
//! `ReachabilityFireability.xml`): a `property-set` of `property` elements, each with an
//! `id` and a `formula` that is `exists-path/finally` (EF) or `all-paths/globally` (AG)
//! around a state formula of `conjunction`, `disjunction`, `negation`, `true`, `false`,
//! `integer-le` (of `integer-constant` and `tokens-count` over `place`s) and `is-fireable`
//! (over `transition`s); or, in `UpperBounds.xml`, a `place-bound` over `place`s
//! ([`read_queries`]). Other elements (`description`) are skipped; an element the
//! formula grammar does not know is an error at its position.

use super::{Names, MAX_DEPTH};
use crate::parse::ParseError;
use crate::system::net::Net;
use crate::system::property::{BoundQuery, Formula, Property, Quantifier, Sum};
use quick_xml::events::Event;
use quick_xml::Reader;

/// An element of the file: its local name, where it starts, its text and its children.
struct Element {
    name: String,
    offset: usize,
    text: String,
    children: Vec<Element>,
}

/// What a property file asks: reachability properties, or bounds (`UpperBounds.xml`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Queries {
    /// `EF φ` and `AG φ` properties.
    Reachability(Vec<Property>),
    /// `place-bound` questions.
    Bounds(Vec<BoundQuery>),
}

/// Reads the reachability properties of `text`, the contents of `file`, about `net`.
pub fn read_properties(text: &str, file: &str, net: &Net) -> Result<Vec<Property>, ParseError> {
    match read_queries(text, file, net)? {
        Queries::Reachability(properties) => Ok(properties),
        Queries::Bounds(_) => Err(ParseError::at(
            file,
            text,
            0,
            "the file asks bounds (<place-bound>), not reachability properties".to_string(),
        )),
    }
}

/// Reads the questions of `text`, the contents of `file`, about `net`: reachability
/// properties or bounds, as the first property's formula says; a file mixing both is an
/// error at the first one of the other kind.
pub fn read_queries(text: &str, file: &str, net: &Net) -> Result<Queries, ParseError> {
    let error = |offset: usize, message: String| ParseError::at(file, text, offset, message);
    let root = element_tree(text).map_err(|(o, m)| error(o, m))?;
    if root.name != "property-set" {
        return Err(error(
            root.offset,
            format!("expected <property-set>, found <{}>", root.name),
        ));
    }
    let names = Names::new(net);
    let mut properties = Vec::new();
    let mut bounds = Vec::new();
    for p in root.children.iter().filter(|c| c.name == "property") {
        match bound(p, &names).map_err(|(o, m)| error(o, m))? {
            Some(b) if properties.is_empty() => bounds.push(b),
            None if bounds.is_empty() => properties.push(property(p, &names).map_err(|(o, m)| error(o, m))?),
            _ => {
                return Err(error(
                    p.offset,
                    "a file asks either bounds (<place-bound>) or reachability properties, not both"
                        .to_string(),
                ))
            }
        }
    }
    Ok(if bounds.is_empty() {
        Queries::Reachability(properties)
    } else {
        Queries::Bounds(bounds)
    })
}

/// The bound question of `p` when its formula is a `<place-bound>`.
fn bound(p: &Element, names: &Names<'_>) -> Result<Option<BoundQuery>, Failed> {
    let Some(formula) = p.children.iter().find(|c| c.name == "formula") else {
        return Ok(None);
    };
    let [b] = &formula.children[..] else {
        return Ok(None);
    };
    if b.name != "place-bound" {
        return Ok(None);
    }
    let id = p
        .children
        .iter()
        .find(|c| c.name == "id")
        .ok_or_else(|| (p.offset, "a <property> without <id>".to_string()))?
        .text
        .trim()
        .to_string();
    let mut places = Vec::new();
    for c in &b.children {
        if c.name != "place" {
            return Err((
                c.offset,
                format!("<place-bound> lists <place>s, not <{}>", c.name),
            ));
        }
        places.push(names.place(c.text.trim()).map_err(|m| (c.offset, m))?);
    }
    if places.is_empty() {
        return Err((b.offset, "a <place-bound> lists at least one <place>".to_string()));
    }
    Ok(Some(BoundQuery { id, places }))
}

type Failed = (usize, String);

/// The document's root element, with every element below it.
fn element_tree(text: &str) -> Result<Element, Failed> {
    let mut xml = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    loop {
        let offset = xml.buffer_position() as usize;
        let event = xml
            .read_event()
            .map_err(|e| (xml.error_position() as usize, format!("malformed XML: {e}")))?;
        let open = |e: &quick_xml::events::BytesStart<'_>| Element {
            name: e.local_name().into_inner().to_string(),
            offset: offset + text[offset..].find('<').unwrap_or(0),
            text: String::new(),
            children: Vec::new(),
        };
        let closed = match event {
            Event::Start(e) => {
                if stack.len() > MAX_DEPTH {
                    return Err((offset, format!("the file nests more than {MAX_DEPTH} elements")));
                }
                stack.push(open(&e));
                None
            }
            Event::Empty(e) => Some(open(&e)),
            Event::End(_) => stack.pop(),
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content());
                }
                None
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t);
                }
                None
            }
            Event::Eof => return Err((text.len(), "the file holds no <property-set>".to_string())),
            _ => None,
        };
        if let Some(element) = closed {
            match stack.last_mut() {
                Some(parent) => parent.children.push(element),
                None => return Ok(element),
            }
        }
    }
}

fn property(p: &Element, names: &Names<'_>) -> Result<Property, Failed> {
    let child = |name: &str| {
        p.children
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| (p.offset, format!("a <property> without <{name}>")))
    };
    let id = child("id")?.text.trim().to_string();
    let formula = child("formula")?;
    let [path] = &formula.children[..] else {
        return Err((formula.offset, "a <formula> holds one path formula".to_string()));
    };
    let (quantifier, inner) = match path.name.as_str() {
        "exists-path" => (Quantifier::Ef, "finally"),
        "all-paths" => (Quantifier::Ag, "globally"),
        other => {
            return Err((
                path.offset,
                format!("<{other}>: qpor answers reachability properties, <exists-path><finally> or <all-paths><globally>"),
            ))
        }
    };
    let body = match &path.children[..] {
        [b] if b.name == inner => b,
        _ => return Err((path.offset, format!("<{}> holds one <{inner}>", path.name))),
    };
    let [state] = &body.children[..] else {
        return Err((body.offset, format!("<{inner}> holds one state formula")));
    };
    Ok(Property {
        id,
        quantifier,
        formula: state_formula(state, names)?,
    })
}

fn state_formula(e: &Element, names: &Names<'_>) -> Result<Formula, Failed> {
    let all = |names_: &Names<'_>| -> Result<Vec<Formula>, Failed> {
        e.children.iter().map(|c| state_formula(c, names_)).collect()
    };
    Ok(match e.name.as_str() {
        "true" => Formula::Const(true),
        "false" => Formula::Const(false),
        "conjunction" => Formula::And(all(names)?),
        "disjunction" => Formula::Or(all(names)?),
        "negation" => match &e.children[..] {
            [f] => Formula::Not(Box::new(state_formula(f, names)?)),
            _ => return Err((e.offset, "<negation> holds one formula".to_string())),
        },
        "integer-le" => match &e.children[..] {
            [a, b] => Formula::Le(sum(a, names)?, sum(b, names)?),
            _ => {
                return Err((
                    e.offset,
                    "<integer-le> compares two integer expressions".to_string(),
                ))
            }
        },
        "is-fireable" => {
            let mut ts = Vec::new();
            for t in &e.children {
                if t.name != "transition" {
                    return Err((
                        t.offset,
                        format!("<is-fireable> lists <transition>s, not <{}>", t.name),
                    ));
                }
                ts.push(names.transition(t.text.trim()).map_err(|m| (t.offset, m))?);
            }
            Formula::Fireable(ts)
        }
        other => return Err((e.offset, format!("<{other}> is no state formula qpor knows"))),
    })
}

fn sum(e: &Element, names: &Names<'_>) -> Result<Sum, Failed> {
    match e.name.as_str() {
        "integer-constant" => {
            let n = e.text.trim().parse().map_err(|_| {
                (
                    e.offset,
                    format!("<integer-constant> `{}` is no natural number", e.text.trim()),
                )
            })?;
            Ok(Sum::constant(n))
        }
        "tokens-count" => {
            let mut s = Sum::default();
            for p in &e.children {
                if p.name != "place" {
                    return Err((
                        p.offset,
                        format!("<tokens-count> lists <place>s, not <{}>", p.name),
                    ));
                }
                s.places
                    .push(names.place(p.text.trim()).map_err(|m| (p.offset, m))?);
            }
            Ok(s)
        }
        other => Err((e.offset, format!("<{other}> is no integer expression qpor knows"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"<?xml version="1.0"?>
<property-set xmlns="http://mcc.lip6.fr/">
  <property>
    <id>N-00</id>
    <description>generated</description>
    <formula>
      <all-paths><globally>
        <disjunction>
          <integer-le>
            <tokens-count><place>p1</place><place>p2</place></tokens-count>
            <integer-constant>1</integer-constant>
          </integer-le>
          <negation><is-fireable><transition>t</transition></is-fireable></negation>
        </disjunction>
      </globally></all-paths>
    </formula>
  </property>
  <property>
    <id>N-01</id>
    <formula><exists-path><finally><true/></finally></exists-path></formula>
  </property>
</property-set>
"#;

    fn net() -> Net {
        let (mut net, [p1, p2]) = Net::with_places([("p1", 1), ("p2", 0)]);
        net.add_transition_between("t", &[p1], &[p2]);
        net
    }

    #[test]
    fn contest_files_read_into_properties() {
        let net = net();
        let ps = read_properties(FILE, "R.xml", &net).unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].id, "N-00");
        assert_eq!(ps[0].quantifier, Quantifier::Ag);
        assert_eq!(
            ps[0].formula.shown(&net).to_string(),
            "(p1 + p2 <= 1 OR NOT FIREABLE(t))"
        );
        assert_eq!(ps[1].quantifier, Quantifier::Ef);
        assert_eq!(ps[1].formula, Formula::Const(true));
    }

    #[test]
    fn unknown_places_and_elements_are_errors_at_their_line() {
        let net = net();
        let e = read_properties(&FILE.replace(">p2<", ">p9<"), "R.xml", &net).unwrap_err();
        assert_eq!(e.pos.line, 10, "{e}");
        assert!(e.message.contains("no place `p9`"), "{e}");
        let e = read_properties(&FILE.replace("<true/>", "<deadlock/>"), "R.xml", &net).unwrap_err();
        assert_eq!(e.pos.line, 20, "{e}");
        let e = read_properties("<property-set><property>", "R.xml", &net).unwrap_err();
        assert!(
            e.message.contains("no <property-set>") || e.message.contains("malformed"),
            "{e}"
        );
    }
}
