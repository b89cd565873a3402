//! `lbsim trace` takes, as flags, every field of the table that a rule's
//! picks on an idle pool depend on: the hashing rules' hash, ring points
//! and ring construction as much as the pool's size, weights and names.
//! Which fields those are is found here, not listed: each field of
//! `FIELDS` is set to other values it allows, and it counts when the
//! core's picks change for some rule.

use lbsim_core::balancer::{self, Pick};
use lbsim_core::scenario::{FieldKind, FIELDS};
use lbsim_core::workload::algorithm_rng;
use lbsim_core::{AlgorithmId, Scenario};

use crate::{json, other_values, stdout};

const PICKS: u64 = 40;

/// The first picks of `algorithm` on the idle pool of `scenario`, made as
/// `lbsim trace` makes them: pick i for user i+1, 1 ms apart, each
/// dispatched and completed at once.
fn idle_picks(scenario: &Scenario, algorithm: AlgorithmId) -> Vec<String> {
    let pool = scenario.pool();
    let mut rule = balancer::build(algorithm, &pool);
    let mut rng = algorithm_rng(scenario.seed, algorithm.id());
    (0..PICKS)
        .map(|i| {
            let now_ms = i as f64;
            let user = u32::try_from(i + 1).expect("a few picks");
            let server = rule.pick(&Pick { now_ms, user }, &mut rng);
            rule.dispatched(server);
            rule.completed(server, now_ms, 0.0);
            pool.names[server].clone()
        })
        .collect()
}

/// A field that changes a rule's picks: the value and the rule.
struct Change {
    key: &'static str,
    value: String,
    algorithm: AlgorithmId,
    picks: Vec<String>,
}

/// The fields whose other values change some rule's picks on the
/// default pool, each with the first such value and rule.
fn fields_the_picks_depend_on() -> Vec<Change> {
    let base = Scenario::default();
    let before: Vec<Vec<String>> = AlgorithmId::ALL.iter().map(|&a| idle_picks(&base, a)).collect();
    let mut changes = Vec::new();
    for field in FIELDS {
        // A log's name or format names a file to read: it changes the
        // requests, not how a rule picks among servers.
        if field.kind == FieldKind::Text {
            continue;
        }
        let values = other_values(field, &base);
        assert!(!values.is_empty(), "{}: no other value to try", field.key);
        let change = values.into_iter().find_map(|value| {
            let mut other = base.clone();
            other.set(field.key, &value).expect("an allowed value");
            AlgorithmId::ALL.iter().zip(&before).find_map(|(&algorithm, before)| {
                let picks = idle_picks(&other, algorithm);
                (picks != *before).then(|| Change { key: field.key, value: value.clone(), algorithm, picks })
            })
        });
        changes.extend(change);
    }
    changes
}

#[test]
fn every_field_that_changes_a_pick_is_a_trace_flag() {
    let changes = fields_the_picks_depend_on();
    let hashing = [
        AlgorithmId::UserHash,
        AlgorithmId::ConsistentHash,
        AlgorithmId::BoundedLoad,
        AlgorithmId::Maglev,
        AlgorithmId::Rendezvous,
    ];
    assert!(
        changes.iter().any(|c| hashing.contains(&c.algorithm)),
        "no field changes a hashing rule's picks: the search is broken"
    );
    let help = stdout(&["trace", "--help"]);
    for change in &changes {
        let flag = format!("--{}", change.key);
        assert!(
            help.contains(&format!("{flag} <")),
            "{flag} changes {}'s picks but `lbsim trace --help` does not list it",
            change.algorithm.id()
        );
        let picks = PICKS.to_string();
        let traced =
            json(&["trace", "--algorithm", change.algorithm.id(), &flag, &change.value, "--picks", &picks]);
        let traced: Vec<&str> =
            traced["picks"].as_array().expect("picks").iter().map(|p| p.as_str().expect("a name")).collect();
        assert_eq!(
            traced,
            change.picks,
            "lbsim trace --algorithm {} {flag} {}",
            change.algorithm.id(),
            change.value
        );
    }
}
