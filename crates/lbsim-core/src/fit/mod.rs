//! Fitting a scenario to observed traffic: each field the traffic shows
//! (rate, work, users and Zipf s, the servers and their speeds) estimated,
//! each with how well it fits and a one-line note, and the fitted
//! scenario's share link, which carries the fitted numbers only
//! (docs/model.md#fitting-a-scenario).
//!
//! The estimators are pure functions over slices, one module per concern
//! ([`rate`], [`work`], [`zipf`], [`servers`]); [`fit`] puts them together
//! over an [`Observed`] stream.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::Serialize;

use crate::access_log::Traffic;
use crate::scenario::{field_spec, Scenario, WorkKind};
use crate::workload::Request;

pub mod rate;
pub mod servers;
mod stats;
pub mod work;
pub mod zipf;

pub use rate::ArrivalsOverTime;
pub use work::WorkFit;

/// The traffic a fit reads: requests in arrival order (work in ms as
/// logged, `user` the 1-based index of the request's key) and, when the
/// log names them, the server each request went to (`served_by`, an
/// index into `servers`; `u16::MAX` where unknown).
#[derive(Clone, Copy, Debug)]
pub struct Observed<'a> {
    /// Requests in arrival order.
    pub requests: &'a [Request],
    /// Per request, the index of the server that answered; empty when the
    /// log names none.
    pub served_by: &'a [u16],
    /// The servers seen, by name; empty when the log names none.
    pub servers: &'a [String],
}

impl<'a> From<&'a Traffic> for Observed<'a> {
    fn from(traffic: &'a Traffic) -> Observed<'a> {
        Observed { requests: &traffic.requests, served_by: &traffic.served_by, servers: &traffic.servers }
    }
}

/// How well one estimate fits the traffic.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Goodness {
    /// The test: "KS distance", "chi-square", "dispersion chi-square".
    pub test: &'static str,
    /// Its statistic.
    pub statistic: f64,
    /// Its p-value, where the test has a cheap one.
    pub p_value: Option<f64>,
}

/// One fitted field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The field's key, as links, flags and JSON name it.
    pub field: &'static str,
    /// Its fitted value, as the link writes it.
    pub value: String,
    /// How well it fits, when there is a test for it.
    pub goodness: Option<Goodness>,
    /// Where the value comes from, in a line.
    pub note: String,
}

/// A scenario fitted to traffic.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    /// The fitted scenario: the base scenario with the fitted fields set.
    pub scenario: Scenario,
    /// Each fitted or kept field.
    pub estimates: Vec<Estimate>,
    /// Every kind of work fitted, closest first.
    pub work_kinds: Vec<WorkFit>,
    /// Arrivals per second over time (reported, not fitted).
    pub arrivals: ArrivalsOverTime,
    /// The fitted scenario's share link fragment (`url::encode`).
    pub link: String,
}

/// Why traffic could not be fitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FitError(pub String);

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FitError {}

/// The value clamped to the field's range in the table.
fn in_range(key: &str, value: f64) -> f64 {
    field_spec(key).map_or(value, |f| value.clamp(f.min, f.max))
}

/// A fitted number, four significant digits, within its field's range.
fn fitted(key: &str, value: f64) -> f64 {
    in_range(key, stats::four_digits(value))
}

fn estimate(field: &'static str, value: impl ToString, goodness: Option<Goodness>, note: String) -> Estimate {
    Estimate { field, value: value.to_string(), goodness, note }
}

