//! Load-balancing rules, one module each, behind one [`Balancer`] trait.
//!
//! A balancer copy sees only what it sent itself: `dispatched` and
//! `completed` are called for its own requests only (partial views). Adding
//! an algorithm is one module plus one row in the `algorithms!` list, which
//! gives [`AlgorithmId::ALL`], the rule's id, description and colour, and
//! [`build`].

use alloc::boxed::Box;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use self::builder::Builder;
pub use self::message::{Joining, Message, Probing, Reporting, Subscription, WeightLearning};
pub use self::row::{InPrograms, Setup};

pub use self::rule::{
    effective_weights, fewer_per_weight, uniform_among, Balancer, Counts, Eligible, PerUser, Pick, Pool,
    PrequalSettings, Unfinished, UserKeys, WeightedDraw, REJECTION_TRIES,
};
pub use crate::rng::{below, Rng};

pub mod bounded_load;
pub mod builder;
pub mod consistent_hash;
mod fwlc;
mod fwrr;
#[cfg(feature = "current-rules")]
pub mod jiq;
pub mod least_connections;
pub mod least_request;
pub mod maglev;
pub mod message;
pub mod peak_ewma;
pub mod power_of_two;
pub mod random;
pub mod rendezvous;
pub mod round_robin;
pub mod row;
mod rule;
pub mod user_hash;
// The rules production uses now: gRPC's and Envoy's learned weights, Finagle's aperture.
pub mod aperture;
pub mod envoy_cswrr;
pub mod grpc_wrr;
pub mod stride;
// Prequal: probes of the servers' requests in flight and latency.
#[cfg(feature = "current-rules")]
pub mod prequal;

/// A row's name for the rule in one program, or `None`.
macro_rules! in_program {
    ($program:ident, None) => {
        None
    };
    ($program:ident, $name:ident) => {
        Some(row::$program::$name)
    };
}

/// Whether a row is marked `[current]`.
macro_rules! is_current {
    () => {
        false
    };
    (current) => {
        true
    };
}

/// A fresh copy of a row's rule. A `[current]` row's module is built only
/// with the `current-rules` feature; without it validation refuses the
/// rule before any run (`Scenario::validate`), so this arm is never taken,
/// and gives round robin rather than a panic if it ever were.
macro_rules! build_row {
    ($rule:ty, $pool:expr,) => {
        Box::new(<$rule>::new($pool))
    };
    ($rule:ty, $pool:expr, current) => {{
        #[cfg(feature = "current-rules")]
        let rule: Box<dyn Balancer> = Box::new(<$rule>::new($pool));
        #[cfg(not(feature = "current-rules"))]
        let rule: Box<dyn Balancer> = Box::new(round_robin::RoundRobin::new($pool));
        rule
    }};
}

macro_rules! algorithms {
    ($($variant:ident $([$gate:ident])? => $id:literal, $rule:ty, $colour:literal, $doc:literal,
        $setup:ident, config($nginx:ident, $haproxy:ident, $envoy:ident, $grpc:ident);)*) => {
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

            /// What the rule builds before its first request, which the
            /// cost estimate prices.
            pub fn setup(self) -> Setup {
                match self { $(AlgorithmId::$variant => Setup::$setup,)* }
            }

            /// Whether the rule is one of those production uses now (its
            /// row marked `[current]`): its code is built only with the
            /// core's `current-rules` feature, which the page's first
            /// module leaves out (docs/model.md#the-rules-and-whom-they-follow).
            pub fn is_current(self) -> bool {
                match self { $(AlgorithmId::$variant => is_current!($($gate)?),)* }
            }

            /// What NGINX, HAProxy, Envoy and gRPC call the rule, where they
            /// have it (`lbsim config` writes it).
            pub fn in_programs(self) -> InPrograms {
                match self {
                    $(AlgorithmId::$variant => InPrograms {
                        nginx: in_program!(Nginx, $nginx),
                        haproxy: in_program!(Haproxy, $haproxy),
                        envoy: in_program!(Envoy, $envoy),
                        grpc: in_program!(Grpc, $grpc),
                    },)*
                }
            }
        }

        /// A fresh balancer copy for `pool`.
        pub fn build(id: AlgorithmId, pool: &Pool) -> Box<dyn Balancer> {
            match id { $(AlgorithmId::$variant => build_row!($rule, pool, $($gate)?),)* }
        }
    };
}

