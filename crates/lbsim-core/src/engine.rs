//! The discrete-event engine: servers with slots, speed and one FIFO queue
//! each; balancer copies with partial views; arrivals and completions in one
//! loop, in time order (a completion at the same instant as an arrival is
//! seen first). A run can pause after a budget of requests and resume, so a
//! browser worker can run it in slices and report progress.
//!
//! With FIFO and no preemption a request's start is known when it is
//! dispatched: the earliest free slot's free time, or its arrival if later.
//! Completions are still delivered as events, in time order, to the rules
//! that watch them (least connections and friends), only before the arrival
//! that would see them.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::balancer::{self, AlgorithmId, Pick, Pool};
use crate::bus::Served;
use crate::fleet;
use crate::num::{bits, later};
use crate::report::{
    rank, ranked, summarize, AlgorithmResult, Distributions, KeyShare, Latencies, Realized, Report,
    ServerResult, Wait,
};
use crate::scenario::{Scenario, ScenarioError};
pub use crate::server::Dispatch;
use crate::server::{bus_for, completion, AlgorithmRun, ServersAt};
use crate::workload::Workload;

/// One rule's run as it goes: the static loop alone, or the fleet's event
/// loop over the same servers when the scenario uses it.
struct Running {
    run: AlgorithmRun,
    fleet: Option<Box<fleet::State>>,
}

impl Running {
    /// Runs up to `budget` more requests; true when all are dispatched.
    fn advance(&mut self, workload: &Workload, budget: u64) -> bool {
        match &mut self.fleet {
            Some(fleet) => fleet.advance(&mut self.run, workload, budget),
            None => self.run.advance(workload, budget),
        }
    }

    fn finish(self, scenario: &Scenario, workload: &Workload) -> AlgorithmResult {
        self.run.finish(self.fleet, scenario, workload)
    }
}

/// The static loop: a fixed, healthy pool, requests dispatched in arrival
/// order and completions delivered to the rules that watch them.
impl AlgorithmRun {
    /// Runs up to `budget` more requests; true when all are dispatched.
    fn advance(&mut self, workload: &Workload, budget: u64) -> bool {
        let end = workload.requests.len().min(self.next.saturating_add(budget as usize));
        // A dispatch log records when each completion is delivered, so it
        // takes the delivering path.
        let from_servers = self.counts_from_servers && self.log.is_none();
        let observes = self.observes && !from_servers;
        for index in self.next..end {
            let request = &workload.requests[index];
            let now = request.arrival_ms;
            if observes {
                self.deliver_completions(workload, bits(now));
            }
            if let Some(bus) = &mut self.bus {
                bus.deliver(now, &mut self.copies, &mut self.servers);
            }
            let last_copy = self.copies.len() - 1;
            let c = usize::from(request.copy).min(last_copy);
            let copy = &mut self.copies[c];
            let pick = Pick { now_ms: now, user: request.user };
            let s = if from_servers {
                copy.pick_counting(&pick, &mut self.rng, &ServersAt { servers: &self.servers, now })
            } else {
                copy.pick(&pick, &mut self.rng)
            };
            copy.dispatched(s);

            let server = &mut self.servers[s];
            let start = server.start_at(now);
            let service = request.work_ms / server.speed;
            let done = start + service;
            if let Some(bus) = &mut self.bus {
                let in_flight = if bus.wants_in_flight() { server.unfinished_at(now) } else { 0 };
                bus.picked(now, c, copy.as_mut(), &mut self.rng);
                let served = Served {
                    copy: c,
                    server: s,
                    arrival_ms: now,
                    start_ms: start,
                    done_ms: done,
                    ok: true,
                    in_flight,
                };
                bus.served(served);
            }
            let server = &mut self.servers[s];
            server.occupy(now, start, service);
            server.requests += 1;

            let wait = start - now;
            let latency = done - now;
            self.wait_sum += wait;
            if let Some(log) = &mut self.log {
                log.push(Dispatch {
                    request: index,
                    server: s,
                    start_ms: start,
                    done_ms: done,
                    delivered_ms: None,
                });
            }
            if wait > 0.0 {
                self.waits.push(bits(wait));
            }
            self.latencies[usize::from(request.slow)].push(latency);
            self.makespan_ms = later(self.makespan_ms, done);
            if observes {
                self.completions.push(Reverse(completion(bits(done), index, s)));
            }
        }
        self.next = end;
        end == workload.requests.len()
    }

