//! The replay: what happened to the first requests of a run, attempt by
//! attempt, and the counters at any moment of it: what a replay view moves
//! and counts, so that it needs no animation model of its own.
//!
//! The window is the run of the scenario's first `window` requests. A
//! request's fate depends only on what came before it (arrivals are drawn
//! in order, each server serves in arrival order, a rule picks from what it
//! has seen), so for every rule without retries or health checks those
//! requests fare exactly as in the whole run; with them, a retry or a
//! verdict late in the window may differ, since the requests after the
//! window are not there to change it. A run no longer than the window is
//! replayed whole, and the counters at its end are its report's figures.
//!
//! What a rule heard and learned is in it too: the probes its copies sent
//! (when sent, reached and answered, and what each reply carried) and
//! each change of a copy's learned weights, in the run's order
//! (docs/model.md#learned-weights-in-a-trace-and-a-replay).

use alloc::vec::Vec;

use crate::balancer::AlgorithmId;
#[cfg(feature = "replay")]
use crate::engine::Prepared;
#[cfg(feature = "replay")]
use crate::fleet;
use crate::fleet::timeline::{Condition, Timeline};
use crate::fleet::{Outcome, Verdict};
pub use crate::fleet::{Probe, WeightUpdate};
use crate::report::percentiles;
#[cfg(feature = "replay")]
use crate::scenario::{Scenario, ScenarioError};
#[cfg(feature = "replay")]
use crate::workload::Workload;

mod view;

pub use self::view::{
    check_pair, default_pair, window_for, Keys, View, DEFAULT_WINDOW, MAX_WINDOW, SPEEDS, VIEW_KEYS,
};

/// The most attempts a replay carries: with retries a window's requests
/// make more attempts than requests, and the log is cut to the requests
/// whose attempts all fit.
pub const MAX_ATTEMPTS: usize = 20_000;

/// The most probes a replay carries, the first sent: three a request (the
/// Prequal paper's probe rate) for a window of [`MAX_ATTEMPTS`].
pub const MAX_PROBES: usize = 60_000;

/// The most weight updates a replay carries, the first made: one a
/// second per copy for a window of many minutes.
pub const MAX_WEIGHT_UPDATES: usize = 2_000;

/// A server's state at a moment, as a replay shows it: what the scenario's
/// events have made of it by then, read from the fleet's own
/// [`Timeline`] (the conditions a run serves under, `docs/model.md`'s
/// events). Where conditions combine, the state is the first of out of
/// the pool, crashed, failing and slow that holds (a slow server that
/// crashes is crashed; one that leaves while failing is out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServerState {
    /// In the pool and serving at its configured speed (or warming up).
    Up,
    /// Serving at this speed factor (`slow=F`).
    Slow(f64),
    /// Answering every request it starts with a 500 (`fail`).
    Failing,
    /// Down, refusing connections (`crash`).
    Crashed,
    /// Not in the pool (before it joins, after it leaves).
    Out,
}

impl From<Condition> for ServerState {
    fn from(c: Condition) -> ServerState {
        match c {
            Condition { member: false, .. } => ServerState::Out,
            Condition { crashed: true, .. } => ServerState::Crashed,
            Condition { failing: true, .. } => ServerState::Failing,
            Condition { slow: Some(f), .. } => ServerState::Slow(f),
            Condition { .. } => ServerState::Up,
        }
    }
}

impl ServerState {
    /// Server `s`'s state at `t_ms` on the scenario's `timeline` (an event
    /// at `t_ms` has happened, as [`Replay::at`] counts an attempt ending
    /// then as ended).
    pub fn at(timeline: &Timeline, s: usize, t_ms: f64) -> ServerState {
        timeline.at(s, t_ms).into()
    }
}

/// A weight as the replay shows it (the page's view and `lbsim replay`):
/// three significant figures (whole numbers from 100), no trailing
/// zeros, no exponent.
pub fn weight_text(w: f64) -> alloc::string::String {
    let decimals = match libm::fabs(w) {
        a if a >= 100.0 || a == 0.0 => 0,
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        _ => 3,
    };
    let text = alloc::format!("{w:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').into()
    } else {
        text
    }
}

