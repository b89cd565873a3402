//! HAProxy's active health checks: the `check` option of the `server`
//! line with its `fall` and `rise` (probes every `inter`, HTTP ones with
//! `option httpchk`), one mark per server shared by every balancer copy.
//! When probes run and what they find is the fleet's (`availability.rs`);
//! here is what a probe's result does to the mark.

use alloc::vec::Vec;

use crate::scenario::Scenario;

/// HAProxy active checks: `fall` failed probes in a row mark a server down
/// for every copy, `rise` good ones mark it up.
#[derive(Clone, Debug)]
pub struct Active {
    fall: u32,
    rise: u32,
    down: Vec<bool>,
    run: Vec<u32>,
}

impl Active {
    /// Active checks over `n` servers, all up.
    pub fn new(scenario: &Scenario, n: usize) -> Active {
        Active {
            fall: scenario.fall,
            rise: scenario.rise,
            down: alloc::vec![false; n],
            run: alloc::vec![0; n],
        }
    }

    /// Whether `s` is marked down.
    pub fn is_down(&self, s: usize) -> bool {
        self.down[s]
    }

    /// A probe of `s` agreed with its mark (what [`Active::probe`] does then).
    pub fn agreed(&mut self, s: usize) {
        self.run[s] = 0;
    }

    /// A probe of `s` passed or failed; true when it changes the mark.
    pub fn probe(&mut self, s: usize, passed: bool) -> bool {
        // The run counts probes against the current mark.
        if passed == self.down[s] {
            self.run[s] += 1;
        } else {
            self.run[s] = 0;
        }
        let needed = if self.down[s] { self.rise } else { self.fall };
        if self.run[s] >= needed {
            self.down[s] = !self.down[s];
            self.run[s] = 0;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_checks_fall_and_rise() {
        let s = Scenario { fall: 3, rise: 2, ..Scenario::default() };
        let mut a = Active::new(&s, 1);
        assert!(!a.probe(0, false) && !a.probe(0, false) && a.probe(0, false) && a.is_down(0));
        assert!(!a.probe(0, true) && a.probe(0, true) && !a.is_down(0));
    }
}
