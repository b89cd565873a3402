//! Prequal on hand-made pools: each expected pick follows from the rule
//! as the paper states it (Wydrowski et al., NSDI 2024, section 3),
//! paraphrased beside each test (docs/model.md#prequal).

use rand::SeedableRng;

use super::*;
use crate::balancer::checks;

fn prequal(servers: usize, settings: PrequalSettings) -> Prequal {
    let pool = Pool { prequal: settings, ..checks::pool(&alloc::vec![1; servers]) };
    Prequal::new(&pool)
}

fn reply(rule: &mut Prequal, server: usize, reached_ms: f64, in_flight: u32, latency_ms: f64) {
    let message = Message::ProbeReply { server, reached_ms, in_flight, latency_ms: Some(latency_ms) };
    rule.receive(reached_ms, &message);
}

fn pick(rule: &mut Prequal, now_ms: f64) -> usize {
    let mut rng = Rng::seed_from_u64(1);
    rule.pick(&Pick { now_ms, user: 1 }, &mut rng)
}

fn pooled(rule: &Prequal) -> Vec<usize> {
    let mut servers: Vec<usize> = rule.pool.iter().map(|p| p.server as usize).collect();
    servers.sort_unstable();
    servers
}

/// No removal and no reuse limit, so a test sees one mechanism at a time.
const ONE_AT_A_TIME: PrequalSettings =
    PrequalSettings { remove_rate: 0.0, reuse_delta: 1.0e9, ..PrequalSettings::PAPER };

/// The hot-cold lexicographic rule: a probe is hot when its RIF is at or
/// above the Q_RIF quantile of recent RIFs; if any probe is cold, the
/// cold one with the lowest latency is chosen, however fast a hot one is.
/// RIFs 9, 2, 3, 1 at Q_RIF 0.84: the quantile is 9 (rank ceil(0.84 x 4)
/// = 4), so s1 (RIF 9, 1 ms) is hot and the coldest-fastest, s3 at 20 ms,
/// wins over s2 at 30 ms and s4 at 50 ms.
#[test]
fn a_cold_probe_with_the_lowest_latency_wins_over_a_faster_hot_one() {
    let mut rule = prequal(6, ONE_AT_A_TIME);
    for (server, rif, latency) in [(0, 9, 1.0), (1, 2, 30.0), (2, 3, 20.0), (3, 1, 50.0)] {
        reply(&mut rule, server, 0.0, rif, latency);
    }
    assert_eq!(rule.hot_threshold(), Some(9));
    assert_eq!(pick(&mut rule, 1.0), 2);
}

/// "If all probes are hot, the one with the lowest RIF is chosen": at
/// Q_RIF 0 every probe is at or above the quantile (the lowest RIF), so
/// s2 (RIF 2, 90 ms) wins over s3 (RIF 3, 10 ms) and s1 (RIF 5, 1 ms).
#[test]
fn when_every_probe_is_hot_the_lowest_rif_wins() {
    let mut rule = prequal(6, PrequalSettings { q_rif: 0.0, ..ONE_AT_A_TIME });
    for (server, rif, latency) in [(0, 5, 1.0), (1, 2, 90.0), (2, 3, 10.0)] {
        reply(&mut rule, server, 0.0, rif, latency);
    }
    assert_eq!(rule.hot_threshold(), Some(2));
    assert_eq!(pick(&mut rule, 1.0), 1);
}

/// The reuse budget: a probe may serve `b_reuse = 1 + delta / ((1 - m/n)
/// r_probe - r_remove)` picks (as prequal-rs reads the paper's formula;
/// rounded up here). At the paper's defaults (m 16, r_probe 3, r_remove 1,
/// delta 1) over 100 servers: 1 + 1 / 1.52 = 1.66, so 2 picks; delta 4:
/// 1 + 4 / 1.52 = 3.63, so 4; over 16 servers the denominator is -1 and a
/// probe serves until it ages or is removed.
#[test]
fn the_reuse_budget_follows_the_papers_formula() {
    assert_eq!(reuse_budget(&PrequalSettings::PAPER, 100), 2);
    assert_eq!(reuse_budget(&PrequalSettings { reuse_delta: 4.0, ..PrequalSettings::PAPER }, 100), 4);
    assert_eq!(reuse_budget(&PrequalSettings::PAPER, 16), u32::MAX);

    let settings = PrequalSettings { remove_rate: 0.0, ..PrequalSettings::PAPER };
    // (1 - 16/100) x 3 - 0 = 2.52: 1 + 1 / 2.52 = 1.40, so 2 picks.
    let mut rule = prequal(100, settings);
    assert_eq!(rule.reuse_budget, 2);
    reply(&mut rule, 7, 0.0, 1, 5.0);
    assert_eq!(pick(&mut rule, 1.0), 7);
    assert_eq!(pick(&mut rule, 2.0), 7, "a probe serves its budget");
    assert!(rule.pool.is_empty(), "and is spent after it");
}

