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
