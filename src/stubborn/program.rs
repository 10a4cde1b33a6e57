//! Deadlock-preserving stubborn sets of a program, computed over process instances.
//!
//! A set Q of instances closed under [`ProgramSystem::stubborn_neighbours`] gives a
//! stubborn set: the actions in which an instance of Q takes part (the rules, and why they
//! satisfy Valmari's D1 and D2, are in `system::program::dependence`). Its enabled
//! members are the enabled steps owned by an instance of Q: a rendezvous is owned by its
//! sender, and a closed Q holds both partners of every rendezvous it takes part in.
//!
//! # Choice of the set
//! Programs have few instances (tens, rarely thousands), so the closure of every instance
//! owning an enabled step is computed, and the one with the fewest enabled steps is kept
//! (ties to the lowest instance). Unlike the net rules, a closure started inside an earlier
//! one can be smaller, so no root is skipped; the search stops early at a set with one
//! enabled step, which no other set beats. Against the closure of the first root alone,
//! on the shipped programs at large sizes (states stored, 30 s each): dispatcher(5,6)
//! 512 207 against out of time, dispatcher(5,4) 54 618 against 2.5 million, mpat(8)
//! 9 488 against 678 532, multiprodcon(3,3) 0.5 against 2.5 million, rwlock(4,3,2) 0.5
//! against 1.8 million; only philosophers(14), whose deadlock one root happens to reach
//! sooner, stored fewer with one root (0.7 against 1.4 million, both under 3 s; measured
//! before unlocks stopped bringing in the other processes of the mutex).

use crate::system::program::ProgramSystem;
use crate::system::{Local, Step, System};

/// The scratch of the closure computation.
pub(crate) struct ProgramStubborn {
    /// `in_set[i] == stamp`: instance i is in the closure being built.
    in_set: Vec<u32>,
    stamp: u32,
    /// Enabled steps per instance at the current state.
    enabled_of: Vec<u32>,
    work: Vec<u32>,
    neighbours: Vec<u32>,
    /// Instances of the best closure so far, and of the current one.
    best: Vec<u32>,
    current: Vec<u32>,
}

impl ProgramStubborn {
    /// Scratch for a program with `instances` process instances.
    pub(crate) fn new(instances: usize) -> ProgramStubborn {
        ProgramStubborn {
            in_set: vec![0; instances],
            stamp: 0,
            enabled_of: vec![0; instances],
            work: Vec::new(),
            neighbours: Vec::new(),
            best: Vec::new(),
            current: Vec::new(),
        }
    }

    /// Marks in `chosen` (parallel to `steps`, the steps enabled at `state`, not empty) the
    /// steps of a stubborn set.
    pub(crate) fn stubborn(
        &mut self,
        sys: &ProgramSystem<'_>,
        state: &[Local],
        steps: &[Step],
        chosen: &mut Vec<bool>,
    ) {
        self.enabled_of.fill(0);
        let owner = |s: &Step| sys.action_owner(s.action).map_or(u32::MAX, |c| c.0);
        for s in steps {
            if let Some(n) = self.enabled_of.get_mut(owner(s) as usize) {
                *n += 1;
            }
        }
        let mut best_count = u32::MAX;
        for root in 0..self.enabled_of.len() as u32 {
            if self.enabled_of[root as usize] == 0 {
                continue;
            }
            let count = self.closure(sys, state, root, best_count);
            if count < best_count {
                best_count = count;
                std::mem::swap(&mut self.best, &mut self.current);
                if count == 1 {
                    break;
                }
            }
        }
        chosen.clear();
        if best_count == u32::MAX {
            // No step has an owner the closure knows: fire everything.
            chosen.resize(steps.len(), true);
            return;
        }
        self.next_stamp();
        for &i in &self.best {
            self.in_set[i as usize] = self.stamp;
        }
        let in_set = &self.in_set;
        let stamp = self.stamp;
        chosen.extend(
            steps
                .iter()
                .map(|s| in_set.get(owner(s) as usize).is_some_and(|&m| m == stamp)),
        );
    }

    /// Builds the closure of `root` into `self.current` and returns how many enabled steps
    /// its instances own; gives up (returning `u32::MAX`) once that reaches `bound`.
    fn closure(&mut self, sys: &ProgramSystem<'_>, state: &[Local], root: u32, bound: u32) -> u32 {
        self.next_stamp();
        self.current.clear();
        self.work.clear();
        self.work.push(root);
        self.in_set[root as usize] = self.stamp;
        let mut count = 0u32;
        while let Some(i) = self.work.pop() {
            self.current.push(i);
            count += self.enabled_of[i as usize];
            if count >= bound {
                return u32::MAX;
            }
            self.neighbours.clear();
            sys.stubborn_neighbours(state, i, &mut self.neighbours);
            for &j in &self.neighbours {
                if let Some(m) = self.in_set.get_mut(j as usize) {
                    if *m != self.stamp {
                        *m = self.stamp;
                        self.work.push(j);
                    }
                }
            }
        }
        count
    }

    fn next_stamp(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.in_set.fill(0);
            self.stamp = 1;
        }
    }
}
