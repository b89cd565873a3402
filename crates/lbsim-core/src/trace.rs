//! A rule's picks for a given sequence of arrivals and finishes (what
//! `lbsim trace` prints, and what the conformance suite compares with a
//! real balancer, request by request). Nothing queues: an arrival is
//! picked and dispatched, a finish completes the arrival it names, one
//! millisecond per step, so "which server gets the next request while
//! these are in flight" is the rule's answer alone.
//!
//! Steps are written `arrive:user-7` (the request of user 7, whose hashing
//! key is `user-7`), `finish:3` (the third arrival finishes) and `at:1500`
//! (the clock moves on to 1,500 ms), separated by commas. With no steps,
//! each of `picks` requests arrives and finishes at once, so the pool
//! stays idle.
//!
//! The scenario's events decide which servers answer: a crashed server
//! refuses at once, a failing one answers 500. A failed attempt (a refusal,
//! or a 500 with `count-5xx`) is retried on another server, up to
//! `retries` times, as NGINX's `proxy_next_upstream` does, and NGINX's
//! passive checks (`max-fails`, `fail-timeout-ms`) skip a server that
//! failed, on the clock the steps keep; the rule's own state (NGINX's
//! effective weights) learns of the failure as in a run.
//!
//! The rule is the first of `balancers` copies: only aperture's picks
//! depend on it, drawn within copy 1's slice of the ring.
//!
//! A rule that probes (Prequal) sends its probes after each pick, as in a
//! run: a probe reaches its server half a round trip later and finds there
//! the requests held (answered and not finished); its reply comes a round
//! trip after it was sent, with no latency estimate (nothing here has a
//! latency). Each arrival lists the servers its picks probed.
//!
//! A rule that learns weights from load reports (gRPC's and Envoy's
//! weighted round robin) hears them as in a run: a server counts the
//! requests it holds as busy slots (at most its `slots`) and, per call,
//! sends the figures of its last closed `report-period` with each answer
//! (a 500 included, a refusal not), or out of band every period. Each
//! arrival lists the reports heard since the arrival before it, and the
//! weights the rule picks by when its pick brought them in force
//! (docs/model.md#learned-weights-in-a-trace-and-a-replay).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::balancer::{self, AlgorithmId, Eligible, Message, Pick, Reporting};
use crate::fleet::health::Passive;
use crate::fleet::timeline::Timeline;
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::algorithm_rng;

/// Most steps (and picks) a trace takes.
pub const MAX_STEPS: usize = 100_000;

/// The latest time an `at:` step may name: a day, in ms (as events' times).
pub const MAX_AT_MS: u64 = 86_400_000;

/// One step of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A request arrives and is picked for.
    Arrive {
        /// Its user (1-based): the hashing key is `user-{user}`.
        user: u32,
    },
    /// A request in flight finishes.
    Finish {
        /// Which: the arrival's number (1-based, in arrival order).
        arrival: usize,
    },
    /// The clock moves on: the next step is at `ms`.
    At {
        /// Milliseconds since the trace began.
        ms: u64,
    },
}

fn steps_error(value: &str, why: &str) -> ScenarioError {
    ScenarioError {
        field: "steps".into(),
        value: value.into(),
        allowed: format!(
            "{why}; steps are arrive:user-N (N 1 to 4294967295), finish:K (K an arrival not yet \
             finished) or at:T (T ms, 0 to {MAX_AT_MS}, not before the trace's clock), comma-separated, at most {MAX_STEPS}"
        ),
    }
}