    fn deliver_completions(&mut self, workload: &Workload, until: u64) {
        while let Some(&Reverse(next)) = self.completions.peek() {
            let (at, index, server) = ((next >> 64) as u64, (next >> 32) as u32, next as u32 as usize);
            if at > until {
                break;
            }
            self.completions.pop();
            let request = &workload.requests[index as usize];
            let done = f64::from_bits(at);
            if let Some(log) = &mut self.log {
                log[index as usize].delivered_ms = Some(done);
            }
            let copy = usize::from(request.copy).min(self.copies.len() - 1);
            self.copies[copy].completed(server, done, done - request.arrival_ms);
        }
    }

    fn finish(
        mut self,
        fleet: Option<Box<fleet::State>>,
        scenario: &Scenario,
        workload: &Workload,
    ) -> AlgorithmResult {
        // Deliver what is still in flight, so every request completes once.
        self.deliver_completions(workload, u64::MAX);
        let horizon = workload.horizon_ms();
        let n = workload.requests.len().max(1) as f64;
        let mut fleet = fleet.map(|f| f.finish(horizon));
        let mut caches = fleet.as_mut().and_then(|f| f.caches.take());
        // Caches and connections alone take the fleet's loop but have no
        // errors, retries or ejections to report (a static scenario forced
        // through it, as `run_fleet` does, reports them, to compare).
        let mut fleet = fleet.filter(|_| scenario.uses_fleet() || !scenario.uses_event_loop());
        // Shares are over attempts (a retry is a request its server serves).
        let attempts = fleet.as_ref().map_or(n, |f| f.attempts.max(1) as f64);
        let [quick, slow] = &self.latencies;
        let ((all, all_cdf), classes) = summarize(&[quick, slow]);
        let [(quick, quick_cdf), (slow, slow_cdf)]: [_; 2] = classes.try_into().unwrap_or_default();
        // Only the p99 of waits is reported: found by binning, no sort of
        // them all.
        let zero_waits = workload.requests.len() - self.waits.len();
        let r = rank(0.99, workload.requests.len());
        let wait_p99 =
            if r <= zero_waits { 0.0 } else { f64::from_bits(ranked(&self.waits, &[r - zero_waits - 1])[0]) };

        let makespan = self.makespan_ms.max(f64::MIN_POSITIVE);
        let names: Vec<String> = (0..self.servers.len()).map(|i| scenario.server_name(i)).collect();
        let servers: Vec<ServerResult> = self
            .servers
            .iter_mut()
            .zip(names)
            .enumerate()
            .map(|(i, (server, name))| {
                server.queue.advance_to(f64::INFINITY);
                let per_server = fleet.as_mut().map(|f| &mut f.servers[i]);
                ServerResult {
                    name,
                    requests: server.requests,
                    share: server.requests as f64 / attempts,
                    load: if horizon > 0.0 {
                        server.busy_ms / (f64::from(scenario.slots) * horizon)
                    } else {
                        0.0
                    },
                    peak_queue: server.queue.peak,
                    mean_queue: server.queue.integral / makespan,
                    queue_series: core::mem::take(&mut server.queue.series),
                    errors: per_server.as_ref().map(|s| s.errors),
                    ejected_ms: per_server.as_ref().map(|s| s.ejected_ms),
                    requests_series: per_server.map(|s| core::mem::take(&mut s.requests_series)),
                    hit_rate: caches.as_ref().map(|c| c.servers[i]),
                }
            })
            .collect();
        let mean_load = servers.iter().map(|s| s.load).sum::<f64>() / servers.len() as f64;
        let busiest_load = servers.iter().map(|s| s.load).fold(0.0, f64::max);
        let queue_series = (0..self.buckets.count)
            .map(|b| servers.iter().map(|s| s.queue_series[b]).max().unwrap_or(0))
            .collect();
        let classed = workload.classed;
        AlgorithmResult {
            algorithm: self.algorithm,
            // A class with no requests (slow share 0, say) has no percentiles.
            latency_ms: Latencies {
                all,
                quick: (classed && !self.latencies[0].is_empty()).then_some(quick),
                slow: (classed && !self.latencies[1].is_empty()).then_some(slow),
                ok: fleet.as_ref().and_then(|f| f.ok),
            },
            wait_ms: Wait { mean: self.wait_sum / n, p99: wait_p99 },
            peak_queue: servers.iter().map(|s| s.peak_queue).max().unwrap_or(0),
            busiest_share: servers.iter().map(|s| s.share).fold(0.0, f64::max),
            imbalance: if mean_load > 0.0 { busiest_load / mean_load } else { 1.0 },
            errors: fleet.as_ref().map(|f| f.errors),
            retries: fleet.as_ref().map(|f| f.retries),
            error_share: fleet.as_ref().map(|f| f.errors as f64 / n),
            error_series: fleet.map(|f| f.error_series),
            hit_rate: caches.as_ref().map(|c| c.hit_rate),
            hit_series: caches.as_mut().map(|c| core::mem::take(&mut c.hit_series)),
            connections: crate::report::Connections::held(&self.copies, self.servers.len()),
            makespan_ms: self.makespan_ms,
            queue_bucket_ms: self.buckets.width_ms,
            queue_series,
            cdf: Distributions {
                all: all_cdf,
                quick: if classed { quick_cdf } else { Vec::new() },
                slow: if classed { slow_cdf } else { Vec::new() },
            },
            servers,
        }
    }
}

