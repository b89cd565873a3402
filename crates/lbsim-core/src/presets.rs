//! Presets: each a scenario and a lesson.

use alloc::vec;

use crate::balancer::AlgorithmId;
use crate::scenario::{Scenario, WorkKind};

/// Which requests a latency view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestClass {
    /// Every request.
    All,
    /// Quick requests (bimodal work).
    Quick,
    /// Slow requests (bimodal work).
    Slow,
}

/// Where a lesson is seen: the latency view that carries it and the rules
/// it is about (the front ends emphasise them and mute the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LessonView {
    /// Which requests the latency plot shows.
    pub class: RequestClass,
    /// The tail view (1 - CDF on a log scale), where p99s differ visibly.
    pub tail: bool,
    /// The rules the lesson compares; empty for all alike.
    pub focus: &'static [AlgorithmId],
}

/// A view of the page, named by the id the embed key `plots=` takes
/// (docs/embedding.md#what-an-embed-shows-keys-and-defaults). Each preset
/// names the one its lesson is read in: an embed shows it unless its
/// author lists others, and `lbsim url --embed` writes it, so the page and
/// the CLI agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plot {
    /// The latency distribution (CDF, or the tail view).
    Cdf,
    /// The results table.
    Table,
    /// Offered load per server, one panel per rule.
    Loads,
    /// The longest queue over time.
    Queues,
    /// Errors over time (runs of the fleet over time).
    Errors,
    /// Requests sent to each server over time (runs of the fleet over time).
    Requests,
    /// The cache hit rate over time (runs with caches).
    Hits,
    /// Two rules' runs of the first requests, replayed side by side.
    Replay,
    /// Every rule across a range of one parameter.
    Sweep,
    /// What moves when a server joins or leaves, per hashing scheme.
    Remap,
}

impl Plot {
    /// Every view, in the page's order.
    pub const ALL: [Plot; 10] = [
        Plot::Cdf,
        Plot::Table,
        Plot::Hits,
        Plot::Loads,
        Plot::Queues,
        Plot::Errors,
        Plot::Requests,
        Plot::Replay,
        Plot::Sweep,
        Plot::Remap,
    ];

    /// The id `plots=` takes (the page's `data-plot`).
    pub fn id(self) -> &'static str {
        match self {
            Plot::Cdf => "cdf",
            Plot::Table => "table",
            Plot::Loads => "loads",
            Plot::Queues => "queues",
            Plot::Errors => "errors",
            Plot::Requests => "requests",
            Plot::Hits => "hits",
            Plot::Replay => "replay",
            Plot::Sweep => "sweep",
            Plot::Remap => "remap",
        }
    }

    /// The view with this id.
    pub fn parse(id: &str) -> Option<Plot> {
        Plot::ALL.into_iter().find(|p| p.id() == id)
    }
}

/// A named scenario with what to look at and why.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Id used by `--preset` and the page's picker.
    pub id: &'static str,
    /// Short title.
    pub title: &'static str,
    /// What to look at, and why.
    pub lesson: &'static str,
    /// Whether the preset is about remapping (a pool change) rather than a run.
    pub remapping: bool,
    /// Where to look.
    pub view: LessonView,
    /// The plot the lesson is read in: what an embed of the preset shows.
    pub plot: Plot,
    build: fn() -> Scenario,
}

/// Presets are one per id.
impl PartialEq for Preset {
    fn eq(&self, other: &Preset) -> bool {
        self.id == other.id
    }
}

impl Preset {
    /// The preset's scenario.
    pub fn scenario(&self) -> Scenario {
        (self.build)()
    }
}

fn mixed() -> Scenario {
    Scenario::default()
}

fn control() -> Scenario {
    // The same arrivals as `mixed`: keep its rate, make every request quick.
    Scenario {
        rate: Some(Scenario::default().rate_per_s()),
        work: WorkKind::Constant,
        mean_ms: 20.0,
        ..Scenario::default()
    }
}

fn degraded() -> Scenario {
    Scenario {
        servers: 3,
        slots: 8,
        rate: Some(60.0),
        work: WorkKind::Constant,
        mean_ms: 100.0,
        speeds: vec![1.0, 1.0, 0.2],
        names: ["A", "B", "C"].map(Into::into).to_vec(),
        ..Scenario::default()
    }
}

fn herding() -> Scenario {
    Scenario { servers: 64, slots: 1, balancers: 64, load: 0.8, ..Scenario::default() }
}

