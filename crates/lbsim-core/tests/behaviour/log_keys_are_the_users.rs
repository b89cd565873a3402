//! A log's keys are its users: a log with more distinct keys than the
//! scenario's `users` runs every rule, and its realized figures count each
//! key once (the page's default scenario has 2,000 users; a day's log has
//! far more clients).

use lbsim_core::access_log::{LogReader, LogSettings};
use lbsim_core::{Prepared, Scenario};

#[test]
fn a_log_with_more_keys_than_the_scenarios_users_runs_every_rule() {
    let keys = 3_000;
    let mut csv = String::from("arrival_ms,work_ms,key\n");
    for i in 0..keys {
        csv.push_str(&format!("{},{},client-{i}\n", i * 2, 1 + i % 7));
    }
    let mut reader = LogReader::new(LogSettings::default());
    reader.push(csv.as_bytes()).expect("the CSV is read");
    let traffic = reader.finish().expect("the CSV holds requests");
    assert_eq!(traffic.keys.len(), keys);
    let scenario = Scenario::default();
    assert!(
        u64::from(scenario.users) < keys as u64,
        "the default scenario has fewer users than the log has keys"
    );
    let prepared = Prepared::with_traffic(&scenario, &traffic).expect("the log runs");
    assert_eq!(prepared.scenario().users as usize, keys);
    let rules = prepared.scenario().algorithms.clone();
    let report = prepared.report(rules.iter().map(|&r| prepared.run_one(r)).collect());
    assert_eq!(report.realized.requests, keys as u64);
    // Each key once: the heaviest key holds one request of 3,000.
    assert!(
        (report.realized.top_user_share - 1.0 / keys as f64).abs() < 1e-12,
        "{}",
        report.realized.top_user_share
    );
}
