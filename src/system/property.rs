//! Reachability properties of a P/T net, the questions of the Model Checking Contest's
//! ReachabilityCardinality and ReachabilityFireability examinations: `EF φ` (some
//! reachable marking satisfies φ) and `AG φ` (every reachable marking does), where φ is a
//! Boolean combination of comparisons `e1 <= e2` between sums of token counts and
//! constants, and of `fireable(t1, …)` (some listed transition is enabled).
//!
//! Both quantifiers reduce to one search: `EF φ` holds exactly when a marking satisfying φ
//! is reachable, and `AG φ` fails exactly when a marking satisfying ¬φ is
//! ([`Property::target`]). An engine looks for a reachable marking satisfying the target;
//! finding one decides the property (TRUE for `EF`, FALSE for `AG`) with a witness, and
//! only a complete exploration or a proof that none is reachable decides it the other way.

use super::net::{Net, PlaceId, TransId};
use std::fmt;

/// `EF` or `AG`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Quantifier {
    /// Some reachable marking satisfies the formula.
    Ef,
    /// Every reachable marking satisfies the formula.
    Ag,
}

impl Quantifier {
    /// `EF` or `AG`.
    pub fn name(self) -> &'static str {
        match self {
            Quantifier::Ef => "EF",
            Quantifier::Ag => "AG",
        }
    }
}

/// A sum of token counts and a constant: `p1 + p2 + 3`. A place listed twice counts twice.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Sum {
    /// The places whose tokens are added.
    pub places: Vec<PlaceId>,
    /// The constant added to them.
    pub constant: u64,
}

impl Sum {
    /// The constant `c`.
    pub fn constant(c: u64) -> Sum {
        Sum {
            places: Vec::new(),
            constant: c,
        }
    }

    /// Its value in `marking`.
    pub fn value(&self, marking: &[u32]) -> u64 {
        self.places.iter().fold(self.constant, |s, p| {
            s.saturating_add(u64::from(marking[p.index()]))
        })
    }
}

/// A state formula: what a marking satisfies or not.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Formula {
    /// `true` or `false`.
    Const(bool),
    /// The negation.
    Not(Box<Formula>),
    /// Every one holds (`true` when empty).
    And(Vec<Formula>),
    /// Some one holds (`false` when empty).
    Or(Vec<Formula>),
    /// The left sum is at most the right one.
    Le(Sum, Sum),
    /// Some listed transition is enabled (`false` when none is listed).
    Fireable(Vec<TransId>),
}

impl Formula {
    /// Whether `marking` of `net` satisfies the formula.
    pub fn holds(&self, net: &Net, marking: &[u32]) -> bool {
        match self {
            Formula::Const(b) => *b,
            Formula::Not(f) => !f.holds(net, marking),
            Formula::And(fs) => fs.iter().all(|f| f.holds(net, marking)),
            Formula::Or(fs) => fs.iter().any(|f| f.holds(net, marking)),
            Formula::Le(a, b) => a.value(marking) <= b.value(marking),
            Formula::Fireable(ts) => ts.iter().any(|t| {
                net.transitions[t.index()]
                    .needs()
                    .iter()
                    .all(|&(p, w)| marking[p.index()] >= w)
            }),
        }
    }

    /// How far `marking` looks from one where the formula's value is `aim`: 0 when it is
    /// already, otherwise a count of tokens to move (for `e1 <= e2`, the excess of `e1`;
    /// for `fireable(t…)`, the tokens the closest listed transition lacks, or to disable
    /// every enabled one, those that keep each enabled), summed over what must all change
    /// and the least over alternatives. A guide for searches towards a target, not a
    /// bound: no answer depends on it.
    pub fn distance(&self, net: &Net, marking: &[u32], aim: bool) -> u64 {
        /// Stands for "never": a constant off its aim.
        const FAR: u64 = u64::MAX / 4;
        let enabled_by = |t: &TransId| {
            net.transitions[t.index()]
                .needs()
                .iter()
                .map(|&(p, w)| u64::from(w.saturating_sub(marking[p.index()])))
                .sum::<u64>()
        };
        match self {
            Formula::Const(b) => {
                if *b == aim {
                    0
                } else {
                    FAR
                }
            }
            Formula::Not(f) => f.distance(net, marking, !aim),
            // Every part must reach the aim.
            Formula::And(fs) | Formula::Or(fs) if aim == matches!(self, Formula::And(_)) => fs
                .iter()
                .fold(0u64, |d, f| d.saturating_add(f.distance(net, marking, aim)))
                .min(FAR),
            // One part reaching it suffices.
            Formula::And(fs) | Formula::Or(fs) => fs
                .iter()
                .map(|f| f.distance(net, marking, aim))
                .min()
                .unwrap_or(FAR),
            Formula::Le(a, b) => {
                let (a, b) = (a.value(marking), b.value(marking));
                match aim {
                    true => a.saturating_sub(b),
                    false => (b + 1).saturating_sub(a),
                }
            }
            Formula::Fireable(ts) if aim => ts.iter().map(enabled_by).min().unwrap_or(FAR),
            Formula::Fireable(ts) => ts
                .iter()
                .filter(|t| enabled_by(t) == 0)
                .map(|t| {
                    net.transitions[t.index()]
                        .needs()
                        .iter()
                        .map(|&(p, w)| u64::from(marking[p.index()]) + 1 - u64::from(w))
                        .min()
                        .unwrap_or(FAR)
                })
                .fold(0u64, u64::saturating_add)
                .min(FAR),
        }
    }