/// Figures of the drawn stream itself.
fn realized(scenario: &Scenario, workload: &Workload, keys: &balancer::UserKeys) -> Realized {
    let n = workload.requests.len();
    let horizon = workload.horizon_ms();
    let total_work: f64 = workload.requests.iter().map(|r| r.work_ms).sum();
    let mut per_user = alloc::vec![0u64; scenario.users as usize + 1];
    for r in &workload.requests {
        per_user[r.user as usize] += 1;
    }
    // Heaviest first; equal counts by user id, so the order is reproducible.
    // Keyed (u64::MAX - count, user) so the natural order does it, with
    // the sort the rings already use.
    let mut heaviest: Vec<(u64, u32)> = per_user
        .iter()
        .enumerate()
        .skip(1)
        .filter(|&(_, &c)| c > 0)
        .map(|(u, &c)| (u64::MAX - c, u as u32))
        .collect();
    crate::sort::by_key(&mut heaviest);
    heaviest.truncate(10);
    for key in &mut heaviest {
        key.0 = u64::MAX - key.0;
    }
    let share = |c: u64| c as f64 / n.max(1) as f64;
    Realized {
        requests: n as u64,
        load: if horizon > 0.0 { total_work / (scenario.capacity() * horizon) } else { 0.0 },
        slow_share: share(workload.requests.iter().filter(|r| r.slow).count() as u64),
        rate_per_s: if horizon > 0.0 { n as f64 / horizon * 1000.0 } else { 0.0 },
        top_user_share: heaviest.first().map_or(0.0, |&(c, _)| share(c)),
        top10_share: share(heaviest.iter().map(|&(c, _)| c).sum()),
        heaviest_keys: heaviest
            .iter()
            .map(|&(c, u)| {
                let key = keys.name(u).map_or_else(|| alloc::format!("user-{u}"), String::from);
                KeyShare { key, share: share(c) }
            })
            .collect(),
    }
}

/// A validated scenario with its drawn workload, ready to run any of its
/// algorithms. It holds plain data only, so threads can share it (the CLI
/// runs algorithms on all cores from one `Prepared`).
#[derive(Clone, Debug)]
pub struct Prepared {
    scenario: Scenario,
    workload: Workload,
    pool: Pool,
}

impl Prepared {
    /// Validates the scenario, normalizes it (algorithms in canonical order,
    /// once each) and draws its workload.
    pub fn new(scenario: &Scenario) -> Result<Prepared, ScenarioError> {
        scenario.runnable()?;
        let mut scenario = scenario.clone();
        // Canonical order, once each, by picking (no sort code in the page).
        scenario.algorithms = scenario.rules();
        let workload = Workload::generate(&scenario);
        scenario.check_span(workload.requests.iter().map(|r| (r.arrival_ms, r.copy)))?;
        let pool = scenario.pool();
        Ok(Prepared { scenario, workload, pool })
    }

