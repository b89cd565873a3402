//! A Prequal probe takes no slot, but answering it is the server's time
//! (docs/model.md#prequal): each probe that reaches a server adds
//! `probe-cost-ms` to its busy time, so the servers' summed load rises by
//! exactly the probes' count times their cost over the slot time.

use lbsim_core::{run, AlgorithmId, Scenario};

fn summed_busy_ms(cost_ms: &str) -> (f64, u64) {
    let mut scenario = Scenario { algorithms: vec![AlgorithmId::Prequal], ..Scenario::default() };
    scenario.set("probe-cost-ms", cost_ms).expect("valid");
    let report = run(&scenario).expect("valid");
    let requests = report.realized.requests;
    // The report's load is busy time over slot time up to the last arrival.
    let horizon_ms = requests as f64 / report.realized.rate_per_s * 1000.0;
    let slot_ms = f64::from(scenario.slots) * horizon_ms;
    let load: f64 = report.results[0].servers.iter().map(|s| s.load).sum();
    (load * slot_ms, requests)
}

#[test]
fn every_probe_that_reaches_a_server_costs_it_busy_time() {
    let (free, requests) = summed_busy_ms("0");
    let (costly, _) = summed_busy_ms("0.5");
    // The requests' own service is the same (equal speeds: work over
    // speed, wherever it runs); the difference is the probes'. Three a
    // pick; those sent in the last half round trip reach no server
    // before the run ends.
    let probes = (costly - free) / 0.5;
    let sent = 3.0 * requests as f64;
    assert!(probes <= sent + 1e-6 && probes > sent - 3.0 * 20.0, "{probes} probes' time for {sent} sent");
    assert!((probes - probes.round()).abs() < 1e-6, "a whole number of probes: {probes}");
}

/// A copy idle `idle-probe-ms` probes, and again each as long
/// (docs/model.md#prequal), so a run wakes its copies once each interval
/// of every gap between a copy's requests; a run may have at most
/// 1,000,000 wake-ups. A thousand copies of a request every 1,000 s are
/// refused one step under the least interval the error names, counted here
/// from the drawn requests, and taken at it; without idle probing, never.
#[test]
fn idle_wake_ups_are_bounded_and_the_error_says_the_least_interval() {
    let base = Scenario {
        algorithms: vec![AlgorithmId::Prequal],
        servers: 64,
        balancers: 1024,
        rate: Some(0.001),
        requests: 600,
        ..Scenario::default()
    };
    let requests = lbsim_core::workload::Workload::generate(&base).requests;
    let mut last = vec![None::<f64>; 1024];
    let mut gaps = Vec::new();
    for r in &requests {
        if let Some(before) = last[usize::from(r.copy)].replace(r.arrival_ms) {
            gaps.push(r.arrival_ms - before);
        }
    }
    let wakes = |idle: f64| gaps.iter().map(|g| (g / idle).floor()).sum::<f64>();
    assert!(wakes(1_000.0) > 1e6, "the default interval must be over the bound: {}", wakes(1_000.0));
    let least =
        (1..=6_000).map(|k| f64::from(k) * 10.0).find(|&i| wakes(i) <= 1e6).expect("an interval fits");
    let at = |idle: f64| {
        let mut s = base.clone();
        s.set("idle-probe-ms", &idle.to_string()).expect("in range");
        lbsim_core::engine::Prepared::new(&s).map(|_| ())
    };
    let refused = at(least - 10.0).expect_err("one step under the least interval is refused");
    assert_eq!(
        (refused.field.as_str(), refused.value.clone()),
        ("idle-probe-ms", (least - 10.0).to_string())
    );
    assert!(refused.allowed.starts_with(&format!("at least {least} ms for this run")), "{}", refused.allowed);
    assert_eq!(at(least), Ok(()));
    assert_eq!(at(0.0), Ok(()));
}
