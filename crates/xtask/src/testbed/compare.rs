//! Predicted against measured: the report lbsim's core writes for a rule
//! beside the same figures taken from what the real balancer did, and
//! whether they agree within the tolerance the machine's noise justifies
//! (docs/testbed.md#noise-and-tolerance).

use std::fmt::Write;

use lbsim_core::report::{percentiles, AlgorithmResult, Percentiles};

use super::load::Outcome;
use super::servers::Seen;

/// How far measured may stand from predicted and still agree: a latency
/// within `rel` of the predicted figure or `abs_ms`, whichever is larger;
/// a server's share of requests within `share_points` percentage points.
/// Set from the spread of the same run twice on a busy 2-core machine,
/// times three and more (docs/testbed.md#noise-and-tolerance).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tolerance {
    pub(super) rel: f64,
    pub(super) abs_ms: f64,
    pub(super) share_points: f64,
}

pub(super) const TOLERANCE: Tolerance = Tolerance { rel: 0.15, abs_ms: 5.0, share_points: 2.0 };

/// Latency percentiles of all requests and, when the work is classed,
/// of the quick and the slow ones.
pub(super) struct Classes {
    pub(super) all: Percentiles,
    pub(super) quick: Option<Percentiles>,
    pub(super) slow: Option<Percentiles>,
}

/// What was measured of one rule's run.
pub(super) struct Measured {
    /// At the client: send to the end of the answer.
    pub(super) client: Classes,
    /// At the servers: queue wait plus service, as the servers timed them.
    pub(super) servers_time: Classes,
    /// The client's latency less the servers' time: the balancer's own
    /// latency, loopback and the machine's scheduling (p50, p90, p99).
    pub(super) own: Percentiles,
    /// Per server, in the scenario's order: requests and peak queue.
    pub(super) servers: Vec<(u64, u32)>,
    /// Requests no server answered (status 0) and those answered 5xx.
    pub(super) unanswered: usize,
    pub(super) errors: usize,
    /// How late the requests were sent: p50, p99, max (ms).
    pub(super) late: Percentiles,
    /// How late the servers' answers left against their booked ends
    /// (ms): p50, p99, max.
    pub(super) server_late: Percentiles,
}

fn summary(values: impl Iterator<Item = f64>) -> Percentiles {
    let bits: Vec<u64> = values.map(|v| v.max(0.0).to_bits()).collect();
    percentiles(&bits)
}

impl Measured {
    /// The figures of `outcomes` (request `i` slow when `slow[i]`) and of
    /// what the servers saw.
    pub(super) fn of(outcomes: &[Outcome], slow: &[bool], seen: &[Seen], classed: bool) -> Measured {
        let answered = || outcomes.iter().zip(slow).filter(|(o, _)| o.status != 0);
        let classes = |of: fn(&Outcome) -> f64| {
            let class = |want: bool| {
                classed.then(|| summary(answered().filter(|(_, &s)| s == want).map(|(o, _)| of(o))))
            };
            Classes { all: summary(answered().map(|(o, _)| of(o))), quick: class(false), slow: class(true) }
        };
        Measured {
            client: classes(|o| o.latency_ms),
            servers_time: classes(|o| o.at_server_ms),
            own: summary(answered().map(|(o, _)| o.latency_ms - o.at_server_ms)),
            servers: seen.iter().map(|s| (s.requests, s.peak_queue)).collect(),
            unanswered: outcomes.iter().filter(|o| o.status == 0).count(),
            errors: outcomes.iter().filter(|o| o.status >= 500).count(),
            late: summary(outcomes.iter().map(|o| o.late_ms)),
            server_late: summary(seen.iter().flat_map(|s| s.late_us.iter().map(|&us| us as f64 / 1000.0))),
        }
    }
}

/// One rule's comparison, as printed, and the figures beyond tolerance.
pub(super) struct Verdict {
    pub(super) table: String,
    pub(super) beyond: Vec<String>,
}

