//! What a log holds, summed up before any run.

use alloc::string::String;
use alloc::vec::Vec;

use crate::workload::Request;
use alloc::vec;

/// Keys the summary names.
const TOP_KEYS: usize = 10;

/// Seconds of arrivals counted (a day).
const MAX_SECONDS: usize = 86_400;

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
    /// The summary of requests in arrival order, their users' keys
    /// (`keys[user - 1]`), the servers seen and which answered each.
    pub(super) fn of(
        requests: &[Request],
        keys: &[String],
        servers: &[String],
        served_by: &[u16],
    ) -> TrafficSummary {
        let n = requests.len();
        let first = requests.first().map_or(0.0, |r| r.arrival_ms);
        let span_ms = requests.last().map_or(0.0, |r| r.arrival_ms - first);
        // One bucket a second, at most a day's worth shown.
        let seconds = ((span_ms / 1000.0) as usize + 1).min(MAX_SECONDS);
        let mut per_second = vec![0u32; if n == 0 { 0 } else { seconds }];
        for r in requests {
            if let Some(bucket) = per_second.get_mut(((r.arrival_ms - first) / 1000.0) as usize) {
                *bucket += 1;
            }
        }
        let mut work: Vec<f64> = requests.iter().map(|r| r.work_ms).collect();
        work.sort_by(f64::total_cmp);
        let at =
            |q: f64| work.get(((q * n as f64) as usize).min(n.saturating_sub(1))).copied().unwrap_or(0.0);
        let mut per_user = vec![0u64; keys.len() + 1];
        for r in requests {
            if let Some(c) = per_user.get_mut(r.user as usize) {
                *c += 1;
            }
        }
        let mut heaviest: Vec<(u64, usize)> =
            per_user.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(u, &c)| (c, u)).collect();
        // Most requests first; ties by the key's order of first sight.
        heaviest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let share = |c: u64| if n == 0 { 0.0 } else { c as f64 / n as f64 };
        let top_keys = heaviest
            .iter()
            .take(TOP_KEYS)
            .map(|&(c, u)| (keys.get(u.wrapping_sub(1)).cloned().unwrap_or_default(), share(c)))
            .collect();
        let mut answered = vec![0u64; servers.len()];
        for &s in served_by {
            if let Some(c) = answered.get_mut(usize::from(s)) {
                *c += 1;
            }
        }
        TrafficSummary {
            requests: n as u64,
            span_ms,
            per_second,
            work_ms: [at(0.5), at(0.9), at(0.99), work.last().copied().unwrap_or(0.0)],
            top_keys,
            servers: servers.iter().cloned().zip(answered).collect(),
        }
    }
}
