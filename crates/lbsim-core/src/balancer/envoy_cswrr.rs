//! Envoy's client-side weighted round robin (CSWRR,
//! `source/extensions/load_balancing_policies/client_side_weighted_round_robin/`):
//! the load reports' weights of gRPC's rule (`grpc_wrr.rs`) fed to Envoy's
//! round robin, the earliest-deadline-first schedule of `least_request.rs`.
//!
//! Where Envoy departs from gRPC: a weight is a `u32`, the report's
//! `qps / (utilization + eps / qps x penalty)` truncated and capped at
//! 2^32 - 1, and a report with no qps, or no utilization once the penalty
//! is added, is refused; a weight is valid when its first report is at
//! least `blackout` old and its last at most `expiration` old (both ends
//! included, where grpc-go drops a weight exactly `expiration` old); and a
//! host without a valid weight takes the median of the valid ones, 1 when
//! none is, where gRPC's scheduler takes their mean. The median of an even
//! count is the mean of the two middle weights, truncated, as Envoy's
//! `updateWeightsOnHosts` computes it since it first averaged them (before,
//! the upper middle one). Ties are the round robin's (`least_request.rs`).
//!
//! As a rule ([`EnvoyCswrr`], `envoy-cswrr`, docs/model.md#what-a-rule-may-know):
//! each balancer copy is one Envoy worker's load balancer, hearing the
//! bus's load reports as `grpc-wrr` does; every `weight-period` (Envoy's
//! `weight_update_period`, from the first pick) the hosts' weights are set
//! as above and the round robin takes them: equal weights go in turn from
//! index 0, unequal ones through the earliest-deadline-first schedule,
//! rebuilt when they change. Envoy's `client_side_weighted_round_robin`
//! followed as of v1.31 (`client_side_weighted_round_robin_lb.cc`). A
//! configured weight is not read: Envoy's CSWRR replaces it.

use alloc::vec::Vec;

use super::grpc_wrr::{LoadReport, Validity};
use super::least_request::LeastRequest;
use super::message::{Message, Reporting, Subscription};
use super::rule::{Balancer, Counts, Eligible, Pick, Pool};
use crate::rng::Rng;

/// A report's weight as Envoy's `calculateWeightFromOrcaReport` gives it,
/// or `None` when it refuses the report.
pub fn report_weight(report: &LoadReport, error_penalty: f64) -> Option<u32> {
    if report.qps <= 0.0 {
        return None;
    }
    let utilization = report.utilization + error_penalty * report.eps / report.qps;
    if utilization <= 0.0 {
        return None;
    }
    // `as` truncates toward zero and saturates, as Envoy's cap and its
    // conversion to `uint32_t` do.
    Some((report.qps / utilization) as u32)
}

/// One host's weight and when it was reported, as Envoy keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostWeight {
    weight: u32,
    /// The first report since the weight last expired, in ms.
    non_empty_since_ms: Option<u64>,
    last_update_ms: Option<u64>,
}

impl HostWeight {
    /// A report's weight arrives at `now_ms`.
    pub fn update(&mut self, now_ms: u64, weight: u32) {
        self.weight = weight;
        self.last_update_ms = Some(now_ms);
        self.non_empty_since_ms.get_or_insert(now_ms);
    }

    /// Envoy's `getWeightIfValid`, with its two bounds in ms: the weight
    /// if its first report is at or before `max_non_empty_since_ms` and
    /// its last at or after `min_last_update_ms`; an expired weight starts
    /// its blackout again at its next report.
    pub fn valid_between(&mut self, max_non_empty_since_ms: i64, min_last_update_ms: i64) -> Option<u32> {
        let since = self.non_empty_since_ms?;
        if max_non_empty_since_ms < since as i64 {
            return None;
        }
        let last = self.last_update_ms?;
        if (last as i64) < min_last_update_ms {
            self.non_empty_since_ms = None;
            return None;
        }
        Some(self.weight)
    }

