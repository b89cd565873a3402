//! `lbsim trace --ring nginx|ketama`: consistent-hash sends user u to the
//! owner of `user-u` on the ring the core places as NGINX's `hash $key
//! consistent` and libketama do (their constructions are pinned by
//! published vectors in the core), and not to its owner on lbsim's own.

use lbsim_core::balancer::builder::Builder;
use lbsim_core::balancer::consistent_hash::Ring;
use lbsim_core::Scenario;

use crate::json;

const NAMES: [&str; 4] = ["10.0.0.1:8080", "10.0.0.2:80", "10.0.0.3", "cache-4:11211"];
const WEIGHTS: [u32; 4] = [1, 2, 1, 3];
const PICKS: u32 = 200;

/// The owners of `user-1`.. on the ring `placement` places over the pool.
fn ring_owners(placement: Builder) -> Vec<String> {
    // The ring points and hash a trace starts from unless given.
    let defaults = Scenario::default().pool();
    let hash = defaults.hash_or(lbsim_core::hash::HashFn::DEFAULT);
    let ring = Ring::placed(placement, &NAMES[..], &WEIGHTS, defaults.vnodes, hash);
    (1..=PICKS)
        .map(|user| NAMES[ring.owner(ring.key_hash(format!("user-{user}").as_bytes()))].to_string())
        .collect()
}

fn traced(ring: &str) -> Vec<String> {
    let (names, weights) = (NAMES.join(","), WEIGHTS.map(|w| w.to_string()).join(","));
    let picks = PICKS.to_string();
    let out = json(&[
        "trace",
        "--algorithm",
        "consistent-hash",
        "--names",
        &names,
        "--weights",
        &weights,
        "--ring",
        ring,
        "--picks",
        &picks,
    ]);
    out["picks"].as_array().expect("picks").iter().map(|p| p.as_str().expect("a name").to_string()).collect()
}

#[test]
fn nginx_and_ketama_rings_pick_as_the_core_places_them() {
    let own = ring_owners(Builder::Lbsim);
    assert_eq!(traced("lbsim"), own);
    for placement in [Builder::Nginx, Builder::Ketama] {
        let expected = ring_owners(placement);
        assert_ne!(expected, own, "{}: another ring, other owners", placement.id());
        assert_eq!(traced(placement.id()), expected, "lbsim trace --ring {}", placement.id());
    }
}
