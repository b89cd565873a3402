//! Predicted against measured: the report lbsim's core writes for a rule
//! beside the same figures taken from what the real balancer did, and
//! whether they agree within the tolerance the machine's noise justifies
//! (docs/testbed.md#noise-and-tolerance).

use std::fmt::Write;

use lbsim_core::report::{percentiles, AlgorithmResult, Latencies, Percentiles};

use super::load::Outcome;
use super::servers::Seen;

/// How far measured may stand from predicted and still agree: a latency
/// within `rel` of the predicted figure or `abs_ms`, whichever is larger;
/// a server's share of requests within `share_points` percentage points
/// of the range over seeds. Set from the spread of the same run twice on a
/// busy 2-core machine, times three (docs/testbed.md#noise-and-tolerance).
/// The count of 5xx answers may stand `error_points` percentage points of
/// all requests beyond its range (widened by `rel`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tolerance {
    pub(super) rel: f64,
    pub(super) abs_ms: f64,
    pub(super) share_points: f64,
    pub(super) error_points: f64,
}

pub(super) const TOLERANCE: Tolerance =
    Tolerance { rel: 0.2, abs_ms: 5.0, share_points: 7.0, error_points: 2.0 };

/// Latency percentiles of all requests and, when the work is classed,
/// of the quick and the slow ones.
pub(super) struct Classes {
    pub(super) all: Percentiles,
    pub(super) quick: Option<Percentiles>,
    pub(super) slow: Option<Percentiles>,
}

/// A run whose requests were sent later than this (p99, ms) did not send
/// the scenario's arrivals: the machine was too busy. It is run again,
/// at most three times in all (`ATTEMPTS` in `mod.rs`), and fails if the
/// last is late too.
pub(super) const LATE_MS: f64 = 15.0;
/// What was measured of one rule's run.
pub(super) struct Measured {
    /// At the client: send to the end of the answer.
    pub(super) client: Classes,
    /// At the servers: queue wait plus service, as the servers timed them.
    pub(super) servers_time: Classes,
    /// The same, each class's values in order (all, quick, slow).
    pub(super) servers_sorted: [Vec<f64>; 3],
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
            servers_sorted: [None, Some(false), Some(true)].map(|class| {
                let mut values: Vec<f64> = answered()
                    .filter(|(_, &s)| class.is_none_or(|want| s == want))
                    .map(|(o, _)| o.at_server_ms)
                    .collect();
                values.sort_by(f64::total_cmp);
                values
            }),
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

/// What a rule's run is compared with: the core's result for the
/// scenario as served, the same over further seeds (the model's own
/// spread at this many requests), and the article's construction when it
/// differs.
pub(super) struct Prediction {
    pub(super) main: AlgorithmResult,
    pub(super) seeds: Vec<AlgorithmResult>,
    pub(super) article: Option<AlgorithmResult>,
    /// Whether the rule places each request by its key alone: its shares
    /// and every request's server are then held exactly.
    pub(super) by_key: bool,
}

impl Prediction {
    /// The least and most of a figure over the seeds (the main one too).
    fn range(&self, figure: impl Fn(&AlgorithmResult) -> Option<f64>) -> Option<(f64, f64)> {
        let values: Vec<f64> = std::iter::once(&self.main).chain(&self.seeds).filter_map(figure).collect();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo <= hi).then_some((lo, hi))
    }
}

/// Whether `m` lies in `lo..=hi`, each end widened by the tolerance.
fn within(m: f64, (lo, hi): (f64, f64), tolerance: Tolerance) -> bool {
    let widen = |x: f64| (tolerance.rel * x).max(tolerance.abs_ms);
    m >= lo - widen(lo) && m <= hi + widen(hi)
}

/// The quantile a figure's name stands for.
fn quantile(name: &str) -> f64 {
    match name {
        "p50" => 0.5,
        "p90" => 0.9,
        _ => 0.99,
    }
}

