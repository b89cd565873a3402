//! Random routing to one pool of c slots with exponential work is M/M/c:
//! the mean wait is Erlang C / (c mu - lambda) and the sojourn-time tail is
//! the mixture of the wait and the service exponentials.

use lbsim_core::scenario::WorkKind;
use lbsim_core::theory::MMc;
use lbsim_core::{AlgorithmId, Scenario};

use crate::common::{assert_close, replicate};

fn pool(load: f64) -> (Scenario, MMc) {
    let scenario = Scenario {
        servers: 1,
        slots: 8,
        work: WorkKind::Exponential,
        mean_ms: 58.0,
        load,
        requests: 60_000,
        ..Scenario::default()
    };
    let queue = MMc { c: 8, lambda: scenario.rate_per_s() / 1000.0, mu: 1.0 / 58.0 };
    (scenario, queue)
}

#[test]
fn mean_wait_matches_erlang_c() {
    for load in [0.5, 0.8] {
        let (scenario, queue) = pool(load);
        let measured = replicate(&scenario, AlgorithmId::Random, 12, |r| r.wait_ms.mean);
        // Allowance: starting empty biases the wait down by about the
        // relaxation time over the run length, well under 1% of it here.
        assert_close(
            &format!("mean wait at load {load}"),
            measured,
            queue.mean_wait(),
            4.0,
            0.01 * queue.mean_wait(),
        );
    }
}

#[test]
fn sojourn_p99_matches_the_mmc_distribution() {
    let (scenario, queue) = pool(0.8);
    let measured = replicate(&scenario, AlgorithmId::Random, 12, |r| r.latency_ms.all.p99);
    assert_close("sojourn p99", measured, queue.sojourn_quantile(0.99), 4.0, 0.0);
}

#[test]
fn simulated_cdf_follows_the_formula() {
    // Kolmogorov distance between the simulated and theoretical CDFs. With
    // n = 200,000 correlated samples the DKW bound for independent samples,
    // sqrt(ln(2/0.001) / 2n) = 0.0041, is inflated by the queue's
    // correlation; 0.015 is about four times that bound.
    let (mut scenario, queue) = pool(0.8);
    scenario.requests = 200_000;
    let report = lbsim_core::run(&scenario).expect("valid");
    let result = &report.results[0];
    let distance = result.cdf.all.iter().map(|[t, f]| (f - queue.sojourn_cdf(*t)).abs()).fold(0.0, f64::max);
    assert!(distance < 0.015, "Kolmogorov distance {distance}");
}
