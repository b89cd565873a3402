//! What a run reports, per algorithm (SPEC section 4), as serde types with
//! stable names, and the statistics behind them.

use alloc::format;
use alloc::string::{String, ToString};
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

impl Report {
    /// One report from parts that ran disjoint sets of algorithms over the
    /// same scenario (the page deals the rules out to its workers): common
    /// random numbers make it exactly the report of one run. The results
    /// come in canonical order and the scenario lists them all. `None` for
    /// no parts, or parts of different workloads.
    pub fn merge(parts: Vec<Report>) -> Option<Report> {
        let mut parts = parts.into_iter();
        let mut report = parts.next()?;
        for part in parts {
            if part.realized != report.realized {
                return None;
            }
            report.results.extend(part.results);
        }
        report.results = in_canonical_order(report.results);
        report.scenario.algorithms = report.results.iter().map(|r| r.algorithm).collect();
        Some(report)
    }

    /// The headline numbers as CSV: [`HEADLINE_HEADER`], then one
    /// [`Headline`] row per algorithm (the CLI's `--format csv` and the
    /// page's download).
    ///
    /// A run of the fleet over time adds `errors,retries,error_share`; one
    /// with caches adds `hit_rate`.
    pub fn csv(&self) -> String {
        let fleet = self.scenario.uses_fleet();
        let caches = self.has_caches();
        let mut out = String::from(HEADLINE_HEADER);
        if fleet {
            out.push_str(FLEET_HEADER);
        }
        if caches {
            out.push_str(CACHE_HEADER);
        }
        out.push('\n');
        for r in &self.results {
            let h = Headline::from(r);
            out += &h.csv();
            if fleet {
                out += &h.fleet_csv();
            }
            if caches {
                out += &h.cache_csv();
            }
            out.push('\n');
        }
        out
    }

    /// Whether any algorithm's run ended a request in an error (front ends
    /// add an errors column only then).
    pub fn has_errors(&self) -> bool {
        self.results.iter().any(|r| r.errors.unwrap_or(0) > 0)
    }

    /// The load every server would carry under `r` if it were spread in
    /// proportion to capacity (the loads plot's fair share): the realized
    /// load, or with caches the load of the work `r` actually did, hits
    /// doing less (so it differs from rule to rule).
    pub fn fair_load(&self, r: &AlgorithmResult) -> f64 {
        if r.hit_rate.is_none() {
            return self.realized.load;
        }
        let s = &self.scenario;
        let slots = f64::from(s.slots);
        let done: f64 = r.servers.iter().enumerate().map(|(i, x)| x.load * slots * s.speed(i)).sum();
        done / s.capacity()
    }

    /// Whether the servers kept caches (front ends add a hit rate column).
    pub fn has_caches(&self) -> bool {
        self.results.iter().any(|r| r.hit_rate.is_some())
    }

    /// Whether any algorithm retried a request.
    pub fn has_retries(&self) -> bool {
        self.results.iter().any(|r| r.retries.unwrap_or(0) > 0)
    }
}

/// Results in the canonical order of [`AlgorithmId::ALL`], by picking, not
/// sorting: eleven at most, and no sort code in the page's bundle.
pub fn in_canonical_order(mut results: Vec<AlgorithmResult>) -> Vec<AlgorithmResult> {
    let mut ordered = Vec::with_capacity(results.len());
    for a in AlgorithmId::ALL {
        while let Some(i) = results.iter().position(|r| r.algorithm == *a) {
            ordered.push(results.swap_remove(i));
        }
    }
    ordered
}