// The one list of rules: id, implementation, colour, description, what it
// builds before its first request, and what NGINX, HAProxy, Envoy and gRPC
// call it (`None` where they lack it; `row.rs` has the names). Adding a rule is
// its module plus one row here. The colours are Okabe-Ito's
// colour-blind-safe set extended with Paul Tol's muted teal, purple, olive
// and sand, all of middle lightness so they read on light and dark themes.
algorithms! {
    RoundRobin => "round-robin", round_robin::RoundRobin, 0xE69F00,
        "smooth weighted round robin (NGINX)",
        Nothing, config(RoundRobin, RoundRobin, RoundRobin, RoundRobin);
    Random => "random", random::Random, 0x999999,
        "weighted random",
        Nothing, config(Random, Random, Random, None);
    LeastConnections => "least-connections", least_connections::LeastConnections, 0x009E73,
        "fewest unfinished per weight, ties rotate (NGINX least_conn)",
        Nothing, config(LeastConn, LeastConn, None, None);
    PowerOfTwo => "power-of-two", power_of_two::PowerOfTwo, 0x56B4E9,
        "two distinct random servers, the less loaded wins (NGINX random two)",
        Nothing, config(RandomTwoLeastConn, RandomTwo, LeastRequest, LeastRequest);
    LeastRequest => "least-request", least_request::LeastRequest, 0x0072B2,
        "Envoy least request (P2C, or weighted EDF with active-request bias)",
        Nothing, config(None, None, LeastRequest, LeastRequest);
    PeakEwma => "peak-ewma", peak_ewma::PeakEwma, 0xCC79A7,
        "two choices on peak EWMA latency x (active + 1) (Finagle, Linkerd)",
        Nothing, config(None, None, None, None);
    UserHash => "user-hash", user_hash::UserHash, 0xD55E00,
        "hash of the user key modulo N",
        Nothing, config(Hash, HashMapBased, None, None);
    ConsistentHash => "consistent-hash", consistent_hash::ConsistentHash, 0xA6761D,
        "ring of virtual nodes (ketama)",
        Ring, config(HashConsistent, HashConsistent, RingHash, RingHash);
    BoundedLoad => "bounded-load", bounded_load::BoundedLoad, 0x44AA99,
        "consistent hashing with bounded loads (HAProxy hash-balance-factor)",
        RingPerCopy, config(None, HashConsistentBounded, None, None);
    Maglev => "maglev", maglev::Maglev, 0xAA4499,
        "Maglev lookup table of 65,537 entries",
        MaglevTable, config(None, None, Maglev, None);
    Rendezvous => "rendezvous", rendezvous::Rendezvous, 0x999933,
        "highest random weight",
        ScoresPerUser, config(None, None, None, None);
    // The rules production uses now, messages from the servers their input
    // (`[current]`: built with the `current-rules` feature only).
    Jiq [current] => "jiq", jiq::Jiq, 0xCC6677,
        "join the idle queue: idle servers announce themselves to one of many balancers (Lu et al. 2011)",
        Nothing, config(None, None, None, None);
    // Learned weights: gRPC's and Envoy's weighted round robin on the servers' load reports.
    GrpcWrr [current] => "grpc-wrr", grpc_wrr::GrpcWrr, 0x882255,
        "gRPC weighted_round_robin: weights qps / utilization from load reports, static stride scheduler (gRFC A58)",
        Nothing, config(None, None, None, WeightedRoundRobin);
    EnvoyCswrr [current] => "envoy-cswrr", envoy_cswrr::EnvoyCswrr, 0x6699CC,
        "Envoy client-side weighted round robin: the same weights, median for hosts without one",
        Nothing, config(None, None, ClientSideWeightedRoundRobin, None);
    // Finagle's deterministic aperture.
    Aperture [current] => "aperture", aperture::Aperture, 0x9966CC,
        "Finagle's deterministic aperture: two choices in each copy's slice of the servers",
        Nothing, config(None, None, None, None);
    // Prequal, on probe replies.
    Prequal [current] => "prequal", prequal::Prequal, 0xEE3377,
        "probes' requests in flight and latency, hot-cold lexicographic pick (Prequal, NSDI 2024)",
        Nothing, config(None, None, None, None);
}

