//! Explicit prime event structures (paper.md §1.3) and their text format
//! (`docs/pes-format.md`): events with labels, causality pairs, conflict pairs and named
//! sets of events (such as the configuration C and the set D of an Alt question).
//!
//! A [`Pes`] is always a prime event structure: [`PesBuilder::build`] (which the reader
//! uses) checks the relations and refuses what is not one, explaining why. The reader and
//! the builder check:
//! - causality is a strict partial order: irreflexive and acyclic; it is transitively
//!   closed by the builder (`a < b` and `b < c` give `a < c`);
//! - conflict is irreflexive and symmetric (`a # b` declares both directions) and no
//!   declared conflict has a common effect-or-self (`a # b` with `a < b`, or with
//!   `a < x`, `b < x`, would put `b` or `x` in conflict with itself by inheritance);
//! - conflict is inherited (`a # b` and `b < c` need `a # c`): either every inherited pair
//!   is declared, or, with [`PesOptions::close_conflict`], the builder adds them;
//! - a set named `C` is a configuration (causally closed and conflict-free), and every
//!   event of a set named `D` is an extension of C (not in C, its causes in C).
//!
//! Errors of the reader are [`ParseError`]s at the offending declaration, naming the
//! other declarations involved by line and column.
//!
//! # Invariants
//! - `causes[e]` is the strict past ⌈e⌉, transitively closed and without e.
//! - `conflicts` is symmetric, irreflexive and inherited.

use super::proc::LineIndex;
use super::{ParseError, Pos};
use fixedbitset::FixedBitSet;
use nom::bytes::complete::{take_while, take_while1};
use nom::IResult;
use rustc_hash::FxHashMap;
use std::fmt;

/// The format version the reader understands and the writer writes (`pes 1`).
pub const FORMAT_VERSION: u32 = 1;

/// Identifies an event of a [`Pes`] (its index in declaration order).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct PesEventId(pub u32);

impl PesEventId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A finite labelled prime event structure with named sets of events.
#[derive(Clone, Debug)]
pub struct Pes {
    names: Vec<String>,
    labels: Vec<Option<String>>,
    index: FxHashMap<String, u32>,
    causes: Vec<FixedBitSet>,
    effects: Vec<FixedBitSet>,
    conflicts: Vec<FixedBitSet>,
    sets: Vec<(String, Vec<PesEventId>)>,
}