/// One request of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// When it arrived, in ms.
    pub arrival_ms: f64,
    /// Whether it is of the slow class (bimodal work).
    pub slow: bool,
    /// When the balancer answered it, after its last attempt, in ms.
    pub answered_ms: f64,
    /// Whether that answer was a success.
    pub ok: bool,
}

/// One attempt of a request on a server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attempt {
    /// Index of the request in the window.
    pub request: u32,
    /// Server it was sent to (0-based).
    pub server: u32,
    /// When it was sent, in ms.
    pub sent_ms: f64,
    /// When it took a slot (its sending time when refused), in ms.
    pub start_ms: f64,
    /// When it ended, in ms.
    pub done_ms: f64,
    /// How it ended.
    pub outcome: Outcome,
    /// Whether it retries an earlier attempt of its request.
    pub retry: bool,
    /// Whether its server's cache held the user (caches on).
    pub hit: bool,
}

/// One rule's replay: its window's requests and their attempts.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The rule.
    pub algorithm: AlgorithmId,
    /// Servers in the pool (members or not).
    pub servers: u32,
    /// The window's requests, in arrival order.
    pub requests: Vec<Request>,
    /// Their attempts, in the order they were sent.
    pub attempts: Vec<Attempt>,
    /// The balancer copies' health verdicts (servers taken out and back),
    /// up to the last answer.
    pub verdicts: Vec<Verdict>,
    /// The probes the copies sent up to the last answer, in the order
    /// they reached their servers, at most [`MAX_PROBES`].
    pub probes: Vec<Probe>,
    /// The copies' weight updates up to the last answer, in the order of
    /// the picks that made them, at most [`MAX_WEIGHT_UPDATES`].
    pub weights: Vec<WeightUpdate>,
}

/// What the replay's counters show at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    /// Requests arrived by then.
    pub arrived: u32,
    /// Requests answered by then.
    pub finished: u32,
    /// Of those, the answers that were errors.
    pub errors: u32,
    /// Retry attempts sent by then.
    pub retries: u32,
    /// Per server: attempts sent and not yet ended (waiting or served).
    pub in_flight: Vec<u32>,
    /// Per server: attempts waiting for a slot.
    pub queued: Vec<u32>,
    /// The 99th percentile latency of the requests answered by then
    /// (nearest rank, as the report's), none before the first answer.
    pub p99_ms: Option<f64>,
    /// Per server: the balancer copies that have it out by their health
    /// verdicts.
    pub out: Vec<u32>,
    /// Probes sent by then.
    pub probes: u32,
    /// Per server: the last probe reply by then (any copy's), a rule that
    /// probes.
    pub replies: Vec<Option<Probe>>,
    /// The first copy's weights in force then, a rule that learns them
    /// (none before its first update).
    pub weights: Option<Vec<f64>>,
}

/// The replay of `algorithm` over the scenario's first `window` requests
/// (at most [`MAX_WINDOW`]).
#[cfg(feature = "replay")]
pub fn replay(scenario: &Scenario, algorithm: AlgorithmId, window: u64) -> Result<Replay, ScenarioError> {
    Ok(replays(scenario, &[algorithm], window)?.remove(0))
}

/// The replays of `rules` (in that order) over the scenario's first
/// `window` requests, drawn once for all of them.
#[cfg(feature = "replay")]
pub fn replays(
    scenario: &Scenario,
    rules: &[AlgorithmId],
    window: u64,
) -> Result<Vec<Replay>, ScenarioError> {
    let requests = scenario.requests.min(window.clamp(1, MAX_WINDOW));
    let windowed = Scenario { requests, algorithms: rules.to_vec(), ..scenario.clone() };
    let prepared = Prepared::new(&windowed)?;
    let servers = prepared.scenario().pool().len();
    Ok(rules
        .iter()
        .map(|&rule| Replay::new(rule, servers, prepared.workload(), prepared.answer_log(rule)))
        .collect())
}

