//! Possible extensions of a branching process with individual tokens (the general
//! backend's conditions; docs/paper.md#possible-extensions, the "comb"): for a new condition r of place p and
//! every transition t consuming from p, one column per place of •t, filled from co(r), and
//! a backtracking search ([`crate::unfold::general::coset`]) for W(q, t) pairwise
//! concurrent conditions of every column (one fewer of p, which r provides).

use super::builder::{Conditions, Extension, Label, Semantics};
use crate::system::net::Net;
use crate::system::ModelError;
use crate::unfold::general::coset;
use crate::unfold::general::net::TokenNet;
use smallvec::SmallVec;

/// The token-level view of a net for the prefix builder.
pub(crate) struct Tokens<'n> {
    net: &'n Net,
    tn: TokenNet,
}

impl<'n> Tokens<'n> {
    /// The view of `net` (read arcs as self-loops, sources on virtual places: see
    /// [`TokenNet`]).
    pub(crate) fn new(net: &'n Net) -> Tokens<'n> {
        Tokens {
            net,
            tn: TokenNet::new(net),
        }
    }
}

impl Semantics for Tokens<'_> {
    fn initial(&self) -> Vec<Label> {
        let mut out = Vec::new();
        for (p, &m) in self.tn.initial.iter().enumerate() {
            out.extend(std::iter::repeat_n((p as u32, 0), m as usize));
        }
        out
    }

    fn source_extensions(&mut self, _out: &mut Vec<Extension>) -> Result<(), ModelError> {
        // Sources consume their virtual place: they are found from its condition.
        Ok(())
    }

    fn extensions(
        &mut self,
        conds: &Conditions<'_>,
        r: u32,
        out: &mut Vec<Extension>,
    ) -> Result<(), ModelError> {
        let p = conds.label(r).0;
        let co = conds.co(r);
        for &t in &self.tn.consumers[p as usize] {
            let pre = &self.tn.pre[t as usize];
            let mut lists: SmallVec<[Vec<u32>; 4]> = SmallVec::new();
            let mut needs: SmallVec<[usize; 4]> = SmallVec::new();
            let mut feasible = true;
            for &(q, w) in pre {
                let need = if q == p { w as usize - 1 } else { w as usize };
                if need == 0 {
                    continue;
                }
                let col: Vec<u32> = co.iter().copied().filter(|&x| conds.label(x).0 == q).collect();
                if col.len() < need {
                    feasible = false;
                    break;
                }
                lists.push(col);
                needs.push(need);
            }
            if !feasible {
                continue;
            }
            let mut order: SmallVec<[usize; 4]> = (0..lists.len()).collect();
            order.sort_by_key(|&i| lists[i].len());
            let columns: SmallVec<[coset::Column<'_>; 4]> =
                order.iter().map(|&i| (lists[i].as_slice(), needs[i])).collect();
            let post: SmallVec<[Label; 4]> = self.tn.post[t as usize]
                .iter()
                .flat_map(|&(q, w)| std::iter::repeat_n((q, 0), w as usize))
                .collect();
            coset::search::<()>(&columns, &mut |a, b| conds.concurrent(a, b), &mut |chosen| {
                let mut preset: SmallVec<[u32; 4]> = chosen.iter().copied().collect();
                preset.push(r);
                preset.sort_unstable();
                out.push(Extension {
                    action: t,
                    preset,
                    post: post.clone(),
                });
                Ok(())
            })
            .ok();
        }
        Ok(())
    }

    fn inert(&self, label: Label) -> bool {
        self.tn.consumers[label.0 as usize].is_empty()
    }

    fn condition_name(&self, label: Label) -> String {
        self.tn.names[label.0 as usize].clone()
    }

    fn action_name(&self, action: u32) -> String {
        self.net.transitions[action as usize].label().to_string()
    }
}
