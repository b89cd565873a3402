//! What every rule is and gets: the [`Balancer`] trait, the request as a
//! rule sees it ([`Pick`]), the pool it works over ([`Pool`]), which
//! servers it may take ([`Eligible`]), and the counting and drawing
//! helpers several rules share. The rules import this, never the
//! registry above them.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::builder::Builder;
use super::message::{Message, Reporting, Subscription, WeightLearning};
use crate::hash::{HashFn, KeyBuf};
use crate::rng::{below, Rng};

/// What a balancer knows about a request when it picks.
#[derive(Clone, Copy, Debug)]
pub struct Pick {
    /// Arrival time in ms.
    pub now_ms: f64,
    /// The user (1-based); the hashing key is `user-{id}`.
    pub user: u32,
}

impl Pick {
    /// The hashing key `user-{id}`.
    pub fn key(&self) -> KeyBuf {
        KeyBuf::new("user-", u64::from(self.user))
    }
}

/// The hashing key of each user: `user-{id}` ([`Pick::key`]), or the keys
/// an access log holds (docs/model.md#your-own-traffic), user k's the
/// k-th, so a hashing rule places a logged key as the real balancer did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserKeys {
    logged: Option<Arc<[String]>>,
}

impl UserKeys {
    /// A log's keys, user k's at `keys[k - 1]`.
    pub fn logged(keys: Arc<[String]>) -> UserKeys {
        UserKeys { logged: Some(keys) }
    }

    /// The key a rule hashes for a request.
    #[inline]
    pub fn key(&self, request: &Pick) -> KeyBuf {
        match self.name(request.user) {
            Some(key) => KeyBuf::text(key),
            None => request.key(),
        }
    }

    /// A logged user's key; `None` for `user-{id}`.
    pub fn name(&self, user: u32) -> Option<&str> {
        let keys = self.logged.as_ref()?;
        keys.get((user as usize).wrapping_sub(1)).map(String::as_str)
    }
}

/// A load-balancing rule.
pub trait Balancer {
    /// Chooses a server (an index into the pool) for a request.
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize;
    /// The request picked last went to `server`.
    fn dispatched(&mut self, _server: usize) {}
    /// A request this copy sent to `server` finished at `now_ms` after
    /// `latency_ms`.
    fn completed(&mut self, _server: usize, _now_ms: f64, _latency_ms: f64) {}
    /// An attempt on `server` failed (a connection error, or a 500 counted
    /// as failed), told just after its completion. Only NGINX's weights
    /// take note: a failed peer's effective weight drops.
    fn failed(&mut self, _server: usize) {}
    /// Layer 4 (docs/model.md#caches-and-connections): a connection this copy opened to
    /// `server` (`dispatched` counted it) closed at `now_ms`. Counting
    /// rules count open connections, so by default it is a completion
    /// (whose latency no counting rule reads).
    fn closed(&mut self, server: usize, now_ms: f64) {
        self.completed(server, now_ms, 0.0);
    }
    /// Layer 4: a request on a connection this copy placed on `server`
    /// finished at `now_ms` after `latency_ms` (rules that learn from
    /// latency learn from it; counting rules count connections instead).
    fn observed(&mut self, _server: usize, _now_ms: f64, _latency_ms: f64) {}
    /// Whether the rule reads completions; static rules skip that work.
    fn observes_completions(&self) -> bool {
        true
    }
    /// Whether the rule reads completions only as servers' counts of
    /// unfinished requests, at its picks, whatever order they finished in
    /// (two choices, least request). A static run with one copy then
    /// answers the counts from the servers themselves through
    /// [`Balancer::pick_counting`] and delivers no completions: a server's
    /// unfinished requests at an instant are its busy slots and its queue.
    fn counts_at_pick(&self) -> bool {
        false
    }
    /// `pick`, with each server's unfinished requests read from
    /// `unfinished` instead of the rule's own counts (called only when
    /// [`Balancer::counts_at_pick`]; the rule's counts are then not kept).
    fn pick_counting(&mut self, request: &Pick, rng: &mut Rng, _unfinished: &dyn Counts) -> usize {
        self.pick(request, rng)
    }
    /// Whether the rule keeps no state of a copy's own (its choices depend
    /// on the key or the random stream only), so one instance serves every
    /// balancer copy and its tables are built once.
    fn shared_by_copies(&self) -> bool {
        false
    }

