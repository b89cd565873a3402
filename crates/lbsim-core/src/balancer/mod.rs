//! Load-balancing rules, one module each, behind one [`Balancer`] trait.
//!
//! A balancer copy sees only what it sent itself: `dispatched` and
//! `completed` are called for its own requests only (partial views). Adding
//! an algorithm is one module plus one row in the `algorithms!` list, which
//! gives [`AlgorithmId::ALL`], the rule's id, description and colour, and
//! [`build`].

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::hash::{HashFn, KeyBuf};

pub mod bounded_load;
pub mod consistent_hash;
pub mod least_connections;
pub mod least_request;
pub mod maglev;
pub mod peak_ewma;
pub mod placement;
pub mod power_of_two;
pub mod random;
pub mod rendezvous;
pub mod round_robin;
pub mod user_hash;

/// The random generator every rule draws its own choices from: ChaCha8,
/// rand_chacha's natively, the same stream computed with wasm's SIMD in a
/// wasm build with `simd128` ([`crate::chacha`]).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub type Rng = rand_chacha::ChaCha8Rng;
/// The random generator every rule draws its own choices from: ChaCha8,
/// the same stream as rand_chacha's, computed with wasm's SIMD.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub type Rng = crate::chacha::ChaCha8Rng;

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

/// A load-balancing rule.
pub trait Balancer {
    /// Chooses a server (an index into the pool) for a request.
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize;
    /// The request picked last went to `server`.
    fn dispatched(&mut self, _server: usize) {}
    /// A request this copy sent to `server` finished at `now_ms` after
    /// `latency_ms`.
    fn completed(&mut self, _server: usize, _now_ms: f64, _latency_ms: f64) {}
    /// Layer 4 (SPEC section 13): a connection this copy opened to
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

    // The fleet over time (SPEC section 12): a run with events or health
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

    /// Slow start changed the effective weights (the configured weight
    /// times 256 times the ramp, SPEC 12.1): rules that use weights or
    /// counts take them, keeping their counts; hashing rules ignore them.
    fn reweight(&mut self, _weights: &[u32]) {}
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
    /// How the rings are placed.
    pub ring: placement::Placement,
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
            ring: placement::Placement::Lbsim,
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

macro_rules! algorithms {
    ($($variant:ident => $id:literal, $rule:ty, $colour:literal, $doc:literal;)*) => {
        /// The stable id of an algorithm (CLI, URL, JSON).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum AlgorithmId {
            $(#[doc = $doc] $variant,)*
        }

        impl AlgorithmId {
            /// Every algorithm, in canonical (display) order.
            pub const ALL: &'static [AlgorithmId] = &[$(AlgorithmId::$variant,)*];

            /// The kebab-case id.
            pub fn id(self) -> &'static str {
                match self { $(AlgorithmId::$variant => $id,)* }
            }

            /// One line on what the rule does.
            pub fn description(self) -> &'static str {
                match self { $(AlgorithmId::$variant => $doc,)* }
            }

            /// The colour every front end draws the rule in, as `0xRRGGBB`:
            /// it lives in the rule's registry row so a new rule brings its
            /// own and the palette is always as long as the list.
            pub fn colour(self) -> u32 {
                match self { $(AlgorithmId::$variant => $colour,)* }
            }
        }

        /// A fresh balancer copy for `pool`.
        pub fn build(id: AlgorithmId, pool: &Pool) -> Box<dyn Balancer> {
            match id { $(AlgorithmId::$variant => Box::new(<$rule>::new(pool)),)* }
        }
    };
}

// The one list of rules: id, implementation, colour, description. Adding a
// rule is its module plus one row here. The colours are Okabe-Ito's
// colour-blind-safe set extended with Paul Tol's muted teal, purple, olive
// and sand, all of middle lightness so they read on light and dark themes.
algorithms! {
    RoundRobin => "round-robin", round_robin::RoundRobin, 0xE69F00,
        "smooth weighted round robin (NGINX)";
    Random => "random", random::Random, 0x999999,
        "weighted random";
    LeastConnections => "least-connections", least_connections::LeastConnections, 0x009E73,
        "fewest unfinished per weight, ties rotate (NGINX least_conn)";
    PowerOfTwo => "power-of-two", power_of_two::PowerOfTwo, 0x56B4E9,
        "two distinct random servers, the less loaded wins (NGINX random two)";
    LeastRequest => "least-request", least_request::LeastRequest, 0x0072B2,
        "Envoy least request (P2C, or weighted EDF with active-request bias)";
    PeakEwma => "peak-ewma", peak_ewma::PeakEwma, 0xCC79A7,
        "two choices on peak EWMA latency x (active + 1) (Finagle, Linkerd)";
    UserHash => "user-hash", user_hash::UserHash, 0xD55E00,
        "hash of the user key modulo N";
    ConsistentHash => "consistent-hash", consistent_hash::ConsistentHash, 0xDDCC77,
        "ring of virtual nodes (ketama)";
    BoundedLoad => "bounded-load", bounded_load::BoundedLoad, 0x44AA99,
        "consistent hashing with bounded loads (HAProxy hash-balance-factor)";
    Maglev => "maglev", maglev::Maglev, 0xAA4499,
        "Maglev lookup table of 65,537 entries";
    Rendezvous => "rendezvous", rendezvous::Rendezvous, 0x999933,
        "highest random weight";
}

