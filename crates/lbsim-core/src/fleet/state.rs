//! The fleet's state for one rule's run: what each balancer copy knows of
//! each server's health, the attempts in flight and their ends, the
//! retries waiting, and the figures the report gets; built from the
//! scenario and summarised at the end.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::cache::{CacheFigures, Caches};
use super::connections::Connections;
use super::health::{Active, Downtime, Outlier, Passive};
use super::timeline::Timeline;
use crate::balancer::Pool;
use crate::events::EventKind;
use crate::report::{percentiles, Empty, Percentiles};
use crate::scenario::{CheckKind, Layer, Scenario};
use crate::server::AlgorithmRun;
use crate::workload::Workload;

/// Marks an end in the heap as a light one: the request's index, not an
/// attempt's (ids stay below 2^31: at most 10M requests x 11 attempts).
pub(super) const LIGHT: u32 = 1 << 31;

/// How an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The work was done.
    Ok,
    /// A failing server answered 500.
    Http500,
    /// A crashed server: refused, or dropped when it crashed.
    Connection,
}

/// Why a balancer copy took a server out of its choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Active health checks marked it down (`fall` failed probes).
    Checks,
    /// Passive checks: `max-fails` failures within `fail-timeout-ms`
    /// (NGINX).
    Passive,
    /// Outlier detection ejected it (Envoy).
    Outlier,
}

/// A copy's verdict on a server, kept with the log: taken out (and why) or
/// taken back. A server leaving or joining the pool is an event, not a
/// verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// When, in ms.
    pub at_ms: f64,
    /// The balancer copy (0-based).
    pub copy: u32,
    /// The server (0-based).
    pub server: u32,
    /// Why it was taken out; none: taken back.
    pub out: Option<Cause>,
}

/// A probe a copy sent, as its reply told it (docs/model.md#what-a-rule-may-know).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// The balancer copy that sent it (0-based).
    pub copy: u32,
    /// The server probed (0-based).
    pub server: u32,
    /// When it was sent, ms: half a probe round trip before it reached
    /// the server.
    pub sent_ms: f64,
    /// When it reached the server, ms: what its figures are as of.
    pub reached_ms: f64,
    /// When its reply reached the copy, ms.
    pub replied_ms: f64,
    /// Requests the server held then.
    pub in_flight: u32,
    /// The server's latency estimate then, ms (none before it finished any).
    pub latency_ms: Option<f64>,
}

/// A copy's learned weights changed at a pick: the weights it picks by
/// from then on, one a server (`Balancer::weights`).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightUpdate {
    /// When, in ms: the pick that brought them in force.
    pub at_ms: f64,
    /// The balancer copy (0-based).
    pub copy: u32,
    /// The weights, one a server.
    pub weights: Vec<f64>,
}

/// A run's log, when kept: every attempt in the order sent, every answer
/// (request, when, whether it succeeded) in the order they came, every
/// verdict in the order given, every probe in the order it reached its
/// server, every weight update in the order of the picks.
#[derive(Clone, Debug, Default)]
pub struct Logs {
    /// The attempts.
    pub attempts: Vec<Attempt>,
    /// The answers.
    pub answered: Vec<(u32, f64, bool)>,
    /// The health verdicts.
    pub verdicts: Vec<Verdict>,
    /// The probes (a rule that probes).
    pub probes: Vec<Probe>,
    /// The weight updates (a rule that learns weights).
    pub weights: Vec<WeightUpdate>,
}

/// One attempt of one request on one server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attempt {
    /// Index of the request in arrival order.
    pub request: u32,
    /// Server it was sent to.
    pub server: u32,
    /// The request's previous attempt, if this is a retry.
    pub previous: Option<u32>,
    /// The balancer copy that sent it.
    pub copy: u16,
    /// When it was sent, in ms.
    pub sent_ms: f64,
    /// When it took a slot (its sending time when refused), in ms.
    pub start_ms: f64,
    /// When it ended, in ms.
    pub done_ms: f64,
    /// How it ended.
    pub outcome: Outcome,
    /// Whether a crash failed it after it was sent.
    pub aborted: bool,
    /// Whether its server's cache held the user (caches on).
    pub hit: bool,
    pub(super) settled: bool,
}