/// Whether the measured quantiles a little either side of `q` (by 2
/// points, or a tenth of the tail beyond `q` where that is less) reach
/// into the widened range: a percentile that falls on a step of the
/// distribution (half the requests failing in 1 ms, half served in 20)
/// jumps across it when the step's share moves by a point, and is held
/// by its rank instead.
fn within_by_rank(sorted: &[f64], q: f64, (lo, hi): (f64, f64), tolerance: Tolerance) -> bool {
    if sorted.is_empty() {
        return false;
    }
    let delta = ((1.0 - q) / 10.0).min(0.02);
    let at = |p: f64| sorted[(((p * sorted.len() as f64).ceil() as usize).max(1) - 1).min(sorted.len() - 1)];
    let widen = |x: f64| (tolerance.rel * x).max(tolerance.abs_ms);
    at(q - delta) <= hi + widen(hi) && at(q + delta) >= lo - widen(lo)
}

/// Compares `measured` with the prediction: each latency figure at the
/// servers within the range over seeds widened by the tolerance; each
/// server's share (exactly the main seed's for rules that place by key);
/// each request's server when `placement` holds it (required of the
/// rules that place by key). The client's figures and the article's are
/// shown beside them.
pub(super) fn compare(
    prediction: &Prediction,
    measured: &Measured,
    names: &[String],
    placement: Option<(usize, usize)>,
    tolerance: Tolerance,
) -> Verdict {
    let (predicted, article) = (&prediction.main, prediction.article.as_ref());
    let mut table = String::new();
    let mut beyond = Vec::new();
    let _ = writeln!(
        table,
        "    {:<14} {:>10} {:>15} {:>10} {:>10} {:>10}  {}",
        "latency (ms)",
        "predicted",
        "over seeds",
        "servers",
        "client",
        "article",
        if article.is_some() { "" } else { "(article: the same construction)" }
    );
    let classes: [(&str, Class); 3] =
        [("all", |l| Some(&l.all)), ("quick", |l| l.quick.as_ref()), ("slow", |l| l.slow.as_ref())];
    for (name, class) in classes {
        let (Some(p), Some(m), Some(c)) = (
            class(&predicted.latency_ms),
            measured_class(&measured.servers_time, name),
            measured_class(&measured.client, name),
        ) else {
            continue;
        };
        for (q, pick) in [("p50", pick_p50 as fn(&Percentiles) -> f64), ("p90", pick_p90), ("p99", pick_p99)]
        {
            let Some(range) = prediction.range(|r| class(&r.latency_ms).map(pick)) else { continue };
            let (p, m, c) = (pick(p), pick(m), pick(c));
            let sorted = &measured.servers_sorted[match name {
                "all" => 0,
                "quick" => 1,
                _ => 2,
            }];
            let ok = within(m, range, tolerance) || within_by_rank(sorted, quantile(q), range, tolerance);
            let a = article
                .and_then(|a| class(&a.latency_ms))
                .map_or("-".to_string(), |a| format!("{:.1}", pick(a)));
            let label = format!("{name} {q}");
            let seeds = format!("{:.1}..{:.1}", range.0, range.1);
            let mark = if ok { "ok" } else { "BEYOND" };
            let _ =
                writeln!(table, "    {label:<14} {p:>10.1} {seeds:>15} {m:>10.1} {c:>10.1} {a:>10}  {mark}");
            if !ok {
                beyond.push(format!(
                    "{label}: predicted {p:.1} ms ({seeds} over seeds), measured at the servers {m:.1} ms"
                ));
            }
        }
    }
    let _ = writeln!(
        table,
        "    the balancer's own latency and the machine's (client less servers): p50 {:.2}, p90 {:.2}, p99 {:.2} ms",
        measured.own.p50, measured.own.p90, measured.own.p99
    );
    let total: u64 = measured.servers.iter().map(|s| s.0).sum::<u64>().max(1);
    let _ = writeln!(
        table,
        "    {:<22} {:>9} {:>13} {:>9} {:>11} {:>9}",
        "server", "share %", "over seeds", "measured", "peak queue", "measured"
    );
    for (i, server) in predicted.servers.iter().enumerate() {
        let (requests, peak) = measured.servers.get(i).copied().unwrap_or_default();
        let share = |r: &AlgorithmResult| {
            let total = r.servers.iter().map(|s| s.requests).sum::<u64>().max(1);
            r.servers.get(i).map(|s| 100.0 * s.requests as f64 / total as f64)
        };
        let p_share = share(predicted).unwrap_or_default();
        let range = if prediction.by_key {
            (p_share, p_share)
        } else {
            prediction.range(share).unwrap_or((p_share, p_share))
        };
        let m_share = 100.0 * requests as f64 / total as f64;
        let ok = m_share >= range.0 - tolerance.share_points && m_share <= range.1 + tolerance.share_points;
        let name = names.get(i).map_or(server.name.as_str(), String::as_str);
        let seeds = format!("{:.1}..{:.1}", range.0, range.1);
        let _ = writeln!(
            table,
            "    {name:<22} {p_share:>9.1} {seeds:>13} {m_share:>9.1} {:>11} {peak:>9}  {}",
            server.peak_queue,
            if ok { "ok" } else { "BEYOND" }
        );
        if !ok {
            beyond.push(format!("{name}'s share: predicted {p_share:.1}% ({seeds}), measured {m_share:.1}%"));
        }
    }
    if let Some((same, of)) = placement {
        let required = prediction.by_key;
        let why =
            if required { "" } else { " (the order of near-simultaneous arrivals decides; not required)" };
        let _ = writeln!(table, "    each request's server: {same} of {of} as predicted{why}");
        if required && same != of {
            beyond.push(format!("{} of {of} requests went to another server than predicted", of - same));
        }
    }
    let predicted_errors = predicted.errors.unwrap_or(0) as f64;
    let _ = writeln!(
        table,
        "    errors (5xx): predicted {predicted_errors}, measured {}; unanswered {}",
        measured.errors, measured.unanswered
    );
    if measured.unanswered > 0 {
        beyond.push(format!("{} requests were not answered", measured.unanswered));
    }
    let errors = prediction.range(|r| Some(r.errors.unwrap_or(0) as f64)).unwrap_or((0.0, 0.0));
    let slack = tolerance.error_points / 100.0 * total as f64;
    if (measured.errors as f64) < errors.0 * (1.0 - tolerance.rel) - slack
        || (measured.errors as f64) > errors.1 * (1.0 + tolerance.rel) + slack
    {
        beyond.push(format!(
            "errors: predicted {predicted_errors} ({:.0}..{:.0} over seeds), measured {}",
            errors.0, errors.1, measured.errors
        ));
    }
    if measured.late.p99 > LATE_MS {
        beyond.push(format!(
            "requests sent late (p99 {:.1} ms, more than {} ms): the machine was too busy to send the scenario's \
             arrivals; run again when it is quieter",
            measured.late.p99,
            LATE_MS
        ));
    }
    let _ = writeln!(
        table,
        "    sent late p50 {:.2} p99 {:.2} max {:.1} ms; servers' answers late p50 {:.3} p99 {:.3} max {:.1} ms",
        measured.late.p50, measured.late.p99, measured.late.max, measured.server_late.p50,
        measured.server_late.p99, measured.server_late.max
    );
    Verdict { table, beyond }
}