/// Reads `arrive:user-1,arrive:user-2,finish:1,at:2000,...`; a finish
/// must name an arrival that came before it and has not finished, and the
/// clock never goes back.
pub fn parse_steps(text: &str) -> Result<Vec<Step>, ScenarioError> {
    let mut steps = Vec::new();
    let mut arrived = 0usize;
    let mut finished: Vec<bool> = Vec::new();
    let mut clock = 0u64;
    for part in text.split(',').map(str::trim) {
        if steps.len() == MAX_STEPS {
            return Err(steps_error(text, "too many steps"));
        }
        let step = match part.split_once(':') {
            Some(("arrive", key)) => {
                let user = key
                    .strip_prefix("user-")
                    .and_then(|id| id.parse::<u32>().ok())
                    .filter(|&id| id >= 1)
                    .ok_or_else(|| steps_error(part, "an arrival's key is user-N"))?;
                arrived += 1;
                finished.push(false);
                Step::Arrive { user }
            }
            Some(("finish", k)) => {
                let arrival = k.parse::<usize>().map_err(|_| steps_error(part, "K is a number"))?;
                if arrival == 0 || arrival > arrived {
                    return Err(steps_error(part, &format!("arrival {arrival} has not arrived yet")));
                }
                if core::mem::replace(&mut finished[arrival - 1], true) {
                    return Err(steps_error(part, &format!("arrival {arrival} has finished already")));
                }
                Step::Finish { arrival }
            }
            Some(("at", t)) => {
                let ms = t
                    .parse::<u64>()
                    .ok()
                    .filter(|&ms| ms <= MAX_AT_MS)
                    .ok_or_else(|| steps_error(part, "T is a whole number of ms"))?;
                if ms < clock {
                    return Err(steps_error(part, &format!("the trace's clock is already at {clock} ms")));
                }
                clock = ms;
                steps.push(Step::At { ms });
                continue;
            }
            _ => return Err(steps_error(part, "not a step")),
        };
        clock += 1;
        steps.push(step);
    }
    Ok(steps)
}

/// The steps of `picks` requests on an idle pool: request i (of user i)
/// arrives and finishes before the next.
pub fn idle(picks: usize) -> Vec<Step> {
    (1..=picks)
        .flat_map(|i| {
            [Step::Arrive { user: u32::try_from(i).unwrap_or(u32::MAX) }, Step::Finish { arrival: i }]
        })
        .collect()
}

/// What became of one arrival: the servers its attempts went to, in
/// order, and whether the last one answered (a refusal or a counted 500
/// with no retry left, or no server to try, ends it unanswered).
#[derive(Clone, Debug, PartialEq)]
pub struct Arrival {
    /// Servers tried (indices into the scenario's pool).
    pub tried: Vec<usize>,
    /// Whether the last of them answered.
    pub answered: bool,
    /// Servers the rule probed after its picks for this arrival (a rule
    /// that probes; empty otherwise).
    pub probes: Vec<usize>,
    /// Load reports the rule heard since the arrival before this one, up
    /// to this one's pick, in the order heard (a rule that learns weights;
    /// empty otherwise).
    pub reports: Vec<Heard>,
    /// The weights the rule picks by, one a server, when its picks for
    /// this arrival brought new ones in force (`Balancer::weights`).
    pub weights: Option<Vec<f64>>,
}

/// A load report as the rule heard it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heard {
    /// When it arrived, ms.
    pub at_ms: f64,
    /// The reporting server.
    pub server: usize,
    /// Requests it finished a second over its last closed period.
    pub qps: f64,
    /// Of those, the failed ones a second.
    pub eps: f64,
    /// Its busy slot time over its slot time in that period.
    pub utilization: f64,
}