/// The mixed lab with these settings, as a link sets them.
fn mixed_with(link: &[(&str, &str)]) -> Scenario {
    let mut s = Scenario::default();
    for (key, value) in link {
        // Fixed text of our own, checked by the preset tests.
        let _ = s.set(key, value);
    }
    s
}

fn black_hole() -> Scenario {
    mixed_with(&[("events", "20s:s3:fail")])
}

fn crash() -> Scenario {
    mixed_with(&[("events", "20s:s4:crash,40s:s4:recover"), ("max-fails", "0"), ("check-ms", "2000")])
}

fn slow_node() -> Scenario {
    mixed_with(&[("events", "20s:s2:slow=0.2,40s:s2:recover")])
}

fn cold_start() -> Scenario {
    mixed_with(&[("servers", "5"), ("events", "20s:s5:join"), ("warmup-ms", "15000")])
}

/// Caches of 300 users each, at a load the servers could not carry
/// without them (the load is of the work as if nothing were cached).
fn cache_locality() -> Scenario {
    mixed_with(&[("cache-keys", "300"), ("load", "1.6"), ("requests", "50000")])
}

fn remap_storm() -> Scenario {
    let mut s = cache_locality();
    let _ = s.set("servers", "5");
    let _ = s.set("events", "20s:s5:join");
    s
}

fn http2_pinning() -> Scenario {
    mixed_with(&[("layer", "4"), ("servers", "5"), ("events", "20s:s5:join")])
}

/// Servers of speeds 1, 1, 2 and 4 at 55% of their capacity, s4 at a
/// quarter of its speed for the second minute, the rules that learn
/// weights beside round robin and least connections.
fn learned_weights() -> Scenario {
    let mut s = mixed_with(&[
        ("speeds", "1,1,2,4"),
        ("load", "0.55"),
        ("requests", "120000"),
        ("events", "60s:s4:slow=1,120s:s4:recover"),
    ]);
    s.algorithms = vec![
        AlgorithmId::RoundRobin,
        AlgorithmId::LeastConnections,
        AlgorithmId::GrpcWrr,
        AlgorithmId::EnvoyCswrr,
    ];
    s
}

fn theory() -> Scenario {
    Scenario {
        servers: 1,
        slots: 8,
        load: 0.8,
        work: WorkKind::Exponential,
        mean_ms: 58.0,
        requests: 50_000,
        algorithms: vec![AlgorithmId::Random],
        ..Scenario::default()
    }
}

/// JIQ's regime: dozens of dispatchers over single-slot servers, exponential
/// work, JIQ against the rules a copy can run on its own requests alone,
/// and aperture, whose copies each talk to a slice of the servers.
fn many_balancers() -> Scenario {
    Scenario {
        servers: 64,
        slots: 1,
        balancers: 32,
        load: 0.8,
        work: WorkKind::Exponential,
        mean_ms: 20.0,
        requests: 50_000,
        algorithms: vec![
            AlgorithmId::RoundRobin,
            AlgorithmId::Random,
            AlgorithmId::PowerOfTwo,
            AlgorithmId::Jiq,
            // Aperture's connections against its balance.
            AlgorithmId::Aperture,
        ],
        ..Scenario::default()
    }
}

// The rules production uses now: their lessons.

/// Servers of unequal capacity, each of three slowed by an antagonist for
/// 15 s in turn, and eight balancer copies that each see only their own
/// requests (Prequal's setting: docs/model.md#prequal).
fn antagonists() -> Scenario {
    let mut s = mixed_with(&[
        ("servers", "6"),
        ("speeds", "1,1,1,1,2,2"),
        ("load", "0.6"),
        ("balancers", "8"),
        ("requests", "30000"),
        (
            "events",
            "10s:s1:slow=0.3,25s:s1:recover,20s:s3:slow=0.25,35s:s3:recover,30s:s5:slow=0.3,45s:s5:recover",
        ),
    ]);
    s.algorithms = vec![
        AlgorithmId::RoundRobin,
        AlgorithmId::LeastConnections,
        AlgorithmId::PowerOfTwo,
        AlgorithmId::Prequal,
    ];
    s
}

