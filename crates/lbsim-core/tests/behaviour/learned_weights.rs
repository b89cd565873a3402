//! gRPC's `weighted_round_robin` and Envoy's client-side weighted round
//! robin learning their weights from the servers' load reports, held to
//! gRFC A58's formula and rules (docs/model.md#what-a-rule-may-know).
//!
//! A server's report over a period says `qps` and `utilization`, busy slot
//! time over slot time. With constant work `W` on a server of speed `v`
//! and `slots` slots, every request holds a slot `W / v`, so a period in
//! which `n` requests finish has busy slot time `n x W / v` give or take
//! the requests the period's two ends cut (at most `slots` at each end, so
//! at most `slots x W / v` in all), and the weight
//! `qps / utilization = slots x n / busy` is `slots x v / W` within a
//! relative `slots / n`: the weights stand in the ratio of the speeds,
//! whatever the load.

use lbsim_core::balancer::{self, AlgorithmId, Message, Pick};
use lbsim_core::engine::Prepared;
use lbsim_core::Scenario;
use rand::SeedableRng;

/// Servers of speeds 1, 1, 2 and 4 at half their capacity, constant work
/// of 20 ms, one rule.
fn speeds_1_1_2_4(rule: AlgorithmId) -> Scenario {
    let mut s = Scenario::default();
    for (key, value) in [
        ("servers", "4"),
        ("speeds", "1,1,2,4"),
        ("work", "constant"),
        ("mean-ms", "20"),
        ("load", "0.5"),
        ("requests", "160000"),
    ] {
        s.set(key, value).unwrap_or_else(|e| panic!("{key}: {e:?}"));
    }
    s.algorithms = vec![rule];
    s
}

/// Each server's share of the requests arriving in `from_ms..to_ms`.
fn shares(scenario: &Scenario, rule: AlgorithmId, from_ms: f64, to_ms: f64) -> (Vec<f64>, Vec<u64>) {
    let prepared = Prepared::new(scenario).expect("a valid scenario");
    let arrivals: Vec<f64> = prepared.workload().requests.iter().map(|r| r.arrival_ms).collect();
    let mut counts = vec![0u64; scenario.servers as usize];
    for dispatch in prepared.dispatch_log(rule) {
        let at = arrivals[dispatch.request];
        if (from_ms..to_ms).contains(&at) {
            counts[dispatch.server] += 1;
        }
    }
    let total: u64 = counts.iter().sum();
    (counts.iter().map(|&c| c as f64 / total as f64).collect(), counts)
}

/// After the blackout, each server's share of the requests is its speed's
/// share, 1/8, 1/8, 2/8 and 4/8. The slowest server finishes
/// 1,600 req/s x 1/8 = 200 requests a 1 s period, so each weight is within
/// 8 / 200 = 4% of its speed's, and a share, a weight over the sum of
/// four, within twice that: 8% of itself.
#[test]
fn learned_weights_converge_to_the_speeds_ratio() {
    for rule in [AlgorithmId::GrpcWrr, AlgorithmId::EnvoyCswrr] {
        let scenario = speeds_1_1_2_4(rule);
        let (shares, counts) = shares(&scenario, rule, 30_000.0, f64::INFINITY);
        let expected = [1.0 / 8.0, 1.0 / 8.0, 2.0 / 8.0, 4.0 / 8.0];
        for (server, (&share, &want)) in shares.iter().zip(&expected).enumerate() {
            assert!(
                (share - want).abs() <= 0.08 * want,
                "{}: s{} takes {share:.4} of the requests after the blackout, its speed's share is {want} \
                 (counts {counts:?})",
                rule.id(),
                server + 1
            );
        }
    }
}

/// Before any weight is usable (the first report closes at 1 s, the
/// blackout ends 10 s after it) the picks are round robin exactly: every
/// server takes the same count, give or take the one the turn is on.
#[test]
fn before_the_blackout_ends_the_picks_are_round_robin() {
    for rule in [AlgorithmId::GrpcWrr, AlgorithmId::EnvoyCswrr] {
        let scenario = speeds_1_1_2_4(rule);
        let (_, counts) = shares(&scenario, rule, 0.0, 10_000.0);
        let (least, most) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(most - least <= 1, "{}: the first 10 s's picks per server are {counts:?}", rule.id());
    }
}