/// What a balancer copy knows of each server's health.
pub(super) struct CopyHealth {
    pub(super) passive: Passive,
    pub(super) outlier: Outlier,
    pub(super) available: Vec<bool>,
    pub(super) unavailable: usize,
    /// Membership or availability changed since the rule last heard.
    pub(super) reshape: bool,
    pub(super) downtime: Vec<Downtime>,
    /// Slow start: when each ramping server joined or came back.
    pub(super) ramp_since: Vec<Option<f64>>,
    /// Whether the rule holds ramped weights (to restore the configured).
    pub(super) reweighted: bool,
    /// Weights for the rule, given at its next pick.
    pub(super) weights: Option<Vec<u32>>,
    /// Per server: attempts this copy sent that will end in an error and
    /// have not ended yet.
    pub(super) pending_errors: Vec<u32>,
}

/// Per-server figures of a fleet run.
pub(crate) struct ServerFigures {
    pub errors: u64,
    pub ejected_ms: f64,
    pub requests_series: Vec<u32>,
}

/// What a finished fleet run adds to the report.
pub(crate) struct Finished {
    pub attempts: u64,
    pub errors: u64,
    pub retries: u64,
    pub ok: Empty<Percentiles>,
    pub error_series: Vec<u32>,
    pub servers: Vec<ServerFigures>,
    pub caches: Option<CacheFigures>,
}

/// The fleet's part of one algorithm's run.
pub(crate) struct State {
    pub(super) timeline: Timeline,
    /// (time, server, kind), in time order.
    pub(super) events: Vec<(f64, usize, EventKind)>,
    pub(super) next_event: usize,
    pub(super) members: Vec<bool>,
    pub(super) health: Vec<CopyHealth>,
    pub(super) active: Active,
    pub(super) check_ms: f64,
    pub(super) check: CheckKind,
    pub(super) next_probe: u64,
    pub(super) probe_ms: f64,
    /// Probes before this one are taken one by one (some verdict disagreed
    /// with its mark when they were last looked at).
    pub(super) look_again: u64,
    /// Server of each first attempt with a light end (rules that read
    /// completions).
    pub(super) light_server: Vec<u32>,
    /// Per server: the times it starts to fail or crashes, in order.
    pub(super) troubles: Vec<Vec<f64>>,
    /// Per server: its crash times, in order.
    pub(super) crashes: Vec<Vec<f64>>,
    /// Whether passive checks or outlier detection watch successes.
    pub(super) health_watches: bool,
    /// Whether the rule reads completions.
    pub(super) observes: bool,
    /// Something changed since the fleet was last found quiet or not.
    pub(super) unsettled: bool,
    /// When time alone may make the fleet quiet (a warm-up ends).
    pub(super) recheck_ms: f64,
    /// Attempts sent, with or without a record.
    pub(super) sent: u64,
    /// Steps taken: arrivals, ends, events, probes, timers, retries (what
    /// `cost::steps` estimates).
    pub(crate) steps: u64,
    /// Ends of exclusions and ejections: (time, copy, server).
    pub(super) timers: BinaryHeap<Reverse<(u64, u32, u32)>>,
    pub(super) next_tick: f64,
    pub(super) weights: Vec<u32>,
    pub(super) slow_start_ms: f64,
    pub(super) aggression: f64,
    pub(super) attempts: Vec<Attempt>,
    pub(super) ends: BinaryHeap<Reverse<(u64, u32)>>,
    pub(super) in_flight: Vec<Vec<u32>>,
    pub(super) retry_queue: VecDeque<(f64, u32)>,
    pub(super) wait_of: Vec<f64>,
    /// Latency and success of requests answered before an earlier one.
    pub(super) answers: Vec<(f64, bool)>,
    /// Requests before this one have reached the summaries.
    pub(super) in_order: usize,
    /// Answers waiting in `answers` for an earlier one.
    pub(super) early: usize,
    /// Successful latencies as bits, in arrival order.
    pub(super) ok_latencies: Vec<u64>,
    pub(super) retries_allowed: u32,
    pub(super) count_5xx: bool,
    pub(super) error_ms: f64,
    pub(super) connect_ms: f64,
    pub(super) errors: u64,
    pub(super) retries: u64,
    pub(super) error_series: Vec<u32>,
    pub(super) server_errors: Vec<u64>,
    pub(super) requests_series: Vec<Vec<u32>>,
    pub(super) keep_log: bool,
    /// With the log kept: each request's answer, (request, when, whether
    /// it succeeded), in the order they came.
    pub(super) answered: Vec<(u32, f64, bool)>,
    /// With the log kept: each copy's verdicts on the servers.
    pub(super) verdicts: Vec<Verdict>,
    /// With the log kept: each copy's weight updates.
    pub(super) weight_updates: Vec<WeightUpdate>,
    pub(super) horizon_ms: f64,
    /// Servers' caches, when they keep them (docs/model.md#caches-and-connections).
    pub(super) caches: Option<Caches>,
    /// Layer 4: every user's connection.
    pub(super) connections: Option<Connections>,
    /// Layer 4: the copy that placed each first attempt with a light end.
    pub(super) light_copy: Vec<u16>,
}