impl Pes {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The events, in declaration order.
    pub fn events(&self) -> impl Iterator<Item = PesEventId> + '_ {
        (0..self.names.len() as u32).map(PesEventId)
    }

    /// The event's name.
    pub fn name(&self, e: PesEventId) -> &str {
        &self.names[e.index()]
    }

    /// The event's label, when it has one.
    pub fn label(&self, e: PesEventId) -> Option<&str> {
        self.labels[e.index()].as_deref()
    }

    /// The event called `name`.
    pub fn find(&self, name: &str) -> Option<PesEventId> {
        self.index.get(name).map(|&i| PesEventId(i))
    }

    /// Whether `a` < `b` (strict causality).
    pub fn lt(&self, a: PesEventId, b: PesEventId) -> bool {
        self.causes[b.index()].contains(a.index())
    }

    /// Whether `a` ≤ `b`.
    pub fn le(&self, a: PesEventId, b: PesEventId) -> bool {
        a == b || self.lt(a, b)
    }

    /// Whether `a` # `b`.
    pub fn conflict(&self, a: PesEventId, b: PesEventId) -> bool {
        self.conflicts[a.index()].contains(b.index())
    }

    /// ⌈e⌉, the strict causes of `e`, as a bitset over event indices.
    pub fn causes(&self, e: PesEventId) -> &FixedBitSet {
        &self.causes[e.index()]
    }

    /// The strict effects of `e` (events above it), as a bitset over event indices.
    pub fn effects(&self, e: PesEventId) -> &FixedBitSet {
        &self.effects[e.index()]
    }

    /// #(e), the events in conflict with `e`, as a bitset over event indices.
    pub fn conflicts(&self, e: PesEventId) -> &FixedBitSet {
        &self.conflicts[e.index()]
    }

    /// The immediate causes of `e` (the Hasse diagram of <), in index order.
    pub fn immediate_causes(&self, e: PesEventId) -> Vec<PesEventId> {
        let mut imm = self.causes[e.index()].clone();
        for c in self.causes[e.index()].ones() {
            imm.difference_with(&self.causes[c]);
        }
        imm.ones().map(|i| PesEventId(i as u32)).collect()
    }

    /// #ᵢ(e): the events e' # e such that \[e\] ∪ ⌈e'⌉ and ⌈e⌉ ∪ \[e'\] are configurations
    /// (paper.md §1.3), in index order. By inheritance this is: no cause of e' conflicts
    /// with e, and no cause of e conflicts with e'.
    pub fn immediate_conflicts(&self, e: PesEventId) -> Vec<PesEventId> {
        let ce = &self.conflicts[e.index()];
        let pe = &self.causes[e.index()];
        ce.ones()
            .filter(|&f| ce.is_disjoint(&self.causes[f]) && self.conflicts[f].is_disjoint(pe))
            .map(|f| PesEventId(f as u32))
            .collect()
    }

    /// Whether `a` # `b` is not inherited from a conflict between causes (it is declared
    /// in a file written by [`crate::export::pes`] as is, the others too).
    pub fn is_minimal_conflict(&self, a: PesEventId, b: PesEventId) -> bool {
        self.conflict(a, b)
            && self.causes[a.index()].is_disjoint(&self.conflicts[b.index()])
            && self.causes[b.index()].is_disjoint(&self.conflicts[a.index()])
    }

    /// The named sets, in file order.
    pub fn sets(&self) -> impl Iterator<Item = (&str, &[PesEventId])> + '_ {
        self.sets.iter().map(|(n, s)| (n.as_str(), s.as_slice()))
    }

    /// The set called `name`.
    pub fn set(&self, name: &str) -> Option<&[PesEventId]> {
        self.sets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_slice())
    }

    /// Why `events` is not a configuration (causally closed and conflict-free), if it
    /// is not.
    pub fn configuration_violation(&self, events: &[PesEventId]) -> Option<String> {
        let mut member = FixedBitSet::with_capacity(self.len());
        for e in events {
            member.insert(e.index());
        }
        for &e in events {
            if let Some(c) = self.causes[e.index()].difference(&member).next() {
                return Some(format!(
                    "it holds `{}` but not its cause `{}`",
                    self.name(e),
                    self.names[c]
                ));
            }
            if let Some(f) = self.conflicts[e.index()].intersection(&member).next() {
                return Some(format!(
                    "it holds `{}` and `{}`, which are in conflict",
                    self.name(e),
                    self.names[f]
                ));
            }
        }
        None
    }

    /// Whether `e` ∈ ex(C) for the configuration `config` given as a bitset: e ∉ C and
    /// ⌈e⌉ ⊆ C.
    pub fn is_extension(&self, config: &FixedBitSet, e: PesEventId) -> bool {
        !config.contains(e.index()) && self.causes[e.index()].is_subset(config)
    }
}

/// Options of [`PesBuilder::build`] and [`parse`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PesOptions {
    /// Add the conflicts inherited through causality instead of refusing a conflict
    /// relation that is not closed.
    pub close_conflict: bool,
}

/// Why a [`PesBuilder`] cannot build a prime event structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PesError {
    /// Where the offending declaration is, when the events came from a file.
    pub pos: Option<Pos>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{}:{}: {}", p.line, p.col, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PesError {}

/// A declared pair, with where it was declared.
#[derive(Clone, Copy, Debug)]
struct Pair {
    a: u32,
    b: u32,
    pos: Option<Pos>,
}

/// Collects events, relations and sets, then checks and closes them into a [`Pes`].
///
/// ```
/// use qpor::parse::pes::{PesBuilder, PesOptions};
/// let mut b = PesBuilder::new();
/// let a = b.event("a", Some("x1=1".into())).unwrap();
/// let c = b.event("c", None).unwrap();
/// let d = b.event("d", None).unwrap();
/// b.causality(a, c);
/// b.conflict(c, d);
/// b.set("D", vec![d]);
/// let pes = b.clone().build(&PesOptions::default()).unwrap();
/// assert!(pes.lt(a, c) && pes.conflict(d, c) && !pes.conflict(a, d));
/// // `a # d` added to a PES where a < c: fine. `a # c`: a would conflict with its effect.
/// b.conflict(a, c);
/// assert!(b.build(&PesOptions::default()).unwrap_err().message.contains("in conflict with itself"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct PesBuilder {
    names: Vec<String>,
    labels: Vec<Option<String>>,
    positions: Vec<Option<Pos>>,
    index: FxHashMap<String, u32>,
    causality: Vec<Pair>,
    conflict: Vec<Pair>,
    sets: Vec<(String, Vec<PesEventId>, Option<Pos>)>,
}