/// Fits `base`'s traffic fields to the observed requests; fields a log
/// does not show (slots, the rules, health settings, the seed) keep
/// `base`'s values.
pub fn fit(observed: &Observed<'_>, base: &Scenario) -> Result<Fit, FitError> {
    let requests = observed.requests;
    let arrivals: Vec<f64> = requests.iter().map(|r| r.arrival_ms).collect();
    let rate = rate::fit_rate(&arrivals).ok_or_else(|| {
        FitError(format!(
            "a fit needs at least 2 requests arriving at different times; the traffic has {} request(s) over {} ms",
            requests.len(),
            requests.last().map_or(0.0, |r| r.arrival_ms) - requests.first().map_or(0.0, |r| r.arrival_ms)
        ))
    })?;
    let work_ms: Vec<f64> = requests.iter().map(|r| r.work_ms).collect();
    let work_kinds = work::fit_work(&work_ms);
    let best =
        *work_kinds.first().ok_or_else(|| FitError("no request has a positive work time".to_string()))?;
    let users = requests.iter().map(|r| r.user as usize).max().unwrap_or(0);
    let mut counts = alloc::vec![0u64; users + 1];
    for r in requests {
        counts[r.user as usize] += 1;
    }
    let zipf_max = field_spec("zipf").map_or(5.0, |f| f.max);
    let zipf = zipf::fit_zipf(&counts[1..], zipf_max)
        .ok_or_else(|| FitError("no request names a user key".to_string()))?;

    // The fitted scenario draws its own requests: the log and how it was
    // read stay out of it, and so out of its link.
    let defaults = Scenario::default();
    let mut scenario = Scenario {
        log: None,
        log_kind: None,
        log_format: None,
        work_from: defaults.work_from,
        time_scale: defaults.time_scale,
        ..base.clone()
    };
    let mut estimates = Vec::new();
    let n = requests.len();
    scenario.requests = in_range("requests", n as f64) as u64;
    estimates.push(estimate("requests", scenario.requests, None, format!("the {n} requests read")));

    let rate_per_s = fitted("rate", rate.rate_per_s);
    scenario.rate = Some(rate_per_s);
    let (low, high) = rate.over_time.per_s.iter().fold((f64::MAX, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
    estimates.push(estimate(
        "rate",
        rate_per_s,
        rate.p_value().map(|p| Goodness {
            test: "dispersion chi-square",
            statistic: rate.chi_square,
            p_value: Some(p),
        }),
        format!(
            "requests after the first over the span; arrivals per {} s vary {:.1} to {:.1}/s (variance/mean {:.2}, \
             1 for Poisson), reported, not fitted",
            rate.over_time.bin_s, low, high, rate.dispersion
        ),
    ));

    let others: Vec<String> =
        work_kinds.iter().skip(1).map(|w| format!("{} {:.3}", w.kind.id(), w.ks)).collect();
    scenario.work = best.kind;
    estimates.push(estimate(
        "work",
        best.kind.id(),
        Some(Goodness {
            test: "KS distance",
            statistic: best.ks,
            p_value: Some(stats::ks_p_value(best.ks, work_ms.len())),
        }),
        format!(
            "closest kind by KS distance (others: {}); the p-value is generous, the parameters come from the same log",
            others.join(", ")
        ),
    ));
    let of_kind = format!("the {} fit", best.kind.id());
    match best.kind {
        WorkKind::Bimodal => {
            scenario.fast_ms = fitted("fast-ms", best.fast_ms);
            scenario.slow_ms = fitted("slow-ms", best.slow_ms);
            scenario.slow_share = in_range("slow-share", libm::round(best.slow_share * 1e4) / 1e4);
            let split = format!("{of_kind}: mean work of each group of a two-means split of log work");
            estimates.push(estimate("fast-ms", scenario.fast_ms, None, split.clone()));
            estimates.push(estimate("slow-ms", scenario.slow_ms, None, split));
            estimates.push(estimate(
                "slow-share",
                scenario.slow_share,
                None,
                format!("{of_kind}: share of the slow group"),
            ));
        }
        WorkKind::Constant | WorkKind::Exponential => {
            scenario.mean_ms = fitted("mean-ms", best.mean_ms);
            estimates.push(estimate("mean-ms", scenario.mean_ms, None, format!("{of_kind}: mean work")));
        }
        WorkKind::Lognormal => {
            scenario.mean_ms = fitted("mean-ms", best.mean_ms);
            scenario.sigma = fitted("sigma", best.sigma);
            estimates.push(estimate(
                "mean-ms",
                scenario.mean_ms,
                None,
                format!("{of_kind}: exp(mu + sigma^2/2) of the log-work mean mu (maximum likelihood)"),
            ));
            estimates.push(estimate(
                "sigma",
                scenario.sigma,
                None,
                format!("{of_kind}: deviation of log work (maximum likelihood)"),
            ));
        }
    }

    scenario.users = in_range("users", f64::from(zipf.users)) as u32;
    estimates.push(estimate(
        "users",
        scenario.users,
        None,
        "distinct keys seen; users the log never saw are not counted".to_string(),
    ));
    // Three decimals: s moves a share by far less than its standard error
    // below that, and one key leaves s without meaning (0, said so).
    scenario.zipf =
        if zipf.users > 1 { in_range("zipf", libm::round(zipf.s * 1000.0) / 1000.0) } else { 0.0 };
    estimates.push(estimate(
        "zipf",
        scenario.zipf,
        zipf.p_value().map(|p| Goodness { test: "chi-square", statistic: zipf.chi_square, p_value: Some(p) }),
        if zipf.users == 1 {
            "one key: every request is the same user, so s has no meaning (0)".to_string()
        } else {
            format!(
            "maximum likelihood over the keys' ranks; chi-square of the top {} keys' counts and the rest; \
             the heaviest key has {:.2}%",
                zipf::TOP_KEYS,
                zipf.top_share * 100.0
            )
        },
    ));

    fit_fleet(observed, &work_ms, &mut scenario, &mut estimates);
    estimates.push(estimate(
        "slots",
        scenario.slots,
        None,
        "not in logs: kept at the scenario's value".to_string(),
    ));

    scenario.validate().map_err(|e| FitError(format!("the fitted scenario is not valid: {e}")))?;
    let link = crate::url::encode(&scenario);
    Ok(Fit { scenario, estimates, work_kinds, arrivals: rate.over_time, link })
}

/// The servers and speeds when the log names the servers; the base's
/// otherwise.
fn fit_fleet(
    observed: &Observed<'_>,
    work_ms: &[f64],
    scenario: &mut Scenario,
    estimates: &mut Vec<Estimate>,
) {
    let named = observed.servers.len();
    if named == 0 || observed.served_by.len() != observed.requests.len() {
        estimates.push(estimate(
            "servers",
            scenario.servers,
            None,
            "the log names no servers: kept at the scenario's value".to_string(),
        ));
        return;
    }
    let max = field_spec("servers").map_or(1024, |f| f.max as usize);
    let kept = named.min(max);
    scenario.servers = kept as u32;
    scenario.names = observed.servers[..kept].to_vec();
    scenario.weights.clear();
    estimates.push(estimate("servers", kept, None, format!("the servers the log names ({named} seen)")));
    let speeds: Vec<f64> = servers::fit_speeds(work_ms, observed.served_by, kept)
        .into_iter()
        .map(|v| in_range("speeds", libm::round(v * 100.0) / 100.0))
        .collect();
    let note = "each server's mean logged work against all requests' (a server of speed v takes work / v)";
    if speeds.iter().all(|&v| v == 1.0) {
        scenario.speeds.clear();
        estimates.push(estimate("speeds", "1 each", None, note.to_string()));
    } else {
        let shown: Vec<String> = speeds.iter().map(f64::to_string).collect();
        estimates.push(estimate("speeds", shown.join(","), None, note.to_string()));
        scenario.speeds = speeds;
    }
    scenario.fit_lists();
}
