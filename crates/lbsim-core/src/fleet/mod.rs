//! The fleet over time (SPEC section 12): servers that slow down, fail,
//! crash, recover, join and leave; errors and retries; health as NGINX,
//! HAProxy and Envoy check it; warm-up and slow start.
//!
//! A scenario that uses none of it never comes here: the static engine
//! runs it, byte for byte as before. One that does runs this event loop,
//! which keeps the static engine's servers, queues and summaries and adds
//! what changes over time. At one instant it takes fleet events, then
//! completions and errors, then health probes and timers, then retries,
//! then arrivals (SPEC 12.1); ties within a kind by index.
//!
//! The events are known before the run ([`timeline`]), so, as in the
//! static engine, a request's start and service are fixed when it is
//! dispatched: the condition at its start says whether it does its work,
//! at which speed, or answers a 500. A crash is the one thing that undoes
//! work already fixed: it fails what the server holds at that instant.

pub mod cache;
mod connections;
pub mod health;
pub mod timeline;

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

use self::cache::{CacheFigures, Caches};
use self::connections::{place, Connections};
use self::health::{slow_start_factor, Active, Downtime, Outlier, Passive};
use self::timeline::Timeline;
use crate::balancer::{Eligible, Pick, Pool};
use crate::events::EventKind;
use crate::num::bits;
use crate::report::{percentiles, Percentiles, QUEUE_BUCKETS};
use crate::scenario::{CheckKind, Layer, Scenario};
use crate::server::{bucket_of, AlgorithmRun};
use crate::workload::Workload;

/// Marks an end in the heap as a light one: the request's index, not an
/// attempt's (ids stay below 2^31: at most 10M requests x 11 attempts).
const LIGHT: u32 = 1 << 31;

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
    settled: bool,
}

/// What a balancer copy knows of each server's health.
struct CopyHealth {
    passive: Passive,
    outlier: Outlier,
    available: Vec<bool>,
    unavailable: usize,
    /// Membership or availability changed since the rule last heard.
    reshape: bool,
    downtime: Vec<Downtime>,
    /// Slow start: when each ramping server joined or came back.
    ramp_since: Vec<Option<f64>>,
    /// Whether the rule holds ramped weights (to restore the configured).
    reweighted: bool,
    /// Weights for the rule, given at its next pick.
    weights: Option<Vec<u32>>,
    /// Per server: attempts this copy sent that will end in an error and
    /// have not ended yet.
    pending_errors: Vec<u32>,
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
    pub ok: Option<Percentiles>,
    pub error_series: Vec<u32>,
    pub servers: Vec<ServerFigures>,
    pub caches: Option<CacheFigures>,
}