impl PesBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares an event; fails if the name is taken.
    pub fn event(&mut self, name: &str, label: Option<String>) -> Result<PesEventId, PesError> {
        self.event_at(name, label, None)
    }

    fn event_at(
        &mut self,
        name: &str,
        label: Option<String>,
        pos: Option<Pos>,
    ) -> Result<PesEventId, PesError> {
        if let Some(&i) = self.index.get(name) {
            return Err(PesError {
                pos,
                message: format!(
                    "event `{name}` is declared twice{}",
                    at_text(self.positions[i as usize], " (first at ")
                ),
            });
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.labels.push(label);
        self.positions.push(pos);
        self.index.insert(name.to_string(), id);
        Ok(PesEventId(id))
    }

    /// The event called `name`, if declared.
    pub fn find(&self, name: &str) -> Option<PesEventId> {
        self.index.get(name).map(|&i| PesEventId(i))
    }

    /// Declares `a` < `b`.
    pub fn causality(&mut self, a: PesEventId, b: PesEventId) {
        self.causality.push(Pair {
            a: a.0,
            b: b.0,
            pos: None,
        });
    }

    /// Declares `a` # `b` (and so `b` # `a`).
    pub fn conflict(&mut self, a: PesEventId, b: PesEventId) {
        self.conflict.push(Pair {
            a: a.0,
            b: b.0,
            pos: None,
        });
    }

    /// Declares the named set `name`; duplicates inside it are dropped.
    pub fn set(&mut self, name: &str, events: Vec<PesEventId>) {
        self.sets.push((name.to_string(), events, None));
    }

    /// Checks the relations and returns the prime event structure (see the module
    /// documentation for what is checked).
    pub fn build(self, opts: &PesOptions) -> Result<Pes, PesError> {
        let n = self.names.len();
        let name = |i: u32| self.names[i as usize].as_str();
        // Causality: irreflexive, acyclic; then the transitive closure in topological order.
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, p) in self.causality.iter().enumerate() {
            if p.a == p.b {
                return Err(PesError {
                    pos: p.pos,
                    message: format!("causality must be irreflexive: `{} < {}`", name(p.a), name(p.b)),
                });
            }
            succ[p.a as usize].push(k);
        }
        let order = self.topological_order(&succ)?;
        let mut causes = vec![FixedBitSet::with_capacity(n); n];
        let mut direct: Vec<Vec<u32>> = vec![Vec::new(); n];
        for p in &self.causality {
            direct[p.b as usize].push(p.a);
        }
        for &b in &order {
            let mut past = FixedBitSet::with_capacity(n);
            for &a in &direct[b] {
                past.insert(a as usize);
                past.union_with(&causes[a as usize]);
            }
            causes[b] = past;
        }
        let mut effects = vec![FixedBitSet::with_capacity(n); n];
        for (b, past) in causes.iter().enumerate() {
            for a in past.ones() {
                effects[a].insert(b);
            }
        }
        let upset = |e: usize| {
            let mut s = effects[e].clone();
            s.insert(e);
            s
        };

        // Conflict: irreflexive, no common effect-or-self, then inherited.
        let mut base = vec![FixedBitSet::with_capacity(n); n];
        for p in &self.conflict {
            let (a, b) = (p.a as usize, p.b as usize);
            if a == b {
                return Err(PesError {
                    pos: p.pos,
                    message: format!("conflict must be irreflexive: `{} # {}`", name(p.a), name(p.b)),
                });
            }
            let (lo, hi) = if causes[b].contains(a) {
                (Some(a), b)
            } else if causes[a].contains(b) {
                (Some(b), a)
            } else {
                (None, 0)
            };
            if let Some(lo) = lo {
                return Err(PesError {
                    pos: p.pos,
                    message: format!(
                        "`{} # {}` relates causally ordered events (`{} < {}`): by inheritance `{}` would be in conflict with itself",
                        name(p.a),
                        name(p.b),
                        self.names[lo],
                        self.names[hi],
                        self.names[hi]
                    ),
                });
            }
            if let Some(x) = upset(a).intersection(&upset(b)).next() {
                return Err(PesError {
                    pos: p.pos,
                    message: format!(
                        "`{} # {}` but both are causes of `{}`: by inheritance `{}` would be in conflict with itself",
                        name(p.a),
                        name(p.b),
                        self.names[x],
                        self.names[x]
                    ),
                });
            }
            base[a].insert(b);
            base[b].insert(a);
        }
        // closed[x] = ⋃ over a ≤ x of ⋃ over b ∈ base[a] of ↑b.
        let mut reach = vec![FixedBitSet::with_capacity(n); n];
        for (a, bs) in base.iter().enumerate() {
            for b in bs.ones() {
                reach[a].union_with(&upset(b));
            }
        }
        let mut closed = vec![FixedBitSet::with_capacity(n); n];
        for x in 0..n {
            let mut s = reach[x].clone();
            for a in causes[x].ones() {
                s.union_with(&reach[a]);
            }
            closed[x] = s;
        }
        if !opts.close_conflict {
            for x in 0..n {
                if let Some(y) = closed[x].difference(&base[x]).next() {
                    return Err(self.not_inherited(x, y, &causes, &base));
                }
            }
        }
        let conflicts = closed;

        // Sets.
        let mut sets: Vec<(String, Vec<PesEventId>)> = Vec::new();
        let mut set_pos: Vec<Option<Pos>> = Vec::new();
        for (set_name, events, pos) in &self.sets {
            if let Some(k) = sets.iter().position(|(s, _)| s == set_name) {
                return Err(PesError {
                    pos: *pos,
                    message: format!(
                        "set `{set_name}` is declared twice{}",
                        at_text(set_pos[k], " (first at ")
                    ),
                });
            }
            let mut seen = FixedBitSet::with_capacity(n);
            let mut list = Vec::with_capacity(events.len());
            for &e in events {
                if !seen.put(e.index()) {
                    list.push(e);
                }
            }
            sets.push((set_name.clone(), list));
            set_pos.push(*pos);
        }
        let pes = Pes {
            names: self.names.clone(),
            labels: self.labels.clone(),
            index: self.index.clone(),
            causes,
            effects,
            conflicts,
            sets,
        };
        let find = |s: &str| pes.sets.iter().position(|(n, _)| n == s);
        let mut config = FixedBitSet::with_capacity(n);
        if let Some(k) = find("C") {
            if let Some(why) = pes.configuration_violation(&pes.sets[k].1) {
                return Err(PesError {
                    pos: set_pos[k],
                    message: format!("set C must be a configuration, but {why}"),
                });
            }
            for e in &pes.sets[k].1 {
                config.insert(e.index());
            }
        }
        if let Some(k) = find("D") {
            for &d in &pes.sets[k].1 {
                if config.contains(d.index()) {
                    return Err(PesError {
                        pos: set_pos[k],
                        message: format!(
                            "`{}` is in both C and D; D must be a set of extensions of C",
                            pes.name(d)
                        ),
                    });
                }
                if let Some(c) = pes.causes[d.index()].difference(&config).next() {
                    return Err(PesError {
                        pos: set_pos[k],
                        message: format!(
                            "`{}` in D is not an extension of C: its cause `{}` is not in C",
                            pes.name(d),
                            pes.names[c]
                        ),
                    });
                }
            }
        }
        Ok(pes)
    }

    /// Kahn's algorithm; a cycle is reported with the declarations that close it.
    fn topological_order(&self, succ: &[Vec<usize>]) -> Result<Vec<usize>, PesError> {
        let n = self.names.len();
        let mut indegree = vec![0usize; n];
        for p in &self.causality {
            indegree[p.b as usize] += 1;
        }
        let mut ready: Vec<usize> = (0..n).rev().filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(a) = ready.pop() {
            order.push(a);
            for &k in &succ[a] {
                let b = self.causality[k].b as usize;
                indegree[b] -= 1;
                if indegree[b] == 0 {
                    ready.push(b);
                }
            }
        }
        if order.len() == n {
            return Ok(order);
        }
        // Every event left has a predecessor left: walk backwards until an event repeats.
        let left: Vec<bool> = indegree.iter().map(|&d| d > 0).collect();
        let mut back: Vec<Option<usize>> = vec![None; n];
        for (k, p) in self.causality.iter().enumerate() {
            if left[p.a as usize] && left[p.b as usize] && back[p.b as usize].is_none() {
                back[p.b as usize] = Some(k);
            }
        }
        let start = (0..n).find(|&i| left[i]).unwrap_or(0);
        let mut seen = vec![usize::MAX; n];
        let mut path: Vec<usize> = Vec::new();
        let mut x = start;
        while seen[x] == usize::MAX {
            seen[x] = path.len();
            let Some(k) = back[x] else { break };
            path.push(k);
            x = self.causality[k].a as usize;
        }
        let mut cycle: Vec<usize> = path[seen[x].min(path.len())..].to_vec();
        cycle.reverse();
        // Start at the declaration that comes last in the file, so the error points where
        // the cycle is closed.
        let last = (0..cycle.len())
            .max_by_key(|&i| self.causality[cycle[i]].pos.map(|p| (p.line, p.col)))
            .unwrap_or(0);
        let len = cycle.len().max(1);
        cycle.rotate_left((last + 1) % len);
        let mut text = String::new();
        let mut places = Vec::new();
        for (i, &k) in cycle.iter().enumerate() {
            let p = self.causality[k];
            if i == 0 {
                text.push_str(&format!("`{}", self.names[p.a as usize]));
            }
            text.push_str(&format!(" < {}", self.names[p.b as usize]));
            if let Some(pos) = p.pos {
                places.push(format!("{}:{}", pos.line, pos.col));
            }
        }
        text.push('`');
        let pos = cycle.last().and_then(|&k| self.causality[k].pos);
        Err(PesError {
            pos,
            message: format!(
                "causality must be acyclic, but it has the cycle {text}{}",
                if places.is_empty() {
                    String::new()
                } else {
                    format!(" (declared at {})", places.join(", "))
                }
            ),
        })
    }

    fn not_inherited(&self, x: usize, y: usize, causes: &[FixedBitSet], base: &[FixedBitSet]) -> PesError {
        // Find the declared a # b with a ≤ x and b ≤ y.
        let le = |a: usize, b: usize| a == b || causes[b].contains(a);
        let pair = self
            .conflict
            .iter()
            .find(|p| {
                let (a, b) = (p.a as usize, p.b as usize);
                (le(a, x) && le(b, y)) || (le(b, x) && le(a, y))
            })
            .copied();
        let (pos, why) = match pair {
            Some(p) => {
                let (a, b) = if le(p.a as usize, x) && le(p.b as usize, y) {
                    (p.a as usize, p.b as usize)
                } else {
                    (p.b as usize, p.a as usize)
                };
                let mut steps = Vec::new();
                if a != x {
                    steps.push(format!("`{} < {}`", self.names[a], self.names[x]));
                }
                if b != y {
                    steps.push(format!("`{} < {}`", self.names[b], self.names[y]));
                }
                (
                    p.pos,
                    format!(
                        "`{} # {}` and {} imply `{} # {}`",
                        self.names[a],
                        self.names[b],
                        steps.join(" and "),
                        self.names[x],
                        self.names[y]
                    ),
                )
            }
            None => (
                None,
                format!("`{} # {}` is inherited", self.names[x], self.names[y]),
            ),
        };
        debug_assert!(!base[x].contains(y));
        PesError {
            pos,
            message: format!(
                "conflict must be inherited: {why}, which is not declared; declare it, or let the reader \
                 close the conflict relation (`--close-conflict`)"
            ),
        }
    }
}