#[cfg(feature = "replay")]
impl Replay {
    /// Builds a replay from the fleet loop's logs of a whole run.
    fn new(algorithm: AlgorithmId, servers: usize, workload: &Workload, logs: fleet::Logs) -> Replay {
        let fleet::Logs { attempts, answered, verdicts, mut probes, weights } = logs;
        // Cut to the requests whose attempts all fit: every attempt past the
        // cap belongs to a request at or after the cut.
        let cut = attempts.get(MAX_ATTEMPTS..).map_or(workload.requests.len(), |late| {
            late.iter().map(|a| a.request as usize).min().unwrap_or(workload.requests.len())
        });
        let mut requests: Vec<Request> = workload.requests[..cut]
            .iter()
            .map(|r| Request { arrival_ms: r.arrival_ms, slow: r.slow, answered_ms: f64::NAN, ok: false })
            .collect();
        for &(index, at, ok) in &answered {
            if let Some(r) = requests.get_mut(index as usize) {
                r.answered_ms = at;
                r.ok = ok;
            }
        }
        let attempts = attempts
            .iter()
            .filter(|a| (a.request as usize) < cut)
            .map(|a| Attempt {
                request: a.request,
                server: a.server,
                sent_ms: a.sent_ms,
                start_ms: a.start_ms,
                done_ms: a.done_ms,
                outcome: a.outcome,
                retry: a.previous.is_some(),
                hit: a.hit,
            })
            .collect();
        probes.truncate(MAX_PROBES);
        let mut replay =
            Replay { algorithm, servers: servers as u32, requests, attempts, verdicts, probes, weights };
        let end = replay.end_ms();
        replay.verdicts.retain(|v| v.at_ms <= end);
        replay.probes.retain(|p| p.sent_ms <= end);
        replay.weights.retain(|w| w.at_ms <= end);
        replay.weights.truncate(MAX_WEIGHT_UPDATES);
        replay
    }
}

impl Replay {
    /// When the last request was answered: the replay's end.
    pub fn end_ms(&self) -> f64 {
        self.requests.iter().map(|r| r.answered_ms).fold(0.0, f64::max)
    }

    /// The counters at `t_ms`: what has arrived, been sent and ended by
    /// then (an attempt ending at `t_ms` has ended).
    pub fn at(&self, t_ms: f64) -> Counters {
        let servers = self.servers as usize;
        let mut c = Counters {
            in_flight: alloc::vec![0; servers],
            queued: alloc::vec![0; servers],
            out: alloc::vec![0; servers],
            ..Counters::default()
        };
        // The verdicts in order: each copy's last by then on each server.
        let mut last: Vec<(u32, u32, bool)> = Vec::new();
        for v in self.verdicts.iter().take_while(|v| v.at_ms <= t_ms) {
            last.retain(|&(copy, server, _)| (copy, server) != (v.copy, v.server));
            last.push((v.copy, v.server, v.out.is_some()));
        }
        for (_, server, out) in last {
            if let Some(n) = c.out.get_mut(server as usize) {
                *n += u32::from(out);
            }
        }
        let mut latencies = Vec::new();
        for r in &self.requests {
            if r.arrival_ms > t_ms {
                // Arrival order: none after this has arrived either.
                break;
            }
            c.arrived += 1;
            if r.answered_ms <= t_ms {
                c.finished += 1;
                c.errors += u32::from(!r.ok);
                // As the report takes it: answer time less arrival.
                latencies.push((r.answered_ms - r.arrival_ms).to_bits());
            }
        }
        for a in &self.attempts {
            if a.sent_ms > t_ms {
                continue;
            }
            c.retries += u32::from(a.retry);
            let s = a.server as usize;
            if a.done_ms > t_ms && s < servers {
                c.in_flight[s] += 1;
                c.queued[s] += u32::from(a.start_ms > t_ms);
            }
        }
        c.p99_ms = (!latencies.is_empty()).then(|| percentiles(&latencies).p99);
        c.replies = alloc::vec![None; servers];
        for p in &self.probes {
            c.probes += u32::from(p.sent_ms <= t_ms);
            if p.replied_ms <= t_ms {
                if let Some(last) = c.replies.get_mut(p.server as usize) {
                    if last.is_none_or(|l| l.replied_ms <= p.replied_ms) {
                        *last = Some(*p);
                    }
                }
            }
        }
        c.weights = self.weights.iter().rfind(|w| w.copy == 0 && w.at_ms <= t_ms).map(|w| w.weights.clone());
        c
    }

    /// The probes sent in `(from_ms, t_ms]`, in the order they reached
    /// their servers: what a view draws as recent.
    pub fn probes_sent(&self, from_ms: f64, t_ms: f64) -> impl Iterator<Item = &Probe> {
        self.probes.iter().filter(move |p| p.sent_ms > from_ms && p.sent_ms <= t_ms)
    }
}

