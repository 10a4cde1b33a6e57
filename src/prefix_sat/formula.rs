//! The formulas of a complete prefix, in conjunctive normal form: the deadlock formula,
//! the clauses that block a dead marking once it has been found (for `--all`), and the
//! reachability targets of properties.
//!
//! Variables (DIMACS numbering, from 1):
//! - one per event that may belong to the configuration C: every event but the cutoffs,
//!   and every fault event (cutoff or not, see below);
//! - one per condition that may be in the cut of C, true exactly when it is: its producer
//!   is in C (or it is initial) and none of its consumers is;
//! - one that is always true (constants are its literal and its negation), one that selects
//!   the fault question when the prefix has fault events, and the auxiliary variables of
//!   the at-most-one constraints and of the counters.
//!
//! Clauses:
//! - **causal closure**: an event implies the producer of each condition it consumes (a
//!   cutoff producer has no variable, so its consumers are false: C is cutoff-free);
//! - **no conflict**: at most one consumer of each condition (pairwise up to
//!   `PAIRWISE_MAX` consumers, then Sinz's sequential encoding);
//! - **the cut**: both directions of "condition c is in the cut";
//! - **dead** (the deadlock question): for every event of the prefix, cutoffs and faults
//!   included, some condition of its preset is not in the cut. One clause per distinct
//!   preset.
//! - **one fault** (the fault question, programs only): exactly one fault event in C, and
//!   no dead clause.
//! - **targets** (reachability properties, instead of dead and fault): one literal per
//!   property's target formula, true exactly when Mark(C) satisfies it, asked as an
//!   assumption. The tokens of a sum of places are a unary counter over the cut's
//!   conditions (a condition counts as many tokens as it stands for on those places), so
//!   `a <= b` is "for every j, at least j in a implies at least j + const(a) − const(b) in
//!   b"; `fireable(t)` is "the preset of some event of t (cutoffs included) is in the cut".
//!
//! Why "every event disabled" means "the marking is dead": if a transition (a step) were
//! enabled at Mark(C), it would consume conditions of cut(C), and the unfolding has an event
//! with that preset; its causes lie in C, which holds no cutoff, so the event belongs to the
//! prefix (as a cutoff perhaps) and its clause is violated. This holds for the general
//! backend on non-safe nets too: each token is a condition of its own, every choice of
//! tokens is an event, and `•e ⊆ cut(C)` is what enabling means.
//!
//! Why `fireable(t)` is exact: an event of t whose preset is in cut(C) makes t enabled at
//! Mark(C), and conversely, as for the dead clauses, t enabled at Mark(C) has an event in
//! the prefix whose preset is in cut(C). So a target has a model exactly when some
//! cutoff-free configuration's marking satisfies it, which, by completeness (below), is
//! exactly when some reachable marking does.
//!
//! Why every dead marking has a model: the prefix is complete (Esparza, Römer, Vogler; on a
//! net that is not safe, the token prefix decides no cutoff by ERV's tie-break between
//! histories of equal size, see `PrefixOutcome::started_over`), so every reachable
//! marking is Mark(C) for a cutoff-free C. Fault events are not extended
//! (the explicit search does not expand fault states either), so a fault-free reachable
//! marking has a fault-free cutoff-free configuration (the ERV shift of a fault-free C stays
//! fault-free: the marking of a fault event's history holds the fault), and a reachable
//! fault state is Mark(C ∪ {e}) for such a C and a fault event e — which may itself be a
//! cutoff, hence the fault events' variables.

use crate::system::cnf::{Cnf, Lit};
use crate::system::property::{Formula, Sum};
use crate::unfold::prefix::Prefix;
use rustc_hash::{FxHashMap, FxHashSet};

/// Up to this many literals, "at most one" is written pairwise; above, with the sequential
/// counter (n − 1 auxiliary variables, 3n clauses instead of n²/2).
const PAIRWISE_MAX: usize = 6;

/// Which question a solver call asks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Question {
    /// A fault-free cutoff-free configuration whose marking is dead.
    Dead,
    /// A cutoff-free configuration plus one fault event.
    Fault,
}

/// A unary counter of the true literals among `inputs`: `columns[j - 1][i]` is true exactly
/// when at least j of `inputs[..=i]` are (columns built on demand).
#[derive(Default)]
struct Counter {
    inputs: Vec<Lit>,
    columns: Vec<Vec<Lit>>,
}