/// One algorithm's headline numbers: a CSV row, a sweep row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Headline {
    /// The algorithm's id.
    pub algorithm: &'static str,
    /// p99 of quick requests; bimodal work only.
    pub quick_p99_ms: Option<f64>,
    /// p99 of slow requests; bimodal work only.
    pub slow_p99_ms: Option<f64>,
    /// Median latency.
    pub p50_ms: f64,
    /// 90th percentile latency.
    pub p90_ms: f64,
    /// 99th percentile latency.
    pub p99_ms: f64,
    /// 99.9th percentile latency.
    pub p999_ms: f64,
    /// Largest latency.
    pub max_ms: f64,
    /// Mean latency.
    pub mean_ms: f64,
    /// Mean wait for a slot.
    pub wait_mean_ms: f64,
    /// 99th percentile wait for a slot.
    pub wait_p99_ms: f64,
    /// Longest queue on any server.
    pub peak_queue: u32,
    /// Share of the busiest server.
    pub busiest_share: f64,
    /// Busiest load / mean load.
    pub imbalance: f64,
    /// Requests that ended in an error (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<u64>,
    /// Retry attempts (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// Errors / requests (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_share: Option<f64>,
    /// Share of requests served from a cache (caches on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_rate: Option<f64>,
}

impl From<&AlgorithmResult> for Headline {
    fn from(r: &AlgorithmResult) -> Self {
        let all = r.latency_ms.all;
        Headline {
            algorithm: r.algorithm.id(),
            quick_p99_ms: r.latency_ms.quick.map(|q| q.p99),
            slow_p99_ms: r.latency_ms.slow.map(|s| s.p99),
            p50_ms: all.p50,
            p90_ms: all.p90,
            p99_ms: all.p99,
            p999_ms: all.p999,
            max_ms: all.max,
            mean_ms: all.mean,
            wait_mean_ms: r.wait_ms.mean,
            wait_p99_ms: r.wait_ms.p99,
            peak_queue: r.peak_queue,
            busiest_share: r.busiest_share,
            imbalance: r.imbalance,
            errors: r.errors,
            retries: r.retries,
            error_share: r.error_share,
            hit_rate: r.hit_rate,
        }
    }
}

/// What the fleet over time adds to the CSV header ([`Headline::fleet_csv`]).
pub const FLEET_HEADER: &str = ",errors,retries,error_share";

/// What caches add to the CSV header ([`Headline::cache_csv`]).
pub const CACHE_HEADER: &str = ",hit_rate";

/// The CSV header of [`Headline`] rows.
pub const HEADLINE_HEADER: &str = "algorithm,quick_p99_ms,slow_p99_ms,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,\
mean_ms,wait_mean_ms,wait_p99_ms,peak_queue,busiest_share,imbalance";

impl Headline {
    /// The fleet's CSV fields after [`Headline::csv`]'s, with a leading
    /// comma; zeros for a run without the fleet.
    pub fn fleet_csv(&self) -> String {
        format!(
            ",{},{},{}",
            self.errors.unwrap_or(0),
            self.retries.unwrap_or(0),
            self.error_share.unwrap_or(0.0)
        )
    }

    /// The caches' CSV field after the others, with a leading comma; an
    /// empty field for a run without caches.
    pub fn cache_csv(&self) -> String {
        format!(",{}", self.hit_rate.map(|h| h.to_string()).unwrap_or_default())
    }

    /// The CSV fields, in header order; a missing class is an empty field.
    pub fn csv(&self) -> String {
        let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.algorithm,
            opt(self.quick_p99_ms),
            opt(self.slow_p99_ms),
            self.p50_ms,
            self.p90_ms,
            self.p99_ms,
            self.p999_ms,
            self.max_ms,
            self.mean_ms,
            self.wait_mean_ms,
            self.wait_p99_ms,
            self.peak_queue,
            self.busiest_share,
            self.imbalance
        )
    }
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
    /// Successful responses only; present when a run has errors.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ok: Option<Percentiles>,
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
    /// Attempts on it that ended in an error (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub errors: Option<u64>,
    /// Time it was unavailable to the balancer, mean over copies, in ms
    /// (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ejected_ms: Option<f64>,
    /// Requests sent to it in each time bucket (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub requests_series: Option<Vec<u32>>,
    /// Share of this server's lookups its cache answered (caches on).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hit_rate: Option<f64>,
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
    /// Requests whose final answer was an error (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub errors: Option<u64>,
    /// Retry attempts (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retries: Option<u64>,
    /// Errors / requests (fleet runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_share: Option<f64>,
    /// Errors in each time bucket, the buckets of `queue_series` (fleet
    /// runs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_series: Option<Vec<u32>>,
    /// Share of the requests served from a server's cache (caches on;
    /// over requests that did work: a 500 or a refusal asks no cache).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hit_rate: Option<f64>,
    /// The hit rate of the requests dispatched in each time bucket (of
    /// `queue_bucket_ms`); `None` for a bucket without any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hit_series: Option<Vec<Option<f64>>>,
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