/// The fleet's part of one algorithm's run.
pub(crate) struct State {
    timeline: Timeline,
    /// (time, server, kind), in time order.
    events: Vec<(f64, usize, EventKind)>,
    next_event: usize,
    members: Vec<bool>,
    health: Vec<CopyHealth>,
    active: Active,
    check_ms: f64,
    check: CheckKind,
    next_probe: u64,
    probe_ms: f64,
    /// Server of each first attempt with a light end (rules that read
    /// completions).
    light_server: Vec<u32>,
    /// Per server: the times it starts to fail or crashes, in order.
    troubles: Vec<Vec<f64>>,
    /// Per server: its crash times, in order.
    crashes: Vec<Vec<f64>>,
    /// Whether passive checks or outlier detection watch successes.
    health_watches: bool,
    /// Whether the rule reads completions.
    observes: bool,
    /// Something changed since the fleet was last found quiet or not.
    unsettled: bool,
    /// When time alone may make the fleet quiet (a warm-up ends).
    recheck_ms: f64,
    /// Attempts sent, with or without a record.
    sent: u64,
    /// Ends of exclusions and ejections: (time, copy, server).
    timers: BinaryHeap<Reverse<(u64, u32, u32)>>,
    next_tick: f64,
    weights: Vec<u32>,
    slow_start_ms: f64,
    aggression: f64,
    attempts: Vec<Attempt>,
    ends: BinaryHeap<Reverse<(u64, u32)>>,
    in_flight: Vec<Vec<u32>>,
    retry_queue: VecDeque<(f64, u32)>,
    wait_of: Vec<f64>,
    /// Latency and success of requests answered before an earlier one.
    answers: Vec<(f64, bool)>,
    /// Requests before this one have reached the summaries.
    in_order: usize,
    /// Answers waiting in `answers` for an earlier one.
    early: usize,
    /// Successful latencies as bits, in arrival order.
    ok_latencies: Vec<u64>,
    retries_allowed: u32,
    count_5xx: bool,
    error_ms: f64,
    connect_ms: f64,
    errors: u64,
    retries: u64,
    error_series: Vec<u32>,
    server_errors: Vec<u64>,
    requests_series: Vec<Vec<u32>>,
    keep_log: bool,
    horizon_ms: f64,
    /// Servers' caches, when they keep them (SPEC section 13).
    caches: Option<Caches>,
    /// Layer 4: every user's connection.
    connections: Option<Connections>,
    /// Layer 4: the copy that placed each first attempt with a light end.
    light_copy: Vec<u16>,
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
            caches: (scenario.cache_keys > 0).then(|| Caches::new(n, scenario.cache_keys, scenario.hit_cost)),
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
            probe_ms: f64::INFINITY,
            events,
            next_event: 0,
            members,
            health,
            active: Active::new(scenario, n),
            check_ms: f64::from(scenario.check_ms),
            check: scenario.check,
            next_probe: 0,
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
            // Retries and HTTP errors are layer 7's (SPEC 13.1).
            retries_allowed: if layer4 { 0 } else { scenario.retries },
            count_5xx: scenario.count_5xx && !layer4,
            error_ms: scenario.error_ms,
            connect_ms: scenario.connect_ms,
            errors: 0,
            retries: 0,
            error_series: alloc::vec![0; QUEUE_BUCKETS],
            server_errors: alloc::vec![0; n],
            requests_series: alloc::vec![alloc::vec![0; QUEUE_BUCKETS]; n],
            keep_log,
            horizon_ms: workload.horizon_ms(),
        };
        state.probe_ms = state.probe_time(0);
        state
    }

    fn bucket(run: &AlgorithmRun, t: f64) -> usize {
        bucket_of(t, run.bucket_ms)
    }

    /// The time of the next probe, timer or slow-start tick.
    fn next_health(&self) -> f64 {
        let timer = self.timers.peek().map_or(f64::INFINITY, |Reverse((t, _, _))| f64::from_bits(*t));
        self.probe_ms.min(timer).min(self.next_tick)
    }

    /// When probe `j` runs: it checks server j mod N at (j / N + (j mod N)
    /// / N) x interval, so every server once per interval, spread evenly.
    fn probe_time(&self, j: u64) -> f64 {
        if self.check_ms <= 0.0 {
            return f64::INFINITY;
        }
        let n = self.members.len() as u64;
        ((j / n) as f64 + (j % n) as f64 / n as f64) * self.check_ms
    }

    /// Runs up to `budget` more arrivals; true when the run is over.
    pub(crate) fn advance(&mut self, run: &mut AlgorithmRun, workload: &Workload, budget: u64) -> bool {
        let n = workload.requests.len();
        let end = n.min(run.next.saturating_add(budget as usize));
        loop {
            let arrival = workload.requests.get(run.next).map_or(f64::INFINITY, |r| r.arrival_ms);
            let event = self.events.get(self.next_event).map_or(f64::INFINITY, |e| e.0);
            let ending = self.ends.peek().map_or(f64::INFINITY, |Reverse((t, _))| f64::from_bits(*t));
            let retry = self.retry_queue.front().map_or(f64::INFINITY, |r| r.0);
            let others = arrival.min(retry);
            if event.is_finite() && event <= ending.min(others) {
                self.fleet_event(run);
            } else if ending.is_finite() && ending <= others {
                self.end_attempt(run, workload);
            } else if others.is_finite() && self.next_health() <= others {
                self.health_step();
            } else if retry.is_finite() && retry <= arrival {
                if let Some((t, failed)) = self.retry_queue.pop_front() {
                    self.retry(run, workload, t, failed);
                }
            } else if arrival.is_finite() {
                if run.next >= end {
                    return false;
                }
                if (self.unsettled || arrival >= self.recheck_ms) && self.is_quiet(arrival) {
                    self.quiet_stretch(run, workload, end, event);
                    continue;
                }
                let index = run.next;
                run.next += 1;
                self.send(run, workload, index as u32, arrival, None);
            } else {
                debug_assert_eq!(self.in_order, n, "every request answered once");
                return true;
            }
        }
    }

    /// Whether nothing but arrivals and their ends can happen at `now` until
    /// the next fleet event: every server a plain, available member for every
    /// copy, with no failure on record, no error, retry, timer or slow-start
    /// ramp pending. Checked again only after something changed.
    fn is_quiet(&mut self, now: f64) -> bool {
        self.unsettled = false;
        self.recheck_ms = f64::INFINITY;
        let mut plain = true;
        for s in 0..self.members.len() {
            let c = self.timeline.at(s, now);
            plain &= c.member && c.slow.is_none() && !c.failing && !c.crashed;
            if let Some(warm) = self.timeline.warm_at(&c).filter(|&warm| now < warm) {
                // Warming up: quiet, if at all, once it is warm.
                plain = false;
                self.recheck_ms = self.recheck_ms.min(warm);
            }
        }
        plain
            && self.retry_queue.is_empty()
            && self.timers.is_empty()
            && self.next_tick.is_infinite()
            && self.health.iter().all(|h| {
                h.unavailable == 0
                    && !h.reshape
                    && h.weights.is_none()
                    && h.pending_errors.iter().all(|&e| e == 0)
                    && (0..self.members.len()).all(|s| h.passive.is_clean(s) && h.outlier.is_clean(s))
            })
    }

    /// Arrivals while the fleet is quiet, until `until` (the next fleet
    /// event) or the budget's `end`: the static engine's work plus the
    /// fleet's per-server series. A request whose end would reach `until`
    /// goes the general way, where the events are looked at.
    fn quiet_stretch(&mut self, run: &mut AlgorithmRun, workload: &Workload, end: usize, until: f64) {
        while run.next < end {
            let request = &workload.requests[run.next];
            let now = request.arrival_ms;
            if now >= until {
                break;
            }
            // Ends first, then probes (all pass: every server is plain).
            while self.ends.peek().is_some_and(|Reverse((t, _))| f64::from_bits(*t) <= now) {
                self.end_attempt(run, workload);
            }
            while self.probe_ms <= now {
                self.health_step();
            }
            if self.unsettled {
                // An end changed something after all: back to the general way.
                self.unsettled = true;
                return;
            }
            let index = run.next as u32;
            run.next += 1;
            let pick = Pick { now_ms: now, user: request.user };
            let rng = &mut run.rng;
            let Some((s, c)) = place(
                &mut self.connections,
                request.user,
                usize::from(request.copy),
                now,
                &mut run.copies,
                |rule| Some(rule.pick(&pick, rng)),
            ) else {
                // (A static pick always finds a server; were there none,
                // a 502 at once, as in `send`.)
                self.answer(run, workload, index, now, false, 0.0);
                continue;
            };
            let server = &mut run.servers[s];
            let start = server.start_at(now);
            if start >= until {
                self.dispatch(run, workload, index, c, s, now, None, None);
                continue;
            }
            // Until `until` every server is plain, so the cache is asked.
            let (work, hit) = match &mut self.caches {
                Some(caches) => caches.work(s, request.user, request.work_ms, Self::bucket(run, now)),
                None => (request.work_ms, false),
            };
            let service = work / self.timeline.configured_speed(s);
            let done = start + service;
            if done >= until {
                self.dispatch(run, workload, index, c, s, now, None, Some((work, hit)));
                continue;
            }
            let server = &mut run.servers[s];
            server.occupy(now, start, service);
            server.requests += 1;
            self.requests_series[s][Self::bucket(run, now)] += 1;
            self.sent += 1;
            if self.keep_log {
                self.wait_of[index as usize] = start - now;
                self.record(index, s, c, now, start, done, Outcome::Ok, None, hit);
            } else {
                self.answer(run, workload, index, done, true, start - now);
                if self.observes {
                    self.light_end(index, s, c, done);
                }
            }
        }
    }

    fn fleet_event(&mut self, run: &mut AlgorithmRun) {
        let (t, s, kind) = self.events[self.next_event];
        self.next_event += 1;
        self.unsettled = true;
        // A crashed server's cache is lost and a joining one starts cold;
        // connections close on a crash or a leave (SPEC 13.1).
        if matches!(kind, EventKind::Crash | EventKind::Join) {
            if let Some(caches) = &mut self.caches {
                caches.empty(s);
            }
        }
        if matches!(kind, EventKind::Crash | EventKind::Leave) {
            if let Some(connections) = &mut self.connections {
                connections.close_to(s, t, &mut run.copies);
            }
        }
        match kind {
            EventKind::Crash => self.crash(run, s, t),
            EventKind::Join | EventKind::Leave => {
                self.members[s] = kind == EventKind::Join;
                for c in 0..self.health.len() {
                    self.refresh(c, s, t, false);
                    self.health[c].reshape = true;
                }
            }
            // Slow, fail and recover act through the timeline, at the start
            // of each request.
            EventKind::Slow(_) | EventKind::Fail | EventKind::Recover => {}
        }
    }

    /// Everything the server holds fails now with a connection error.
    fn crash(&mut self, run: &mut AlgorithmRun, s: usize, t: f64) {
        let server = &mut run.servers[s];
        for id in core::mem::take(&mut self.in_flight[s]) {
            let a = &mut self.attempts[id as usize];
            if a.settled {
                continue;
            }
            server.busy_ms -= a.done_ms - a.start_ms.max(t);
            // A queued request never started: it waited until the crash.
            self.wait_of[a.request as usize] -= a.start_ms - a.start_ms.min(t);
            a.start_ms = a.start_ms.min(t);
            a.done_ms = t;
            a.outcome = Outcome::Connection;
            a.aborted = true;
            self.ends.push(Reverse((bits(t), id)));
        }
        let slots = server.slots.len();
        server.slots.clear();
        server.slots.extend((0..slots).map(|_| Reverse(bits(t))));
        server.queue.drop_all(t);
    }

    fn health_step(&mut self) {
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
        let s = (self.next_probe % n) as usize;
        self.next_probe += 1;
        self.probe_ms = self.probe_time(self.next_probe);
        if !self.members[s] {
            return;
        }
        let condition = self.timeline.at(s, t);
        let passed = !(condition.crashed || (self.check == CheckKind::Http && condition.failing));
        if self.active.probe(s, passed) {
            for c in 0..self.health.len() {
                self.refresh(c, s, t, false);
            }
        }
    }

    /// Brings copy `c`'s view of server `s` up to date at `t`; `rearm`: a
    /// timer fired, so an exclusion that was extended needs a new one.
    fn refresh(&mut self, c: usize, s: usize, t: f64, rearm: bool) {
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

    /// Copy `c`'s effective weights at `t` (Envoy's slow start), to its rule.
    fn reweight(&mut self, c: usize, t: f64) -> bool {
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
    fn tick(&mut self, t: f64) {
        let mut any = false;
        for c in 0..self.health.len() {
            any |= self.reweight(c, t);
        }
        self.next_tick = if any { t + 1000.0 } else { f64::INFINITY };
    }

    /// Sends request `index` (again, after `previous`) through its copy.
    fn send(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        index: u32,
        now: f64,
        previous: Option<u32>,
    ) {
        let request = &workload.requests[index as usize];
        let c = usize::from(request.copy);
        let r = c.min(run.copies.len() - 1);
        let mut tried = [0u32; 11];
        let mut count = 0;
        let mut at = previous;
        while let Some(a) = at {
            let attempt = &self.attempts[a as usize];
            if count < tried.len() {
                tried[count] = attempt.server;
                count += 1;
            }
            at = attempt.previous;
        }
        let h = &mut self.health[c];
        if let Some(weights) = h.weights.take() {
            self.unsettled = true;
            run.copies[r].reweight(&weights);
        }
        if h.reshape {
            self.unsettled = true;
            h.reshape = false;
            run.copies[r].reshape(&self.members, &h.available);
        }
        let eligible =
            Eligible { available: &h.available, tried: &tried[..count], every_available: h.unavailable == 0 };
        let pick = Pick { now_ms: now, user: request.user };
        let rng = &mut run.rng;
        let placed = place(&mut self.connections, request.user, c, now, &mut run.copies, |rule| {
            rule.pick_eligible(&pick, rng, &eligible)
        });
        let Some((s, c)) = placed else {
            // No live upstream: a 502 at once.
            let wait = self.wait_of[index as usize];
            self.answer(run, workload, index, now, false, wait);
            return;
        };
        if previous.is_some() {
            self.retries += 1;
        }
        self.dispatch(run, workload, index, c, s, now, previous, None);
    }

    /// Sends attempt `previous`'s successor (or the first attempt) of
    /// request `index` from copy `c` to server `s`, which the rule picked;
    /// `work`: what it does and whether it hit, when its cache was asked.
    #[allow(clippy::too_many_arguments)]
    fn dispatch(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        index: u32,
        c: usize,
        s: usize,
        now: f64,
        previous: Option<u32>,
        work: Option<(f64, bool)>,
    ) {
        let request = &workload.requests[index as usize];
        self.health[c].passive.picked(s, now);
        if self.health[c].passive.excludes(s, now) {
            // The trial after a fail timeout: excluded until it answers.
            self.refresh(c, s, now, false);
        }
        let bucket = Self::bucket(run, now);
        self.requests_series[s][bucket] += 1;
        self.sent += 1;
        let server = &mut run.servers[s];
        server.requests += 1;
        let id = self.attempts.len() as u32;
        let condition = self.timeline.at(s, now);
        let mut at_risk = false;
        let mut hit = false;
        let (start, done, outcome) = if condition.crashed {
            (now, now + self.connect_ms, Outcome::Connection)
        } else {
            let start = server.start_at(now);
            let at_start = self.timeline.at(s, start);
            let (service, outcome) = if at_start.failing {
                // A 500 does no work and leaves the cache alone.
                (self.error_ms, Outcome::Http500)
            } else {
                let (work, cached) = match (work, &mut self.caches) {
                    (Some(asked), _) => asked,
                    (None, Some(caches)) => caches.work(s, request.user, request.work_ms, bucket),
                    (None, None) => (request.work_ms, false),
                };
                hit = cached;
                (work / self.timeline.speed(s, start, &at_start), Outcome::Ok)
            };
            let done = start + service;
            server.occupy(now, start, service);
            // Only a crash undoes a fixed outcome; the crashes are known.
            at_risk = self.crashes[s].iter().any(|&c| c > now && c <= done);
            (start, done, outcome)
        };
        self.wait_of[index as usize] += start - now;
        // Most attempts end as fixed at dispatch and nothing waits for their
        // end: answered now, with no record and no event. An end is an
        // event when it is an error (retries, health), when the rule reads
        // completions, when health watches successes on a server that has
        // had trouble, or when a crash may undo it.
        let event = outcome != Outcome::Ok
            || at_risk
            || self.keep_log
            || (self.observes && previous.is_some())
            || (self.health_watches && !self.success_is_moot(c, s, now, done));
        if !event {
            let wait = self.wait_of[index as usize];
            self.answer(run, workload, index, done, true, wait);
            if self.observes {
                self.light_end(index, s, c, done);
            }
            return;
        }
        if at_risk {
            self.in_flight[s].push(id);
        }
        if outcome != Outcome::Ok {
            self.health[c].pending_errors[s] += 1;
        }
        self.record(index, s, c, now, start, done, outcome, previous, hit);
        // Forget settled attempts now and then, so the list stays the size
        // of what the server holds.
        let list = &mut self.in_flight[s];
        if list.len() >= 64 && list.len().is_power_of_two() {
            let attempts = &self.attempts;
            list.retain(|&a| !attempts[a as usize].settled);
        }
    }

    /// Schedules the end of a first attempt whose outcome is fixed and
    /// answered, for the rule that reads completions only: no record, just
    /// the request and its server.
    fn light_end(&mut self, index: u32, s: usize, c: usize, done: f64) {
        self.light_server[index as usize] = s as u32;
        if let Some(copy) = self.light_copy.get_mut(index as usize) {
            *copy = c as u16;
        }
        self.ends.push(Reverse((bits(done), LIGHT | index)));
    }

    /// Keeps an attempt whose end is an event, and schedules the end.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        index: u32,
        s: usize,
        c: usize,
        now: f64,
        start: f64,
        done: f64,
        outcome: Outcome,
        previous: Option<u32>,
        hit: bool,
    ) {
        let id = self.attempts.len() as u32;
        self.attempts.push(Attempt {
            request: index,
            server: s as u32,
            previous,
            copy: c as u16,
            sent_ms: now,
            start_ms: start,
            done_ms: done,
            outcome,
            aborted: false,
            hit,
            settled: false,
        });
        self.ends.push(Reverse((bits(done), id)));
    }

    /// Whether a success of copy `c` on `s` at `done` would change no health
    /// state: nothing on record now, no error of it on the way, and no
    /// trouble of `s` starting before then, so no error can land first.
    fn success_is_moot(&self, c: usize, s: usize, now: f64, done: f64) -> bool {
        let h = &self.health[c];
        h.passive.is_clean(s)
            && h.outlier.is_clean(s)
            && h.pending_errors[s] == 0
            && !self.troubles[s].iter().any(|&t| t > now && t <= done)
    }

    fn end_attempt(&mut self, run: &mut AlgorithmRun, workload: &Workload) {
        let Some(Reverse((at, id))) = self.ends.pop() else { return };
        let t = f64::from_bits(at);
        if id & LIGHT != 0 {
            let index = (id & !LIGHT) as usize;
            let request = &workload.requests[index];
            let c = self.light_copy.get(index).map_or(usize::from(request.copy), |&c| usize::from(c));
            let r = c.min(run.copies.len() - 1);
            self.ended(&mut *run.copies[r], self.light_server[index] as usize, t, t - request.arrival_ms);
            return;
        }
        let a = &mut self.attempts[id as usize];
        // A crash re-timed this attempt; its first end is stale.
        if a.settled || bits(a.done_ms) != at {
            return;
        }
        a.settled = true;
        let a = *a;
        let (s, c) = (a.server as usize, usize::from(a.copy));
        let r = c.min(run.copies.len() - 1);
        self.ended(&mut *run.copies[r], s, t, t - a.sent_ms);
        let h = &mut self.health[c];
        if a.outcome == Outcome::Ok {
            // A success changes health state only where a failure is on
            // record; most find none.
            if !(h.passive.is_clean(s) && h.outlier.is_clean(s)) {
                h.passive.succeeded(s);
                h.outlier.succeeded(s);
                self.unsettled = true;
                self.refresh(c, s, t, false);
            }
            let wait = self.wait_of[a.request as usize];
            self.answer(run, workload, a.request, t, true, wait);
            return;
        }
        self.unsettled = true;
        if !a.aborted {
            h.pending_errors[s] -= 1;
        }
        self.server_errors[s] += 1;
        // What counts as failed follows NGINX's proxy_next_upstream:
        // connection errors always, a 500 only with count-5xx.
        let failed = a.outcome == Outcome::Connection || self.count_5xx;
        if failed {
            h.passive.failed(s, t);
        }
        // At layer 4 only connection errors are seen (SPEC 13.1).
        if self.connections.is_none() || a.outcome == Outcome::Connection {
            let members = self.members.iter().filter(|&&m| m).count();
            self.health[c].outlier.errored(s, t, members);
        }
        self.refresh(c, s, t, false);
        let mut tries = 1;
        let mut at = a.previous;
        while let Some(p) = at {
            tries += 1;
            at = self.attempts[p as usize].previous;
        }
        if failed && tries <= self.retries_allowed {
            self.retry_queue.push_back((t, id));
        } else {
            let wait = self.wait_of[a.request as usize];
            self.answer(run, workload, a.request, t, false, wait);
        }
    }

    /// A request the rule sent ended: a completion at layer 7; at layer 4
    /// its connection stays open, so only its latency is news.
    fn ended(&self, rule: &mut dyn crate::balancer::Balancer, s: usize, t: f64, latency: f64) {
        if self.connections.is_some() {
            rule.observed(s, t, latency);
        } else {
            rule.completed(s, t, latency);
        }
    }

    fn retry(&mut self, run: &mut AlgorithmRun, workload: &Workload, t: f64, failed: u32) {
        self.unsettled = true;
        let request = self.attempts[failed as usize].request;
        self.send(run, workload, request, t, Some(failed));
    }

    /// The client gets its final answer for request `index` at `t`.
    /// `wait` is its total wait for slots over its attempts. Answers reach
    /// the summaries in arrival order, as the static engine's do (so sums
    /// round alike): one that comes early waits in `answers`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn answer(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        index: u32,
        t: f64,
        ok: bool,
        wait: f64,
    ) {
        let i = index as usize;
        let latency = t - workload.requests[i].arrival_ms;
        if !ok {
            self.errors += 1;
            self.error_series[Self::bucket(run, t)] += 1;
        }
        run.makespan_ms = crate::num::later(run.makespan_ms, t);
        if i != self.in_order {
            self.answers[i] = (latency, ok);
            self.wait_of[i] = wait;
            self.early += 1;
            return;
        }
        self.summarize_answer(run, workload, i, latency, ok, wait);
        self.in_order += 1;
        while self.early > 0 {
            let (latency, ok) = self.answers[self.in_order];
            if latency.is_nan() {
                break;
            }
            let wait = self.wait_of[self.in_order];
            self.summarize_answer(run, workload, self.in_order, latency, ok, wait);
            self.in_order += 1;
            self.early -= 1;
        }
    }

    #[inline(always)]
    fn summarize_answer(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        i: usize,
        latency: f64,
        ok: bool,
        wait: f64,
    ) {
        run.latencies[usize::from(workload.requests[i].slow)].push(latency);
        if ok {
            self.ok_latencies.push(bits(latency));
        }
        run.wait_sum += wait;
        if wait > 0.0 {
            run.waits.push(bits(wait));
        }
    }

    /// Every attempt, in the order they were sent.
    pub(crate) fn attempts(self) -> Vec<Attempt> {
        if self.keep_log {
            self.attempts
        } else {
            Vec::new()
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
        let ok = (self.errors > 0).then(|| percentiles(&self.ok_latencies));
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
