//! Agglomeration: a place between two transitions that always fire one after the other
//! disappears, and the two become one transition (Berthelot, LNCS 254, 1987; the
//! conditions below are stricter than his, to keep deadlocks in both directions and to
//! make every witness liftable to the original net — Thierry-Mieg, "Structural reductions
//! revisited", Petri Nets 2020, discusses why the classic conditions need care for
//! deadlocks).
//!
//! Each function applies every candidate of one snapshot whose transitions no earlier
//! candidate of the same call has rewritten (the adjacency of the snapshot is stale around
//! those, and every stale entry names a rewritten transition).

use super::work::{Adjacency, WorkNet};

/// Longest original firing sequence one transition may come to stand for; longer
/// agglomerations are skipped (a witness lifts through them in time linear in this).
const MAX_EXPANSION: usize = 4096;

/// **Post-agglomeration** of a place `p` into its producers. Conditions:
/// - one transition `f` consumes from `p`, with weight 1; nothing reads `p`;
/// - `f` needs nothing else (its only input is `p`, it reads nothing) and does not
///   produce into `p`.
///
/// - neither `p`, `f` nor a place `f` produces into is kept (firing `f` early changes
///   those places and `f`'s enabledness).
///
/// Then a token on `p` enables `f` and nothing can take it away, so `f` may as well fire
/// at once: every producer `h` becomes `h` followed by `f` as many times as `h` puts
/// tokens on `p` (and the initial tokens of `p` fire `f` before anything else, recorded
/// in the prefix). `p` and `f` go.
///
/// Why deadlocks are kept: a firing sequence of the original, with each firing of `f`
/// moved to just after the firing that produced its token, is still a firing sequence
/// (moving an output earlier only adds tokens), so the reduced net reaches every
/// reachable marking with its pending `f`s fired. A dead marking of the original has `p`
/// empty (else `f` is enabled), so it is reachable in the reduced net, where every
/// remaining transition needs what it needed before: dead there too. Conversely every
/// reachable marking of the reduced net is reachable in the original with `p` empty,
/// where `f` is disabled and the rest as in the reduced net.
pub(super) fn post_agglomeration(net: &mut WorkNet, adj: &Adjacency) -> u64 {
    let mut rewritten = vec![false; net.trans.len()];
    let mut applied = 0;
    for p in 0..net.places.len() as u32 {
        if !net.places[p as usize].alive {
            continue;
        }
        let [f] = adj.consumers[p as usize][..] else {
            continue;
        };
        let producers = &adj.producers[p as usize];
        let fr = &net.trans[f as usize];
        let simple = adj.readers[p as usize].is_empty()
            && fr.pre == [(p, 1)]
            && fr.read.is_empty()
            && fr.post_weight(p) == 0
            && !net.places[p as usize].kept
            && !fr.kept
            && fr.post.iter().all(|&(q, _)| !net.places[q as usize].kept);
        if !simple || rewritten[f as usize] || producers.iter().any(|&h| rewritten[h as usize]) {
            continue;
        }
        let initial = net.places[p as usize].initial;
        let f_post = fr.post.clone();
        let f_expansion = fr.expansion.clone();
        // Every producer's new output, checked for overflow before anything changes.
        let mut rewrites = Vec::with_capacity(producers.len());
        for &h in producers {
            let hr = &net.trans[h as usize];
            let times = hr.post_weight(p);
            match followed_by(&hr.post, p, times, &f_post) {
                Some(post) if hr.expansion.len() + f_expansion.len() * times as usize <= MAX_EXPANSION => {
                    rewrites.push((h, times, post))
                }
                _ => break,
            }
        }
        let initial_marking = initial_after(net, initial, &f_post);
        let prefix_len = f_expansion.len().saturating_mul(initial as usize);
        if rewrites.len() != producers.len() || initial_marking.is_none() || prefix_len > MAX_EXPANSION {
            continue;
        }
        for (h, times, post) in rewrites {
            let hr = &mut net.trans[h as usize];
            hr.post = post;
            for _ in 0..times {
                hr.expansion.extend_from_slice(&f_expansion);
            }
            rewritten[h as usize] = true;
        }
        for (q, tokens) in initial_marking.unwrap_or_default() {
            net.places[q as usize].initial = tokens;
        }
        for _ in 0..initial {
            net.prefix.extend_from_slice(&f_expansion);
        }
        net.places[p as usize].initial = 0;
        net.places[p as usize].alive = false;
        net.trans[f as usize].alive = false;
        rewritten[f as usize] = true;
        applied += 1;
    }
    applied
}