/// What becomes of each arrival of `steps` under `rule`, over the
/// scenario's pool, events and passive checks and the rule's own random
/// stream, as a run builds them. `steps` are as [`parse_steps`] checks
/// them.
pub fn picks(scenario: &Scenario, rule: AlgorithmId, steps: &[Step]) -> Vec<Arrival> {
    let pool = scenario.pool();
    let n = pool.len();
    let mut balancer = balancer::build(rule, &pool);
    // The first copy's picks: only aperture's depend on its place.
    balancer.place(0, scenario.balancers as usize);
    let mut rng = algorithm_rng(scenario.seed, rule.id());
    let timeline = Timeline::new(scenario);
    let mut passive = Passive::new(scenario, n);
    let mut arrivals: Vec<Arrival> = Vec::new();
    let mut clock = 0u64;
    // Members and available servers as the rule last heard of them: a
    // change is told to it, as a run tells it (a join or leave is a reload).
    let mut told = (alloc::vec![true; n], alloc::vec![true; n]);
    // Requests held per server (answered, not finished), what a probe finds.
    let mut held = alloc::vec![0u32; n];
    let mut probing = Probes::new(balancer.subscribes().probes.map(|p| p.rtt_ms));
    let mut reporting = Reports::new(balancer.subscribes().load_reports, n, scenario.slots);
    // Per arrival answered: whether its server was failing (it answers 500).
    let mut failing: Vec<bool> = Vec::new();
    let mut in_force: Option<Vec<f64>> = None;
    for step in steps {
        let now_ms = clock as f64;
        if !matches!(step, Step::At { .. }) {
            reporting.periods(now_ms, balancer.as_mut());
        }
        match *step {
            Step::At { ms } => {
                clock = ms;
                continue;
            }
            Step::Arrive { user } => {
                probing.deliver(now_ms, &held, balancer.as_mut());
                let pick = Pick { now_ms, user };
                let mut arrival = Arrival {
                    tried: Vec::new(),
                    answered: false,
                    probes: Vec::new(),
                    reports: core::mem::take(&mut reporting.heard),
                    weights: None,
                };
                loop {
                    let members: Vec<bool> = (0..n).map(|s| timeline.at(s, now_ms).member).collect();
                    let available: Vec<bool> =
                        (0..n).map(|s| members[s] && !passive.excludes(s, now_ms)).collect();
                    if (&members, &available) != (&told.0, &told.1) {
                        balancer.reshape(&members, &available);
                        told = (members, available.clone());
                    }
                    let tried: Vec<u32> = arrival.tried.iter().map(|&s| s as u32).collect();
                    let eligible = Eligible {
                        available: &available,
                        tried: &tried,
                        every_available: !available.contains(&false),
                    };
                    let server = if eligible.all() {
                        Some(balancer.pick(&pick, &mut rng))
                    } else {
                        balancer.pick_eligible(&pick, &mut rng, &eligible)
                    };
                    let Some(server) = server else { break };
                    if balancer.weights() != in_force.as_deref() {
                        in_force = balancer.weights().map(<[f64]>::to_vec);
                        arrival.weights.clone_from(&in_force);
                    }
                    probing.send(now_ms, balancer.as_mut(), &mut rng, &mut arrival.probes);
                    balancer.dispatched(server);
                    passive.picked(server, now_ms);
                    arrival.tried.push(server);
                    let condition = timeline.at(server, now_ms);
                    let failed = condition.crashed || (condition.failing && scenario.count_5xx);
                    if !failed {
                        arrival.answered = true;
                        held[server] += 1;
                        reporting.start(server, now_ms);
                        break;
                    }
                    // Ended at once, as a refusal on loopback is; a 500
                    // is an answer, and brings its server's report.
                    if !condition.crashed {
                        reporting.start(server, now_ms);
                        reporting.end(server, now_ms, false, balancer.as_mut());
                    }
                    balancer.completed(server, now_ms, 0.0);
                    passive.failed(server, now_ms);
                    balancer.failed(server);
                    if arrival.tried.len() > scenario.retries as usize {
                        break;
                    }
                }
                let last = arrival.tried.last().copied();
                failing.push(arrival.answered && last.is_some_and(|s| timeline.at(s, now_ms).failing));
                arrivals.push(arrival);
            }
            Step::Finish { arrival } => {
                if let Some(a) = arrivals.get(arrival - 1).filter(|a| a.answered) {
                    let server = a.tried[a.tried.len() - 1];
                    probing.deliver(now_ms, &held, balancer.as_mut());
                    held[server] = held[server].saturating_sub(1);
                    passive.succeeded(server);
                    balancer.completed(server, now_ms, 0.0);
                    reporting.end(server, now_ms, !failing[arrival - 1], balancer.as_mut());
                }
            }
        }
        clock += 1;
    }
    arrivals
}