/// Percentiles and a downsampled CDF of one sample.
pub type Summary = (Percentiles, Vec<[f64; 2]>);

/// Per-bin statistics of a sample on a shared binning.
struct Histogram {
    /// Values in bins `0..=i`.
    cumulative: Vec<u64>,
    /// Largest and smallest value bits in each bin.
    top: Vec<u64>,
    bottom: Vec<u64>,
    n: usize,
    sum: f64,
    hi: u64,
}

const NONE: u32 = u32::MAX;

impl Histogram {
    fn bin_of_rank(&self, r: usize) -> usize {
        self.cumulative.partition_point(|&c| (c as usize) < r)
    }

    fn before(&self, bin: usize) -> usize {
        if bin == 0 {
            0
        } else {
            self.cumulative[bin - 1] as usize
        }
    }

    /// Whether CDF rank `r` is drawn at its exact value: past p99, or in a
    /// bin that reaches past it (so the bin-top points of the body never
    /// overtake the exact tail points).
    fn in_tail(&self, r: usize) -> bool {
        let tail_start = rank(0.99, self.n);
        r > tail_start || self.cumulative[self.bin_of_rank(r)] as usize > tail_start
    }

    /// Bins that need their values gathered: those holding a wanted rank
    /// (a percentile or a tail point) and more than one distinct value.
    /// Returns the slot of each bin (`NONE` if not gathered) and the count.
    fn slots(&self) -> (Vec<u32>, usize) {
        let mut slots = alloc::vec![NONE; self.top.len()];
        let mut count = 0;
        if self.n == 0 {
            return (slots, 0);
        }
        let percentiles = [0.5, 0.9, 0.99, 0.999].map(|p| rank(p, self.n));
        let tail = cdf_ranks(self.n).into_iter().filter(|&r| self.in_tail(r));
        for r in percentiles.into_iter().chain(tail) {
            let bin = self.bin_of_rank(r);
            if self.top[bin] != self.bottom[bin] && slots[bin] == NONE {
                slots[bin] = count as u32;
                count += 1;
            }
        }
        (slots, count)
    }

    /// The summary, given the sorted values of the gathered bins.
    fn summary(&self, slots: &[u32], gathered: &[Gathered]) -> Summary {
        let n = self.n;
        if n == 0 {
            return (Percentiles::default(), Vec::new());
        }
        let value_at = |r: usize| -> f64 {
            let bin = self.bin_of_rank(r);
            match slots[bin] {
                NONE => f64::from_bits(self.top[bin]),
                slot => f64::from_bits(gathered[slot as usize].at(r - self.before(bin) - 1)),
            }
        };
        let percentiles = Percentiles {
            p50: value_at(rank(0.5, n)),
            p90: value_at(rank(0.9, n)),
            p99: value_at(rank(0.99, n)),
            p999: value_at(rank(0.999, n)),
            max: f64::from_bits(self.hi),
            mean: self.sum / n as f64,
        };
        let mut cdf: Vec<[f64; 2]> = Vec::new();
        let mut last_bin = usize::MAX;
        for r in cdf_ranks(n) {
            if self.in_tail(r) {
                cdf.push([value_at(r), r as f64 / n as f64]);
                continue;
            }
            let bin = self.bin_of_rank(r);
            if bin != last_bin {
                cdf.push([f64::from_bits(self.top[bin]), self.cumulative[bin] as f64 / n as f64]);
                last_bin = bin;
            }
        }
        (percentiles, cdf)
    }
}