/// The tokens each condition of a prefix stands for on the places of its net: one on its
/// place for the general backend; for the program backend, those of the component's local
/// state (a place's tokens, or the marked place of a unit).
pub(crate) struct CutTokens {
    /// Per place: (condition, tokens it stands for there).
    by_place: Vec<Vec<(u32, u32)>>,
}

impl CutTokens {
    /// From the (place, tokens) pairs of each condition, for a net of `places` places.
    pub(crate) fn new(
        places: usize,
        of_condition: impl IntoIterator<Item = (u32, Vec<(u32, u32)>)>,
    ) -> CutTokens {
        let mut by_place = vec![Vec::new(); places];
        for (c, pairs) in of_condition {
            for (p, n) in pairs {
                by_place[p as usize].push((c, n));
            }
        }
        CutTokens { by_place }
    }

    /// The inputs of a counter of the tokens of `sum` in the cut: each condition's cut
    /// literal (from `cut`; none when constantly false) once per token it stands for there;
    /// `None` beyond [`MAX_TARGET_VARIABLES`] inputs.
    fn counter_inputs(&self, sum: &Sum, cut: &[Lit], truth: Lit) -> Option<Vec<Lit>> {
        let mut weight: FxHashMap<u32, u64> = FxHashMap::default();
        for p in &sum.places {
            for &(c, n) in &self.by_place[p.index()] {
                *weight.entry(c).or_default() += u64::from(n);
            }
        }
        let mut conditions: Vec<(u32, u64)> = weight.into_iter().collect();
        conditions.sort_unstable();
        let mut inputs = Vec::new();
        for (c, w) in conditions {
            let lit = cut[c as usize];
            if lit != -truth {
                if (inputs.len() as u64).saturating_add(w) > MAX_TARGET_VARIABLES {
                    return None;
                }
                inputs.extend(std::iter::repeat_n(lit, w as usize));
            }
        }
        Some(inputs)
    }
}

/// Most counter variables one target may add (a sum over many conditions compared with a
/// large bound); beyond it the property is left unknown.
pub(crate) const MAX_TARGET_VARIABLES: u64 = 4_000_000;

/// The formula of one prefix, growing as markings are blocked and targets are added.
pub(crate) struct PrefixFormula {
    cnf: Cnf,
    truth: Lit,
    /// Per event: its variable, or 0 (a cutoff that is no fault: never in C).
    event: Vec<Lit>,
    /// Per condition: its cut variable, or the constant false.
    cut: Vec<Lit>,
    /// The fault question's selector, when the prefix has fault events.
    fault_selector: Option<Lit>,
    /// Per label (place of a net, local state of a component): a counter of its
    /// conditions in the cut.
    labels: Vec<Counter>,
    /// Per event preset already encoded: the literal "the preset is in the cut".
    enabled: FxHashMap<Vec<u32>, Lit>,
    /// Per condition: its label's index.
    label_of: Vec<u32>,
}

impl PrefixFormula {
    /// The deadlock formula of `prefix`, whose events `faults` lead to faults.
    pub(crate) fn deadlock(prefix: &Prefix, faults: &[u32]) -> PrefixFormula {
        let mut f = PrefixFormula::configurations(prefix, faults);
        f.fault_question(faults);
        f.dead_clauses(prefix);
        f
    }

    /// The cutoff-free configurations of `prefix` and their cuts, without a question:
    /// targets are added by [`PrefixFormula::target`].
    pub(crate) fn reachability(prefix: &Prefix) -> PrefixFormula {
        PrefixFormula::configurations(prefix, &[])
    }

    /// Causal closure, no conflict and the cut.
    fn configurations(prefix: &Prefix, faults: &[u32]) -> PrefixFormula {
        let mut f = PrefixFormula {
            cnf: Cnf::default(),
            truth: 0,
            event: Vec::with_capacity(prefix.events.len()),
            cut: Vec::with_capacity(prefix.conditions.len()),
            fault_selector: None,
            labels: Vec::new(),
            label_of: Vec::with_capacity(prefix.conditions.len()),
            enabled: FxHashMap::default(),
        };
        f.truth = f.cnf.new_var();
        f.cnf.clauses.push(vec![f.truth]);
        let mut is_fault = vec![false; prefix.events.len()];
        for &e in faults {
            is_fault[e as usize] = true;
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let lit = if e.cutoff.is_none() || is_fault[i] {
                f.cnf.new_var()
            } else {
                0
            };
            f.event.push(lit);
        }
        f.causal_closure(prefix);
        let consumers = f.consumers(prefix);
        for list in &consumers {
            f.at_most_one(list);
        }
        f.cut_variables(prefix, &consumers);
        f.label_counters(prefix);
        f
    }

