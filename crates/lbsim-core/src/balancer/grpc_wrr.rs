//! gRPC's `weighted_round_robin` (gRFC A58): weights learned from the
//! servers' own load reports, picked by the static stride scheduler
//! (`stride.rs`).
//!
//! A report carries a server's qps, errors a second (eps) and utilization;
//! its weight is `qps / (utilization + eps / qps x error_penalty)`, and a
//! report with no qps or no utilization is ignored (grpc-go's
//! `endpointWeight.OnLoadReport`, gRFC A58). A weight is used only from
//! `blackout` after the server's first report (since it last expired) and
//! until `expiration` after its last; otherwise it counts as 0, unknown,
//! which the scheduler fills with the mean of the known weights (grpc-go's
//! `endpointWeight.weight`: an expired weight restarts the blackout, a
//! blackout of 0 is none). The scheduler is rebuilt from the weights every
//! `weight_period`; with fewer than two servers, or all weights unknown,
//! the picks are plain round robin on the same sequence (C-core's picker).
//!
//! Ties cannot arise: the sequence number alone decides each pick. The
//! sequence starts at a number the caller draws, as C-core draws it once
//! per picker.
//!
//! As a rule ([`GrpcWrr`], `grpc-wrr`, docs/model.md#what-a-rule-may-know):
//! each balancer copy is one gRPC channel's picker, hearing the load
//! reports of the bus (per call with the responses to its own requests,
//! gRFC A58's default, or out of band from every server once a period:
//! the `out-of-band` field). It reads no configured weight (gRPC's rule
//! has none) and draws its sequence's start at its first pick. In a fleet
//! run a server the pick may not take is passed over as the sequence walks
//! on (C-core's picker holds only the ready subchannels, and walks the
//! same sequence over them); after twice the servers' count of candidates
//! refused, one allowed server is drawn uniformly.

use alloc::vec::Vec;

use super::message::{Message, Reporting, Subscription};
use super::rule::{uniform_among, Balancer, Eligible, Pick, Pool};
use super::stride::StrideScheduler;
use crate::rng::{below, Rng};

/// gRFC A58's default blackout, in ms.
pub const BLACKOUT_MS: f64 = 10_000.0;
/// gRFC A58's default weight expiration, in ms.
pub const EXPIRATION_MS: f64 = 180_000.0;
/// gRFC A58's default weight update period, in ms.
pub const WEIGHT_PERIOD_MS: f64 = 1_000.0;
/// gRFC A58's default error utilization penalty.
pub const ERROR_PENALTY: f64 = 1.0;

/// What a server says of itself over a report period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadReport {
    /// Requests a second.
    pub qps: f64,
    /// Errors a second.
    pub eps: f64,
    /// Busy slot time over slot time, as a CPU utilization reads.
    pub utilization: f64,
}

impl LoadReport {
    /// The reporting server and its report, if `message` is a load
    /// report: the one reading of the bus's message both learned-weight
    /// rules (this and `envoy_cswrr.rs`) share.
    pub fn from_message(message: &Message) -> Option<(usize, LoadReport)> {
        match *message {
            Message::LoadReport { server, qps, eps, utilization } => {
                Some((server, LoadReport { qps, eps, utilization }))
            }
            _ => None,
        }
    }

    /// The weight the report gives, or `None` when it says no qps or no
    /// utilization (grpc-go ignores such a report).
    pub fn weight(&self, error_penalty: f64) -> Option<f64> {
        if self.utilization == 0.0 || self.qps == 0.0 {
            return None;
        }
        Some(self.qps / (self.utilization + self.eps / self.qps * error_penalty))
    }
}

/// When a weight may be used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Validity {
    /// From the first report to the first use, in ms (0: none).
    pub blackout_ms: f64,
    /// From the last report to the weight's expiry, in ms.
    pub expiration_ms: f64,
}

impl Default for Validity {
    fn default() -> Validity {
        Validity { blackout_ms: BLACKOUT_MS, expiration_ms: EXPIRATION_MS }
    }
}

/// One server's learned weight and when it was learned.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LearnedWeight {
    weight: f64,
    /// The first report since the weight last expired.
    non_empty_since_ms: Option<f64>,
    last_updated_ms: Option<f64>,
}

impl LearnedWeight {
    /// A report's weight arrives at `now_ms` (an ignored report changes
    /// nothing).
    pub fn report(&mut self, now_ms: f64, report: &LoadReport, error_penalty: f64) {
        let Some(weight) = report.weight(error_penalty) else {
            return;
        };
        self.weight = weight;
        self.last_updated_ms = Some(now_ms);
        self.non_empty_since_ms.get_or_insert(now_ms);
    }