/// A class of a report's latencies.
type Class = fn(&Latencies) -> Option<&Percentiles>;

/// The measured class of that name.
fn measured_class<'a>(classes: &'a Classes, name: &str) -> Option<&'a Percentiles> {
    match name {
        "all" => Some(&classes.all),
        "quick" => classes.quick.as_ref(),
        _ => classes.slow.as_ref(),
    }
}

fn pick_p50(p: &Percentiles) -> f64 {
    p.p50
}
fn pick_p90(p: &Percentiles) -> f64 {
    p.p90
}
fn pick_p99(p: &Percentiles) -> f64 {
    p.p99
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The black hole under least connections: about half the requests
    /// fail in 1 ms, the rest are served in 20. A median predicted at
    /// 1 ms (50.4% failing) agrees with one measured at 20 (49.1%
    /// failing) by rank, and not with a run where none failed.
    #[test]
    fn a_percentile_on_a_step_agrees_by_its_rank() {
        let step: Vec<f64> = (0..1000).map(|i| if i < 491 { 1.0 } else { 20.0 }).collect();
        assert!(!within(20.0, (1.0, 1.0), TOLERANCE));
        assert!(within_by_rank(&step, 0.5, (1.0, 1.0), TOLERANCE));
        let served = vec![20.0; 1000];
        assert!(!within_by_rank(&served, 0.5, (1.0, 1.0), TOLERANCE));
        // At p99 the rank moves by a tenth of the tail: 0.1 point.
        let tail: Vec<f64> = (0..1000).map(|i| if i < 985 { 20.0 } else { 400.0 }).collect();
        assert!(!within_by_rank(&tail, 0.99, (20.0, 20.0), TOLERANCE));
    }
}