/// Probes on their way in a trace: sent after a pick, reaching their
/// server half a round trip later, answered a round trip after sending.
struct Probes {
    rtt_ms: Option<f64>,
    /// (reaches at, server), in the order sent (and so of reaching).
    on_way: Vec<(f64, usize)>,
    /// Replies: (arrives at, server, reached at, requests held then).
    replies: Vec<(f64, usize, f64, u32)>,
    scratch: Vec<usize>,
}

impl Probes {
    fn new(rtt_ms: Option<f64>) -> Probes {
        Probes { rtt_ms, on_way: Vec::new(), replies: Vec::new(), scratch: Vec::new() }
    }

    /// The rule's probes after a pick at `now_ms`, noted in `sent`.
    fn send(
        &mut self,
        now_ms: f64,
        rule: &mut dyn balancer::Balancer,
        rng: &mut crate::rng::Rng,
        sent: &mut Vec<usize>,
    ) {
        let Some(rtt) = self.rtt_ms else { return };
        self.scratch.clear();
        rule.send_probes(now_ms, rng, &mut self.scratch);
        for &server in &self.scratch {
            self.on_way.push((now_ms + rtt / 2.0, server));
            sent.push(server);
        }
    }

    /// Probes reaching their servers at or before `now_ms` read `held` (no
    /// step has changed it since: steps come at whole ms, and this runs
    /// before each), then replies due are delivered, in time order.
    fn deliver(&mut self, now_ms: f64, held: &[u32], rule: &mut dyn balancer::Balancer) {
        let Some(rtt) = self.rtt_ms else { return };
        let due = self.on_way.iter().take_while(|(at, _)| *at <= now_ms).count();
        for (at, server) in self.on_way.drain(..due) {
            self.replies.push((at + rtt / 2.0, server, at, held[server]));
        }
        self.replies.sort_by(|a, b| a.0.total_cmp(&b.0));
        let due = self.replies.iter().take_while(|r| r.0 <= now_ms).count();
        for (at, server, reached_ms, in_flight) in self.replies.drain(..due) {
            let reply = Message::ProbeReply { server, reached_ms, in_flight, latency_ms: None };
            rule.receive(at, &reply);
        }
    }
}

/// Load reports in a trace: what each server measures of the requests it
/// holds over each report period, and the reports on their way to the
/// rule (none for a rule that hears none).
struct Reports {
    reporting: Option<Reporting>,
    slots: u32,
    meters: Vec<Meter>,
    /// The next out-of-band period's end.
    next_period_ms: f64,
    /// Reports heard since the last arrival.
    heard: Vec<Heard>,
}

/// One server's figures: requests held (the busy slots, at most its
/// slots), its busy slot time, answers and failures in the open period,
/// and the last closed period's qps, eps and utilization.
#[derive(Clone, Copy, Debug, Default)]
struct Meter {
    held: u32,
    last_ms: f64,
    busy_ms: f64,
    finished: u32,
    failed: u32,
    period_end_ms: f64,
    closed: (f64, f64, f64),
}

impl Reports {
    fn new(reporting: Option<Reporting>, servers: usize, slots: u32) -> Reports {
        let period = reporting.map_or(f64::INFINITY, |r| r.period_ms);
        Reports {
            reporting,
            slots: slots.max(1),
            meters: alloc::vec![Meter { period_end_ms: period, ..Meter::default() }; servers],
            next_period_ms: period,
            heard: Vec::new(),
        }
    }

