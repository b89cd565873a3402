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

/// The 1-based nearest rank of the p-quantile of n values: `ceil(p * n)`,
/// at least 1.
pub fn rank(p: f64, n: usize) -> usize {
    (libm::ceil(p * n as f64) as usize).clamp(1, n.max(1))
}

/// Bits of a non-negative float kept as its bin: sign, exponent and the top
/// 8 mantissa bits, so bins are 1/256 of an octave (0.4%) wide and ordered
/// like the values.
const BIN_SHIFT: u32 = 44;

/// Nearest-rank percentiles and a downsampled CDF of a sample given in
/// parts (the classes), without sorting it: one pass bins the values by
/// their float bits, the cumulative counts locate each wanted rank's bin,
/// and sorting just that bin's values gives the exact value (no sorting at
/// all when the bin holds one repeated value, as the unqueued requests'
/// latencies do). Close to O(n), where sorting everything would be most of
/// a run's cost.
///
/// The body of the CDF is exact points of the empirical distribution (the
/// largest value of a bin and the share up to it); the tail past p99 is at
/// exact ranks, for the tail view.
pub fn summarize(parts: &[&[f64]]) -> (Percentiles, Vec<[f64; 2]>) {
    const NONE: u32 = u32::MAX;
    let n: usize = parts.iter().map(|p| p.len()).sum();
    if n == 0 {
        return (Percentiles::default(), Vec::new());
    }
    let (mut lo, mut hi, mut sum) = (u64::MAX, 0u64, 0.0);
    for part in parts {
        for &v in *part {
            lo = lo.min(v.to_bits());
            hi = hi.max(v.to_bits());
            sum += v;
        }
    }
    let base = lo >> BIN_SHIFT;
    let bins = ((hi >> BIN_SHIFT) - base + 1) as usize;
    let bin_index = |b: u64| ((b >> BIN_SHIFT) - base) as usize;
    let mut cumulative = alloc::vec![0u64; bins];
    let mut top = alloc::vec![0u64; bins];
    let mut bottom = alloc::vec![u64::MAX; bins];
    for part in parts {
        for v in part.iter() {
            let (b, i) = (v.to_bits(), bin_index(v.to_bits()));
            cumulative[i] += 1;
            top[i] = top[i].max(b);
            bottom[i] = bottom[i].min(b);
        }
    }
    for i in 1..bins {
        cumulative[i] += cumulative[i - 1];
    }
    let bin_of_rank = |r: usize| cumulative.partition_point(|&c| (c as usize) < r);
    let before = |bin: usize| if bin == 0 { 0 } else { cumulative[bin - 1] as usize };

    // Ranks whose exact values are wanted: the percentiles, and the CDF
    // ranks in the tail (past p99, or in a bin that reaches past it, so the
    // bin-top points of the body never overtake the exact tail points).
    let tail_start = rank(0.99, n);
    let in_tail = |r: usize| r > tail_start || cumulative[bin_of_rank(r)] as usize > tail_start;
    let ranks = cdf_ranks(n);
    let mut wanted: Vec<usize> = [0.5, 0.9, 0.99, 0.999].map(|p| rank(p, n)).to_vec();
    wanted.extend(ranks.iter().copied().filter(|&r| in_tail(r)));
    // Gather the values of the wanted bins that hold more than one value.
    let mut slot_of_bin = alloc::vec![NONE; bins];
    let mut gathered: Vec<Vec<u64>> = Vec::new();
    for &r in &wanted {
        let bin = bin_of_rank(r);
        if top[bin] != bottom[bin] && slot_of_bin[bin] == NONE {
            slot_of_bin[bin] = gathered.len() as u32;
            gathered.push(Vec::new());
        }
    }
    if !gathered.is_empty() {
        for part in parts {
            for v in part.iter() {
                let slot = slot_of_bin[bin_index(v.to_bits())];
                if slot != NONE {
                    gathered[slot as usize].push(v.to_bits());
                }
            }
        }
        // A bin the tail ranks share is sorted once rather than selected
        // in again and again.
        for bin in gathered.iter_mut() {
            bin.sort_unstable();
        }
    }
    let value_at = |r: usize| -> f64 {
        let bin = bin_of_rank(r);
        match slot_of_bin[bin] {
            NONE => f64::from_bits(top[bin]),
            slot => f64::from_bits(gathered[slot as usize][r - before(bin) - 1]),
        }
    };
    let percentiles = Percentiles {
        p50: value_at(rank(0.5, n)),
        p90: value_at(rank(0.9, n)),
        p99: value_at(rank(0.99, n)),
        p999: value_at(rank(0.999, n)),
        max: f64::from_bits(hi),
        mean: sum / n as f64,
    };

    let mut cdf: Vec<[f64; 2]> = Vec::new();
    let mut last_bin = usize::MAX;
    for r in ranks {
        if in_tail(r) {
            cdf.push([value_at(r), r as f64 / n as f64]);
            continue;
        }
        let bin = bin_of_rank(r);
        if bin != last_bin {
            cdf.push([f64::from_bits(top[bin]), cumulative[bin] as f64 / n as f64]);
            last_bin = bin;
        }
    }
    (percentiles, cdf)
}