/// Every preset, in the order the page lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "mixed",
        title: "Mixed request costs",
        lesson: "One request in ten is 20 times slower. Least connections keeps quick requests quick; \
                 round robin queues quick requests behind slow ones; hashing by user builds a hot server \
                 because the heaviest user alone sends about 12% of the traffic. Look at the quick-request \
                 p99, not the overall p99: the overall p99 is the slow requests' own 400 ms.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::UserHash],
        },
        plot: Plot::Cdf,
        build: mixed,
    },
    Preset {
        id: "control",
        title: "Control: every request 20 ms",
        lesson: "The same arrivals and users as the mixed preset, at the same rate, but every request \
                 takes 20 ms. At this light load all rules tie on latency; the user-hash imbalance is \
                 still there, because it comes from the users, not from the work.",
        remapping: false,
        view: LessonView {
            class: RequestClass::All,
            tail: false,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::UserHash],
        },
        plot: Plot::Cdf,
        build: control,
    },
    Preset {
        id: "degraded",
        title: "One degraded server",
        lesson: "Three servers, 60 requests/s of 100 ms work, server C at a fifth of the speed. Round \
                 robin keeps sending C a third of the traffic, more than it can serve, and its queue grows \
                 without bound. Least connections sees C's requests pile up and sends it about an eighth \
                 of the traffic (12.5%), more than C's share of the capacity (2/22, the fluid model's \
                 answer): at this light load the counts are small whole numbers and ties rotate, so C often \
                 ties at zero with the others and gets its turn. C's queue stays short: one request at \
                 most, and none in most runs.",
        remapping: false,
        view: LessonView {
            class: RequestClass::All,
            tail: true,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections],
        },
        plot: Plot::Loads,
        build: degraded,
    },
    Preset {
        id: "scale-out",
        title: "Scale out from 4 to 5 servers",
        lesson: "Adding a fifth server: modulo hashing moves about 80% of keys to a new owner; a ring, \
                 jump hash and Maglev move about a fifth, the share the new server should take.",
        remapping: true,
        view: LessonView { class: RequestClass::All, tail: false, focus: &[] },
        plot: Plot::Remap,
        build: mixed,
    },
    Preset {
        id: "herding",
        title: "Herding with partial views",
        lesson: "Sixty-four balancer copies share 64 single-slot servers, and each copy sees only its \
                 own requests. To every copy most servers look idle, and every copy breaks those ties in the \
                 same rotation, so their picks pile onto the same servers: least connections herds and ends \
                 up worse than random choice. Two random choices give each copy a different random pair, \
                 so the copies' picks stay spread and the quick-request p99 stays lowest.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::Random, AlgorithmId::LeastConnections, AlgorithmId::PowerOfTwo],
        },
        plot: Plot::Cdf,
        build: herding,
    },
    Preset {
        id: "black-hole",
        title: "A black hole: s3 fails fast",
        lesson: "From 20 s, s3 answers every request with a 500 after 1 ms: a black hole. Least connections sees s3's \
                 count drop fastest and sends it 58% of all requests, nearly all of which fail (49% of requests \
                 end in an error); round robin keeps sending it its quarter (16%). With NGINX's defaults a 500 \
                 is not a failure, so the passive check never marks s3 down. Set count-5xx to true: the first 500 \
                 takes s3 out for fail-timeout-ms, and least connections loses 4 requests, one trial per 10 s.",
        remapping: false,
        view: LessonView {
            class: RequestClass::All,
            tail: false,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections],
        },
        plot: Plot::Errors,
        build: black_hole,
    },
    Preset {
        id: "crash",
        title: "A crash that health checks must notice",
        lesson: "s4 crashes at 20 s and comes back at 40 s. Passive checks are off (max-fails 0); active checks probe \
                 every 2 s and mark s4 down on the third failed probe, 4 to 6 s after the crash (check-ms x fall \
                 decides it). Until then every request sent to s4 is lost: round robin loses 497, its quarter for \
                 about 5 s; least connections loses 1,556, because a server that refuses at once looks idle. Set \
                 retries to 1 and no request is lost (each goes on to another server); set max-fails to 1 and the \
                 first failure takes s4 out (4 lost); a shorter check-ms narrows the window.",
        remapping: false,
        view: LessonView {
            class: RequestClass::All,
            tail: false,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections],
        },
        plot: Plot::Errors,
        build: crash,
    },
    Preset {
        id: "slow-node",
        title: "A node slows down and recovers",
        lesson: "From 20 s to 40 s, s2 runs at a fifth of its speed. Round robin keeps sending it a quarter of the \
                 traffic, more than it can serve: its queue grows past 1,200 and the quick-request p99 reaches \
                 13.9 s. Least connections and two choices see s2's requests pile up and send the rest \
                 elsewhere: quick p99 100 ms and 114 ms. No health check helps here, since s2 never fails: only a \
                 rule that watches the load routes around it.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::PowerOfTwo],
        },
        plot: Plot::Queues,
        build: slow_node,
    },
    Preset {
        id: "cold-start",
        title: "A cold server joins",
        lesson: "s5 joins at 20 s, cold: it starts at a quarter of its speed and warms up over 15 s. Round robin gives it a \
                 full fifth of the traffic at once and its queue grows to 84 while it warms (quick p99 1.0 s). \
                 Least connections sends it a short burst (its count starts at zero) and then only what it \
                 finishes, so it never queues (quick p99 38 ms). Set slow-start-ms to 15000: round robin's weight \
                 for s5 ramps up as Envoy's slow start does, and its quick p99 falls to 75 ms.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections],
        },
        plot: Plot::Queues,
        build: cold_start,
    },
    Preset {
        id: "cache-locality",
        title: "Where hashing pays: caches",
        lesson: "Each server caches its 300 most recent users, and a hit does a fifth of the work. The load is 1.6 of \
                 the work as if nothing were cached, so the pool stands only because of its caches. Least connections \
                 spreads every user over all four servers, so each cache holds a mix of everyone: 67% hits. A hash \
                 rule sends each user to one server, whose cache keeps its own users: 90% hits. Hashing wins the \
                 latency: a mean of 17 to 19 ms against least connections' 28 ms, and p99s of 150 to 224 ms where the \
                 uncached slow requests hold the other rules at 400 ms. Its price is the hot server, 33% to 43% \
                 of requests: consistent hashing's quick p99 is 84 ms. Bounded loads keep most of the locality (80% \
                 hits, mean 21 ms) and cap the hot server: the best quick p99, 20.0 ms.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::LeastConnections, AlgorithmId::UserHash, AlgorithmId::BoundedLoad],
        },
        plot: Plot::Hits,
        build: cache_locality,
    },
    Preset {
        id: "remap-storm",
        title: "The remapping storm: a join empties the caches",
        lesson: "The cache-locality pool, and s5 joins at 20 s. Every user whose key now maps to s5 finds a cold cache \
                 there. In the 2 s after the join 528 users come back; lbsim remap moves 419 of their keys (79%) \
                 under user-hash's mod N, about a fifth on the ring (103), Maglev (123) and rendezvous (108). \
                 user-hash misses 319 more times than in the 2 s before, the ring 68, Maglev 67, rendezvous 55: \
                 the storm follows the share remapped (a remapped user its old server had already evicted misses \
                 anyway). In the hit rate over time, user-hash falls from about 92% to 75% within a second. Least connections \
                 misses only 48 more: its caches held a mix already, and only s5's starts cold.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::LeastConnections, AlgorithmId::UserHash, AlgorithmId::ConsistentHash],
        },
        plot: Plot::Hits,
        build: remap_storm,
    },
    Preset {
        id: "http2-pinning",
        title: "Layer 4 pins: long-lived connections",
        lesson: "Layer 4: each user holds one HTTP/2 connection, placed when it opens and never re-opened \
                 (conn-life-ms 0), so every rule places 2,000 connections, not 20,000 requests. The heaviest user's \
                 connection carries its 12% to one server whatever the rule: the busiest server takes 30% to 38% \
                 under every rule, as it does under hashing (33% to 43%). s5 joins at 20 s and stays nearly idle: \
                 only new users' connections reach it, 1.2% to 6% of the requests after the join, where a fair \
                 share is 20%. Set conn-life-ms to 30000: connections re-open through the rule and s5 fills slowly \
                 (round robin 15%), while least connections, which counts connections, not their traffic, sends \
                 every re-opened one to s5, the heaviest users' first (they opened first): s5 takes 44% and queues. \
                 Set layer to 7: every request is placed, and least connections gives s5 its 20%.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::UserHash],
        },
        plot: Plot::Requests,
        build: http2_pinning,
    },
    Preset {
        id: "theory",
        title: "Theory: M/M/8",
        lesson: "Exponential work and one pool of 8 slots at 80% load: random routing to one server is \
                 an M/M/8 queue. The simulated latency distribution follows the Erlang C formula drawn \
                 over it.",
        remapping: false,
        view: LessonView { class: RequestClass::All, tail: true, focus: &[] },
        plot: Plot::Cdf,
        build: theory,
    },
    // Learned weights: gRPC's and Envoy's weighted round robin on load reports.
    Preset {
        id: "learned-weights",
        title: "Learned weights: servers of unequal speed",
        lesson: "Servers of speeds 1, 1, 2 and 4 at 55% of their capacity. Round robin gives each a quarter, more \
                 than s1 and s2 can serve: their queues grow all run long, to 2,758, and its quick p99 is 19.0 s. \
                 Least connections sends each what it finishes: no queue passes 18, quick p99 88 ms. gRPC's \
                 weighted round robin (grpc-wrr) is round robin until its weights' 10 s blackout ends, and its \
                 longest queue reaches 241 by 11 s; then the weights the servers' load reports give \
                 (qps / utilization) stand in the speeds' ratio, and from 20 s to 60 s no queue passes 19. At 60 s \
                 s4 drops to a quarter of its speed for a minute: its reports lower its weight within two seconds, \
                 but the 365 requests queued on it meanwhile drain only through its spare capacity, since a weight \
                 measures utilization, not a queue: 44 are still there at 118 s. Envoy's client-side weights \
                 (envoy-cswrr) learn the same weights: 230 by 11 s, 330 in the slow minute.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[
                AlgorithmId::RoundRobin,
                AlgorithmId::LeastConnections,
                AlgorithmId::GrpcWrr,
                AlgorithmId::EnvoyCswrr,
            ],
        },
        plot: Plot::Queues,
        build: learned_weights,
    },
    // The rules that hear the servers: many copies.
    Preset {
        id: "many-balancers",
        title: "Many balancers: join the idle queue",
        lesson: "Thirty-two balancer copies share 64 single-slot servers at 80% load (exponential work, 20 ms), each \
                 seeing only its own requests. 32 round robin rotations out of step place requests as if at random: a \
                 mean of 91 ms against random's 93, a p99 near 400 ms. Two choices over a copy's own counts: 71 ms, \
                 p99 275 ms. Aperture gives each copy a slice of 12 servers (384 connections, not a full mesh's \
                 2,048), so a server hears from six copies, not 32: 53 ms, p99 200 ms. JIQ hears the servers: an idle \
                 one joins a copy's idle queue, 44 ms and p99 194 ms. Set jiq-sampled to 2 (JIQ-SQ(2)): 39 ms. Set \
                 aperture-size to 64: the full mesh, and two choices' tail (295 ms). Set balancers to 1: one rotation \
                 (52 ms), and JIQ's one queue holds every idle server (20 ms, the work alone).",
        remapping: false,
        view: LessonView {
            class: RequestClass::All,
            tail: true,
            focus: &[AlgorithmId::RoundRobin, AlgorithmId::PowerOfTwo, AlgorithmId::Jiq, AlgorithmId::Aperture],
        },
        plot: Plot::Cdf,
        build: many_balancers,
    },
    // The rules production uses now.
    Preset {
        id: "antagonists",
        title: "Antagonists: probe the servers, not your own counts",
        lesson: "Six servers, s5 and s6 twice as fast as the rest, and antagonists: s1, s3 and s5 in turn run at \
                 a quarter to a third of their speed for 15 s. Eight balancer copies each count only the requests \
                 they sent. Round robin ignores it all: quick p99 9.0 s. The load-based rules see an eighth of \
                 each server's load: least connections' quick p99 is 205 ms, two choices' 598 ms. Prequal probes \
                 the servers themselves, their whole requests in flight and their recent latency. At the paper's \
                 Q_RIF of 0.84 it chases the lowest latency and sends s6 33.9% of the traffic, more than its \
                 quarter of the capacity: quick p99 239 ms. Set q-rif to 0.6 and a probe counts as hot sooner, so \
                 requests in flight weigh earlier: s6 takes 30.2% and the quick p99 falls to 80 ms, a quick \
                 request served without waiting on a server at a quarter of its speed.",
        remapping: false,
        view: LessonView {
            class: RequestClass::Quick,
            tail: true,
            focus: &[AlgorithmId::LeastConnections, AlgorithmId::PowerOfTwo, AlgorithmId::Prequal],
        },
        plot: Plot::Cdf,
        build: antagonists,
    },
];

/// Looks a preset up by id.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}
