//! An event after the run's end (every rule's last answer) changes
//! nothing: the core names it (`Events::after` over `Report::end_ms`) so
//! the front ends can say so, and the run's length stays as the requests
//! make it. An event between the last arrival and the end is not named: a
//! crash there still fails what is in flight.

use lbsim_core::{run, Prepared, Scenario};

fn scenario(events: &str) -> Scenario {
    let mut s = Scenario { servers: 64, requests: 20_000, ..Scenario::default() };
    s.set("events", events).unwrap_or_else(|e| panic!("{e}"));
    s
}

#[test]
fn the_last_arrival_is_the_workloads_last_request() {
    let s = scenario("");
    let report = run(&s).expect("valid");
    let horizon = Prepared::new(&s).expect("valid").workload().horizon_ms();
    let last = report.realized.last_arrival_ms();
    assert!((last - horizon).abs() <= horizon * 1e-12, "{last} vs {horizon}");
    // 64 servers at the default load: the run is short of 20 s.
    assert!(last < 20_000.0, "{last}");
}

#[test]
fn an_event_after_the_last_arrival_is_named_and_changes_no_pick() {
    let early = s_name(&scenario(""), 3);
    let text = format!("1s:{early}:crash,40s:{early}:recover,50s:{early}:slow=0.5");
    let with = scenario(&text);
    let report = run(&with).expect("valid");
    let after: Vec<String> = with.events.after(report.end_ms()).map(|e| e.to_string()).collect();
    assert_eq!(after, [format!("40s:{early}:recover"), format!("50s:{early}:slow=0.5")]);
    // Only the crash at 1 s is before the end: every rule's figures are
    // those of the run without the two later events.
    let before = run(&scenario(&format!("1s:{early}:crash"))).expect("valid");
    assert_eq!(before.results, report.results);
    assert_eq!(before.realized, report.realized);
}

fn s_name(s: &Scenario, i: usize) -> String {
    s.server_name(i)
}

#[test]
fn a_crash_after_the_last_arrival_but_before_the_end_is_not_named() {
    let s = Scenario { servers: 4, requests: 2_000, ..Scenario::default() };
    let report = run(&s).expect("valid");
    let (last, end) = (report.realized.last_arrival_ms(), report.end_ms());
    assert!(end > last, "slow requests finish after the last arrival ({last} < {end})");
    // Every server crashes between the two: requests in flight fail.
    let at = ((last + end) / 2.0) as u64;
    let crash: Vec<String> = (1..=4).map(|i| format!("{at}ms:s{i}:crash")).collect();
    let mut crashed = s.clone();
    crashed.set("events", &crash.join(",")).expect("valid");
    let with = run(&crashed).expect("valid");
    assert!(with.results.iter().any(|r| r.errors.unwrap_or(0) > 0), "the crash fails what is in flight");
    assert_eq!(crashed.events.after(with.end_ms()).count(), 0, "so it is not said to change nothing");
}
