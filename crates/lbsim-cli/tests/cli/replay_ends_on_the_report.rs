//! `lbsim replay` counts what `lbsim run` reports: a run replayed whole
//! ends on the report's answers, errors and retries, and the attempt log
//! holds every attempt the report counts.

use crate::{json, lbsim, stdout};

/// The crash at 20 s inside the run (about 28 s of arrivals): without
/// retries it loses requests, with one it retries them.
const RUNS: [&[&str]; 2] = [
    &["--preset", "crash", "--requests", "10000"],
    &["--preset", "crash", "--requests", "10000", "--retries", "1"],
];

const RULES: [&str; 2] = ["round-robin", "least-connections"];

/// The errors and retries of `rule`'s row of the run's JSON report.
fn reported(run: &[&str], rule: &str) -> (u64, u64) {
    let report = json(&[&["run"][..], run, &["--algorithms", rule]].concat());
    let row = &report["results"][0];
    (row["errors"].as_u64().expect("errors"), row["retries"].as_u64().expect("retries"))
}

fn replay(run: &[&str], format: &str) -> String {
    let flags =
        ["replay", "--format", format, "--pair", "round-robin,least-connections", "--window", "10000"];
    stdout(&[&flags[..], run].concat())
}

#[test]
fn the_end_is_the_reports() {
    for run in RUNS {
        let table = replay(run, "table");
        let end = table.split("(the end)").nth(1).expect("the end's rows");
        let log = replay(run, "csv");
        for rule in RULES {
            let (errors, retries) = reported(run, rule);
            assert!(errors + retries > 0, "{run:?} {rule}: the crash shows");
            let row: Vec<&str> =
                end.lines().find(|l| l.starts_with(rule)).expect("a row").split_whitespace().collect();
            let counted = ["10000", "10000", &errors.to_string(), &retries.to_string()];
            assert_eq!(row[1..5], counted, "{run:?} {rule}: {table}");
            let attempts: Vec<&str> = log.lines().filter(|l| l.starts_with(&format!("{rule},"))).collect();
            let retried = attempts.iter().filter(|l| l.split(',').nth(8) == Some("true")).count() as u64;
            assert_eq!(retried, retries, "{run:?} {rule}: every retry is an attempt of the log");
            // A live server always takes a first attempt (one server crashes).
            assert_eq!(
                attempts.len() as u64 - retried,
                10_000,
                "{run:?} {rule}: one first attempt a request"
            );
        }
    }
}

#[test]
fn a_links_replay_keys_apply() {
    let link = "#v=1&preset=crash&requests=2000&view=replay&pair=maglev,random&t=5&window=500";
    let table = stdout(&["replay", "--url", link]);
    assert!(table.starts_with("replay of the first 500 requests"), "{table}");
    assert!(table.contains("\nat 5.000 s\n"), "{table}");
    let crash = stdout(&["replay", "--preset", "crash", "--window", "10000", "--at", "19.999,20"]);
    let (before, after) = crash.split_once("\nat 20.000 s\n").expect("both moments");
    assert!(!before.contains("events by then"), "{crash}");
    assert!(after.starts_with("events by then: 20s:s4:crash\n"), "{crash}");
    assert!(table.lines().any(|l| l.starts_with("maglev")) && table.lines().any(|l| l.starts_with("random")));
    let out = lbsim().args(["replay", "--window", "0"]).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("window") && message.contains("1 to 20000"), "{message}");
}

/// A scenario of one rule is replayed beside round robin (round robin
/// beside least connections), the pair the page's replay shows.
#[test]
fn a_scenario_of_one_rule_is_replayed_beside_round_robin() {
    for (rule, beside) in [("maglev", "round-robin"), ("round-robin", "least-connections")] {
        let table = stdout(&["replay", "--algorithms", rule, "--requests", "300"]);
        let rows: Vec<&str> = table
            .lines()
            .skip_while(|l| !l.starts_with("algorithm"))
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(rows, [rule, beside], "{table}");
    }
}
