//! Little's law, L = lambda W, on the waiting line: the time-averaged queue
//! length the engine integrates event by event equals the arrival rate
//! times the mean wait it records request by request, for every rule.

use lbsim_core::{run, Scenario};

#[test]
fn time_averaged_queue_equals_rate_times_wait() {
    let scenario = Scenario { requests: 30_000, load: 0.9, ..Scenario::default() };
    let report = run(&scenario).expect("valid");
    for result in &report.results {
        // Over [0, makespan] the system starts and ends empty, so the law is
        // exact up to rounding.
        let queue_area: f64 = result.servers.iter().map(|s| s.mean_queue * result.makespan_ms).sum();
        let waiting: f64 = result.wait_ms.mean * report.realized.requests as f64;
        let scale = waiting.max(1.0);
        assert!(
            (queue_area - waiting).abs() <= 1e-9 * scale,
            "{}: queue area {queue_area} vs total wait {waiting}",
            result.algorithm.id()
        );
    }
}