/// Nearest-rank percentiles of `bits`, non-negative floats' bits
/// (latencies): the same numbers as [`summarize`]'s for one class, without
/// its CDF, in two passes ([`ranked`]).
pub fn percentiles(bits: &[u64]) -> Percentiles {
    let n = bits.len();
    if n == 0 {
        return Percentiles::default();
    }
    let mean = bits.iter().map(|&b| f64::from_bits(b)).sum::<f64>() / n as f64;
    let wanted = [0.5, 0.9, 0.99, 0.999, 1.0].map(|p| rank(p, n) - 1);
    let found = ranked(bits, &wanted);
    let f = |i: usize| f64::from_bits(found[i]);
    Percentiles { p50: f(0), p90: f(1), p99: f(2), p999: f(3), max: f(4), mean }
}

/// The values of `bits` (non-negative floats' bits) at 0-based ranks
/// `wanted` (each below `bits.len()`), as `select_nth_unstable` finds
/// them, on the summaries' binning instead: one pass counts the values per
/// bin, a second gathers the bins the ranks fall in, and only those are
/// sorted. Selection's own code was 1.8 KiB of the page; this reuses the
/// summaries' sort.
pub fn ranked(bits: &[u64], wanted: &[usize]) -> Vec<u64> {
    let (lo, hi) = bits.iter().fold((u64::MAX, 0), |(lo, hi), &b| (lo.min(b), hi.max(b)));
    if lo > hi {
        return Vec::new();
    }
    let base = lo >> BIN_SHIFT;
    let bin_of = |b: u64| ((b >> BIN_SHIFT) - base) as usize;
    let mut cumulative = alloc::vec![0u32; bin_of(hi) + 1];
    for &b in bits {
        cumulative[bin_of(b)] += 1;
    }
    let mut below = 0;
    for c in cumulative.iter_mut() {
        below += *c;
        *c = below;
    }
    let bin_of_rank = |r: usize| cumulative.partition_point(|&c| c as usize <= r);
    let rank_bins: Vec<usize> = wanted.iter().map(|&r| bin_of_rank(r)).collect();
    let mut bins = rank_bins.clone();
    bins.dedup();
    let mut gathered: Vec<Vec<u64>> = bins.iter().map(|_| Vec::new()).collect();
    // Most values lie outside the span of the wanted bins: one compare
    // passes them by.
    let first = bins.iter().copied().min().unwrap_or(0);
    let span = bins.iter().copied().max().unwrap_or(0) - first;
    for &b in bits {
        let bin = bin_of(b);
        if bin.wrapping_sub(first) > span {
            continue;
        }
        if let Some(slot) = bins.iter().position(|&wanted| wanted == bin) {
            gathered[slot].push(b);
        }
    }
    for values in &mut gathered {
        values.sort_unstable();
    }
    wanted
        .iter()
        .zip(rank_bins)
        .map(|(&r, bin)| {
            let slot = bins.iter().position(|&b| b == bin).unwrap_or(0);
            let before = if bin == 0 { 0 } else { cumulative[bin - 1] as usize };
            gathered[slot][r - before]
        })
        .collect()
}