#[cfg(all(test, feature = "replay"))]
mod tests {
    use super::*;
    use crate::presets::preset;
    use crate::report::AlgorithmResult;

    fn result(scenario: &Scenario, algorithm: AlgorithmId) -> AlgorithmResult {
        let s = Scenario { algorithms: alloc::vec![algorithm], ..scenario.clone() };
        crate::engine::run(&s).expect("a valid scenario").results.remove(0)
    }

    /// A run replayed whole ends on its report's figures: every request
    /// answered, its errors, its retries and its p99, exactly.
    #[test]
    fn a_whole_run_ends_on_its_report() {
        for id in ["mixed", "black-hole", "crash", "slow-node", "cold-start"] {
            let p = preset(id).expect("a preset");
            let s = Scenario { requests: 2_000, ..p.scenario() };
            for &algorithm in &s.rules() {
                let replay = replay(&s, algorithm, 2_000).expect("a replay");
                let report = result(&s, algorithm);
                let end = replay.at(f64::INFINITY);
                let name = algorithm.id();
                assert_eq!(end.arrived, 2_000, "{id} {name}");
                assert_eq!(end.finished, 2_000, "{id} {name}: every request answered once");
                assert_eq!(u64::from(end.errors), report.errors.unwrap_or(0), "{id} {name}: errors");
                assert_eq!(u64::from(end.retries), report.retries.unwrap_or(0), "{id} {name}: retries");
                assert_eq!(end.p99_ms, Some(report.latency_ms.all.p99), "{id} {name}: p99");
                assert!(end.in_flight.iter().chain(&end.queued).all(|&n| n == 0), "{id} {name}");
                assert_eq!(replay.at(replay.end_ms()), end, "{id} {name}: nothing after the last answer");
            }
        }
    }

    /// The crash preset's active checks take s4 out on the third failed
    /// probe, 4 to 6 s after it crashes at 20 s (its lesson), and take it
    /// back once it recovers at 40 s; the counters say so at each moment.
    /// With passive checks (`max-fails=1`) the first failure takes it out.
    #[test]
    fn health_verdicts_are_in_the_log() {
        use crate::fleet::Cause;
        let s = preset("crash").expect("a preset").scenario();
        let r = replay(&s, AlgorithmId::RoundRobin, window_for(&s)).expect("a replay");
        let on_s4: Vec<_> = r.verdicts.iter().filter(|v| v.server == 3).collect();
        assert_eq!(on_s4.len(), 2, "{on_s4:?}");
        assert_eq!(on_s4[0].out, Some(Cause::Checks));
        assert!((24_000.0..=26_000.0).contains(&on_s4[0].at_ms), "{}", on_s4[0].at_ms);
        assert_eq!(on_s4[1].out, None);
        assert!(on_s4[1].at_ms > 40_000.0, "{}", on_s4[1].at_ms);
        assert!(r.verdicts.iter().all(|v| v.server == 3), "only s4 is ever out");
        assert_eq!(r.at(on_s4[0].at_ms - 1.0).out, [0, 0, 0, 0]);
        assert_eq!(r.at(on_s4[0].at_ms).out, [0, 0, 0, 1]);
        assert_eq!(r.at(on_s4[1].at_ms).out, [0, 0, 0, 0]);
        let passive = Scenario { max_fails: 1, ..s };
        let r = replay(&passive, AlgorithmId::RoundRobin, window_for(&passive)).expect("a replay");
        let first = r.verdicts.first().expect("a verdict");
        assert_eq!((first.server, first.out), (3, Some(Cause::Passive)));
        let failed =
            r.attempts.iter().find(|a| a.server == 3 && a.outcome != Outcome::Ok).expect("a failure");
        assert_eq!(first.at_ms, failed.done_ms, "the first failure takes it out");
    }

    /// Without retries or health checks the window is the whole run's
    /// first requests, attempt for attempt.
    #[test]
    fn a_window_is_the_runs_beginning() {
        let s = Scenario { requests: 6_000, ..preset("mixed").expect("a preset").scenario() };
        for &algorithm in &s.rules() {
            let whole = Prepared::new(&s).expect("valid").dispatch_log(algorithm);
            let window = replay(&s, algorithm, 1_500).expect("a replay");
            assert_eq!(window.requests.len(), 1_500);
            for a in &window.attempts {
                let d = whole[a.request as usize];
                assert_eq!((a.server as usize, a.start_ms, a.done_ms), (d.server, d.start_ms, d.done_ms));
            }
        }
    }

