//! What each server is at any time, from the events alone: member or not,
//! slow, failing, crashed, cold. The events are known before the run, so a
//! request's service can be fixed when it is dispatched from the condition
//! at its start, as the static engine fixes it from the speed.

use alloc::vec::Vec;

use crate::events::EventKind;
use crate::scenario::Scenario;

/// One server's condition from some time on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Condition {
    /// In the pool.
    pub member: bool,
    /// Speed factor of a `slow=F` in place of the configured speed.
    pub slow: Option<f64>,
    /// The black hole: it answers every request it starts with a 500.
    pub failing: bool,
    /// Down: its connections are refused.
    pub crashed: bool,
    /// When it last joined or came back from a crash (warm-up).
    pub cold_since: Option<f64>,
}

/// Every server's conditions over time.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// Per server: (from ms, condition), in time order, the first from 0.
    segments: Vec<Vec<(f64, Condition)>>,
    speeds: Vec<f64>,
    warmup_ms: f64,
    cold_speed: f64,
}

impl Timeline {
    /// The conditions a (validated) scenario's events describe.
    pub fn new(scenario: &Scenario) -> Timeline {
        let n = scenario.servers as usize;
        let segments = (0..n)
            .map(|i| {
                let name = scenario.server_name(i);
                let mut now = Condition {
                    member: !scenario.events.starts_outside(&name),
                    slow: None,
                    failing: false,
                    crashed: false,
                    cold_since: None,
                };
                let mut list = alloc::vec![(0.0, now)];
                for e in scenario.events.0.iter().filter(|e| e.server == name) {
                    let t = e.at_ms as f64;
                    match e.kind {
                        EventKind::Slow(f) => now.slow = Some(f),
                        EventKind::Fail => now.failing = true,
                        EventKind::Crash => now.crashed = true,
                        EventKind::Recover => {
                            if now.crashed {
                                now.cold_since = Some(t);
                            }
                            now = Condition { slow: None, failing: false, crashed: false, ..now };
                        }
                        EventKind::Join => now = Condition { member: true, cold_since: Some(t), ..now },
                        EventKind::Leave => now.member = false,
                    }
                    match list.last_mut() {
                        // Events at one instant make one segment.
                        Some(last) if last.0 == t => last.1 = now,
                        _ => list.push((t, now)),
                    }
                }
                list
            })
            .collect();
        Timeline {
            segments,
            speeds: (0..n).map(|i| scenario.speed(i)).collect(),
            warmup_ms: f64::from(scenario.warmup_ms),
            cold_speed: scenario.cold_speed,
        }
    }

    /// Server `s`'s condition at `t` (events at `t` have happened).
    pub fn at(&self, s: usize, t: f64) -> Condition {
        let list = &self.segments[s];
        let i = list.partition_point(|&(from, _)| from <= t);
        list[i.saturating_sub(1)].1
    }

    /// Server `s`'s configured speed (no event, no warm-up).
    pub fn configured_speed(&self, s: usize) -> f64 {
        self.speeds[s]
    }

    /// When a server in `condition` is warm again, if it joined or came
    /// back from a crash with warm-up on.
    pub fn warm_at(&self, condition: &Condition) -> Option<f64> {
        condition.cold_since.filter(|_| self.warmup_ms > 0.0).map(|since| since + self.warmup_ms)
    }

    /// The speed of a request that starts on `s` at `t`: its configured
    /// speed (or the `slow=F` in force), times the warm-up ramp from
    /// `cold-speed` to 1 over `warmup-ms` after a join or a crash.
    pub fn speed(&self, s: usize, t: f64, condition: &Condition) -> f64 {
        let base = condition.slow.unwrap_or(self.speeds[s]);
        match (condition.cold_since, self.warm_at(condition)) {
            (Some(since), Some(warm)) if t < warm => {
                let warmed = (t - since) / self.warmup_ms;
                base * (self.cold_speed + (1.0 - self.cold_speed) * warmed)
            }
            _ => base,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_follow_the_events_and_warm_up_is_linear() {
        let mut s = Scenario { warmup_ms: 10_000, ..Scenario::default() };
        s.set("events", "10s:s1:slow=0.5,20s:s1:recover,30s:s2:crash,40s:s2:recover,5s:s4:join").unwrap();
        let t = Timeline::new(&s);
        assert_eq!(t.at(0, 9_999.0).slow, None);
        assert_eq!(t.at(0, 10_000.0).slow, Some(0.5));
        assert_eq!(t.at(0, 20_000.0).slow, None);
        assert!(t.at(1, 35_000.0).crashed && !t.at(1, 40_000.0).crashed);
        assert!(!t.at(3, 1_000.0).member && t.at(3, 5_000.0).member);
        let c = t.at(1, 45_000.0);
        assert!((t.speed(1, 45_000.0, &c) - (0.25 + 0.75 * 0.5)).abs() < 1e-12);
        assert_eq!(t.speed(1, 50_000.0, &c), 1.0);
        assert_eq!(t.speed(0, 15_000.0, &t.at(0, 15_000.0)), 0.5, "a slow node is not cold");
    }
}