fn at_text(pos: Option<Pos>, prefix: &str) -> String {
    match pos {
        Some(p) => format!("{prefix}{}:{})", p.line, p.col),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------
// The reader.

/// A token of the format, with its byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Name(String),
    Str(String),
    Lt,
    Hash,
    Eq,
    LBrace,
    RBrace,
    Comma,
    Newline,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("`{n}`"),
            Tok::Str(_) => "a quoted label".into(),
            Tok::Lt => "`<`".into(),
            Tok::Hash => "`#`".into(),
            Tok::Eq => "`=`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Newline => "the end of the line".into(),
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '\''
}

fn name_token(i: &str) -> IResult<&str, &str> {
    take_while1(is_name_char)(i)
}

fn blanks(i: &str) -> IResult<&str, &str> {
    take_while(|c: char| c == ' ' || c == '\t' || c == '\r')(i)
}

/// Splits the text into tokens; `//` comments are dropped, line breaks kept.
fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    let offset = |r: &str| text.len() - r.len();
    loop {
        if let Ok((r, _)) = blanks(rest) {
            rest = r;
        }
        let at = offset(rest);
        let Some(c) = rest.chars().next() else { break };
        let single = match c {
            '\n' => Some(Tok::Newline),
            '<' => Some(Tok::Lt),
            '#' => Some(Tok::Hash),
            '=' => Some(Tok::Eq),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            ',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(t) = single {
            out.push((t, at));
            rest = &rest[1..];
            continue;
        }
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            rest = &rest[end..];
            continue;
        }
        if c == '"' {
            let mut label = String::new();
            let mut chars = rest[1..].char_indices();
            let mut end = None;
            while let Some((k, ch)) = chars.next() {
                match ch {
                    '"' => {
                        end = Some(k + 2);
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, '"')) => label.push('"'),
                        Some((_, '\\')) => label.push('\\'),
                        Some((_, 'n')) => label.push('\n'),
                        Some((k2, other)) => {
                            return Err((
                                at + 1 + k2,
                                format!("unknown escape `\\{other}` in a label (use \\\", \\\\ or \\n)"),
                            ))
                        }
                        None => break,
                    },
                    '\n' => break,
                    _ => label.push(ch),
                }
            }
            let Some(end) = end else {
                return Err((
                    at,
                    "unterminated label: a `\"` is missing before the end of the line".into(),
                ));
            };
            out.push((Tok::Str(label), at));
            rest = &rest[end..];
            continue;
        }
        match name_token(rest) {
            Ok((r, n)) => {
                out.push((Tok::Name(n.to_string()), at));
                rest = r;
            }
            Err(_) => {
                return Err((
                    at,
                    format!("unexpected character `{c}` (names are letters, digits, `_`, `.` and `'`)"),
                ))
            }
        }
    }
    Ok(out)
}

