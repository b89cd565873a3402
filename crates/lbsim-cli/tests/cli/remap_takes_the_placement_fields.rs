//! `lbsim remap` takes the placement fields of the table (hash, ring
//! points, ring construction) as the scenario flags of the same names, and
//! each one reaches the experiment: the core's remapping of a placed ring
//! is what the command prints.

use lbsim_core::balancer::builder::Builder;
use lbsim_core::remap::{remap, Change, Remap, Scheme};
use lbsim_core::scenario::{FIELDS, PLACEMENT_KEYS};
use lbsim_core::Scenario;

use crate::{json, other_values, stdout};

#[test]
fn a_placed_ring_moves_what_the_core_moves() {
    let nodes = ["10.0.0.1:8080", "10.0.0.2:80", "10.0.0.3", "cache-4:11211"];
    for ring in [Builder::Nginx, Builder::Ketama] {
        let printed = json(&[
            "remap",
            "--scheme",
            "consistent-hash",
            "--nodes",
            &nodes.join(","),
            "--add",
            "10.0.0.5",
            "--keys",
            "3000",
            "--ring",
            ring.id(),
        ]);
        let experiment = Remap {
            scheme: Scheme::ConsistentHash,
            nodes: nodes.map(String::from).to_vec(),
            change: Change::Add("10.0.0.5".into()),
            keys: 3000,
            builder: ring,
            ..Remap::default()
        };
        let report = serde_json::to_value(remap(&experiment).expect("a valid experiment")).expect("JSON");
        for key in ["keys", "moved", "before", "after"] {
            assert_eq!(printed[key], report[key], "--ring {}: {key}", ring.id());
        }
        assert_eq!(printed["hash"], experiment.hash_words(), "--ring {}", ring.id());
    }
}

#[test]
fn every_placement_field_is_a_flag_that_changes_the_report() {
    let help = stdout(&["remap", "--help"]);
    let unchanged = stdout(&["remap", "--format", "json"]);
    let base = Scenario::default();
    for field in FIELDS.iter().filter(|f| PLACEMENT_KEYS.contains(&f.key)) {
        let flag = format!("--{}", field.key);
        assert!(help.contains(&format!("{flag} <")), "`lbsim remap --help` does not list {flag}");
        let values = other_values(field, &base);
        let changes =
            values.iter().any(|value| stdout(&["remap", &flag, value, "--format", "json"]) != unchanged);
        assert!(changes, "no value of {flag} ({values:?}) changes what `lbsim remap` reports");
    }
}

#[test]
fn placement_flags_are_checked_by_the_table() {
    let out = crate::lbsim().args(["remap", "--ring", "maglev"]).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8(out.stderr).expect("UTF-8");
    let expected = Scenario::default().set("ring", "maglev").expect_err("not a placement").to_string();
    assert!(message.contains(&expected), "{message}");
}