// Which rules a builder has lives beside the registry, so `builder.rs`
// needs nothing from this module.
impl Builder {
    /// Whether `rule` follows this builder's construction (the others keep
    /// lbsim's). Only constructions held to the real program or to its own
    /// test vectors are listed (docs/testing.md).
    pub fn follows(self, rule: AlgorithmId) -> bool {
        use AlgorithmId::*;
        match self {
            Builder::Lbsim => true,
            Builder::Nginx => matches!(rule, RoundRobin | LeastConnections | UserHash | ConsistentHash),
            Builder::Haproxy => matches!(rule, RoundRobin | LeastConnections | ConsistentHash | BoundedLoad),
            Builder::Envoy => matches!(rule, RoundRobin | LeastRequest | ConsistentHash | Maglev),
            Builder::Ketama => matches!(rule, ConsistentHash),
        }
    }

    /// What a front end says of `rules` under this builder: which follow
    /// it and which keep lbsim's construction; `None` for `lbsim`.
    pub fn note(self, rules: &[AlgorithmId]) -> Option<alloc::string::String> {
        if self == Builder::Lbsim {
            return None;
        }
        let (own, kept): (alloc::vec::Vec<AlgorithmId>, alloc::vec::Vec<AlgorithmId>) =
            rules.iter().partition(|&&r| self.follows(r));
        let ids =
            |rules: &[AlgorithmId]| rules.iter().map(|r| r.id()).collect::<alloc::vec::Vec<_>>().join(", ");
        let mut text = if own.is_empty() {
            alloc::format!("builder={}: none of these rules is {}'s", self.id(), self.name())
        } else {
            alloc::format!("builder={}: {} as {} builds them", self.id(), ids(&own), self.name())
        };
        if !kept.is_empty() && !own.is_empty() {
            text += &alloc::format!("; {} as lbsim builds them", ids(&kept));
        }
        Some(text)
    }
}

impl AlgorithmId {
    /// Whether the rule places a request by its key alone (the hashing
    /// rules without a bound): each user goes to one server whatever the
    /// load, so a server's share is the shares of the users it was given
    /// (`Report::placement_note` says so beside the results).
    pub fn places_by_key(self) -> bool {
        use AlgorithmId::*;
        match self {
            UserHash | ConsistentHash | Maglev | Rendezvous => true,
            RoundRobin | Random | LeastConnections | PowerOfTwo | LeastRequest | PeakEwma | BoundedLoad => {
                false
            }
            Jiq => false,
            GrpcWrr | EnvoyCswrr => false,
            Aperture => false,
            Prequal => false,
        }
    }
}

impl AlgorithmId {
    /// Whether this build runs the rule: every classic rule, and the
    /// current ones where the core has the `current-rules` feature. Every
    /// id parses in every build (links name them all); a scenario naming
    /// one this build cannot run is refused before it runs
    /// ([`Scenario::runnable`](crate::Scenario::runnable)).
    pub fn runs_here(self) -> bool {
        !self.is_current() || cfg!(feature = "current-rules")
    }