struct Reader<'t> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    lines: LineIndex<'t>,
    end: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn offset(&self) -> usize {
        self.toks.get(self.at).map(|(_, o)| *o).unwrap_or(self.end)
    }

    fn pos(&self) -> Pos {
        self.lines.pos(self.offset())
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).map(|(t, _)| t.clone());
        self.at += 1;
        t
    }

    fn found(&self) -> String {
        self.peek()
            .map(|t| t.describe())
            .unwrap_or_else(|| "the end of the file".into())
    }

    fn fail<T>(&self, message: String) -> Result<T, (Pos, String)> {
        Err((self.pos(), message))
    }

    fn skip_newlines(&mut self) {
        while self.peek() == Some(&Tok::Newline) {
            self.at += 1;
        }
    }

    fn end_of_statement(&mut self) -> Result<(), (Pos, String)> {
        match self.peek() {
            None => Ok(()),
            Some(Tok::Newline) => {
                self.at += 1;
                Ok(())
            }
            Some(_) => self.fail(format!("expected the end of the line, found {}", self.found())),
        }
    }

    fn name(&mut self, what: &str) -> Result<(String, Pos), (Pos, String)> {
        let pos = self.pos();
        match self.peek() {
            Some(Tok::Name(n)) if !is_keyword(n) => {
                let n = n.clone();
                self.at += 1;
                Ok((n, pos))
            }
            _ => self.fail(format!("expected {what}, found {}", self.found())),
        }
    }
}

