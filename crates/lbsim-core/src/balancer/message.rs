//! What a rule may know beyond its own requests (docs/model.md#what-a-rule-may-know):
//! timed messages from the servers, which the engine delivers to balancer
//! copies in time order. A rule says what it listens to with
//! [`Subscription`] (`Balancer::subscribes`, nothing by default, so the
//! classic rules run exactly as they did) and hears each message through
//! `Balancer::receive`. Prequal's probes go out through `Balancer::send_probes`,
//! after each pick and when the engine wakes an idle copy (`Balancer::wake_at`).
//!
//! Three kinds, each modelled on what a real server sends:
//! - a probe reply (Prequal): the server's requests in flight and its
//!   latency estimate as of the instant the probe reached it, arriving a
//!   probe round trip after it was sent;
//! - a load report (gRPC's ORCA, gRFC A58): queries, errors a second and
//!   utilization (busy slot time over slot time) over the server's last
//!   closed report period; per call (with each completion, to the copy
//!   that sent the request) or out of band (every period, to every copy);
//! - an idle announcement (JIQ): a server gained a free slot and is in no
//!   copy's idle queue, so it joins one copy's, chosen by the server.

/// What a rule listens to. [`Subscription::NOTHING`] for the classic rules:
/// the engine then keeps no message machinery at all for the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Subscription {
    /// Probe replies: the engine asks `Balancer::send_probes` after every pick
    /// and delivers each probe's reply `probe_rtt_ms` later.
    pub probes: Option<Probing>,
    /// Load reports from the servers.
    pub load_reports: Option<Reporting>,
    /// Idle announcements, and how a server chooses the copy it joins.
    pub idle: Option<Joining>,
    /// Wake-ups: after each pick and each wake-up the engine asks
    /// `Balancer::wake_at` when to wake the copy next, and at that time,
    /// unless a later answer moved it, calls `Balancer::woken` (Prequal
    /// probes a copy that has been idle).
    pub wakes: bool,
}

impl Subscription {
    /// No messages (every classic rule).
    pub const NOTHING: Subscription =
        Subscription { probes: None, load_reports: None, idle: None, wakes: false };

    /// Whether the rule listens to anything.
    pub fn any(&self) -> bool {
        *self != Subscription::NOTHING
    }
}

/// How probes travel and what they cost the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probing {
    /// Round trip of a probe, ms: it reaches the server half of it after
    /// being sent, and its reply arrives at the copy the whole of it after.
    pub rtt_ms: f64,
    /// Server time a probe costs, ms: it takes no slot, but the server's
    /// earliest slot frees that much later (busy time the server spends
    /// answering it).
    pub cost_ms: f64,
}

/// How load reports are sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reporting {
    /// The period a server's figures are measured over, ms (the server
    /// closes a period every `period_ms` from time 0, and a report
    /// carries the last closed one).
    pub period_ms: f64,
    /// Out of band: every server sends its figures to every copy at the
    /// end of each period. Otherwise per call: a completion brings the
    /// figures to the copy whose request completed (gRFC A58's default).
    pub out_of_band: bool,
}

/// How a rule that learns weights from load reports hears and uses them
/// (gRFC A58's `weighted_round_robin` settings, which Envoy's
/// client-side weighted round robin shares).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightLearning {
    /// How the servers report.
    pub reporting: Reporting,
    /// From a server's first report to its weight's first use, ms (0: none).
    pub blackout_ms: f64,
    /// From a server's last report to its weight's expiry, ms.
    pub expiration_ms: f64,
    /// How often the weights are recomputed, ms.
    pub weight_period_ms: f64,
    /// The weight of errors: `qps / (utilization + eps / qps x penalty)`.
    pub error_penalty: f64,
}

/// How a server that gained a free slot chooses the copy whose idle queue
/// it joins (JIQ, Lu et al. 2011): `sampled` copies drawn uniformly, the
/// one with the shortest idle queue (`Balancer::idle_queue`) taken, ties to
/// the first drawn; `sampled = 1` is JIQ-Random.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Joining {
    /// Copies sampled, at least 1.
    pub sampled: u32,
}

/// One message from a server to a balancer copy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Message {
    /// A probe this copy sent to `server` came back.
    ProbeReply {
        /// The server probed.
        server: usize,
        /// When the probe reached the server, ms (what the figures are as of).
        reached_ms: f64,
        /// Requests the server held (running and queued) then.
        in_flight: u32,
        /// The server's latency estimate then, ms: the median latency of
        /// its recent requests whose in-flight count on arrival was nearest
        /// `in_flight` (`None` before any finished).
        latency_ms: Option<f64>,
    },
    /// `server`'s figures over its last closed report period.
    LoadReport {
        /// The reporting server.
        server: usize,
        /// Requests finished a second.
        qps: f64,
        /// Requests that failed a second.
        eps: f64,
        /// Busy slot time over slot time.
        utilization: f64,
    },
    /// `server` has a free slot and joins this copy's idle queue.
    Idle {
        /// The idle server.
        server: usize,
    },
}

/// A probe a copy sent, as its reply told it (docs/model.md#what-a-rule-may-know):
/// what a replay keeps of each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeTrip {
    /// The balancer copy that sent it (0-based).
    pub copy: u32,
    /// The server probed (0-based).
    pub server: u32,
    /// When it was sent, ms: half a probe round trip before it reached
    /// the server.
    pub sent_ms: f64,
    /// When it reached the server, ms: what its figures are as of.
    pub reached_ms: f64,
    /// When its reply reached the copy, ms.
    pub replied_ms: f64,
    /// Requests the server held then.
    pub in_flight: u32,
    /// The server's latency estimate then, ms (none before it finished any).
    pub latency_ms: Option<f64>,
}