    // The fleet over time (docs/model.md#the-fleet-over-time): a run with events or health
    // checks calls these instead of `pick` alone. Static runs never do.

    /// Chooses among the servers `eligible` allows, the rule's own next
    /// candidate when its first choice is not allowed (rules that compare
    /// or sample choose among the allowed only; a ring walks clockwise;
    /// rendezvous takes the next score; `user-hash` rehashes as NGINX's
    /// `hash`; Maglev probes the next entries); `None` when none is.
    ///
    /// With every server allowed ([`Eligible::all`]) it makes exactly
    /// `pick`'s choice and draws, so a healthy fleet run is a static one.
    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize>;

    /// Membership or availability changed (a `join` or `leave` is a config
    /// reload; a health change is Envoy's host-set change): rebuild what
    /// depends on it. `members[i]`: server i is in the pool; `available[i]`:
    /// it is a member this copy may send to. Per-server state of the
    /// servers that stay (counts, EWMAs, served totals) is kept.
    fn reshape(&mut self, _members: &[bool], _available: &[bool]) {}

    /// Whether one instance can serve every copy of a fleet run too: the
    /// rule keeps no state of a copy's own and reads availability only
    /// from each pick's [`Eligible`] (`reshape` and `reweight` change
    /// nothing), so a ring is built once however many copies there are.
    fn shared_in_fleet(&self) -> bool {
        false
    }

    // What a rule may know beyond its own requests
    // (docs/model.md#what-a-rule-may-know): messages from the servers, which
    // both engines deliver in time order to the rules that subscribe.

    /// What the rule hears from the servers; nothing by default, and then
    /// the engine keeps no message machinery for the run.
    fn subscribes(&self) -> Subscription {
        Subscription::NOTHING
    }

    /// A message the rule subscribed to arrived at `now_ms`.
    fn receive(&mut self, _now_ms: f64, _message: &Message) {}

    /// Just after a pick at `now_ms` (a rule subscribed to probe replies):
    /// the servers to probe now, pushed onto `to`.
    fn send_probes(&mut self, _now_ms: f64, _rng: &mut Rng, _to: &mut Vec<usize>) {}

    /// When this copy asks to be woken next, ms (a rule subscribed to
    /// wake-ups; asked after each pick and each wake-up, the last answer
    /// counts); `None`: not at all.
    fn wake_at(&self) -> Option<f64> {
        None
    }

    /// Woken at `now_ms`, as [`Balancer::wake_at`] asked: the servers to
    /// probe now, pushed onto `to`; `rng` is the bus's own stream.
    fn woken(&mut self, _now_ms: f64, _rng: &mut Rng, _to: &mut Vec<usize>) {}

    /// Servers waiting in this copy's idle queue, which a server that
    /// joins one compares (a rule subscribed to idle announcements).
    fn idle_queue(&self) -> usize {
        0
    }

    /// Slow start changed the effective weights (the configured weight
    /// times 256 times the ramp, docs/model.md#order-and-weights-in-the-loop):
    /// rules that use weights or counts take them, keeping their counts;
    /// hashing rules ignore them.
    fn reweight(&mut self, _weights: &[u32]) {}

    /// This is copy `copy` of a run's `copies`, told once before the
    /// first pick: a rule that shares the servers out among the copies
    /// (aperture's ring coordinates) takes its part.
    fn place(&mut self, _copy: usize, _copies: usize) {}

