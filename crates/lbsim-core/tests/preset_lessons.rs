//! Each preset's lesson is a claim about the simulation; these tests hold
//! the claims to the numbers (SPEC section 6).

use lbsim_core::presets::preset;
use lbsim_core::remap::{remap, Change, Remap, Scheme};
use lbsim_core::report::AlgorithmResult;
use lbsim_core::{run, AlgorithmId, Report};

fn result(report: &Report, id: AlgorithmId) -> &AlgorithmResult {
    report.results.iter().find(|r| r.algorithm == id).expect("algorithm ran")
}

fn quick_p99(report: &Report, id: AlgorithmId) -> f64 {
    result(report, id).latency_ms.quick.expect("bimodal work").p99
}

#[test]
fn mixed_least_connections_keeps_quick_requests_quick() {
    let report = run(&preset("mixed").expect("preset").scenario()).expect("valid");
    // Quick work is 20 ms: least connections' quick p99 stays within one
    // quick request of it, round robin's is several times that.
    assert!(quick_p99(&report, AlgorithmId::LeastConnections) < 40.0);
    assert!(quick_p99(&report, AlgorithmId::RoundRobin) > 3.0 * 20.0);
    // The overall p99 is the slow requests' own 400 ms for both.
    assert!(result(&report, AlgorithmId::LeastConnections).latency_ms.all.p99 >= 400.0);
    // The heaviest user sends about 1/H(2000, 1) = 12% of requests, so the
    // user-hash server holding it takes well over a fair quarter.
    assert!(report.realized.top_user_share > 0.1);
    assert!(result(&report, AlgorithmId::UserHash).busiest_share > 0.3);
}

#[test]
fn control_rules_tie_but_hash_imbalance_remains() {
    let mixed = run(&preset("mixed").expect("preset").scenario()).expect("valid");
    let control = run(&preset("control").expect("preset").scenario()).expect("valid");
    assert_eq!(control.realized.rate_per_s, mixed.realized.rate_per_s, "same arrivals");
    for id in [AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::PowerOfTwo] {
        assert_eq!(result(&control, id).latency_ms.all.p99, 20.0, "{}", id.id());
    }
    let hash = result(&control, AlgorithmId::UserHash).busiest_share;
    assert_eq!(hash, result(&mixed, AlgorithmId::UserHash).busiest_share, "same users, same servers");
    assert!(hash > 0.3);
}

#[test]
fn degraded_round_robin_overloads_the_slow_server() {
    let report = run(&preset("degraded").expect("preset").scenario()).expect("valid");
    // C serves 8 slots x 0.2 / 100 ms = 16 requests/s; round robin sends it
    // a third of the arrivals, 20/s, so in the fluid model its queue grows
    // by 4 a second for the whole run.
    let rr = result(&report, AlgorithmId::RoundRobin);
    assert!((rr.servers[2].share - 1.0 / 3.0).abs() < 0.01);
    let seconds = report.realized.requests as f64 / report.realized.rate_per_s;
    let fluid = (report.realized.rate_per_s / 3.0 - 16.0) * seconds;
    let peak = f64::from(rr.servers[2].peak_queue);
    assert!((peak - fluid).abs() < 0.15 * fluid, "peak queue {peak}, fluid model {fluid}");
    let series = &rr.servers[2].queue_series;
    assert!(series.windows(20).all(|w| w[19] >= w[0]), "C's queue keeps growing");
    // Least connections: C gets about an eighth, 0.125 as an independent
    // Ciw model with the same tie rule gives, which is more than the fluid
    // model's 2/22 (capacity in proportion 1 : 1 : 0.2), since whole
    // counts tie and ties rotate; C never queues. The lesson says so.
    let lc = result(&report, AlgorithmId::LeastConnections);
    let c = lc.servers[2].share;
    assert!((c - 0.125).abs() < 0.01, "C share {c}");
    assert!(c > 2.0 / 22.0 + 0.02, "C share {c} above the fluid model's");
    assert_eq!(lc.servers[2].peak_queue, 0);
    let lesson = preset("degraded").expect("preset").lesson;
    assert!(lesson.contains("an eighth") && lesson.contains("12.5%") && lesson.contains("2/22"));
}

#[test]
fn herding_least_connections_is_worse_than_two_choices() {
    let report = run(&preset("herding").expect("preset").scenario()).expect("valid");
    let lc = quick_p99(&report, AlgorithmId::LeastConnections);
    let p2c = quick_p99(&report, AlgorithmId::PowerOfTwo);
    let random = quick_p99(&report, AlgorithmId::Random);
    assert!(lc > random, "least connections {lc} herds past random {random}");
    assert!(p2c < random && p2c < lc, "two choices {p2c} does not herd");
}

#[test]
fn scale_out_modulo_moves_most_keys_rings_a_fifth() {
    // 4 -> 5 nodes: modulo keeps a key only if h mod 4 = h mod 5, 1 in 5 for
    // uniform hashes, so 80% move; a ring, jump and Maglev move the new
    // node's fair share, 1/5.
    let keys = 20_000;
    for scheme in Scheme::ALL {
        let experiment = Remap { scheme, keys, change: Change::Add("s5".into()), ..Remap::default() };
        let moved = remap(&experiment).expect("valid").moved as f64 / keys as f64;
        let expected = if scheme == Scheme::Modulo { 0.8 } else { 0.2 };
        // Ring shares vary by about 1/sqrt(160) per node; tables and jump by less.
        let tolerance = if scheme == Scheme::ConsistentHash { 0.06 } else { 0.02 };
        assert!((moved - expected).abs() < tolerance, "{}: {moved}", scheme.id());
    }
}
