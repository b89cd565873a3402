//! The fleet over time (SPEC section 12), held to what NGINX, HAProxy and
//! Envoy document and to the invariants every run keeps.

use lbsim_core::fleet::{Attempt, Outcome};
use lbsim_core::report::AlgorithmResult;
use lbsim_core::{AlgorithmId, Prepared, Scenario};

fn scenario(link: &str) -> Scenario {
    let mut s = Scenario { requests: 20_000, ..Scenario::default() };
    for (key, value) in link.split('&').filter_map(|kv| kv.split_once('=')) {
        s.set(key, value).unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

fn without_fleet_keys(mut r: AlgorithmResult) -> AlgorithmResult {
    r.errors = None;
    r.retries = None;
    r.error_share = None;
    r.error_series = None;
    r.latency_ms.ok = None;
    for s in &mut r.servers {
        s.errors = None;
        s.ejected_ms = None;
        s.requests_series = None;
    }
    r
}

#[test]
fn the_fleet_loop_without_events_makes_the_static_engines_every_number() {
    for link in ["balancers=1", "balancers=3&weights=1,2,1,3", "work=exponential&servers=9"] {
        let prepared = Prepared::new(&scenario(link)).expect("valid");
        for &a in AlgorithmId::ALL {
            let fleet = prepared.run_fleet(a);
            assert_eq!(fleet.errors, Some(0), "{link} {}", a.id());
            assert_eq!(without_fleet_keys(fleet), prepared.run_one(a), "{link} {}", a.id());
        }
    }
}

fn share_sent(r: &AlgorithmResult, server: usize) -> f64 {
    r.servers[server].share
}

#[test]
fn without_5xx_counting_least_connections_feeds_the_black_hole() {
    let s = scenario("events=20s:s3:fail&requests=20000");
    let p = Prepared::new(&s).expect("valid");
    let lc = p.run_one(AlgorithmId::LeastConnections);
    let rr = p.run_one(AlgorithmId::RoundRobin);
    eprintln!(
        "lc s3 share {} errors {:?}; rr s3 share {} errors {:?}",
        share_sent(&lc, 2),
        lc.errors,
        share_sent(&rr, 2),
        rr.errors
    );
    assert!(share_sent(&lc, 2) > 0.4, "least connections sends the fast-failing s3 far more than a quarter");
    assert!((share_sent(&rr, 2) - 0.25).abs() < 0.01, "round robin sends it a quarter");
}

fn chain_servers(log: &[Attempt], mut at: Option<u32>) -> Vec<u32> {
    let mut servers = Vec::new();
    while let Some(a) = at {
        servers.push(log[a as usize].server);
        at = log[a as usize].previous;
    }
    servers
}

#[test]
fn every_request_ends_once_and_a_retry_never_goes_back() {
    let s = scenario(
        "events=10s:s2:crash,20s:s2:recover,25s:s4:fail&retries=2&count-5xx=1&requests=12000&balancers=2",
    );
    let p = Prepared::new(&s).expect("valid");
    for &a in AlgorithmId::ALL {
        let log = p.attempt_log(a);
        let mut finals = vec![0u32; 12_000];
        for (i, attempt) in log.iter().enumerate() {
            let mut tried = chain_servers(&log, attempt.previous);
            tried.sort_unstable();
            assert!(
                tried.binary_search(&attempt.server).is_err(),
                "{}: attempt {i} repeats a server",
                a.id()
            );
            assert!(attempt.start_ms >= attempt.sent_ms && attempt.done_ms >= attempt.start_ms);
            let _ = Outcome::Ok;
        }
        // The last attempt of each request is the one no retry points to.
        let mut superseded = vec![false; log.len()];
        for attempt in &log {
            if let Some(p) = attempt.previous {
                superseded[p as usize] = true;
            }
        }
        for (i, attempt) in log.iter().enumerate() {
            if !superseded[i] {
                finals[attempt.request as usize] += 1;
            }
        }
        // Requests refused for want of a live upstream have no attempt.
        assert!(finals.iter().all(|&f| f <= 1), "{}: a request ended twice", a.id());
        let r = p.run_one(a);
        let n = r.latency_ms.all.mean; // touch
        let _ = n;
    }
}
