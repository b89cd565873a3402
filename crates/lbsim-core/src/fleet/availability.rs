//! Which servers each balancer copy may use, as health checks, ejections,
//! exclusions and slow start change it: the probes' verdicts, a copy's
//! view refreshed, its weights ramped.

use alloc::vec::Vec;
use core::cmp::Reverse;

use super::health::slow_start_factor;
use super::state::State;
#[cfg(feature = "replay")]
use super::state::{Cause, Verdict};
use crate::num::bits;
use crate::scenario::CheckKind;

impl State {
    /// The next probe, timer or slow-start tick; `bound`: when the next
    /// other thing happens (an event, an end, a retry or an arrival).
    pub(super) fn health_step(&mut self, bound: f64) {
        let t = self.next_health();
        if self.probe_ms != t {
            // A timer or a slow-start tick: state may change.
            self.unsettled = true;
        }
        let timer = self.timers.peek().map(|Reverse((at, c, s))| (f64::from_bits(*at), *c, *s));
        if let Some((_, c, s)) = timer.filter(|&(at, _, _)| at == t) {
            self.timers.pop();
            self.refresh(c as usize, s as usize, t, true);
            return;
        }
        if self.next_tick == t {
            self.tick(t);
            return;
        }
        let n = self.members.len() as u64;
        // An event is taken before the probes due ahead of it, so the
        // timeline may change inside [t, bound) at an event already taken:
        // verdicts hold only until the next change after `t`.
        let after = self.events.partition_point(|e| e.0 <= t);
        let change = self.events.get(after).map_or(f64::INFINITY, |e| e.0);
        let bound = bound.min(self.next_health_but_probes()).min(change);
        if bound - t >= self.check_ms && self.next_probe >= self.look_again && self.skip_idle_probes(t, bound)
        {
            return;
        }
        let s = (self.next_probe % n) as usize;
        self.next_probe += 1;
        self.probe_ms = self.probe_time(self.next_probe);
        if !self.members[s] {
            return;
        }
        let passed = self.passes(s, t);
        if self.active.probe(s, passed) {
            for c in 0..self.health.len() {
                self.refresh(c, s, t, false);
            }
        }
    }

