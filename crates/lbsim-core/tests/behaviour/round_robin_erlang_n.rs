//! Round robin over N single-slot servers with exponential work: each
//! server sees every N-th Poisson arrival, Erlang-N interarrivals, so it is
//! an E_N/M/1 queue with mean sojourn 1 / (mu (1 - sigma)), sigma solving
//! sigma = (lambda / (lambda + mu (1 - sigma)))^N.

use lbsim_core::scenario::WorkKind;
use lbsim_core::theory::round_robin_mean_sojourn;
use lbsim_core::{AlgorithmId, Scenario};

use crate::common::{assert_close, replicate};

#[test]
fn mean_sojourn_matches_the_erlang_n_queue() {
    for (servers, load) in [(4, 0.7), (8, 0.85)] {
        let scenario = Scenario {
            servers,
            slots: 1,
            work: WorkKind::Exponential,
            mean_ms: 10.0,
            load,
            requests: 80_000,
            ..Scenario::default()
        };
        let theory = round_robin_mean_sojourn(servers, scenario.rate_per_s() / 1000.0, 0.1);
        let measured = replicate(&scenario, AlgorithmId::RoundRobin, 12, |r| r.latency_ms.all.mean);
        assert_close(&format!("{servers} servers at {load}"), measured, theory, 4.0, 0.01 * theory);
        // And round robin beats random routing (N independent M/M/1 queues).
        let mm1 = 10.0 / (1.0 - load);
        assert!(theory < mm1);
    }
}