/// A weight no report renews for `expiration` is dropped: gRPC's scheduler
/// gives the server the mean of the known weights (gRFC A58: "any
/// backend with no weight ... will be assigned the mean of the weights of
/// the other backends"), Envoy the median of the valid ones. Servers
/// report weights 1, 1, 2 and 4 (qps 10, 10, 20, 40 at utilization 10)
/// every 100 ms until 30 s, then s4 falls silent: after its expiration
/// (3 min) s4 takes gRPC's mean 4/3 of 1 + 1 + 2 + 4/3 and Envoy's median
/// 1 of 1 + 1 + 2 + 1.
#[test]
fn an_expired_weight_falls_back_to_the_others_mean_or_median() {
    let cases =
        [(AlgorithmId::GrpcWrr, [1.0, 1.0, 2.0, 4.0 / 3.0]), (AlgorithmId::EnvoyCswrr, [1.0, 1.0, 2.0, 1.0])];
    for (rule, after) in cases {
        let mut scenario = speeds_1_1_2_4(rule);
        scenario.set("blackout", "0").expect("blackout");
        let mut copy = balancer::build(rule, &scenario.pool());
        let mut rng = balancer::Rng::seed_from_u64(1);
        // A pick every ms from `from_ms` to `to_ms`, the first `reporting`
        // servers reporting every 100 ms: the picks per server.
        let mut picks = |from_ms: u32, to_ms: u32, reporting: usize| {
            let mut counts = [0u64; 4];
            for t in from_ms..to_ms {
                let now_ms = f64::from(t);
                if t % 100 == 0 {
                    for server in 0..reporting {
                        let qps = [10.0, 10.0, 20.0, 40.0][server];
                        copy.receive(
                            now_ms,
                            &Message::LoadReport { server, qps, eps: 0.0, utilization: 10.0 },
                        );
                    }
                }
                counts[copy.pick(&Pick { now_ms, user: 1 }, &mut rng)] += 1;
            }
            counts
        };
        let known = picks(0, 30_000, 4);
        assert!(known[3] > 3 * known[0], "{}: s4's weight 4 is used while it reports: {known:?}", rule.id());
        picks(30_000, 210_000, 3);
        let expired = picks(210_000, 260_000, 3);
        let total: u64 = expired.iter().sum();
        let sum: f64 = after.iter().sum();
        for server in 0..4 {
            let share = expired[server] as f64 / total as f64;
            let want = after[server] / sum;
            assert!(
                (share - want).abs() < 0.01,
                "{}: s{} takes {share:.4} once s4's weight expired, want {want:.4} ({expired:?})",
                rule.id(),
                server + 1
            );
        }
    }
}

/// Out of band, every server reports to every copy once a period; a run
/// delivers at most 100,000,000 such reports (docs/model.md, the learned
/// weights' settings), counted as the periods up to the last arrival
/// times servers times copies. 64 servers and copies at one request a
/// second: refused one millisecond under the least period the error
/// names, taken at it, and a run of the same reports with each response
/// is never refused.
#[test]
fn out_of_band_reports_are_bounded_and_the_error_says_the_least_period() {
    let base = Scenario {
        algorithms: vec![AlgorithmId::GrpcWrr],
        servers: 64,
        balancers: 64,
        rate: Some(1.0),
        requests: 600,
        out_of_band: true,
        ..Scenario::default()
    };
    let horizon = lbsim_core::workload::Workload::generate(&base).horizon_ms();
    let reports = |period: u32| (horizon / f64::from(period)).floor() * 64.0 * 64.0;
    let least = (10..=600_000).find(|&p| reports(p) <= 1e8).expect("a period fits");
    assert!(least > 10, "the case must be over the bound at 10 ms: {least}");
    let at = |report_period| Prepared::new(&Scenario { report_period, ..base.clone() });
    let Err(refused) = at(least - 1) else { panic!("one ms under the least period is refused") };
    assert_eq!((refused.field.as_str(), refused.value.clone()), ("report-period", (least - 1).to_string()));
    assert!(refused.allowed.starts_with(&format!("at least {least} ms for this run")), "{}", refused.allowed);
    assert!(at(least).is_ok());
    let per_call = Scenario { out_of_band: false, report_period: 10, ..base };
    assert!(Prepared::new(&per_call).is_ok());
}
