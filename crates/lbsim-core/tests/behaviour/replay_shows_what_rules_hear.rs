//! A replay carries what its rules heard and learned
//! (docs/model.md#learned-weights-in-a-trace-and-a-replay): each probe
//! Prequal sent, with the figures its reply carried, and each change of a
//! copy's learned weights. Held against the attempt log beside them (what
//! a server held when a probe reached it), the Prequal paper's probe rate
//! (three probes a query, to distinct servers) and gRFC A58's weight
//! update period.

use lbsim_core::balancer::AlgorithmId;
use lbsim_core::presets::preset;
use lbsim_core::replay::{replay, window_for};
use lbsim_core::Scenario;

/// A probe's reply carries the requests its server held when the probe
/// reached it, as the attempt log counts them (sent by then, not ended),
/// half a round trip after it was sent and half before the reply; each
/// pick sends three, to three distinct servers. Without probe cost: a
/// slot that answers a probe reads busy a little past its request's end,
/// which the attempt log does not see (`prequal_probe_cost.rs` holds
/// that cost).
#[test]
fn each_probe_carries_what_the_attempt_log_has_on_its_server() {
    let s = Scenario {
        requests: 3_000,
        probe_cost_ms: 0.0,
        ..preset("antagonists").expect("a preset").scenario()
    };
    let r = replay(&s, AlgorithmId::Prequal, 3_000).expect("a replay");
    assert!(r.probes.len() > 8_000, "{} probes", r.probes.len());
    let half = s.probe_rtt_ms / 2.0;
    for p in &r.probes {
        assert!((p.reached_ms - p.sent_ms - half).abs() < 1e-9, "{p:?}");
        assert!((p.replied_ms - p.reached_ms - half).abs() < 1e-9, "{p:?}");
        let held = r
            .attempts
            .iter()
            .filter(|a| a.server == p.server && a.sent_ms <= p.reached_ms && a.done_ms > p.reached_ms)
            .count();
        assert_eq!(p.in_flight as usize, held, "{p:?}");
    }
    // Every pick but those at the very end (whose probes reach their
    // servers after the last arrival) sent three, to distinct servers.
    let last_arrival = r.requests.last().map_or(0.0, |q| q.arrival_ms);
    for a in r.attempts.iter().filter(|a| a.sent_ms + half < last_arrival) {
        let mut to: Vec<u32> =
            r.probes.iter().filter(|p| (p.sent_ms - a.sent_ms).abs() < 1e-9).map(|p| p.server).collect();
        to.sort_unstable();
        to.dedup();
        assert_eq!(to.len(), 3, "the pick at {} ms probed {to:?}", a.sent_ms);
    }
}

/// On the learned-weights preset (speeds 1, 1, 2, 4) gRPC's copies update
/// their weights at the first pick of a weight period, at most once a
/// period each; the replay's counters give the first copy's latest, and
/// once the blackout is over the weights stand in the speeds' order.
#[test]
fn weight_updates_come_once_a_weight_period_in_the_speeds_order() {
    let s = preset("learned-weights").expect("a preset").scenario();
    let r = replay(&s, AlgorithmId::GrpcWrr, window_for(&s)).expect("a replay");
    let period = f64::from(s.weight_period);
    assert!(!r.weights.is_empty());
    for copy in 0..s.balancers.max(1) {
        let mine: Vec<f64> = r.weights.iter().filter(|w| w.copy == copy).map(|w| w.at_ms).collect();
        for pair in mine.windows(2) {
            assert!(libm::floor(pair[0] / period) < libm::floor(pair[1] / period), "copy {copy}: {pair:?}");
        }
        for at in &mine {
            assert!(r.attempts.iter().any(|a| a.sent_ms == *at), "copy {copy}: no pick at {at} ms");
        }
    }
    let at_20_s = r.at(20_000.0).weights.expect("weights by 20 s");
    let latest = r.weights.iter().rfind(|w| w.copy == 0 && w.at_ms <= 20_000.0).expect("an update");
    assert_eq!(at_20_s, latest.weights);
    assert!(at_20_s[0].max(at_20_s[1]) < at_20_s[2] && at_20_s[2] < at_20_s[3], "{at_20_s:?}");
}
