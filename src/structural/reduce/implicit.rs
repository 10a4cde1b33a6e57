//! Implicit places: a place that never disables a transition whose other needs are met,
//! found by linear programming (Colom & Silva, "Improving the linearly based
//! characterization of P/T nets", LNCS 483, 1991; Berthelot's redundant places).
//!
//! Place `p` is implicit when some weights `y ≥ 0` on the other places satisfy
//! - `C[p, t] ≥ Σ_q y_q·C[q, t]` for every transition `t`, so that
//!   `m(p) − Σ_q y_q·m(q)` never decreases and stays at least `μ = m0(p) − Σ_q y_q·m0(q)`;
//! - `need(t, p) ≤ Σ_q y_q·need(t, q) + μ` for every transition `t` that needs `p`, so that
//!   wherever `t`'s needs on the other places are met, `m(p) ≥ Σ_q y_q·m(q) + μ ≥
//!   need(t, p)`.
//!
//! Then, by induction along any firing sequence, a transition enabled without `p` is
//! enabled with it: removing `p` keeps the firing sequences, the reachable markings
//! (projected) and which of them are dead. Places are removed one at a time, each proof
//! using only the places still there. The weights are rationals: Z3 answers the linear
//! program, within a time share of its own (at most 1 s, and a twentieth of what is left
//! of the budget), since there is one program per place.

use super::work::{Adjacency, WorkNet};
use crate::engine::Budget;
use std::time::{Duration, Instant};
use z3::ast::{Int, Real};
use z3::{Config, Params, SatResult, Solver};

/// The most time the implicit-place programs take in one reduction.
const MAX_TIME: Duration = Duration::from_secs(1);

/// The share of what is left of the budget they may take at most: the engines wait for
/// the reduction.
const BUDGET_SHARE: u32 = 20;

/// When the implicit-place programs of a reduction starting now must end.
pub(super) fn deadline(budget: &Budget) -> Instant {
    Instant::now() + share(budget)
}

/// How long the implicit-place programs of a reduction starting now may take.
pub(super) fn share(budget: &Budget) -> Duration {
    budget.deadline().map_or(MAX_TIME, |d| {
        (d.saturating_duration_since(Instant::now()) / BUDGET_SHARE).min(MAX_TIME)
    })
}

/// Removes the implicit places of `net` it can show within `until` (and the budget);
/// how many.
pub(super) fn implicit_places(net: &mut WorkNet, adj: &Adjacency, budget: &Budget, until: Instant) -> u64 {
    let columns = columns(net);
    z3::with_z3_config(&Config::new(), || {
        let mut removed = 0;
        for p in 0..net.places.len() as u32 {
            if Instant::now() >= until || budget.exhausted().is_some() {
                break;
            }
            let needed = !adj.consumers[p as usize].is_empty() || !adj.readers[p as usize].is_empty();
            let place = &net.places[p as usize];
            if !place.alive || !needed || place.not_implicit || place.kept {
                continue;
            }
            if is_implicit(net, &columns, adj, p, until) {
                net.remove_place(p, adj);
                removed += 1;
            } else if Instant::now() < until {
                // Removing places only takes weights away: it stays so until another
                // rule rewrites the net.
                net.places[p as usize].not_implicit = true;
            }
        }
        removed
    })
}

/// Per alive transition: (place, output − input) where not zero.
fn columns(net: &WorkNet) -> Vec<(u32, Vec<(u32, i64)>)> {
    net.alive_transitions()
        .map(|t| {
            let effect = net.trans[t as usize].effect();
            (t, effect)
        })
        .collect()
}

/// Whether the linear program of the module comment has a solution for `p`.
fn is_implicit(
    net: &WorkNet,
    columns: &[(u32, Vec<(u32, i64)>)],
    adj: &Adjacency,
    p: u32,
    until: Instant,
) -> bool {
    let places = net.places.len();
    let weight: Vec<Option<Real>> = (0..places as u32)
        .map(|q| (q != p && net.places[q as usize].alive).then(|| Real::new_const(format!("y{q}"))))
        .collect();
    // Linear real arithmetic: the simplex alone, without Z3's general tactic selection.
    let solver = Solver::new_for_logic("QF_LRA").unwrap_or_default();
    let zero = Real::from_int(&Int::from_i64(0));
    for y in weight.iter().flatten() {
        solver.assert(y.ge(&zero));
    }
    let constant = |k: i64| Real::from_int(&Int::from_i64(k));
    // Σ_q y_q·f(q) over the alive places q ≠ p with f(q) ≠ 0.
    let weighted = |terms: &mut dyn Iterator<Item = (u32, i64)>| -> Real {
        let parts: Vec<Real> = terms
            .filter_map(|(q, k)| Some(weight[q as usize].as_ref()? * constant(k)))
            .collect();
        if parts.is_empty() {
            zero.clone()
        } else {
            Real::add(&parts)
        }
    };
    for (_, column) in columns {
        let own = column.iter().find(|&&(q, _)| q == p).map_or(0, |&(_, c)| c);
        let others = weighted(&mut column.iter().copied().filter(|&(q, _)| q != p));
        solver.assert(constant(own).ge(&others));
    }
    let initial = |q: u32| i64::from(net.places[q as usize].initial);
    let slack = constant(initial(p))
        - weighted(
            &mut (0..places as u32)
                .filter(|&q| q != p)
                .map(|q| (q, initial(q)))
                .filter(|&(_, k)| k > 0),
        );
    for &t in adj.consumers[p as usize].iter().chain(&adj.readers[p as usize]) {
        let tr = &net.trans[t as usize];
        let covered = weighted(
            &mut tr
                .needs()
                .into_iter()
                .filter(|&(q, _)| q != p)
                .map(|(q, w)| (q, i64::from(w))),
        );
        solver.assert(constant(i64::from(tr.need(p))).le(&(covered + &slack)));
    }
    let left = until.saturating_duration_since(Instant::now());
    let mut params = Params::new();
    params.set_u32("timeout", left.as_millis().clamp(1, u128::from(u32::MAX)) as u32);
    solver.set_params(&params);
    // An answer that comes after the timeout may be an interrupted check's: not believed.
    solver.check() == SatResult::Sat && Instant::now() < until
}
