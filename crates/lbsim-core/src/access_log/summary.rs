//! What a log holds, summed up before any run.

use alloc::string::String;
use alloc::vec::Vec;

use super::Traffic;

/// Span, rate over time, work percentiles, top keys' shares, servers seen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrafficSummary {
    /// Requests kept.
    pub requests: u64,
    /// First to last arrival, ms.
    pub span_ms: f64,
    /// Arrivals in each second from the first.
    pub per_second: Vec<u32>,
    /// Work percentiles (p50, p90, p99, max), ms.
    pub work_ms: [f64; 4],
    /// The heaviest keys and their shares of requests, heaviest first.
    pub top_keys: Vec<(String, f64)>,
    /// Servers seen, with the requests the log says each answered.
    pub servers: Vec<(String, u64)>,
}

impl TrafficSummary {
    pub(super) fn of(_traffic: &Traffic) -> TrafficSummary {
        TrafficSummary::default()
    }
}
