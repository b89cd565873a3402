//! Caches and layer 4 connections (docs/model.md#caches-and-connections), held to what an LRU
//! cache and an L4 balancer do by definition, and to `lbsim remap`.

use std::collections::{HashMap, HashSet};

use lbsim_core::events::EventKind;
use lbsim_core::fleet::cache::Lru;
use lbsim_core::fleet::{Attempt, Outcome};
use lbsim_core::hash::HashFn;
use lbsim_core::remap::{Change, Plan, Remap, Scheme};
use lbsim_core::{AlgorithmId, Prepared, Scenario};
use proptest::prelude::*;

fn scenario(link: &str) -> Scenario {
    let mut s = Scenario { requests: 20_000, ..Scenario::default() };
    for (key, value) in link.split('&').filter_map(|kv| kv.split_once('=')) {
        s.set(key, value).unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

/// Attempts that asked their server's cache: those that did work, and
/// those a crash cut short after they started.
fn asked(a: &Attempt) -> bool {
    a.outcome == Outcome::Ok || (a.aborted && a.start_ms < a.done_ms)
}

/// A cache that never evicts misses once per (user, server, life of the
/// server's cache): a crash or a join starts a new life.
fn expected_misses(p: &Prepared, log: &[Attempt]) -> usize {
    let events = &p.scenario().events.0;
    let names: Vec<String> =
        (0..p.scenario().servers as usize).map(|i| p.scenario().server_name(i)).collect();
    let mut pairs = HashSet::new();
    for a in log.iter().filter(|a| asked(a)) {
        let name = &names[a.server as usize];
        let life = events
            .iter()
            .filter(|e| &e.server == name && e.at_ms as f64 <= a.sent_ms)
            .filter(|e| matches!(e.kind, EventKind::Crash | EventKind::Join))
            .count();
        pairs.insert((p.workload().requests[a.request as usize].user, a.server, life));
    }
    pairs.len()
}

#[test]
fn a_cache_with_room_for_every_user_misses_once_per_user_and_server() {
    for link in [
        "cache-keys=2000",
        "cache-keys=2000&balancers=3&weights=1,2,1,3",
        "cache-keys=5000&servers=5&events=20s:s5:join",
        "cache-keys=2000&events=20s:s2:crash,30s:s2:recover&max-fails=0",
    ] {
        let p = Prepared::new(&scenario(link)).expect("valid");
        let report = p.report(p.scenario().algorithms.iter().map(|&a| p.run_one(a)).collect());
        for r in &report.results {
            let log = p.attempt_log(r.algorithm);
            let misses = log.iter().filter(|a| asked(a) && !a.hit).count();
            assert_eq!(misses, expected_misses(&p, &log), "{link} {}", r.algorithm.id());
            let lookups = log.iter().filter(|a| asked(a)).count();
            let rate = r.hit_rate.flatten().expect("caches on, lookups made");
            assert!(
                (rate - (lookups - misses) as f64 / lookups as f64).abs() < 1e-12,
                "{link} {}: the report's hit rate is the log's",
                r.algorithm.id()
            );
            let hashing = [
                AlgorithmId::UserHash,
                AlgorithmId::ConsistentHash,
                AlgorithmId::Maglev,
                AlgorithmId::Rendezvous,
            ];
            if hashing.contains(&r.algorithm) && !p.scenario().uses_fleet() {
                // A hash rule sends each user to one server: one miss each.
                let users: HashSet<u32> = p.workload().requests.iter().map(|q| q.user).collect();
                assert_eq!(misses, users.len(), "{link} {}", r.algorithm.id());
            }
        }
    }
}

#[test]
fn hits_cut_the_work_and_the_load_follows() {
    let p = Prepared::new(&scenario("cache-keys=2000&hit-cost=0.25&algorithms=user-hash")).expect("valid");
    let r = p.run_one(AlgorithmId::UserHash);
    let log = p.attempt_log(AlgorithmId::UserHash);
    // Busy time is the work done: misses in full, hits at a quarter.
    let work: f64 = log
        .iter()
        .map(|a| {
            let w = p.workload().requests[a.request as usize].work_ms;
            if a.hit {
                w * 0.25
            } else {
                w
            }
        })
        .sum();
    let busy: f64 = r.servers.iter().map(|s| s.load).sum::<f64>() * 8.0 * p.workload().horizon_ms();
    assert!((busy - work).abs() < 1e-6 * work, "busy {busy} ms, work done {work} ms");
    // The realized load is of the nominal work, as if nothing were cached.
    let plain = Prepared::new(&scenario("algorithms=user-hash")).expect("valid");
    let nominal = plain.report(vec![plain.run_one(AlgorithmId::UserHash)]).realized.load;
    assert_eq!(p.report(vec![r]).realized.load, nominal);
}

#[test]
fn at_layer_4_every_users_requests_ride_one_connection_under_every_rule() {
    for link in ["layer=4", "layer=4&balancers=3&cache-keys=100", "layer=4&work=exponential&servers=7"] {
        let p = Prepared::new(&scenario(link)).expect("valid");
        for &a in AlgorithmId::ALL {
            let mut server_of: HashMap<u32, u32> = HashMap::new();
            for attempt in p.attempt_log(a) {
                let user = p.workload().requests[attempt.request as usize].user;
                let first = *server_of.entry(user).or_insert(attempt.server);
                assert_eq!(first, attempt.server, "{link} {}: user {user} moved", a.id());
            }
        }
    }
}

#[test]
fn at_layer_4_least_connections_spreads_connections_not_requests() {
    // An L4 balancer counts open connections: with none ever closing, each
    // new one goes to a server with the fewest, so every server holds the
    // same number of users, give or take one, however heavy they are.
    let p = Prepared::new(&scenario("layer=4&algorithms=least-connections")).expect("valid");
    let mut users: Vec<HashSet<u32>> = vec![HashSet::new(); 4];
    for a in p.attempt_log(AlgorithmId::LeastConnections) {
        users[a.server as usize].insert(p.workload().requests[a.request as usize].user);
    }
    let counts: Vec<usize> = users.iter().map(HashSet::len).collect();
    let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
    assert!(hi - lo <= 1, "connections per server {counts:?}");
    // The requests are not spread: the heaviest user's 12% rides one of them.
    let r = p.run_one(AlgorithmId::LeastConnections);
    assert!(r.busiest_share > 0.3, "busiest {}", r.busiest_share);
}

#[test]
fn a_connection_is_reopened_after_its_life_at_the_users_next_request() {
    let life = 5_000.0;
    let p = Prepared::new(&scenario("layer=4&conn-life-ms=5000&algorithms=round-robin")).expect("valid");
    let mut opened: HashMap<u32, (f64, u32)> = HashMap::new();
    let mut moves = 0;
    for a in p.attempt_log(AlgorithmId::RoundRobin) {
        let user = p.workload().requests[a.request as usize].user;
        match opened.get(&user).copied() {
            Some((at, server)) if a.sent_ms - at < life => assert_eq!(server, a.server, "within its life"),
            _ => {
                moves += u32::from(opened.get(&user).is_some_and(|&(_, s)| s != a.server));
                opened.insert(user, (a.sent_ms, a.server));
            }
        }
    }
    assert!(moves > 100, "re-opened connections go where round robin points next ({moves} moved)");
}

/// Users who sent requests both before and after `at_ms`, with the server
/// of their last request before and their first after.
fn before_and_after(p: &Prepared, log: &[Attempt], at_ms: f64) -> Vec<(u32, u32, u32)> {
    let mut last_before: HashMap<u32, u32> = HashMap::new();
    let mut first_after: HashMap<u32, u32> = HashMap::new();
    for a in log {
        let user = p.workload().requests[a.request as usize].user;
        if a.sent_ms < at_ms {
            last_before.insert(user, a.server);
        } else {
            first_after.entry(user).or_insert(a.server);
        }
    }
    let mut users: Vec<(u32, u32, u32)> = last_before
        .iter()
        .filter_map(|(&u, &before)| first_after.get(&u).map(|&after| (u, before, after)))
        .collect();
    users.sort_unstable();
    users
}

#[test]
fn the_users_a_join_remaps_are_the_keys_lbsim_remap_moves() {
    let p = Prepared::new(&scenario("servers=5&events=20s:s5:join&cache-keys=300")).expect("valid");
    let nodes: Vec<String> = (1..=4).map(|i| format!("s{i}")).collect();
    for (rule, scheme) in [
        (AlgorithmId::UserHash, Scheme::Modulo),
        (AlgorithmId::ConsistentHash, Scheme::ConsistentHash),
        (AlgorithmId::Maglev, Scheme::Maglev),
        (AlgorithmId::Rendezvous, Scheme::Rendezvous),
    ] {
        let remap = Remap {
            scheme,
            nodes: nodes.clone(),
            change: Change::Add("s5".into()),
            keys: 2_001,
            key_format: "user-{i}".into(),
            vnodes: p.scenario().vnodes,
            // Each rule's default hash, as the run used.
            hash: if rule == AlgorithmId::UserHash { HashFn::Fnv1a32 } else { HashFn::DEFAULT },
            builder: p.scenario().builder,
        };
        let plan = Plan::new(&remap).expect("valid remap");
        let users = before_and_after(&p, &p.attempt_log(rule), 20_000.0);
        let moved = users.iter().filter(|(_, before, after)| before != after).count();
        let remapped = users.iter().filter(|&&(u, _, _)| plan.moves(u64::from(u))).count();
        assert_eq!(moved, remapped, "{}: users moved by the run and keys moved by lbsim remap", rule.id());
        let share = moved as f64 / users.len() as f64;
        let expected = if scheme == Scheme::Modulo { 0.8 } else { 0.2 };
        assert!((share - expected).abs() < 0.1, "{}: {share:.3} of users remapped", rule.id());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_lru_agrees_with_a_naive_one(capacity in 0usize..8, keys in prop::collection::vec(0u32..12, 0..200)) {
        let mut lru = Lru::new(capacity);
        // Most recently used first.
        let mut naive: Vec<u32> = Vec::new();
        for (i, &key) in keys.iter().enumerate() {
            let position = naive.iter().position(|&k| k == key);
            let hit = position.is_some();
            if let Some(at) = position {
                naive.remove(at);
            }
            if capacity > 0 {
                naive.insert(0, key);
                naive.truncate(capacity);
            }
            prop_assert_eq!(lru.touch(key), hit, "request {} for {}", i, key);
            prop_assert_eq!(lru.keys(), naive.clone());
            if i % 50 == 49 {
                lru.clear();
                naive.clear();
            }
        }
    }
}

#[test]
fn the_fair_share_is_the_load_of_the_work_done() {
    // Hits at full cost do all the work: the fair share is the realized load.
    let full = lbsim_core::run(&scenario("cache-keys=300&hit-cost=1&speeds=1,0.5,2,1")).expect("valid");
    for r in &full.results {
        let fair = full.fair_load(r);
        assert!(
            (fair - full.realized.load).abs() < 1e-9,
            "{}: {fair} vs {}",
            r.algorithm.id(),
            full.realized.load
        );
    }
    // At a fifth of the cost a hit saves 80% of a request's work, and hits
    // fall on slow and quick requests alike: the work done shrinks by 80%
    // of the hit rate.
    let cheap = lbsim_core::run(&scenario("cache-keys=300")).expect("valid");
    for r in &cheap.results {
        let done = cheap.fair_load(r) / cheap.realized.load;
        let expected = 1.0 - 0.8 * r.hit_rate.flatten().expect("caches on, lookups made");
        assert!(
            (done - expected).abs() < 0.03,
            "{}: {done} of the work, expected {expected}",
            r.algorithm.id()
        );
    }
}