impl State {
    pub(crate) fn new(
        scenario: &Scenario,
        pool: &Pool,
        workload: &Workload,
        run: &mut AlgorithmRun,
        keep_log: bool,
    ) -> State {
        let n = pool.len();
        let timeline = Timeline::new(scenario);
        let members: Vec<bool> = (0..n).map(|s| timeline.at(s, 0.0).member).collect();
        let outside = members.iter().filter(|&&m| !m).count();
        let events: Vec<(f64, usize, EventKind)> = scenario
            .events
            .0
            .iter()
            .filter_map(|e| {
                let s = (0..n).find(|&i| scenario.server_name(i) == e.server)?;
                Some((e.at_ms as f64, s, e.kind))
            })
            .collect();
        let health = (0..scenario.balancers.max(1))
            .map(|_| CopyHealth {
                passive: Passive::new(scenario, n),
                outlier: Outlier::new(scenario, n),
                available: members.clone(),
                unavailable: outside,
                reshape: outside > 0,
                downtime: alloc::vec![Downtime::default(); n],
                ramp_since: alloc::vec![None; n],
                reweighted: false,
                weights: None,
                pending_errors: alloc::vec![0; n],
            })
            .collect();
        let mut troubles = alloc::vec![Vec::new(); n];
        let mut crashes = alloc::vec![Vec::new(); n];
        for &(t, s, kind) in &events {
            if matches!(kind, EventKind::Fail | EventKind::Crash) {
                troubles[s].push(t);
            }
            if kind == EventKind::Crash {
                crashes[s].push(t);
            }
        }
        let layer4 = scenario.layer == Layer::L4;
        let mut state = State {
            caches: (scenario.cache_keys > 0)
                .then(|| Caches::new(n, scenario.cache_keys, scenario.hit_cost, run.buckets.count)),
            connections: layer4.then(|| Connections::new(scenario.users, scenario.conn_life_ms)),
            light_copy: if layer4 && run.observes {
                alloc::vec![0; workload.requests.len()]
            } else {
                Vec::new()
            },
            timeline,
            troubles,
            crashes,
            health_watches: scenario.max_fails > 0 || scenario.outlier_5xx > 0,
            observes: run.observes,
            unsettled: true,
            light_server: if run.observes { alloc::vec![0; workload.requests.len()] } else { Vec::new() },
            recheck_ms: f64::INFINITY,
            sent: 0,
            steps: 0,
            probe_ms: f64::INFINITY,
            events,
            next_event: 0,
            members,
            health,
            active: Active::new(scenario, n),
            check_ms: f64::from(scenario.check_ms),
            check: scenario.check,
            next_probe: 0,
            look_again: 0,
            timers: BinaryHeap::new(),
            next_tick: f64::INFINITY,
            weights: pool.weights.clone(),
            slow_start_ms: f64::from(scenario.slow_start_ms),
            aggression: scenario.slow_start_aggression,
            attempts: Vec::with_capacity(workload.requests.len()),
            ends: BinaryHeap::new(),
            in_flight: alloc::vec![Vec::new(); n],
            retry_queue: VecDeque::new(),
            wait_of: alloc::vec![0.0; workload.requests.len()],
            answers: alloc::vec![(f64::NAN, false); workload.requests.len()],
            in_order: 0,
            early: 0,
            ok_latencies: Vec::new(),
            // Retries and HTTP errors are layer 7's (docs/model.md#caches-and-connections).
            retries_allowed: if layer4 { 0 } else { scenario.retries },
            count_5xx: scenario.count_5xx && !layer4,
            error_ms: scenario.error_ms,
            connect_ms: scenario.connect_ms,
            errors: 0,
            retries: 0,
            error_series: alloc::vec![0; run.buckets.count],
            server_errors: alloc::vec![0; n],
            requests_series: alloc::vec![alloc::vec![0; run.buckets.count]; n],
            keep_log,
            answered: Vec::new(),
            verdicts: Vec::new(),
            weight_updates: Vec::new(),
            horizon_ms: workload.horizon_ms(),
        };
        state.probe_ms = state.probe_time(0);
        state
    }