    /// At any moment: what is waiting is in flight, what has finished has
    /// arrived, and a server holds no more than its slots in service.
    #[test]
    fn counters_hold_together_at_every_moment() {
        let s = Scenario { requests: 3_000, ..preset("crash").expect("a preset").scenario() };
        let slots = s.slots;
        let replay = replay(&s, AlgorithmId::LeastConnections, 3_000).expect("a replay");
        let end = replay.end_ms();
        let mut last = Counters::default();
        for k in 0..=200 {
            let c = replay.at(end * f64::from(k) / 200.0);
            assert!(c.finished <= c.arrived && c.errors <= c.finished);
            assert!(c.arrived >= last.arrived && c.finished >= last.finished && c.retries >= last.retries);
            for (s, (&busy, &waiting)) in c.in_flight.iter().zip(&c.queued).enumerate() {
                assert!(waiting <= busy);
                assert!(busy - waiting <= slots, "server {s}: {busy} in flight, {waiting} waiting");
            }
            last = c;
        }
    }

    /// A server's state follows its events: slow from its `slow`, crashed
    /// (not slow) when it then crashes, up again at its `recover`; out
    /// from a `leave` until its `join`, and out (not failing) when it
    /// leaves while failing; a server whose first membership event is a
    /// join is out until then. Each event counts from its own instant.
    #[test]
    fn a_servers_state_follows_its_events() {
        use ServerState::{Crashed, Failing, Out, Slow, Up};
        let mut s = Scenario { servers: 5, ..Scenario::default() };
        s.set(
            "events",
            "10s:s1:slow=0.5,20s:s1:crash,30s:s1:recover,\
             5s:s2:leave,15s:s2:join,\
             12s:s3:fail,14s:s3:leave,\
             8s:s4:crash,9s:s4:recover,\
             3s:s5:join",
        )
        .expect("valid events");
        let timeline = Timeline::new(&s);
        let states =
            |t_ms: f64| -> Vec<ServerState> { (0..5).map(|i| ServerState::at(&timeline, i, t_ms)).collect() };
        assert_eq!(states(0.0), [Up, Up, Up, Up, Out]);
        assert_eq!(states(2_999.0), [Up, Up, Up, Up, Out]);
        assert_eq!(states(3_000.0), [Up, Up, Up, Up, Up]);
        assert_eq!(states(5_000.0), [Up, Out, Up, Up, Up]);
        assert_eq!(states(8_000.0), [Up, Out, Up, Crashed, Up]);
        assert_eq!(states(9_000.0), [Up, Out, Up, Up, Up]);
        assert_eq!(states(10_000.0), [Slow(0.5), Out, Up, Up, Up]);
        assert_eq!(states(12_000.0), [Slow(0.5), Out, Failing, Up, Up]);
        assert_eq!(states(14_000.0), [Slow(0.5), Out, Out, Up, Up]);
        assert_eq!(states(15_000.0), [Slow(0.5), Up, Out, Up, Up]);
        assert_eq!(states(20_000.0), [Crashed, Up, Out, Up, Up]);
        assert_eq!(states(29_999.9), [Crashed, Up, Out, Up, Up]);
        assert_eq!(states(30_000.0), [Up, Up, Out, Up, Up]);
    }

    #[test]
    fn the_log_is_cut_to_whole_requests() {
        // A crash with retries: more attempts than requests.
        let s = Scenario { requests: 20_000, retries: 2, ..preset("crash").expect("a preset").scenario() };
        let replay = replay(&s, AlgorithmId::RoundRobin, 20_000).expect("a replay");
        assert!(replay.attempts.len() <= MAX_ATTEMPTS);
        assert!(replay.requests.len() < 20_000, "the crash's retries pass the cap");
        let last = replay.requests.len() as u32;
        assert!(replay.attempts.iter().all(|a| a.request < last));
        let sent: Vec<u32> = replay.attempts.iter().filter(|a| !a.retry).map(|a| a.request).collect();
        assert!(sent.windows(2).all(|w| w[0] < w[1]), "first attempts in arrival order");
    }
}