impl FromStr for AlgorithmId {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        AlgorithmId::ALL.iter().copied().find(|a| a.id() == s).ok_or(())
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
#[derive(Clone, Debug)]
pub struct PerUser<T: Copy + PartialEq> {
    /// Indexed by user id; `unknown` until first asked.
    known: Vec<T>,
    unknown: T,
}

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

    /// Keeps `value` for `user`; returns it.
    #[inline]
    pub fn keep(&mut self, user: u32, value: T) -> T {
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

/// A uniform draw in `0..range` (`range > 0`): rand's
/// `random_range(0..range)` for `u64` to the bit (one 64-bit draw times the
/// range, whose high half is the result; a second draw only when the low
/// half lands in the top `range - 1` values, where it decides a carry).
/// Ranges are u64 on every target, so native and wasm draw the same numbers. Written out because rand takes
/// the product as a `u128`, which wasm has no instruction for: a call to
/// `__multi3` that was a tenth of least request's time in V8.
#[inline]
pub fn below(rng: &mut Rng, range: u64) -> u64 {
    use rand::RngCore as _;
    debug_assert!(range > 0, "an empty range, which rand refuses too");
    let (mut result, low) = wide_product(rng.next_u64(), range);
    if low > range.wrapping_neg() {
        let (carry_in, _) = wide_product(rng.next_u64(), range);
        result += u64::from(low.checked_add(carry_in).is_none());
    }
    result
}

/// `a * b` as (high, low) 64-bit halves.
#[inline]
fn wide_product(a: u64, b: u64) -> (u64, u64) {
    #[cfg(not(target_arch = "wasm32"))]
    let halves = {
        let p = u128::from(a) * u128::from(b);
        ((p >> 64) as u64, p as u64)
    };
    #[cfg(target_arch = "wasm32")]
    let halves = wide_product_by_halves(a, b);
    halves
}

/// `a * b` from four 32 x 32 products: what wasm's 64-bit multiply gives
/// in a few instructions (the native build keeps the one-instruction
/// `u128` product and tests this against it).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline]
fn wide_product_by_halves(a: u64, b: u64) -> (u64, u64) {
    const LOW: u64 = 0xffff_ffff;
    let (a0, a1, b0, b1) = (a & LOW, a >> 32, b & LOW, b >> 32);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let middle = (p00 >> 32) + (p01 & LOW) + (p10 & LOW);
    let high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
    (high, (middle << 32) | (p00 & LOW))
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

/// Checks every rule's fleet methods must pass, shared by the rules' tests.
#[cfg(test)]
pub(crate) mod checks {
    use alloc::collections::VecDeque;
    use alloc::vec::Vec;

    use rand::{Rng as _, SeedableRng};

    use super::{build, AlgorithmId, Balancer, Eligible, Pick, Pool, Rng};

    /// A pool `s1`, `s2`, .. with `weights`.
    pub fn pool(weights: &[u32]) -> Pool {
        let names: Vec<alloc::string::String> = (1..=weights.len()).map(|i| alloc::format!("s{i}")).collect();
        let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
        Pool { weights: weights.to_vec(), ..Pool::named(&names) }
    }

    /// Everything allowed, as the engine passes it for a healthy pool.
    pub fn everything(available: &[bool]) -> Eligible<'_> {
        Eligible { available, tried: &[], every_available: true }
    }

    /// A request stream: users 1..=60, one ms apart, each request finishing
    /// when `2 x N` are in flight (oldest first), with varying latencies.
    pub struct Traffic {
        rng: Rng,
        now_ms: f64,
        in_flight: VecDeque<usize>,
        limit: usize,
    }

    impl Traffic {
        pub fn new(n: usize, seed: u64) -> Traffic {
            Traffic { rng: Rng::seed_from_u64(seed), now_ms: 0.0, in_flight: VecDeque::new(), limit: 2 * n }
        }

        pub fn next(&mut self) -> Pick {
            self.now_ms += 1.0;
            Pick { now_ms: self.now_ms, user: self.rng.random_range(1..=60u32) }
        }

        /// `server` took the request: tell `rules`, and deliver a completion
        /// to them when the stream is full.
        pub fn sent(&mut self, server: usize, rules: &mut [&mut dyn Balancer]) {
            for rule in rules.iter_mut() {
                rule.dispatched(server);
            }
            self.in_flight.push_back(server);
            if self.in_flight.len() > self.limit || self.rng.random_bool(0.3) {
                let done = self.in_flight.pop_front().unwrap_or(server);
                let latency = self.rng.random_range(1.0..50.0);
                for rule in rules.iter_mut() {
                    rule.completed(done, self.now_ms, latency);
                }
            }
        }
    }

    /// With everything allowed, `pick_eligible` makes `pick`'s choices
    /// with the same draws, request after request.
    pub fn all_allowed_is_pick(id: AlgorithmId, pool: &Pool, requests: usize) {
        let (mut a, mut b) = (build(id, pool), build(id, pool));
        let (mut ra, mut rb) = (Rng::seed_from_u64(7), Rng::seed_from_u64(7));
        let available = alloc::vec![true; pool.len()];
        let mut traffic = Traffic::new(pool.len(), 3);
        for i in 0..requests {
            let request = traffic.next();
            let s = a.pick(&request, &mut ra);
            assert_eq!(b.pick_eligible(&request, &mut rb, &everything(&available)), Some(s), "request {i}");
            traffic.sent(s, &mut [a.as_mut(), b.as_mut()]);
        }
        assert_eq!(ra.random::<u64>(), rb.random::<u64>(), "the same draws");
    }

    /// Over many masks (membership, availability, tried servers, now and
    /// then new effective weights), the rule never takes a refused server
    /// and says `None` exactly when none is allowed. `reshape` follows
    /// most changes, as the engine calls it, and is left out of a few that
    /// leave some server unavailable: the pick must stay safe either way.
    /// (With everyone available the static pick stands, and that pick is
    /// only right when the rule was told.)
    pub fn never_refused(id: AlgorithmId, pool: &Pool, rounds: usize) {
        let n = pool.len();
        let mut rule = build(id, pool);
        let mut rng = Rng::seed_from_u64(11);
        let mut masks = Rng::seed_from_u64(12);
        let mut traffic = Traffic::new(n, 13);
        let mut members = alloc::vec![true; n];
        let mut available = alloc::vec![true; n];
        let (mut nones, mut somes) = (0, 0);
        for round in 0..rounds {
            if round % 7 == 0 {
                // Shares from all-up to all-down, a few rounds each.
                let up = [1.0, 0.9, 0.5, 0.2, 0.0][masks.random_range(0..5)];
                members = (0..n).map(|_| masks.random_bool(0.9)).collect();
                available = members.iter().map(|&m| m && masks.random_bool(up)).collect();
                if available.iter().all(|&a| a) || masks.random_bool(0.9) {
                    rule.reshape(&members, &available);
                }
            }
            if round % 50 == 25 {
                let equal = masks.random_bool(0.5);
                let w: Vec<u32> = (0..n)
                    .map(|i| if equal { 256 } else { pool.weights[i] * masks.random_range(25..=256) })
                    .collect();
                rule.reweight(&w);
            }
            let tries = masks.random_range(0..=3usize.min(n));
            let tried: Vec<u32> = (0..tries).map(|_| masks.random_range(0..n as u32)).collect();
            let eligible = Eligible {
                available: &available,
                tried: &tried,
                every_available: available.iter().all(|&a| a),
            };
            let request = traffic.next();
            match rule.pick_eligible(&request, &mut rng, &eligible) {
                Some(s) => {
                    assert!(eligible.allows(s), "round {round}: {s} refused, {eligible:?}");
                    somes += 1;
                    traffic.sent(s, &mut [rule.as_mut()]);
                }
                None => {
                    assert!(!eligible.any(), "round {round}: None with {eligible:?}");
                    nones += 1;
                }
            }
        }
        assert!(nones > 0 && somes > nones, "the masks reach both cases: {somes} picks, {nones} none");
    }

    /// With nothing allowed (no member available, or every one tried), `None`.
    pub fn none_when_nothing_allowed(id: AlgorithmId, pool: &Pool) {
        let n = pool.len();
        let mut rule = build(id, pool);
        let mut rng = Rng::seed_from_u64(5);
        let request = Pick { now_ms: 1.0, user: 9 };
        let down = alloc::vec![false; n];
        rule.reshape(&alloc::vec![true; n], &down);
        let nobody = Eligible { available: &down, tried: &[], every_available: false };
        assert_eq!(rule.pick_eligible(&request, &mut rng, &nobody), None);
        let up = alloc::vec![true; n];
        rule.reshape(&up, &up);
        let tried: Vec<u32> = (0..n as u32).collect();
        let all_tried = Eligible { available: &up, tried: &tried, every_available: true };
        assert_eq!(rule.pick_eligible(&request, &mut rng, &all_tried), None);
    }

    /// A rule that has answered users over the whole pool, then reshaped
    /// to `members`, answers as a rule reshaped before its first pick: what
    /// it remembers per user ([`super::PerUser`]) is forgotten.
    pub fn reshape_forgets_the_past(id: AlgorithmId, pool: &Pool, members: &[bool]) {
        let (mut used, mut fresh) = (build(id, pool), build(id, pool));
        let mut rng = Rng::seed_from_u64(8);
        let all = alloc::vec![true; pool.len()];
        for user in 1..=300 {
            used.pick_eligible(&Pick { now_ms: 0.0, user }, &mut rng, &everything(&all));
        }
        used.reshape(members, members);
        fresh.reshape(members, members);
        let (mut rng, mut fresh_rng) = (Rng::seed_from_u64(3), Rng::seed_from_u64(3));
        let eligible = Eligible { available: members, tried: &[], every_available: true };
        for user in 1..=300 {
            let request = Pick { now_ms: 1.0, user };
            let want = fresh.pick_eligible(&request, &mut fresh_rng, &eligible);
            assert_eq!(used.pick_eligible(&request, &mut rng, &eligible), want, "{id:?}, user {user}");
        }
    }
}

#[cfg(test)]
mod fleet_picks {
    use super::{checks, AlgorithmId};

    // What every rule's `pick_eligible` owes the engine, rule by rule, on
    // equal and unequal weights.

    #[test]
    fn all_allowed_is_the_static_pick() {
        for &id in AlgorithmId::ALL {
            checks::all_allowed_is_pick(id, &checks::pool(&[1, 1, 1, 1]), 500);
            checks::all_allowed_is_pick(id, &checks::pool(&[5, 1, 1, 3]), 500);
        }
    }

    #[test]
    fn never_takes_a_refused_server() {
        for &id in AlgorithmId::ALL {
            checks::never_refused(id, &checks::pool(&[1, 1, 1, 1, 1]), 3_000);
            checks::never_refused(id, &checks::pool(&[5, 1, 2, 1, 3]), 3_000);
        }
    }

    /// Only the rules that pick by key alone: the others' picks depend on
    /// counts and turns that a history changes by design.
    #[test]
    fn a_reshape_forgets_remembered_users() {
        let members = [true, false, true, true, false, true];
        for id in
            [AlgorithmId::UserHash, AlgorithmId::ConsistentHash, AlgorithmId::Maglev, AlgorithmId::Rendezvous]
        {
            checks::reshape_forgets_the_past(id, &checks::pool(&[1; 6]), &members);
            checks::reshape_forgets_the_past(id, &checks::pool(&[3, 1, 2, 5, 1, 4]), &members);
        }
    }

    #[test]
    fn none_when_nothing_is_allowed() {
        for &id in AlgorithmId::ALL {
            checks::none_when_nothing_allowed(id, &checks::pool(&[2, 1, 1]));
        }
    }
}

#[cfg(test)]
mod draws {
    use proptest::prelude::*;
    use rand::{Rng as _, SeedableRng};

    use super::{below, wide_product, wide_product_by_halves, Rng};

    proptest! {
        /// `below` is rand's `random_range(0..range)` draw for draw, the
        /// same stream left behind; ranges near 2^64 take the second draw
        /// about half the time.
        #[test]
        fn below_draws_what_rands_random_range_draws(seed in any::<u64>(), ranges in proptest::collection::vec(1u64.., 1..64), small in 1u64..2_000) {
            let (mut ours, mut rands) = (Rng::seed_from_u64(seed), Rng::seed_from_u64(seed));
            for range in ranges.into_iter().chain([small, 1, u64::MAX, 1 << 63, (1 << 63) + 1]) {
                prop_assert_eq!(below(&mut ours, range), rands.random_range(0..range), "range {}", range);
            }
            prop_assert_eq!(ours.random::<u64>(), rands.random::<u64>());
        }

        /// The product wasm takes by halves is the `u128` product.
        #[test]
        fn the_product_by_halves_is_the_wide_product(a in any::<u64>(), b in any::<u64>()) {
            prop_assert_eq!(wide_product_by_halves(a, b), wide_product(a, b));
            let p = u128::from(a) * u128::from(b);
            prop_assert_eq!(wide_product_by_halves(a, b), ((p >> 64) as u64, p as u64));
        }
    }
}
