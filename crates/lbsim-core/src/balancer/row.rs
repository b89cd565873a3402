//! What a rule's registry row says besides its type, id, colour and
//! description: what it builds before its first request (the cost
//! estimate prices it) and what each real balancer calls it (`lbsim
//! config` writes it). Every row must say both, so a new rule does not
//! build until they are decided; the code that reads them matches these
//! small enums, never the list of rules.

/// What a rule builds from the pool before its first request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// Nothing worth pricing: counters, weights, a schedule.
    Nothing,
    /// One hash ring that every balancer copy shares.
    Ring,
    /// A hash ring per balancer copy (the rule keeps per-copy counts on it).
    RingPerCopy,
    /// A Maglev lookup table (one per copy when the fleet changes, since
    /// each copy sees its own availability).
    MaglevTable,
    /// Each user's scores against every server, computed when the user
    /// first comes.
    ScoresPerUser,
}

/// NGINX's directive for a rule, in its `upstream` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nginx {
    /// No directive: NGINX's default, smooth weighted round robin.
    RoundRobin,
    /// `least_conn;`
    LeastConn,
    /// `random;`
    Random,
    /// `random two least_conn;`
    RandomTwoLeastConn,
    /// `hash KEY;`
    Hash,
    /// `hash KEY consistent;`
    HashConsistent,
}

/// HAProxy's `balance` for a rule, in its `backend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Haproxy {
    /// `balance roundrobin`
    RoundRobin,
    /// `balance leastconn`
    LeastConn,
    /// `balance random(1)`
    Random,
    /// `balance random(2)`
    RandomTwo,
    /// `balance KEY` with `hash-type map-based`.
    HashMapBased,
    /// `balance KEY` with `hash-type consistent`.
    HashConsistent,
    /// As `HashConsistent`, with `hash-balance-factor`.
    HashConsistentBounded,
}

/// Envoy's `lb_policy` for a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Envoy {
    /// `ROUND_ROBIN`
    RoundRobin,
    /// `LEAST_REQUEST` (power of two choices on active requests).
    LeastRequest,
    /// `RANDOM`
    Random,
    /// `RING_HASH`
    RingHash,
    /// `MAGLEV`
    Maglev,
    /// `load_balancing_policy` with the
    /// `envoy.load_balancing_policies.client_side_weighted_round_robin` extension.
    ClientSideWeightedRoundRobin,
}

/// gRPC's `loadBalancingConfig` policy for a rule, in its service config
/// (docs/cli.md#lbsim-config).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grpc {
    /// `round_robin`
    RoundRobin,
    /// `least_request_experimental` (gRFC A48): the least outstanding of
    /// `choiceCount` random picks.
    LeastRequest,
    /// `ring_hash_experimental` (gRFC A42).
    RingHash,
    /// `weighted_round_robin` (gRFC A58).
    WeightedRoundRobin,
}

/// What each real balancer calls a rule; `None` where it has no such rule
/// (`lbsim config` then writes round robin and says so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InPrograms {
    /// NGINX 1.22 open source.
    pub nginx: Option<Nginx>,
    /// HAProxy 2.6.
    pub haproxy: Option<Haproxy>,
    /// Envoy.
    pub envoy: Option<Envoy>,
    /// gRPC's service config.
    pub grpc: Option<Grpc>,
}
