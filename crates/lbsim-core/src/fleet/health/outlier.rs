//! Envoy's outlier detection: the cluster's `outlier_detection`
//! (`consecutive_5xx`, `base_ejection_time`, `max_ejection_percent`),
//! kept per balancer copy; with `builder=envoy`, as Envoy's `DetectorImpl`
//! (`source/common/upstream/outlier_detection_impl.cc`) runs it.

use alloc::vec::Vec;

use crate::balancer::builder::Builder;
use crate::scenario::Scenario;

/// Envoy outlier detection (`consecutive_5xx`, `base_ejection_time`,
/// `max_ejection_percent`): consecutive errors eject a server for the base
/// time times the number of its ejections, never more than the percentage
/// of the pool at once (but always at least one server).
///
/// As built by Envoy (`builder=envoy`), current Envoy's `DetectorImpl`
/// (1.27 and later): the ejection ends on the detector's interval timer
/// (every `ENVOY_INTERVAL_MS` from the start), at the first tick at
/// least `min(base x backoff, max_ejection_time)` after it began, where
/// `max_ejection_time` is its default, the larger of 300 s and the base;
/// the backoff grows by one an ejection (while under `max_ejection_time`
/// plus a base) and shrinks by one at each tick that finds the server in;
/// a server is ejected only if, with it, at most `max_ejection_percent` of
/// the pool are (`100 x (ejected + 1) <= percent x pool`: at the default
/// 10%, none of fewer than ten servers, `always_eject_one_host` being off
/// by default), and reaching the threshold restarts the count whether or
/// not it ejected.
#[derive(Clone, Debug)]
pub struct Outlier {
    threshold: u32,
    base_ms: f64,
    max_percent: u32,
    /// Whether the detector is Envoy's own.
    envoy: bool,
    consecutive: Vec<u32>,
    /// Ejections so far, or Envoy's backoff as of `until`.
    ejections: Vec<u32>,
    until: Vec<f64>,
}

/// Envoy's outlier detection `interval`, its default: the timer that ends
/// ejections ticks every 10 s.
const ENVOY_INTERVAL_MS: f64 = 10_000.0;

/// Envoy's `max_ejection_time` when unset: 300 s, or the base ejection
/// time if that is longer.
const ENVOY_MAX_EJECTION_MS: f64 = 300_000.0;

impl Outlier {
    /// Outlier detection over `n` servers.
    pub fn new(scenario: &Scenario, n: usize) -> Outlier {
        Outlier {
            threshold: scenario.outlier_5xx,
            base_ms: f64::from(scenario.ejection_ms),
            max_percent: scenario.max_ejection,
            envoy: scenario.builder == Builder::Envoy,
            consecutive: alloc::vec![0; n],
            ejections: alloc::vec![0; n],
            until: alloc::vec![f64::NEG_INFINITY; n],
        }
    }

    /// Whether `s` is ejected at `now`.
    pub fn ejects(&self, s: usize, now: f64) -> bool {
        now < self.until[s]
    }

    /// When the ejection of `s` ends.
    pub fn until(&self, s: usize) -> f64 {
        self.until[s]
    }

    /// An attempt on `s` ended in an error (a 5xx or a connection error,
    /// which Envoy maps to 5xx by default); `members` is the pool's size.
    /// True when it ejects `s`.
    pub fn errored(&mut self, s: usize, now: f64, members: usize) -> bool {
        if self.threshold == 0 || self.ejects(s, now) {
            return false;
        }
        self.consecutive[s] += 1;
        if self.consecutive[s] < self.threshold {
            return false;
        }
        let ejected = (0..self.until.len()).filter(|&i| self.ejects(i, now)).count();
        if self.envoy {
            self.consecutive[s] = 0;
            // With this one ejected, at most max_ejection_percent of the
            // hosts are (`always_eject_one_host` is off by default).
            if 100 * (ejected + 1) > self.max_percent as usize * members {
                return false;
            }
            self.envoy_eject(s, now);
            return true;
        }
        // lbsim's ejects at least one host whatever the percentage (Envoy's
        // only under it, above).
        let allowed = (members * self.max_percent as usize / 100).max(1);
        if ejected >= allowed {
            return false;
        }
        self.consecutive[s] = 0;
        self.ejections[s] += 1;
        self.until[s] = now + self.base_ms * f64::from(self.ejections[s]);
        true
    }

    /// `DetectorImpl::ejectHost` and `checkHostForUneject` for `s` at
    /// `now`: the backoff less the ticks since the last ejection ended
    /// (a tick at `now` comes first), plus one; the end at a tick.
    fn envoy_eject(&mut self, s: usize, now: f64) {
        if self.until[s].is_finite() {
            let ticks = libm::floor(now / ENVOY_INTERVAL_MS) - libm::floor(self.until[s] / ENVOY_INTERVAL_MS);
            self.ejections[s] = self.ejections[s].saturating_sub(ticks.max(0.0) as u32);
        }
        let max = ENVOY_MAX_EJECTION_MS.max(self.base_ms);
        if f64::from(self.ejections[s]) * self.base_ms < max + self.base_ms {
            self.ejections[s] += 1;
        }
        let time = (self.base_ms * f64::from(self.ejections[s])).min(max);
        self.until[s] = libm::ceil((now + time) / ENVOY_INTERVAL_MS) * ENVOY_INTERVAL_MS;
    }