/// The output arcs `post` with the arc to `p` replaced by `times` times `then`, or `None`
/// if a weight would overflow.
fn followed_by(post: &[(u32, u32)], p: u32, times: u32, then: &[(u32, u32)]) -> Option<Vec<(u32, u32)>> {
    let mut out: Vec<(u32, u32)> = post.iter().copied().filter(|&(q, _)| q != p).collect();
    for &(q, w) in then {
        let add = w.checked_mul(times)?;
        match out.binary_search_by_key(&q, |&(r, _)| r) {
            Ok(i) => out[i].1 = out[i].1.checked_add(add)?,
            Err(i) => out.insert(i, (q, add)),
        }
    }
    out.retain(|&(_, w)| w > 0);
    Some(out)
}

/// The new initial tokens of the places `f` produces into once `f` has fired `times`
/// times, or `None` on overflow.
fn initial_after(net: &WorkNet, times: u32, f_post: &[(u32, u32)]) -> Option<Vec<(u32, u32)>> {
    f_post
        .iter()
        .map(|&(q, w)| {
            let tokens = net.places[q as usize]
                .initial
                .checked_add(w.checked_mul(times)?)?;
            Some((q, tokens))
        })
        .collect()
}

/// **Pre-agglomeration** of a transition `h` into the consumers of its only output place
/// `p`. Conditions:
/// - `h` puts one token on `p` and nothing elsewhere, reads nothing, needs something,
///   and does not consume from `p`;
/// - `h` is the only producer of `p`, nothing reads `p`, `p` starts empty, and every
///   consumer `f` of `p` takes one token from it;
/// - `h` is the only transition that consumes or reads any of its input places;
/// - neither `h`, a consumer of `p`, `p` nor an input place of `h` is kept (deferring `h`
///   changes those places and when those transitions are enabled).
///
/// Then `h` may wait until a consumer of its token is about to fire: every consumer `f`
/// becomes `h` followed by `f` (needing what `h` needs besides what `f` needs but `p`).
/// `h` and `p` go.
///
/// Why deadlocks are kept: in a firing sequence of the original, deferring each firing
/// of `h` to just before the firing that consumes its token (and dropping those whose
/// token stays) is still a firing sequence, since only `h` uses its input places. A dead
/// marking of the original, with those pending firings of `h` undone, is dead in the
/// reduced net: the transitions other than the `f`s do not see the places involved; an
/// `f` was disabled by a place other than `p` (then still), or `p` was empty (then `h`
/// was disabled, and still is). Conversely a dead marking of the reduced net is
/// reachable in the original; there only `h` may be enabled, and firing it until it is
/// not leads to a dead marking, since its token enables no `f` (their other inputs are
/// missing and `h` does not touch them). So a lifted witness ends with `h` fired while it
/// can be: recorded in `finish`.
pub(super) fn pre_agglomeration(net: &mut WorkNet, adj: &Adjacency) -> u64 {
    let mut rewritten = vec![false; net.trans.len()];
    let mut applied = 0;
    for h in 0..net.trans.len() as u32 {
        let hr = &net.trans[h as usize];
        if !hr.alive || rewritten[h as usize] || hr.pre.is_empty() || !hr.read.is_empty() {
            continue;
        }
        let [(p, 1)] = hr.post[..] else {
            continue;
        };
        let consumers = &adj.consumers[p as usize];
        let applies = !hr.kept
            && !net.places[p as usize].kept
            && hr.pre_weight(p) == 0
            && adj.producers[p as usize] == [h]
            && adj.readers[p as usize].is_empty()
            && net.places[p as usize].initial == 0
            && !consumers.is_empty()
            && consumers.iter().all(|&f| {
                let fr = &net.trans[f as usize];
                fr.pre_weight(p) == 1
                    && !fr.kept
                    && !fr.reads(p)
                    && !rewritten[f as usize]
                    && fr.expansion.len() + hr.expansion.len() <= MAX_EXPANSION
            })
            && hr.pre.iter().all(|&(q, _)| {
                adj.consumers[q as usize] == [h]
                    && adj.readers[q as usize].is_empty()
                    && !net.places[q as usize].kept
            });
        if !applies {
            continue;
        }
        let h_pre = hr.pre.clone();
        let h_expansion = hr.expansion.clone();
        for &f in consumers {
            let fr = &mut net.trans[f as usize];
            fr.pre.retain(|&(q, _)| q != p);
            // Disjoint: only `h` consumes from its input places.
            fr.pre.extend_from_slice(&h_pre);
            fr.pre.sort_unstable();
            let mut expansion = h_expansion.clone();
            expansion.extend_from_slice(&fr.expansion);
            fr.expansion = expansion;
            rewritten[f as usize] = true;
        }
        net.finish.push(h_expansion);
        net.trans[h as usize].alive = false;
        net.places[p as usize].alive = false;
        rewritten[h as usize] = true;
        applied += 1;
    }
    applied
}
