//! Replications: the tolerance of every theory test comes from the run
//! itself. A behaviour is measured on R independent seeds; the standard
//! error of the mean of the R estimates sets the band (4 standard errors,
//! so a correct engine fails about once in 15,000 runs of a test).

use lbsim_core::report::AlgorithmResult;
use lbsim_core::scenario::WorkKind;
use lbsim_core::{AlgorithmId, Prepared, Scenario};

/// The default scenario with a link's `key=value` pairs set in order.
pub fn linked(link: &str) -> Scenario {
    let mut s = Scenario::default();
    for (key, value) in link.split('&').filter_map(|kv| kv.split_once('=')) {
        s.set(key, value).unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

/// A small scenario for property tests: 50 users and, when `uneven`,
/// speeds 0.25, 0.75, ... and weights 1, 2, 3, 1, ... over the servers.
#[allow(clippy::too_many_arguments)]
pub fn small_scenario(
    servers: u32,
    slots: u32,
    requests: u64,
    load: f64,
    work: WorkKind,
    balancers: u32,
    seed: u64,
    uneven: bool,
) -> Scenario {
    let n = servers as usize;
    Scenario {
        servers,
        slots,
        requests,
        load,
        work,
        balancers,
        seed: seed % lbsim_core::scenario::MAX_SEED,
        users: 50,
        speeds: if uneven { (0..n).map(|i| 0.25 + i as f64 * 0.5).collect() } else { vec![] },
        weights: if uneven { (0..n).map(|i| 1 + i as u32 % 3).collect() } else { vec![] },
        ..Scenario::default()
    }
}

/// Mean and standard error of `measure` over `seeds` replications.
pub fn replicate(
    scenario: &Scenario,
    algorithm: AlgorithmId,
    seeds: u64,
    measure: impl Fn(&AlgorithmResult) -> f64,
) -> (f64, f64) {
    let values: Vec<f64> = (0..seeds)
        .map(|seed| {
            let s = Scenario { seed: 1000 + seed, algorithms: vec![algorithm], ..scenario.clone() };
            let sim = Prepared::new(&s).expect("test scenarios are valid");
            measure(&sim.run_one(algorithm))
        })
        .collect();
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// Asserts `measured` is within `k` standard errors (plus a stated absolute
/// allowance for known bias such as the empty-start transient) of `expected`.
pub fn assert_close(what: &str, measured: (f64, f64), expected: f64, k: f64, allowance: f64) {
    let (mean, se) = measured;
    let band = k * se + allowance;
    // Printed so `cargo test -- --nocapture` shows how close each check is.
    eprintln!("{what}: simulated {mean:.4} +- {se:.4}, theory {expected:.4}, band {band:.4}");
    assert!(
        (mean - expected).abs() <= band,
        "{what}: simulated {mean:.4} +- {se:.4} (SE), theory {expected:.4}, band {band:.4}"
    );
}
