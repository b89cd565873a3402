//! Invariants of the engine, for any scenario and rule, through both of
//! its loops: every request is dispatched, no wait is negative, each
//! server serves in FIFO order, never runs more than its slots and never
//! leaves a slot idle while a request waits (at every moment a request
//! waits, every slot of its server is busy).
//!
//! The static loop (a fixed, healthy pool) is checked from its dispatch
//! log: each request dispatched once, at its work over its server's speed.
//! The fleet's event loop (events of every kind, retries, health checks,
//! 5xx counting, warm-up, slow start, caches, layer 4 connections) is
//! checked from its attempt log, where what differs is stated: an attempt
//! sent to a crashed server is refused without taking a slot (it starts
//! when sent and ends after the connect time); a crash ends everything its
//! server holds at the crash, and what was queued there never started; a
//! request is tried at most `retries + 1` times, each retry sent after the
//! attempt it follows failed, and has no attempt at all when no server
//! could take it (a 502 at once); a slow event, warm-up and a cache hit
//! change how long the work takes, so a service that was not a hit is at
//! least the work over the fastest speed the server was given (configured
//! or by a slow event, which sets a speed), and exactly the work over the
//! configured speed when neither a slow event nor warm-up touches it.

use lbsim_core::engine::dispatch_log;
use lbsim_core::events::EventKind;
use lbsim_core::fleet::Outcome;
use lbsim_core::scenario::WorkKind;
use lbsim_core::workload::Workload;
use lbsim_core::{AlgorithmId, Prepared, Scenario};
use proptest::prelude::*;

use crate::common::small_scenario;

/// Whether every slot of a server is busy at every moment of
/// `[from, until)`, given the server's slot intervals `[start, done)`.
/// Occupancy only drops at an end, so it is lowest at `from` or just
/// after an end inside the interval.
fn all_busy(intervals: &[(f64, f64)], slots: usize, from: f64, until: f64) -> bool {
    if until <= from {
        return true;
    }
    let running = |t: f64| intervals.iter().filter(|&&(start, done)| start <= t && t < done).count();
    core::iter::once(from)
        .chain(intervals.iter().map(|&(_, done)| done).filter(|&d| d > from && d < until))
        .all(|t| running(t) >= slots)
}