/// Nearest-rank percentiles and a downsampled CDF of each class and of all
/// classes together, without sorting them: one pass bins the values by
/// their float bits (on one binning shared by the classes, so the union's
/// histogram is the sum), the cumulative counts locate each wanted rank's
/// bin, and sorting just that bin's values gives the exact value (no
/// sorting at all when the bin holds one repeated value, as the unqueued
/// requests' latencies do). Three passes over the values in all, where
/// sorting everything would be most of a run's cost.
///
/// The body of each CDF is exact points of the empirical distribution (the
/// largest value of a bin and the share up to it); the tail past p99 is at
/// exact ranks, for the tail view.
pub fn summarize(classes: &[&[f64]]) -> (Summary, Vec<Summary>) {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for class in classes {
        for v in class.iter() {
            lo = lo.min(v.to_bits());
            hi = hi.max(v.to_bits());
        }
    }
    let base = lo >> BIN_SHIFT;
    let bins = if lo > hi { 1 } else { ((hi >> BIN_SHIFT) - base + 1) as usize };
    let bin_index = |b: u64| ((b >> BIN_SHIFT) - base) as usize;

    let histograms: Vec<Histogram> = classes
        .iter()
        .map(|class| {
            // One record per bin, so each value costs one bounds check.
            let mut stats = alloc::vec![Bin { count: 0, top: 0, bottom: u64::MAX }; bins];
            let mut sum = 0.0;
            for v in class.iter() {
                let b = v.to_bits();
                let bin = &mut stats[bin_index(b)];
                bin.count += 1;
                bin.top = bin.top.max(b);
                bin.bottom = bin.bottom.min(b);
                sum += v;
            }
            let mut below = 0;
            let cumulative = stats
                .iter()
                .map(|bin| {
                    below += bin.count;
                    below
                })
                .collect();
            Histogram {
                cumulative,
                top: stats.iter().map(|bin| bin.top).collect(),
                bottom: stats.iter().map(|bin| bin.bottom).collect(),
                n: class.len(),
                sum,
                hi: stats.iter().map(|bin| bin.top).max().unwrap_or(0),
            }
        })
        .collect();
    let mut all = Histogram {
        cumulative: alloc::vec![0; bins],
        top: alloc::vec![0; bins],
        bottom: alloc::vec![u64::MAX; bins],
        n: histograms.iter().map(|h| h.n).sum(),
        sum: histograms.iter().map(|h| h.sum).sum(),
        hi: histograms.iter().map(|h| h.hi).max().unwrap_or(0),
    };
    for h in &histograms {
        for i in 0..bins {
            all.cumulative[i] += h.cumulative[i];
            all.top[i] = all.top[i].max(h.top[i]);
            all.bottom[i] = all.bottom[i].min(h.bottom[i]);
        }
    }

    // Each class gathers, in one pass and once per value, the bins that it
    // or the union needs; the union's bins then take the classes' values.
    // A class reading a bin it did not need is harmless: such
    // a bin holds one repeated value, the bin's top, which is what the
    // class would have read without it.
    let (all_slots, all_count) = all.slots();
    let mut summaries = Vec::with_capacity(classes.len());
    let mut all_gathered: Vec<Gathered> = Vec::with_capacity(all_count);
    for (i, &slot) in all_slots.iter().enumerate() {
        if slot != NONE {
            all_gathered.push(Gathered { bottom: all.bottom[i], repeats: 0, above: Vec::new() });
        }
    }
    for (class, h) in classes.iter().zip(&histograms) {
        let (mut slots, _) = h.slots();
        let mut gathered: Vec<Gathered> = Vec::new();
        for (i, slot) in slots.iter_mut().enumerate() {
            let in_bin = h.cumulative[i] as usize - h.before(i);
            if in_bin > 0 && (*slot != NONE || all_slots[i] != NONE) {
                *slot = gathered.len() as u32;
                gathered.push(Gathered { bottom: h.bottom[i], repeats: 0, above: Vec::new() });
            } else {
                *slot = NONE;
            }
        }
        if !gathered.is_empty() {
            for v in class.iter() {
                let (b, i) = (v.to_bits(), bin_index(v.to_bits()));
                if slots[i] != NONE {
                    gathered[slots[i] as usize].add(b);
                }
            }
        }
        for bin in gathered.iter_mut() {
            bin.above.sort_unstable();
        }
        for (i, &all_slot) in all_slots.iter().enumerate() {
            if all_slot != NONE && slots[i] != NONE {
                all_gathered[all_slot as usize].absorb(&gathered[slots[i] as usize]);
            }
        }
        summaries.push(h.summary(&slots, &gathered));
    }
    for bin in all_gathered.iter_mut() {
        bin.above.sort_unstable();
    }
    (all.summary(&all_slots, &all_gathered), summaries)
}

