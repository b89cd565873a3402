//! What a fleet run costs is known before it starts: `cost::steps`
//! estimates the steps of the event loop (arrivals, ends, events, probes,
//! timers, retries), counted here by the loop itself, never timed.

use lbsim_core::scenario::WorkKind;
use lbsim_core::{cost, AlgorithmId, Prepared, Scenario};

use crate::common::{linked as scenario, small_scenario};

fn steps_against_estimate(scenario: &Scenario, rule: AlgorithmId) -> (u64, u64) {
    let prepared = Prepared::new(scenario).expect("valid");
    (prepared.fleet_steps(rule), cost::steps(prepared.scenario()))
}

/// A one-millisecond check over a thousand requests a thousand seconds
/// apart: a probe per server every millisecond would be 16 billion steps.
/// Probes that can change nothing (every verdict agrees with its mark) are
/// passed over in one step, so the run takes a few per request.
#[test]
fn a_fast_check_over_a_long_quiet_run_takes_a_few_steps_a_request() {
    let scenario =
        scenario("check-ms=1&events=1s:s1:crash&requests=1000&rate=0.001&servers=16&algorithms=round-robin");
    let (steps, estimate) = steps_against_estimate(&scenario, AlgorithmId::RoundRobin);
    assert!(steps < 10 * 1000, "{steps} steps for 1,000 requests");
    assert!(estimate < 2 * steps && steps < 2 * estimate, "estimate {estimate} against {steps} steps");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Within a factor of two of the steps counted, from probes that are
    /// all taken (the check much shorter than the gaps between requests
    /// never is; a check interval under the mean gap) to runs where most
    /// are passed over, with crashes and failures that make the verdicts
    /// disagree for a while.
    #[test]
    fn the_estimate_is_within_a_factor_of_two_of_the_steps_taken(
        servers in 1u32..24,
        requests in 200u64..3_000,
        load in 0.05f64..1.2,
        check_ms in proptest::sample::select(vec![0u32, 1, 5, 50, 500, 5_000]),
        crash in proptest::bool::ANY,
        rate in proptest::option::of(0.01f64..2_000.0),
        seed in 0u64..1_000_000,
    ) {
        let mut scenario = small_scenario(servers, 2, requests, load, WorkKind::Exponential, 1, seed, false);
        scenario.check_ms = check_ms;
        scenario.rate = rate;
        let events = if crash { "1s:s1:crash,3s:s1:recover" } else { "2s:s1:fail" };
        scenario.set("events", events).expect("events");
        for rule in [AlgorithmId::RoundRobin, AlgorithmId::LeastConnections] {
            let (steps, estimate) = steps_against_estimate(&scenario, rule);
            proptest::prop_assert!(
                estimate <= 2 * steps && steps <= 2 * estimate,
                "{}: estimate {estimate} against {steps} steps", rule.id()
            );
        }
    }
}
