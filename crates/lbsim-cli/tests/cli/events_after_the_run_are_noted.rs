//! An event after the run's end (every rule's last answer) changes
//! nothing: `run` says so on standard error, naming the event and the end
//! the report's results give, and prints the same report as without it.

use super::lbsim;

#[test]
fn run_notes_an_event_after_the_last_arrival_and_its_numbers_do_not_move() {
    let base = ["run", "--servers", "64", "--requests", "20000", "--format", "json"];
    let out = lbsim().args(base).args(["--events", "1s:s1:slow=0.5,40s:s1:recover"]).output().expect("runs");
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let results = report["results"].as_array().expect("results");
    let end_s =
        results.iter().map(|r| r["makespan_ms"].as_f64().expect("makespan")).fold(0.0, f64::max) / 1000.0;
    assert_eq!(
        stderr,
        format!(
            "lbsim: event 40s:s1:recover is after the run's last answer ({end_s:.1} s): it changes nothing \
             in this run\n"
        )
    );
    let without = lbsim().args(base).args(["--events", "1s:s1:slow=0.5"]).output().expect("runs");
    assert!(without.stderr.is_empty(), "{}", String::from_utf8_lossy(&without.stderr));
    let other: serde_json::Value = serde_json::from_slice(&without.stdout).expect("JSON");
    assert_eq!(other["results"], report["results"]);
}