    fn causal_closure(&mut self, prefix: &Prefix) {
        for (i, e) in prefix.events.iter().enumerate() {
            let x = self.event[i];
            if x == 0 {
                continue;
            }
            for &c in &e.preset {
                if let Some(p) = prefix.conditions[c as usize].producer {
                    let cause = self.event[p as usize];
                    self.add(vec![-x, if cause == 0 { -self.truth } else { cause }]);
                }
            }
        }
    }

    /// Per condition, the variables of its consumers.
    fn consumers(&self, prefix: &Prefix) -> Vec<Vec<Lit>> {
        let mut consumers = vec![Vec::new(); prefix.conditions.len()];
        for (i, e) in prefix.events.iter().enumerate() {
            if self.event[i] != 0 {
                for &c in &e.preset {
                    consumers[c as usize].push(self.event[i]);
                }
            }
        }
        consumers
    }

    fn fault_question(&mut self, faults: &[u32]) {
        if faults.is_empty() {
            return;
        }
        let sel = self.cnf.new_var();
        self.fault_selector = Some(sel);
        let lits: Vec<Lit> = faults.iter().map(|&e| self.event[e as usize]).collect();
        for &x in &lits {
            self.add(vec![-x, sel]);
        }
        let mut some = vec![-sel];
        some.extend_from_slice(&lits);
        self.add(some);
        self.at_most_one(&lits);
    }

    fn cut_variables(&mut self, prefix: &Prefix, consumers: &[Vec<Lit>]) {
        for (c, cond) in prefix.conditions.iter().enumerate() {
            let produced = match cond.producer {
                None => self.truth,
                Some(p) if self.event[p as usize] == 0 => -self.truth,
                Some(p) => self.event[p as usize],
            };
            if produced == -self.truth {
                self.cut.push(-self.truth);
                continue;
            }
            let k = self.cnf.new_var();
            self.cut.push(k);
            let mut enough = vec![k, -produced];
            enough.extend_from_slice(&consumers[c]);
            self.add(enough);
            self.add(vec![-k, produced]);
            for &x in &consumers[c] {
                self.add(vec![-k, -x]);
            }
        }
    }

    fn dead_clauses(&mut self, prefix: &Prefix) {
        let mut seen: FxHashSet<&[u32]> = FxHashSet::default();
        for e in &prefix.events {
            if !seen.insert(&e.preset) {
                continue;
            }
            let mut clause: Vec<Lit> = e.preset.iter().map(|&c| -self.cut[c as usize]).collect();
            // An event enabled everywhere (empty preset) leaves only the fault question.
            clause.extend(self.fault_selector);
            if clause.is_empty() {
                clause.push(-self.truth);
            }
            self.add(clause);
        }
    }

    fn label_counters(&mut self, prefix: &Prefix) {
        let mut index: FxHashMap<(u32, &str), u32> = FxHashMap::default();
        for (c, cond) in prefix.conditions.iter().enumerate() {
            let next = index.len() as u32;
            let l = *index.entry((cond.place, cond.label.as_str())).or_insert(next);
            if l == next {
                self.labels.push(Counter {
                    inputs: Vec::new(),
                    columns: Vec::new(),
                });
            }
            self.label_of.push(l);
            if self.cut[c] != -self.truth {
                self.labels[l as usize].inputs.push(self.cut[c]);
            }
        }
    }

    /// Adds `clause` without its false literals, or not at all when it holds a true one.
    fn add(&mut self, clause: Vec<Lit>) {
        if clause.contains(&self.truth) {
            return;
        }
        let kept: Vec<Lit> = clause.into_iter().filter(|&l| l != -self.truth).collect();
        self.cnf
            .clauses
            .push(if kept.is_empty() { vec![-self.truth] } else { kept });
    }