    /// `server`'s busy slot time accrues until `t`, closing the periods
    /// that end on the way.
    fn advance(&mut self, server: usize, t: f64) {
        let Some(reporting) = self.reporting else { return };
        let (period, slots) = (reporting.period_ms, f64::from(self.slots));
        let m = &mut self.meters[server];
        let busy = f64::from(m.held).min(slots);
        while t >= m.period_end_ms {
            let end = m.period_end_ms;
            m.busy_ms += busy * (end - m.last_ms);
            let seconds = period / 1000.0;
            m.closed = (
                f64::from(m.finished) / seconds,
                f64::from(m.failed) / seconds,
                m.busy_ms / (slots * period),
            );
            (m.busy_ms, m.finished, m.failed, m.last_ms) = (0.0, 0, 0, end);
            m.period_end_ms = end + period;
        }
        m.busy_ms += busy * (t - m.last_ms);
        m.last_ms = t;
    }

    /// `server` starts serving a request at `t`.
    fn start(&mut self, server: usize, t: f64) {
        if self.reporting.is_some() {
            self.advance(server, t);
            self.meters[server].held += 1;
        }
    }

    /// `server` answers a request at `t` (`ok`: not a 500); per call, its
    /// report goes to the rule with the answer.
    fn end(&mut self, server: usize, t: f64, ok: bool, rule: &mut dyn balancer::Balancer) {
        let Some(reporting) = self.reporting else { return };
        self.advance(server, t);
        let m = &mut self.meters[server];
        m.held = m.held.saturating_sub(1);
        m.finished += 1;
        m.failed += u32::from(!ok);
        if !reporting.out_of_band {
            self.send(server, t, rule);
        }
    }

    /// Out of band: every server's report at each period's end by `t`.
    fn periods(&mut self, t: f64, rule: &mut dyn balancer::Balancer) {
        let Some(reporting) = self.reporting.filter(|r| r.out_of_band) else { return };
        while self.next_period_ms <= t {
            let end = self.next_period_ms;
            for server in 0..self.meters.len() {
                self.advance(server, end);
                self.send(server, end, rule);
            }
            self.next_period_ms += reporting.period_ms;
        }
    }

    fn send(&mut self, server: usize, t: f64, rule: &mut dyn balancer::Balancer) {
        let (qps, eps, utilization) = self.meters[server].closed;
        rule.receive(t, &Message::LoadReport { server, qps, eps, utilization });
        self.heard.push(Heard { at_ms: t, server, qps, eps, utilization });
    }
}