/// The values of one gathered bin, in order: its smallest value counted
/// (a bin that holds a wanted rank often holds thousands of copies of it,
/// as the unqueued requests' one latency), the rest kept and sorted.
struct Gathered {
    bottom: u64,
    repeats: usize,
    above: Vec<u64>,
}

impl Gathered {
    #[inline]
    fn add(&mut self, b: u64) {
        if b == self.bottom {
            self.repeats += 1;
        } else {
            self.above.push(b);
        }
    }

    /// The value of 0-based rank `j` within the bin.
    fn at(&self, j: usize) -> u64 {
        if j < self.repeats {
            self.bottom
        } else {
            self.above[j - self.repeats]
        }
    }

    /// Takes in a class's values of the same bin (whose smallest value is
    /// at least this bin's); sorted afterwards (a merge of the sorted
    /// classes would be faster, but its code costs the page more than the
    /// few values above the repeats take to sort).
    fn absorb(&mut self, class: &Gathered) {
        if class.bottom == self.bottom {
            self.repeats += class.repeats;
        } else {
            self.above.extend(core::iter::repeat_n(class.bottom, class.repeats));
        }
        self.above.extend_from_slice(&class.above);
    }
}

/// One bin's count and extremes while binning.
#[derive(Clone, Copy)]
struct Bin {
    count: u64,
    top: u64,
    bottom: u64,
}