    pub(super) fn bucket(run: &AlgorithmRun, t: f64) -> usize {
        run.buckets.of(t)
    }

    /// The time of the next probe, timer or slow-start tick.
    pub(super) fn next_health(&self) -> f64 {
        self.probe_ms.min(self.next_health_but_probes())
    }

    /// The time of the next timer or slow-start tick.
    pub(super) fn next_health_but_probes(&self) -> f64 {
        let timer = self.timers.peek().map_or(f64::INFINITY, |Reverse((t, _, _))| f64::from_bits(*t));
        timer.min(self.next_tick)
    }

    /// When probe `j` runs: it checks server j mod N at (j / N + (j mod N)
    /// / N) x interval, so every server once per interval, spread evenly.
    pub(super) fn probe_time(&self, j: u64) -> f64 {
        if self.check_ms <= 0.0 {
            return f64::INFINITY;
        }
        let n = self.members.len() as u64;
        ((j / n) as f64 + (j % n) as f64 / n as f64) * self.check_ms
    }

    /// Every attempt, in the order they were sent.
    pub(crate) fn attempts(self) -> Vec<Attempt> {
        self.logs().attempts
    }

    /// The run's log (empty unless it was kept).
    pub(crate) fn logs(self) -> Logs {
        if self.keep_log {
            Logs {
                attempts: self.attempts,
                answered: self.answered,
                verdicts: self.verdicts,
                probes: Vec::new(),
                weights: self.weight_updates,
            }
        } else {
            Logs::default()
        }
    }

    pub(crate) fn finish(self, horizon_ms: f64) -> Finished {
        let copies = self.health.len() as f64;
        let health = &self.health;
        let servers = self
            .requests_series
            .into_iter()
            .enumerate()
            .map(|(s, requests_series)| ServerFigures {
                errors: self.server_errors[s],
                ejected_ms: health.iter().map(|h| h.downtime[s].until(horizon_ms)).sum::<f64>() / copies,
                requests_series,
            })
            .collect();
        let ok = (self.errors > 0)
            .then(|| (!self.ok_latencies.is_empty()).then(|| percentiles(&self.ok_latencies)));
        Finished {
            attempts: self.sent,
            errors: self.errors,
            retries: self.retries,
            ok,
            error_series: self.error_series,
            servers,
            caches: self.caches.map(Caches::finish),
        }
    }
}