    /// Validates the scenario and takes a log's requests as its workload
    /// (docs/model.md#your-own-traffic): arrivals divided by the
    /// scenario's `time-scale`, each request's balancer copy drawn from the
    /// seed's copies stream as a drawn workload's are, and `requests` set
    /// to the log's count. The fleet is the scenario's own; a front end
    /// that leaves the servers unset first takes the log's
    /// ([`crate::access_log::Traffic::fleet_into`]).
    pub fn with_traffic(
        scenario: &Scenario,
        traffic: &crate::access_log::Traffic,
    ) -> Result<Prepared, ScenarioError> {
        let mut scenario = scenario.clone();
        scenario.requests = traffic.requests.len() as u64;
        // The log's keys are its users (a request's `user` indexes them):
        // the realized figures count requests per user, and a log may
        // hold more keys than the scenario's `users`.
        scenario.users = traffic.keys.len().max(1) as u32;
        scenario.runnable()?;
        scenario.algorithms = scenario.rules();
        let workload = Workload::given(&scenario, &traffic.requests, traffic.classed);
        scenario.check_span(workload.requests.iter().map(|r| (r.arrival_ms, r.copy)))?;
        let mut pool = scenario.pool();
        // Keys `user-k` are what the rules hash already; any other key is
        // hashed as the log wrote it.
        let lbsim_keys = traffic.keys.iter().enumerate().all(|(i, key)| {
            let number = key.strip_prefix("user-").filter(|n| !n.starts_with('0'));
            number.and_then(|n| n.parse::<usize>().ok()) == Some(i + 1)
        });
        if !lbsim_keys {
            pool.keys = balancer::UserKeys::logged(traffic.keys.iter().cloned().collect());
        }
        Ok(Prepared { scenario, workload, pool })
    }

    /// The normalized scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The drawn workload.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    fn start(&self, algorithm: AlgorithmId) -> Running {
        if self.scenario.uses_event_loop() {
            return self.start_fleet(algorithm, false);
        }
        let run = AlgorithmRun::new(algorithm, &self.scenario, &self.pool, self.workload.horizon_ms());
        Running { run, fleet: None }
    }

    /// A run through the fleet's event loop (`log`: keep every attempt).
    fn start_fleet(&self, algorithm: AlgorithmId, log: bool) -> Running {
        let mut run = AlgorithmRun::new(algorithm, &self.scenario, &self.pool, self.workload.horizon_ms());
        // Availability is per copy, so every copy has its own rule, unless
        // the rule reads availability only from each pick's `Eligible`.
        let first = balancer::build(run.algorithm, &self.pool);
        run.copies = if first.shared_in_fleet() {
            alloc::vec![first]
        } else {
            core::iter::once(first)
                .chain((1..self.scenario.balancers).map(|_| balancer::build(run.algorithm, &self.pool)))
                .collect()
        };
        balancer::place_copies(&mut run.copies);
        run.bus =
            bus_for(run.algorithm, &self.scenario, &run.copies, self.pool.len(), self.workload.horizon_ms());
        #[cfg(feature = "replay")]
        if let Some(bus) = run.bus.as_mut().filter(|_| log) {
            bus.keep_probes(fleet::MAX_PROBES);
        }
        let fleet = fleet::State::new(&self.scenario, &self.pool, &self.workload, &mut run, log);
        Running { run, fleet: Some(Box::new(fleet)) }
    }

    /// Runs one algorithm through the fleet's event loop even when the
    /// scenario has no events (the static engine's check: the two agree).
    pub fn run_fleet(&self, algorithm: AlgorithmId) -> AlgorithmResult {
        let mut run = self.start_fleet(algorithm, false);
        run.advance(&self.workload, u64::MAX);
        run.finish(&self.scenario, &self.workload)
    }

    /// Every attempt of every request under one algorithm, through the
    /// fleet's event loop, in the order they were sent.
    pub fn attempt_log(&self, algorithm: AlgorithmId) -> Vec<fleet::Attempt> {
        let mut running = self.start_fleet(algorithm, true);
        running.advance(&self.workload, u64::MAX);
        running.fleet.map(|f| f.attempts()).unwrap_or_default()
    }

    #[cfg(feature = "replay")]
    /// One algorithm's run through the fleet's event loop, logged: every
    /// attempt, answer and health verdict (what a replay shows).
    pub fn answer_log(&self, algorithm: AlgorithmId) -> fleet::Logs {
        let mut running = self.start_fleet(algorithm, true);
        running.advance(&self.workload, u64::MAX);
        let probes = running.run.bus.as_mut().map(|bus| bus.take_probes()).unwrap_or_default();
        let mut logs = running.fleet.map(|f| f.logs()).unwrap_or_default();
        logs.probes = probes;
        logs
    }

    /// The steps the fleet's event loop takes to run one algorithm (each
    /// arrival, end, event, probe, timer and retry; a stretch of probes
    /// passed over at once counts as one), which `cost::steps` estimates.
    pub fn fleet_steps(&self, algorithm: AlgorithmId) -> u64 {
        let mut running = self.start_fleet(algorithm, false);
        running.advance(&self.workload, u64::MAX);
        running.fleet.map_or(0, |f| f.steps)
    }

    /// Runs one algorithm over the workload, start to finish.
    pub fn run_one(&self, algorithm: AlgorithmId) -> AlgorithmResult {
        self.run_one_in_slices(algorithm, u64::MAX, &mut |_| {})
    }

    /// Runs one algorithm as [`Prepared::run_one`] does, `slice` arrivals
    /// at a time, telling `took` how many after each slice (a progress
    /// bar). The same result, whatever the slice.
    pub fn run_one_in_slices(
        &self,
        algorithm: AlgorithmId,
        slice: u64,
        took: &mut dyn FnMut(u64),
    ) -> AlgorithmResult {
        let mut run = self.start(algorithm);
        loop {
            let before = run.run.next;
            let done = run.advance(&self.workload, slice.max(1));
            took((run.run.next - before) as u64);
            if done {
                return run.finish(&self.scenario, &self.workload);
            }
        }
    }

    /// The report of the given results (in any order; they are put in
    /// canonical order), with the realized figures of the workload.
    pub fn report(&self, results: Vec<AlgorithmResult>) -> Report {
        let results = crate::report::in_canonical_order(results);
        Report {
            realized: realized(&self.scenario, &self.workload, &self.pool.keys),
            scenario: self.scenario.clone(),
            results,
        }
    }

    /// What happened to each request under one algorithm, in arrival order.
    pub fn dispatch_log(&self, algorithm: AlgorithmId) -> Vec<Dispatch> {
        let Running { mut run, .. } = self.start(algorithm);
        run.log = Some(Vec::with_capacity(self.workload.requests.len()));
        run.advance(&self.workload, u64::MAX);
        run.deliver_completions(&self.workload, u64::MAX);
        run.log.unwrap_or_default()
    }
}