    /// The servers this copy may send to, the connections it holds, where
    /// the rule keeps to fewer than every server (aperture's slice);
    /// `None` for a full mesh (docs/model.md#finagles-aperture).
    fn connections(&self) -> Option<usize> {
        None
    }

    /// The weights this copy picks by, one a server, as its last update
    /// set them, where the rule learns them from the servers' load
    /// reports (docs/model.md#learned-weights-in-a-trace-and-a-replay);
    /// `None` for every other rule, and before the first update. A
    /// replay and `lbsim trace` read them after each pick and show a
    /// change as a weight update.
    fn weights(&self) -> Option<&[f64]> {
        None
    }
}

/// What a fleet-run pick may take: members available to this copy that
/// the request has not tried yet.
#[derive(Clone, Copy, Debug)]
pub struct Eligible<'a> {
    /// Per server: a member of the pool, available to this copy.
    pub available: &'a [bool],
    /// Servers this request already tried (a retry goes elsewhere).
    pub tried: &'a [u32],
    /// Whether every server of the scenario is in `available` (kept by the
    /// engine as availability changes, so asking costs nothing).
    pub every_available: bool,
}

impl Eligible<'_> {
    /// Whether the pick may take `server`.
    pub fn allows(&self, server: usize) -> bool {
        self.available.get(server).copied().unwrap_or(false) && !self.tried.contains(&(server as u32))
    }

    /// Whether every server is allowed (the rule's static pick stands).
    pub fn all(&self) -> bool {
        self.every_available && self.tried.is_empty()
    }

    /// Whether any server is allowed (otherwise the pick is `None`).
    pub fn any(&self) -> bool {
        (0..self.available.len()).any(|s| self.allows(s))
    }
}

/// The pool as the rules see it.
#[derive(Clone, Debug)]
pub struct Pool {
    /// Server names (`s1`.. unless given).
    pub names: Vec<String>,
    /// Server weights.
    pub weights: Vec<u32>,
    /// Hash function of the hashing rules; `None` for each rule's default.
    pub hash: Option<HashFn>,
    /// Ring points per weight unit.
    pub vnodes: u32,
    /// Bounded-load factor in percent.
    pub balance_factor: u32,
    /// Whose construction the rules follow.
    pub builder: Builder,
    /// Entries of a Maglev table (a prime).
    pub maglev_size: u32,
    /// NGINX's `max_fails`: a failed attempt lowers a peer's effective
    /// weight by its weight over this (0: never).
    pub max_fails: u32,
    /// The key the hashing rules hash for each user.
    pub keys: UserKeys,
    /// JIQ: copies an idle server samples for the shortest idle queue
    /// (1: JIQ-Random).
    pub jiq_sampled: u32,
    /// Envoy least request's `active_request_bias`: with unequal weights
    /// a host's weight is divided by `(active + 1)` to this power.
    pub active_request_bias: f64,
    /// gRPC's and Envoy's learned weights: the load reports and how the
    /// weights are kept.
    pub learning: WeightLearning,
    /// Finagle's aperture: the servers a copy's slice is sized for (at
    /// most the pool's size), `MinDeterministicAperture`.
    pub aperture_size: u32,
    /// Prequal's probing, pool and hot-cold parameters.
    pub prequal: PrequalSettings,
}

/// Prequal's parameters (docs/model.md#prequal), each a scenario field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrequalSettings {
    /// Probes sent a pick (r_probe; the paper's 3).
    pub probe_rate: f64,
    /// A probe's round trip, ms (lbsim's choice: 1).
    pub probe_rtt_ms: f64,
    /// Server busy time a probe costs, ms (lbsim's choice: 0.05).
    pub probe_cost_ms: f64,
    /// The RIF quantile at or above which a probe is hot (Q_RIF; the paper's 0.84).
    pub q_rif: f64,
    /// Most probes the pool holds (the paper's 16).
    pub pool_size: u32,
    /// A probe older than this is dropped, ms (the paper's 1 s).
    pub max_age_ms: f64,
    /// Probes removed a pick, the worst first (r_remove; the paper's 1).
    pub remove_rate: f64,
    /// delta in the reuse budget b_reuse (the paper's 1).
    pub reuse_delta: f64,
    /// A copy idle this long probes as a pick would, ms; 0: never (lbsim's
    /// choice: the max age, docs/model.md#prequal).
    pub idle_probe_ms: f64,
}