    /// The weight the scheduler is given at `now_ms`: 0 (unknown) before
    /// any report, from expiry on, and in the blackout.
    pub fn usable(&mut self, now_ms: f64, validity: Validity) -> f64 {
        let Some(last) = self.last_updated_ms else {
            return 0.0;
        };
        if now_ms - last >= validity.expiration_ms {
            self.non_empty_since_ms = None;
            return 0.0;
        }
        if validity.blackout_ms != 0.0 {
            match self.non_empty_since_ms {
                Some(since) if now_ms - since >= validity.blackout_ms => {}
                _ => return 0.0,
            }
        }
        self.weight
    }
}

/// The picker: learned weights, the scheduler built from them, and the
/// shared sequence.
#[derive(Clone, Debug)]
pub struct WeightedRoundRobin {
    learned: Vec<LearnedWeight>,
    scheduler: Option<StrideScheduler>,
    sequence: u32,
    validity: Validity,
    error_penalty: f64,
    weight_period_ms: f64,
    /// When the scheduler is next rebuilt.
    next_rebuild_ms: f64,
    /// The weights the last rebuild gave the scheduler (0: none usable,
    /// which the scheduler fills with the mean), empty before the first.
    in_force: Vec<f64>,
}

impl WeightedRoundRobin {
    /// A picker over `servers` with no reports yet, its sequence starting
    /// at `sequence`.
    pub fn new(
        servers: usize,
        sequence: u32,
        validity: Validity,
        error_penalty: f64,
        weight_period_ms: f64,
    ) -> Self {
        WeightedRoundRobin {
            learned: alloc::vec![LearnedWeight::default(); servers],
            scheduler: None,
            sequence,
            validity,
            error_penalty,
            weight_period_ms,
            next_rebuild_ms: weight_period_ms,
            in_force: Vec::new(),
        }
    }

    /// `server`'s report arrives at `now_ms`.
    pub fn report(&mut self, server: usize, now_ms: f64, report: &LoadReport) {
        if let Some(learned) = self.learned.get_mut(server) {
            learned.report(now_ms, report, self.error_penalty);
        }
    }

    /// The weights the scheduler would be built from at `now_ms`.
    pub fn usable_weights(&mut self, now_ms: f64) -> Vec<f32> {
        let validity = self.validity;
        self.learned.iter_mut().map(|l| l.usable(now_ms, validity) as f32).collect()
    }

    /// The scheduler's rebuilds due by `now_ms`, one a weight period.
    fn rebuild_due(&mut self, now_ms: f64) {
        if now_ms < self.next_rebuild_ms {
            return;
        }
        let periods = libm::floor((now_ms - self.next_rebuild_ms) / self.weight_period_ms) + 1.0;
        self.next_rebuild_ms += periods * self.weight_period_ms;
        let weights = self.usable_weights(now_ms);
        self.scheduler = StrideScheduler::make(&weights);
        let validity = self.validity;
        self.in_force = self.learned.iter_mut().map(|l| l.usable(now_ms, validity)).collect();
    }

    /// The weights the last rebuild gave the scheduler, before their
    /// scaling (0: none usable); `None` before the first rebuild.
    pub fn weights_in_force(&self) -> Option<&[f64]> {
        (!self.in_force.is_empty()).then_some(&self.in_force[..])
    }

    /// The scaled weights the scheduler picks by, `None` while the picks
    /// are plain round robin.
    pub fn scheduled_weights(&self) -> Option<&[u16]> {
        self.scheduler.as_ref().map(StrideScheduler::weights)
    }

    /// The server the request at `now_ms` goes to.
    pub fn pick(&mut self, now_ms: f64) -> usize {
        self.rebuild_due(now_ms);
        match &self.scheduler {
            Some(scheduler) => scheduler.pick(&mut self.sequence),
            None => {
                let server = self.sequence as usize % self.learned.len().max(1);
                self.sequence = self.sequence.wrapping_add(1);
                server
            }
        }
    }
}

/// gRPC's `weighted_round_robin` as a balancer copy: the picker of one
/// channel, its weights learned from the bus's load reports.
#[derive(Clone, Debug)]
pub struct GrpcWrr {
    servers: usize,
    validity: Validity,
    error_penalty: f64,
    weight_period_ms: f64,
    reporting: Reporting,
    /// Built at the first pick, when the sequence's start is drawn.
    picker: Option<WeightedRoundRobin>,
    /// What the reports heard before the first pick taught, a server
    /// each (empty before any). Folded as they come: nothing reads the
    /// weights before the picker's first rebuild, so the picker's own
    /// learned weights would end the same, and a copy that waits long for
    /// its first request (many copies, out-of-band reports) keeps one
    /// entry a server, not one a report.
    early: Vec<LearnedWeight>,
}