/// A whole simulation: every selected algorithm over one workload, run in
/// slices of a budget of requests (a browser worker reports progress and
/// takes new messages between slices).
pub struct Simulation {
    prepared: Prepared,
    pending: Vec<AlgorithmId>,
    current: Option<Running>,
    results: Vec<AlgorithmResult>,
}

impl Simulation {
    /// Validates the scenario and draws its workload.
    pub fn new(scenario: &Scenario) -> Result<Simulation, ScenarioError> {
        let prepared = Prepared::new(scenario)?;
        let mut pending = prepared.scenario.algorithms.clone();
        pending.reverse();
        Ok(Simulation { prepared, pending, current: None, results: Vec::new() })
    }

    /// Requests done and total (requests x algorithms), for progress bars.
    pub fn progress(&self) -> (u64, u64) {
        let n = self.prepared.workload.requests.len() as u64;
        let done = self.results.len() as u64 * n + self.current.as_ref().map_or(0, |r| r.run.next as u64);
        (done, n * self.prepared.scenario.algorithms.len() as u64)
    }

    /// Runs up to `budget` requests (across algorithms); true when finished.
    pub fn advance(&mut self, mut budget: u64) -> bool {
        let prepared = &self.prepared;
        while budget > 0 {
            if self.current.is_none() {
                let Some(next) = self.pending.pop() else {
                    return true;
                };
                self.current = Some(prepared.start(next));
            }
            let Some(run) = self.current.as_mut() else {
                return true;
            };
            let before = run.run.next;
            let done = run.advance(&prepared.workload, budget);
            budget -= (run.run.next - before) as u64;
            if done {
                if let Some(run) = self.current.take() {
                    self.results.push(run.finish(&prepared.scenario, &prepared.workload));
                }
            }
        }
        self.is_finished()
    }

    /// Whether every algorithm has run.
    pub fn is_finished(&self) -> bool {
        self.current.is_none() && self.pending.is_empty()
    }

    /// Finishes whatever is left and returns the report.
    pub fn report(mut self) -> Report {
        while !self.advance(u64::MAX) {}
        self.prepared.report(self.results)
    }
}

/// Runs one algorithm of a scenario and returns what happened to each
/// request, in arrival order.
pub fn dispatch_log(scenario: &Scenario, algorithm: AlgorithmId) -> Result<Vec<Dispatch>, ScenarioError> {
    Ok(Prepared::new(scenario)?.dispatch_log(algorithm))
}

/// Runs a scenario to the end.
pub fn run(scenario: &Scenario) -> Result<Report, ScenarioError> {
    Ok(Simulation::new(scenario)?.report())
}