/// Compares `measured` with `predicted` (and shows `article`, the
/// article's own construction, beside them), and each request's server
/// with the predicted one when `placement` holds it.
pub(super) fn compare(
    predicted: &AlgorithmResult,
    article: Option<&AlgorithmResult>,
    measured: &Measured,
    names: &[String],
    placement: Option<(usize, usize)>,
    tolerance: Tolerance,
) -> Verdict {
    let mut table = String::new();
    let mut beyond = Vec::new();
    let _ = writeln!(
        table,
        "    {:<14} {:>10} {:>10} {:>10} {:>10}  {}",
        "latency",
        "predicted",
        "servers",
        "client",
        "article",
        if article.is_some() { "" } else { "(article: the same construction)" }
    );
    let (m, c) = (&measured.servers_time, &measured.client);
    let classes: [Row<'_>; 3] = [
        (
            "all",
            Some(&predicted.latency_ms.all),
            Some(&m.all),
            Some(&c.all),
            article.map(|a| &a.latency_ms.all),
        ),
        (
            "quick",
            predicted.latency_ms.quick.as_ref(),
            m.quick.as_ref(),
            c.quick.as_ref(),
            article.and_then(|a| a.latency_ms.quick.as_ref()),
        ),
        (
            "slow",
            predicted.latency_ms.slow.as_ref(),
            m.slow.as_ref(),
            c.slow.as_ref(),
            article.and_then(|a| a.latency_ms.slow.as_ref()),
        ),
    ];
    for (class, p, m, c, a) in classes {
        let (Some(p), Some(m), Some(c)) = (p, m, c) else { continue };
        for (q, pick) in [("p50", pick_p50 as fn(&Percentiles) -> f64), ("p90", pick_p90), ("p99", pick_p99)]
        {
            let (p, m, c) = (pick(p), pick(m), pick(c));
            let within = (m - p).abs() <= (tolerance.rel * p).max(tolerance.abs_ms);
            let a = a.map_or("-".to_string(), |a| format!("{:.1}", pick(a)));
            let label = format!("{class} {q} ms");
            let mark = if within { "ok" } else { "BEYOND" };
            let _ = writeln!(table, "    {label:<14} {p:>10.1} {m:>10.1} {c:>10.1} {a:>10}  {mark}");
            if !within {
                beyond.push(format!("{label}: predicted {p:.1}, measured at the servers {m:.1}"));
            }
        }
    }
    let _ = writeln!(
        table,
        "    the balancer's own latency and the machine's (client less servers): p50 {:.2}, p90 {:.2}, p99 {:.2} ms",
        measured.own.p50, measured.own.p90, measured.own.p99
    );
    let total: u64 = measured.servers.iter().map(|s| s.0).sum::<u64>().max(1);
    let total_predicted: u64 = predicted.servers.iter().map(|s| s.requests).sum::<u64>().max(1);
    let _ = writeln!(
        table,
        "    {:<22} {:>9} {:>9} {:>11} {:>11}",
        "server", "share", "measured", "peak queue", "measured"
    );
    for (i, server) in predicted.servers.iter().enumerate() {
        let (requests, peak) = measured.servers.get(i).copied().unwrap_or_default();
        let p_share = 100.0 * server.requests as f64 / total_predicted as f64;
        let m_share = 100.0 * requests as f64 / total as f64;
        let within = (p_share - m_share).abs() <= tolerance.share_points;
        let name = names.get(i).map_or(server.name.as_str(), String::as_str);
        let _ = writeln!(
            table,
            "    {name:<22} {p_share:>8.1}% {m_share:>8.1}% {:>11} {peak:>11}  {}",
            server.peak_queue,
            if within { "ok" } else { "BEYOND" }
        );
        if !within {
            beyond.push(format!("{name}'s share: predicted {p_share:.1}%, measured {m_share:.1}%"));
        }
    }
    if let Some((same, of)) = placement {
        let _ = writeln!(table, "    each request's server: {same} of {of} as predicted");
        if same != of {
            beyond.push(format!("{} of {of} requests went to another server than predicted", of - same));
        }
    }
    let predicted_errors = predicted.errors.unwrap_or(0) as usize;
    let _ = writeln!(
        table,
        "    errors (5xx): predicted {predicted_errors}, measured {}; unanswered {}",
        measured.errors, measured.unanswered
    );
    if measured.unanswered > 0 {
        beyond.push(format!("{} requests were not answered", measured.unanswered));
    }
    let tolerated =
        (predicted_errors as f64 * tolerance.rel).max(tolerance.share_points / 100.0 * total as f64);
    if (measured.errors as f64 - predicted_errors as f64).abs() > tolerated {
        beyond.push(format!("errors: predicted {predicted_errors}, measured {}", measured.errors));
    }
    let _ = writeln!(
        table,
        "    sent late p50 {:.2} p99 {:.2} max {:.1} ms; servers' answers late p50 {:.3} p99 {:.3} max {:.1} ms",
        measured.late.p50, measured.late.p99, measured.late.max, measured.server_late.p50,
        measured.server_late.p99, measured.server_late.max
    );
    Verdict { table, beyond }
}

/// A class's name and its percentiles: predicted, at the servers, at the
/// client, the article's.
type Row<'a> = (
    &'a str,
    Option<&'a Percentiles>,
    Option<&'a Percentiles>,
    Option<&'a Percentiles>,
    Option<&'a Percentiles>,
);

fn pick_p50(p: &Percentiles) -> f64 {
    p.p50
}
fn pick_p90(p: &Percentiles) -> f64 {
    p.p90
}
fn pick_p99(p: &Percentiles) -> f64 {
    p.p99
}