    /// The weight if valid at `now_ms` under `validity`.
    pub fn valid_at(&mut self, now_ms: u64, validity: Validity) -> Option<u32> {
        let now = now_ms as i64;
        self.valid_between(now - validity.blackout_ms as i64, now - validity.expiration_ms as i64)
    }
}

/// The weights Envoy gives the hosts: each valid weight as it is, and the
/// median of the valid ones (1 when none is) to the others.
pub fn fill_with_median(valid: &[Option<u32>]) -> Vec<u32> {
    let mut known: Vec<u32> = valid.iter().flatten().copied().collect();
    known.sort_unstable();
    let middle = known.len() / 2;
    let median = match known.len() {
        0 => 1,
        n if n % 2 == 1 => known[middle],
        _ => ((u64::from(known[middle - 1]) + u64::from(known[middle])) / 2) as u32,
    };
    valid.iter().map(|w| w.unwrap_or(median)).collect()
}

/// What Envoy's round robin reads of the hosts' active requests: nothing
/// (its schedule's weights are the hosts' own), so a pick asks no counts.
struct NoActive;

impl Counts for NoActive {
    fn unfinished(&self, _server: usize) -> u32 {
        0
    }
}

/// Envoy's client-side weighted round robin as a balancer copy.
pub struct EnvoyCswrr {
    hosts: Vec<HostWeight>,
    round_robin: LeastRequest,
    /// The weights the round robin holds.
    weights: Vec<u32>,
    /// The same as reals, from the first update on (what a replay and
    /// `lbsim trace` read).
    in_force: Vec<f64>,
    validity: Validity,
    error_penalty: f64,
    weight_period_ms: f64,
    reporting: Reporting,
    /// When the weights are next updated.
    next_update_ms: f64,
}

impl EnvoyCswrr {
    /// CSWRR over `pool`, every host at weight 1 until weights are known.
    pub fn new(pool: &Pool) -> EnvoyCswrr {
        let learning = pool.learning;
        let ones = alloc::vec![1; pool.len()];
        let round_robin = LeastRequest::round_robin(&Pool { weights: ones.clone(), ..pool.clone() });
        EnvoyCswrr {
            hosts: alloc::vec![HostWeight::default(); pool.len()],
            round_robin,
            weights: ones,
            in_force: Vec::new(),
            validity: Validity { blackout_ms: learning.blackout_ms, expiration_ms: learning.expiration_ms },
            error_penalty: learning.error_penalty,
            weight_period_ms: learning.weight_period_ms,
            reporting: learning.reporting,
            next_update_ms: learning.weight_period_ms,
        }
    }

    /// The weights updates due by `now_ms`, one a weight period (the
    /// check on every pick, the update apart).
    #[inline]
    fn update_due(&mut self, now_ms: f64) {
        if now_ms >= self.next_update_ms {
            self.update_weights(now_ms);
        }
    }

    fn update_weights(&mut self, now_ms: f64) {
        let periods = libm::floor((now_ms - self.next_update_ms) / self.weight_period_ms) + 1.0;
        self.next_update_ms += periods * self.weight_period_ms;
        let now = now_ms as u64;
        let validity = self.validity;
        let valid: Vec<Option<u32>> = self.hosts.iter_mut().map(|h| h.valid_at(now, validity)).collect();
        let weights = fill_with_median(&valid);
        let changed = weights != self.weights;
        if changed {
            self.round_robin.reweight(&weights);
            self.weights = weights;
        }
        if changed || self.in_force.is_empty() {
            self.in_force = self.weights.iter().map(|&w| f64::from(w)).collect();
        }
    }

    /// The weights the round robin holds, what `lbsim trace` shows.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }
}