impl PrequalSettings {
    /// The paper's defaults, and lbsim's where it states none (docs/model.md#prequal).
    pub const PAPER: PrequalSettings = PrequalSettings {
        probe_rate: 3.0,
        probe_rtt_ms: 1.0,
        probe_cost_ms: 0.05,
        q_rif: 0.84,
        pool_size: 16,
        max_age_ms: 1_000.0,
        remove_rate: 1.0,
        reuse_delta: 1.0,
        idle_probe_ms: 1_000.0,
    };
}

impl Pool {
    /// A pool of `names` with weight 1 each and the scenario defaults.
    pub fn named(names: &[&str]) -> Pool {
        Pool {
            names: names.iter().map(|n| String::from(*n)).collect(),
            weights: alloc::vec![1; names.len()],
            hash: None,
            vnodes: 160,
            balance_factor: 125,
            builder: Builder::Lbsim,
            // Maglev's `TABLE_SIZE`, written out so this module, which
            // every rule names, names none of them (a test holds the two equal).
            maglev_size: 65_537,
            max_fails: 1,
            keys: UserKeys::default(),
            jiq_sampled: 1,
            active_request_bias: 1.0,
            // gRFC A58's defaults, written out as `maglev_size` is (a test
            // holds them equal to `grpc_wrr`'s); reports per call, their
            // figures over a second.
            learning: WeightLearning {
                reporting: Reporting { period_ms: 1_000.0, out_of_band: false },
                blackout_ms: 10_000.0,
                expiration_ms: 180_000.0,
                weight_period_ms: 1_000.0,
                error_penalty: 1.0,
            },
            // Finagle's `MinDeterministicAperture`, written out as Maglev's size is.
            aperture_size: 12,
            prequal: PrequalSettings::PAPER,
        }
    }

    /// Number of servers.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the pool has no server.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The hash function, or `default` when the scenario leaves it unset.
    pub fn hash_or(&self, default: HashFn) -> HashFn {
        self.hash.unwrap_or(default)
    }

    /// Whether all weights are equal, so rules can take their unweighted path.
    pub fn equal_weights(&self) -> bool {
        self.weights.windows(2).all(|w| w[0] == w[1])
    }
}

/// Unfinished (running + queued) requests per server, as one copy sees them.
#[derive(Clone, Debug)]
pub struct Unfinished {
    counts: Vec<u32>,
}

impl Unfinished {
    /// All zero for `n` servers.
    pub fn new(n: usize) -> Unfinished {
        Unfinished { counts: alloc::vec![0; n] }
    }

    /// Unfinished requests on `server`.
    pub fn get(&self, server: usize) -> u32 {
        self.counts[server]
    }

    /// One more on `server`.
    pub fn add(&mut self, server: usize) {
        self.counts[server] += 1;
    }

    /// One fewer on `server`.
    pub fn remove(&mut self, server: usize) {
        self.counts[server] = self.counts[server].saturating_sub(1);
    }
}

/// Servers' unfinished requests, as a rule that counts reads them at a
/// pick: its own [`Unfinished`], or the engine's servers themselves.
pub trait Counts {
    /// Unfinished requests on `server`.
    fn unfinished(&self, server: usize) -> u32;
}

impl Counts for Unfinished {
    fn unfinished(&self, server: usize) -> u32 {
        self.get(server)
    }
}