/// The steps written back in their link form.
pub fn write_steps(steps: &[Step]) -> String {
    let parts: Vec<String> = steps
        .iter()
        .map(|s| match s {
            Step::Arrive { user } => format!("arrive:user-{user}"),
            Step::Finish { arrival } => format!("finish:{arrival}"),
            Step::At { ms } => format!("at:{ms}"),
        })
        .collect();
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;

    fn scenario(weights: &[u32]) -> Scenario {
        let mut s = Scenario::default();
        s.set("servers", &weights.len().to_string()).unwrap();
        let w: Vec<String> = weights.iter().map(u32::to_string).collect();
        s.set("weights", &w.join(",")).unwrap();
        s
    }

    /// The server each arrival went to last.
    fn last(scenario: &Scenario, rule: AlgorithmId, steps: &[Step]) -> Vec<usize> {
        picks(scenario, rule, steps).iter().map(|a| a.tried[a.tried.len() - 1]).collect()
    }

    #[test]
    fn an_idle_trace_is_nginxs_documented_sequence() {
        // NGINX's comment in ngx_http_upstream_round_robin.c: weights 5, 1, 1
        // give a a b a c a a.
        let picks = last(&scenario(&[5, 1, 1]), AlgorithmId::RoundRobin, &idle(7));
        assert_eq!(picks, [0, 0, 1, 0, 2, 0, 0]);
    }

    #[test]
    fn a_refusing_server_is_retried_past_and_skipped_for_its_window() {
        // s2 refuses from the start; one retry; NGINX's passive checks with
        // max_fails 1 and a one-second fail_timeout.
        let mut s = scenario(&[1, 1, 1]);
        for (k, v) in
            [("events", "0s:s2:crash"), ("retries", "1"), ("max-fails", "1"), ("fail-timeout-ms", "1000")]
        {
            s.set(k, v).unwrap();
        }
        let steps = parse_steps(
            "arrive:user-1,finish:1,arrive:user-2,finish:2,at:500,arrive:user-3,finish:3,arrive:user-4,finish:4,\
             at:1500,arrive:user-5,finish:5,arrive:user-6,finish:6",
        )
        .unwrap();
        let tried: Vec<Vec<usize>> =
            picks(&s, AlgorithmId::RoundRobin, &steps).into_iter().map(|a| a.tried).collect();
        // Continuous time: the failure at 2 ms keeps s2 out until 1,002 ms,
        // and the rotation goes on past it.
        assert_eq!(tried, [&[0][..], &[1, 2], &[0], &[2], &[0], &[1, 2]]);
        // As NGINX builds it: whole seconds keep s2 out through second 1,
        // and the walk over the other two is the smooth one.
        s.set("builder", "nginx").unwrap();
        let tried: Vec<Vec<usize>> =
            picks(&s, AlgorithmId::RoundRobin, &steps).into_iter().map(|a| a.tried).collect();
        assert_eq!(tried, [&[0][..], &[1, 2], &[2], &[0], &[2], &[0]]);
    }

    #[test]
    fn held_requests_steer_least_connections() {
        // s1 and s2 each hold one; s3 is the only idle server until s1's
        // request finishes, then s1 has fewer than s2 and s3.
        let steps = parse_steps("arrive:user-1,arrive:user-2,arrive:user-3,finish:1,arrive:user-4").unwrap();
        assert_eq!(last(&scenario(&[1, 1, 1]), AlgorithmId::LeastConnections, &steps), [0, 1, 2, 0]);
    }

    /// Prequal's probes in a trace: three distinct servers a pick, whose
    /// replies (a round trip of 1 ms, before the next step) carry the
    /// requests each server held when the probe reached it. With no
    /// latency anywhere, the cold probes tie at 0 ms and the lower RIF,
    /// then the lower server wins; the server holding arrival 1's request
    /// is hot (RIFs 1, 0, 0: the 0.84 quantile is 1), so arrival 2 goes
    /// to the lowest probed server holding none (docs/model.md#prequal).
    #[cfg(feature = "current-rules")]
    #[test]
    fn a_probing_rules_trace_lists_its_probes_and_picks_by_their_replies() {
        let steps = parse_steps("arrive:user-1,arrive:user-2").unwrap();
        let arrivals = picks(&scenario(&[1, 1, 1, 1, 1, 1]), AlgorithmId::Prequal, &steps);
        let first = &arrivals[0];
        let mut probed = first.probes.clone();
        probed.sort_unstable();
        probed.dedup();
        assert_eq!(probed.len(), 3, "three distinct servers: {:?}", first.probes);
        let holder = first.tried[0];
        let want = probed.iter().copied().find(|&s| s != holder);
        assert_eq!(Some(arrivals[1].tried[0]), want, "probed {probed:?}, s{} held one", holder + 1);
    }

    #[test]
    fn bad_steps_name_the_field_and_the_step() {
        for (text, why) in [
            ("finish:1", "has not arrived yet"),
            ("arrive:user-1,finish:1,finish:1", "has finished already"),
            ("arrive:bob", "key is user-N"),
            ("leave:1", "not a step"),
            ("arrive:user-0", "key is user-N"),
            ("at:5,at:4", "clock is already at 5 ms"),
            ("arrive:user-1,arrive:user-2,at:1", "clock is already at 2 ms"),
            ("at:soon", "whole number"),
            ("at:86400001", "whole number"),
        ] {
            let e = parse_steps(text).unwrap_err();
            assert_eq!(e.field, "steps");
            assert!(e.allowed.contains(why), "{text}: {}", e.allowed);
        }
        let text = "arrive:user-1,finish:1,at:40,arrive:user-9";
        assert_eq!(write_steps(&parse_steps(text).unwrap()), text);
    }
}