    fn at_most_one(&mut self, lits: &[Lit]) {
        if lits.len() <= PAIRWISE_MAX {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.add(vec![-a, -b]);
                }
            }
            return;
        }
        // s_i: some of lits[..=i] is true.
        let mut prev = self.cnf.new_var();
        self.add(vec![-lits[0], prev]);
        for &x in &lits[1..lits.len() - 1] {
            let s = self.cnf.new_var();
            self.add(vec![-x, s]);
            self.add(vec![-prev, s]);
            self.add(vec![-x, -prev]);
            prev = s;
        }
        self.add(vec![-lits[lits.len() - 1], -prev]);
    }

    /// The literal "at least `j` conditions of label `l` are in the cut" (j ≥ 1), building
    /// the counter's columns up to `j`.
    fn at_least(&mut self, l: usize, j: usize) -> Lit {
        let mut counter = std::mem::take(&mut self.labels[l]);
        let lit = self.counted(&mut counter, j);
        self.labels[l] = counter;
        lit
    }

    /// The literal "at least `j` inputs of `counter` are true" (j ≥ 1), building its
    /// columns up to `j`.
    fn counted(&mut self, counter: &mut Counter, j: usize) -> Lit {
        let m = counter.inputs.len();
        if j > m {
            return -self.truth;
        }
        while counter.columns.len() < j {
            let col = counter.columns.len() + 1;
            let mut column = Vec::with_capacity(m);
            for i in 0..m {
                // s(i, col) ⇔ s(i−1, col) ∨ (s(i−1, col−1) ∧ x_i), with s(−1, ·) false
                // and s(·, 0) true.
                let x = counter.inputs[i];
                let same = if i == 0 { -self.truth } else { column[i - 1] };
                let less = match (col, i) {
                    (1, _) => self.truth,
                    (_, 0) => -self.truth,
                    _ => counter.columns[col - 2][i - 1],
                };
                if i + 1 < col {
                    column.push(-self.truth);
                    continue;
                }
                let s = self.cnf.new_var();
                self.add(vec![-same, s]);
                self.add(vec![-less, -x, s]);
                self.add(vec![-s, same, less]);
                self.add(vec![-s, same, x]);
                column.push(s);
            }
            counter.columns.push(column);
        }
        counter.columns[j - 1][m - 1]
    }

    /// Rules out every configuration whose cut has the label counts of the cut `in_cut`
    /// (the conditions of a model's cut): the marking found is not found again.
    pub(crate) fn block(&mut self, in_cut: &[u32]) {
        let mut counts = vec![0usize; self.labels.len()];
        for &c in in_cut {
            counts[self.label_of[c as usize] as usize] += 1;
        }
        let mut clause = Vec::new();
        for (l, &n) in counts.iter().enumerate() {
            if self.labels[l].inputs.is_empty() {
                continue;
            }
            if n == 0 {
                clause.push(self.at_least(l, 1));
            } else {
                clause.push(-self.at_least(l, n));
                clause.push(self.at_least(l, n + 1));
            }
        }
        self.add(clause);
    }

    /// The literal true exactly when the marking of the configuration satisfies
    /// `formula`, or `None` when its counters would take more than
    /// [`MAX_TARGET_VARIABLES`] variables.
    pub(crate) fn target(&mut self, prefix: &Prefix, formula: &Formula, tokens: &CutTokens) -> Option<Lit> {
        let before = u64::from(self.cnf.num_vars);
        self.encode(prefix, formula, tokens, before)
    }

    fn encode(&mut self, prefix: &Prefix, formula: &Formula, tokens: &CutTokens, before: u64) -> Option<Lit> {
        if u64::from(self.cnf.num_vars) - before > MAX_TARGET_VARIABLES {
            return None;
        }
        Some(match formula {
            Formula::Const(b) => {
                if *b {
                    self.truth
                } else {
                    -self.truth
                }
            }
            Formula::Not(g) => -self.encode(prefix, g, tokens, before)?,
            Formula::And(gs) => {
                let lits = gs
                    .iter()
                    .map(|g| self.encode(prefix, g, tokens, before))
                    .collect::<Option<Vec<Lit>>>()?;
                self.and(&lits)
            }
            Formula::Or(gs) => {
                let lits = gs
                    .iter()
                    .map(|g| self.encode(prefix, g, tokens, before).map(|l| -l))
                    .collect::<Option<Vec<Lit>>>()?;
                -self.and(&lits)
            }
            Formula::Le(a, b) => self.at_most(a, b, tokens)?,
            Formula::Fireable(ts) => self.fireable(prefix, ts),
        })
    }

    /// A literal equivalent to the conjunction of `lits`.
    fn and(&mut self, lits: &[Lit]) -> Lit {
        match lits {
            [] => self.truth,
            [l] => *l,
            _ => {
                let x = self.cnf.new_var();
                for &l in lits {
                    self.add(vec![-x, l]);
                }
                let mut back: Vec<Lit> = lits.iter().map(|&l| -l).collect();
                back.push(x);
                self.add(back);
                x
            }
        }
    }

    /// "The tokens of `a` are at most those of `b`": for every j ≥ 0, at least j tokens in
    /// `a` (always, for j = 0) imply at least j + const(a) − const(b) in `b`. Once `b`
    /// cannot reach the bound, the rest follows from the first such j.
    fn at_most(&mut self, a: &Sum, b: &Sum, tokens: &CutTokens) -> Option<Lit> {
        let mut left = Counter {
            inputs: tokens.counter_inputs(a, &self.cut, self.truth)?,
            columns: Vec::new(),
        };
        let mut right = Counter {
            inputs: tokens.counter_inputs(b, &self.cut, self.truth)?,
            columns: Vec::new(),
        };
        let shift = i128::from(a.constant) - i128::from(b.constant);
        let (wa, wb) = (left.inputs.len() as i128, right.inputs.len() as i128);
        // Columns the loop may build: up to `wa` of the left counter, `wa + shift` of the
        // right one, each as long as its inputs.
        let cost = wa * wa.min(wb - shift + 1).max(0) + wb * (wa + shift).clamp(0, wb);
        if cost > i128::from(MAX_TARGET_VARIABLES) {
            return None;
        }
        let mut parts = Vec::new();
        for j in 0..=wa {
            let need = j + shift;
            if need <= 0 {
                continue;
            }
            let has_a = if j == 0 {
                self.truth
            } else {
                self.counted(&mut left, j as usize)
            };
            if need > wb {
                parts.push(-has_a);
                break;
            }
            let has_b = self.counted(&mut right, need as usize);
            let broken = self.and(&[has_a, -has_b]);
            parts.push(-broken);
        }
        Some(self.and(&parts))
    }

    /// "Some event of a transition of `ts` has its preset in the cut".
    fn fireable(&mut self, prefix: &Prefix, ts: &[crate::system::net::TransId]) -> Lit {
        let mut some = Vec::new();
        for e in &prefix.events {
            if !ts.iter().any(|t| t.0 == e.action) {
                continue;
            }
            let lit = match self.enabled.get(&e.preset) {
                Some(&l) => l,
                None => {
                    let cut: Vec<Lit> = e.preset.iter().map(|&c| self.cut[c as usize]).collect();
                    let l = self.and(&cut);
                    self.enabled.insert(e.preset.clone(), l);
                    l
                }
            };
            some.push(-lit);
        }
        -self.and(&some)
    }

    /// The clauses so far.
    pub(crate) fn cnf(&self) -> &Cnf {
        &self.cnf
    }

    /// The assumptions that ask `question`, or `None` when the prefix has no fault event
    /// and the question is about faults.
    pub(crate) fn assumptions(&self, question: Question) -> Option<Vec<Lit>> {
        match (question, self.fault_selector) {
            (Question::Dead, None) => Some(Vec::new()),
            (Question::Dead, Some(s)) => Some(vec![-s]),
            (Question::Fault, None) => None,
            (Question::Fault, Some(s)) => Some(vec![s]),
        }
    }

    /// The events of the configuration a model chose, in prefix order (causes first).
    pub(crate) fn configuration(&self, value: &dyn Fn(Lit) -> bool) -> Vec<u32> {
        (0..self.event.len() as u32)
            .filter(|&e| self.event[e as usize] != 0 && value(self.event[e as usize]))
            .collect()
    }

    /// The conditions of the cut of that configuration.
    pub(crate) fn cut(&self, value: &dyn Fn(Lit) -> bool) -> Vec<u32> {
        (0..self.cut.len() as u32)
            .filter(|&c| self.cut[c as usize] != -self.truth && value(self.cut[c as usize]))
            .collect()
    }
}
