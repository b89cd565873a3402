//! What a log holds, as the simulator takes it.

use alloc::string::String;
use alloc::vec::Vec;

use super::summary::TrafficSummary;
use crate::scenario::{LogKind, Scenario};
use crate::workload::Request;

/// What a log holds, as the simulator takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// In arrival order, arrivals from 0 ms (timestamps shifted so the
    /// first is 0; CSV taken as written), work in ms at speed 1, `user` a
    /// 1-based index into `keys`, `slow` from a class column when present,
    /// `copy` 0 (assigned per scenario when run).
    pub requests: Vec<Request>,
    /// The hashing key of user k is `keys[k - 1]` (`203.0.113.7`, or
    /// `user-7` from lbsim's own export, which is read back as user 7).
    pub keys: Vec<String>,
    /// Per request, the index into `servers` of the server the log says
    /// answered (`u16::MAX` when unknown).
    pub served_by: Vec<u16>,
    /// Servers seen, named as the scenario's name grammar allows (all
    /// renamed `s1`.. with a note when one is not).
    pub servers: Vec<String>,
    /// Whether requests carry quick/slow classes.
    pub classed: bool,
    /// Requests that failed (a 5xx, a connection error), counted and not
    /// replayed as work.
    pub errors: u64,
    /// Retries the logging balancer made, counted and not replayed.
    pub retries: u64,
    /// What the reader decided that a reader of the results should know.
    pub notes: Vec<String>,
    /// The kind the log was read as.
    pub kind: LogKind,
}

impl Traffic {
    /// What was read, before any run: span, rate over time, work
    /// percentiles, top keys' shares, servers seen.
    pub fn summary(&self) -> TrafficSummary {
        TrafficSummary::of(&self.requests, &self.keys, &self.servers, &self.served_by)
    }

    /// Makes the log's servers the scenario's fleet (their count and
    /// names, speeds and weights cleared), for a front end whose user has
    /// not set the servers; a log that names no server leaves it alone.
    pub fn fleet_into(&self, scenario: &mut Scenario) {
        if self.servers.is_empty() {
            return;
        }
        scenario.servers = self.servers.len() as u32;
        scenario.names = self.servers.clone();
        scenario.speeds.clear();
        scenario.weights.clear();
    }

    /// The hashing key of a request's user.
    pub fn key(&self, user: u32) -> &str {
        self.keys.get(user.wrapping_sub(1) as usize).map_or("", String::as_str)
    }
}
