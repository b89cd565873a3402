//! Rings placed as real deployments place them (`ring=nginx|ketama`), for
//! the consistent-hash and bounded-load rules and the remap experiment.
//! The constructions themselves are pinned by vectors in
//! `balancer/builder.rs`; these hold what follows from them.

use lbsim_core::balancer::builder::Builder;
use lbsim_core::remap::{remap, Change, Remap, Scheme};
use lbsim_core::{run, AlgorithmId, Scenario};

fn nodes(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("10.0.0.{i}:8080")).collect()
}

#[test]
fn a_joining_node_takes_about_its_share_and_only_from_the_others() {
    for ring in [Builder::Nginx, Builder::Haproxy, Builder::Ketama] {
        let experiment = Remap {
            scheme: Scheme::ConsistentHash,
            nodes: nodes(4),
            change: Change::Add("10.0.0.5:8080".into()),
            keys: 20_000,
            builder: ring,
            ..Remap::default()
        };
        let report = remap(&experiment).expect("valid");
        let share = report.moved as f64 / report.keys as f64;
        assert!((0.13..0.27).contains(&share), "{}: moved {share}", ring.id());
        let joined = report.after.0.iter().find(|(n, _)| n == "10.0.0.5:8080").map(|(_, k)| *k);
        assert_eq!(joined, Some(report.moved), "{}: every moved key went to the new node", ring.id());
    }
}

#[test]
fn nginx_and_ketama_rings_ignore_vnodes_and_hash_but_lbsim_does_not() {
    let base = Scenario {
        servers: 3,
        names: nodes(3),
        requests: 3_000,
        algorithms: vec![AlgorithmId::ConsistentHash, AlgorithmId::BoundedLoad],
        ..Scenario::default()
    };
    for ring in [Builder::Nginx, Builder::Haproxy, Builder::Ketama] {
        let placed = Scenario { builder: ring, ..base.clone() };
        let other = Scenario { vnodes: 7, hash: Some(lbsim_core::hash::HashFn::Fnv1a32), ..placed.clone() };
        let (a, b) = (run(&placed).expect("valid"), run(&other).expect("valid"));
        assert_eq!(a.results, b.results, "{}: its own points and hash", ring.id());
        assert_ne!(a.results, run(&base).expect("valid").results, "{}: not the lbsim ring", ring.id());
        assert!(!placed.uses("vnodes"));
    }
    let seven = Scenario { vnodes: 7, ..base.clone() };
    assert_ne!(run(&seven).expect("valid").results, run(&base).expect("valid").results);
}

#[test]
fn the_builder_is_a_link_key_and_a_json_key_only_when_set_and_ring_still_reads() {
    let mut s = Scenario::default();
    assert!(!serde_json::to_string(&s).expect("json").contains("\"builder\""));
    // `ring`, the field's old key, still reads, in links, flags and JSON.
    s.set("ring", "nginx").expect("valid");
    assert_eq!(s.builder, Builder::Nginx);
    let old: Scenario = serde_json::from_str(r#"{"ring": "nginx"}"#).expect("the old JSON key");
    assert_eq!(old.builder, Builder::Nginx);
    assert_eq!(lbsim_core::url::decode_strict("#v=1&ring=ketama").map(|s| s.builder), Ok(Builder::Ketama));
    s.set("names", "10.0.0.1:8080,10.0.0.2:8080,10.0.0.3,db-4.local:11211").expect("host:port names");
    let json = serde_json::to_string(&s).expect("json");
    assert!(json.contains("\"builder\":\"nginx\""));
    assert_eq!(serde_json::from_str::<Scenario>(&json).expect("parses"), s);
    let link = lbsim_core::url::encode(&s);
    assert!(link.contains("builder=nginx"), "{link}");
    assert_eq!(lbsim_core::url::decode_strict(&link), Ok(s.clone()));
    let err = s.set("ring", "maglev").expect_err("not a builder");
    assert_eq!(err.field, "builder");
}
