//! A fit of traffic drawn from a known scenario gives its fields back
//! (rate within 2%, slow share within 1 point, Zipf s within 0.05, the
//! work's kind and parameters), and the fitted scenario, run on fresh
//! draws (another seed), has p99s within 10% of the traffic's own for the
//! rules that do not place by key; for those that do, the busiest server's
//! share (docs/model.md#fitting-a-scenario).

use lbsim_core::fit::{fit, Observed};
use lbsim_core::scenario::WorkKind;
use lbsim_core::workload::Workload;
use lbsim_core::{run, AlgorithmId, Scenario};

use crate::common::linked;

/// Fits the scenario's own workload (what a log exported from it holds).
fn fitted(truth: &Scenario) -> lbsim_core::fit::Fit {
    let workload = Workload::generate(truth);
    let observed = Observed { requests: &workload.requests, served_by: &[], servers: &[] };
    fit(&observed, &Scenario::default()).expect("a fit")
}

fn within(got: f64, want: f64, relative: f64, what: &str) {
    assert!((got - want).abs() <= relative * want.abs(), "{what}: fitted {got}, truth {want}");
}

/// Runs the truth and the fitted scenario (on another seed, so the fit is
/// not helped by common random numbers) and compares them rule by rule.
fn same_latencies(truth: &Scenario, fitted: &Scenario) {
    let rules = vec![
        AlgorithmId::RoundRobin,
        AlgorithmId::LeastConnections,
        AlgorithmId::PowerOfTwo,
        AlgorithmId::ConsistentHash,
    ];
    let truth = Scenario { algorithms: rules.clone(), ..truth.clone() };
    let fitted = Scenario { algorithms: rules, seed: truth.seed + 1, ..fitted.clone() };
    let (a, b) = (run(&truth).expect("valid"), run(&fitted).expect("valid"));
    for (x, y) in a.results.iter().zip(&b.results) {
        let rule = x.algorithm.id();
        if x.algorithm.places_by_key() {
            within(y.busiest_share, x.busiest_share, 0.10, &format!("{rule} busiest share"));
        } else {
            within(y.latency_ms.all.p99, x.latency_ms.all.p99, 0.10, &format!("{rule} p99"));
        }
    }
}

#[test]
fn mixed_work_gives_back_rate_slow_share_and_zipf() {
    let truth = linked("requests=100000&load=0.7&users=2000&zipf=1");
    let fit = fitted(&truth);
    let s = &fit.scenario;
    within(s.rate.expect("a rate"), truth.rate_per_s(), 0.02, "rate");
    assert_eq!(s.work, WorkKind::Bimodal, "{:?}", fit.work_kinds);
    assert!((s.slow_share - truth.slow_share).abs() <= 0.01, "slow share {}", s.slow_share);
    assert_eq!((s.fast_ms, s.slow_ms), (truth.fast_ms, truth.slow_ms));
    assert!((s.zipf - truth.zipf).abs() <= 0.05, "zipf {}", s.zipf);
    same_latencies(&truth, s);
}

#[test]
fn lognormal_work_gives_back_its_mean_and_sigma() {
    let truth = linked("requests=100000&work=lognormal&mean-ms=50&sigma=1.2&load=0.6&zipf=0.8");
    let fit = fitted(&truth);
    let s = &fit.scenario;
    within(s.rate.expect("a rate"), truth.rate_per_s(), 0.02, "rate");
    assert_eq!(s.work, WorkKind::Lognormal, "{:?}", fit.work_kinds);
    within(s.mean_ms, truth.mean_ms, 0.03, "mean-ms");
    within(s.sigma, truth.sigma, 0.02, "sigma");
    assert!((s.zipf - truth.zipf).abs() <= 0.05, "zipf {}", s.zipf);
    same_latencies(&truth, s);
}

#[test]
fn skewed_users_give_back_zipf_s_and_their_count() {
    let truth = linked("requests=100000&work=exponential&mean-ms=30&users=500&zipf=1.4&load=0.5");
    let fit = fitted(&truth);
    let s = &fit.scenario;
    within(s.rate.expect("a rate"), truth.rate_per_s(), 0.02, "rate");
    assert_eq!(s.work, WorkKind::Exponential, "{:?}", fit.work_kinds);
    within(s.mean_ms, truth.mean_ms, 0.02, "mean-ms");
    assert!((s.zipf - truth.zipf).abs() <= 0.05, "zipf {}", s.zipf);
    assert_eq!(s.users, truth.users, "every one of 500 users is seen in 100,000 requests");
    same_latencies(&truth, s);
}

#[test]
fn the_link_carries_the_fitted_numbers_and_reads_back() {
    let truth = linked("requests=20000&load=0.5");
    let fit = fitted(&truth);
    let read = lbsim_core::url::decode_strict(&fit.link).expect("the link reads back");
    assert_eq!(read, fit.scenario);
    assert!(fit.estimates.iter().any(|e| e.field == "slots" && e.note.contains("not in logs")));
}

#[test]
fn the_link_names_neither_the_log_nor_its_keys() {
    let truth = linked("requests=5000&users=50");
    let workload = Workload::generate(&truth);
    let observed = Observed { requests: &workload.requests, served_by: &[], servers: &[] };
    let mut base = linked("log=access.log&log-kind=nginx&time-scale=2");
    base.log_format = Some("$msec $request_time $remote_addr".to_string());
    let fit = fit(&observed, &base).expect("a fit");
    for secret in ["access", "log=", "log-kind", "log-format", "msec", "time-scale"] {
        assert!(!fit.link.contains(secret), "{secret} in {}", fit.link);
    }
    assert_eq!(fit.scenario.log, None);
}
