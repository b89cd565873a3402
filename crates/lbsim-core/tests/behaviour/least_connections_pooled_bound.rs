//! Least connections over N servers of c slots can do no better than one
//! pooled M/M/(N c) queue, and with exponential work it should do far
//! better than random routing (N independent M/M/c queues).

use lbsim_core::scenario::WorkKind;
use lbsim_core::theory::MMc;
use lbsim_core::{AlgorithmId, Scenario};

use crate::common::replicate;

#[test]
fn between_the_pooled_queue_and_random_routing() {
    let scenario = Scenario {
        servers: 4,
        slots: 8,
        work: WorkKind::Exponential,
        mean_ms: 58.0,
        load: 0.85,
        requests: 60_000,
        ..Scenario::default()
    };
    let lambda = scenario.rate_per_s() / 1000.0;
    let mu = 1.0 / 58.0;
    let pooled = MMc { c: 32, lambda, mu }.mean_sojourn();
    let random = MMc { c: 8, lambda: lambda / 4.0, mu }.mean_sojourn();
    let (mean, se) = replicate(&scenario, AlgorithmId::LeastConnections, 10, |r| r.latency_ms.all.mean);
    assert!(mean + 4.0 * se >= pooled, "least connections {mean} below the pooled bound {pooled}");
    assert!(mean < random, "least connections {mean} no better than random routing {random}");
    // Least connections comes close to pooling: most of the way from random to pooled.
    assert!((random - mean) / (random - pooled) > 0.7, "{pooled} <= {mean} < {random}");
}