/// Removal: with each query the pool removes r_remove probes, the worst
/// first (the hot-cold rule reversed). Cold probes at 10, 20 and 30 ms:
/// the pick takes s1 (10 ms) and the removal drops s3 (30 ms).
#[test]
fn each_pick_removes_the_worst_probe() {
    let mut rule = prequal(6, PrequalSettings { remove_rate: 1.0, ..ONE_AT_A_TIME });
    for (server, latency) in [(0, 10.0), (1, 20.0), (2, 30.0)] {
        reply(&mut rule, server, 0.0, 1, latency);
    }
    assert_eq!(pick(&mut rule, 1.0), 0);
    assert_eq!(pooled(&rule), [0, 1], "the slowest cold probe went");
    // A hot probe is worse than any cold one: at Q_RIF 0.84 over RIFs
    // 1, 1, 1, 8 the quantile is 8, so s4 (RIF 8, 1 ms) goes first.
    reply(&mut rule, 3, 1.0, 8, 1.0);
    assert_eq!(pick(&mut rule, 2.0), 0);
    assert_eq!(pooled(&rule), [0, 1], "the hot probe went, fast as it was");
}

/// Ageing: probes older than the maximum age are removed from the pool;
/// an empty pool gives a server drawn at random. A probe that reached
/// its server at 0 serves at 1,000 ms and is gone at 1,000.5 ms.
#[test]
fn a_probe_older_than_max_age_is_dropped() {
    let mut rule = prequal(6, ONE_AT_A_TIME);
    reply(&mut rule, 4, 0.0, 1, 5.0);
    assert_eq!(pick(&mut rule, 1_000.0), 4);
    let _ = pick(&mut rule, 1_000.5);
    assert!(rule.pool.is_empty(), "aged out at 1,000.5 ms");
}

/// An empty pool draws uniformly: 6,000 picks over 6 servers, each near
/// 1,000 (4 standard deviations: 4 x sqrt(6000 x 1/6 x 5/6) = 115).
#[test]
fn an_empty_pool_draws_a_server_uniformly() {
    let mut rule = prequal(6, PrequalSettings { probe_rate: 0.0, ..PrequalSettings::PAPER });
    let mut rng = Rng::seed_from_u64(3);
    let mut counts = [0u32; 6];
    for i in 0..6_000 {
        counts[rule.pick(&Pick { now_ms: f64::from(i), user: 1 }, &mut rng)] += 1;
    }
    assert!(counts.iter().all(|&c| c.abs_diff(1_000) < 115), "{counts:?}");
}

/// Probes go to servers drawn uniformly without replacement, r_probe a
/// query, a fractional rate carried over: 3 a pick are 3 distinct servers
/// (of 5, and of 100), 0.5 a pick one every other pick, and over many
/// picks each server is probed about equally.
#[test]
fn probes_go_to_distinct_servers_drawn_uniformly() {
    for servers in [5, 100] {
        let mut rule = prequal(servers, PrequalSettings::PAPER);
        let mut rng = Rng::seed_from_u64(5);
        let mut counts = alloc::vec![0u32; servers];
        for _ in 0..10_000 {
            let mut to = Vec::new();
            rule.send_probes(0.0, &mut rng, &mut to);
            assert_eq!(to.len(), 3);
            let mut distinct = to.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), 3, "without replacement: {to:?}");
            for s in to {
                counts[s] += 1;
            }
        }
        let mean = 30_000.0 / servers as f64;
        let sd = (30_000.0 * (1.0 / servers as f64) * (1.0 - 1.0 / servers as f64)).sqrt();
        assert!(counts.iter().all(|&c| (f64::from(c) - mean).abs() < 4.5 * sd), "{counts:?}");
    }
    let mut rule = prequal(5, PrequalSettings { probe_rate: 0.5, ..PrequalSettings::PAPER });
    let mut rng = Rng::seed_from_u64(5);
    let sent: Vec<usize> = (0..6)
        .map(|_| {
            let mut to = Vec::new();
            rule.send_probes(0.0, &mut rng, &mut to);
            to.len()
        })
        .collect();
    assert_eq!(sent, [0, 1, 0, 1, 0, 1]);
}

/// The pool holds one probe a server (the newer replaces the older) and at
/// most `pool-size`, a full pool dropping its oldest.
#[test]
fn the_pool_keeps_the_newest_probe_of_a_server_and_at_most_its_size() {
    let mut rule = prequal(6, PrequalSettings { pool_size: 2, ..ONE_AT_A_TIME });
    reply(&mut rule, 0, 0.0, 1, 50.0);
    reply(&mut rule, 0, 1.0, 1, 5.0);
    assert_eq!(rule.pool.len(), 1);
    assert_eq!(rule.pool[0].latency_ms, 5.0);
    reply(&mut rule, 1, 2.0, 1, 9.0);
    reply(&mut rule, 2, 3.0, 1, 9.0);
    assert_eq!(pooled(&rule), [1, 2], "s1's probe, the oldest, made room");
}

#[test]
fn subscribes_to_probe_replies_with_its_round_trip_and_cost() {
    let rule =
        prequal(3, PrequalSettings { probe_rtt_ms: 2.0, probe_cost_ms: 0.5, ..PrequalSettings::PAPER });
    assert_eq!(rule.subscribes().probes, Some(Probing { rtt_ms: 2.0, cost_ms: 0.5 }));
}