    /// Passes over the probes before `bound` when none of them can change
    /// anything: every member's verdict agrees with its mark, and no
    /// timeline change comes before `bound` to change a verdict.
    /// Such a probe only restarts its server's run of disagreeing verdicts,
    /// so the run's report is the same as probing one by one, and a
    /// one-millisecond check over a quiet hour costs one step, not 3.6
    /// million per server. False, and not asked again for a round, when
    /// some verdict still disagrees.
    fn skip_idle_probes(&mut self, t: f64, bound: f64) -> bool {
        #[cfg(test)]
        if tests::ONE_BY_ONE.load(core::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let n = self.members.len() as u64;
        let idle =
            (0..self.members.len()).all(|s| !self.members[s] || self.passes(s, t) != self.active.is_down(s));
        if !idle {
            self.look_again = self.next_probe + n;
            return false;
        }
        let from = self.next_probe;
        // The first probe at or after `bound` (probe times rise with j).
        let mut to = libm::ceil(bound / self.check_ms * n as f64).max(from as f64) as u64;
        while to > from && self.probe_time(to - 1) >= bound {
            to -= 1;
        }
        while self.probe_time(to) < bound {
            to += 1;
        }
        // A non-member's probe is not taken at all: its run of verdicts
        // waits for it to rejoin.
        for j in from..to.min(from + n) {
            let s = (j % n) as usize;
            if self.members[s] {
                self.active.agreed(s);
            }
        }
        self.next_probe = to;
        self.probe_ms = self.probe_time(to);
        true
    }

    /// Whether a probe of `s` at `t` passes.
    fn passes(&self, s: usize, t: f64) -> bool {
        let condition = self.timeline.at(s, t);
        !(condition.crashed || (self.check == CheckKind::Http && condition.failing))
    }

    /// Brings copy `c`'s view of server `s` up to date at `t`; `rearm`: a
    /// timer fired, so an exclusion that was extended needs a new one.
    pub(super) fn refresh(&mut self, c: usize, s: usize, t: f64, rearm: bool) {
        let member = self.members[s];
        let h = &mut self.health[c];
        let passive = h.passive.excludes(s, t);
        let ejected = h.outlier.ejects(s, t);
        let available = member && !self.active.is_down(s) && !passive && !ejected;
        let changed = available != h.available[s];
        if changed {
            self.unsettled = true;
            h.available[s] = available;
            if available {
                h.unavailable -= 1;
            } else {
                h.unavailable += 1;
            }
            h.reshape = true;
            if available && self.slow_start_ms > 0.0 {
                h.ramp_since[s] = Some(t);
                if self.next_tick.is_infinite() {
                    self.next_tick = (libm::floor(t / 1000.0) + 1.0) * 1000.0;
                }
                self.reweight(c, t);
            }
        }
        // Only a replay reads the verdicts: the first module goes without.
        #[cfg(feature = "replay")]
        if changed && self.keep_log {
            self.log_verdict(c, s, t, member, (passive, ejected));
        }
        let h = &mut self.health[c];
        // Downtime is reported over the run's time base (to the last arrival).
        h.downtime[s].mark(member && !available, t.min(self.horizon_ms));
        if member && !available && (changed || rearm) {
            let until = if passive { h.passive.until(s) } else { f64::NEG_INFINITY };
            let until = until.max(if ejected { h.outlier.until(s) } else { f64::NEG_INFINITY });
            if until > t {
                self.timers.push(Reverse((bits(until), c as u32, s as u32)));
            }
        }
    }

    #[cfg(feature = "replay")]
    /// Logs copy `c`'s new view of member `s` at `t` (a replay shows it):
    /// out, with the first of the causes that hold, or back after an out.
    /// A change of membership is the scenario's event, not a verdict.
    fn log_verdict(&mut self, c: usize, s: usize, t: f64, member: bool, (passive, ejected): (bool, bool)) {
        let out = if self.active.is_down(s) {
            Some(Cause::Checks)
        } else if passive {
            Some(Cause::Passive)
        } else if ejected {
            Some(Cause::Outlier)
        } else {
            None
        };
        let (copy, server) = (c as u32, s as u32);
        let was_out = self
            .verdicts
            .iter()
            .rev()
            .find(|v| v.copy == copy && v.server == server)
            .is_some_and(|v| v.out.is_some());
        if member && (out.is_some() || was_out) {
            self.verdicts.push(Verdict {
                at_ms: t,
                copy,
                server,
                out: if self.health[c].available[s] { None } else { out },
            });
        }
    }

    /// Copy `c`'s effective weights at `t` (Envoy's slow start), to its rule.
    pub(super) fn reweight(&mut self, c: usize, t: f64) -> bool {
        let h = &mut self.health[c];
        let mut ramping = false;
        let weights: Vec<u32> = self
            .weights
            .iter()
            .zip(h.ramp_since.iter_mut())
            .map(|(&w, since)| match *since {
                Some(at) if t - at < self.slow_start_ms => {
                    ramping = true;
                    let f = slow_start_factor(t - at, self.slow_start_ms, self.aggression);
                    (libm::round(f64::from(w) * 256.0 * f) as u32).max(1)
                }
                _ => {
                    *since = None;
                    w * 256
                }
            })
            .collect();
        if ramping {
            h.reweighted = true;
            h.weights = Some(weights);
        } else if h.reweighted {
            h.reweighted = false;
            h.weights = Some(self.weights.clone());
        }
        ramping
    }

    /// Once per simulated second while a server ramps up.
    pub(super) fn tick(&mut self, t: f64) {
        let mut any = false;
        for c in 0..self.health.len() {
            any |= self.reweight(c, t);
        }
        self.next_tick = if any { t + 1000.0 } else { f64::INFINITY };
    }
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::{AtomicBool, Ordering};

    use crate::Scenario;

    /// Set: every probe is taken one by one (the skip off), for the test
    /// below; the skip must change nothing, so other tests that run
    /// meanwhile get the same reports, only slower.
    pub(super) static ONE_BY_ONE: AtomicBool = AtomicBool::new(false);

    fn scenario(link: &str) -> Scenario {
        let mut s = Scenario::default();
        for (key, value) in link.split('&').filter_map(|kv| kv.split_once('=')) {
            s.set(key, value).expect("a valid pair");
        }
        s
    }

    /// The same report with quiet probes passed over as with every probe
    /// taken: through failures, crashes and recoveries taken before the
    /// probes due ahead of them, a server that fails one probe, leaves and
    /// rejoins still failing (its run of failed probes must wait for it),
    /// HTTP and TCP checks, fall and rise above one. (Without the cap at
    /// the next timeline change, the second link's s1 stayed marked down
    /// after its recovery.)
    #[test]
    fn passing_over_quiet_probes_changes_nothing() {
        let links = [
            "check-ms=50&fall=3&rise=2&check=http&rate=5&requests=300&events=1010ms:s2:fail,1040ms:s2:leave,30s:s2:join",
            "check-ms=7&fall=4&rise=3&check=http&rate=20&requests=400&events=2s:s1:fail,4s:s1:recover,6s:s3:crash,9s:s3:recover",
            "check-ms=1000&fall=2&rise=5&rate=0.5&requests=100&events=10s:s4:crash,100s:s4:recover,150s:s2:leave,170s:s2:join",
            "check-ms=3&requests=2000&events=1s:s1:crash,1.5s:s1:recover&retries=1&balancers=2",
        ];
        for link in links {
            let s = scenario(link);
            ONE_BY_ONE.store(true, Ordering::Relaxed);
            let every = crate::engine::run(&s).expect("valid");
            ONE_BY_ONE.store(false, Ordering::Relaxed);
            let skipping = crate::engine::run(&s).expect("valid");
            assert_eq!(every, skipping, "{link}");
        }
    }
}