/// Each user's answer from a hash rule, computed once while the rule's
/// state holds: the key is always `user-{id}`, so a rule whose choice
/// depends on the key alone gives the same server every time, and the
/// text, the hash and the lookup (about 270 instructions a request) are
/// paid once per user instead of once per request. A rule forgets on every
/// change of its state (a reshape).
///
/// The answer always comes from hashing the key's bytes; this is only a
/// memo of it, and it holds the first [`REMEMBERED_USERS`] users (every
/// user a run draws). A larger id (a trace may name any user up to
/// 4,294,967,295) is hashed each time it comes, so memory never grows
/// with a user's number.
#[derive(Clone, Debug)]
pub struct PerUser<T: Copy + PartialEq> {
    /// Indexed by user id, below [`REMEMBERED_USERS`]; `unknown` until
    /// first asked.
    known: Vec<T>,
    unknown: T,
}

/// Users whose answers a [`PerUser`] memo keeps: at least the most users a
/// scenario draws (the `users` field's maximum, docs/model.md#the-lab),
/// so a run hashes each of its users once.
pub const REMEMBERED_USERS: u32 = 1 << 20;

impl<T: Copy + PartialEq> PerUser<T> {
    /// Nothing known yet; `unknown` marks an entry not yet computed (a real
    /// value equal to it is only computed again each time).
    pub fn new(unknown: T) -> PerUser<T> {
        PerUser { known: Vec::new(), unknown }
    }

    /// The value kept for `user`, if any.
    #[inline]
    pub fn get(&self, user: u32) -> Option<T> {
        self.known.get(user as usize).copied().filter(|&v| v != self.unknown)
    }

    /// Keeps `value` for `user` if the memo reaches that far; returns it.
    #[inline]
    pub fn keep(&mut self, user: u32, value: T) -> T {
        if user >= REMEMBERED_USERS {
            return value;
        }
        let user = user as usize;
        if user >= self.known.len() {
            self.known.resize(user + 1, self.unknown);
        }
        self.known[user] = value;
        value
    }

    /// Forgets every user (the rule's state changed).
    pub fn forget(&mut self) {
        self.known.clear();
    }
}

/// Whether `a / wa < b / wb`, by cross-multiplication as NGINX does, so no
/// division rounds.
pub fn fewer_per_weight(a: u32, wa: u32, b: u32, wb: u32) -> bool {
    u64::from(a) * u64::from(wb) < u64::from(b) * u64::from(wa)
}

/// Draws servers with probability proportional to weight, in O(log N)
/// (O(1) when the weights are equal, with the very same draws).
#[derive(Clone, Debug)]
pub struct WeightedDraw {
    cumulative: Vec<u64>,
    equal: bool,
}

impl WeightedDraw {
    /// Draws over `pool`'s weights.
    pub fn new(pool: &Pool) -> WeightedDraw {
        WeightedDraw::of(&pool.weights)
    }

    /// Draws over `weights` (slow start's effective weights).
    pub fn of(weights: &[u32]) -> WeightedDraw {
        WeightedDraw {
            cumulative: cumulative_weights(weights),
            equal: weights.windows(2).all(|w| w[0] == w[1]),
        }
    }

    fn weight(&self, server: usize) -> u64 {
        let start = if server == 0 { 0 } else { self.cumulative[server - 1] };
        self.cumulative[server] - start
    }

    fn total(&self) -> u64 {
        self.cumulative[self.cumulative.len() - 1]
    }

    /// The server owning point `r` of the cumulative weights.
    fn owner(&self, r: u64) -> usize {
        if self.equal {
            // Equal weights w: point r belongs to server r / w.
            (r / self.cumulative[0]) as usize
        } else {
            self.cumulative.partition_point(|&c| c <= r)
        }
    }

    /// One server. Ranges are u64 on every target, so native and wasm draw
    /// the same numbers.
    pub fn one(&self, rng: &mut Rng) -> usize {
        self.owner(below(rng, self.total()))
    }

