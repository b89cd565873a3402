//! NGINX's passive health checks: the `max_fails` and `fail_timeout`
//! parameters of the upstream module's `server` directive
//! (`ngx_http_upstream_module`), kept per balancer copy as
//! `ngx_http_upstream_round_robin.c` keeps them.

use alloc::vec::Vec;

use crate::balancer::builder::Builder;
use crate::scenario::Scenario;

/// NGINX passive checks (`max_fails`, `fail_timeout`), with the fields of
/// `ngx_http_upstream_rr_peer_t`: `fails` failed attempts with no success
/// since make a server unavailable until `fail_timeout` after `checked`;
/// the first pick after that sets `checked` again (one trial), and a
/// success after a trial (`accessed < checked`) clears `fails`.
///
/// As built by NGINX (`builder=nginx`) the clock is NGINX's `ngx_time()`,
/// whole seconds: `checked` and `accessed` are seconds, `fail_timeout`
/// is whole seconds, and a server is skipped while `now - checked <=
/// fail_timeout`, so a failure at 0.9 s keeps it out until 2 s with a
/// one-second timeout, not until 1.9 s; and an upstream of one server is
/// never skipped (NGINX's `peers->single` takes no account of failures).
/// Otherwise time is continuous.
#[derive(Clone, Debug)]
pub struct Passive {
    max_fails: u32,
    timeout_ms: f64,
    /// Whether time is NGINX's whole seconds.
    whole_seconds: bool,
    /// NGINX with a single server: checks never skip it.
    single: bool,
    fails: Vec<u32>,
    checked: Vec<f64>,
    accessed: Vec<f64>,
}

impl Passive {
    /// Passive checks over `n` servers.
    pub fn new(scenario: &Scenario, n: usize) -> Passive {
        let whole_seconds = scenario.builder == Builder::Nginx;
        let timeout_ms = if whole_seconds {
            // NGINX's fail_timeout takes seconds (`lbsim config` writes the
            // timeout rounded up to them).
            f64::from(scenario.fail_timeout_ms.div_ceil(1000) * 1000)
        } else {
            f64::from(scenario.fail_timeout_ms)
        };
        Passive {
            max_fails: scenario.max_fails,
            timeout_ms,
            whole_seconds,
            single: whole_seconds && n == 1,
            fails: alloc::vec![0; n],
            checked: alloc::vec![0.0; n],
            accessed: alloc::vec![0.0; n],
        }
    }

    /// Whether NGINX would skip `s` at `now`. (NGINX's test is `now -
    /// checked <= fail_timeout` in whole seconds; in continuous time the
    /// window is taken half-open, so its end is an instant the engine can
    /// schedule; in whole seconds it ends at the start of the second after
    /// `checked + fail_timeout`.)
    pub fn excludes(&self, s: usize, now: f64) -> bool {
        // `until` is computed one way everywhere, so a timer set for it
        // finds the window over.
        self.max_fails > 0 && !self.single && self.fails[s] >= self.max_fails && now < self.until(s)
    }

    /// When the exclusion of `s` ends, if it is excluded.
    pub fn until(&self, s: usize) -> f64 {
        let second = if self.whole_seconds { 1000.0 } else { 0.0 };
        self.checked[s] + self.timeout_ms + second
    }

    /// `now` on the balancer's clock: NGINX's whole second, in ms.
    fn clock(&self, now: f64) -> f64 {
        if self.whole_seconds {
            libm::floor(now / 1000.0) * 1000.0
        } else {
            now
        }
    }

    /// Whether `s` has no failure on record (a success would change
    /// nothing).
    pub fn is_clean(&self, s: usize) -> bool {
        self.fails[s] == 0
    }

    /// `s` was picked at `now`: past the window, this pick is the trial.
    pub fn picked(&mut self, s: usize, now: f64) {
        if now >= self.until(s) {
            self.checked[s] = self.clock(now);
        }
    }

    /// An attempt on `s` failed at `now`.
    pub fn failed(&mut self, s: usize, now: f64) {
        if self.max_fails > 0 {
            self.fails[s] += 1;
            self.checked[s] = self.clock(now);
            self.accessed[s] = self.checked[s];
        }
    }

    /// An attempt on `s` succeeded.
    pub fn succeeded(&mut self, s: usize) {
        if self.accessed[s] < self.checked[s] {
            self.fails[s] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_passive_allows_one_trial_per_timeout() {
        let s = Scenario { max_fails: 1, fail_timeout_ms: 10_000, ..Scenario::default() };
        let mut p = Passive::new(&s, 2);
        p.picked(0, 100.0);
        p.failed(0, 101.0);
        assert!(p.excludes(0, 5_000.0) && !p.excludes(1, 5_000.0));
        assert!(!p.excludes(0, 10_101.0), "the window has passed");
        p.picked(0, 10_200.0);
        assert!(p.excludes(0, 10_201.0), "the trial is in flight");
        p.succeeded(0);
        assert!(!p.excludes(0, 10_202.0), "a successful trial clears the fails");
    }

    #[test]
    fn nginx_counts_the_window_in_whole_seconds() {
        // ngx_http_upstream_get_peer skips a peer while `now - checked <=
        // fail_timeout`, both ngx_time() seconds.
        let s =
            Scenario { max_fails: 1, fail_timeout_ms: 1_000, builder: Builder::Nginx, ..Scenario::default() };
        let mut p = Passive::new(&s, 2);
        p.failed(0, 900.0);
        assert!(p.excludes(0, 1_950.0), "second 1 is within a second of second 0");
        assert!(!p.excludes(0, 2_000.0), "second 2 is past it");
        assert_eq!(p.until(0), 2_000.0);
        p.picked(0, 2_300.0);
        assert!(p.excludes(0, 3_999.0) && !p.excludes(0, 4_000.0), "the trial's window runs from second 2");
        // One server alone is never skipped by NGINX.
        let mut one = Passive::new(&s, 1);
        one.failed(0, 900.0);
        assert!(!one.excludes(0, 1_000.0));
        // Continuous time: the same failure's window ends at 1.9 s.
        let s = Scenario { builder: Builder::Lbsim, ..s };
        let mut p = Passive::new(&s, 1);
        p.failed(0, 900.0);
        assert!(!p.excludes(0, 1_950.0));
    }

    #[test]
    fn a_success_before_the_trial_does_not_clear_fails() {
        let s = Scenario { max_fails: 2, ..Scenario::default() };
        let mut p = Passive::new(&s, 1);
        p.failed(0, 10.0);
        p.succeeded(0);
        p.failed(0, 20.0);
        assert!(p.excludes(0, 30.0), "two failures within the window, as NGINX counts them");
    }
}