    /// An attempt on `s` succeeded.
    pub fn succeeded(&mut self, s: usize) {
        self.consecutive[s] = 0;
    }

    /// Whether `s` has no error in its current run (a success would change
    /// nothing).
    pub fn is_clean(&self, s: usize) -> bool {
        self.consecutive[s] == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Envoy's own `OutlierDetectorImplTest.EjectTimeBackoff`
    /// (test/common/upstream/outlier_detection_impl_test.cc): base 10 s,
    /// max_ejection_percent 100, one host, five 5xx a time.
    #[test]
    fn envoy_ejections_end_on_its_timer_with_its_backoff() {
        let s = Scenario {
            outlier_5xx: 5,
            ejection_ms: 10_000,
            max_ejection: 100,
            builder: Builder::Envoy,
            ..Scenario::default()
        };
        let mut o = Outlier::new(&s, 1);
        let eject_at = |o: &mut Outlier, t: f64| (0..5).any(|_| o.errored(0, t, 1));
        let second = 1000.0;
        // Ejected at 0 s, back at the 10 s tick.
        assert!(eject_at(&mut o, 0.0));
        assert_eq!(o.until(0), 10.0 * second);
        // Again at 10 s: twice the base, back at 30 s (in at 20 s).
        assert!(eject_at(&mut o, 10.0 * second));
        assert!(o.ejects(0, 20.0 * second) && !o.ejects(0, 30.0 * second));
        // Third at 30 s: back at 60 s, not at 40 or 50.
        assert!(eject_at(&mut o, 30.0 * second));
        assert!(o.ejects(0, 50.0 * second) && !o.ejects(0, 60.0 * second));
        // The ticks at 70 and 80 s find it in: ejected at 80 s for 20 s.
        assert!(eject_at(&mut o, 80.0 * second));
        assert!(o.ejects(0, 90.0 * second) && !o.ejects(0, 100.0 * second));
        // Fifty quiet ticks: at 610 s for the base, 10 s, again.
        assert!(eject_at(&mut o, 610.0 * second));
        assert_eq!(o.until(0), 620.0 * second);
        // Lbsim's detector ends an ejection at 1.5 s exactly 10 s later,
        // not at a tick.
        let mut o = Outlier::new(&Scenario { builder: Builder::Lbsim, ..s }, 1);
        assert!(eject_at(&mut o, 1.5 * second));
        assert_eq!(o.until(0), 11.5 * second);
    }

    #[test]
    fn envoy_ejects_only_within_the_percentage() {
        // DetectorImpl::ejectHost: 100 x (active + 1) / hosts <= max_ejection_percent.
        let s = Scenario { outlier_5xx: 1, max_ejection: 10, builder: Builder::Envoy, ..Scenario::default() };
        let mut o = Outlier::new(&s, 20);
        assert!(o.errored(0, 0.0, 20) && o.errored(1, 0.0, 20), "two of 20 are 10%");
        assert!(!o.errored(2, 0.0, 20), "three are 15%");
        let mut o = Outlier::new(&s, 15);
        assert!(o.errored(0, 0.0, 15) && !o.errored(1, 0.0, 15), "one of 15 is 6.7%, two 13.3%");
        let mut o = Outlier::new(&s, 4);
        assert!(!o.errored(0, 0.0, 4), "one of 4 is 25%: Envoy ejects none, lbsim's detector one");
        let mut o = Outlier::new(&Scenario { builder: Builder::Lbsim, ..s }, 4);
        assert!(o.errored(0, 0.0, 4));
    }

    #[test]
    fn envoy_caps_ejections_at_the_larger_of_300_s_and_the_base() {
        let s = Scenario {
            outlier_5xx: 1,
            ejection_ms: 600_000,
            max_ejection: 100,
            builder: Builder::Envoy,
            ..Scenario::default()
        };
        let mut o = Outlier::new(&s, 1);
        assert!(o.errored(0, 0.0, 1));
        assert_eq!(o.until(0), 600_000.0, "the base, not 300 s");
        assert!(o.errored(0, 600_000.0, 1));
        assert_eq!(o.until(0), 1_200_000.0, "twice the base would pass the cap, which is the base");
    }

    #[test]
    fn outlier_ejections_grow_and_respect_the_cap() {
        let s = Scenario { outlier_5xx: 2, ejection_ms: 1_000, max_ejection: 10, ..Scenario::default() };
        let mut o = Outlier::new(&s, 4);
        assert!(!o.errored(0, 0.0, 4));
        assert!(o.errored(0, 1.0, 4));
        assert_eq!(o.until(0), 1_001.0);
        assert!(!o.errored(1, 2.0, 4) && !o.errored(1, 3.0, 4), "10% of 4 is 0: only one at a time");
        o.errored(0, 2_000.0, 4);
        assert!(o.errored(0, 2_001.0, 4));
        assert_eq!(o.until(0), 2_001.0 + 2_000.0, "the second ejection lasts twice the base");
    }
}
