//! What a run reports, per algorithm (docs/cli.md#formats), as serde types with
//! stable names, and the statistics behind them.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::balancer::AlgorithmId;
use crate::scenario::Scenario;

pub mod columns;
pub mod json;
mod placement;
mod summary;

pub use self::summary::{percentiles, rank, ranked, summarize, Percentiles, Summary, CDF_POINTS};

/// Most buckets in a series over time.
pub const QUEUE_BUCKETS: usize = 200;

/// A figure that may not apply to a run, and where it applies may have
/// nothing to measure: `None` leaves the member out of the JSON (no errors,
/// so no figure for successes alone; no caches), `Some(None)` writes
/// `null` (every request failed; no cache lookup at all), `Some(Some(v))`
/// the value. Never a 0 over nothing.
pub type Empty<T> = Option<Option<T>>;

/// Serde for [`Empty`]: the outer option is the member's presence.
mod empty {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &super::Empty<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<super::Empty<T>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

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
    /// When the run is over for every rule: the latest last completion
    /// (answer or error) of any of them, in ms. A fleet event after it
    /// changes nothing in the run; one between the last arrival and it may
    /// still fail requests in flight (a crash), so the last arrival is not
    /// the end.
    pub fn end_ms(&self) -> f64 {
        self.results.iter().map(|r| r.makespan_ms).fold(0.0, f64::max)
    }

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

    /// Whether the requests carried quick and slow classes (bimodal work,
    /// or a log with a class column): the front ends show the classes'
    /// latencies and the slow share only then.
    pub fn classed(&self) -> bool {
        self.results.iter().any(|r| r.latency_ms.quick.is_some())
    }

    /// Whether the servers kept caches (front ends add a hit rate column).
    pub fn has_caches(&self) -> bool {
        self.results.iter().any(|r| r.hit_rate.is_some())
    }

    /// Whether a rule kept its copies to parts of the servers (front ends
    /// add a connections column).
    pub fn has_connections(&self) -> bool {
        self.results.iter().any(|r| r.connections.is_some())
    }

    /// Whether any algorithm retried a request.
    pub fn has_retries(&self) -> bool {
        self.results.iter().any(|r| r.retries.unwrap_or(0) > 0)
    }
}

/// Results in the canonical order of [`AlgorithmId::ALL`], by picking, not
/// sorting: a row a rule, and no sort code in the page's bundle.
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
    /// Share of requests served from a cache (caches on; `null` without
    /// a lookup).
    #[serde(skip_serializing_if = "Option::is_none", with = "empty")]
    pub hit_rate: Empty<f64>,
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
        format!(",{}", self.hit_rate.flatten().map(|h| h.to_string()).unwrap_or_default())
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

impl Realized {
    /// Time of the last arrival in ms (the span the rate is taken over);
    /// 0 for a run without one.
    pub fn last_arrival_ms(&self) -> f64 {
        if self.rate_per_s > 0.0 {
            self.requests as f64 / self.rate_per_s * 1000.0
        } else {
            0.0
        }
    }
}

/// A hashing key and its share of requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyShare {
    /// The key, `user-{id}`.
    pub key: String,
    /// Share of all requests.
    pub share: f64,
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
    /// Successful responses only; present when a run has errors, `null`
    /// when none succeeded.
    #[serde(skip_serializing_if = "Option::is_none", default, with = "empty")]
    pub ok: Empty<Percentiles>,
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
    /// Share of this server's lookups its cache answered (caches on;
    /// `null` without a lookup).
    #[serde(skip_serializing_if = "Option::is_none", default, with = "empty")]
    pub hit_rate: Empty<f64>,
}

/// The connections a rule's balancer copies hold, where each keeps to a
/// part of the servers (docs/model.md#finagles-aperture): a copy holds one
/// to each server it may send to, against a full mesh's one from every copy
/// to every server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connections {
    /// The fewest one copy holds.
    pub fewest: u32,
    /// The most one copy holds.
    pub most: u32,
    /// All copies' together.
    pub total: u64,
    /// A full mesh's: copies x servers.
    pub full_mesh: u64,
}

impl Connections {
    /// What `copies` hold over `servers` servers; `None` when every copy
    /// may send to every server.
    pub fn held(
        copies: &[alloc::boxed::Box<dyn crate::balancer::Balancer>],
        servers: usize,
    ) -> Option<Connections> {
        let each: Vec<u32> = copies
            .iter()
            .map(|c| c.connections().map(|n| u32::try_from(n).unwrap_or(u32::MAX)))
            .collect::<Option<_>>()?;
        Some(Connections {
            fewest: each.iter().copied().min().unwrap_or(0),
            most: each.iter().copied().max().unwrap_or(0),
            total: each.iter().map(|&n| u64::from(n)).sum(),
            full_mesh: (copies.len() * servers) as u64,
        })
    }

    /// `5 to 6 a copy, 22 in all (a full mesh: 40)`.
    pub fn describe(&self) -> String {
        let per_copy = if self.fewest == self.most {
            format!("{}", self.fewest)
        } else {
            format!("{} to {}", self.fewest, self.most)
        };
        format!("{per_copy} a copy, {} in all (a full mesh: {})", self.total, self.full_mesh)
    }
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
    /// over requests that did work: a 500 or a refusal asks no cache;
    /// `null` when none did).
    #[serde(skip_serializing_if = "Option::is_none", default, with = "empty")]
    pub hit_rate: Empty<f64>,
    /// The hit rate of the requests dispatched in each time bucket (of
    /// `queue_bucket_ms`); `None` for a bucket without any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hit_series: Option<Vec<Option<f64>>>,
    /// The connections the copies hold, where the rule keeps each copy
    /// to a part of the servers (aperture).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub connections: Option<Connections>,
    /// Time of the last completion in ms.
    pub makespan_ms: f64,
    /// Width of a bucket of the series over time, in ms: a round width
    /// (1, 2, 2.5 or 5 x 10^k), the series as many buckets long as cover
    /// the arrivals (at most [`QUEUE_BUCKETS`]).
    pub queue_bucket_ms: f64,
    /// Longest queue on any server in each time bucket.
    pub queue_series: Vec<u32>,
    /// Downsampled latency distributions.
    pub cdf: Distributions,
    /// Per server, in pool order.
    pub servers: Vec<ServerResult>,
}