    /// The rules a scenario runs unless it names its own: the classic
    /// ones, so a scenario's report does not change as rules are added.
    pub fn classic() -> alloc::vec::Vec<AlgorithmId> {
        AlgorithmId::ALL.iter().copied().filter(|a| !a.is_current()).collect()
    }

    /// How the rule's line is drawn besides its colour: more rules than a
    /// colour-blind-safe palette has hues, so the current rules' lines are
    /// broken, dashed and dotted by turns in registry order (rows are in
    /// `ALL`'s order), and the classic ones solid
    /// (docs/web.md#line-styles). Derived, so a new rule is still one row.
    pub fn stroke(self) -> Stroke {
        match (self.is_current(), self as usize % 2 == AlgorithmId::Jiq as usize % 2) {
            (false, _) => Stroke::Solid,
            (true, true) => Stroke::Dashed,
            (true, false) => Stroke::Dotted,
        }
    }
}

/// A rule's line style ([`AlgorithmId::stroke`]); each front end that
/// draws lines picks its own lengths for the dashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    /// An unbroken line.
    Solid,
    /// Long dashes.
    Dashed,
    /// Dots.
    Dotted,
}

impl FromStr for AlgorithmId {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        AlgorithmId::ALL.iter().copied().find(|a| a.id() == s).ok_or(())
    }
}

/// Tells each of a run's copies its place among them ([`Balancer::place`]).
pub fn place_copies(copies: &mut [Box<dyn Balancer>]) {
    let n = copies.len();
    for (i, copy) in copies.iter_mut().enumerate() {
        copy.place(i, n);
    }
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
mod current_rules {
    use crate::scenario::Scenario;

    use super::AlgorithmId;

    /// Every id parses in every build; a build without the `current-rules`
    /// feature (the page's first module) refuses a scenario naming one,
    /// naming the rule, and one with it runs it. Run both ways:
    /// `cargo test -p lbsim-core --lib current_rules` and the same with
    /// `--no-default-features --features std`.
    #[test]
    fn a_current_rule_runs_where_the_build_has_it_and_is_refused_by_name_elsewhere() {
        let current: alloc::vec::Vec<AlgorithmId> =
            AlgorithmId::ALL.iter().copied().filter(|a| a.is_current()).collect();
        assert!(!current.is_empty());
        for rule in current {
            assert_eq!(rule.id().parse::<AlgorithmId>(), Ok(rule));
            let scenario = Scenario { requests: 200, algorithms: alloc::vec![rule], ..Scenario::default() };
            // Valid in every build: the page reads a link naming it.
            assert_eq!(scenario.validate(), Ok(()));
            let verdict = crate::run(&scenario);
            if cfg!(feature = "current-rules") {
                assert!(verdict.is_ok(), "{verdict:?}");
            } else {
                let error = verdict.err().map(|e| alloc::format!("{e}")).unwrap_or_default();
                let want = alloc::format!("{} runs in the full simulator, not in this build", rule.id());
                assert!(error.starts_with("algorithms: ") && error.contains(&want), "{error}");
            }
        }
        assert!(AlgorithmId::classic().iter().all(|a| a.runs_here() && !a.is_current()));
    }

    /// The line styles docs/web.md#line-styles states: the classic rules
    /// solid, the current ones broken, and no two current rules next to
    /// each other in the registry (hence the legend) alike.
    #[test]
    fn current_rules_are_drawn_broken_and_neighbours_differ() {
        use super::Stroke;
        for &a in AlgorithmId::ALL {
            assert_eq!(a.stroke() == Stroke::Solid, !a.is_current(), "{a:?}");
        }
        let current: alloc::vec::Vec<Stroke> =
            AlgorithmId::ALL.iter().filter(|a| a.is_current()).map(|a| a.stroke()).collect();
        assert_eq!(current.first(), Some(&Stroke::Dashed));
        assert!(current.windows(2).all(|w| w[0] != w[1]), "{current:?}");
    }
}