fn is_keyword(n: &str) -> bool {
    matches!(n, "pes" | "event" | "set")
}

/// Reads an explicit PES text; `file` names it in errors.
///
/// ```
/// use qpor::parse::pes::{parse, PesOptions};
/// let text = "pes 1\nevent a \"x1=1\"\nevent b\nevent d\na # b d\nset C = {}\nset D = { d }\n";
/// let pes = parse(text, "t.pes", &PesOptions::default()).unwrap();
/// let (a, d) = (pes.find("a").unwrap(), pes.find("d").unwrap());
/// assert!(pes.conflict(d, a));
/// assert_eq!(pes.label(a), Some("x1=1"));
/// assert_eq!(pes.set("D"), Some(&[d][..]));
/// let err = parse("pes 1\nevent a\na < a\n", "t.pes", &PesOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "t.pes:3:1: causality must be irreflexive: `a < a`");
/// ```
pub fn parse(text: &str, file: &str, opts: &PesOptions) -> Result<Pes, ParseError> {
    let lines = LineIndex::new(text);
    let error = |pos: Pos, message: String| ParseError {
        file: file.to_string(),
        pos,
        message,
    };
    let toks = tokens(text).map_err(|(o, m)| error(lines.pos(o), m))?;
    let mut r = Reader {
        toks,
        at: 0,
        lines,
        end: text.len(),
    };
    let builder = read_statements(&mut r).map_err(|(p, m)| error(p, m))?;
    builder
        .build(opts)
        .map_err(|e| error(e.pos.unwrap_or(Pos { line: 1, col: 1 }), e.message))
}

/// Whether `text` looks like an explicit PES file: its first token is `pes`.
pub fn looks_like_pes(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//") {
            rest = rest.find('\n').map(|k| &rest[k..]).unwrap_or("");
            continue;
        }
        return rest.starts_with("pes") && rest[3..].chars().next().is_none_or(|c| !is_name_char(c));
    }
}

