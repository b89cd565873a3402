//! Two choices over many single-slot servers approaches Mitzenmacher's
//! mean-field limit: mean sojourn T = sum_i lambda^(2^i - 2) service times.

use lbsim_core::scenario::WorkKind;
use lbsim_core::theory::power_of_two_mean_sojourn;
use lbsim_core::{AlgorithmId, Scenario};

use crate::common::{assert_close, replicate};

#[test]
fn mean_sojourn_approaches_the_mean_field_limit() {
    let mean_ms = 10.0;
    for load in [0.7, 0.9] {
        let scenario = Scenario {
            servers: 200,
            slots: 1,
            work: WorkKind::Exponential,
            mean_ms,
            load,
            requests: 100_000,
            ..Scenario::default()
        };
        let theory = power_of_two_mean_sojourn(load) * mean_ms;
        let measured = replicate(&scenario, AlgorithmId::PowerOfTwo, 8, |r| r.latency_ms.all.mean);
        // Allowance 2%: the limit is for N -> infinity; at N = 200 the
        // finite-pool excess is O(1/N), and the run starts empty.
        assert_close(&format!("load {load}"), measured, theory, 4.0, 0.02 * theory);
    }
}