    /// The same formula with its constants folded away: a conjunction with a false part
    /// is false, one with only true parts true (and dually), a negated constant the other
    /// one; what remains has no constant inside, or is one.
    pub fn folded(self) -> Formula {
        match self {
            Formula::Not(f) => f.folded().negated(),
            Formula::And(fs) => Formula::junction(fs, false),
            Formula::Or(fs) => Formula::junction(fs, true),
            f => f,
        }
    }

    /// A conjunction (`absorbing` false) or disjunction (`absorbing` true) of `parts`,
    /// folded.
    fn junction(parts: Vec<Formula>, absorbing: bool) -> Formula {
        let mut kept = Vec::with_capacity(parts.len());
        for part in parts {
            match part.folded() {
                Formula::Const(b) if b == absorbing => return Formula::Const(absorbing),
                Formula::Const(_) => {}
                f => kept.push(f),
            }
        }
        match kept.len() {
            0 => Formula::Const(!absorbing),
            1 => kept.pop().unwrap_or(Formula::Const(!absorbing)),
            _ if absorbing => Formula::Or(kept),
            _ => Formula::And(kept),
        }
    }

    /// The negation, with double negations removed.
    pub fn negated(self) -> Formula {
        match self {
            Formula::Not(f) => *f,
            Formula::Const(b) => Formula::Const(!b),
            f => Formula::Not(Box::new(f)),
        }
    }

    /// The same formula over another net whose places and transitions are those of this
    /// one's net renamed by `place` and `transition`; `None` if one has no name there.
    pub fn renamed(
        &self,
        place: &dyn Fn(PlaceId) -> Option<PlaceId>,
        transition: &dyn Fn(TransId) -> Option<TransId>,
    ) -> Option<Formula> {
        let sum = |s: &Sum| -> Option<Sum> {
            Some(Sum {
                places: s.places.iter().map(|&p| place(p)).collect::<Option<_>>()?,
                constant: s.constant,
            })
        };
        let all = |fs: &[Formula]| -> Option<Vec<Formula>> {
            fs.iter().map(|f| f.renamed(place, transition)).collect()
        };
        Some(match self {
            Formula::Const(b) => Formula::Const(*b),
            Formula::Not(f) => Formula::Not(Box::new(f.renamed(place, transition)?)),
            Formula::And(fs) => Formula::And(all(fs)?),
            Formula::Or(fs) => Formula::Or(all(fs)?),
            Formula::Le(a, b) => Formula::Le(sum(a)?, sum(b)?),
            Formula::Fireable(ts) => {
                Formula::Fireable(ts.iter().map(|&t| transition(t)).collect::<Option<_>>()?)
            }
        })
    }

    /// The places whose tokens the formula reads, and the transitions whose enabledness it
    /// reads (so whose presets it reads too), each once: what a reduction must keep.
    pub fn support(&self) -> (Vec<PlaceId>, Vec<TransId>) {
        let mut places = Vec::new();
        let mut transitions = Vec::new();
        let mut todo = vec![self];
        while let Some(f) = todo.pop() {
            match f {
                Formula::Const(_) => {}
                Formula::Not(g) => todo.push(g),
                Formula::And(gs) | Formula::Or(gs) => todo.extend(gs),
                Formula::Le(a, b) => places.extend(a.places.iter().chain(&b.places)),
                Formula::Fireable(ts) => transitions.extend(ts),
            }
        }
        places.sort_unstable();
        places.dedup();
        transitions.sort_unstable();
        transitions.dedup();
        (places, transitions)
    }
}

/// One property: an identifier (the contest's, or `query` for one given on the command
/// line), its quantifier and its formula.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Property {
    /// The identifier answers are printed under.
    pub id: String,
    /// `EF` or `AG`.
    pub quantifier: Quantifier,
    /// The state formula.
    pub formula: Formula,
}