fn read_statements(r: &mut Reader) -> Result<PesBuilder, (Pos, String)> {
    let mut b = PesBuilder::new();
    r.skip_newlines();
    match r.peek() {
        Some(Tok::Name(n)) if n == "pes" => {
            r.at += 1;
        }
        _ => {
            return r.fail(format!(
                "expected the header `pes {FORMAT_VERSION}` (an explicit prime event structure), found {}",
                r.found()
            ))
        }
    }
    if let Some(Tok::Name(v)) = r.peek() {
        if v != &FORMAT_VERSION.to_string() {
            return r.fail(format!(
                "unknown format version `{v}`: this reader knows version {FORMAT_VERSION}"
            ));
        }
        r.at += 1;
    }
    r.end_of_statement()?;
    loop {
        r.skip_newlines();
        let Some(t) = r.peek().cloned() else { break };
        let stmt_pos = r.pos();
        match t {
            Tok::Name(k) if k == "event" => {
                r.at += 1;
                let (name, pos) = r.name("an event name")?;
                let label = match r.peek() {
                    Some(Tok::Str(s)) => {
                        let s = s.clone();
                        r.at += 1;
                        Some(s)
                    }
                    _ => None,
                };
                b.event_at(&name, label, Some(pos))
                    .map_err(|e| (pos, e.message))?;
                r.end_of_statement()?;
            }
            Tok::Name(k) if k == "set" => {
                r.at += 1;
                let (name, _) = r.name("a set name")?;
                if r.next() != Some(Tok::Eq) {
                    r.at -= 1;
                    return r.fail(format!("expected `=` after the set name, found {}", r.found()));
                }
                while r.peek() == Some(&Tok::Newline) {
                    r.at += 1;
                }
                if r.next() != Some(Tok::LBrace) {
                    r.at -= 1;
                    return r.fail(format!("expected `{{` to open the set, found {}", r.found()));
                }
                let mut events = Vec::new();
                loop {
                    match r.peek() {
                        Some(Tok::RBrace) => {
                            r.at += 1;
                            break;
                        }
                        Some(Tok::Newline) | Some(Tok::Comma) => r.at += 1,
                        Some(Tok::Name(_)) => {
                            let (e, pos) = r.name("an event name")?;
                            events.push(resolve(&b, &e, pos)?);
                        }
                        _ => return r.fail(format!("expected an event name or `}}`, found {}", r.found())),
                    }
                }
                b.sets.push((name, events, Some(stmt_pos)));
                r.end_of_statement()?;
            }
            Tok::Name(_) => {
                let (first, pos) = r.name("an event name")?;
                let a = resolve(&b, &first, pos)?;
                let causal = match r.next() {
                    Some(Tok::Lt) => true,
                    Some(Tok::Hash) => false,
                    _ => {
                        r.at -= 1;
                        return r.fail(format!(
                            "expected `<` (causality) or `#` (conflict) after `{first}`, found {}",
                            r.found()
                        ));
                    }
                };
                let mut any = false;
                loop {
                    match r.peek() {
                        None | Some(Tok::Newline) if any => break,
                        Some(Tok::Comma) if any => r.at += 1,
                        _ => {
                            let (e, epos) = r.name("an event name")?;
                            let x = resolve(&b, &e, epos)?;
                            let pair = Pair {
                                a: a.0,
                                b: x.0,
                                pos: Some(stmt_pos),
                            };
                            if causal {
                                b.causality.push(pair);
                            } else {
                                b.conflict.push(pair);
                            }
                            any = true;
                        }
                    }
                }
                r.end_of_statement()?;
            }
            _ => {
                return r.fail(format!(
                    "expected a statement (`event`, `set`, `A < B`, `A # B`), found {}",
                    r.found()
                ))
            }
        }
    }
    Ok(b)
}