    /// Two distinct servers, the second drawn from the rest; the pool must
    /// have at least two.
    pub fn two_distinct(&self, rng: &mut Rng) -> (usize, usize) {
        let first = self.one(rng);
        let start = if first == 0 { 0 } else { self.cumulative[first - 1] };
        let width = self.cumulative[first] - start;
        let mut r = below(rng, self.total() - width);
        if r >= start {
            r += width;
        }
        (first, self.owner(r))
    }

    /// One server among those `allowed` admits, with probability
    /// proportional to weight among them: up to [`REJECTION_TRIES`] draws
    /// over the whole pool (the first that `allowed` admits is a draw of
    /// the right law), then one exact draw over the admitted servers.
    /// `None` when it admits none.
    pub fn one_among(&self, rng: &mut Rng, allowed: impl Fn(usize) -> bool) -> Option<usize> {
        for _ in 0..REJECTION_TRIES {
            let s = self.one(rng);
            if allowed(s) {
                return Some(s);
            }
        }
        let n = self.cumulative.len();
        exact_draw(rng, (0..n).filter(|&s| allowed(s)).map(|s| (s, self.weight(s))))
    }
}

/// Draws a sampler makes over the whole pool before it draws exactly over
/// the allowed servers: with half the pool refused, one pick in 256 gets
/// that far.
pub const REJECTION_TRIES: usize = 8;

/// One server among `0..n` that `allowed` admits, uniformly: rejection
/// as [`WeightedDraw::one_among`], then an exact draw. `None` when it
/// admits none.
pub fn uniform_among(n: usize, rng: &mut Rng, allowed: impl Fn(usize) -> bool) -> Option<usize> {
    if n == 0 {
        return None;
    }
    for _ in 0..REJECTION_TRIES {
        let s = below(rng, n as u64) as usize;
        if allowed(s) {
            return Some(s);
        }
    }
    exact_draw(rng, (0..n).filter(|&s| allowed(s)).map(|s| (s, 1)))
}

/// A draw from `(server, weight)` pairs in proportion to weight.
fn exact_draw<I: Iterator<Item = (usize, u64)> + Clone>(rng: &mut Rng, weighted: I) -> Option<usize> {
    let total: u64 = weighted.clone().map(|(_, w)| w).sum();
    if total == 0 {
        return None;
    }
    let mut r = below(rng, total);
    for (s, w) in weighted {
        if r < w {
            return Some(s);
        }
        r -= w;
    }
    None
}

/// Slow start's effective weights as the rules that compare by weight
/// keep them: a weight of 0 (which the ramp never gives a member) counts as
/// 1 so that `count / weight` and weighted draws stay defined.
pub fn effective_weights(weights: &[u32]) -> Vec<u32> {
    weights.iter().map(|&w| w.max(1)).collect()
}

/// Running sums of the weights.
fn cumulative_weights(weights: &[u32]) -> Vec<u64> {
    weights
        .iter()
        .scan(0u64, |sum, &w| {
            *sum += u64::from(w);
            Some(*sum)
        })
        .collect()
}

/// `count / weight`, ordered by cross-multiplication; with weight 1 a
/// plain key. Every ordered set of servers the rules keep is of
/// `(PerWeight, u64, u32)`, so the page's bundle carries one B-tree.
#[derive(Clone, Copy, Debug)]
pub struct PerWeight {
    /// The count (or, with weight 1, the key).
    pub count: u32,
    /// The weight it is divided by.
    pub weight: u32,
}

impl PerWeight {
    /// A plain key: weight 1.
    pub fn key(key: u32) -> PerWeight {
        PerWeight { count: key, weight: 1 }
    }
}

impl Ord for PerWeight {
    fn cmp(&self, other: &Self) -> Ordering {
        (u64::from(self.count) * u64::from(other.weight))
            .cmp(&(u64::from(other.count) * u64::from(self.weight)))
    }
}

impl PartialOrd for PerWeight {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PerWeight {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PerWeight {}
