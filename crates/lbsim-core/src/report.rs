//! What a run reports, per algorithm (SPEC section 4), as serde types with
//! stable names, and the statistics behind them.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::balancer::AlgorithmId;
use crate::scenario::Scenario;

/// Points in a downsampled latency distribution.
pub const CDF_POINTS: usize = 200;
/// Buckets in a queue-length time series.
pub const QUEUE_BUCKETS: usize = 200;

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The normalized scenario.
    pub scenario: Scenario,
    /// What the drawn request stream actually was.
    pub realized: Realized,
    /// One entry per algorithm, in canonical order.
    pub results: Vec<AlgorithmResult>,
}

/// Realized figures of the request stream (the same for every algorithm).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Realized {
    /// Requests simulated.
    pub requests: u64,
    /// Total work / (capacity x time of the last arrival).
    pub load: f64,
    /// Share of slow requests.
    pub slow_share: f64,
    /// Requests per second over the arrival span.
    pub rate_per_s: f64,
    /// Share of the heaviest user.
    pub top_user_share: f64,
    /// Share of the ten heaviest users.
    pub top10_share: f64,
    /// The heaviest keys and their shares, heaviest first.
    pub heaviest_keys: Vec<KeyShare>,
}

/// A hashing key and its share of requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyShare {
    /// The key, `user-{id}`.
    pub key: String,
    /// Share of all requests.
    pub share: f64,
}

/// Nearest-rank percentiles and the mean, in ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

/// Latency percentiles for all requests and per class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Latencies {
    /// All requests.
    pub all: Percentiles,
    /// Quick requests (bimodal work only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub quick: Option<Percentiles>,
    /// Slow requests (bimodal work only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub slow: Option<Percentiles>,
}

/// Downsampled latency distributions: `[latency_ms, cumulative share]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Distributions {
    /// All requests.
    pub all: Vec<[f64; 2]>,
    /// Quick requests (bimodal work only).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub quick: Vec<[f64; 2]>,
    /// Slow requests (bimodal work only).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub slow: Vec<[f64; 2]>,
}

/// Time spent waiting for a slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Wait {
    /// Mean wait in ms.
    pub mean: f64,
    /// 99th percentile wait in ms.
    pub p99: f64,
}

/// One server under one algorithm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerResult {
    /// Server name.
    pub name: String,
    /// Requests it served.
    pub requests: u64,
    /// Its share of all requests.
    pub share: f64,
    /// Offered load: `sum(work / speed) / (slots x T)`, T the last arrival.
    pub load: f64,
    /// Longest queue (waiting, not running).
    pub peak_queue: u32,
    /// Time-averaged queue length over the run.
    pub mean_queue: f64,
    /// Longest queue in each time bucket.
    pub queue_series: Vec<u32>,
}

/// One algorithm's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmResult {
    /// Which algorithm.
    pub algorithm: AlgorithmId,
    /// Latency (wait + service) percentiles in ms.
    pub latency_ms: Latencies,
    /// Waiting time for a slot, in ms.
    pub wait_ms: Wait,
    /// Longest queue on any server.
    pub peak_queue: u32,
    /// Share of requests of the busiest server.
    pub busiest_share: f64,
    /// Busiest server's offered load / mean offered load.
    pub imbalance: f64,
    /// Time of the last completion in ms.
    pub makespan_ms: f64,
    /// Width of a queue-series bucket in ms.
    pub queue_bucket_ms: f64,
    /// Longest queue on any server in each time bucket.
    pub queue_series: Vec<u32>,
    /// Downsampled latency distributions.
    pub cdf: Distributions,
    /// Per server, in pool order.
    pub servers: Vec<ServerResult>,
}

/// The nearest-rank p-quantile of sorted values: `v[ceil(p * n) - 1]`.
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = libm::ceil(p * sorted.len() as f64) as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Percentiles {
    /// Percentiles of sorted values.
    pub fn of_sorted(sorted: &[f64]) -> Percentiles {
        if sorted.is_empty() {
            return Percentiles::default();
        }
        Percentiles {
            p50: nearest_rank(sorted, 0.5),
            p90: nearest_rank(sorted, 0.9),
            p99: nearest_rank(sorted, 0.99),
            p999: nearest_rank(sorted, 0.999),
            max: sorted[sorted.len() - 1],
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
        }
    }
}

/// A few hundred `[value, F(value)]` points of a sorted sample: evenly
/// spaced in probability, plus points that resolve the tail down to
/// `1 - F = 1/n` for the tail view.
pub fn downsample(sorted: &[f64]) -> Vec<[f64; 2]> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    let mut ranks: Vec<usize> = (1..=CDF_POINTS)
        .map(|k| (k * n).div_ceil(CDF_POINTS))
        .collect();
    // Tail ranks: 1 - F = 10^(-x) for x = 2, 2.25, ... down to one request.
    let mut x = 2.0;
    loop {
        let above = libm::pow(10.0, -x) * n as f64;
        if above < 1.0 {
            break;
        }
        ranks.push(n - libm::floor(above) as usize);
        x += 0.25;
    }
    ranks.push(1);
    ranks.sort_unstable();
    ranks.dedup();
    ranks
        .into_iter()
        .filter(|&r| r >= 1)
        .map(|r| [sorted[r - 1], r as f64 / n as f64])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_matches_the_definition() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 0.5), 5.0);
        assert_eq!(nearest_rank(&v, 0.9), 9.0);
        assert_eq!(nearest_rank(&v, 0.91), 10.0);
        assert_eq!(nearest_rank(&v, 0.0), 1.0);
        let p = Percentiles::of_sorted(&v);
        assert_eq!((p.max, p.mean), (10.0, 5.5));
    }

    #[test]
    fn downsampled_cdf_is_monotone_and_ends_at_one() {
        let v: Vec<f64> = (1..=100_000).map(f64::from).collect();
        let cdf = downsample(&v);
        assert!(cdf.len() > CDF_POINTS && cdf.len() < 2 * CDF_POINTS);
        assert!(cdf
            .windows(2)
            .all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
        assert_eq!(*cdf.last().unwrap(), [100_000.0, 1.0]);
        // The tail view reaches 1 - F = 1e-4 resolution.
        assert!(cdf.iter().any(|p| (1.0 - p[1] - 1e-5).abs() < 1e-9));
    }
}
