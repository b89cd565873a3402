//! Invariants of the engine, for any scenario and rule: every request is
//! dispatched and finishes exactly once, no wait is negative, each server
//! serves in FIFO order, never runs more than its slots and never leaves a
//! slot idle while a request waits.

use lbsim_core::engine::dispatch_log;
use lbsim_core::scenario::WorkKind;
use lbsim_core::workload::Workload;
use lbsim_core::{AlgorithmId, Scenario};
use proptest::prelude::*;

use crate::common::small_scenario;

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
            let scenario = small_scenario(servers, slots, requests, load, work, balancers, seed, uneven);
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
            for (k, d) in mine.iter().enumerate() {
                // At its start, fewer than `slots` earlier requests still run.
                let running = mine[..k].iter().filter(|e| e.done_ms > d.start_ms).count();
                prop_assert!(running < scenario.slots as usize, "more than {} running", scenario.slots);
                // Work conserving: a request that waited started when a slot freed.
                if d.start_ms > requests[d.request].arrival_ms {
                    prop_assert!(mine[..k].iter().any(|e| e.done_ms == d.start_ms));
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
    let scenario = Scenario { requests: 5_000, ..Scenario::default() };
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
