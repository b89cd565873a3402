//! A figure over nothing is not a number: with every server gone no
//! request succeeds, so the successes' latencies are `null`; with every
//! server failing no cache is asked, so the hit rate is `null` in JSON,
//! an empty CSV field and "-" in the table (never 0).

use super::{json, stdout};

const ALL_GONE: &str = "0s:s1:leave,0s:s2:leave,0s:s3:leave,0s:s4:leave";
const ALL_FAILING: &str = "0s:s1:fail,0s:s2:fail,0s:s3:fail,0s:s4:fail";

#[test]
fn no_success_leaves_the_successes_latencies_null() {
    let report = json(&["run", "--requests", "500", "--events", ALL_GONE, "--algorithms", "round-robin"]);
    let r = &report["results"][0];
    assert_eq!(r["errors"], 500, "every request fails: {r}");
    assert!(r["latency_ms"]["ok"].is_null(), "{}", r["latency_ms"]);
    // The latencies of all requests (errors included) are real numbers.
    assert!(r["latency_ms"]["all"]["p99"].is_number());
}

#[test]
fn no_lookup_leaves_the_hit_rate_empty_in_every_format() {
    let args = [
        "run",
        "--requests",
        "500",
        "--cache-keys",
        "100",
        "--events",
        ALL_FAILING,
        "--algorithms",
        "round-robin",
    ];
    let report = json(&args);
    let r = &report["results"][0];
    assert!(r["hit_rate"].is_null(), "{r}");
    assert!(r["servers"].as_array().expect("servers").iter().all(|s| s["hit_rate"].is_null()));
    let csv = stdout(&[&args[..], &["--format", "csv"]].concat());
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).expect("a row").split(',').collect();
    let at = header.iter().position(|&c| c == "hit_rate").expect("a hit_rate column");
    assert_eq!(row[at], "", "{csv}");
    let table = stdout(&args);
    let row = table.lines().find(|l| l.starts_with("round-robin")).expect("a row");
    assert_eq!(row.split_whitespace().last(), Some("-"), "{table}");
    // With lookups, a number.
    let served = json(&["run", "--requests", "500", "--cache-keys", "100", "--algorithms", "round-robin"]);
    assert!(served["results"][0]["hit_rate"].is_number());
}
