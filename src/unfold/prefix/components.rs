//! Possible extensions of the program-like unfolding (docs/design.md#complete-finite-prefixes): a condition is a
//! (component, local state) produced by an event on that component, or initially; an
//! event of a step consumes the current condition of every component the step touches and
//! produces one new condition on each. Two conditions of one component are never
//! concurrent (a component has one local state in every cut).
//!
//! For a new condition r on component c, an extension using r has an anchor component a
//! (every step is anchored at one of the components it touches, [`System::anchored_steps`]);
//! its condition on a is r itself or some x ∈ co(r). So the search tries, for x ∈ {r} ∪
//! co(r), the steps anchored at x's local state that touch c, filling the other touched
//! components' columns from co(r) ∩ co(x), pruned by [`System::may_enable`], and keeps the
//! combinations at which [`System::fire`] succeeds.

use super::builder::{Conditions, Extension, Label, Semantics};
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use crate::unfold::general::coset;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The component view of a system for the prefix builder.
pub(crate) struct Components<'s, S: System + ?Sized> {
    sys: &'s S,
    anchored: FxHashMap<Label, Vec<Step>>,
    steps: Vec<Step>,
}

impl<'s, S: System + ?Sized> Components<'s, S> {
    /// The view of `sys`.
    pub(crate) fn new(sys: &'s S) -> Self {
        Components {
            sys,
            anchored: FxHashMap::default(),
            steps: Vec::new(),
        }
    }

    fn anchored_at(&mut self, l: Label) -> &[Step] {
        let sys = self.sys;
        self.anchored.entry(l).or_insert_with(|| {
            let mut v = Vec::new();
            sys.anchored_steps(CompId(l.0), Local(l.1), &mut v);
            v
        })
    }
}

impl<S: System + ?Sized> Semantics for Components<'_, S> {
    fn initial(&self) -> Vec<Label> {
        self.sys
            .initial_state()
            .iter()
            .enumerate()
            .map(|(c, l)| (c as u32, l.0))
            .collect()
    }

    fn source_extensions(&mut self, out: &mut Vec<Extension>) -> Result<(), ModelError> {
        self.steps.clear();
        self.sys.enabled_steps(&self.sys.initial_state(), &mut self.steps);
        for s in &self.steps {
            if s.touched.is_empty() {
                out.push(Extension {
                    action: s.action.0,
                    preset: SmallVec::new(),
                    post: SmallVec::new(),
                });
            }
        }
        Ok(())
    }

    fn extensions(
        &mut self,
        conds: &Conditions<'_>,
        r: u32,
        out: &mut Vec<Extension>,
    ) -> Result<(), ModelError> {
        let (c, _) = conds.label(r);
        let sys = self.sys;
        // co(r) by component.
        let mut by_comp: FxHashMap<u32, SmallVec<[u32; 4]>> = FxHashMap::default();
        for &y in conds.co(r) {
            by_comp.entry(conds.label(y).0).or_default().push(y);
        }
        let mut anchors: Vec<u32> = vec![r];
        anchors.extend_from_slice(conds.co(r));
        for x in anchors {
            let lx = conds.label(x);
            let steps: Vec<Step> = self
                .anchored_at(lx)
                .iter()
                .filter(|s| x == r || s.touched.binary_search(&CompId(c)).is_ok())
                .cloned()
                .collect();
            for step in steps {
                // One column per touched component: fixed for a and c, searched for the rest.
                let mut lists: SmallVec<[Vec<u32>; 4]> = SmallVec::new();
                let mut feasible = true;
                for (i, &k) in step.touched.iter().enumerate() {
                    if k.0 == lx.0 || k.0 == c {
                        let fixed = if k.0 == lx.0 { x } else { r };
                        if !sys.may_enable(&step, i, Local(conds.label(fixed).1)) {
                            feasible = false;
                            break;
                        }
                        continue;
                    }
                    let col: Vec<u32> = by_comp
                        .get(&k.0)
                        .map(|v| {
                            v.iter()
                                .copied()
                                .filter(|&y| {
                                    (x == r || conds.concurrent(x, y))
                                        && sys.may_enable(&step, i, Local(conds.label(y).1))
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    if col.is_empty() {
                        feasible = false;
                        break;
                    }
                    lists.push(col);
                }
                if !feasible {
                    continue;
                }
                let columns: SmallVec<[coset::Column<'_>; 4]> =
                    lists.iter().map(|l| (l.as_slice(), 1)).collect();
                let mut chosen_sets: Vec<SmallVec<[u32; 4]>> = Vec::new();
                coset::search::<()>(&columns, &mut |a, b| conds.concurrent(a, b), &mut |chosen| {
                    let mut set: SmallVec<[u32; 4]> = chosen.iter().copied().collect();
                    set.push(r);
                    if x != r {
                        set.push(x);
                    }
                    chosen_sets.push(set);
                    Ok(())
                })
                .ok();
                for set in chosen_sets {
                    // Parallel to step.touched (components are distinct, so sort by component).
                    let mut by_touch: SmallVec<[(u32, u32); 4]> =
                        set.iter().map(|&y| (conds.label(y).0, y)).collect();
                    by_touch.sort_unstable();
                    let before: SmallVec<[Local; 8]> =
                        by_touch.iter().map(|&(_, y)| Local(conds.label(y).1)).collect();
                    let mut after: SmallVec<[Local; 8]> = SmallVec::from_elem(Local(0), before.len());
                    if !sys.fire(&step, &before, &mut after)? {
                        continue;
                    }
                    let mut preset: SmallVec<[u32; 4]> = set;
                    preset.sort_unstable();
                    out.push(Extension {
                        action: step.action.0,
                        preset,
                        post: step.touched.iter().zip(&after).map(|(k, l)| (k.0, l.0)).collect(),
                    });
                }
            }
        }
        Ok(())
    }

    fn blocked(&self, _action: u32, post: &[Label]) -> bool {
        post.iter()
            .any(|&(c, l)| self.sys.fault(CompId(c), Local(l)).is_some())
    }

    fn condition_name(&self, label: Label) -> String {
        let c = CompId(label.0);
        format!(
            "{}={}",
            self.sys.component_name(c),
            self.sys.local_name(c, Local(label.1))
        )
    }

    fn action_name(&self, action: u32) -> String {
        self.sys.action_name(ActionId(action))
    }

    fn action_owner(&self, action: u32) -> Option<String> {
        self.sys
            .action_owner(ActionId(action))
            .map(|c| self.sys.component_name(c))
    }
}