impl Balancer for EnvoyCswrr {
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize {
        self.update_due(request.now_ms);
        self.round_robin.pick_counting(request, rng, &NoActive)
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn subscribes(&self) -> Subscription {
        Subscription { load_reports: Some(self.reporting), ..Subscription::NOTHING }
    }

    fn receive(&mut self, now_ms: f64, message: &Message) {
        if let Some((server, report)) = LoadReport::from_message(message) {
            if let (Some(weight), Some(host)) =
                (report_weight(&report, self.error_penalty), self.hosts.get_mut(server))
            {
                host.update(now_ms as u64, weight);
            }
        }
    }

    fn weights(&self) -> Option<&[f64]> {
        (!self.in_force.is_empty()).then_some(&self.in_force[..])
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        self.update_due(request.now_ms);
        self.round_robin.pick_eligible(request, rng, eligible)
    }

    fn reshape(&mut self, members: &[bool], available: &[bool]) {
        self.round_robin.reshape(members, available);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(line: &'a str, name: &str) -> &'a str {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(name).and_then(|w| w.strip_prefix('=')))
            .unwrap_or_else(|| panic!("{line}: {name}"))
    }

    fn number(text: &str) -> f64 {
        text.parse().unwrap_or_else(|_| panic!("{text}"))
    }

    fn list(text: &str) -> Vec<u32> {
        text.split(',')
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap_or_else(|_| panic!("{w}")))
            .collect()
    }

    /// Every line of `tests/oracles/envoy_cswrr.txt`: Envoy's own tests
    /// of the report's weight, a weight's validity, and the median fill.
    #[test]
    fn every_vector_of_envoys_own_tests_holds() {
        let text = include_str!("../../../../tests/oracles/envoy_cswrr.txt");
        let mut held = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let field = |name: &str| field(line, name);
            let gives = field("gives");
            let expected = (gives != "none").then(|| gives.parse::<u32>().ok()).flatten();
            match line.split_whitespace().next() {
                Some("weight") => {
                    let report = LoadReport {
                        qps: number(field("qps")),
                        eps: number(field("eps")),
                        utilization: number(field("utilization")),
                    };
                    assert_eq!(report_weight(&report, number(field("penalty"))), expected, "{line}");
                }
                Some("valid") => {
                    let seconds = |name: &str| number(field(name)) as u64 * 1000;
                    let mut host = HostWeight {
                        weight: number(field("weight")) as u32,
                        non_empty_since_ms: Some(seconds("non_empty_since")),
                        last_update_ms: Some(seconds("last_update")),
                    };
                    let bound = |name: &str| seconds(name) as i64;
                    assert_eq!(
                        host.valid_between(bound("max_non_empty_since"), bound("min_last_update")),
                        expected,
                        "{line}"
                    );
                }
                Some("fill") => {
                    let mut valid: Vec<Option<u32>> = list(field("valid")).into_iter().map(Some).collect();
                    valid.extend(core::iter::repeat_n(None, number(field("without")) as usize));
                    assert_eq!(fill_with_median(&valid), list(gives), "{line}");
                }
                other => panic!("{line}: unknown kind {other:?}"),
            }
            held += 1;
        }
        assert_eq!(held, 14);
    }

    /// Envoy's `ChooseHostWithClientSideWeights`: reports of qps 1,000 at
    /// utilization 0.5 at 5 s, weights updated at 30 s (past the 10 s
    /// blackout) give every host 2,000; an expired weight starts its
    /// blackout again (`GetClientSideWeightIfValidFromHost_TooStale`).
    #[test]
    fn reported_weights_become_valid_after_the_blackout() {
        let validity = Validity::default();
        let report = LoadReport { qps: 1000.0, eps: 0.0, utilization: 0.5 };
        let mut host = HostWeight::default();
        assert_eq!(host.valid_at(0, validity), None);
        host.update(5_000, report_weight(&report, 0.1).unwrap());
        assert_eq!(host.valid_at(14_999, validity), None, "in the blackout");
        assert_eq!(host.valid_at(15_000, validity), Some(2000), "the blackout's end included");
        assert_eq!(host.valid_at(30_000, validity), Some(2000));
        assert_eq!(host.valid_at(185_000, validity), Some(2000), "exactly the expiration old: kept");
        assert_eq!(host.valid_at(185_001, validity), None, "expired");
        host.update(200_000, 2000);
        assert_eq!(host.valid_at(205_000, validity), None, "a fresh blackout");
    }
}
