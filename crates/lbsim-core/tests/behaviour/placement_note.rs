//! Beside rules that place requests by key the front ends print the core's
//! note (`Report::placement_note`): a hashing rule's largest share is where
//! the heaviest users landed; the seed changes how much each user sends,
//! not where it goes; the hash function moves them. Each claim is held
//! against runs of the mixed preset, where rendezvous takes 43%.

use lbsim_core::presets::preset;
use lbsim_core::{engine, AlgorithmId, Report, Scenario};

/// The mixed preset, shorter, for the rules `algorithms` names, with
/// `seed` and the hash function `hash` (`""`: unset).
fn mixed(algorithms: &str, seed: u64, hash: &str) -> Report {
    let mut s = Scenario { requests: 6_000, seed, ..preset("mixed").expect("a preset").scenario() };
    s.set("algorithms", algorithms).expect("rules");
    s.set("hash", hash).expect("a hash function");
    engine::run(&s).expect("a valid scenario")
}

/// The busiest server of `rule` in `report` and its share.
fn busiest(report: &Report, rule: AlgorithmId) -> (usize, f64) {
    let r = report.results.iter().find(|r| r.algorithm == rule).expect("the rule ran");
    r.servers
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s.share))
        .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a })
}

#[test]
fn the_note_names_the_heaviest_users_and_the_largest_by_key_share() {
    let report = mixed("round-robin,user-hash,maglev,rendezvous,bounded-load", 16, "");
    let note = report.placement_note().expect("rules placed by key");
    let keyed = report.results.iter().filter(|r| r.algorithm.places_by_key());
    let top = keyed.max_by(|a, b| a.busiest_share.total_cmp(&b.busiest_share)).expect("a by-key rule");
    assert_eq!(top.algorithm, AlgorithmId::Rendezvous);
    assert!(note.contains(&format!("rendezvous's {:.1}%", top.busiest_share * 100.0)), "{note}");
    let z = &report.realized;
    assert!(note.contains(&format!("the heaviest user sends {:.1}%", z.top_user_share * 100.0)), "{note}");
    assert!(note.contains(&format!("the ten heaviest {:.1}%", z.top10_share * 100.0)), "{note}");
    let unkeyed = mixed("round-robin,least-connections,bounded-load", 16, "");
    assert_eq!(unkeyed.placement_note(), None, "no rule placed by key alone");
}

#[test]
fn the_seed_moves_no_user_and_the_hash_function_does() {
    let (server, share) = busiest(&mixed("rendezvous", 16, ""), AlgorithmId::Rendezvous);
    assert!(share > 0.40, "rendezvous's busiest server takes {share}");
    for seed in [1, 2, 3, 7] {
        let (other, other_share) = busiest(&mixed("rendezvous", seed, ""), AlgorithmId::Rendezvous);
        assert_eq!(other, server, "seed {seed}: the same server is the busiest");
        assert!((other_share - share).abs() < 0.02, "seed {seed}: {other_share} against {share}");
    }
    let (_, rehashed) = busiest(&mixed("rendezvous", 16, "crc32"), AlgorithmId::Rendezvous);
    assert!(share - rehashed > 0.03, "hash=crc32: {rehashed} against {share}");
}