impl Property {
    /// The formula a reachable marking must satisfy to decide the property: φ for `EF φ`
    /// (which it makes TRUE), ¬φ for `AG φ` (which it makes FALSE).
    pub fn target(&self) -> Formula {
        match self.quantifier {
            Quantifier::Ef => self.formula.clone(),
            Quantifier::Ag => self.formula.clone().negated(),
        }
    }

    /// The property's truth value when a marking satisfying [`Property::target`] is
    /// reachable (`reached`) or proved unreachable (`!reached`).
    pub fn value_when_reached(&self, reached: bool) -> bool {
        match self.quantifier {
            Quantifier::Ef => reached,
            Quantifier::Ag => !reached,
        }
    }
}

/// A bound question (the contest's UpperBounds): the largest number of tokens the listed
/// places hold together in any reachable marking. A place listed twice counts twice.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BoundQuery {
    /// The identifier answers are printed under.
    pub id: String,
    /// The places whose tokens are added.
    pub places: Vec<PlaceId>,
}

impl BoundQuery {
    /// The sum of the places' tokens in `marking`.
    pub fn value(&self, marking: &[u32]) -> u64 {
        self.places
            .iter()
            .fold(0u64, |s, p| s.saturating_add(u64::from(marking[p.index()])))
    }

    /// The places as a [`Sum`] without constant.
    pub fn sum(&self) -> Sum {
        Sum {
            places: self.places.clone(),
            constant: 0,
        }
    }
}

/// The formula in the command line's syntax, with places and transitions by id.
pub struct Shown<'a> {
    net: &'a Net,
    formula: &'a Formula,
}

impl Formula {
    /// The formula written in the query syntax of `docs/queries.md`, names by PNML id.
    pub fn shown<'a>(&'a self, net: &'a Net) -> Shown<'a> {
        Shown { net, formula: self }
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let net = self.net;
        let sum = |f: &mut fmt::Formatter<'_>, s: &Sum| -> fmt::Result {
            let mut terms: Vec<String> = s
                .places
                .iter()
                .map(|p| net.places[p.index()].id.clone())
                .collect();
            if s.constant > 0 || terms.is_empty() {
                terms.push(s.constant.to_string());
            }
            f.write_str(&terms.join(" + "))
        };
        let list = |f: &mut fmt::Formatter<'_>, fs: &[Formula], op: &str, empty: &str| -> fmt::Result {
            if fs.is_empty() {
                return f.write_str(empty);
            }
            f.write_str("(")?;
            for (i, g) in fs.iter().enumerate() {
                if i > 0 {
                    write!(f, " {op} ")?;
                }
                write!(f, "{}", g.shown(net))?;
            }
            f.write_str(")")
        };
        match self.formula {
            Formula::Const(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Formula::Not(g) => write!(f, "NOT {}", g.shown(net)),
            Formula::And(fs) => list(f, fs, "AND", "TRUE"),
            Formula::Or(fs) => list(f, fs, "OR", "FALSE"),
            Formula::Le(a, b) => {
                sum(f, a)?;
                f.write_str(" <= ")?;
                sum(f, b)
            }
            Formula::Fireable(ts) => {
                let ids: Vec<&str> = ts
                    .iter()
                    .map(|t| net.transitions[t.index()].id.as_str())
                    .collect();
                write!(f, "FIREABLE({})", ids.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_read_markings_and_ag_is_the_negated_search() {
        let (mut net, [p, q]) = Net::with_places([("p", 1), ("q", 0)]);
        let t = net.add_transition_between("t", &[p], &[q]);
        let two_in_q = Formula::Le(
            Sum::constant(2),
            Sum {
                places: vec![q, q],
                constant: 0,
            },
        );
        let m0 = net.initial_marking();
        assert!(Formula::Fireable(vec![t]).holds(&net, &m0));
        assert!(!two_in_q.holds(&net, &m0));
        let mut m1 = m0.clone();
        assert!(net.fire(&mut m1, t));
        assert!(two_in_q.holds(&net, &m1), "q counted twice");
        assert!(!Formula::Fireable(vec![t]).holds(&net, &m1));
        let ag = Property {
            id: "x".into(),
            quantifier: Quantifier::Ag,
            formula: Formula::Fireable(vec![t]),
        };
        assert_eq!(ag.target(), Formula::Not(Box::new(Formula::Fireable(vec![t]))));
        assert!(!ag.value_when_reached(true));
        assert_eq!(ag.target().negated(), Formula::Fireable(vec![t]));
        assert_eq!(
            Formula::And(vec![two_in_q.clone(), Formula::Fireable(vec![t])]).support(),
            (vec![q], vec![t])
        );
        assert_eq!(
            Formula::Or(vec![two_in_q, Formula::Const(false)])
                .shown(&net)
                .to_string(),
            "(2 <= q + q OR FALSE)"
        );
    }
}