impl GrpcWrr {
    /// A picker over `pool` with the pool's learning settings.
    pub fn new(pool: &Pool) -> GrpcWrr {
        let learning = pool.learning;
        GrpcWrr {
            servers: pool.len(),
            validity: Validity { blackout_ms: learning.blackout_ms, expiration_ms: learning.expiration_ms },
            error_penalty: learning.error_penalty,
            weight_period_ms: learning.weight_period_ms,
            reporting: learning.reporting,
            picker: None,
            early: Vec::new(),
        }
    }

    /// The picker, built with a drawn start (C-core draws it once per
    /// picker) and the reports heard before it.
    fn picker(&mut self, rng: &mut Rng) -> &mut WeightedRoundRobin {
        let early = &mut self.early;
        let (servers, validity, penalty, period) =
            (self.servers, self.validity, self.error_penalty, self.weight_period_ms);
        self.picker.get_or_insert_with(|| {
            let start = below(rng, 1 << 32) as u32;
            let mut picker = WeightedRoundRobin::new(servers, start, validity, penalty, period);
            if !early.is_empty() {
                picker.learned = core::mem::take(early);
            }
            picker
        })
    }

    /// The scaled weights the last rebuild gave the scheduler (`None`:
    /// round robin), what `lbsim trace` shows of the learned weights.
    pub fn scheduled_weights(&self) -> Option<&[u16]> {
        self.picker.as_ref().and_then(WeightedRoundRobin::scheduled_weights)
    }
}