/// Ranks to plot: evenly spaced in probability, plus ranks that resolve
/// the tail (`1 - F = 10^-2, 10^-2.25, ...` down to one value) for the tail
/// view; ascending.
fn cdf_ranks(n: usize) -> Vec<usize> {
    let mut ranks: Vec<usize> = (0..=CDF_POINTS).map(|k| (k * n).div_ceil(CDF_POINTS).max(1)).collect();
    let mut x = 2.0;
    loop {
        let above = libm::pow(10.0, -x) * n as f64;
        if above < 1.0 {
            break;
        }
        ranks.push(n - libm::floor(above) as usize);
        x += 0.25;
    }
    ranks.sort_unstable();
    ranks.dedup();
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: `v[ceil(p * n) - 1]` of the sorted values.
    fn by_sorting(values: &[f64]) -> Percentiles {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let at = |p: f64| v[rank(p, v.len()) - 1];
        Percentiles {
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            p999: at(0.999),
            max: v[v.len() - 1],
            mean: values.iter().sum::<f64>() / v.len() as f64,
        }
    }

    #[test]
    fn nearest_rank_matches_the_definition() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let (p, _) = summarize(&[&v]);
        assert_eq!((p.p50, p.p90, p.p99, p.max, p.mean), (5.0, 9.0, 10.0, 10.0, 5.5));
        assert_eq!(rank(0.91, 10), 10);
        assert_eq!(rank(0.0, 10), 1);
    }

    proptest! {
        /// Binning and selecting gives exactly the sorted nearest ranks, and
        /// every CDF point lies on the empirical distribution.
        #[test]
        fn summary_equals_sorting(
            quick in proptest::collection::vec(0.001f64..1e6, 0..300),
            slow in proptest::collection::vec(prop_oneof![Just(400.0), 0.001f64..2000.0], 1..300),
        ) {
            let (p, cdf) = summarize(&[&quick, &slow]);
            let mut all = quick.clone();
            all.extend_from_slice(&slow);
            let want = by_sorting(&all);
            prop_assert_eq!((p.p50, p.p90, p.p99, p.p999, p.max), (want.p50, want.p90, want.p99, want.p999, want.max));
            prop_assert!((p.mean - want.mean).abs() <= 1e-9 * want.mean.abs());
            // Each point is on the empirical CDF's step at its value.
            let n = all.len() as f64;
            for [v, f] in &cdf {
                let below = all.iter().filter(|&&x| x < *v).count() as f64 / n;
                let at_or_below = all.iter().filter(|&&x| x <= *v).count() as f64 / n;
                prop_assert!(below < *f && *f <= at_or_below, "{} at {}", f, v);
            }
            prop_assert!(cdf.windows(2).all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
            prop_assert_eq!(cdf.last().map(|p| p[1]), Some(1.0));
        }
    }

    #[test]
    fn downsampled_cdf_has_a_few_hundred_points_and_resolves_the_tail() {
        let v: Vec<f64> = (1..=100_000).map(f64::from).collect();
        let (_, cdf) = summarize(&[&v]);
        assert!(cdf.len() > 100 && cdf.len() < 2 * CDF_POINTS, "{}", cdf.len());
        assert_eq!(*cdf.last().unwrap(), [100_000.0, 1.0]);
        // The tail view reaches 1 - F = 1e-5, one value in 100,000.
        assert!(cdf.contains(&[99_999.0, 0.99999]));
    }
}
