//! AWS's documented Application Load Balancer entries
//! (`tests/oracles/alb_access_log.txt`, its source in the oracles' README)
//! read as the documentation defines their fields: the arrival is
//! `request_creation_time`, the work `target_processing_time`, the key the
//! client's address, the server the target's `ip:port`; the failed Lambda
//! entry (ELB status 502, no target status) is an error, not work.

use lbsim_core::access_log::{LogKind, LogReader, LogSettings};

const ENTRIES: &str = include_str!("../../../../tests/oracles/alb_access_log.txt");

#[test]
fn every_documented_entry_is_read_as_the_documentation_defines_it() {
    let mut reader = LogReader::new(LogSettings { kind: Some(LogKind::Alb), ..LogSettings::default() });
    reader.push(ENTRIES.as_bytes()).expect("the entries read");
    assert_eq!(reader.progress().skipped, 0, "{:?}", reader.progress().first_skips);
    let traffic = reader.finish().expect("traffic");
    // The five entries with a target, as (key, server, arrival, work):
    // all five were created at 22:22:48.364 (the first arrival, so 0 ms),
    // their work the target's processing time in seconds.
    let mut want = vec![
        ("192.168.131.39", "10.0.0.1:80", 0.0, 1.0),
        ("192.168.131.39", "10.0.0.1:80", 0.0, 48.0),
        ("10.0.1.252", "10.0.0.66:9000", 0.0, 2.0),
        ("10.0.0.140", "10.0.1.192:8010", 0.0, 3.0),
        ("10.0.0.140", "10.0.0.171:8010", 0.0, 1.0),
    ];
    let mut got: Vec<(&str, &str, f64, f64)> = traffic
        .requests
        .iter()
        .zip(&traffic.served_by)
        .filter_map(|(r, &s)| {
            let server = traffic.servers.get(usize::from(s))?;
            Some((traffic.key(r.user), server.as_str(), r.arrival_ms, r.work_ms))
        })
        .collect();
    let order = |a: &(&str, &str, f64, f64), b: &(&str, &str, f64, f64)| {
        (a.0, a.1).cmp(&(b.0, b.1)).then(a.3.total_cmp(&b.3))
    };
    want.sort_by(order);
    got.sort_by(order);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.0, g.1), (w.0, w.1));
        assert!((g.2 - w.2).abs() < 1e-9 && (g.3 - w.3).abs() < 1e-9, "{g:?} against {w:?}");
    }
    // The two Lambda entries have no target: every entry is accounted for,
    // and the one ALB answered 502 with no target status is an error.
    assert_eq!(traffic.requests.len() as u64 + traffic.errors, 7);
    assert!(traffic.errors >= 1);
}
