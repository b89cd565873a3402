//! The conditions the rows of the field table (`fields.rs`) name, as
//! methods of the scenario: when a field affects a scenario's numbers
//! (`applies`), and when a balancer's configuration must say it lacks a
//! setting the scenario asks for (`MissingWhen`, with its note from
//! `notes.rs`).

use super::kinds::Layer;
use super::Scenario;
use crate::balancer::AlgorithmId;

impl Scenario {
    /// Least request is asked for with a bias away from Envoy's default.
    pub(super) fn biased_least_request(&self, rule: AlgorithmId) -> bool {
        rule == AlgorithmId::LeastRequest && self.active_request_bias != 1.0
    }

    /// A rule that learns weights from load reports runs (gRPC's or
    /// Envoy's): the settings of those weights act.
    pub(super) fn learns_weights(&self) -> bool {
        self.algorithms.iter().any(|a| matches!(a, AlgorithmId::GrpcWrr | AlgorithmId::EnvoyCswrr))
    }

    /// Health and warm-up settings act only on a fleet that changes.
    pub(super) fn fleet_changes(&self) -> bool {
        !self.events.is_empty()
    }

    /// Retries and HTTP errors are layer 7's: a layer 4 connection is placed
    /// once and carries no status (docs/model.md#caches-and-connections).
    pub(super) fn fleet_changes_at_layer_7(&self) -> bool {
        self.fleet_changes() && self.layer == Layer::L7
    }

    /// NGINX's passive checks are on by default (`max_fails=1`): they act
    /// whenever servers fail.
    pub(super) fn passive_checks(&self, _: AlgorithmId) -> bool {
        self.max_fails > 0 && self.fleet_changes()
    }

    /// Active health checks are on.
    pub(super) fn active_checks(&self, _: AlgorithmId) -> bool {
        self.check_ms > 0
    }

    /// Outlier detection is on.
    pub(super) fn outlier_detection(&self, _: AlgorithmId) -> bool {
        self.outlier_5xx > 0
    }

    /// Slow start is on.
    pub(super) fn slow_start(&self, _: AlgorithmId) -> bool {
        self.slow_start_ms > 0
    }
}
