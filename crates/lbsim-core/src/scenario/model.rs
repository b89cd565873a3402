//! What follows from a scenario's fields alone: its capacity and rate,
//! its servers' names, speeds and weights, the pool the balancers see.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::fields::Scenario;
use super::kinds::WorkKind;
use crate::balancer::{AlgorithmId, Pool};

impl Scenario {
    /// The pool the balancers work over: the servers' names and weights
    /// and the hashing rules' settings.
    pub fn pool(&self) -> Pool {
        let n = self.servers as usize;
        Pool {
            names: (0..n).map(|i| self.server_name(i)).collect(),
            weights: (0..n).map(|i| self.weight(i)).collect(),
            hash: self.hash,
            vnodes: self.vnodes,
            balance_factor: self.balance_factor,
            builder: self.builder,
            maglev_size: self.maglev_size,
            max_fails: self.max_fails,
            keys: crate::balancer::UserKeys::default(),
            jiq_sampled: self.jiq_sampled,
            active_request_bias: self.active_request_bias,
            learning: crate::balancer::WeightLearning {
                reporting: crate::balancer::Reporting {
                    period_ms: f64::from(self.report_period),
                    out_of_band: self.out_of_band,
                },
                blackout_ms: f64::from(self.blackout),
                expiration_ms: f64::from(self.expiration),
                weight_period_ms: f64::from(self.weight_period),
                error_penalty: self.error_penalty,
            },
            aperture_size: self.aperture_size,
            prequal: crate::balancer::PrequalSettings {
                probe_rate: self.probe_rate,
                probe_rtt_ms: self.probe_rtt_ms,
                probe_cost_ms: self.probe_cost_ms,
                q_rif: self.q_rif,
                pool_size: self.pool_size,
                max_age_ms: self.max_age_ms,
                remove_rate: self.remove_rate,
                reuse_delta: self.reuse_delta,
                idle_probe_ms: self.idle_probe_ms,
            },
        }
    }

    /// The scenario's rules in canonical order, once each (as a run takes
    /// them, whatever order or repeats the field holds).
    pub fn rules(&self) -> Vec<AlgorithmId> {
        AlgorithmId::ALL.iter().copied().filter(|a| self.algorithms.contains(a)).collect()
    }

    /// `E[work]` in ms from the distribution's parameters.
    pub fn mean_work_ms(&self) -> f64 {
        match self.work {
            WorkKind::Bimodal => (1.0 - self.slow_share) * self.fast_ms + self.slow_share * self.slow_ms,
            WorkKind::Constant | WorkKind::Exponential | WorkKind::Lognormal => self.mean_ms,
        }
    }

    /// Speed of server `i` (1 unless given).
    pub fn speed(&self, i: usize) -> f64 {
        self.speeds.get(i).copied().unwrap_or(1.0)
    }

    /// Weight of server `i` (1 unless given).
    pub fn weight(&self, i: usize) -> u32 {
        self.weights.get(i).copied().unwrap_or(1)
    }

    /// Name of server `i` (`s1`.. unless given).
    pub fn server_name(&self, i: usize) -> String {
        self.names.get(i).cloned().unwrap_or_else(|| format!("s{}", i + 1))
    }

    /// Total capacity in work-ms per ms: `sum(slots * speed)` over the
    /// servers in the pool at time 0 (a server that joins later is not).
    pub fn capacity(&self) -> f64 {
        (0..self.servers as usize)
            .filter(|&i| self.events.is_empty() || !self.events.starts_outside(&self.server_name(i)))
            .map(|i| self.slots as f64 * self.speed(i))
            .sum()
    }

    /// Whether servers keep caches (docs/model.md#caches-and-connections).
    pub fn uses_caches(&self) -> bool {
        self.cache_keys > 0
    }

    /// Arrival rate in requests per second: given, or
    /// `load * sum(slots * speed) / E[work]`.
    pub fn rate_per_s(&self) -> f64 {
        match self.rate {
            Some(rate) => rate,
            None => self.load * self.capacity() / self.mean_work_ms() * 1000.0,
        }
    }

    /// Offered load the arrival rate implies: `rate * E[work] / capacity`.
    pub fn offered_load(&self) -> f64 {
        self.rate_per_s() / 1000.0 * self.mean_work_ms() / self.capacity()
    }

    /// Keeps the per-server lists (speeds, weights, names) one per server
    /// after `servers` changed: longer lists are cut, shorter ones filled
    /// with the defaults (speed 1, weight 1, the next free `sN` name).
    /// Lists left empty stay empty (they mean "all defaults").
    pub fn fit_lists(&mut self) {
        let n = self.servers as usize;
        if !self.speeds.is_empty() {
            self.speeds.resize(n, 1.0);
        }
        if !self.weights.is_empty() {
            self.weights.resize(n, 1);
        }
        if !self.names.is_empty() {
            self.names.truncate(n);
            let mut i = self.names.len();
            while self.names.len() < n {
                i += 1;
                let name = format!("s{i}");
                if !self.names.contains(&name) {
                    self.names.push(name);
                }
            }
        }
    }
}
