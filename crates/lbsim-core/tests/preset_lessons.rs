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

/// A preset's scenario with some fields changed, as the lesson says to.
fn preset_with(id: &str, changes: &[(&str, &str)]) -> Report {
    let mut s = preset(id).expect("preset").scenario();
    for (key, value) in changes {
        s.set(key, value).expect("valid change");
    }
    run(&s).expect("valid")
}

fn errors(report: &Report, id: AlgorithmId) -> u64 {
    result(report, id).errors.expect("a fleet run reports errors")
}

#[test]
fn black_hole_least_connections_feeds_it_until_5xx_count() {
    let report = preset_with("black-hole", &[]);
    let lc = result(&report, AlgorithmId::LeastConnections);
    let rr = result(&report, AlgorithmId::RoundRobin);
    assert!(lc.servers[2].share > 0.55, "least connections sends s3 {}", lc.servers[2].share);
    assert!(lc.error_share.unwrap_or(0.0) > 0.45);
    assert!((rr.servers[2].share - 0.25).abs() < 0.01, "round robin sends s3 its quarter");
    // Round robin's errors: a quarter of what arrives after 20 s.
    let after =
        report.realized.rate_per_s * (report.realized.requests as f64 / report.realized.rate_per_s - 20.0);
    assert!((errors(&report, AlgorithmId::RoundRobin) as f64 - after / 4.0).abs() < 0.05 * after / 4.0);
    // With count-5xx, NGINX's rule allows one failure per fail timeout per
    // copy: 20, 30, 40 and 50 s in a 56 s run.
    let fixed = preset_with("black-hole", &[("count-5xx", "1")]);
    let lc_errors = errors(&fixed, AlgorithmId::LeastConnections);
    assert!((1..=5).contains(&lc_errors), "{lc_errors}");
    let lesson = preset("black-hole").expect("preset").lesson;
    assert!(lesson.contains("58%") && lesson.contains("49%") && lesson.contains("16%"));
    assert!(lesson.contains("count-5xx") && lesson.contains(&format!("loses {lc_errors} requests")));
    assert_eq!((lc.servers[2].share * 100.0).round(), 58.0);
    assert_eq!((lc.error_share.unwrap_or(0.0) * 100.0).round(), 49.0);
}

#[test]
fn crash_loses_what_is_sent_before_the_ejection_and_retries_lose_none() {
    let report = preset_with("crash", &[]);
    let rr = errors(&report, AlgorithmId::RoundRobin) as f64;
    // A quarter of the arrivals for the 4 to 6 s before the third failed
    // probe, plus what s4 held when it crashed.
    let quarter_per_s = report.realized.rate_per_s / 4.0;
    assert!(rr > 4.0 * quarter_per_s && rr < 6.0 * quarter_per_s + 60.0, "round robin lost {rr}");
    let lc = errors(&report, AlgorithmId::LeastConnections) as f64;
    assert!(lc > 2.0 * rr, "least connections feeds the refusing server: {lc}");
    let lesson = preset("crash").expect("preset").lesson;
    assert!(lesson.contains(&format!("loses {}", rr)) && lesson.contains("1,480"));
    assert_eq!(lc, 1480.0);
    let retried = preset_with("crash", &[("retries", "1")]);
    for r in &retried.results {
        assert_eq!(r.errors, Some(0), "{} loses nothing with one retry", r.algorithm.id());
        assert!(r.retries.unwrap_or(0) > 0);
    }
    let passive = preset_with("crash", &[("max-fails", "1")]);
    let caught = errors(&passive, AlgorithmId::RoundRobin);
    assert!(caught <= 10, "max-fails 1 catches the crash at the first failure: {caught}");
    assert!(lesson.contains(&format!("({caught} lost)")));
}

#[test]
fn slow_node_round_robin_suffers_and_load_aware_rules_route_around() {
    let report = preset_with("slow-node", &[]);
    let rr = quick_p99(&report, AlgorithmId::RoundRobin);
    let lc = quick_p99(&report, AlgorithmId::LeastConnections);
    let p2c = quick_p99(&report, AlgorithmId::PowerOfTwo);
    assert!(rr > 10_000.0 && lc < 150.0 && p2c < 150.0, "rr {rr}, lc {lc}, p2c {p2c}");
    // s2 serves 8 x 0.2 / 58 ms = 28 requests/s for 20 s against round
    // robin's quarter of the arrivals: the fluid backlog at 40 s.
    let rate = report.realized.rate_per_s;
    let fluid = (rate / 4.0 - 8.0 * 0.2 / report.scenario.mean_work_ms() * 1000.0) * 20.0;
    let peak = f64::from(result(&report, AlgorithmId::RoundRobin).servers[1].peak_queue);
    assert!((peak - fluid).abs() < 0.2 * fluid, "peak {peak}, fluid {fluid}");
    let lesson = preset("slow-node").expect("preset").lesson;
    assert!(lesson.contains(&format!("{:.1} s", rr / 1000.0)));
    assert!(lesson.contains(&format!("{lc:.0} ms")) && lesson.contains(&format!("{p2c:.0} ms")));
}

#[test]
fn cold_start_round_robin_floods_the_cold_server_and_slow_start_ramps_it() {
    let report = preset_with("cold-start", &[]);
    let rr = result(&report, AlgorithmId::RoundRobin);
    let lc = result(&report, AlgorithmId::LeastConnections);
    assert!(rr.servers[4].peak_queue > 100, "round robin's cold s5 queues: {}", rr.servers[4].peak_queue);
    assert!(lc.servers[4].peak_queue <= 1, "least connections never queues it");
    // s5 takes no request before it joins.
    let b = rr.queue_bucket_ms;
    let before = (20_000.0 / b) as usize;
    for r in &report.results {
        let series = r.servers[4].requests_series.as_ref().expect("fleet run");
        assert!(series[..before].iter().all(|&n| n == 0), "{}", r.algorithm.id());
    }
    let ramped = preset_with("cold-start", &[("slow-start-ms", "15000")]);
    let rr_ramped = quick_p99(&ramped, AlgorithmId::RoundRobin);
    assert!(rr_ramped < 0.1 * quick_p99(&report, AlgorithmId::RoundRobin), "{rr_ramped}");
    let lesson = preset("cold-start").expect("preset").lesson;
    assert!(lesson.contains(&format!("grows to {}", rr.servers[4].peak_queue)));
    assert!(lesson.contains(&format!("{rr_ramped:.0} ms")));
    assert!(lesson.contains(&format!("{:.1} s", quick_p99(&report, AlgorithmId::RoundRobin) / 1000.0)));
}