impl Balancer for GrpcWrr {
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize {
        self.picker(rng).pick(request.now_ms)
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn subscribes(&self) -> Subscription {
        Subscription { load_reports: Some(self.reporting), ..Subscription::NOTHING }
    }

    fn receive(&mut self, now_ms: f64, message: &Message) {
        if let Some((server, report)) = LoadReport::from_message(message) {
            match self.picker.as_mut() {
                Some(picker) => picker.report(server, now_ms, &report),
                None => {
                    if self.early.is_empty() {
                        self.early = alloc::vec![LearnedWeight::default(); self.servers];
                    }
                    if let Some(learned) = self.early.get_mut(server) {
                        learned.report(now_ms, &report, self.error_penalty);
                    }
                }
            }
        }
    }

    fn weights(&self) -> Option<&[f64]> {
        self.picker.as_ref().and_then(WeightedRoundRobin::weights_in_force)
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        let n = self.servers;
        let picker = self.picker(rng);
        for _ in 0..2 * n {
            let server = picker.pick(request.now_ms);
            if eligible.allows(server) {
                return Some(server);
            }
        }
        uniform_among(n, rng, |s| eligible.allows(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// grpc-go's `balancer/weightedroundrobin/balancer_test.go`: the
    /// weights its tests' comments work out, from qps, utilization, eps
    /// and the penalty (kept in `tests/oracles/grpc_wrr_weights.txt`).
    #[test]
    fn the_weights_grpc_gos_tests_work_out() {
        let text = include_str!("../../../../tests/oracles/grpc_wrr_weights.txt");
        let mut held = 0;
        for line in text.lines().filter(|l| l.starts_with("weight ")) {
            let field = |name: &str| -> f64 {
                let word = line.split_whitespace().find_map(|w| w.strip_prefix(name)).expect(name);
                word.parse().expect(name)
            };
            let report =
                LoadReport { qps: field("qps="), eps: field("eps="), utilization: field("utilization=") };
            let weight = report.weight(field("penalty=")).unwrap_or(0.0);
            let expected = field("gives=");
            assert!((weight - expected).abs() < 1e-9 * expected.max(1.0), "{line}: {weight}");
            held += 1;
        }
        assert_eq!(held, 6);
    }

    /// The pool's defaults, written out in `rule.rs`, are gRFC A58's.
    #[test]
    fn the_pools_defaults_are_grfc_a58s() {
        let learning = Pool::named(&["a"]).learning;
        assert_eq!(learning.blackout_ms, BLACKOUT_MS);
        assert_eq!(learning.expiration_ms, EXPIRATION_MS);
        assert_eq!(learning.weight_period_ms, WEIGHT_PERIOD_MS);
        assert_eq!(learning.error_penalty, ERROR_PENALTY);
        assert!(!learning.reporting.out_of_band);
    }

    /// grpc-go's `weight`: unknown before any report, through the
    /// blackout, known from its end, unknown again at expiry, and after
    /// expiry the blackout starts again from the next report.
    #[test]
    fn blackout_and_expiration_as_grpc_go_reads_them() {
        let validity = Validity::default();
        let report = LoadReport { qps: 10.0, eps: 0.0, utilization: 0.5 };
        let mut learned = LearnedWeight::default();
        assert_eq!(learned.usable(0.0, validity), 0.0);
        learned.report(1_000.0, &report, ERROR_PENALTY);
        assert_eq!(learned.usable(10_999.0, validity), 0.0, "in the blackout");
        assert_eq!(learned.usable(11_000.0, validity), 20.0, "blackout over");
        assert_eq!(learned.usable(180_999.0, validity), 20.0, "before expiry");
        assert_eq!(learned.usable(181_000.0, validity), 0.0, "expired");
        learned.report(200_000.0, &report, ERROR_PENALTY);
        assert_eq!(learned.usable(205_000.0, validity), 0.0, "a fresh blackout");
        assert_eq!(learned.usable(210_000.0, validity), 20.0);
        let none = Validity { blackout_ms: 0.0, ..validity };
        let mut at_once = LearnedWeight::default();
        at_once.report(0.0, &report, ERROR_PENALTY);
        assert_eq!(at_once.usable(0.0, none), 20.0, "a blackout of 0 is none");
        let empty = LoadReport { qps: 10.0, eps: 0.0, utilization: 0.0 };
        at_once.report(5.0, &empty, ERROR_PENALTY);
        assert_eq!(at_once.usable(5.0, none), 20.0, "an empty report is ignored");
    }

    /// The scheduler is rebuilt once a weight period, so a weight learned
    /// mid-period is used from the next rebuild; before any weight is
    /// known the picks are the sequence's round robin.
    #[test]
    fn weights_take_effect_at_the_next_rebuild() {
        let none = Validity { blackout_ms: 0.0, ..Validity::default() };
        let mut wrr = WeightedRoundRobin::new(3, 0, none, ERROR_PENALTY, WEIGHT_PERIOD_MS);
        let turn: Vec<usize> = (0..6).map(|_| wrr.pick(10.0)).collect();
        assert_eq!(turn, [0, 1, 2, 0, 1, 2]);
        for (server, qps) in [(0, 1.0), (1, 2.0), (2, 3.0)] {
            wrr.report(server, 500.0, &LoadReport { qps, eps: 0.0, utilization: 1.0 });
        }
        // Still the round robin until 1 s.
        let mut before = [0; 3];
        for _ in 0..3_000 {
            before[wrr.pick(999.0)] += 1;
        }
        assert_eq!(before, [1_000; 3]);
        // From 1 s, the stride scheduler on 1, 2, 3 from sequence 7 on.
        let mut counts = [0; 3];
        for _ in 0..6 * 65_535 {
            counts[wrr.pick(1_000.0)] += 1;
        }
        let share = |c: i32| f64::from(c) / f64::from(6 * 65_535);
        assert!((share(counts[0]) - 1.0 / 6.0).abs() < 1e-3, "{counts:?}");
        assert!((share(counts[2]) - 3.0 / 6.0).abs() < 1e-3, "{counts:?}");
    }

    /// A copy that hears reports before its first pick learns from them as
    /// its picker would have from each in turn (grpc-go's
    /// `endpointWeight.OnLoadReport`: the last weight, the first report's
    /// time): reports with and without a weight, over servers, with the
    /// first one of server 1 ignored (no qps), then the first pick.
    #[test]
    fn reports_before_the_first_pick_teach_as_each_would() {
        use rand::SeedableRng;
        let reports = [
            (0, 100.0, LoadReport { qps: 10.0, eps: 0.0, utilization: 0.5 }),
            (1, 150.0, LoadReport { qps: 0.0, eps: 0.0, utilization: 0.5 }),
            (1, 200.0, LoadReport { qps: 30.0, eps: 3.0, utilization: 0.25 }),
            (0, 300.0, LoadReport { qps: 20.0, eps: 0.0, utilization: 0.5 }),
            (1, 400.0, LoadReport { qps: 0.0, eps: 0.0, utilization: 0.0 }),
        ];
        let mut copy = GrpcWrr::new(&Pool::named(&["a", "b", "c"]));
        for (server, at, report) in reports {
            copy.receive(
                at,
                &Message::LoadReport {
                    server,
                    qps: report.qps,
                    eps: report.eps,
                    utilization: report.utilization,
                },
            );
        }
        copy.pick(&Pick { now_ms: 500.0, user: 1 }, &mut Rng::seed_from_u64(1));
        let mut each =
            WeightedRoundRobin::new(3, 0, copy.validity, copy.error_penalty, copy.weight_period_ms);
        for (server, at, report) in &reports {
            each.report(*server, *at, report);
        }
        let learned = copy.picker.as_ref().map(|p| p.learned.clone());
        assert_eq!(learned, Some(each.learned));
        // The weights as gRFC A58 computes them from each server's last report.
        let weights: Vec<f64> = learned.unwrap_or_default().iter().map(|l| l.weight).collect();
        assert_eq!(weights, [40.0, 30.0 / (0.25 + 0.1), 0.0]);
    }
}