/// Ranks to plot: evenly spaced in probability, plus ranks that resolve
/// the tail (`1 - F = 10^-2, 10^-2.25, ...` down to one value) for the tail
/// view; ascending.
fn cdf_ranks(n: usize) -> Vec<usize> {
    let even = (0..=CDF_POINTS).map(|k| (k * n).div_ceil(CDF_POINTS).max(1));
    let mut tail = Vec::new();
    let mut x = 2.0;
    loop {
        let above = libm::pow(10.0, -x) * n as f64;
        if above < 1.0 {
            break;
        }
        tail.push(n - libm::floor(above) as usize);
        x += 0.25;
    }
    // Both lists ascend, so a merge orders them (a sort's code would cost
    // the page's bundle kilobytes).
    let mut ranks = Vec::with_capacity(CDF_POINTS + 1 + tail.len());
    let (mut even, mut tail) = (even.peekable(), tail.into_iter().peekable());
    while let Some(next) = match (even.peek(), tail.peek()) {
        (Some(a), Some(b)) if b < a => tail.next(),
        (Some(_), _) => even.next(),
        (None, _) => tail.next(),
    } {
        ranks.push(next);
    }
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
        let ((p, _), _) = summarize(&[&v]);
        assert_eq!((p.p50, p.p90, p.p99, p.max, p.mean), (5.0, 9.0, 10.0, 10.0, 5.5));
        assert_eq!(rank(0.91, 10), 10);
        assert_eq!(rank(0.0, 10), 1);
    }

    proptest! {
        /// `ranked` finds what sorting finds, for any values (repeats, far
        /// apart exponents, the same bin for several ranks) at any ranks.
        #[test]
        fn ranked_values_are_the_sorted_values_at_their_ranks(
            values in proptest::collection::vec(
                prop_oneof![any::<u64>(), 0u64..4, (1u64 << 62)..(1u64 << 62) + 3, 0x4040_0000_0000_0000u64..0x4040_0000_0100_0000],
                1..400,
            ),
            picks in proptest::collection::vec(any::<prop::sample::Index>(), 1..6),
        ) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let wanted: Vec<usize> = picks.iter().map(|i| i.index(values.len())).collect();
            let want: Vec<u64> = wanted.iter().map(|&r| sorted[r]).collect();
            prop_assert_eq!(ranked(&values, &wanted), want);
        }
    }

    proptest! {
        /// Binning and selecting gives exactly the sorted nearest ranks, and
        /// every CDF point lies on the empirical distribution.
        #[test]
        fn summary_equals_sorting(
            quick in proptest::collection::vec(0.001f64..1e6, 0..300),
            slow in proptest::collection::vec(prop_oneof![Just(400.0), 0.001f64..2000.0], 1..300),
        ) {
            let (union, classes) = summarize(&[&quick, &slow]);
            let mut all = quick.clone();
            all.extend_from_slice(&slow);
            for (values, (p, cdf)) in [(&all, &union), (&quick, &classes[0]), (&slow, &classes[1])] {
                if values.is_empty() {
                    prop_assert!(cdf.is_empty());
                    continue;
                }
                let want = by_sorting(values);
                prop_assert_eq!((p.p50, p.p90, p.p99, p.p999, p.max), (want.p50, want.p90, want.p99, want.p999, want.max));
                prop_assert!((p.mean - want.mean).abs() <= 1e-9 * want.mean.abs());
                // Each point is on the empirical CDF's step at its value.
                let n = values.len() as f64;
                for [v, f] in cdf {
                    let below = values.iter().filter(|&&x| x < *v).count() as f64 / n;
                    let at_or_below = values.iter().filter(|&&x| x <= *v).count() as f64 / n;
                    prop_assert!(below < *f && *f <= at_or_below, "{} at {}", f, v);
                }
                prop_assert!(cdf.windows(2).all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
                prop_assert_eq!(cdf.last().map(|p| p[1]), Some(1.0));
            }
        }

        /// The same with many repeats inside a few bins, where the classes'
        /// smallest values in a shared bin differ (20.0 to 20.07 is one bin
        /// 0.4% wide): the counted repeats and the union's merge.
        #[test]
        fn summary_equals_sorting_with_repeats(
            quick in proptest::collection::vec(prop_oneof![Just(20.0), Just(20.03), 20.0f64..20.07, Just(41.0)], 0..400),
            slow in proptest::collection::vec(prop_oneof![Just(20.01), Just(20.03), 20.0f64..20.07, Just(400.0)], 1..400),
        ) {
            let (union, classes) = summarize(&[&quick, &slow]);
            let mut all = quick.clone();
            all.extend_from_slice(&slow);
            for (values, (p, _)) in [(&all, &union), (&quick, &classes[0]), (&slow, &classes[1])] {
                if values.is_empty() {
                    continue;
                }
                let want = by_sorting(values);
                prop_assert_eq!((p.p50, p.p90, p.p99, p.p999, p.max), (want.p50, want.p90, want.p99, want.p999, want.max));
            }
        }
    }

    #[test]
    fn downsampled_cdf_has_a_few_hundred_points_and_resolves_the_tail() {
        let v: Vec<f64> = (1..=100_000).map(f64::from).collect();
        let ((_, cdf), _) = summarize(&[&v]);
        assert!(cdf.len() > 100 && cdf.len() < 2 * CDF_POINTS, "{}", cdf.len());
        assert_eq!(*cdf.last().unwrap(), [100_000.0, 1.0]);
        // The tail view reaches 1 - F = 1e-5, one value in 100,000.
        assert!(cdf.contains(&[99_999.0, 0.99999]));
    }
}

#[cfg(test)]
mod percentile_tests {
    use super::*;

    #[test]
    fn selection_gives_summarize_s_percentiles() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [1usize, 2, 7, 1000, 12_345] {
            let mut values: Vec<f64> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 40) as f64 / 1e3
                })
                .collect();
            let summarized = summarize(&[&values]).0 .0;
            let bits: Vec<u64> = values.drain(..).map(f64::to_bits).collect();
            assert_eq!(percentiles(&bits), summarized, "{n} values");
        }
    }
}