fn scenarios() -> impl Strategy<Value = (Scenario, AlgorithmId)> {
    (
        1u32..6,
        1u32..4,
        1u64..400,
        0.2f64..1.6,
        prop_oneof![
            Just(WorkKind::Bimodal),
            Just(WorkKind::Constant),
            Just(WorkKind::Exponential),
            Just(WorkKind::Lognormal)
        ],
        1u32..4,
        any::<u64>(),
        0usize..AlgorithmId::ALL.len(),
        any::<bool>(),
    )
        .prop_map(|(servers, slots, requests, load, work, balancers, seed, algorithm, uneven)| {
            let mut scenario = small_scenario(servers, slots, requests, load, work, balancers, seed, uneven);
            // A Prequal probe's cost holds a slot's time with no request in
            // it (docs/model.md#prequal), so work conservation over the
            // requests alone holds only without it; `prequal_probe_cost.rs`
            // holds the cost itself.
            scenario.probe_cost_ms = 0.0;
            (scenario, AlgorithmId::ALL[algorithm])
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn requests_finish_once_in_fifo_order((scenario, algorithm) in scenarios()) {
        let log = dispatch_log(&scenario, algorithm).expect("valid");
        let requests = Workload::generate(&scenario).requests;
        prop_assert_eq!(log.len(), requests.len());
        let observes = lbsim_core::balancer::build(algorithm, &lbsim_core::balancer::Pool::named(&["a"]))
            .observes_completions();
        for (i, (d, r)) in log.iter().zip(&requests).enumerate() {
            prop_assert_eq!(d.request, i);
            prop_assert!(d.start_ms >= r.arrival_ms, "negative wait");
            let service = r.work_ms / scenario.speed(d.server);
            prop_assert_eq!(d.done_ms, d.start_ms + service);
            // Each completion reaches the balancer once, at its time.
            if observes {
                prop_assert_eq!(d.delivered_ms, Some(d.done_ms));
            }
        }
        for server in 0..scenario.servers as usize {
            let mine: Vec<_> = log.iter().filter(|d| d.server == server).collect();
            // FIFO: starts in arrival order.
            prop_assert!(mine.windows(2).all(|w| w[0].start_ms <= w[1].start_ms));
            let intervals: Vec<(f64, f64)> = mine.iter().map(|d| (d.start_ms, d.done_ms)).collect();
            for (k, d) in mine.iter().enumerate() {
                // At its start, fewer than `slots` earlier requests still run.
                let running = mine[..k].iter().filter(|e| e.done_ms > d.start_ms).count();
                prop_assert!(running < scenario.slots as usize, "more than {} running", scenario.slots);
                // Work conserving: while a request waits, no slot is idle.
                let arrival = requests[d.request].arrival_ms;
                prop_assert!(
                    all_busy(&intervals, scenario.slots as usize, arrival, d.start_ms),
                    "request {} waited from {arrival} to {} with a slot idle", d.request, d.start_ms
                );
            }
        }
    }
}

/// What one server does over the run: nothing, or one of the event kinds
/// (with its recovery where it has one), or joining late.
fn server_events() -> impl Strategy<Value = u8> {
    prop_oneof![3 => Just(0u8), 1 => 1u8..7]
}

/// A small scenario through the fleet's event loop: events of every kind,
/// retries, passive and active checks, 5xx counting, warm-up, slow start,
/// caches and layer 4 connections, each on or off.
fn fleet_scenarios() -> impl Strategy<Value = (Scenario, AlgorithmId)> {
    (
        scenarios(),
        proptest::collection::vec(server_events(), 5),
        // When the events start, and how long they last: sometimes a
        // millisecond, so a server recovers while what it held would
        // still be running.
        (0.05f64..0.5, prop_oneof![1 => Just(0.0), 3 => 0.05f64..0.4]),
        0u32..4,
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        (0u32..3, 0u32..3, 0u32..3),
    )
        .prop_map(
            |(
                (mut s, algorithm),
                kinds,
                (at, lasting),
                retries,
                (count_5xx, checks, warm, l4),
                (cache, ramp, passive),
            )| {
                let horizon = Workload::generate(&s).horizon_ms().max(1.0);
                let (from, to) = ((horizon * at) as u64, (horizon * (at + lasting)) as u64 + 1);
                let mut events = Vec::new();
                for (i, kind) in kinds.iter().enumerate().take(s.servers as usize) {
                    let name = format!("s{}", i + 1);
                    match kind {
                        1 => events.push(format!("{from}ms:{name}:crash,{to}ms:{name}:recover")),
                        2 => events.push(format!("{from}ms:{name}:fail,{to}ms:{name}:recover")),
                        3 => events.push(format!("{from}ms:{name}:slow=0.3,{to}ms:{name}:recover")),
                        4 => events.push(format!("{from}ms:{name}:leave")),
                        // One server is in the pool from the start.
                        5 if i > 0 => events.push(format!("{to}ms:{name}:join")),
                        6 => events.push(format!("{from}ms:{name}:crash")),
                        _ => {}
                    }
                }
                let set = |s: &mut Scenario, key: &str, value: &str| {
                    s.set(key, value).unwrap_or_else(|e| panic!("{key}={value}: {e}"));
                };
                set(&mut s, "events", &events.join(","));
                set(&mut s, "retries", &retries.to_string());
                set(&mut s, "count-5xx", if count_5xx { "true" } else { "false" });
                // Passive checks as configured, off (a crashed server is tried
                // again at once), or quick to forgive.
                match passive {
                    1 => set(&mut s, "max-fails", "0"),
                    2 => {
                        set(&mut s, "max-fails", "2");
                        set(&mut s, "fail-timeout-ms", "100");
                    }
                    _ => {}
                }
                if checks {
                    set(&mut s, "check-ms", "200");
                    set(&mut s, "check", "http");
                }
                if warm {
                    set(&mut s, "warmup-ms", "300");
                }
                if ramp > 0 {
                    set(&mut s, "slow-start-ms", &(ramp * 400).to_string());
                }
                if cache > 0 {
                    set(&mut s, "cache-keys", &(cache * 15).to_string());
                    set(&mut s, "hit-cost", "0.3");
                }
                if l4 {
                    set(&mut s, "layer", "4");
                    set(&mut s, "conn-life-ms", &((1 + retries) * 150).to_string());
                }
                (s, algorithm)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_event_loop_keeps_fifo_slots_and_work_conservation((scenario, algorithm) in fleet_scenarios()) {
        // The attempt log runs the event loop even for a scenario that
        // turns every mechanism off.
        let prepared = Prepared::new(&scenario).expect("valid");
        let s = prepared.scenario();
        let requests = &prepared.workload().requests;
        let log = prepared.attempt_log(algorithm);
        let slots = s.slots as usize;
        // A request's attempts: at most retries + 1, a retry sent after the
        // failed attempt it follows.
        let mut tries = vec![0u32; requests.len()];
        for (id, a) in log.iter().enumerate() {
            let r = a.request as usize;
            tries[r] += 1;
            prop_assert!(a.sent_ms >= requests[r].arrival_ms, "attempt {id} sent before its arrival");
            prop_assert!(a.start_ms >= a.sent_ms && a.done_ms >= a.start_ms, "attempt {id}: {a:?}");
            if let Some(p) = a.previous {
                let before = &log[p as usize];
                prop_assert!((p as usize) < id && before.request == a.request);
                prop_assert!(before.outcome != Outcome::Ok && a.sent_ms >= before.done_ms, "retry {id} of {before:?}");
            }
        }
        prop_assert!(tries.iter().all(|&t| t <= s.retries + 1), "more than {} tries", s.retries + 1);
        for server in 0..s.servers as usize {
            // A slow event sets the server's speed (faster or slower than
            // configured) until it recovers; warm-up only slows it.
            let slowed: Vec<f64> = s
                .events
                .0
                .iter()
                .filter(|e| e.server == s.server_name(server))
                .filter_map(|e| if let EventKind::Slow(speed) = e.kind { Some(speed) } else { None })
                .collect();
            let fastest = slowed.iter().copied().fold(s.speed(server), f64::max);
            let steady = slowed.is_empty() && s.warmup_ms == 0;
            // The attempts that took a slot: all but those refused by a
            // crashed server and those a crash dropped from the queue.
            let mine: Vec<_> = log
                .iter()
                .filter(|a| a.server as usize == server)
                .filter(|a| !(a.outcome == Outcome::Connection && a.start_ms == a.done_ms))
                .filter(|a| !(a.outcome == Outcome::Connection && !a.aborted && a.start_ms == a.sent_ms))
                .collect();
            prop_assert!(mine.windows(2).all(|w| w[0].start_ms <= w[1].start_ms), "FIFO on s{}", server + 1);
            let intervals: Vec<(f64, f64)> = mine.iter().map(|a| (a.start_ms, a.done_ms)).collect();
            for (k, a) in mine.iter().enumerate() {
                let running = mine[..k].iter().filter(|e| e.done_ms > a.start_ms).count();
                prop_assert!(running < slots, "more than {slots} running on s{}", server + 1);
                prop_assert!(
                    all_busy(&intervals, slots, a.sent_ms, a.start_ms),
                    "an attempt on s{} waited from {} to {} with a slot idle", server + 1, a.sent_ms, a.start_ms
                );
                if a.outcome == Outcome::Ok && !a.aborted && !a.hit {
                    let work = requests[a.request as usize].work_ms / s.speed(server);
                    let service = a.done_ms - a.start_ms;
                    let least = requests[a.request as usize].work_ms / fastest;
                    // `done - start` rounds to the times' own precision: a
                    // few units in the last place of the later time.
                    let rounding = 4.0 * f64::EPSILON * a.done_ms;
                    prop_assert!(
                        service >= least * (1.0 - 1e-9) - rounding,
                        "service {service} under the work {least}"
                    );
                    if steady {
                        prop_assert!((service - work).abs() <= 1e-9 * work.max(1.0), "service {service}, work {work}");
                    }
                }
            }
        }
    }
}

#[test]
fn adding_an_algorithm_leaves_the_others_alone() {
    let one = Scenario { algorithms: vec![AlgorithmId::PowerOfTwo], ..Scenario::default() };
    let all = Scenario::default();
    let alone = lbsim_core::run(&one).expect("valid").results.remove(0);
    let among = lbsim_core::run(&all).expect("valid");
    let same = among.results.iter().find(|r| r.algorithm == AlgorithmId::PowerOfTwo).expect("ran");
    assert_eq!(&alone, same);
}

#[test]
fn a_sliced_run_equals_a_run_at_once() {
    let scenario = Scenario { requests: 5_000, algorithms: AlgorithmId::ALL.to_vec(), ..Scenario::default() };
    let at_once = lbsim_core::run(&scenario).expect("valid");
    let mut sim = lbsim_core::Simulation::new(&scenario).expect("valid");
    let mut slices = 0;
    while !sim.advance(777) {
        slices += 1;
        let (done, total) = sim.progress();
        assert!(done <= total);
    }
    let rules = lbsim_core::AlgorithmId::ALL.len() as u64;
    assert!(slices >= 5000 * rules / 777 - 1, "5000 x {rules} requests in slices of 777");
    assert_eq!(sim.report(), at_once);
}