fn resolve(b: &PesBuilder, name: &str, pos: Pos) -> Result<PesEventId, (Pos, String)> {
    b.find(name).ok_or_else(|| {
        (
            pos,
            format!("unknown event `{name}` (declare it with `event {name}` first)"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Pes, String> {
        parse(text, "t.pes", &PesOptions::default()).map_err(|e| e.to_string())
    }

    fn read_closed(text: &str) -> Result<Pes, String> {
        parse(text, "t.pes", &PesOptions { close_conflict: true }).map_err(|e| e.to_string())
    }

    #[test]
    fn causality_is_closed_transitively() {
        let pes = read("pes\nevent a\nevent b\nevent c\na < b\nb < c\n").unwrap();
        let [a, b, c] = ["a", "b", "c"].map(|n| pes.find(n).unwrap());
        assert!(pes.lt(a, c) && pes.lt(a, b) && !pes.lt(c, a));
        assert_eq!(pes.immediate_causes(c), vec![b]);
    }

    #[test]
    fn cycles_are_reported_where_they_close() {
        let e = read("pes 1\nevent a\nevent b\nevent c\na < b\nb < c\nc < a\n").unwrap_err();
        assert_eq!(
            e,
            "t.pes:7:1: causality must be acyclic, but it has the cycle `a < b < c < a` (declared at 5:1, 6:1, 7:1)"
        );
    }

    #[test]
    fn conflict_must_be_irreflexive_and_inherited() {
        assert_eq!(
            read("pes\nevent a\na # a\n").unwrap_err(),
            "t.pes:3:1: conflict must be irreflexive: `a # a`"
        );
        let text = "pes\nevent a\nevent b\nevent c\na # b\nb < c\n";
        let e = read(text).unwrap_err();
        assert!(
            e.starts_with("t.pes:5:1: conflict must be inherited: `a # b` and `b < c` imply `a # c`"),
            "{e}"
        );
        let pes = read_closed(text).unwrap();
        let [a, c] = ["a", "c"].map(|n| pes.find(n).unwrap());
        assert!(pes.conflict(a, c) && pes.conflict(c, a));
        assert!(!pes.is_minimal_conflict(a, c));
        assert_eq!(pes.immediate_conflicts(a), vec![pes.find("b").unwrap()]);
        assert!(read(&format!("{text}a # c\n")).is_ok());
    }

    #[test]
    fn self_conflict_by_inheritance_is_refused() {
        let e = read_closed("pes\nevent a\nevent b\na < b\na # b\n").unwrap_err();
        assert!(e.contains("`b` would be in conflict with itself"), "{e}");
        let e = read_closed("pes\nevent a\nevent b\nevent x\na < x\nb < x\na # b\n").unwrap_err();
        assert!(
            e.starts_with("t.pes:7:1: `a # b` but both are causes of `x`"),
            "{e}"
        );
    }

    #[test]
    fn sets_are_checked() {
        let base = "pes\nevent a\nevent b\nevent c\na < b\na # c\nb # c\n";
        assert!(read(&format!("{base}set C = {{ a }}\nset D = {{ b c }}\n")).is_ok());
        let e = read(&format!("{base}set C = {{ b }}\n")).unwrap_err();
        assert_eq!(
            e,
            "t.pes:8:1: set C must be a configuration, but it holds `b` but not its cause `a`"
        );
        let e = read(&format!("{base}set C = {{ a c }}\n")).unwrap_err();
        assert!(e.contains("which are in conflict"), "{e}");
        let e = read(&format!("{base}set D = {{ b }}\n")).unwrap_err();
        assert_eq!(
            e,
            "t.pes:8:1: `b` in D is not an extension of C: its cause `a` is not in C"
        );
        let e = read(&format!("{base}set C = {{ a }}\nset D = {{\n  a\n}}\n")).unwrap_err();
        assert!(e.contains("in both C and D"), "{e}");
        let e = read(&format!("{base}set C = {{ x }}\n")).unwrap_err();
        assert_eq!(
            e,
            "t.pes:8:11: unknown event `x` (declare it with `event x` first)"
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        assert_eq!(
            read("event a\n").unwrap_err(),
            "t.pes:1:1: expected the header `pes 1` (an explicit prime event structure), found `event`"
        );
        assert_eq!(
            read("pes 2\n").unwrap_err(),
            "t.pes:1:5: unknown format version `2`: this reader knows version 1"
        );
        assert_eq!(
            read("pes\nevent a \"x\n").unwrap_err(),
            "t.pes:2:9: unterminated label: a `\"` is missing before the end of the line"
        );
        assert_eq!(
            read("pes\nevent a\na b\n").unwrap_err(),
            "t.pes:3:3: expected `<` (causality) or `#` (conflict) after `a`, found `b`"
        );
        assert_eq!(
            read("pes\nevent a\nevent a\n").unwrap_err(),
            "t.pes:3:7: event `a` is declared twice (first at 2:7)"
        );
        assert_eq!(
            read("pes\nevent a ;\n").unwrap_err(),
            "t.pes:2:9: unexpected character `;` (names are letters, digits, `_`, `.` and `'`)"
        );
        assert_eq!(
            read("pes\nevent a\na <\n").unwrap_err(),
            "t.pes:3:4: expected an event name, found the end of the line"
        );
    }

    #[test]
    fn detection_skips_comments() {
        assert!(looks_like_pes("// hello\n\n  pes 1\n"));
        assert!(!looks_like_pes("pest\n"));
        assert!(!looks_like_pes("<?xml"));
    }
}
