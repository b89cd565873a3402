//! A one-millisecond health check over a long quiet run: a probe per
//! server every millisecond would be 16 billion for this run. Probes that
//! can change nothing are passed over in one step (the core's
//! `fleet_cost` test counts the steps), so the run and a sweep of it
//! finish like any other.

use super::stdout;

const QUIET: [&str; 12] = [
    "--check-ms",
    "1",
    "--events",
    "1s:s1:crash",
    "--requests",
    "1000",
    "--rate",
    "0.001",
    "--servers",
    "16",
    "--algorithms",
    "round-robin",
];

#[test]
fn a_fast_check_over_a_quiet_run_finishes() {
    let out = stdout(&[&["run"], &QUIET[..]].concat());
    assert!(out.lines().any(|l| l.starts_with("round-robin")), "{out}");
    let sweep = stdout(&[&["sweep", "--param", "seed=0..3:1", "--format", "csv"], &QUIET[..]].concat());
    assert_eq!(sweep.lines().count(), 1 + 4, "{sweep}");
}
